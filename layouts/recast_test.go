package layouts

import "testing"

// TestRecastDerivations checks cases derived by hand from CuTe's
// definitions (layout.hpp upcast/downcast/recast_layout); the CuTe-computed
// answers for these and more are in testdata/cute_recast_oracle.txt.
func TestRecastDerivations(t *testing.T) {
	for _, c := range []struct {
		name, in string
		op       func(AnyLayout) (AnyLayout, error)
		want     string
	}{
		// upcast<2>, mode 4:1: 2 % 1 == 0, extent ceil(4/ceil(2/1)) = 2,
		// stride 1·ceil(1/2) = 1; mode 8:4: 4 % 2 == 0, extent
		// ceil(8/ceil(2/4)) = 8, stride ceil(4/2) = 2.
		{"16-bit col-major 4x8 as 32-bit", "(4,8):(1,4)", up(2), "(2,8):(1,2)"},
		// downcast<2>: the stride-1 mode doubles (2 -> 4), stride 2 -> 4.
		{"and back", "(2,8):(1,2)", down(2), "(4,8):(1,4)"},
		// K-major 8x64 16-bit tile as 64-bit words: 64:4 -> stride 16,
		// 64 elements of stride 1 -> 16 of stride 1.
		{"8x64 as 64-bit", "(8,64):(64,1)", up(4), "(8,16):(16,1)"},
		// A stride-0 mode is left alone; the 2:1 mode shrinks to 1:1.
		{"broadcast mode", "(4,2):(0,1)", up(2), "(4,1):(0,1)"},
		// Negative unit stride: extent ceil(8/2) = 4, stride -1·ceil(1/2).
		{"reversed", "8:-1", up(2), "4:-1"},
		// recast 16 -> 24 bits: 24/16 = 3/2, downcast<2>(upcast<3>(12:1)):
		// 12:1 -> 4:1 -> 8:1 (192 bits either way).
		{"16 to 24 bits", "12:1", recast(16, 24), "8:1"},
		// upcast<2> of Sw<3,4,3> o 8 o L: M 4 -> 3, offset 8/2 = 4, and L
		// upcast mode by mode.
		{"swizzled", "Sw<3,4,3> o 8 o (8,64):(64,1)", up(2), "Sw<3,3,3> o 4 o (8,32):(32,1)"},
		// upcast<32>: M = 4 - 5 < 0, so B = 3 + (4 - 5) = 2 and M = 0.
		{"swizzle shrinks", "Sw<3,4,3> o 0 o (8,64):(64,1)", up(32), "Sw<2,0,3> o 0 o (8,2):(2,1)"},
	} {
		a, err := ParseAnyLayout(c.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.op(a)
		if err != nil || got.String() != c.want {
			t.Errorf("%s: %s gives %v (%v), want %s", c.name, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		op   func(AnyLayout) (AnyLayout, error)
		cond string
	}{
		{"6:3", up(2), CondDivisibility}, // neither 3 % 2 nor 2 % 3 is 0
		{"8:-1", down(2), CondAdjacent},  // CuTe wants a stride-1 mode
		{"(4,8):(8,2)", down(2), CondAdjacent},
		{"Sw<3,4,3> o 3 o (8,64):(64,1)", up(2), CondDivisibility}, // offset 3 / 2
		{"Sw<3,4,3> o 0 o (8,64):(64,1)", up(3), CondPowerOfTwo},
		{"(1048576,4):(1,1099511627776)", recast(1<<40, 1), CondOverflow},
	} {
		a, err := ParseAnyLayout(c.in)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.op(a)
		ce, ok := err.(*ConditionError)
		if !ok || ce.Condition != c.cond {
			t.Errorf("%s: error %v, want condition %q", c.in, err, c.cond)
		}
	}
}

func up(n int) func(AnyLayout) (AnyLayout, error) {
	return func(a AnyLayout) (AnyLayout, error) { return UpcastAny(a, n) }
}

func down(n int) func(AnyLayout) (AnyLayout, error) {
	return func(a AnyLayout) (AnyLayout, error) { return DowncastAny(a, n) }
}

func recast(o, n int) func(AnyLayout) (AnyLayout, error) {
	return func(a AnyLayout) (AnyLayout, error) { return RecastAny(a, o, n) }
}
