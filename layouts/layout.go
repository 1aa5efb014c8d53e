package layouts

import "fmt"

// Layout is CuTe's shape:stride function from coordinates to offsets. Shape
// and Stride are congruent IntTuples.
type Layout struct {
	Shape  IntTuple
	Stride IntTuple
}

// Make returns shape:stride after checking that the two are congruent.
func Make(shape, stride IntTuple) (Layout, error) {
	if !shape.Congruent(stride) {
		return Layout{}, fmt.Errorf("layout %v:%v: shape and stride must be congruent (same nesting)", shape, stride)
	}
	return Layout{Shape: shape, Stride: stride}, nil
}

// MustMake is Make for layouts known to be well formed; it panics on error.
// Use it for literals in code, never for user input.
func MustMake(shape, stride IntTuple) Layout {
	l, err := Make(shape, stride)
	if err != nil {
		panic(err)
	}
	return l
}

// ColMajor returns the compact column-major layout of shape (CuTe's
// make_layout(shape), LayoutLeft).
func ColMajor(shape IntTuple) Layout {
	return Layout{Shape: shape, Stride: PrefixProduct(shape)}
}

// RowMajor returns the compact row-major layout of shape (LayoutRight).
func RowMajor(shape IntTuple) Layout {
	return Layout{Shape: shape, Stride: SuffixProduct(shape)}
}

// Size is the number of coordinates in the domain: the product of the shape.
func (l Layout) Size() int { return l.Shape.Product() }

// Cosize is CuTe's cosize: 1 + the sum over the leaves of
// (extent-1)*|stride|, which is L(size-1)+1 for layouts with
// non-negative strides.
func (l Layout) Cosize() int {
	sh, st := l.Shape.Leaves(), l.Stride.Leaves()
	c := 1
	for i := range sh {
		if i < len(st) {
			c += (sh[i] - 1) * iabs(st[i])
		}
	}
	return c
}

// Rank is the number of top-level modes.
func (l Layout) Rank() int { return l.Shape.Rank() }

// Depth is the nesting depth of the shape.
func (l Layout) Depth() int { return l.Shape.Depth() }

// Mode returns the sub-layout of top-level mode i.
func (l Layout) Mode(i int) Layout {
	return Layout{Shape: l.Shape.Mode(i), Stride: l.Stride.Mode(i)}
}

// Eval maps a linear (colexicographic) index to an offset. As in CuTe, the
// last mode is not reduced modulo its extent, so indices past Size extend
// the layout along its last mode.
func (l Layout) Eval(idx int) int { return crd2idxInt(idx, l.Shape, l.Stride) }

// Crd2Idx maps a coordinate to an offset. crd may be an integer (a linear
// index, as for Eval) or a tuple congruent with (or coarser than) the shape.
// An offset beyond |v| < 2^62 is reported as an overflow.
func (l Layout) Crd2Idx(crd IntTuple) (idx int, err error) {
	defer guard(&err)
	return checkedCrd2Idx(crd, l.Shape, l.Stride), nil
}

func crd2idxInt(c int, shape, stride IntTuple) int {
	return evalLeaves(&c, &shape, &stride, true)
}

// evalLeaves is CuTe's crd2idx for an integer coordinate, done in one pass
// over the leaves: every leaf but the last takes c % extent and passes
// c / extent on (C++ division), and the last leaf takes what is left. This
// equals CuTe's mode-by-mode recursion, without recomputing mode sizes.
func evalLeaves(c *int, shape, stride *IntTuple, last bool) int {
	if shape.leaf {
		if last {
			return *c * stride.v
		}
		s := shape.v
		if s == 0 {
			// A zero extent (a division by zero in CuTe): nothing is left.
			*c = 0
			return 0
		}
		v := (*c % s) * stride.v
		*c /= s
		return v
	}
	sum := 0
	n := len(shape.modes)
	for i := 0; i < n; i++ {
		sum += evalLeaves(c, &shape.modes[i], &stride.modes[i], last && i == n-1)
	}
	return sum
}

// Idx2Crd converts a linear index into the natural (hierarchical)
// coordinate of shape, colexicographically: the first mode varies fastest.
// As CuTe's idx2crd(idx, shape), the last leaf is not reduced, so an index
// past the size extends the last mode: Idx2Crd(9, (4,2)) is (1,2).
func Idx2Crd(idx int, shape IntTuple) IntTuple {
	if shape.leaf {
		return Int(idx)
	}
	n := len(shape.modes)
	out := IntTuple{modes: make([]IntTuple, n)}
	for i := 0; i < n; i++ {
		if i == n-1 {
			out.modes[i] = Idx2Crd(idx, shape.modes[i])
			break
		}
		s := shape.modes[i].Product()
		if s == 0 {
			out.modes[i] = shape.modes[i].Map(func(int) int { return 0 })
			continue
		}
		out.modes[i] = Idx2Crd(idx%s, shape.modes[i])
		idx /= s
	}
	return out
}

// Idx2CrdStride is CuTe's idx2crd(idx, shape, stride): every leaf is
// (idx / stride) % extent, so every mode is reduced.
func Idx2CrdStride(idx int, shape, stride IntTuple) IntTuple {
	return idx2crd(idx, shape, stride)
}

func idx2crd(idx int, shape, stride IntTuple) IntTuple {
	if shape.IsInt() {
		if shape.v == 1 || shape.v == 0 || stride.v == 0 {
			return Int(0)
		}
		return Int((idx / stride.v) % shape.v)
	}
	out := IntTuple{modes: make([]IntTuple, len(shape.modes))}
	for i := range shape.modes {
		out.modes[i] = idx2crd(idx, shape.modes[i], stride.modes[i])
	}
	return out
}

// Table returns L(i) for every i in [0, Size).
func (l Layout) Table() []int {
	out := make([]int, l.Size())
	ev := l.Evaluator()
	for i := range out {
		out[i] = ev.Eval(i)
	}
	return out
}

// Equal reports whether l and m have identical shapes and strides (the
// same notation, not merely the same function).
func (l Layout) Equal(m Layout) bool {
	return l.Shape.Equal(m.Shape) && l.Stride.Equal(m.Stride)
}

// String prints l in CuTe notation, e.g. "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))".
func (l Layout) String() string { return l.Shape.String() + ":" + l.Stride.String() }
