package sim

import (
	"sync"
)

// claimUnit marks unit i as started; false when it was started before or
// cancelled by clusterlaunchcontrol.try_cancel.
func (m *Machine) claimUnit(i int) bool { return m.unitState.set(i, unitStarted) }

// cancelNext cancels the first unit in launch order that has not started
// (what clusterlaunchcontrol.try_cancel asks for) and returns the id of its
// first CTA; ok is false when every unit has started.
func (m *Machine) cancelNext() (first [3]int, ok bool) {
	i, ok := m.unitState.cancelFirst()
	if !ok {
		return first, false
	}
	return m.unitList.At(i)[0], true
}

// unitStates records which units were started or cancelled without a slot
// per unit: units start nearly in launch order, so everything below low is
// taken and the map holds only the few taken out of order.
type unitStates struct {
	mu    sync.Mutex
	n     int
	low   int           // every unit below low is started or cancelled
	taken map[int]uint8 // units at or above low: unitStarted or unitCancelled
}

const (
	unitStarted   uint8 = 1
	unitCancelled uint8 = 2
)

// set marks unit i as st unless it is taken already.
func (s *unitStates) set(i int, st uint8) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setLocked(i, st)
}

func (s *unitStates) setLocked(i int, st uint8) bool {
	if i < s.low || i >= s.n || s.taken[i] != 0 {
		return false
	}
	s.taken[i] = st
	for s.low < s.n && s.taken[s.low] != 0 {
		delete(s.taken, s.low)
		s.low++
	}
	return true
}

// cancelFirst cancels the first unit not taken.
func (s *unitStates) cancelFirst() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.low; i < s.n; i++ {
		if s.setLocked(i, unitCancelled) {
			return i, true
		}
	}
	return 0, false
}

// unitList enumerates the units of a grid lazily: the CTAs of one
// cluster, or each CTA alone, in launch order (x fastest). A grid of
// 65535×65535×65535 CTAs never builds its coordinate list.
type unitList struct {
	cluster [3]int
	per     [3]int // clusters along each dimension
}

// units lists the units of the machine's grid, and resets their start and
// cancel state.
func (m *Machine) units() unitList {
	l := unitList{cluster: m.Cluster}
	for i := range 3 {
		l.per[i] = (m.Grid[i] + m.Cluster[i] - 1) / m.Cluster[i]
	}
	m.unitList = l
	m.unitState = &unitStates{n: l.Len(), taken: map[int]uint8{}}
	return l
}

// Len is the number of units.
func (l unitList) Len() int { return l.per[0] * l.per[1] * l.per[2] }

// At returns the CTA coordinates of unit i.
func (l unitList) At(i int) [][3]int {
	c := l.cluster
	cx := i % l.per[0] * c[0]
	cy := i / l.per[0] % l.per[1] * c[1]
	cz := i / (l.per[0] * l.per[1]) * c[2]
	u := make([][3]int, 0, c[0]*c[1]*c[2])
	for z := 0; z < c[2]; z++ {
		for y := 0; y < c[1]; y++ {
			for x := 0; x < c[0]; x++ {
				u = append(u, [3]int{cx + x, cy + y, cz + z})
			}
		}
	}
	return u
}
