package catalog

import (
	"strings"
	"testing"
)

func TestMMAOperands(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		a, b, c string
	}{
		{"mma.sync.m16n8k16", "mma.sync.m16k16.a.b16", "mma.sync.n8k16.b.b16", "mma.sync.m16n8.d.f32"},
		{"wgmma.m64n64.d.f32", "wgmma.m64k16.a.reg.b16", "", "wgmma.m64n64.d.f32"},
		{"wgmma.m64k16.a.reg.b16", "wgmma.m64k16.a.reg.b16", "", ""},
	} {
		a, b, c, err := MMAOperands(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		for _, x := range []struct{ got, want, op string }{{a.Name, tc.a, "A"}, {b.Name, tc.b, "B"}, {c.Name, tc.c, "C"}} {
			if x.want != "" && x.got != x.want {
				t.Errorf("%s: %s = %s, want %s", tc.spec, x.op, x.got, x.want)
			}
		}
		if OperandOf(a) != "A" || OperandOf(b) != "B" || OperandOf(c) != "C" {
			t.Errorf("%s: operands %s %s %s", tc.spec, a.Operand, b.Operand, c.Operand)
		}
		// The tiles fit: A is MxK, C is MxN, B is NxK or KxN.
		m, k, n := a.Rows, a.Cols, c.Cols
		if c.Rows != m || !(b.Rows == n && b.Cols == k || b.Rows == k && b.Cols == n) {
			t.Errorf("%s: tiles A %dx%d B %dx%d C %dx%d do not fit", tc.spec, a.Rows, a.Cols, b.Rows, b.Cols, c.Rows, c.Cols)
		}
	}
	for _, bad := range []string{"smem.k.sw128.b16", "nosuch.m1n1k1", "mma.sync.m3n3k3"} {
		_, _, _, err := MMAOperands(bad)
		if err == nil {
			t.Errorf("%s: no error", bad)
		} else if !strings.Contains(err.Error(), bad) && !strings.Contains(err.Error(), "m3n3k3") {
			t.Errorf("%s: error %q does not name the spec", bad, err)
		}
	}
}
