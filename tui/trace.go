package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/layouts/bitmath"
)

// traceStep is one assignment of a program run on concrete inputs: the
// formula, the formula with the numbers substituted, and the value.
type traceStep struct {
	Name, Expr, Subst string
	Value             int64
}

// String prints "row = (wid << 4) + (lane >> 2) = (1 << 4) + (5 >> 2) = 17",
// leaving out the substituted form when it says nothing new.
func (s traceStep) String() string {
	return strings.Join(s.Lines(), " ")
}

// Lines is String in two lines, the formula and then its numbers, for
// narrow panels: "row = (wid << 4) + (lane >> 2)" and
// "    = (1 << 4) + (5 >> 2) = 17".
func (s traceStep) Lines() []string {
	v := strconv.FormatInt(s.Value, 10)
	switch {
	case s.Expr == v:
		return []string{s.Name + " = " + v}
	case s.Subst == s.Expr || s.Subst == v:
		return []string{s.Name + " = " + s.Expr, "= " + v}
	}
	return []string{s.Name + " = " + s.Expr, "= " + s.Subst + " = " + v}
}

// traceProgram runs p's steps on the inputs and records every step.
func traceProgram(p *bitmath.Program, in map[string]int64) ([]traceStep, error) {
	env := make(map[string]int64, len(in)+len(p.Steps))
	for k, v := range in {
		env[k] = v
	}
	out := make([]traceStep, 0, len(p.Steps))
	for _, s := range p.Steps {
		v, err := evalExpr(s.Expr, env)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.Name, err)
		}
		text := s.Expr.String()
		out = append(out, traceStep{Name: s.Name, Expr: text, Subst: substitute(text, env), Value: v})
		env[s.Name] = v
	}
	return out, nil
}

// evalExpr evaluates e with C's integer semantics (as bitmath does).
func evalExpr(e *bitmath.Expr, env map[string]int64) (int64, error) {
	switch e.Op {
	case bitmath.OpConst:
		return e.Val, nil
	case bitmath.OpVar:
		v, ok := env[e.Name]
		if !ok {
			return 0, fmt.Errorf("unknown name %q", e.Name)
		}
		return v, nil
	}
	x, err := evalExpr(e.X, env)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case bitmath.OpNeg:
		return -x, nil
	case bitmath.OpNot:
		return ^x, nil
	}
	y, err := evalExpr(e.Y, env)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case bitmath.OpMul:
		return x * y, nil
	case bitmath.OpDiv, bitmath.OpMod:
		if y == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		if e.Op == bitmath.OpDiv {
			return x / y, nil
		}
		return x % y, nil
	case bitmath.OpAdd:
		return x + y, nil
	case bitmath.OpSub:
		return x - y, nil
	case bitmath.OpShl:
		if y < 0 || y > 63 {
			return 0, fmt.Errorf("shift by %d", y)
		}
		return x << y, nil
	case bitmath.OpShr:
		if y < 0 || y > 63 {
			return 0, fmt.Errorf("shift by %d", y)
		}
		return x >> y, nil
	case bitmath.OpAnd:
		return x & y, nil
	case bitmath.OpXor:
		return x ^ y, nil
	case bitmath.OpOr:
		return x | y, nil
	}
	return 0, fmt.Errorf("unknown operator %v", e.Op)
}

// substitute replaces every variable name in a printed expression by its
// value. Numbers (including hex masks such as 0x1F) are left alone.
func substitute(text string, env map[string]int64) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(text) && isIdent(text[j]) {
				j++
			}
			b.WriteString(text[i:j])
			i = j
		case isIdent(c):
			j := i
			for j < len(text) && isIdent(text[j]) {
				j++
			}
			if v, ok := env[text[i:j]]; ok {
				b.WriteString(strconv.FormatInt(v, 10))
			} else {
				b.WriteString(text[i:j])
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
