package bitmath

import (
	"errors"
	"strings"
	"testing"
)

func evalFormula(t *testing.T, src string, env map[string]int64) (map[string]int64, error) {
	t.Helper()
	steps, err := ParseFormula(src)
	if err != nil {
		return nil, err
	}
	var in []Field
	var names []string
	for n := range env {
		names = append(names, n)
	}
	for _, n := range names {
		in = append(in, Field{Name: n, Extent: 1})
	}
	p := &Program{Inputs: in, Steps: steps}
	if err := p.bind(nil); err != nil {
		return nil, err
	}
	e := make([]int64, len(p.slots))
	for i, n := range names {
		e[i] = env[n]
	}
	if err := p.run(e, nil); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for i, n := range p.slots {
		out[n] = e[i]
	}
	return out, nil
}

func TestFormulaSemantics(t *testing.T) {
	cases := []struct {
		src  string
		want int64
	}{
		{"x = 1 + 2 * 3", 7},
		{"x = (1 + 2) * 3", 9},
		{"x = 1 << 2 + 1", 8},    // C: + binds tighter than <<
		{"x = 5 | 2 ^ 3 & 1", 7}, // & then ^ then |
		{"x = -7 / 2", -3},       // truncation toward zero
		{"x = -7 % 2", -1},       // sign of the dividend
		{"x = ~0", -1},
		{"x = -(3)", -3},
		{"x = 0x1F & 0b101", 5},
		{"x = 1_000 + 24", 1024},
		{"x = 8u * 2UL", 16},
		{"x = -8 >> 1", -4},   // arithmetic shift
		{"x = 2 - 3 - 4", -5}, // left associative
		{"x = 64 / 4 / 2", 8},
		{"a = 3; x = a * a", 9},
		{"unsigned int a = 3\nx := a + 1 # comment", 4},
		{"x = 9223372036854775807 + 1", -9223372036854775808}, // wraps
	}
	for _, c := range cases {
		got, err := evalFormula(t, c.src, map[string]int64{"y": 0})
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got["x"] != c.want {
			t.Errorf("%q = %d, want %d", c.src, got["x"], c.want)
		}
	}
}

func TestFormulaErrors(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"row = (1 + 2", 1, 7, "unclosed"},
		{"row = 1 +", 1, 10, "expected a number"},
		{"row = 1 2", 1, 9, "expected ';'"},
		{"row = 4 / 0", 1, 9, "division by zero"},
		{"row = 4 % (0)", 1, 9, "division by zero"},
		{"row = 1 << 64", 1, 9, "shift count"},
		{"row = 1 // 2", 1, 9, "ambiguous"},
		{"row = 2 ** 3", 1, 9, "power"},
		{"row = a && b", 1, 9, "not supported"},
		{"row = f(1)", 1, 7, "function calls"},
		{"row = x[1]", 1, 8, "unexpected character"},
		{"row = 0x", 1, 7, "malformed number"},
		{"row = 12ab", 1, 9, "unexpected"},
		{"row = 99999999999999999999", 1, 7, "64 bits"},
		{"= 3", 1, 1, "expected a name"},
		{"row 3", 1, 5, "expected '='"},
		{"row = 1\ncol = $", 2, 7, "unexpected character"},
		{"", 1, 1, "empty formula"},
		{" ; ;\n", 1, 1, "empty formula"},
		{"row = é", 1, 7, "non-ASCII"},
		{"row = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), 1, 207, "nested deeper"},
		{"row = " + strings.Repeat("-", 300) + "1", 1, 207, "nested deeper"},
	}
	for _, c := range cases {
		_, err := ParseFormula(c.src)
		var fe *FormulaError
		if !errors.As(err, &fe) {
			t.Errorf("%q: want *FormulaError, got %v", c.src, err)
			continue
		}
		if fe.Line != c.line || fe.Col != c.col || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%q: line %d col %d %q; want line %d col %d ...%q...", c.src, fe.Line, fe.Col, fe.Msg, c.line, c.col, c.msg)
		}
		if !strings.Contains(fe.Caret(), "^") {
			t.Errorf("%q: caret %q", c.src, fe.Caret())
		}
	}
}

func TestFormulaEvalErrors(t *testing.T) {
	for _, src := range []string{"x = 4 / (y - y)", "x = 4 % y", "x = 1 << (y - 1)", "x = 1 >> (y + 64)"} {
		_, err := evalFormula(t, src, map[string]int64{"y": 0})
		var ee *EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%q: want *EvalError, got %v", src, err)
		}
	}
	if _, err := evalFormula(t, "x = z + 1", map[string]int64{"y": 0}); err == nil || !strings.Contains(err.Error(), `unknown name "z"`) {
		t.Errorf("unknown name: %v", err)
	}
}

// FuzzParseFormula: the parser never panics, and what it accepts prints
// (Expr.String) to text that parses back to the same values.
func FuzzParseFormula(f *testing.F) {
	for _, s := range []string{
		"row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)",
		"x = -7 / 2 % 3", "x = ~y ^ 0xFF | 0b1", "unsigned a = 1\nx := a - -a # c", "x = ((((y))))",
		"x = 1 << 63 >> 63", "x = y / (y - 1)", "x = 9223372036854775807 * 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		steps, err := ParseFormula(src)
		if err != nil {
			var fe *FormulaError
			if !errors.As(err, &fe) {
				t.Fatalf("error is %T, not *FormulaError: %v", err, err)
			}
			_ = fe.Caret()
			return
		}
		for _, s := range steps {
			text := "x = " + s.Expr.String()
			again, err := ParseFormula(text)
			if err != nil {
				t.Fatalf("%q printed as %q, which does not parse: %v", src, text, err)
			}
			// Every variable reads slot 0, which holds y.
			bindAll(s.Expr)
			bindAll(again[0].Expr)
			for _, y := range []int64{0, 1, -1, 7, 1 << 40} {
				env := []int64{y}
				a, errA := s.Expr.Eval(env)
				b, errB := again[0].Expr.Eval(env)
				if (errA == nil) != (errB == nil) || a != b {
					t.Fatalf("%q and its print %q differ at %d: %d,%v vs %d,%v", src, text, y, a, errA, b, errB)
				}
			}
		}
	})
}

// bindAll points every variable of e at environment slot 0.
func bindAll(e *Expr) { e.Vars(func(v *Expr) { v.Slot = 0 }) }
