package layouts

import (
	"errors"
	"testing"
)

func FuzzParseAnyLayout(f *testing.F) {
	for _, s := range []string{
		"8:1", "(4,2):(1,4)", "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))", "Sw<3,4,3> o 0 o (8,64):(64,1)",
		"Sw<2,4,3> o (8,32):(32,1)", "(_4,_8):(_1,_4)", "(4,(2,3))", "():()", "((((", "Sw<3,4,2> o 8:1",
		"(1099511627776,2):(1,-1099511627776)", "Swizzle<1,2,3> o -5 o 4:1",
		"Layout<Shape<_4,_8>,Stride<_1,_4>>", "cute::Layout<cute::tuple<cute::C<4>, int>>", "GMMA::Layout_K_SW128_Atom<bf16>",
		"ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_64>,Stride<_64,_1>>>",
		"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "S<3,4,3> o 0 o (8,64):(64,1)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		a, err := ParseAnyLayout(src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Col < 1 || pe.Col > len(src)+1 {
				t.Fatalf("ParseAnyLayout(%q): %v is not a ParseError inside the input", src, err)
			}
			return
		}
		// What parses prints back to something that parses to the same.
		b, err := ParseAnyLayout(a.String())
		if err != nil || b.String() != a.String() {
			t.Fatalf("round trip of %q: %v -> %v (%v)", src, a, b, err)
		}
		// The algebra never panics on a parsed layout.
		l := a.Inner()
		_, _ = Coalesce(l)
		_, _ = Filter(l)
		_, _ = RightInverse(l)
		_, _ = LeftInverse(l)
		_, _ = ComplementCosize(l)
		_, _ = Composition(l, l)
		_, _ = LogicalDivide(l, LayoutTiler(l))
		_, _ = ZippedDivide(l, ShapeTiler(l.Shape))
		_, _ = LogicalProduct(l, LayoutTiler(l))
		_, _ = BlockedProduct(l, l)
		_, _ = RakedProduct(l, l)
		_, _ = MakeLayoutLike(l)
		_, _ = TileToShape(l, l.Shape)
		_, _ = RightInverseAny(a)
	})
}
