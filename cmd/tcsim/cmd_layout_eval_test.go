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
