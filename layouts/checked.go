package layouts

// Checked versions of the size, cosize and index arithmetic. The plain
// methods (Size, Cosize, Eval) are for layouts known to be small, such as
// the catalog's; these report an overflow of |v| < 2^62 as a
// *ConditionError, as the algebra's operations do.

// SizeOf is size(t): the product of t's leaves, or an error when it
// overflows.
func SizeOf(t IntTuple) (n int, err error) {
	defer guard(&err)
	return checkedProduct(t), nil
}

// CheckedSize is l.Size() with overflow reported.
func (l Layout) CheckedSize() (int, error) { return SizeOf(l.Shape) }

// CheckedCosize is l.Cosize() with overflow reported.
func (l Layout) CheckedCosize() (n int, err error) {
	defer guard(&err)
	requireLayout("cosize", l)
	return cosizeOf(l), nil
}

// CheckedColMajor is ColMajor(shape), the compact column-major layout
// with prefix-product strides, with overflow reported.
func CheckedColMajor(shape IntTuple) (l Layout, err error) {
	defer guard(&err)
	acc := 1
	return Layout{Shape: shape, Stride: shape.Map(func(v int) int { r := acc; acc = mul(acc, v); return r })}, nil
}

// CheckedEval is l.Eval(idx) with overflow reported.
func (l Layout) CheckedEval(idx int) (v int, err error) {
	defer guard(&err)
	return checkedEval(l, idx), nil
}

// checkedEval is Eval with checked arithmetic, for use inside the
// algebra (it fails through guard).
func checkedEval(l Layout, idx int) int {
	c := idx
	return evalChecked(&c, l.Shape, l.Stride, true)
}

func evalChecked(c *int, shape, stride IntTuple, last bool) int {
	if shape.leaf {
		if last {
			return mul(*c, stride.v)
		}
		s := shape.v
		if s == 0 {
			*c = 0
			return 0
		}
		v := mul(*c%s, stride.v)
		*c /= s
		return v
	}
	sum := 0
	n := len(shape.modes)
	for i := 0; i < n; i++ {
		sum = add(sum, evalChecked(c, shape.modes[i], stride.modes[i], last && i == n-1))
	}
	return sum
}

// checkedCrd2Idx is crd2idx with checked arithmetic.
func checkedCrd2Idx(crd, shape, stride IntTuple) int {
	if crd.leaf {
		c := crd.v
		return evalChecked(&c, shape, stride, true)
	}
	if shape.leaf || len(crd.modes) != len(shape.modes) {
		fail("crd2idx", CondCongruence, "coordinate %v does not match shape %v", crd, shape)
	}
	sum := 0
	for i := range crd.modes {
		sum = add(sum, checkedCrd2Idx(crd.modes[i], shape.modes[i], stride.modes[i]))
	}
	return sum
}
