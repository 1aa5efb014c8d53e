package layouts

// Operations that rearrange a layout's modes.

// Get is CuTe's get<i0,i1,...>(layout): the sub-layout at the given path of
// mode indices. An integer-shaped layout has one mode, itself.
func Get(l Layout, path ...int) (res Layout, err error) {
	defer guard(&err)
	for _, i := range path {
		if i < 0 || i >= rankOf(l.Shape) {
			fail("get", CondRank, "mode %d is out of range for %v (rank %d)", i, l, rankOf(l.Shape))
		}
		l = modeOf(l, i)
	}
	return l, nil
}

// Select is CuTe's select<I...>(layout): the layout made of modes I... in
// that order (always a tuple, even for one index).
func Select(l Layout, idx ...int) (res Layout, err error) {
	defer guard(&err)
	ms := make([]Layout, len(idx))
	for k, i := range idx {
		if i < 0 || i >= rankOf(l.Shape) {
			fail("select", CondRank, "mode %d is out of range for %v (rank %d)", i, l, rankOf(l.Shape))
		}
		ms[k] = modeOf(l, i)
	}
	return Concat(ms...), nil
}

// Take is CuTe's take<B,E>(layout): modes [b, e) as a tuple.
func Take(l Layout, b, e int) (res Layout, err error) {
	defer guard(&err)
	r := rankOf(l.Shape)
	if b < 0 || e > r || b >= e {
		fail("take", CondRank, "range [%d,%d) is empty or outside the %d modes of %v", b, e, r, l)
	}
	ms := make([]Layout, 0, e-b)
	for i := b; i < e; i++ {
		ms = append(ms, modeOf(l, i))
	}
	return Concat(ms...), nil
}

// GroupModes is CuTe's group<B,E>(layout) (group_modes): modes [b, e)
// become one mode. e == -1 means the rank. b == e leaves the layout as it is.
func GroupModes(l Layout, b, e int) (res Layout, err error) {
	defer guard(&err)
	r := rankOf(l.Shape)
	if e == -1 {
		e = r
	}
	if b < 0 || e > r || b > e {
		fail("group_modes", CondRank, "range [%d,%d) is outside the %d modes of %v", b, e, r, l)
	}
	var ms []Layout
	for i := 0; i < b; i++ {
		ms = append(ms, modeOf(l, i))
	}
	if b < e {
		g := make([]Layout, 0, e-b)
		for i := b; i < e; i++ {
			g = append(g, modeOf(l, i))
		}
		ms = append(ms, Concat(g...))
	}
	for i := e; i < r; i++ {
		ms = append(ms, modeOf(l, i))
	}
	return Concat(ms...), nil
}

// Append is CuTe's append(layout, x): x becomes a new last mode.
func Append(l, x Layout) Layout {
	ms := make([]Layout, 0, rankOf(l.Shape)+1)
	for i := 0; i < rankOf(l.Shape); i++ {
		ms = append(ms, modeOf(l, i))
	}
	return Concat(append(ms, x)...)
}

// Prepend is CuTe's prepend(layout, x): x becomes a new first mode.
func Prepend(l, x Layout) Layout {
	ms := []Layout{x}
	for i := 0; i < rankOf(l.Shape); i++ {
		ms = append(ms, modeOf(l, i))
	}
	return Concat(ms...)
}

// MakeLayoutLike is CuTe's make_layout_like: a compact layout with l's
// shape whose strides follow the order of l's strides; stride-0 modes stay
// stride 0.
func MakeLayoutLike(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("make_layout_like", l)
	shape := filterZeros(l.Stride, l.Shape)
	refShape := shape.Leaves()
	refOrder := l.Stride.Leaves()
	k := 0
	st := shape.Map(func(s int) int {
		o := refOrder[k]
		k++
		start := 1
		for j, rs := range refShape {
			if refOrder[j] < o {
				start = mul(start, rs)
			}
		}
		if s == 1 {
			return 0
		}
		return start
	})
	return Layout{Shape: l.Shape, Stride: st}, nil
}

// MaxCommonVector is CuTe's max_common_vector(a, b): the number of
// contiguous elements on which a and b agree, 1 if none (at least 1).
func MaxCommonVector(a, b Layout) (n int, err error) {
	defer guard(&err)
	requireLayout("max_common_vector", a)
	requireLayout("max_common_vector", b)
	common := coalesce("max_common_vector", compose(a, rightInverse(b)))
	m0 := modeOf(common, 0)
	if m0.Stride.leaf && m0.Stride.v == 1 {
		return checkedProduct(m0.Shape), nil
	}
	return 1, nil
}
