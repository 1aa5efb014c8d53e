package ptx

// Operands and constant expressions, and the integer and float literals.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ---- operands and expressions ----

func (p *parser) parseOperand() Expr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(p.pos, "operand nested too deeply")
		return nil
	}
	x := p.parseOperand1()
	if x != nil && p.tok == OR {
		pos := p.pos
		p.next()
		y := p.parseOperand1()
		if y == nil {
			return nil
		}
		_ = pos
		return &Pair{Pos: x.Position(), X: x, Y: y}
	}
	return x
}

func (p *parser) parseOperand1() Expr {
	pos := p.pos
	switch p.tok {
	case LBRACK:
		return p.parseAddress()
	case LBRACE:
		return p.parseVector()
	case LPAREN:
		if p.inCall {
			p.next()
			l := &List{Pos: pos}
			for p.tok != RPAREN && p.tok != EOF {
				e := p.parseOperand()
				if e == nil {
					return nil
				}
				l.Elems = append(l.Elems, e)
				if p.tok != COMMA {
					break
				}
				p.next()
			}
			if p.tok != RPAREN {
				p.errorf(p.pos, "expected ')' to close the call list, found %s", p.desc())
				return nil
			}
			p.next()
			return l
		}
	case NOT:
		if _, t, lit := p.peek(); t == IDENT && p.isReg(lit) {
			p.next()
			name := p.lit
			p.next()
			return p.newReg(Reg{Pos: pos, Name: name, Not: true})
		}
	case IDENT:
		if p.lit == "_" {
			p.next()
			return &Sink{Pos: pos}
		}
		if p.isReg(p.lit) {
			r := p.makeReg(pos, p.lit)
			p.next()
			return r
		}
	case INT, FLOAT, SUB, ADD, TILDE:
	default:
		p.errorf(pos, "expected an operand, found %s", p.desc())
		return nil
	}
	x := p.parseExpr()
	if x == nil {
		return nil
	}
	return x
}

// makeReg builds a register operand, splitting a component suffix off
// special and vector registers ("%tid.x").
func (p *parser) makeReg(pos Pos, lit string) *Reg {
	base, comp := splitComponent(lit)
	if comp != "" && strings.IndexByte(comp, '.') >= 0 {
		p.errorf(pos, "malformed register %q", lit)
	}
	return p.newReg(Reg{Pos: pos, Name: base, Comp: comp})
}

func (p *parser) parseVector() Expr {
	v := &Vector{Pos: p.pos}
	p.next()
	for p.tok != RBRACE && p.tok != EOF {
		var e Expr
		if p.tok == LBRACE || p.tok == LBRACK {
			p.errorf(p.pos, "unexpected %s inside a vector operand", p.desc())
			return nil
		}
		e = p.parseOperand()
		if e == nil {
			return nil
		}
		v.Elems = append(v.Elems, e)
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	if p.tok != RBRACE {
		p.errorf(p.pos, "expected ',' or '}' in the vector operand, found %s", p.desc())
		return nil
	}
	p.next()
	if len(v.Elems) == 0 {
		p.errorf(v.Pos, "empty vector operand")
	}
	return v
}

func (p *parser) parseAddress() Expr {
	a := p.newAddress()
	a.Pos = p.pos
	p.next()
	switch {
	case p.tok == IDENT && p.isReg(p.lit):
		a.Base = p.makeReg(p.pos, p.lit)
		p.next()
		if p.tok == ADD || p.tok == SUB {
			a.Offset = p.constOffset()
		}
	default:
		x := p.parseExpr()
		switch x := x.(type) {
		case nil:
			return nil
		case *Ident:
			a.Offset, x.Offset = x.Offset, 0
			a.Base = x
		case *Imm:
			if x.Kind != ImmInt {
				p.errorf(x.Pos, "an address offset must be an integer")
			}
			a.Offset = int64(x.Bits)
		default:
			p.errorHint(x.Position(), "use [reg+imm], [symbol+imm] or [imm]", "unsupported address expression")
		}
	}
	if p.tok == COMMA {
		p.next()
		if p.tok != LBRACE {
			p.errorf(p.pos, "expected a coordinate vector {c0, ...} after the tensor map, found %s", p.desc())
			return nil
		}
		v, ok := p.parseVector().(*Vector)
		if !ok {
			return nil
		}
		a.Coords = v
	}
	if p.tok != RBRACK {
		p.errorf(p.pos, "expected ']' to close the address, found %s", p.desc())
		return nil
	}
	p.next()
	return a
}

// constOffset parses "+imm" or "-imm" (also "+-imm") after a base register.
func (p *parser) constOffset() int64 {
	neg := p.tok == SUB
	p.next()
	x := p.parseUnary()
	imm, ok := x.(*Imm)
	if !ok || imm.Kind != ImmInt {
		if x != nil {
			p.errorHint(x.Position(), "PTX addresses are [reg+imm]", "address offset must be an integer constant")
		}
		return 0
	}
	if neg {
		return -int64(imm.Bits)
	}
	return int64(imm.Bits)
}

// Binary operator precedence, as in C.
func precedence(t Token) int {
	switch t {
	case LOR:
		return 1
	case LAND:
		return 2
	case OR:
		return 3
	case XOR:
		return 4
	case AND:
		return 5
	case EQL, NEQ:
		return 6
	case LT, GT, LEQ, GEQ:
		return 7
	case SHL, SHR:
		return 8
	case ADD, SUB:
		return 9
	case MUL, QUO, REM:
		return 10
	}
	return 0
}

// parseExpr parses a constant expression. Literal-only expressions are
// folded into an *Imm; "symbol ± int" becomes an *Ident with an Offset.
func (p *parser) parseExpr() Expr { return p.parseBinary(1) }

func (p *parser) parseBinary(prec int) Expr {
	x := p.parseUnary()
	for x != nil {
		op := p.tok
		oprec := precedence(op)
		// '|' separates a predicate pair and '<' opens a register range;
		// neither is an operator at operand level when a register is on
		// the left.
		if oprec < prec {
			return x
		}
		switch x.(type) {
		case *Reg, *Sink:
			// Registers take no part in constant expressions; a '|'
			// after one separates a predicate pair.
			return x
		}
		if op == OR {
			if _, isImm := x.(*Imm); !isImm {
				return x
			}
		}
		pos := p.pos
		p.next()
		y := p.parseBinary(oprec + 1)
		if y == nil {
			return nil
		}
		x = p.combine(pos, op, x, y)
	}
	return x
}

func (p *parser) parseUnary() Expr {
	pos := p.pos
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(pos, "expression nested too deeply")
		return nil
	}
	switch p.tok {
	case SUB, ADD, TILDE, NOT:
		op := p.tok
		p.next()
		x := p.parseUnary()
		if x == nil {
			return nil
		}
		return p.unary(pos, op, x)
	case LPAREN:
		p.next()
		x := p.parseExpr()
		if x == nil {
			return nil
		}
		if p.tok != RPAREN {
			p.errorf(p.pos, "expected ')', found %s", p.desc())
			return nil
		}
		p.next()
		return x
	case INT:
		v, unsigned, err := parseIntLit(p.lit)
		if err == errOverflow {
			p.errorf(pos, "%s: %v", p.lit, err)
		}
		hex := len(p.lit) > 1 && (p.lit[1] == 'x' || p.lit[1] == 'X')
		p.next()
		return p.newImm(Imm{Pos: pos, Kind: ImmInt, Bits: v, Unsigned: unsigned, Hex: hex})
	case FLOAT:
		imm := p.newImm(Imm{Pos: pos})
		kind, bits, err := parseFloatLit(p.lit)
		if err == errFloatRange {
			p.errorf(pos, "%s: %v", p.lit, err)
		}
		imm.Kind, imm.Bits = kind, bits
		p.next()
		return imm
	case DIRECTIVE:
		if p.inSection {
			id := &Ident{Pos: pos, Name: p.lit}
			p.next()
			return id
		}
	case IDENT:
		name := p.lit
		p.next()
		if name == "_" {
			return &Sink{Pos: pos}
		}
		if name == "generic" && p.tok == LPAREN {
			p.next()
			id := &Ident{Pos: pos, Generic: true}
			id.Name = p.identLit("a variable name in generic()")
			if p.tok != RPAREN {
				p.errorf(p.pos, "expected ')' after generic(%s, found %s", id.Name, p.desc())
				return nil
			}
			p.next()
			return id
		}
		if p.isReg(name) {
			return p.makeReg(pos, name)
		}
		return &Ident{Pos: pos, Name: name}
	}
	p.errorf(pos, "expected an operand or constant, found %s", p.desc())
	return nil
}

func (p *parser) unary(pos Pos, op Token, x Expr) Expr {
	if imm, ok := x.(*Imm); ok {
		r := *imm
		r.Pos = pos
		switch {
		case op == ADD:
			return &r
		case op == SUB && r.Kind == ImmF32:
			r.Bits ^= 1 << 31
			return &r
		case op == SUB && r.Kind == ImmF64:
			r.Bits ^= 1 << 63
			return &r
		case r.Kind != ImmInt:
			p.errorf(pos, "operator %s is not defined on floating-point constants", op)
			return &r
		case op == SUB:
			r.Bits = -r.Bits
		case op == TILDE:
			r.Bits = ^r.Bits
		case op == NOT:
			r.Bits = b2u(r.Bits == 0)
			r.Hex = false
		}
		return &r
	}
	if op == ADD {
		return x
	}
	if op == NOT {
		if r, ok := x.(*Reg); ok && !r.Not {
			r.Not = true
			r.Pos = pos
			return r
		}
	}
	return &UnaryExpr{Pos: pos, Op: op, X: x}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (p *parser) combine(pos Pos, op Token, x, y Expr) Expr {
	xi, xok := x.(*Imm)
	yi, yok := y.(*Imm)
	if xok && yok {
		if xi.Kind != ImmInt || yi.Kind != ImmInt {
			p.errorf(pos, "operator %s is not supported on floating-point constants", op)
			return xi
		}
		r := &Imm{Pos: xi.Pos, Kind: ImmInt, Unsigned: xi.Unsigned || yi.Unsigned, Hex: xi.Hex && yi.Hex}
		a, b := xi.Bits, yi.Bits
		sa, sb := int64(a), int64(b)
		switch op {
		case ADD:
			r.Bits = a + b
		case SUB:
			r.Bits = a - b
		case MUL:
			r.Bits = a * b
		case QUO, REM:
			if b == 0 {
				p.errorf(pos, "division by zero in a constant expression")
				return r
			}
			switch {
			case r.Unsigned && op == QUO:
				r.Bits = a / b
			case r.Unsigned:
				r.Bits = a % b
			case sb == -1:
				if op == QUO {
					r.Bits = -a
				}
			case op == QUO:
				r.Bits = uint64(sa / sb)
			default:
				r.Bits = uint64(sa % sb)
			}
		case AND:
			r.Bits = a & b
		case OR:
			r.Bits = a | b
		case XOR:
			r.Bits = a ^ b
		case SHL:
			if b >= 64 {
				r.Bits = 0
			} else {
				r.Bits = a << b
			}
		case SHR:
			switch {
			case b >= 64 && (r.Unsigned || sa >= 0):
				r.Bits = 0
			case b >= 64:
				r.Bits = ^uint64(0)
			case r.Unsigned:
				r.Bits = a >> b
			default:
				r.Bits = uint64(sa >> b)
			}
		default:
			var v bool
			switch op {
			case LAND:
				v = a != 0 && b != 0
			case LOR:
				v = a != 0 || b != 0
			case EQL:
				v = a == b
			case NEQ:
				v = a != b
			case LT:
				v = lessInt(a, b, r.Unsigned)
			case GT:
				v = lessInt(b, a, r.Unsigned)
			case LEQ:
				v = !lessInt(b, a, r.Unsigned)
			case GEQ:
				v = !lessInt(a, b, r.Unsigned)
			}
			r.Bits, r.Hex, r.Unsigned = b2u(v), false, false
		}
		return r
	}
	// symbol ± integer
	if id, ok := x.(*Ident); ok && yok && yi.Kind == ImmInt && (op == ADD || op == SUB) {
		r := *id
		if op == ADD {
			r.Offset += int64(yi.Bits)
		} else {
			r.Offset -= int64(yi.Bits)
		}
		return &r
	}
	if id, ok := y.(*Ident); ok && xok && xi.Kind == ImmInt && op == ADD {
		r := *id
		r.Pos = xi.Pos
		r.Offset += int64(xi.Bits)
		return &r
	}
	return &BinaryExpr{Pos: x.Position(), Op: op, X: x, Y: y}
}

func lessInt(a, b uint64, unsigned bool) bool {
	if unsigned {
		return a < b
	}
	return int64(a) < int64(b)
}

var (
	errOverflow   = errors.New("integer literal overflows 64 bits")
	errFloatRange = errors.New("floating-point literal out of range")
)

// parseIntLit decodes a PTX integer literal: decimal, 0x hex, 0b binary or
// 0-prefixed octal, with an optional U suffix.
func parseIntLit(lit string) (v uint64, unsigned bool, err error) {
	s := lit
	if n := len(s); n > 0 && (s[n-1] == 'U' || s[n-1] == 'u') {
		s, unsigned = s[:n-1], true
	}
	base := 10
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err = strconv.ParseUint(s, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return math.MaxUint64, true, errOverflow
		}
		return 0, unsigned, fmt.Errorf("malformed integer literal")
	}
	if v > math.MaxInt64 {
		unsigned = true
	}
	return v, unsigned, nil
}

// parseFloatLit decodes 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX and decimal floats
// (which PTX reads as double precision).
func parseFloatLit(lit string) (ImmKind, uint64, error) {
	if len(lit) > 2 && lit[0] == '0' && (lit[1]|0x20 == 'f' || lit[1]|0x20 == 'd') {
		kind, want := ImmF32, 8
		if lit[1]|0x20 == 'd' {
			kind, want = ImmF64, 16
		}
		digits := lit[2:]
		if len(digits) != want {
			return kind, 0, fmt.Errorf("needs exactly %d hex digits", want)
		}
		v, err := strconv.ParseUint(digits, 16, 64)
		if err != nil {
			return kind, 0, fmt.Errorf("malformed hexadecimal float")
		}
		return kind, v, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return ImmF64, math.Float64bits(f), errFloatRange
		}
		return ImmF64, 0, fmt.Errorf("malformed floating-point literal")
	}
	return ImmF64, math.Float64bits(f), nil
}
