package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

func TestEval(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"composition((4,2):(1,4), (2,2):(2,1))", "(2,2):(2,1)"},
		{"complement((2,2):(1,6), 24)", "(3,2):(2,12)"},
		{"logical_divide((16,8):(1,16), (4,2))", "((4,4),(2,4)):((1,4),(16,32))"},
		{"logical_divide((16,8):(1,16), <4:1,2:1>)", "((4,4),(2,4)):((1,4),(16,32))"},
		{"logical_divide((16,8):(1,16), (4:1,2:1))", "((4,4),(2,4)):((1,4),(16,32))"},
		{"right_inverse((4,2):(2,1))", "(2,4):(4,1)"},
		{"left_inverse(4:2)", "(2,4):(0,1)"},
		{"(_4,_2):(_1,_4)", "(4,2):(1,4)"},
		{"(4,(2,3))", "(4,(2,3))"},
		{"make_layout((4,1,2))", "(4,1,2):(1,0,4)"},
		{"Sw<3,4,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
		{"Sw<3,4,3> o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
		{"Sw<0,4,3> o 0 o (8,64):(64,1)", "(8,64):(64,1)"},
		{"composition(Sw<3,4,3>, (8,64):(64,1))", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
		{"tiled_divide(Sw<3,4,3> o 0 o (8,64):(64,1), (4,8))", "Sw<3,4,3> o 0 o ((4,8),2,8):((64,1),256,8)"},
		{"size((4,2):(1,4))", "8"},
		{"size<1>(((4,8,4),(2,2,32)):((128,1,16),(64,8,512)))", "128"},
		{"cosize((4,2):(1,-4))", "8"},
		{"rank((4,(2,3)):(1,(4,8)))", "2"},
		{"depth(8)", "0"},
		{"shape<1>((4,(2,3)):(1,(4,8)))", "(2,3)"},
		{"stride((4,(2,3)):(1,(4,8)))", "(1,(4,8))"},
		{"crd2idx((1,(1,2)), (4,(2,3)):(1,(4,8)))", "21"},
		{"crd2idx(9, (4,2):(1,4))", "9"},
		{"idx2crd(9, (4,2))", "(1,2)"},
		{"idx2crd(9, (4,2), (1,4))", "(1,0)"},
		{"get<1,0>((4,(2,3)):(1,(4,8)))", "2:4"},
		{"mode((4,(2,3)):(1,(4,8)), 1)", "(2,3):(4,8)"},
		{"select<1,0>((4,2,3):(1,4,8))", "(2,4):(4,1)"},
		{"select((4,2,3):(1,4,8), 2)", "(3):(8)"},
		{"group<0,2>((4,2,3):(1,4,8))", "((4,2),3):((1,4),8)"},
		{"group_modes((4,2,3):(1,4,8), 1, 3)", "(4,(2,3)):(1,(4,8))"},
		{"make_layout_like((2,3,4):(0,2,1))", "(2,3,4):(0,4,1)"},
		{"make_layout(4:1, (2,3):(4,8))", "(4,(2,3)):(1,(4,8))"},
		{"coalesce((2,(1,6)):(1,(6,2)))", "12:1"},
		{"coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)"},
		{"filter((4,2,3):(1,0,4))", "12:1"},
		{"filter((4,2,3):(1,0,8))", "(4,3):(1,8)"},
		{"composition((12,(4,8)):(59,(13,1)), <3:4, 8:2>)", "(3,(2,4)):(236,(26,1))"},
		{"(4,2):(1,4) o (2,2):(2,1)", "(2,2):(2,1)"},
		{"blocked_product((2,5):(5,1), (3,4):(1,3))", "((2,3),(5,4)):((5,10),(1,30))"},
		{"tile_to_shape((2,5):(5,1), (6,20))", "((2,3),(5,4)):((5,10),(1,30))"},
		{"size(zipped_divide((64,256):(1,64), (8,16)))", "16384"},
		{"max_common_vector((4,8):(1,4), (32):(1))", "32"},
		{"flatten(((4,8),2):((1,4),32))", "(4,8,2):(1,4,32)"},
	} {
		v, err := Eval(c.src)
		if err != nil {
			t.Errorf("Eval(%q): %v", c.src, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("Eval(%q) = %s, want %s", c.src, got, c.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct {
		src   string
		col   int
		parse bool
		part  string
	}{
		{"composition((4,2):(1,4) (2,2):(2,1))", 25, true, "expected ','"},
		{"compositon((4,2):(1,4), 2)", 1, true, "unknown function"},
		{"composition((4,2):(1,4)", 12, true, "unclosed"},
		{"complement((2,2):(1,6), 24", 11, true, "unclosed"},
		{"", 1, true, "expected an expression"},
		{"(4,2):(1,(4,2))", 7, true, "not congruent"},
		{"size((4,2):(1,4)) x", 19, true, "unexpected"},
		{"composition((4,3):(1,10), 5:1)", 1, false, "shape divisibility condition"},
		{"composition((4,3):(1,10), 2:6)", 1, false, "stride divisibility condition"},
		{"size(composition((4,3):(1,10), 5:1))", 6, false, "shape divisibility"},
		{"complement((2,2):(1,1), 8)", 1, false, "injectiv"},
		{"left_inverse((2,2):(2,3))", 1, false, "left inverse divisibility"},
		{"composition((4,2):(1,4))", 1, false, "takes 2 to 3 argument"},
		{"logical_divide((4,2):(1,4), <2,2,2>)", 1, false, "more modes"},
		{"get<3>((4,2):(1,4))", 1, false, "out of range"},
		{"size<0>(4:1, 2)", 14, false, "takes one argument"},
		{"composition(4:1, Sw<3,4,3> o 8 o 8:1)", 1, false, "offset"},
		{"o 4:1", 1, true, "operand on its left"},
		{"Sw<3,4,2> o 8:1", 1, true, "|S| must be >= B"},
		// a CuTe DSL printout's dynamic value
		{"(4,?):(1,4)", 4, true, "'?' is a dynamic value (how the CuTe DSL prints a shape or stride known only at run time)"},
		{"size(?)", 6, true, "'?' is a dynamic value"},
	} {
		_, err := Eval(c.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Eval(%q): want *Error, got %v", c.src, err)
			continue
		}
		if e.Col != c.col || e.Parse != c.parse || !strings.Contains(e.Error(), c.part) {
			t.Errorf("Eval(%q): col %d parse %v %q; want col %d parse %v, containing %q", c.src, e.Col, e.Parse, e.Error(), c.col, c.parse, c.part)
		}
		if !strings.Contains(e.Caret(), "\n"+strings.Repeat(" ", c.col-1)+"^") {
			t.Errorf("Eval(%q): caret misplaced:\n%s", c.src, e.Caret())
		}
	}
	// The condition is reachable as a *layouts.ConditionError.
	_, err := Eval("composition((4,3):(1,10), 5:1)")
	var ce *layouts.ConditionError
	if !errors.As(err, &ce) || ce.Condition != layouts.CondShapeDivisibility {
		t.Errorf("want a ConditionError naming the shape divisibility condition, got %v", err)
	}
}

func TestFunctionHelp(t *testing.T) {
	h := FunctionHelp()
	for name := range functions {
		if !strings.Contains(h, "  "+name) {
			t.Errorf("FunctionHelp lacks %s", name)
		}
	}
}

func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"composition((4,2):(1,4), (2,2):(2,1))", "complement((2,2):(1,6), 24)",
		"logical_divide((16,8):(1,16), <4:1,2:1>)", "Sw<3,4,3> o 0 o (8,64):(64,1)",
		"right_inverse(((4,8,4),(2,2,32)):((128,1,16),(64,8,512)))", "get<0,1>((4,(2,3)):(1,(4,8)))",
		"tile_to_shape(Sw<3,4,3> o 0 o (8,64):(64,1), (64,256))", "idx2crd(-7, (4,(2,2)))",
		"blocked_product((1099511627776,2):(1099511627776,3), 7:1099511627776)", "((((", "<_,_>", "o o o",
		"composition(4:0, 0:4)", "complement(3:0, (0,0))", "size<0>(())", "raked_product((2,0):(0,2), ():())",
		"upcast<2>((4,8):(1,4))", "recast_layout<half_t, uint32_t>(Sw<3,3,3> o 0 o (8,64):(64,1))", "downcast(8:1, 4)",
		"tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>, Shape<_64,_64>)", "size(Layout<Shape<_4,_8>,Stride<_1,_4>>)",
		"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "recast<16,24>(12:1)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := Eval(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Eval(%q): error %T %v is not an *Error", src, err, err)
			}
			if e.Col < 1 || e.Col > len(src)+1 {
				t.Fatalf("Eval(%q): column %d outside the input", src, e.Col)
			}
			return
		}
		_ = v.String()
	})
}

func TestEvalNotes(t *testing.T) {
	v, notes, err := EvalNotes("composition((6,6):(6,1), (5,4):(1,5))")
	if err != nil || v.String() != "(5,(2,2)):(6,(30,1))" || len(notes) != 1 || !strings.Contains(notes[0], "at i=6 it gives 36, A(B(6)) = 1") {
		t.Errorf("got %v %q %v", v, notes, err)
	}
	if _, notes, _ := EvalNotes("composition((6,2):(8,2), (4,3):(3,1))"); len(notes) != 0 {
		t.Errorf("unexpected notes %q", notes)
	}
}

func TestShapeAsLayout(t *testing.T) {
	for src, want := range map[string]string{
		"logical_divide((16,8), (4,2))":   "((4,4),(2,4)):((1,4),(16,32))",
		"coalesce((4,(1,2)))":             "8",
		"coalesce((4,(1,2)):(1,(0,4)))":   "8:1",
		"blocked_product((2,2), (3,1))":   "((2,3),(2,1)):((1,4),(2,0))",
		"composition((4,2):(1,4), (2,2))": "(2,2):(1,4)",
	} {
		v, err := Eval(src)
		if err != nil || v.String() != want {
			t.Errorf("%s = %v (%v), want %s", src, v, err, want)
		}
	}
}

// TestEvalLimits covers the results that must be errors rather than wrapped
// numbers or layouts tcsim rejects as input, and the new operations.
func TestEvalLimits(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"size((1048576,1048576,1048576,1048576))", "col 1: size: integer range (|v| < 2^62) violated: 1152921504606846976*1048576 overflows"},
		{"size((1048576,1048576,1048576,1048576):(1,1,1,1))", "integer range"},
		{"cosize((1099511627776,1099511627776,4):(1099511627776,1,1))", "col 1: cosize: integer range"},
		{"crd2idx((1099511627775,5), (1099511627776,8):(1099511627776,1))", "col 1: crd2idx: integer range"},
		{"crd2idx((1,2), (1099511627776,1099511627776,1099511627776))", "col 1: crd2idx: integer range"},
		{"coalesce((1099511627776,1099511627776))", "col 1: coalesce: integer range"},
		{"complement((2,2):(1,6), -24)", "col 1: complement: non-negative strides and cotarget violated: the cotarget -24 is negative"},
		{"logical_divide(1:1, 1024:-1)", "col 1: logical_divide: non-negative strides and cotarget violated: stride -1 of 1024:-1 is negative"},
		{"right_inverse(Sw<3,4,3> o (8,64):(64,1))", "maps those bit groups to 0b1110 and 0b110000001, which are not two runs of 3 adjacent bits"},
		{"upcast<2>(6:3)", "col 1: upcast: divisibility condition violated: stride 3 and N = 2 do not divide one another"},
		{"downcast<2>(8:-1)", "col 1: downcast: adjacent elements (a stride-1 mode) violated"},
		{"recast<foo,int>(4:1)", `col 8: unknown element type "foo"`},
		{"size<half_t>(4:1)", "col 1: size takes no element types"},
		{"upcast(4:1)", "needs one factor N"},
		{"recast<8>(4:1)", "needs the old and the new element width"},
	} {
		_, err := Eval(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"crd2idx((1099511627775,3), (1099511627776,4):(1,1099511627776))", "4398046511103"},
		{"upcast<2>((4,8):(1,4))", "(2,8):(1,2)"},
		{"recast_layout<cutlass::half_t, float>((4,8):(1,4))", "(2,8):(1,2)"},
		{"recast(12:1, 16, 24)", "8:1"},
		{"downcast(Sw<3,3,3> o 0 o (8,64):(64,1), 2)", "Sw<3,4,3> o 0 o (8,128):(128,1)"},
		{"tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, Shape<_64,_64>)", "Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))"},
		{"size(Shape<_4,_8>)", "32"},
		{"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "Sw<3,3,3> o 0 o (8,64):(64,1)"},
		{"S<3,4,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
	} {
		v, err := Eval(c.src)
		if err != nil || v.String() != c.want {
			t.Errorf("%s = %v (%v), want %s", c.src, v, err, c.want)
		}
	}
	if v, notes, err := EvalNotes("left_inverse(5:-1)"); err != nil || v.String() != "(-1,5):(0,1)" || len(notes) != 1 || !strings.Contains(notes[0], "negative extent -1") {
		t.Errorf("left_inverse(5:-1) = %v %q %v", v, notes, err)
	}
}
