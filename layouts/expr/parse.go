// Package expr evaluates CuTe layout-algebra expressions written the way
// CuTe users write them, for example
//
//	composition((4,2):(1,4), (2,2):(2,1))
//	complement((2,2):(1,6), 24)
//	logical_divide((16,8):(1,16), <4:1,2:1>)
//	Sw<3,4,3> o 0 o (8,64):(64,1)
//	size<0>(zipped_divide((64,256):(1,64), (8,16)))
//
// Values are integers, IntTuples (shapes, coordinates), layouts (plain or
// swizzled), swizzles and tilers. Results follow package layouts, which
// follows CuTe with static integers. Errors are *Error values that carry the
// 1-based column of the problem.
package expr

import (
	"errors"
	"fmt"

	"github.com/tcsim/tcsim/layouts"
)

// Error is a parse or evaluation error at a column of the input.
type Error struct {
	Input string
	Col   int    // 1-based column of the offending token or call
	Msg   string // what is wrong
	Err   error  // the underlying error, if any (e.g. *layouts.ConditionError)
	// Parse is true for malformed input, false for a well-formed
	// expression that cannot be evaluated (for example a composition that
	// CuTe rejects).
	Parse bool
}

// Error prints "col N: message".
func (e *Error) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Caret returns the input and, below it, a caret under the column.
func (e *Error) Caret() string { return layouts.CaretLines(e.Input, e.Col) }

// node is a parsed expression.
type node struct {
	pos   int // byte offset of the node's first character
	kind  nodeKind
	name  string  // call name
	targs []int   // template arguments: get<0,1>, select<1,0>
	typed bool    // some template argument was an element type (its bits in targs)
	args  []*node // call arguments, tuple/tiler elements, o-chain items
	tuple layouts.IntTuple
	any   layouts.AnyLayout
	sw    layouts.Swizzle
}

type nodeKind int

const (
	nTuple   nodeKind = iota // an integer or IntTuple literal
	nLayout                  // a shape:stride literal
	nSwizzle                 // Sw<B,M,S>
	nSkip                    // _
	nCall                    // name<targs>(args)
	nParen                   // ( e0, e1, ... ) with non-literal elements
	nTiler                   // < e0, e1, ... >
	nChain                   // e0 o e1 o ...
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

type parser struct {
	s     *layouts.Scanner
	depth int
}

// Parse checks the syntax of src without evaluating it.
func Parse(src string) error {
	_, err := parse(src)
	return err
}

func parse(src string) (*node, error) {
	p := &parser{s: &layouts.Scanner{Src: src}}
	n, err := p.chain()
	if err != nil {
		return nil, err
	}
	if !p.s.AtEnd() {
		return nil, p.errf(p.s.Pos, "unexpected %s after the end of the expression", p.describe())
	}
	return n, nil
}

func (p *parser) errf(pos int, format string, args ...any) *Error {
	return &Error{Input: p.s.Src, Col: pos + 1, Msg: fmt.Sprintf(format, args...), Parse: true}
}

func (p *parser) describe() string {
	if p.s.AtEnd() {
		return "end of input"
	}
	return fmt.Sprintf("%q", p.s.Src[p.s.Pos])
}

func (p *parser) wrap(err error) error {
	var pe *layouts.ParseError
	if errors.As(err, &pe) {
		return &Error{Input: p.s.Src, Col: pe.Col, Msg: pe.Msg, Parse: true}
	}
	return err
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// ident returns the identifier at the current position without consuming it.
func (p *parser) ident() string {
	p.s.SkipSpace()
	i := p.s.Pos
	if i >= len(p.s.Src) || !isIdentStart(p.s.Src[i]) {
		return ""
	}
	// "_8" is a static integer, not an identifier.
	if p.s.Src[i] == '_' && i+1 < len(p.s.Src) && (p.s.Src[i+1] >= '0' && p.s.Src[i+1] <= '9' || p.s.Src[i+1] == '-') {
		return ""
	}
	j := i
	for j < len(p.s.Src) && isIdent(p.s.Src[j]) {
		j++
	}
	return p.s.Src[i:j]
}

// typeName returns the element type name (cutlass::half_t, uint8_t ...)
// at the current position without consuming it, or "".
func (p *parser) typeName() string {
	p.s.SkipSpace()
	i := p.s.Pos
	if i >= len(p.s.Src) || !isIdentStart(p.s.Src[i]) || p.ident() == "" {
		return ""
	}
	j := i
	for j < len(p.s.Src) && (isIdent(p.s.Src[j]) || p.s.Src[j] == ':' && j+1 < len(p.s.Src) && p.s.Src[j+1] == ':') {
		if p.s.Src[j] == ':' {
			j++
		}
		j++
	}
	return p.s.Src[i:j]
}

// cuteType parses a pasted CuTe C++ type: a layout, or a Shape/Stride
// tuple.
func (p *parser) cuteType(pos int) (*node, error) {
	if q, _ := (&layouts.Scanner{Src: p.s.Src, Pos: p.s.Pos}).CuTeTupleHead(); q {
		t, err := p.s.CuTeIntTuple()
		if err != nil {
			return nil, p.wrap(err)
		}
		return &node{pos: pos, kind: nTuple, tuple: t}, nil
	}
	l, err := p.s.CuTeType()
	if err != nil {
		return nil, p.wrap(err)
	}
	return &node{pos: pos, kind: nLayout, any: l}, nil
}

// smemPtrAhead reports whether a swizzle at the current position is
// followed by "o smem_ptr[", without consuming anything.
func (p *parser) smemPtrAhead() bool {
	save := p.s.Pos
	defer func() { p.s.Pos = save }()
	if _, err := p.s.Swizzle(); err != nil {
		return false
	}
	return p.s.Accept("o") && p.s.Accept("smem_ptr[")
}

// isO reports whether the composition operator "o" comes next.
func (p *parser) isO() bool { return p.ident() == "o" }

func (p *parser) chain() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errf(p.s.Pos, "expression nested deeper than %d", maxDepth)
	}
	p.s.SkipSpace()
	start := p.s.Pos
	first, err := p.primary()
	if err != nil {
		return nil, err
	}
	if !p.isO() {
		return first, nil
	}
	ch := &node{pos: start, kind: nChain, args: []*node{first}}
	for p.isO() {
		p.s.Pos += 1
		n, err := p.primary()
		if err != nil {
			return nil, err
		}
		ch.args = append(ch.args, n)
	}
	return ch, nil
}

func (p *parser) primary() (*node, error) {
	p.s.SkipSpace()
	pos := p.s.Pos
	if p.s.AtEnd() {
		return nil, p.errf(pos, "expected an expression, found end of input")
	}
	if layouts.IsCuTeType(p.s.Src[p.s.Pos:]) {
		return p.cuteType(pos)
	}
	if id := p.ident(); id != "" {
		switch id {
		case "_":
			p.s.Pos++
			return &node{pos: pos, kind: nSkip}, nil
		case "Sw", "Swizzle", "S":
			if p.smemPtrAhead() {
				// CuTe's printout Sw<3,4,3> o smem_ptr[16b](unset) o L.
				a, err := p.s.ParseAny(true)
				if err != nil {
					return nil, p.wrap(err)
				}
				return &node{pos: pos, kind: nLayout, any: a}, nil
			}
			sw, err := p.s.Swizzle()
			if err != nil {
				return nil, p.wrap(err)
			}
			return &node{pos: pos, kind: nSwizzle, sw: sw}, nil
		case "o":
			return nil, p.errf(pos, "the composition operator 'o' needs an operand on its left")
		}
		return p.call(pos, id)
	}
	switch c := p.s.Peek(); {
	case c == '<':
		return p.list(pos, '<', '>', nTiler)
	case c == '(':
		return p.paren(pos)
	case c == '-' || c == '+' || c == '_' || c == '?' || c >= '0' && c <= '9': // Int explains a CuTe DSL '?'
		v, err := p.s.Int()
		if err != nil {
			return nil, p.wrap(err)
		}
		if p.s.Accept(":") {
			return p.stride(pos, layouts.Int(v))
		}
		return &node{pos: pos, kind: nTuple, tuple: layouts.Int(v)}, nil
	default:
		return nil, p.errf(pos, "expected an expression, found %s", p.describe())
	}
}

func (p *parser) stride(pos int, shape layouts.IntTuple) (*node, error) {
	at := p.s.Pos
	p.s.SkipSpace()
	st, err := p.s.IntTuple()
	if err != nil {
		return nil, p.wrap(err)
	}
	l, err := layouts.Make(shape, st)
	if err != nil {
		return nil, p.errf(at, "stride %v is not congruent with shape %v (they must nest the same way)", st, shape)
	}
	for _, v := range shape.Leaves() {
		if v < 0 {
			return nil, p.errf(pos, "shape %v has a negative extent", shape)
		}
	}
	return &node{pos: pos, kind: nLayout, any: layouts.Plain(l)}, nil
}

// paren parses "( e0, e1, ... )", then ":stride" if the elements are all
// integer tuples (a layout literal).
func (p *parser) paren(pos int) (*node, error) {
	n, err := p.list(pos, '(', ')', nParen)
	if err != nil {
		return nil, err
	}
	lit, ok := literalTuple(n)
	if !ok {
		if p.s.Peek() == ':' {
			return nil, p.errf(p.s.Pos, "a stride follows only a shape of integers")
		}
		return n, nil
	}
	if p.s.Accept(":") {
		return p.stride(pos, lit)
	}
	return &node{pos: pos, kind: nTuple, tuple: lit}, nil
}

func literalTuple(n *node) (layouts.IntTuple, bool) {
	switch n.kind {
	case nTuple:
		return n.tuple, true
	case nParen:
		ms := make([]layouts.IntTuple, len(n.args))
		for i, a := range n.args {
			t, ok := literalTuple(a)
			if !ok {
				return layouts.IntTuple{}, false
			}
			ms[i] = t
		}
		return layouts.Tuple(ms...), true
	}
	return layouts.IntTuple{}, false
}

func (p *parser) list(pos int, open, close byte, kind nodeKind) (*node, error) {
	p.s.Pos++ // the opening bracket
	n := &node{pos: pos, kind: kind}
	if p.s.Accept(string(close)) {
		if kind == nTiler {
			return nil, p.errf(pos, "empty tiler <>")
		}
		return n, nil
	}
	for {
		e, err := p.chain()
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, e)
		if p.s.Accept(",") {
			continue
		}
		if p.s.Accept(string(close)) {
			return n, nil
		}
		if p.s.AtEnd() {
			return nil, p.errf(pos, "unclosed %q (expected ',' or %q before end of input)", open, close)
		}
		return nil, p.errf(p.s.Pos, "expected ',' or %q, found %s", close, p.describe())
	}
}

func (p *parser) call(pos int, name string) (*node, error) {
	p.s.Pos += len(name)
	n := &node{pos: pos, kind: nCall, name: name}
	if p.s.Accept("<") {
		for {
			if id := p.typeName(); id != "" {
				// recast_layout<half_t, float>: an element type stands
				// for its width in bits.
				at := p.s.Pos
				b, ok := TypeBits(id)
				if !ok {
					return nil, p.errf(at, "unknown element type %q (e.g. half_t, bfloat16_t, float, uint8_t, float_e4m3_t)", id)
				}
				p.s.Pos += len(id)
				n.targs = append(n.targs, b)
				n.typed = true
				if p.s.Accept(",") {
					continue
				}
				if err := p.s.Expect(">"); err != nil {
					return nil, p.wrap(err)
				}
				break
			}
			v, err := p.s.Int()
			if err != nil {
				return nil, p.wrap(err)
			}
			n.targs = append(n.targs, v)
			if p.s.Accept(",") {
				continue
			}
			if err := p.s.Expect(">"); err != nil {
				return nil, p.wrap(err)
			}
			break
		}
	}
	if p.s.Peek() != '(' {
		if _, ok := functions[name]; ok {
			return nil, p.errf(p.s.Pos, "expected '(' after %s, found %s", name, p.describe())
		}
		return nil, p.errf(pos, "unknown name %q (run 'tcsim layout eval --help' for the functions)", name)
	}
	if _, ok := functions[name]; !ok {
		return nil, p.errf(pos, "unknown function %q (run 'tcsim layout eval --help' for the list)", name)
	}
	args, err := p.list(p.s.Pos, '(', ')', nParen)
	if err != nil {
		return nil, err
	}
	n.args = args.args
	return n, nil
}
