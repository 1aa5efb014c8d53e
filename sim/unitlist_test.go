package sim

import (
	"reflect"
	"testing"
)

// The lazy unit list enumerates what building every unit up front gave:
// the CTAs of each cluster (x fastest), clusters in launch order.
func TestUnitListOrder(t *testing.T) {
	for _, tc := range []struct{ grid, cluster [3]int }{
		{[3]int{1, 1, 1}, [3]int{1, 1, 1}},
		{[3]int{4, 3, 2}, [3]int{1, 1, 1}},
		{[3]int{4, 2, 1}, [3]int{2, 1, 1}},
		{[3]int{4, 4, 2}, [3]int{2, 2, 1}},
		{[3]int{2, 2, 4}, [3]int{1, 2, 2}},
	} {
		var want [][][3]int
		g, c := tc.grid, tc.cluster
		for cz := 0; cz < g[2]; cz += c[2] {
			for cy := 0; cy < g[1]; cy += c[1] {
				for cx := 0; cx < g[0]; cx += c[0] {
					var u [][3]int
					for z := 0; z < c[2]; z++ {
						for y := 0; y < c[1]; y++ {
							for x := 0; x < c[0]; x++ {
								u = append(u, [3]int{cx + x, cy + y, cz + z})
							}
						}
					}
					want = append(want, u)
				}
			}
		}
		m := &Machine{Grid: g, Cluster: c}
		l := m.units()
		var got [][][3]int
		for i := 0; i < l.Len(); i++ {
			got = append(got, l.At(i))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("grid %v cluster %v: units %v, want %v", g, c, got, want)
		}
	}
	// the largest grid costs nothing until a unit is asked for
	m := &Machine{Grid: [3]int{65535, 65535, 65535}, Cluster: [3]int{1, 1, 1}}
	l := m.units()
	if n := l.Len(); n != 65535*65535*65535 {
		t.Errorf("Len %d", n)
	}
	if last := l.At(l.Len() - 1); !reflect.DeepEqual(last, [][3]int{{65534, 65534, 65534}}) {
		t.Errorf("last unit %v", last)
	}
}

// Units are claimed and cancelled once each; clusterlaunchcontrol cancels
// the first unit not yet started, and the record of taken units stays
// small when they are taken in order.
func TestUnitStates(t *testing.T) {
	m := &Machine{Grid: [3]int{1000000, 1, 1}, Cluster: [3]int{1, 1, 1}}
	l := m.units()
	if !m.claimUnit(0) || m.claimUnit(0) {
		t.Fatal("unit 0 claimed twice or not at all")
	}
	if !m.claimUnit(2) { // out of order, as parallel workers may
		t.Fatal("unit 2")
	}
	if first, ok := m.cancelNext(); !ok || first != l.At(1)[0] {
		t.Errorf("cancelNext = %v %v, want unit 1", first, ok)
	}
	if m.claimUnit(1) {
		t.Error("a cancelled unit was claimed")
	}
	if first, ok := m.cancelNext(); !ok || first != l.At(3)[0] {
		t.Errorf("cancelNext = %v %v, want unit 3", first, ok)
	}
	for i := 4; i < 1000000; i++ {
		m.claimUnit(i)
	}
	if _, ok := m.cancelNext(); ok {
		t.Error("cancelNext found a unit after every unit started")
	}
	if s := m.unitState; len(s.taken) != 0 || s.low != 1000000 {
		t.Errorf("the record holds %d entries, low %d", len(s.taken), s.low)
	}
}
