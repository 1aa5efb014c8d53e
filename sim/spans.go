package sim

import "sort"

// spans is a set of byte offsets kept as sorted, disjoint, non-adjacent
// half-open intervals.
type spans []span

type span struct{ lo, hi uint32 }

// add inserts [lo, hi).
func (s *spans) add(lo, hi uint32) {
	if lo >= hi {
		return
	}
	v := *s
	// first interval that ends at or after lo
	i := sort.Search(len(v), func(i int) bool { return v[i].hi >= lo })
	j := i
	for j < len(v) && v[j].lo <= hi {
		lo = min(lo, v[j].lo)
		hi = max(hi, v[j].hi)
		j++
	}
	if i == j {
		v = append(v, span{})
		copy(v[i+1:], v[i:])
		v[i] = span{lo, hi}
		*s = v
		return
	}
	v[i] = span{lo, hi}
	*s = append(v[:i+1], v[j:]...)
}

// size is the number of offsets in the set.
func (s spans) size() int {
	n := 0
	for _, x := range s {
		n += int(x.hi - x.lo)
	}
	return n
}

// overlaps reports whether [lo, hi) meets the set.
func (s spans) overlaps(lo, hi uint32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi > lo })
	return i < len(s) && s[i].lo < hi
}

// covers reports whether the set holds every offset of [lo, hi).
func (s spans) covers(lo, hi uint32) bool {
	if lo >= hi {
		return true
	}
	i := sort.Search(len(s), func(i int) bool { return s[i].hi > lo })
	return i < len(s) && s[i].lo <= lo && s[i].hi >= hi
}
