package layouts

// This file holds CuTe's core layout algebra: coalesce, filter,
// composition, complement and the two inverses. Every function follows the
// code path CuTe takes when all shapes and strides are static integers
// (the case CuTe's documentation describes, and the one that simplifies),
// including where CuTe stops with a static_assert.

func leafLayout(s, d int) Layout { return Layout{Shape: Int(s), Stride: Int(d)} }

// Concat is CuTe's make_layout(l0, l1, ...): the layout whose top-level
// modes are the given layouts. It always has a tuple shape, even for one
// argument (make_layout(8:1) is (8):(1)).
func Concat(ls ...Layout) Layout {
	sh := IntTuple{modes: make([]IntTuple, len(ls))}
	st := IntTuple{modes: make([]IntTuple, len(ls))}
	for i, l := range ls {
		sh.modes[i], st.modes[i] = l.Shape, l.Stride
	}
	return Layout{Shape: sh, Stride: st}
}

// Flatten returns the layout with the leaves of l as its modes (depth <= 1).
// A layout with an integer shape stays as it is.
func (l Layout) Flatten() Layout {
	return Layout{Shape: l.Shape.Flatten(), Stride: l.Stride.Flatten()}
}

// modeOf is CuTe's get<i> on a layout: a layout with an integer shape has
// one mode, itself.
func modeOf(l Layout, i int) Layout {
	if l.Shape.leaf {
		return l
	}
	return Layout{Shape: l.Shape.modes[i], Stride: l.Stride.modes[i]}
}

func rankOf(t IntTuple) int {
	if t.leaf {
		return 1
	}
	return len(t.modes)
}

// transformLayout is CuTe's transform_layout(t0, t1, f): f over the first
// min(rank) mode pairs, then the remaining modes of the longer operand.
func transformLayout(a Layout, n int, f func(i int, m Layout) Layout) Layout {
	ra := rankOf(a.Shape)
	out := make([]Layout, 0, ra)
	for i := 0; i < ra; i++ {
		m := modeOf(a, i)
		if i < n {
			m = f(i, m)
		}
		out = append(out, m)
	}
	return Concat(out...)
}

func flatLists(l Layout) (sh, st []int) {
	return l.Shape.Leaves(), l.Stride.Leaves()
}

func requireLayout(op string, l Layout) {
	if !l.Shape.Congruent(l.Stride) {
		fail(op, CondCongruence, "shape %v and stride %v must be congruent", l.Shape, l.Stride)
	}
}

// bwCoalesce runs CuTe's right-to-left coalesce over flat modes. newS and
// newD start as the last mode (an integer, not yet a tuple).
func bwCoalesce(sh, st []int, last int, newS, newD int) Layout {
	s := []int{newS}
	d := []int{newD}
	isTuple := false
	for i := last; i >= 0; i-- {
		switch {
		case sh[i] == 1:
			// A size-1 mode is skipped.
		case !isTuple && s[0] == 1:
			s[0], d[0] = sh[i], st[i]
		case mul(sh[i], st[i]) == d[0]:
			s[0] = mul(sh[i], s[0])
			d[0] = st[i]
		default:
			s = append([]int{sh[i]}, s...)
			d = append([]int{st[i]}, d...)
			isTuple = true
		}
	}
	if !isTuple {
		if s[0] == 1 {
			return leafLayout(1, 0)
		}
		return leafLayout(s[0], d[0])
	}
	return Layout{Shape: Ints(s...), Stride: Ints(d...)}
}

func coalesce(op string, l Layout) Layout {
	sh, st := flatLists(l)
	if len(sh) == 0 {
		fail(op, CondEmpty, "coalesce of the empty layout %v", l)
	}
	r := len(sh)
	return bwCoalesce(sh, st, r-2, sh[r-1], st[r-1])
}

// coalesceX is CuTe's detail::coalesce_x: like coalesce, but it also keeps
// the layout's values past its size (a trailing size-1 mode keeps its
// stride as a size-2 mode). composition uses it on its left operand.
func coalesceX(op string, l Layout) Layout {
	sh, st := flatLists(l)
	if len(sh) == 0 {
		fail(op, CondEmpty, "composition with the empty layout %v", l)
	}
	r := len(sh)
	if sh[r-1] == 1 {
		return bwCoalesce(sh, st, r-2, 2, st[r-1])
	}
	return bwCoalesce(sh, st, r-2, sh[r-1], st[r-1])
}

// Coalesce is CuTe's coalesce(layout): the simplest layout with the same
// size and the same values on [0, size), of depth at most 1.
func Coalesce(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("coalesce", l)
	return coalesce("coalesce", l), nil
}

// CoalesceProfile is CuTe's by-mode coalesce(layout, profile): it applies
// coalesce at each leaf of profile (the leaf values do not matter), so the
// result keeps the mode structure that profile names.
func CoalesceProfile(l Layout, profile IntTuple) (res Layout, err error) {
	defer guard(&err)
	requireLayout("coalesce", l)
	return byProfile("coalesce", l, profile, func(m Layout) Layout { return coalesce("coalesce", m) }), nil
}

func byProfile(op string, l Layout, profile IntTuple, f func(Layout) Layout) Layout {
	if profile.leaf {
		return f(l)
	}
	if len(profile.modes) > rankOf(l.Shape) {
		fail(op, CondRank, "profile %v has more modes than layout %v", profile, l)
	}
	return transformLayout(l, len(profile.modes), func(i int, m Layout) Layout {
		return byProfile(op, m, profile.modes[i], f)
	})
}

// FilterZeros is CuTe's filter_zeros: every mode with stride 0 gets extent 1.
func FilterZeros(l Layout) Layout {
	return Layout{Shape: filterZeros(l.Stride, l.Shape), Stride: l.Stride}
}

func filterZeros(stride, shape IntTuple) IntTuple {
	if !stride.leaf {
		out := IntTuple{modes: make([]IntTuple, len(stride.modes))}
		for i := range stride.modes {
			out.modes[i] = filterZeros(stride.modes[i], shape.Mode(i))
		}
		return out
	}
	if stride.v == 0 {
		return shape.Map(func(int) int { return 1 })
	}
	return shape
}

// Filter is CuTe's filter: coalesce after dropping stride-0 and size-1
// modes. The result is 1:0 when nothing is left.
func Filter(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("filter", l)
	return coalesce("filter", FilterZeros(l)), nil
}

// FilterProfile is CuTe's by-mode filter(layout, profile).
func FilterProfile(l Layout, profile IntTuple) (res Layout, err error) {
	defer guard(&err)
	requireLayout("filter", l)
	return byProfile("filter", l, profile, func(m Layout) Layout { return coalesce("filter", FilterZeros(m)) }), nil
}

// Composition is CuTe's composition(a, b), the layout R with R(c) = a(b(c))
// for every coordinate c of b, with b's shape. It fails, as CuTe does, when
// b's strides or extents do not divide through a's modes (the stride and
// shape divisibility conditions).
func Composition(a, b Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("composition", a)
	requireLayout("composition", b)
	return compose(a, b), nil
}

func compose(a, b Layout) Layout {
	fa := coalesceX("composition", a)
	return composeImpl(fa, b.Shape, b.Stride)
}

// composeImpl is CuTe's detail::composition_impl with lhs already flat.
func composeImpl(lhs Layout, rs, rd IntTuple) Layout {
	if !rs.leaf {
		out := make([]Layout, len(rs.modes))
		for i := range rs.modes {
			out[i] = composeImpl(lhs, rs.modes[i], rd.modes[i])
		}
		return Concat(out...)
	}
	if rd.v == 0 {
		return leafLayout(rs.v, 0)
	}
	if lhs.Shape.leaf {
		return leafLayout(rs.v, mul(rd.v, lhs.Stride.v))
	}
	ls, ld := lhs.Shape.Leaves(), lhs.Stride.Leaves()
	r := len(ls)
	if r == 0 {
		fail("composition", CondEmpty, "composition with an empty layout")
	}
	var resS, resD []int
	restS, restD := rs.v, rd.v
	for i := 0; i < r-1; i++ {
		cs, cd := ls[i], ld[i]
		if cs == 0 {
			fail("composition", CondDivZero, "mode %d of %v has extent 0", i, lhs)
		}
		if !(cmod(restD, cs) == 0 || restD < cs) {
			fail("composition", CondStrideDivisibility,
				"the right operand's stride %d is neither a multiple of nor smaller than extent %d of mode %d of %v", restD, cs, i, lhs)
		}
		nextShape := ceilDivInt(cs, iabs(restD))
		nextStride := ceilDivInt(iabs(restD), cs) * signum(restD)
		if nextShape == 1 || restS == 1 {
			restD = nextStride
			continue
		}
		newShape := min(nextShape, restS)
		if newShape == 0 || cmod(restS, newShape) != 0 {
			fail("composition", CondShapeDivisibility,
				"the right operand's remaining extent %d is not a multiple of %d, the extent it takes from mode %d of %v", restS, newShape, i, lhs)
		}
		resS = append(resS, newShape)
		resD = append(resD, mul(restD, cd))
		restS = restS / newShape
		restD = nextStride
	}
	switch {
	case len(resS) == 0:
		return leafLayout(restS, mul(restD, ld[r-1]))
	case restS == 1:
		if len(resS) == 1 {
			return leafLayout(resS[0], resD[0])
		}
		return Layout{Shape: Ints(resS...), Stride: Ints(resD...)}
	}
	resS = append(resS, restS)
	resD = append(resD, mul(restD, ld[r-1]))
	return Layout{Shape: Ints(resS...), Stride: Ints(resD...)}
}

// Complement is CuTe's complement(layout, cotarget): the ordered layout
// that, concatenated with layout, fills the codomain up to size(cotarget)
// without repeating an offset. cotarget is an integer or a shape. It fails
// for layouts that are not injective.
func Complement(l Layout, cotarget IntTuple) (res Layout, err error) {
	defer guard(&err)
	requireLayout("complement", l)
	return complement(l, cotarget), nil
}

// ComplementCosize is CuTe's one-argument complement(layout): the
// complement up to cosize(filter(layout)).
func ComplementCosize(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("complement", l)
	f := coalesce("complement", FilterZeros(l))
	return complementFiltered(f, Int(cosizeOf(f))), nil
}

func complement(l Layout, cotarget IntTuple) Layout {
	f := coalesce("complement", FilterZeros(l))
	return complementFiltered(f, cotarget)
}

func complementFiltered(f Layout, cotarget IntTuple) Layout {
	for _, v := range cotarget.Leaves() {
		if v < 0 {
			fail("complement", CondNonNegative, "the cotarget %v is negative: complement fills the offsets [0, size(cotarget))", cotarget)
		}
	}
	for _, d := range f.Stride.Leaves() {
		if d < 0 {
			fail("complement", CondNonNegative, "stride %d of %v is negative: complement (which the divides and products use on their tiler) is defined for layouts whose strides are not negative", d, f)
		}
	}
	if f.Stride.leaf && f.Stride.v == 0 {
		return makeCompact(Int(checkedProduct(cotarget)))
	}
	shape, stride := f.Shape.Leaves(), f.Stride.Leaves()
	r := len(shape)
	resS := []int{}
	resD := []int{1}
	for i := 0; i < r-1; i++ {
		mi := 0
		for j := range stride {
			if stride[j] < stride[mi] {
				mi = j
			}
		}
		minStride := stride[mi]
		newShape := cdiv(minStride, resD[i])
		newStride := mul(minStride, shape[mi])
		if newShape == 0 {
			fail("complement", CondNonInjective, "layout %v maps two coordinates to the same offset (stride %d < %d)", f, minStride, resD[i])
		}
		shape = append(shape[:mi:mi], shape[mi+1:]...)
		stride = append(stride[:mi:mi], stride[mi+1:]...)
		resS = append(resS, newShape)
		resD = append(resD, newStride)
	}
	newShape := cdiv(stride[0], resD[r-1])
	if newShape == 0 {
		fail("complement", CondNonInjective, "layout %v maps two coordinates to the same offset (stride %d < %d)", f, stride[0], resD[r-1])
	}
	resS = append(resS, newShape)
	newStride := mul(stride[0], shape[0])
	restShape := checkedProduct(ceilDivTupleInt(cotarget, newStride))
	restStride := newStride
	if restShape == 1 {
		restStride = 0
	}
	resS = append(resS, restShape)
	resD = append(resD, restStride)
	return bwCoalesce(resS, resD, len(resS)-2, resS[len(resS)-1], resD[len(resD)-1])
}

// ceilDivTupleInt is CuTe's ceil_div(tuple, int): it folds the divisor
// through the modes from the left.
func ceilDivTupleInt(a IntTuple, b int) IntTuple {
	if a.leaf {
		return Int(ceilDivInt(a.v, b))
	}
	out := IntTuple{modes: make([]IntTuple, len(a.modes))}
	rest := b
	for i, m := range a.modes {
		out.modes[i] = ceilDivTupleInt(m, rest)
		rest = ceilDivInt(rest, checkedProduct(m))
	}
	return out
}

// makeCompact is CuTe's make_layout(shape) with static extents: compact
// column-major strides, with stride 0 for extent-1 modes.
func makeCompact(shape IntTuple) Layout {
	acc := 1
	return Layout{Shape: shape, Stride: shape.Map(func(v int) int {
		if v == 1 {
			return 0
		}
		r := acc
		acc = mul(acc, v)
		return r
	})}
}

// MakeLayout is CuTe's make_layout(shape): the compact column-major layout
// of shape, where (as with CuTe's static integers) extent-1 modes get
// stride 0. ColMajor differs only there.
func MakeLayout(shape IntTuple) (res Layout, err error) {
	defer guard(&err)
	return makeCompact(shape), nil
}

// MakeLayoutRight is CuTe's make_layout(shape, LayoutRight): compact
// row-major strides, stride 0 for extent-1 modes.
func MakeLayoutRight(shape IntTuple) (res Layout, err error) {
	defer guard(&err)
	leaves := shape.Leaves()
	st := make([]int, len(leaves))
	acc := 1
	for i := len(leaves) - 1; i >= 0; i-- {
		if leaves[i] == 1 {
			continue
		}
		st[i] = acc
		acc = mul(acc, leaves[i])
	}
	return Layout{Shape: shape, Stride: Unflatten(st, shape)}, nil
}

// cosizeOf is CuTe's cosize: sum((s-1)*|d|) + 1 over the leaves.
func cosizeOf(l Layout) int {
	sh, st := flatLists(l)
	c := 1
	for i := range sh {
		c = add(c, mul(sh[i]-1, iabs(st[i])))
	}
	return c
}

// exchangeSort returns the permutation that CuTe's compile-time
// exchange_sort (used by SortByKey) puts the keys in. It is not stable,
// and the inverses depend on its exact order for equal strides.
func exchangeSort(keys []int) []int {
	k := append([]int(nil), keys...)
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	for i := range k {
		for j := i + 1; j < len(k); j++ {
			if k[j] < k[i] {
				k[i], k[j] = k[j], k[i]
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	return idx
}

// RightInverse is CuTe's right_inverse(layout): the layout R with
// layout(R(i)) == i for all i < size(R), as large as the layout's
// contiguous part allows.
func RightInverse(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("right_inverse", l)
	return rightInverse(l), nil
}

func rightInverse(l Layout) Layout {
	c := coalesce("right_inverse", l)
	sh, st := flatLists(c)
	pre := prefixProducts(sh)
	resS, resD := []int{1}, []int{0}
	curr := 1
	for _, i := range exchangeSort(st) {
		if st[i] == curr {
			resS = append(resS, sh[i])
			resD = append(resD, pre[i])
			curr = mul(sh[i], st[i])
		}
	}
	return bwCoalesce(resS, resD, len(resS)-2, resS[len(resS)-1], resD[len(resD)-1])
}

func prefixProducts(sh []int) []int {
	pre := make([]int, len(sh)+1)
	pre[0] = 1
	for i, s := range sh {
		pre[i+1] = mul(pre[i], s)
	}
	return pre
}

// LeftInverse is CuTe's left_inverse(layout): the layout R with
// R(layout(i)) == i for every i < size(layout) when layout is injective (a
// quasi-inverse otherwise). It fails when a stride does not divide the
// size of the modes before it (the left inverse divisibility condition).
func LeftInverse(l Layout) (res Layout, err error) {
	defer guard(&err)
	requireLayout("left_inverse", l)
	return leftInverse(l), nil
}

func leftInverse(l Layout) Layout {
	c := coalesce("left_inverse", l)
	sh, st := flatLists(c)
	pre := prefixProducts(sh)
	order := exchangeSort(st)
	var resS []int
	resD := []int{0}
	size := 1
	for _, i := range order {
		if st[i] == 0 {
			continue
		}
		if cmod(st[i], size) != 0 {
			fail("left_inverse", CondLeftInverse, "stride %d of %v is not a multiple of %d, the size of the modes with smaller strides", st[i], c, size)
		}
		q := st[i] / size
		resS = append(resS, q)
		resD = append(resD, pre[i])
		size = mul(size, q)
	}
	resS = append(resS, sh[order[len(order)-1]])
	return bwCoalesce(resS, resD, len(resS)-2, resS[len(resS)-1], resD[len(resD)-1])
}
