package expr

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts"
)

type function struct {
	min, max int    // argument count; max -1 means any
	targs    bool   // accepts <i,...> template arguments
	sig      string // "(layout, tiler)"
	help     string
	fn       func(c *call) (Value, error)
}

var functions map[string]function

func init() {
	functions = map[string]function{
		"composition": {2, 3, false, "(A, B) or (Sw<B,M,S>, offset, L)",
			"A o B: the layout R with R(c) = A(B(c)); B may be a layout, a tiler such as <4:1,2:1>, a shape (4,2), a swizzle, or a swizzled layout",
			fnComposition},
		"complement": {1, 2, false, "(L [, cotarget])",
			"the ordered layout that fills the codomain of L up to size(cotarget) (default: cosize(filter(L)))",
			fnComplement},
		"right_inverse": {1, 1, false, "(L)", "R with L(R(i)) == i on the largest contiguous part of L", fnRightInverse},
		"left_inverse":  {1, 1, false, "(L)", "R with R(L(i)) == i for injective L", fnLeftInverse},
		"coalesce": {1, 2, false, "(L [, profile])",
			"simplest layout with the same values (by mode when a profile such as (1,1) is given); of a shape, its size",
			fnCoalesce},
		"filter": {1, 2, false, "(L [, profile])", "coalesce after removing stride-0 and size-1 modes",
			inner2(layouts.Filter, layouts.FilterProfile)},
		"filter_zeros": {1, 1, false, "(L)", "give every stride-0 mode extent 1",
			innerOp(func(l layouts.Layout) (layouts.Layout, error) { return layouts.FilterZeros(l), nil })},
		"logical_divide":  {2, 2, false, "(L, tiler)", "L split into (tile, rest) by the tiler, mode by mode for a tuple tiler", tilerOp(layouts.LogicalDivide)},
		"zipped_divide":   {2, 2, false, "(L, tiler)", "((tile modes), (rest modes))", tilerOp(layouts.ZippedDivide)},
		"tiled_divide":    {2, 2, false, "(L, tiler)", "((tile modes), rest0, rest1, ...)", tilerOp(layouts.TiledDivide)},
		"flat_divide":     {2, 2, false, "(L, tiler)", "(tile0, tile1, ..., rest0, rest1, ...)", tilerOp(layouts.FlatDivide)},
		"logical_product": {2, 2, false, "(A, tiler)", "(A, complement(A, size(A)*cosize(B)) o B): A repeated as B says", tilerOp(layouts.LogicalProduct)},
		"zipped_product":  {2, 2, false, "(A, tiler)", "((block modes), (repeat modes))", tilerOp(layouts.ZippedProduct)},
		"tiled_product":   {2, 2, false, "(A, tiler)", "((block modes), repeat0, repeat1, ...)", tilerOp(layouts.TiledProduct)},
		"flat_product":    {2, 2, false, "(A, tiler)", "(block modes..., repeat modes...)", tilerOp(layouts.FlatProduct)},
		"blocked_product": {2, 2, false, "(A, B)", "A repeated in blocks laid out by B, mode by mode", pairOp(layouts.BlockedProduct)},
		"raked_product":   {2, 2, false, "(A, B)", "A's elements interleaved across B's repetitions, mode by mode", pairOp(layouts.RakedProduct)},
		"tile_to_shape":   {2, 2, false, "(A, shape)", "blocked_product of A until it has the target shape (column-major order)", fnTileToShape},
		"select": {1, -1, true, "<i,...>(L) or (L, i, ...)", "the layout of modes i, ... in that order",
			pathOp(func(l layouts.Layout, p []int) (layouts.Layout, error) { return layouts.Select(l, p...) })},
		"take": {1, 3, true, "<b,e>(L) or (L, b, e)", "modes [b, e)", rangeOp(layouts.Take)},
		"group": {1, 3, true, "<b,e>(L) or (L, b, e)", "modes [b, e) grouped into one mode (also group_modes)",
			rangeOp(layouts.GroupModes)},
		"group_modes": {1, 3, true, "<b,e>(L) or (L, b, e)", "same as group", rangeOp(layouts.GroupModes)},
		"get":         {1, -1, true, "<i,...>(X) or (X, i, ...)", "mode i (then its mode j, ...) of a layout or tuple", fnGet},
		"layout":      {1, -1, true, "<i,...>(L) or (L, i, ...)", "same as get", fnGet},
		"mode":        {1, -1, true, "(X, i, ...)", "same as get", fnGet},
		"make_layout": {1, -1, false, "(shape [, stride]) or (L0, L1, ...)",
			"the compact column-major layout of shape, shape:stride, or the concatenation of layouts", fnMakeLayout},
		"make_layout_like": {1, 1, false, "(L)", "compact layout with L's shape and L's stride order (stride-0 modes kept)",
			innerOp(layouts.MakeLayoutLike)},
		"flatten": {1, 1, false, "(X)", "the leaves of a layout or tuple as its modes", fnFlatten},
		"append":  {2, 2, false, "(L, X)", "X as a new last mode of L", concatOp(layouts.Append)},
		"prepend": {2, 2, false, "(L, X)", "X as a new first mode of L", concatOp(layouts.Prepend)},
		"size":    {1, -1, true, "[<i,...>](X)", "number of elements (of mode i)", intFn("size")},
		"cosize":  {1, -1, true, "[<i,...>](L)", "codomain extent: 1 + sum((s-1)*|d|)", intFn("cosize")},
		"rank":    {1, -1, true, "[<i,...>](X)", "number of top-level modes", intFn("rank")},
		"depth":   {1, -1, true, "[<i,...>](X)", "nesting depth (0 for an integer)", intFn("depth")},
		"shape":   {1, -1, true, "[<i,...>](L)", "the shape of L (of mode i)", fnShapeStride(true)},
		"stride":  {1, -1, true, "[<i,...>](L)", "the stride of L (of mode i)", fnShapeStride(false)},
		"crd2idx": {2, 3, false, "(coord, L) or (coord, shape [, stride])",
			"the offset of a coordinate (an integer index or a tuple)", fnCrd2Idx},
		"idx2crd": {2, 3, false, "(index, shape [, stride])",
			"the natural coordinate of an index (the last mode is not reduced, as in CuTe)", fnIdx2Crd},
		"max_common_vector": {2, 2, false, "(A, B)", "how many contiguous elements A and B agree on", fnMaxCommonVector},
		"ceil_div":          {2, 2, false, "(a, b)", "ceil_div of integer tuples (a tuple by an integer folds from the left)", tupleOp(layouts.CeilDiv)},
		"shape_div":         {2, 2, false, "(a, b)", "shape_div of integer tuples (each division exact one way or the other)", tupleOp(layouts.ShapeDiv)},
		"upcast": {1, 2, true, "<N>(L) or (L, N)",
			"L over elements N times wider: a stride-1 mode shrinks N times, other strides divide by N (a swizzle's M drops by log2 N)",
			castOp(layouts.UpcastAny)},
		"downcast": {1, 2, true, "<N>(L) or (L, N)",
			"L over elements N times narrower: a stride-1 mode grows N times, other strides multiply by N (a swizzle's M grows by log2 N)",
			castOp(layouts.DowncastAny)},
		"recast": {1, 3, true, "<OLD,NEW>(L) or (L, OLD, NEW)",
			"recast_layout: L over OLD-bit elements seen as NEW-bit ones (widths in bits, or types: recast<half_t,uint32_t>)",
			fnRecast},
		"recast_layout": {1, 3, true, "<OldType,NewType>(L)", "same as recast", fnRecast},
	}
}

func innerOp(f func(layouts.Layout) (layouts.Layout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		a, err := c.layout(0)
		if err != nil {
			return Value{}, err
		}
		r, err := a.MapInner(f)
		return layoutVal(r), err
	}
}

func inner2(f func(layouts.Layout) (layouts.Layout, error), g func(layouts.Layout, layouts.IntTuple) (layouts.Layout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		if len(c.args) == 1 {
			return innerOp(f)(c)
		}
		p, err := c.tuple(1)
		if err != nil {
			return Value{}, err
		}
		return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return g(l, p) })(c)
	}
}

func tilerOp(f func(layouts.Layout, layouts.Tiler) (layouts.Layout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		t, err := c.tiler(1)
		if err != nil {
			return Value{}, err
		}
		return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return f(l, t) })(c)
	}
}

func pairOp(f func(a, b layouts.Layout) (layouts.Layout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		b, err := c.plainLayout(1)
		if err != nil {
			return Value{}, err
		}
		return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return f(l, b) })(c)
	}
}

func concatOp(f func(a, b layouts.Layout) layouts.Layout) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		b, err := c.plainLayout(1)
		if err != nil {
			return Value{}, err
		}
		return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return f(l, b), nil })(c)
	}
}

func pathOp(f func(layouts.Layout, []int) (layouts.Layout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		p, err := c.path(1)
		if err != nil {
			return Value{}, err
		}
		return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return f(l, p) })(c)
	}
}

func rangeOp(f func(layouts.Layout, int, int) (layouts.Layout, error)) func(*call) (Value, error) {
	return pathOp(func(l layouts.Layout, p []int) (layouts.Layout, error) {
		if len(p) != 2 {
			return layouts.Layout{}, fmt.Errorf("needs two indices b and e (the modes [b, e)), got %d", len(p))
		}
		return f(l, p[0], p[1])
	})
}

// composeValues composes a and b; at is where notes about the result point.
func composeValues(e *evaluator, at int, an *node, a Value, bn *node, b Value) (Value, error) {
	switch {
	case a.Kind == KindSwizzle:
		l, err := e.plain(bn, b)
		if err != nil {
			return Value{}, err
		}
		return layoutVal(layouts.ComposeSwizzle(a.Swizzle, 0, l)), nil
	case a.Kind != KindLayout:
		return Value{}, e.errf(an.pos, "the left operand of a composition must be a layout or a swizzle, not %v %v", a.Kind, a)
	case b.Kind == KindSwizzle:
		if a.Layout.Composed {
			return Value{}, e.errf(an.pos, "composing the swizzled layout %v with a swizzle is not supported", a.Layout)
		}
		r, err := layouts.ComposeLayoutSwizzle(a.Layout.L, b.Swizzle)
		return layoutVal(r), err
	case b.Kind == KindLayout:
		r, err := layouts.ComposeAny(a.Layout, b.Layout)
		if err == nil && !a.Layout.Composed && !b.Layout.Composed {
			e.checkComposition(at, a.Layout.L, b.Layout.L, r.L)
		}
		return layoutVal(r), err
	}
	t, err := e.tiler(bn, b)
	if err != nil {
		return Value{}, err
	}
	r, err := a.Layout.MapInner(func(l layouts.Layout) (layouts.Layout, error) { return layouts.CompositionTiler(l, t) })
	return layoutVal(r), err
}

func fnComposition(c *call) (Value, error) {
	if len(c.args) == 3 {
		if c.args[0].Kind != KindSwizzle {
			return Value{}, c.argErr(0, "composition: the three-argument form is composition(Sw<B,M,S>, offset, layout)")
		}
		off, err := c.int(1)
		if err != nil {
			return Value{}, err
		}
		l, err := c.plainLayout(2)
		if err != nil {
			return Value{}, err
		}
		return layoutVal(layouts.ComposeSwizzle(c.args[0].Swizzle, off, l)), nil
	}
	return composeValues(c.e, c.n.pos, c.n.args[0], c.args[0], c.n.args[1], c.args[1])
}

func fnComplement(c *call) (Value, error) {
	a, err := c.layout(0)
	if err != nil {
		return Value{}, err
	}
	var l layouts.Layout
	if len(c.args) == 1 {
		l, err = layouts.ComplementCosize(a.Inner())
	} else {
		var ct layouts.IntTuple
		if ct, err = c.tuple(1); err != nil {
			return Value{}, err
		}
		l, err = layouts.Complement(a.Inner(), ct)
	}
	return plainVal(l), err
}

func fnRightInverse(c *call) (Value, error) {
	a, err := c.layout(0)
	if err != nil {
		return Value{}, err
	}
	r, err := layouts.RightInverseAny(a)
	return layoutVal(r), err
}

func fnLeftInverse(c *call) (Value, error) {
	a, err := c.layout(0)
	if err != nil {
		return Value{}, err
	}
	r, err := layouts.LeftInverseAny(a)
	return layoutVal(r), err
}

func fnTileToShape(c *call) (Value, error) {
	s, err := c.tuple(1)
	if err != nil {
		return Value{}, err
	}
	return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return layouts.TileToShape(l, s) })(c)
}

func fnGet(c *call) (Value, error) {
	p, err := c.path(1)
	if err != nil {
		return Value{}, err
	}
	if len(p) == 0 {
		return Value{}, fmt.Errorf("needs at least one mode index")
	}
	if c.args[0].Kind == KindTuple {
		t := c.args[0].Tuple
		for _, i := range p {
			if i < 0 || i >= t.Rank() {
				return Value{}, fmt.Errorf("mode %d is out of range for %v (rank %d)", i, t, t.Rank())
			}
			t = t.Mode(i)
		}
		return tupleVal(t), nil
	}
	return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return layouts.Get(l, p...) })(c)
}

func fnFlatten(c *call) (Value, error) {
	if c.args[0].Kind == KindTuple {
		return tupleVal(c.args[0].Tuple.Flatten()), nil
	}
	return innerOp(func(l layouts.Layout) (layouts.Layout, error) { return l.Flatten(), nil })(c)
}

func fnMakeLayout(c *call) (Value, error) {
	if c.args[0].Kind == KindTuple {
		s := c.args[0].Tuple
		if len(c.args) == 1 {
			l, err := layouts.MakeLayout(s)
			return plainVal(l), err
		}
		if len(c.args) > 2 {
			return Value{}, c.argErr(2, "make_layout: a shape takes at most one stride")
		}
		d, err := c.tuple(1)
		if err != nil {
			return Value{}, err
		}
		l, err := layouts.Make(s, d)
		return plainVal(l), err
	}
	ls := make([]layouts.Layout, len(c.args))
	for i := range c.args {
		l, err := c.plainLayout(i)
		if err != nil {
			return Value{}, err
		}
		ls[i] = l
	}
	return plainVal(layouts.Concat(ls...)), nil
}

// sub returns argument 0, or its mode at the template path.
func (c *call) sub() (Value, error) {
	v := c.args[0]
	if len(c.n.targs) == 0 {
		if len(c.args) > 1 {
			return Value{}, c.argErr(1, "%s takes one argument; select a mode with %s<i>(...)", c.n.name, c.n.name)
		}
		return v, nil
	}
	if len(c.args) > 1 {
		return Value{}, c.argErr(1, "%s takes one argument", c.n.name)
	}
	return fnGet(c)
}

func intFn(which string) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		v, err := c.sub()
		if err != nil {
			return Value{}, err
		}
		var t layouts.IntTuple
		switch v.Kind {
		case KindTuple:
			if which == "cosize" {
				return Value{}, c.argErr(0, "cosize needs a layout, not the tuple %v", v)
			}
			t = v.Tuple
		case KindLayout:
			t = v.Layout.Inner().Shape
			if which == "cosize" {
				n, err := v.Layout.Inner().CheckedCosize()
				return intVal(n), err
			}
		default:
			return Value{}, c.argErr(0, "%s needs a layout or a tuple, not %v %v", which, v.Kind, v)
		}
		switch which {
		case "size":
			n, err := layouts.SizeOf(t)
			return intVal(n), err
		case "rank":
			return intVal(t.Rank()), nil
		}
		return intVal(t.Depth()), nil
	}
}

func fnShapeStride(isShape bool) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		v, err := c.sub()
		if err != nil {
			return Value{}, err
		}
		if v.Kind == KindTuple && isShape {
			return v, nil
		}
		if v.Kind != KindLayout {
			return Value{}, c.argErr(0, "%s needs a layout, not %v %v", c.n.name, v.Kind, v)
		}
		if isShape {
			return tupleVal(v.Layout.Inner().Shape), nil
		}
		if v.Layout.Composed {
			return Value{}, c.argErr(0, "a swizzled layout has no stride (CuTe deletes stride() for ComposedLayout)")
		}
		return tupleVal(v.Layout.L.Stride), nil
	}
}

func fnCrd2Idx(c *call) (Value, error) {
	crd, err := c.tuple(0)
	if err != nil {
		return Value{}, err
	}
	var a layouts.AnyLayout
	switch {
	case c.args[1].Kind == KindLayout:
		if len(c.args) == 3 {
			return Value{}, c.argErr(2, "crd2idx: a layout carries its own stride")
		}
		a = c.args[1].Layout
	case len(c.args) == 3:
		s, err := c.tuple(1)
		if err != nil {
			return Value{}, err
		}
		d, err := c.tuple(2)
		if err != nil {
			return Value{}, err
		}
		l, err := layouts.Make(s, d)
		if err != nil {
			return Value{}, err
		}
		a = layouts.Plain(l)
	default:
		// crd2idx(coord, shape): the colexicographic index in shape.
		s, err := c.tuple(1)
		if err != nil {
			return Value{}, err
		}
		l, err := layouts.CheckedColMajor(s)
		if err != nil {
			return Value{}, err
		}
		a = layouts.Plain(l)
	}
	var idx int
	if a.Composed {
		idx, err = a.C.Crd2Idx(crd)
	} else {
		idx, err = a.L.Crd2Idx(crd)
	}
	return intVal(idx), err
}

func fnIdx2Crd(c *call) (Value, error) {
	i, err := c.int(0)
	if err != nil {
		return Value{}, err
	}
	s, err := c.tuple(1)
	if err != nil {
		return Value{}, err
	}
	if len(c.args) == 3 {
		d, err := c.tuple(2)
		if err != nil {
			return Value{}, err
		}
		if !s.Congruent(d) {
			return Value{}, c.argErr(2, "idx2crd: stride %v is not congruent with shape %v", d, s)
		}
		return tupleVal(layouts.Idx2CrdStride(i, s, d)), nil
	}
	return tupleVal(layouts.Idx2Crd(i, s)), nil
}

func fnMaxCommonVector(c *call) (Value, error) {
	a, err := c.plainLayout(0)
	if err != nil {
		return Value{}, err
	}
	b, err := c.plainLayout(1)
	if err != nil {
		return Value{}, err
	}
	n, err := layouts.MaxCommonVector(a, b)
	return intVal(n), err
}

func tupleOp(f func(a, b layouts.IntTuple) (layouts.IntTuple, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		a, err := c.tuple(0)
		if err != nil {
			return Value{}, err
		}
		b, err := c.tuple(1)
		if err != nil {
			return Value{}, err
		}
		r, err := f(a, b)
		return tupleVal(r), err
	}
}

func fnCoalesce(c *call) (Value, error) {
	if len(c.args) == 1 && c.args[0].Kind == KindTuple {
		// CuTe's coalesce(Shape) with static extents multiplies them all.
		n, err := layouts.SizeOf(c.args[0].Tuple)
		return intVal(n), err
	}
	return inner2(layouts.Coalesce, layouts.CoalesceProfile)(c)
}

// castOp is upcast<N>(L) or downcast<N>(L) (also written (L, N)).
func castOp(f func(layouts.AnyLayout, int) (layouts.AnyLayout, error)) func(*call) (Value, error) {
	return func(c *call) (Value, error) {
		p, err := c.path(1)
		if err != nil {
			return Value{}, err
		}
		if len(p) != 1 {
			return Value{}, fmt.Errorf("needs one factor N: %s<N>(L) or %s(L, N)", c.n.name, c.n.name)
		}
		a, err := c.layout(0)
		if err != nil {
			return Value{}, err
		}
		r, err := f(a, p[0])
		return layoutVal(r), err
	}
}

// fnRecast is recast_layout<Old, New>(L), with the element widths in bits
// (or element types, which the parser turned into their widths).
func fnRecast(c *call) (Value, error) {
	p, err := c.path(1)
	if err != nil {
		return Value{}, err
	}
	if len(p) != 2 {
		return Value{}, fmt.Errorf("needs the old and the new element width: recast<OLD,NEW>(L) or recast(L, OLD, NEW), in bits or as types")
	}
	a, err := c.layout(0)
	if err != nil {
		return Value{}, err
	}
	r, err := layouts.RecastAny(a, p[0], p[1])
	return layoutVal(r), err
}
