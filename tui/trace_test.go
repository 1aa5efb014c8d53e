package tui

import (
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
)

func TestSubstitute(t *testing.T) {
	env := map[string]int64{"wid": 1, "lane": 5, "v": 6, "x0": 9}
	for _, tc := range []struct{ in, want string }{
		{"(wid << 4) + (lane >> 2)", "(1 << 4) + (5 >> 2)"},
		{"lane & 0x1F", "5 & 0x1F"},      // hex constants stay
		{"x0 + 10", "9 + 10"},            // names with digits
		{"frag_row + v", "frag_row + 6"}, // unknown names stay
		{"~v", "~6"},
	} {
		if got := substitute(tc.in, env); got != tc.want {
			t.Errorf("substitute(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The side panel's traced formulas give the layout's own answer for every
// (tid, v) and every cell, forward and inverse, on atoms of every family.
func TestTraceMatchesLayout(t *testing.T) {
	for _, name := range []string{"wgmma.m64n64.d.f32", "mma.sync.m16k16.a.b16", "ldmatrix.m8n8.x4.trans.b16", "wgmma.m64k16.a.reg.b16", "tcgen05.32x32b.x2", "smem.k.sw128.b16", "tcgen05.tmem.m64n128.d.cta1"} {
		s, err := newSubject(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pm := s.mathOf(0)
		if pm.err != nil {
			t.Fatalf("%s: %v", name, pm.err)
		}
		a := s.atoms[0]
		in := make([]int, len(pm.m.In))
		out := make([]int, len(pm.m.Out))
		n := 0
		var rec func(k int)
		rec = func(k int) {
			if k == len(in) {
				env := map[string]int64{}
				for i, f := range pm.m.In {
					env[f.Name] = int64(in[i])
				}
				pm.m.F(in, out)
				steps, err := traceProgram(pm.d.Forward, env)
				if err != nil {
					t.Fatalf("%s at %v: %v", name, in, err)
				}
				got := values(steps)
				inv := map[string]int64{}
				for i, f := range pm.m.Out {
					if got[f.Name] != int64(out[i]) {
						t.Fatalf("%s at %v: traced %s = %d, the layout gives %d", name, in, f.Name, got[f.Name], out[i])
					}
					inv[f.Name] = int64(out[i])
				}
				// The inverse returns an input that maps to the same output.
				isteps, err := traceProgram(pm.d.Inverse, inv)
				if err != nil {
					t.Fatalf("%s inverse at %v: %v", name, out, err)
				}
				back := values(isteps)
				in2 := make([]int, len(in))
				for i, f := range pm.m.In {
					in2[i] = int(back[f.Name])
				}
				out2 := make([]int, len(out))
				pm.m.F(in2, out2)
				for i := range out {
					if out2[i] != out[i] {
						t.Fatalf("%s: inverse of %v gives %v, which maps to %v", name, out, in2, out2)
					}
				}
				n++
				return
			}
			for v := 0; v < pm.m.In[k].Extent; v++ {
				in[k] = v
				rec(k + 1)
			}
		}
		rec(0)
		if n == 0 || (a.Kind == catalog.KindTV && n != a.Threads()*a.Values()) {
			t.Errorf("%s: checked %d inputs", name, n)
		}
	}
}

func values(steps []traceStep) map[string]int64 {
	out := map[string]int64{}
	for _, s := range steps {
		out[s.Name] = s.Value
	}
	return out
}

func TestTraceStepText(t *testing.T) {
	steps, err := traceProgram(&bitmath.Program{Steps: []bitmath.Step{
		{Name: "wid", Expr: bitmath.Bin(bitmath.OpShr, bitmath.Var("tid"), bitmath.Const(5))},
		{Name: "k", Expr: bitmath.Const(7)},
		{Name: "row", Expr: bitmath.Bin(bitmath.OpAdd, bitmath.Bin(bitmath.OpShl, bitmath.Var("wid"), bitmath.Const(4)), bitmath.Var("k"))},
	}}, map[string]int64{"tid": 37})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.String())
	}
	want := "wid = tid >> 5 = 37 >> 5 = 1|k = 7|row = (wid << 4) + k = (1 << 4) + 7 = 23"
	if strings.Join(got, "|") != want {
		t.Errorf("trace:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if _, err := traceProgram(&bitmath.Program{Steps: []bitmath.Step{{Name: "x", Expr: bitmath.Bin(bitmath.OpDiv, bitmath.Var("a"), bitmath.Const(0))}}}, map[string]int64{"a": 1}); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
}
