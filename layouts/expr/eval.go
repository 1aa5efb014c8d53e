package expr

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/layouts"
)

// Eval parses and evaluates src.
func Eval(src string) (Value, error) {
	v, _, err := EvalNotes(src)
	return v, err
}

// EvalNotes is Eval that also returns notes about results CuTe accepts but
// that may surprise: a composition CuTe lets through its weak divisibility
// check although the result is not the functional composition A(B(i)).
func EvalNotes(src string) (Value, []string, error) {
	n, err := parse(src)
	if err != nil {
		return Value{}, nil, err
	}
	e := &evaluator{src: src}
	v, err := e.eval(n)
	return v, e.notes, err
}

type evaluator struct {
	src   string
	notes []string
}

// checkLimit bounds the functional check of a composition.
const checkLimit = 1 << 16

// checkComposition notes where r differs from a(b(i)).
func (e *evaluator) checkComposition(pos int, a, b, r layouts.Layout) {
	n, err := b.CheckedSize()
	if rn, rerr := r.CheckedSize(); err != nil || rerr != nil || n > checkLimit || rn != n {
		return
	}
	ea, eb, er := a.Evaluator(), b.Evaluator(), r.Evaluator()
	for i := 0; i < n; i++ {
		if got, want := er.Eval(i), ea.Eval(eb.Eval(i)); got != want {
			e.notes = append(e.notes, fmt.Sprintf("col %d: note: CuTe accepts this composition (it checks stride divisibility only weakly), "+
				"but the result is not A(B(i)): at i=%d it gives %d, A(B(%d)) = %d", pos+1, i, got, i, want))
			return
		}
	}
}

func (e *evaluator) errAt(pos int, err error) *Error {
	var ee *Error
	if errors.As(err, &ee) {
		return ee
	}
	return &Error{Input: e.src, Col: pos + 1, Msg: err.Error(), Err: err}
}

func (e *evaluator) errf(pos int, format string, args ...any) *Error {
	return &Error{Input: e.src, Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (e *evaluator) eval(n *node) (Value, error) {
	switch n.kind {
	case nTuple:
		return tupleVal(n.tuple), nil
	case nLayout:
		return layoutVal(n.any), nil
	case nSwizzle:
		return Value{Kind: KindSwizzle, Swizzle: n.sw}, nil
	case nSkip:
		return Value{Kind: KindSkip}, nil
	case nParen, nTiler:
		return e.evalTuple(n)
	case nChain:
		return e.evalChain(n)
	}
	return e.evalCall(n)
}

// evalTuple evaluates "(e0, e1, ...)" or "<e0, e1, ...>": a tuple of
// integer tuples stays an IntTuple; anything else is a by-mode tiler.
func (e *evaluator) evalTuple(n *node) (Value, error) {
	vals := make([]Value, len(n.args))
	allTuples := n.kind == nParen
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return Value{}, err
		}
		vals[i] = v
		allTuples = allTuples && v.Kind == KindTuple
	}
	if allTuples {
		ms := make([]layouts.IntTuple, len(vals))
		for i, v := range vals {
			ms[i] = v.Tuple
		}
		return tupleVal(layouts.Tuple(ms...)), nil
	}
	ts := make([]layouts.Tiler, len(vals))
	for i, v := range vals {
		t, err := e.tiler(n.args[i], v)
		if err != nil {
			return Value{}, err
		}
		ts[i] = t
	}
	return Value{Kind: KindTiler, Tiler: layouts.TupleTiler(ts...)}, nil
}

// evalChain evaluates "a o b o c": Sw o N o L is a swizzled layout;
// otherwise the operands compose from the left.
func (e *evaluator) evalChain(n *node) (Value, error) {
	vals := make([]Value, len(n.args))
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return Value{}, err
		}
		vals[i] = v
	}
	if len(vals) == 3 && vals[0].Kind == KindSwizzle && vals[1].IsInt() {
		l, err := e.plain(n.args[2], vals[2])
		if err != nil {
			return Value{}, err
		}
		return layoutVal(layouts.ComposeSwizzle(vals[0].Swizzle, vals[1].Tuple.Value(), l)), nil
	}
	acc := vals[0]
	for i := 1; i < len(vals); i++ {
		v, err := composeValues(e, n.args[i-1].pos, n.args[i-1], acc, n.args[i], vals[i])
		if err != nil {
			return Value{}, e.errAt(n.args[i].pos, err)
		}
		acc = v
	}
	return acc, nil
}

func (e *evaluator) evalCall(n *node) (Value, error) {
	f := functions[n.name]
	if len(n.args) < f.min || (f.max >= 0 && len(n.args) > f.max) {
		want := fmt.Sprintf("%d", f.min)
		switch {
		case f.max < 0:
			want = fmt.Sprintf("at least %d", f.min)
		case f.max != f.min:
			want = fmt.Sprintf("%d to %d", f.min, f.max)
		}
		return Value{}, e.errf(n.pos, "%s takes %s argument(s), got %d: %s%s", n.name, want, len(n.args), n.name, f.sig)
	}
	if n.typed && n.name != "recast" && n.name != "recast_layout" {
		return Value{}, e.errf(n.pos, "%s takes no element types as template arguments: %s%s", n.name, n.name, f.sig)
	}
	if len(n.targs) > 0 && !f.targs {
		return Value{}, e.errf(n.pos, "%s takes no <...> template arguments: %s%s", n.name, n.name, f.sig)
	}
	vals := make([]Value, len(n.args))
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return Value{}, err
		}
		vals[i] = v
	}
	v, err := f.fn(&call{e: e, n: n, args: vals})
	if err == nil {
		e.noteExtents(n, v)
	}
	if err != nil {
		return Value{}, e.errAt(n.pos, fmt.Errorf("%s: %w", n.name, unwrapOp(err)))
	}
	return v, nil
}

// noteExtents notes a result with a negative extent (CuTe's left_inverse
// of a layout with negative strides gives one): tcsim prints what CuTe
// computes, but says that it is no layout tcsim (or CuTe's own
// constructors) would accept.
func (e *evaluator) noteExtents(n *node, v Value) {
	if v.Kind != KindLayout {
		return
	}
	for _, x := range v.Layout.Inner().Shape.Leaves() {
		if x < 0 {
			e.notes = append(e.notes, fmt.Sprintf("col %d: note: the result of %s has the negative extent %d: it is what CuTe computes "+
				"(its algebra assumes non-negative strides), not a layout that tcsim accepts as input", n.pos+1, n.name, x))
			return
		}
	}
}

// unwrapOp avoids "composition: composition: ..." when the layouts error
// already names the operation.
func unwrapOp(err error) error {
	var ce *layouts.ConditionError
	if errors.As(err, &ce) {
		return &opless{ce}
	}
	return err
}

type opless struct{ ce *layouts.ConditionError }

func (o *opless) Error() string {
	s := o.ce.Error()
	return strings.TrimPrefix(s, o.ce.Op+": ")
}
func (o *opless) Unwrap() error { return o.ce }

// call is one function application being evaluated.
type call struct {
	e    *evaluator
	n    *node
	args []Value
}

func (c *call) argErr(i int, format string, args ...any) error {
	return c.e.errf(c.n.args[i].pos, format, args...)
}

// layout returns argument i as a plain or swizzled layout.
func (c *call) layout(i int) (layouts.AnyLayout, error) {
	v := c.args[i]
	if v.Kind == KindTuple {
		l, err := layouts.MakeLayout(v.Tuple)
		return layouts.Plain(l), err
	}
	if v.Kind != KindLayout {
		return layouts.AnyLayout{}, c.argErr(i, "%s: argument %d must be a layout (shape:stride), not %v %v", c.n.name, i+1, v.Kind, v)
	}
	return v.Layout, nil
}

// plainLayout returns argument i as a plain layout.
func (c *call) plainLayout(i int) (layouts.Layout, error) {
	return c.e.plain(c.n.args[i], c.args[i])
}

func (e *evaluator) plain(n *node, v Value) (layouts.Layout, error) {
	if v.Kind == KindTuple {
		// A shape where a layout is expected is make_layout(shape).
		return layouts.MakeLayout(v.Tuple)
	}
	if v.Kind != KindLayout {
		return layouts.Layout{}, e.errf(n.pos, "expected a layout (shape:stride), not %v %v", v.Kind, v)
	}
	if v.Layout.Composed {
		return layouts.Layout{}, e.errf(n.pos, "expected a plain layout, not the swizzled layout %v", v.Layout)
	}
	return v.Layout.L, nil
}

func (c *call) tuple(i int) (layouts.IntTuple, error) {
	v := c.args[i]
	if v.Kind != KindTuple {
		return layouts.IntTuple{}, c.argErr(i, "%s: argument %d must be an integer or a tuple of integers, not %v %v", c.n.name, i+1, v.Kind, v)
	}
	return v.Tuple, nil
}

func (c *call) int(i int) (int, error) {
	v := c.args[i]
	if !v.IsInt() {
		return 0, c.argErr(i, "%s: argument %d must be an integer, not %v", c.n.name, i+1, v)
	}
	return v.Tuple.Value(), nil
}

func (c *call) tiler(i int) (layouts.Tiler, error) { return c.e.tiler(c.n.args[i], c.args[i]) }

func (e *evaluator) tiler(n *node, v Value) (layouts.Tiler, error) {
	switch v.Kind {
	case KindTiler:
		return v.Tiler, nil
	case KindTuple:
		return layouts.ShapeTiler(v.Tuple), nil
	case KindSkip:
		return layouts.SkipTiler(), nil
	case KindLayout:
		if !v.Layout.Composed {
			return layouts.LayoutTiler(v.Layout.L), nil
		}
	}
	return layouts.Tiler{}, e.errf(n.pos, "expected a tiler (a layout, a shape, <...> or _), not %v %v", v.Kind, v)
}

// path returns the template arguments, or the integer arguments from
// index from on when there are none (get<0,1>(L) or get(L, 0, 1)).
func (c *call) path(from int) ([]int, error) {
	if len(c.n.targs) > 0 {
		if len(c.args) > from {
			return nil, c.argErr(from, "%s: give the indices either as <...> or as arguments, not both", c.n.name)
		}
		return c.n.targs, nil
	}
	var p []int
	for i := from; i < len(c.args); i++ {
		v, err := c.int(i)
		if err != nil {
			return nil, err
		}
		p = append(p, v)
	}
	return p, nil
}

// FunctionHelp lists the functions the evaluator knows, one per line with
// its signature and summary, for --help texts.
func FunctionHelp() string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := functions[n]
		fmt.Fprintf(&b, "  %s%s\n      %s\n", n, f.sig, f.help)
	}
	return b.String()
}
