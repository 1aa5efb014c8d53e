package layouts

// CeilDiv is CuTe's ceil_div on IntTuples: element-wise for two tuples
// (missing modes of b count as 1), folded from the left for a tuple by an
// integer (each mode is divided by what is left of the divisor:
// ceil_div((4,5,6), 7) is (1,3,6)), and by the product for an integer by a
// tuple.
func CeilDiv(a, b IntTuple) (res IntTuple, err error) {
	defer guard(&err)
	return ceilDiv(a, b), nil
}

func ceilDiv(a, b IntTuple) IntTuple {
	switch {
	case !a.leaf && !b.leaf:
		if len(b.modes) > len(a.modes) {
			fail("ceil_div", CondRank, "%v has more modes than %v", b, a)
		}
		out := IntTuple{modes: make([]IntTuple, len(a.modes))}
		for i := range a.modes {
			d := Int(1)
			if i < len(b.modes) {
				d = b.modes[i]
			}
			out.modes[i] = ceilDiv(a.modes[i], d)
		}
		return out
	case !a.leaf:
		return ceilDivTupleInt(a, b.v)
	}
	return Int(ceilDivInt(a.v, checkedProduct(b)))
}

// ShapeDiv is CuTe's shape_div: like CeilDiv, but each integer division
// must be exact one way or the other (a % b == 0 or b % a == 0), the
// divisibility condition; shape_div((4,5,6), 40) is (1,1,3).
func ShapeDiv(a, b IntTuple) (res IntTuple, err error) {
	defer guard(&err)
	return shapeDiv(a, b), nil
}

func shapeDiv(a, b IntTuple) IntTuple {
	switch {
	case !a.leaf && !b.leaf:
		if len(b.modes) != len(a.modes) {
			fail("shape_div", CondRank, "%v and %v have different ranks", a, b)
		}
		out := IntTuple{modes: make([]IntTuple, len(a.modes))}
		for i := range a.modes {
			out.modes[i] = shapeDiv(a.modes[i], b.modes[i])
		}
		return out
	case !a.leaf:
		out := IntTuple{modes: make([]IntTuple, len(a.modes))}
		rest := b
		for i, m := range a.modes {
			out.modes[i] = shapeDiv(m, rest)
			rest = shapeDiv(rest, m)
		}
		return out
	}
	x, y := a.v, checkedProduct(b)
	if y == 0 || x == 0 {
		fail("shape_div", CondDivZero, "shape_div(%d, %d)", x, y)
	}
	if x%y != 0 && y%x != 0 {
		fail("shape_div", CondDivisibility, "neither of %d and %d divides the other", x, y)
	}
	return Int(ceilDivInt(x, y))
}
