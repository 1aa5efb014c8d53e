package bitmath

import (
	"fmt"
	"strconv"
	"strings"
)

// Op is the operator of an Expr node.
type Op uint8

// The operators. Binary operators have C semantics on 64-bit signed
// integers, with two exceptions that make every result defined: a division
// or remainder by zero is an error, and so is a shift count outside 0..63.
const (
	OpConst Op = iota // an integer literal (Val)
	OpVar             // a variable (Name, Slot)
	OpNeg             // -X
	OpNot             // ~X
	OpMul             // X * Y
	OpDiv             // X / Y, truncating toward zero
	OpMod             // X % Y, with the sign of X
	OpAdd             // X + Y
	OpSub             // X - Y
	OpShl             // X << Y
	OpShr             // X >> Y (arithmetic)
	OpAnd             // X & Y
	OpXor             // X ^ Y
	OpOr              // X | Y
)

var opText = [...]string{
	OpNeg: "-", OpNot: "~", OpMul: "*", OpDiv: "/", OpMod: "%", OpAdd: "+", OpSub: "-",
	OpShl: "<<", OpShr: ">>", OpAnd: "&", OpXor: "^", OpOr: "|",
}

// String returns the operator's C spelling ("<<", "&", ...); OpConst and
// OpVar have none.
func (o Op) String() string {
	if int(o) < len(opText) && opText[o] != "" {
		return opText[o]
	}
	if o == OpConst {
		return "const"
	}
	return "var"
}

// binary reports whether o takes two operands.
func (o Op) binary() bool { return o >= OpMul }

// Expr is a node of an integer expression: a literal, a variable, or an
// operator applied to X (and Y). Pos is the byte offset of the node in the
// text it was parsed from (0 for derived expressions); it lets evaluation
// errors such as a division by zero point at a column.
type Expr struct {
	Op   Op
	Val  int64  // OpConst
	Name string // OpVar
	Slot int    // OpVar: index into the environment, set by Program.Bind
	X, Y *Expr
	Pos  int
}

// Const returns the literal v.
func Const(v int64) *Expr { return &Expr{Op: OpConst, Val: v} }

// Var returns the variable name (unbound).
func Var(name string) *Expr { return &Expr{Op: OpVar, Name: name, Slot: -1} }

// Bin returns x op y.
func Bin(op Op, x, y *Expr) *Expr { return &Expr{Op: op, X: x, Y: y} }

// EvalError is an error raised while evaluating an expression, such as a
// division by zero. Pos is the byte offset of the operator in the source.
type EvalError struct {
	Pos int
	Msg string
}

// Error returns the message.
func (e *EvalError) Error() string { return e.Msg }

// Eval evaluates e in env, where a variable's value is env[Slot].
func (e *Expr) Eval(env []int64) (int64, error) {
	switch e.Op {
	case OpConst:
		return e.Val, nil
	case OpVar:
		if e.Slot < 0 || e.Slot >= len(env) {
			return 0, &EvalError{e.Pos, fmt.Sprintf("variable %s is not bound", e.Name)}
		}
		return env[e.Slot], nil
	}
	x, err := e.X.Eval(env)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case OpNeg:
		return -x, nil
	case OpNot:
		return ^x, nil
	}
	y, err := e.Y.Eval(env)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case OpMul:
		return x * y, nil
	case OpDiv, OpMod:
		if y == 0 {
			return 0, &EvalError{e.Pos, fmt.Sprintf("division by zero in %s", e)}
		}
		if y == -1 { // avoid the MinInt64 / -1 trap; the results wrap as in two's complement
			if e.Op == OpDiv {
				return -x, nil
			}
			return 0, nil
		}
		if e.Op == OpDiv {
			return x / y, nil
		}
		return x % y, nil
	case OpAdd:
		return x + y, nil
	case OpSub:
		return x - y, nil
	case OpShl, OpShr:
		if y < 0 || y > 63 {
			return 0, &EvalError{e.Pos, fmt.Sprintf("shift count %d out of range 0..63 in %s", y, e)}
		}
		if e.Op == OpShl {
			return x << uint(y), nil
		}
		return x >> uint(y), nil
	case OpAnd:
		return x & y, nil
	case OpXor:
		return x ^ y, nil
	case OpOr:
		return x | y, nil
	}
	return 0, &EvalError{e.Pos, fmt.Sprintf("unknown operator %d", e.Op)}
}

func (e *Expr) clone() *Expr {
	if e == nil {
		return nil
	}
	c := *e
	c.X, c.Y = e.X.clone(), e.Y.clone()
	return &c
}

// Ops counts the operators in e: the instructions it costs.
func (e *Expr) Ops() int {
	switch {
	case e == nil || e.Op == OpConst || e.Op == OpVar:
		return 0
	case e.Op == OpNeg || e.Op == OpNot:
		return 1 + e.X.Ops()
	}
	return 1 + e.X.Ops() + e.Y.Ops()
}

// Vars calls f for every variable occurrence in e.
func (e *Expr) Vars(f func(*Expr)) {
	if e == nil {
		return
	}
	if e.Op == OpVar {
		f(e)
	}
	e.X.Vars(f)
	e.Y.Vars(f)
}

// String prints e in C syntax (which Go and Python read the same way): every
// operand that is itself an operation is parenthesised, except the operands
// of a chain of one associative operator ("a + b + c"), so the text never
// depends on a language's precedence rules.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

func (e *Expr) write(b *strings.Builder, parent Op) {
	switch e.Op {
	case OpConst:
		b.WriteString(formatConst(e.Val))
		return
	case OpVar:
		b.WriteString(e.Name)
		return
	case OpNeg, OpNot:
		b.WriteString(e.Op.String())
		if e.X.Op == OpConst || e.X.Op == OpVar {
			e.X.write(b, e.Op)
		} else {
			b.WriteByte('(')
			e.X.write(b, 0)
			b.WriteByte(')')
		}
		return
	}
	paren := parent != 0 && !(parent == e.Op && associative(e.Op))
	if paren {
		b.WriteByte('(')
	}
	e.X.write(b, e.Op)
	b.WriteString(" " + e.Op.String() + " ")
	// The right operand of a chain is parenthesised unless it is a leaf, so
	// "a - (b - c)" keeps its meaning.
	if (e.Op == OpShl || e.Op == OpShr) && e.Y.Op == OpConst {
		b.WriteString(strconv.FormatInt(e.Y.Val, 10)) // shift counts read best in decimal
	} else if e.Y.Op.binary() || e.Y.Op == OpNeg || e.Y.Op == OpNot {
		if e.Y.Op == e.Op && associative(e.Op) {
			e.Y.write(b, e.Op)
		} else {
			e.Y.write(b, 255)
		}
	} else {
		e.Y.write(b, e.Op)
	}
	if paren {
		b.WriteByte(')')
	}
}

func associative(o Op) bool {
	return o == OpAdd || o == OpMul || o == OpAnd || o == OpOr || o == OpXor
}

// formatConst prints small numbers and low masks (2^k-1 up to 255) in
// decimal, as the seed's "lane & 31" does, and other masks in hex.
func formatConst(v int64) string {
	if v < 0 {
		return strconv.FormatInt(v, 10)
	}
	if v < 16 || (v <= 255 && v&(v+1) == 0) {
		return strconv.FormatInt(v, 10)
	}
	return "0x" + strings.ToUpper(strconv.FormatInt(v, 16))
}
