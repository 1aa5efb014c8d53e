package layouts

import (
	"errors"
	"strings"
	"testing"
)

// TestPastedCuTe reads CuTe C++ types, CuTe's printouts and CuTe DSL
// reprs, and checks that errors point at the right column.
func TestPastedCuTe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Layout<Shape<_4,_8>,Stride<_1,_4>>", "(4,8):(1,4)"},
		{"Layout<Shape<Int<4>,Int<8>>,Stride<Int<1>,Int<4>>>", "(4,8):(1,4)"},
		{"cute::Layout<cute::Shape<cute::_4, cute::_8>, cute::Stride<cute::_1, cute::_4>>", "(4,8):(1,4)"},
		{"Layout<Shape<Shape<_4,_8>,_2>,Stride<Stride<_8,_1>,_32>>", "((4,8),2):((8,1),32)"},
		{"cute::Layout<cute::tuple<cute::tuple<cute::C<32>, cute::C<4>>, cute::C<2>>, cute::tuple<cute::tuple<cute::C<1>, cute::C<32>>, cute::C<128>>>",
			"((32,4),2):((1,32),128)"},
		{"Layout<Shape<_4,_1,_2>>", "(4,1,2):(1,0,4)"}, // compact: extent-1 modes get stride 0
		{"Layout<Shape<_8>,Stride<_-1>>", "(8):(-1)"},
		{"Layout<Shape<integral_constant<int, 4>>, Stride<C<2>>>", "(4):(2)"},
		{"Layout<Shape<>,Stride<>>", "():()"},
		// The GMMA atoms: upcast<bits(T)> of CuTe's atoms over bits, with the
		// byte-address swizzle moved to element offsets.
		{"GMMA::Layout_K_SW128_Atom<bf16>", "Sw<3,3,3> o 0 o (8,64):(64,1)"},
		{"SM90::GMMA::Layout_MN_SW64_Atom<half_t>", "Sw<2,3,3> o 0 o (32,8):(1,32)"},
		{"cute::GMMA::Layout_K_SW32_Atom<cutlass::float_e4m3_t>", "Sw<1,4,3> o 0 o (8,32):(32,1)"},
		{"GMMA::Layout_K_INTER_Atom<float>", "(8,4):(4,1)"},
		{"GMMA::Layout_MN_SW128_Atom<tfloat32_t>", "Sw<3,2,3> o 0 o (32,8):(1,32)"},
		{"GMMA::Layout_K_SW128_Atom_Bits", "Sw<3,7,3> o 0 o (8,1024):(1024,1)"},
		{"ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_64>,Stride<_64,_1>>>", "Sw<3,3,3> o 0 o (8,64):(64,1)"},
		{"ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<4>, Layout<Shape<_8,_256>,Stride<_256,_1>>>", "Sw<3,5,3> o 0 o (8,256):(256,1)"},
		{"ComposedLayout<Swizzle<3,4,3>, _0, Layout<Shape<_8,_64>,Stride<_64,_1>>>", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
		{"ComposedLayout<Swizzle<2,4,3>, Int<8>, Layout<Shape<_8,_32>,Stride<_32,_1>>>", "Sw<2,4,3> o 8 o (8,32):(32,1)"},
		{"ComposedLayout<Swizzle<0,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_8>,Stride<_8,_1>>>", "(8,8):(8,1)"},
		// CuTe's print and the CuTe DSL's repr.
		{"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "Sw<3,3,3> o 0 o (8,64):(64,1)"},
		{"Sw<2,4,3> o smem_ptr[8b] o (_8,_32):(_32,_1)", "Sw<2,4,3> o 0 o (8,32):(32,1)"},
		{"S<3,4,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)"},
		{"((4,8),2):((8,1),32)", "((4,8),2):((8,1),32)"},
		// a value of the type, as C++ code writes it
		{"Layout<Shape<_4,_8>,Stride<_1,_4>>{}", "(4,8):(1,4)"},
		{"GMMA::Layout_K_SW128_Atom<bf16>{ }", "Sw<3,3,3> o 0 o (8,64):(64,1)"},
	} {
		a, err := ParseAnyLayout(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if a.String() != c.want {
			t.Errorf("%s: got %v, want %s", c.in, a, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		col  int
		want string
	}{
		{"Layout<Shape<_4,int>>", 17, "int is a dynamic integer"},
		{"Layout<Shape<_4,_8>,Stride<_1>>", 21, "stride (1) is not congruent with shape (4,8)"},
		{"Layout<Shape<_4,_8>,Stride<_1,_4>", 34, `expected ">", found end of input`},
		{"Layout<Shape<_4,_8>,Stride<_1,_4>>>", 35, "unexpected \">\" after the end"},
		{"Layout<Shape<_4,_8>,Stride<_1,_4>>{", 35, "unexpected \"{\" after the end"},
		// the CuTe DSL prints a dynamic value as ?
		{"(4,?):(1,4)", 4, "'?' is a dynamic value (how the CuTe DSL prints a shape or stride known only at run time)"},
		{"((8,?),2):((1,8),?)", 5, "'?' is a dynamic value"},
		{"GMMA::Layout_K_SW128_Atom<foo>", 27, `unknown element type "foo"`},
		{"GMMA::Layout_K_SW128_Atom", 26, `expected "<"`},
		{"Layout<Shape<_4,_8>,Stride<_1,Foo<4>>>", 31, `expected a static integer (_N, Int<N> or C<N>), found "Foo"`},
		{"ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<3>, Layout<Shape<_8>>>", 32, "must be a power of two"},
		{"ComposedLayout<Swizzle<3,0,3>, smem_ptr_flag_bits<64>, Layout<Shape<_8>>>", 32, "swizzles inside a 64-bit element"},
		{"ComposedLayout<Swizzle<3,4,3>, _0, ComposedLayout<Swizzle<1,4,3>, _0, Layout<_8>>>", 36, "inside a ComposedLayout"},
		{"Layout<Shape<_4,_-8>>", 1, "negative extent"},
		{"Shape<_4,_8>", 1, "Shape is not a layout type"},
		{"Layout<" + strings.Repeat("Shape<", 100) + "_1" + strings.Repeat(">", 100) + ">", 0, "nested deeper than"},
	} {
		_, err := ParseAnyLayout(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, c.want) || c.col > 0 && pe.Col != c.col {
			t.Errorf("%s: error %v, want col %d: %s", c.in, err, c.col, c.want)
		}
	}
}

func TestCuTeAtom(t *testing.T) {
	for _, c := range []struct {
		in, major, sw string
		bits          int
		ok            bool
	}{
		{"GMMA::Layout_K_SW128_Atom<bf16>", "K", "SW128", 16, true},
		{"SM90::GMMA::Layout_MN_INTER_Atom<cutlass::float_e4m3_t>", "MN", "INTER", 8, true},
		{"Layout_K_SW64_Atom_Bits", "K", "SW64", 1, true},
		{"GMMA::Layout_K_SW64_Atom<bf16> x", "", "", 0, false},
		{"Layout<Shape<_4>>", "", "", 0, false},
	} {
		m, s, b, ok := CuTeAtom(c.in)
		if m != c.major || s != c.sw || b != c.bits || ok != c.ok {
			t.Errorf("CuTeAtom(%q) = %s %s %d %v", c.in, m, s, b, ok)
		}
	}
}
