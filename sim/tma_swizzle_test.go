package sim

import "testing"

// TestSwizzleCovered: an off-repeat write is the continuation of a tile
// when the writes of its phase with its repeat cover the bytes from the
// repeat boundary up to it; other phases, other repeats and gaps do not.
func TestSwizzleCovered(t *testing.T) {
	w := swzWrite{phase: 3, off: 0x1180, n: 0x80, rep: 1024}
	for _, tc := range []struct {
		name   string
		others []swzWrite
		want   bool
	}{
		{"alone", nil, false},
		{"slices before it", []swzWrite{{3, 0x1000, 0x100, 1024, nil}, {3, 0x1100, 0x80, 1024, nil}}, true},
		{"one copy over the start", []swzWrite{{3, 0xc00, 0x580, 1024, nil}}, true},
		{"a gap", []swzWrite{{3, 0x1000, 0x100, 1024, nil}}, false},
		{"another phase", []swzWrite{{4, 0x1000, 0x180, 1024, nil}}, false},
		{"another repeat", []swzWrite{{3, 0x1000, 0x180, 512, nil}}, false},
		{"after it only", []swzWrite{{3, 0x1200, 0x200, 1024, nil}}, false},
	} {
		mb := &mbarrier{swz: append(tc.others, w)}
		if got := mb.swizzleCovered(w); got != tc.want {
			t.Errorf("%s: covered %v, want %v", tc.name, got, tc.want)
		}
	}
}
