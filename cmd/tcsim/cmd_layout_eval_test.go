package main

import (
	"strings"
	"testing"
)

func TestLayoutEval(t *testing.T) {
	for _, c := range []struct {
		args    []string
		code    int
		out     string
		errPart string
	}{
		{[]string{"layout", "eval", "composition((4,2):(1,4), (2,2):(2,1))"}, 0, "(2,2):(2,1)\n", ""},
		{[]string{"layout", "eval", "complement((2,2):(1,6),", "24)"}, 0, "(3,2):(2,12)\n", ""},
		{[]string{"layout", "eval", "logical_divide((16,8):(1,16), (4,2))"}, 0, "((4,4),(2,4)):((1,4),(16,32))\n", ""},
		{[]string{"layout", "eval", "Sw<3,4,3> o 0 o (8,64):(64,1)"}, 0, "Sw<3,4,3> o 0 o (8,64):(64,1)\n", ""},
		{[]string{"layout", "eval", "size(((4,8,4),(2,2,32)):((128,1,16),(64,8,512)))"}, 0, "16384\n", ""},
		{[]string{"layout", "eval", "composition((4,2):(1,4) (2,2):(2,1))"}, 2, "",
			"col 25: expected ',' or ')', found '('\n  composition((4,2):(1,4) (2,2):(2,1))\n                          ^"},
		{[]string{"layout", "eval", "composition((4,3):(1,10), 5:1)"}, 1, "", "shape divisibility condition violated"},
		{[]string{"layout", "eval"}, 2, "", "missing EXPRESSION"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != c.code || out != c.out || !strings.Contains(errs, c.errPart) {
			t.Errorf("tcsim %q = %d %q %q; want %d %q ...%q...", c.args, code, out, errs, c.code, c.out, c.errPart)
		}
	}
}

func TestLayoutEvalHelpListsFunctions(t *testing.T) {
	code, out, _ := runCLI(t, "layout", "eval", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"composition", "complement", "right_inverse", "left_inverse", "logical_divide",
		"zipped_divide", "tiled_divide", "flat_divide", "logical_product", "blocked_product", "raked_product",
		"select", "group_modes", "make_layout_like", "coalesce", "filter", "size", "cosize", "crd2idx", "idx2crd"} {
		if !strings.Contains(out, "  "+f+"(") && !strings.Contains(out, "  "+f+"<") && !strings.Contains(out, "  "+f+"[") {
			t.Errorf("--help does not list %s", f)
		}
	}
}

// TestPastedCuTeCLI: the commands that read a layout accept pasted CuTe.
func TestPastedCuTeCLI(t *testing.T) {
	expectCLI(t, []string{"layout", "GMMA::Layout_K_SW128_Atom<bf16>", "--region", "0:2,0:4"}, 0,
		[]string{"smem.k.sw128.b16\n", "CuTe: GMMA::Layout_K_SW128_Atom<half_t>"}, nil, "")
	expectCLI(t, []string{"layout", "Layout<Shape<_4,_8>,Stride<_1,_4>>", "--no-legend"}, 0,
		[]string{"(4,8):(1,4)\n", "0  0  4  8 12 16 20 24 28"}, nil, "")
	expectCLI(t, []string{"bitmath", "Layout<Shape<Shape<_4,_8>,_4>,Stride<Stride<_8,_1>,_32>>", "--tile", "8x16"}, 0,
		[]string{"((4,8),4):((8,1),32): (tid, v) -> (row, col)"}, nil, "")
	expectCLI(t, []string{"layout", "Layout<Shape<_4,int>>"}, 2, nil, nil,
		"col 17: int is a dynamic integer")
	expectCLI(t, []string{"layout", "eval", "upcast<2>(GMMA::Layout_K_SW128_Atom<uint8_t>)"}, 0,
		[]string{"Sw<3,3,3> o 0 o (8,64):(64,1)\n"}, nil, "")
}
