package layouts

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError reports malformed CuTe notation. Col is the 1-based column of
// the offending character in Input.
type ParseError struct {
	Input string
	Col   int
	Msg   string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("col %d: %s", e.Col, e.Msg)
}

// Caret returns the input with a caret line under the offending column, for
// terminal error messages.
func (e *ParseError) Caret() string { return CaretLines(e.Input, e.Col) }

// CaretLines returns input and, below it, a caret under the 1-based
// column col. An input longer than 120 bytes is cut to a window around the
// column, with "…" where text was left out; line breaks and tabs print as
// blanks so that the caret stays aligned.
func CaretLines(input string, col int) string {
	const width = 120
	col = max(col, 1)
	start, end := 0, len(input)
	if len(input) > width {
		start = max(0, min(col-1-width/2, len(input)-width))
		end = min(len(input), start+width)
	}
	var b strings.Builder
	pre := 0
	if start > 0 {
		b.WriteString("…")
		pre = 1
	}
	for _, c := range []byte(input[start:end]) {
		if c < 0x20 {
			c = ' '
		}
		b.WriteByte(c)
	}
	if end < len(input) {
		b.WriteString("…")
	}
	return b.String() + "\n" + strings.Repeat(" ", pre+col-1-start) + "^"
}

// Scanner reads CuTe notation. It is exported so that expression parsers
// (such as the one behind `tcsim layout eval`) can reuse its tokens and
// positions. Positions are byte offsets into Src.
type Scanner struct {
	Src string
	Pos int
}

// Errorf returns a ParseError at byte offset pos.
func (s *Scanner) Errorf(pos int, format string, args ...any) *ParseError {
	return &ParseError{Input: s.Src, Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

// SkipSpace advances past blanks.
func (s *Scanner) SkipSpace() {
	for s.Pos < len(s.Src) && (s.Src[s.Pos] == ' ' || s.Src[s.Pos] == '\t' || s.Src[s.Pos] == '\n' || s.Src[s.Pos] == '\r') {
		s.Pos++
	}
}

// Peek returns the next non-blank byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.SkipSpace()
	if s.Pos >= len(s.Src) {
		return 0
	}
	return s.Src[s.Pos]
}

// Accept consumes tok (after blanks) if it is next and reports whether it did.
func (s *Scanner) Accept(tok string) bool {
	s.SkipSpace()
	if strings.HasPrefix(s.Src[s.Pos:], tok) {
		s.Pos += len(tok)
		return true
	}
	return false
}

// Expect consumes tok or returns an error naming what was found instead.
func (s *Scanner) Expect(tok string) error {
	if s.Accept(tok) {
		return nil
	}
	return s.Errorf(s.Pos, "expected %q, found %s", tok, s.describe())
}

func (s *Scanner) describe() string {
	s.SkipSpace()
	if s.Pos >= len(s.Src) {
		return "end of input"
	}
	return strconv.Quote(string(s.Src[s.Pos]))
}

// AtEnd reports whether only blanks remain.
func (s *Scanner) AtEnd() bool {
	s.SkipSpace()
	return s.Pos >= len(s.Src)
}

// Int reads a (possibly negative) integer. A leading '_' marks a CuTe
// static integer (as in "_8") and is accepted and ignored.
func (s *Scanner) Int() (int, error) {
	s.SkipSpace()
	start := s.Pos
	i := s.Pos
	if i < len(s.Src) && s.Src[i] == '_' {
		i++
	}
	if i < len(s.Src) && (s.Src[i] == '-' || s.Src[i] == '+') {
		i++
	}
	ds := i
	for i < len(s.Src) && s.Src[i] >= '0' && s.Src[i] <= '9' {
		i++
	}
	if i == ds {
		if i < len(s.Src) && s.Src[i] == '?' {
			return 0, s.Errorf(i, "'?' is a dynamic value (how the CuTe DSL prints a shape or stride known only at run time): tcsim needs static layouts; write the value in its place")
		}
		return 0, s.Errorf(start, "expected an integer, found %s", s.describe())
	}
	lit := strings.TrimPrefix(s.Src[start:i], "_")
	v, err := strconv.Atoi(lit)
	if err != nil || v > 1<<40 || v < -(1<<40) {
		return 0, s.Errorf(start, "integer %s is out of range (|v| <= 2^40)", s.Src[start:i])
	}
	s.Pos = i
	return v, nil
}

// maxNesting bounds tuple depth so hostile input cannot exhaust the stack.
const maxNesting = 64

// IntTuple reads an integer or a parenthesised tuple of IntTuples.
func (s *Scanner) IntTuple() (IntTuple, error) { return s.intTuple(0) }

func (s *Scanner) intTuple(depth int) (IntTuple, error) {
	if s.Peek() != '(' {
		v, err := s.Int()
		return Int(v), err
	}
	open := s.Pos
	if depth >= maxNesting {
		return IntTuple{}, s.Errorf(open, "tuples nested deeper than %d", maxNesting)
	}
	s.Pos++
	t := IntTuple{modes: []IntTuple{}}
	if s.Accept(")") {
		return t, nil
	}
	for {
		m, err := s.intTuple(depth + 1)
		if err != nil {
			return IntTuple{}, err
		}
		t.modes = append(t.modes, m)
		if s.Accept(",") {
			continue
		}
		if s.Accept(")") {
			return t, nil
		}
		if s.AtEnd() {
			return IntTuple{}, s.Errorf(open, "unclosed '(' (expected ',' or ')' before end of input)")
		}
		return IntTuple{}, s.Errorf(s.Pos, "expected ',' or ')', found %s", s.describe())
	}
}

// Layout reads shape:stride. If allowShapeOnly is set, a shape with no
// ":stride" becomes the compact column-major layout of that shape.
func (s *Scanner) Layout(allowShapeOnly bool) (Layout, error) {
	s.SkipSpace()
	start := s.Pos
	shape, err := s.IntTuple()
	if err != nil {
		return Layout{}, err
	}
	for _, v := range shape.Leaves() {
		if v < 0 {
			return Layout{}, s.Errorf(start, "shape %v has a negative extent", shape)
		}
	}
	if !s.Accept(":") {
		if allowShapeOnly {
			acc := 1
			for _, v := range shape.Leaves() {
				if acc > 1<<40 {
					return Layout{}, s.Errorf(start, "the compact strides of shape %v exceed 2^40", shape)
				}
				if v > 1 && acc > (1<<40)/v {
					acc = 1<<40 + 1 // saturate: the next stride is too large
				} else {
					acc *= max(v, 1)
				}
			}
			return ColMajor(shape), nil
		}
		return Layout{}, s.Errorf(s.Pos, "expected ':' and a stride after shape %v", shape)
	}
	strideAt := s.Pos
	stride, err := s.IntTuple()
	if err != nil {
		return Layout{}, err
	}
	if !shape.Congruent(stride) {
		return Layout{}, s.Errorf(strideAt, "stride %v is not congruent with shape %v (they must nest the same way)", stride, shape)
	}
	for _, v := range shape.Leaves() {
		if v < 0 {
			return Layout{}, s.Errorf(start, "shape %v has a negative extent", shape)
		}
	}
	return Layout{Shape: shape, Stride: stride}, nil
}

// Swizzle reads "Sw<B,M,S>" (also "Swizzle<B,M,S>" and the CuTe DSL's
// "S<B,M,S>").
func (s *Scanner) Swizzle() (Swizzle, error) {
	s.SkipSpace()
	start := s.Pos
	if !s.Accept("Swizzle<") && !s.Accept("Sw<") && !s.Accept("S<") {
		return Swizzle{}, s.Errorf(start, "expected Sw<B,M,S>, found %s", s.describe())
	}
	var v [3]int
	for i := range v {
		if i > 0 {
			if err := s.Expect(","); err != nil {
				return Swizzle{}, err
			}
		}
		n, err := s.Int()
		if err != nil {
			return Swizzle{}, err
		}
		v[i] = n
	}
	if err := s.Expect(">"); err != nil {
		return Swizzle{}, err
	}
	sw, err := NewSwizzle(v[0], v[1], v[2])
	if err != nil {
		return Swizzle{}, s.Errorf(start, "%v", err)
	}
	return sw, nil
}

// AnyLayout is either a plain Layout or a ComposedLayout, as parsed from
// user text. Composed is false for plain layouts.
type AnyLayout struct {
	Composed bool
	C        ComposedLayout // valid when Composed
	L        Layout         // valid when !Composed
}

// Eval evaluates whichever layout a holds.
func (a AnyLayout) Eval(i int) int {
	if a.Composed {
		return a.C.Eval(i)
	}
	return a.L.Eval(i)
}

// Inner returns the plain layout (the inner layout of a composed one).
func (a AnyLayout) Inner() Layout {
	if a.Composed {
		return a.C.Layout
	}
	return a.L
}

// Size is the domain size.
func (a AnyLayout) Size() int { return a.Inner().Size() }

func (a AnyLayout) String() string {
	if a.Composed {
		return a.C.String()
	}
	return a.L.String()
}

// ParseAny reads a plain layout or "Sw<B,M,S> o OFFSET o LAYOUT" (the offset
// may be omitted: "Sw<3,4,3> o (8,64):(64,1)"), or a pasted CuTe type or
// printout (see cute.go): Layout<Shape<_4,_8>,Stride<_1,_4>>,
// GMMA::Layout_K_SW128_Atom<half_t>, "Sw<3,4,3> o smem_ptr[16b](unset) o
// (_8,_64):(_64,_1)", the CuTe DSL's "S<3,4,3> o 0 o (8,64):(64,1)".
func (s *Scanner) ParseAny(allowShapeOnly bool) (AnyLayout, error) {
	if s.atCuTeType() {
		return s.CuTeType()
	}
	if p := s.Peek(); p != 'S' {
		l, err := s.Layout(allowShapeOnly)
		return AnyLayout{L: l}, err
	}
	sw, err := s.Swizzle()
	if err != nil {
		return AnyLayout{}, err
	}
	if err := s.Expect("o"); err != nil {
		return AnyLayout{}, err
	}
	if s.Peek() == 's' {
		at := s.Pos
		bits, err := s.smemPtr()
		if err != nil {
			return AnyLayout{}, err
		}
		if err := s.Expect("o"); err != nil {
			return AnyLayout{}, err
		}
		l, err := s.Layout(allowShapeOnly)
		if err != nil {
			return AnyLayout{}, err
		}
		a, err := byteSwizzled(sw, bits, l)
		if err != nil {
			return AnyLayout{}, s.Errorf(at, "%v", err)
		}
		return a, nil
	}
	off := 0
	save := s.Pos
	if s.Peek() != '(' {
		// Either an offset followed by "o", or a leaf layout such as 8:1.
		n, err := s.Int()
		if err != nil {
			return AnyLayout{}, err
		}
		if s.Accept("o") {
			off = n
		} else {
			s.Pos = save
		}
	}
	l, err := s.Layout(allowShapeOnly)
	if err != nil {
		return AnyLayout{}, err
	}
	return AnyLayout{Composed: true, C: ComposedLayout{Swizzle: sw, Offset: off, Layout: l}}, nil
}

func parseWhole[T any](src string, f func(*Scanner) (T, error)) (T, error) {
	s := &Scanner{Src: src}
	v, err := f(s)
	if err != nil {
		var zero T
		return zero, err
	}
	if !s.AtEnd() {
		var zero T
		return zero, s.Errorf(s.Pos, "unexpected %s after the end", s.describe())
	}
	return v, nil
}

// ParseIntTuple parses CuTe IntTuple notation such as "((4,8),2)".
func ParseIntTuple(src string) (IntTuple, error) {
	return parseWhole(src, (*Scanner).IntTuple)
}

// ParseLayout parses "shape:stride"; a bare shape means its compact
// column-major layout. Errors are *ParseError values with a column.
func ParseLayout(src string) (Layout, error) {
	return parseWhole(src, func(s *Scanner) (Layout, error) { return s.Layout(true) })
}

// ParseAnyLayout parses a plain or swizzle-composed layout.
func ParseAnyLayout(src string) (AnyLayout, error) {
	return parseWhole(src, func(s *Scanner) (AnyLayout, error) { return s.ParseAny(true) })
}

// MustParse parses a layout literal and panics on error. Use it for
// literals in code, never for user input.
func MustParse(src string) Layout {
	l, err := ParseLayout(src)
	if err != nil {
		panic(fmt.Sprintf("layouts.MustParse(%q): %v", src, err))
	}
	return l
}
