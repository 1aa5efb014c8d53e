package layouts

// Evaluator evaluates one layout at many indices quickly: it flattens the
// layout once, so each Eval is a loop over the leaves with no recursion.
// It gives exactly Layout.Eval's results.
type Evaluator struct {
	shape, stride []int
	slow          bool // a zero extent: fall back to Layout.Eval
	l             Layout
}

// Evaluator returns a flattened evaluator for l.
func (l Layout) Evaluator() Evaluator {
	e := Evaluator{shape: l.Shape.Leaves(), stride: l.Stride.Leaves(), l: l}
	if len(e.shape) != len(e.stride) {
		e.slow = true
	}
	for _, s := range e.shape {
		if s == 0 {
			e.slow = true
		}
	}
	return e
}

// Eval is l.Eval(idx): colexicographic, the last leaf not reduced.
func (e Evaluator) Eval(idx int) int {
	if e.slow {
		return e.l.Eval(idx)
	}
	n := len(e.shape)
	if n == 0 {
		return 0
	}
	sum := 0
	for i := 0; i < n-1; i++ {
		s := e.shape[i]
		sum += (idx % s) * e.stride[i]
		idx /= s
	}
	return sum + idx*e.stride[n-1]
}
