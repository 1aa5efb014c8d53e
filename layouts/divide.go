package layouts

// CuTe's divides and products, by layout and by tiler.

// CompositionTiler is CuTe's composition(layout, tiler). A layout tiler is
// plain composition; an integer N composes with N:1; a tuple tiler
// composes mode by mode and, as in CuTe, drops the modes of l that the
// tiler does not reach; "_" keeps l.
func CompositionTiler(l Layout, t Tiler) (res Layout, err error) {
	defer guard(&err)
	requireLayout("composition", l)
	return composeTiler(l, t), nil
}

func composeTiler(l Layout, t Tiler) Layout {
	switch t.Kind {
	case TileLayout:
		requireLayout("composition", t.Layout)
		return compose(l, t.Layout)
	case TileInt:
		return composeImpl(coalesceX("composition", l), Int(t.N), Int(1))
	case TileSkip:
		return l
	}
	if len(t.Modes) > rankOf(l.Shape) {
		fail("composition", CondRank, "tiler %v has more modes than layout %v", t, l)
	}
	out := make([]Layout, len(t.Modes))
	for i, m := range t.Modes {
		out[i] = composeTiler(modeOf(l, i), m)
	}
	return Concat(out...)
}

// LogicalDivide is CuTe's logical_divide(layout, tiler): for a layout
// tiler B, layout ∘ (B, complement(B, shape(coalesce(layout)))), whose mode
// 0 is the tile and mode 1 the tiles' arrangement; a tuple tiler divides
// mode by mode and keeps the remaining modes.
func LogicalDivide(l Layout, t Tiler) (res Layout, err error) {
	defer guard(&err)
	requireLayout("logical_divide", l)
	return logicalDivide(l, t), nil
}

func logicalDivide(l Layout, t Tiler) Layout {
	switch t.Kind {
	case TileLayout:
		requireLayout("logical_divide", t.Layout)
		c := complement(t.Layout, coalesce("logical_divide", l).Shape)
		return compose(l, Concat(t.Layout, c))
	case TileInt:
		return logicalDivide(l, LayoutTiler(makeCompact(Int(t.N))))
	case TileSkip:
		return l
	}
	if len(t.Modes) > rankOf(l.Shape) {
		fail("logical_divide", CondRank, "tiler %v has more modes than layout %v", t, l)
	}
	return transformLayout(l, len(t.Modes), func(i int, m Layout) Layout { return logicalDivide(m, t.Modes[i]) })
}

// zip2By is CuTe's zip2_by: follow the tiler's profile and gather the
// first and second halves of the rank-2 modes found at its leaves.
func zip2By(op string, t IntTuple, guide Tiler) (IntTuple, IntTuple) {
	if guide.Kind != TileTuple {
		if t.leaf || len(t.modes) != 2 {
			fail(op, CondRank, "mode %v is not rank 2 where the tiler has %v", t, guide)
		}
		return t.modes[0], t.modes[1]
	}
	if t.leaf || len(t.modes) < len(guide.Modes) {
		fail(op, CondRank, "%v has fewer modes than tiler %v", t, guide)
	}
	first := IntTuple{modes: []IntTuple{}}
	second := IntTuple{modes: []IntTuple{}}
	for i, g := range guide.Modes {
		a, b := zip2By(op, t.modes[i], g)
		first.modes = append(first.modes, a)
		second.modes = append(second.modes, b)
	}
	second.modes = append(second.modes, t.modes[len(guide.Modes):]...)
	return first, second
}

// A tileForm is how the zipped, tiled and flat divides and products group
// the modes of a logical divide or product.
type tileForm int

const (
	formZipped tileForm = iota // ((tile modes...), (rest modes...))
	formTiled                  // ((tile modes...), rest0, rest1, ...)
	formFlat                   // (tile0, tile1, ..., rest0, rest1, ...)
)

// regroup is the body of the zipped, tiled and flat divides and products:
// the logical divide or product of l by t, its modes grouped as form says.
func regroup(op string, l Layout, t Tiler, logical func(Layout, Tiler) Layout, form tileForm) (res Layout, err error) {
	defer guard(&err)
	requireLayout(op, l)
	res = tileUnzip(op, logical(l, t), t)
	switch form {
	case formTiled:
		res = unpack(res, false, true)
	case formFlat:
		res = unpack(res, true, true)
	}
	return res, nil
}

func tileUnzip(op string, l Layout, t Tiler) Layout {
	s0, s1 := zip2By(op, l.Shape, t)
	d0, d1 := zip2By(op, l.Stride, t)
	return Layout{Shape: Tuple(s0, s1), Stride: Tuple(d0, d1)}
}

// ZippedDivide is CuTe's zipped_divide: ((tile modes...), (rest modes...)).
func ZippedDivide(l Layout, t Tiler) (Layout, error) {
	return regroup("zipped_divide", l, t, logicalDivide, formZipped)
}

// TiledDivide is CuTe's tiled_divide: ((tile modes...), rest0, rest1, ...).
func TiledDivide(l Layout, t Tiler) (Layout, error) {
	return regroup("tiled_divide", l, t, logicalDivide, formTiled)
}

// FlatDivide is CuTe's flat_divide: (tile0, tile1, ..., rest0, rest1, ...).
func FlatDivide(l Layout, t Tiler) (Layout, error) {
	return regroup("flat_divide", l, t, logicalDivide, formFlat)
}

// unpack is CuTe's slice of a rank-2 result by (_, repeat<R1>(_)) and
// friends: a mode whose rank is above 1 is spliced into the top level, a
// rank-1 mode stays one mode.
func unpack(l Layout, first, second bool) Layout {
	var sh, st []IntTuple
	for i, open := range []bool{first, second} {
		ms, md := l.Shape.modes[i], l.Stride.modes[i]
		if open && !ms.leaf && len(ms.modes) != 1 {
			sh = append(sh, ms.modes...)
			st = append(st, md.modes...)
		} else {
			sh = append(sh, ms)
			st = append(st, md)
		}
	}
	return Layout{Shape: IntTuple{modes: sh}, Stride: IntTuple{modes: st}}
}

// LogicalProduct is CuTe's logical_product(block, tiler): for a layout
// tiler B, (block, complement(block, size(block)*cosize(B)) ∘ B), block
// repeated as B says; a tuple tiler works mode by mode.
func LogicalProduct(block Layout, t Tiler) (res Layout, err error) {
	defer guard(&err)
	requireLayout("logical_product", block)
	return logicalProduct(block, t), nil
}

func logicalProduct(block Layout, t Tiler) Layout {
	switch t.Kind {
	case TileLayout:
		requireLayout("logical_product", t.Layout)
		c := complement(block, Int(mul(checkedProduct(block.Shape), cosizeOf(t.Layout))))
		return Concat(block, compose(c, t.Layout))
	case TileInt:
		return logicalProduct(block, LayoutTiler(makeCompact(Int(t.N))))
	case TileSkip:
		return block
	}
	if len(t.Modes) > rankOf(block.Shape) {
		fail("logical_product", CondRank, "tiler %v has more modes than layout %v", t, block)
	}
	return transformLayout(block, len(t.Modes), func(i int, m Layout) Layout { return logicalProduct(m, t.Modes[i]) })
}

// ZippedProduct is CuTe's zipped_product: ((block modes...), (tiler modes...)).
func ZippedProduct(block Layout, t Tiler) (Layout, error) {
	return regroup("zipped_product", block, t, logicalProduct, formZipped)
}

// TiledProduct is CuTe's tiled_product: ((block modes...), t0, t1, ...).
func TiledProduct(block Layout, t Tiler) (Layout, error) {
	return regroup("tiled_product", block, t, logicalProduct, formTiled)
}

// FlatProduct is CuTe's flat_product: (block modes..., tiler modes...).
func FlatProduct(block Layout, t Tiler) (Layout, error) {
	return regroup("flat_product", block, t, logicalProduct, formFlat)
}

// appendTo is CuTe's append<N>(layout): pad with 1:0 modes up to rank n.
func appendTo(l Layout, n int) Layout {
	r := rankOf(l.Shape)
	if r >= n {
		return l
	}
	ms := make([]Layout, 0, n)
	for i := 0; i < r; i++ {
		ms = append(ms, modeOf(l, i))
	}
	for len(ms) < n {
		ms = append(ms, leafLayout(1, 0))
	}
	return Concat(ms...)
}

// zipPair is CuTe's zip(a, b) of two IntTuples: ((a0,b0),(a1,b1),...) for a
// tuple a, and ((a,b)) for an integer a.
func zipPair(op string, a, b IntTuple) IntTuple {
	if a.leaf {
		return Tuple(Tuple(a, b))
	}
	if b.leaf || len(b.modes) != len(a.modes) {
		fail(op, CondRank, "cannot zip %v with %v (mismatched ranks)", a, b)
	}
	out := IntTuple{modes: make([]IntTuple, len(a.modes))}
	for i := range a.modes {
		out.modes[i] = Tuple(a.modes[i], b.modes[i])
	}
	return out
}

func rankProduct(op string, block, tiler Layout, raked bool) Layout {
	requireLayout(op, block)
	requireLayout(op, tiler)
	r := max(rankOf(block.Shape), rankOf(tiler.Shape))
	p := logicalProduct(appendTo(block, r), LayoutTiler(appendTo(tiler, r)))
	a, b := modeOf(p, 0), modeOf(p, 1)
	if raked {
		a, b = b, a
	}
	return Layout{Shape: zipPair(op, a.Shape, b.Shape), Stride: zipPair(op, a.Stride, b.Stride)}
}

// BlockedProduct is CuTe's blocked_product(block, tiler): block repeated
// as tiler arranges it, each result mode (block mode, tiler mode).
func BlockedProduct(block, tiler Layout) (res Layout, err error) {
	defer guard(&err)
	return rankProduct("blocked_product", block, tiler, false), nil
}

// RakedProduct is CuTe's raked_product(block, tiler): like BlockedProduct
// but each result mode is (tiler mode, block mode), interleaving the
// copies of block.
func RakedProduct(block, tiler Layout) (res Layout, err error) {
	defer guard(&err)
	return rankProduct("raked_product", block, tiler, true), nil
}

// TileToShape is CuTe's tile_to_shape(block, shape) with the default
// column-major order: block repeated (blocked_product) until it has the
// target shape. Each mode of shape must be a multiple of block's.
func TileToShape(block Layout, shape IntTuple) (res Layout, err error) {
	defer guard(&err)
	requireLayout("tile_to_shape", block)
	r := rankOf(shape)
	if rankOf(block.Shape) > r {
		fail("tile_to_shape", CondRank, "layout %v has more modes than shape %v", block, shape)
	}
	padded := appendTo(block, r)
	prod := make([]int, r)
	for i := 0; i < r; i++ {
		bs := checkedProduct(modeOf(padded, i).Shape)
		ts := checkedProduct(shape.Mode(i))
		if bs == 0 || ts%bs != 0 {
			fail("tile_to_shape", CondDivisibility, "block shape %v does not divide the target shape %v", padded.Shape, shape)
		}
		prod[i] = ts / bs
	}
	return rankProduct("tile_to_shape", padded, makeCompact(Ints(prod...)), false), nil
}
