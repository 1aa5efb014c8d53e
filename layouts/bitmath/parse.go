package bitmath

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FormulaError reports a malformed formula. Line and Col are 1-based and
// point at the offending character of Input.
type FormulaError struct {
	Input     string
	Line, Col int
	Msg       string
}

// Error returns "col C: message", with the line for multi-line formulas.
func (e *FormulaError) Error() string {
	if strings.Contains(e.Input, "\n") {
		return fmt.Sprintf("line %d, col %d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("col %d: %s", e.Col, e.Msg)
}

// Caret returns the offending line with a caret under the column.
func (e *FormulaError) Caret() string {
	lines := strings.Split(e.Input, "\n")
	l := ""
	if e.Line >= 1 && e.Line <= len(lines) {
		l = lines[e.Line-1]
	}
	return l + "\n" + strings.Repeat(" ", max(e.Col-1, 0)) + "^"
}

// formulaErr builds a FormulaError at byte offset pos of src.
func formulaErr(src string, pos int, format string, args ...any) *FormulaError {
	pos = min(max(pos, 0), len(src))
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - (strings.LastIndex(src[:pos], "\n") + 1) + 1
	return &FormulaError{Input: src, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Limits that keep hostile input cheap.
const (
	maxFormulaLen   = 1 << 16
	maxFormulaDepth = 200
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNum
	tOp  // operators and punctuation
	tSep // ';' or newline
)

type token struct {
	kind tokKind
	text string
	val  int64
	pos  int
}

type formulaParser struct {
	src   string
	toks  []token
	i     int
	depth int
}

// lex splits src into tokens. '#' starts a comment that runs to the end of
// the line. "//" is refused: it is a comment in C and Go but floor division
// in Python, and guessing would silently change the formula.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n' || c == ';':
			toks = append(toks, token{kind: tSep, text: string(c), pos: i})
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			st := i
			for i < len(src) && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			toks = append(toks, token{kind: tIdent, text: src[st:i], pos: st})
		case c >= '0' && c <= '9':
			st := i
			base := 10
			digits := i
			if c == '0' && i+1 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') {
				base, digits = 16, i+2
			} else if c == '0' && i+1 < len(src) && (src[i+1] == 'b' || src[i+1] == 'B') {
				base, digits = 2, i+2
			}
			j := digits
			for j < len(src) && isDigit(src[j], base) || j < len(src) && src[j] == '_' && j > digits {
				j++
			}
			lit := strings.ReplaceAll(src[digits:j], "_", "")
			if lit == "" {
				return nil, formulaErr(src, st, "malformed number %q", src[st:j])
			}
			// C's unsigned and long suffixes are accepted and ignored.
			for j < len(src) && strings.IndexByte("uUlL", src[j]) >= 0 {
				j++
			}
			if j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				return nil, formulaErr(src, j, "unexpected %q in number %q", src[j], src[st:j+1])
			}
			v, err := strconv.ParseInt(lit, base, 64)
			if err != nil {
				return nil, formulaErr(src, st, "number %s does not fit in 64 bits", src[st:j])
			}
			toks = append(toks, token{kind: tNum, text: src[st:j], val: v, pos: st})
			i = j
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "<<", ">>", ":=":
				toks = append(toks, token{kind: tOp, text: two, pos: i})
				i += 2
				continue
			case "//":
				return nil, formulaErr(src, i, "'//' is ambiguous (a comment in C and Go, floor division in Python): write / for division, and # for comments")
			case "**":
				return nil, formulaErr(src, i, "'**' (power) is not supported: use << or *")
			case "&&", "||", "==", "!=", "<=", ">=":
				return nil, formulaErr(src, i, "%q is not supported: formulas use + - * / %% << >> & | ^ ~ and parentheses", two)
			}
			if strings.IndexByte("+-*/%&|^~()=", c) >= 0 {
				toks = append(toks, token{kind: tOp, text: string(c), pos: i})
				i++
				continue
			}
			if c >= 0x80 {
				return nil, formulaErr(src, i, "unexpected non-ASCII character")
			}
			return nil, formulaErr(src, i, "unexpected character %q", c)
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)}), nil
}

func isDigit(c byte, base int) bool {
	switch base {
	case 2:
		return c == '0' || c == '1'
	case 16:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return c >= '0' && c <= '9'
}

// typeWords may precede an assignment and are ignored, so that C, Go and
// Python lines paste as they are: "unsigned row = ...", "row := ...".
var typeWords = map[string]bool{
	"unsigned": true, "int": true, "uint": true, "uint32_t": true, "uint64_t": true, "int32_t": true,
	"uint32": true, "uint64": true, "int32": true, "int64": true, "long": true, "const": true,
	"auto": true, "var": true, "let": true, "u32": true,
}

// ParseFormula parses a formula: assignments "name = expression" separated
// by ';' or newlines, with C's integer operators + - * / % << >> & | ^ ~
// and parentheses, C precedence, decimal, 0x and 0b literals, and '#'
// comments. A C or Go type before the name and Go's ":=" are accepted.
// Errors are *FormulaError values with the line and column of the problem;
// a literal division by zero or a literal shift count outside 0..63 is
// reported here, others when the formula is evaluated.
func ParseFormula(src string) ([]Step, error) {
	if len(src) > maxFormulaLen {
		return nil, formulaErr(src, maxFormulaLen, "formula longer than %d bytes", maxFormulaLen)
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &formulaParser{src: src, toks: toks}
	var steps []Step
	for {
		for p.peek().kind == tSep {
			p.i++
		}
		if p.peek().kind == tEOF {
			break
		}
		st, err := p.statement()
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
		switch t := p.peek(); t.kind {
		case tSep, tEOF:
		default:
			return nil, p.errAt(t, "expected ';' or a new line after the expression, found %s", describe(t))
		}
	}
	if len(steps) == 0 {
		return nil, formulaErr(src, 0, "empty formula: write assignments such as 'row = ...; col = ...'")
	}
	return steps, nil
}

func (p *formulaParser) peek() token { return p.toks[p.i] }

func (p *formulaParser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *formulaParser) errAt(t token, format string, args ...any) *FormulaError {
	return formulaErr(p.src, t.pos, format, args...)
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tSep:
		if t.text == "\n" {
			return "end of line"
		}
	}
	return strconv.Quote(t.text)
}

func (p *formulaParser) statement() (Step, error) {
	// Skip type words: "unsigned int row = ..." (but a lone "int = ..."
	// assigns a variable named int).
	for p.peek().kind == tIdent && typeWords[p.peek().text] && p.toks[p.i+1].kind == tIdent {
		p.i++
	}
	name := p.next()
	if name.kind != tIdent {
		return Step{}, p.errAt(name, "expected a name to assign (such as row), found %s", describe(name))
	}
	eq := p.next()
	if eq.text != "=" && eq.text != ":=" {
		return Step{}, p.errAt(eq, "expected '=' after %s, found %s", name.text, describe(eq))
	}
	e, err := p.expr(0)
	if err != nil {
		return Step{}, err
	}
	return Step{Name: name.text, Expr: e, Pos: name.pos}, nil
}

// binary operator precedence levels, lowest first (C's order).
var levels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}}

var opOf = map[string]Op{
	"|": OpOr, "^": OpXor, "&": OpAnd, "<<": OpShl, ">>": OpShr,
	"+": OpAdd, "-": OpSub, "*": OpMul, "/": OpDiv, "%": OpMod,
}

func (p *formulaParser) expr(level int) (*Expr, error) {
	if level == len(levels) {
		return p.unary()
	}
	x, err := p.expr(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || !slices.Contains(levels[level], t.text) {
			return x, nil
		}
		p.i++
		y, err := p.expr(level + 1)
		if err != nil {
			return nil, err
		}
		e := &Expr{Op: opOf[t.text], X: x, Y: y, Pos: t.pos}
		if y.Op == OpConst {
			switch {
			case (e.Op == OpDiv || e.Op == OpMod) && y.Val == 0:
				return nil, p.errAt(t, "division by zero")
			case (e.Op == OpShl || e.Op == OpShr) && (y.Val < 0 || y.Val > 63):
				return nil, p.errAt(t, "shift count %d is outside 0..63", y.Val)
			}
		}
		x = e
	}
}

func (p *formulaParser) unary() (*Expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "~" || t.text == "+") {
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxFormulaDepth {
			return nil, p.errAt(t, "expression nested deeper than %d", maxFormulaDepth)
		}
		p.i++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		switch t.text {
		case "-":
			return &Expr{Op: OpNeg, X: x, Pos: t.pos}, nil
		case "~":
			return &Expr{Op: OpNot, X: x, Pos: t.pos}, nil
		}
		return x, nil
	}
	return p.primary()
}

func (p *formulaParser) primary() (*Expr, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return &Expr{Op: OpConst, Val: t.val, Pos: t.pos}, nil
	case tIdent:
		if p.peek().text == "(" {
			return nil, p.errAt(t, "function calls such as %s(...) are not supported", t.text)
		}
		return &Expr{Op: OpVar, Name: t.text, Slot: -1, Pos: t.pos}, nil
	case tOp:
		if t.text == "(" {
			p.depth++
			defer func() { p.depth-- }()
			if p.depth > maxFormulaDepth {
				return nil, p.errAt(t, "parentheses nested deeper than %d", maxFormulaDepth)
			}
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if c := p.next(); c.text != ")" {
				if c.kind == tEOF || c.kind == tSep {
					return nil, p.errAt(t, "unclosed '(' (expected ')' before %s)", describe(c))
				}
				return nil, p.errAt(c, "expected ')', found %s", describe(c))
			}
			return e, nil
		}
	}
	return nil, p.errAt(t, "expected a number, a name or '(', found %s", describe(t))
}
