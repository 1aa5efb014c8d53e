package bitmath

import (
	"errors"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// FuzzDerive derives the bitmath of arbitrary layouts, as 'tcsim bitmath
// LAYOUT [--index] [--tile RxC]' does: it must not panic, and when it
// succeeds the forward program must compute the map at every input, the
// inverse must lead back to an input with the same output, and every
// language must emit code.
func FuzzDerive(f *testing.F) {
	for _, s := range []string{"(8,8):(8,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)", "((4,8),(2,2)):((32,1),(16,8))",
		"(4,6):(1,5)", "(2,3):(3,1)", "((2,2),3):((1,6),2)", "Sw<1,0,1> o 1 o (4):(1)", "(16,4):(0,1)", "(3,3):(1,1)"} {
		f.Add(s, uint8(0), uint8(0), uint8(0))
		f.Add(s, uint8(1), uint8(0), uint8(0))
		f.Add(s, uint8(2), uint8(16), uint8(8))
	}
	f.Fuzz(func(t *testing.T, src string, mode, rows, cols uint8) {
		a, err := layouts.ParseAnyLayout(src)
		if err != nil {
			return
		}
		var m Map
		switch mode % 3 {
		case 0, 1:
			if m, err = FromLayout("l", a, mode%3 == 0); err != nil || m.Size() > 4096 {
				return
			}
		case 2:
			if a.Composed || a.L.Rank() != 2 {
				return
			}
			if m, err = FromTVLayout("l", a.L, int(rows)+1, int(cols)+1); err != nil || m.Size() > 4096 {
				return
			}
		}
		d, err := Derive(m)
		if err != nil {
			var nl *NonLinearError
			if errors.As(err, &nl) && nl.Error() == "" {
				t.Fatal("empty non-linearity message")
			}
			return
		}
		want := make([]int, len(m.Out))
		m.each(func(in []int) bool {
			m.F(in, want)
			args := make([]int64, len(in))
			for i, x := range in {
				args[i] = int64(x)
			}
			got, err := d.Forward.Eval(args...)
			if err != nil {
				t.Fatalf("%s: forward(%v): %v", src, in, err)
			}
			for i := range want {
				if got[i] != int64(want[i]) {
					t.Fatalf("%s: forward(%v) = %v, the map gives %v", src, in, got, want)
				}
			}
			back, err := d.Inverse.Eval(got...)
			if err != nil {
				t.Fatalf("%s: inverse(%v): %v", src, got, err)
			}
			again := make([]int, len(m.Out))
			bin := make([]int, len(back))
			for i, x := range back {
				if x < 0 || x >= int64(m.In[i].Extent) {
					t.Fatalf("%s: inverse(%v) = %v is outside the inputs", src, got, back)
				}
				bin[i] = int(x)
			}
			m.F(bin, again)
			for i := range want {
				if again[i] != want[i] {
					t.Fatalf("%s: inverse(forward(%v)) = %v, which maps to %v, not %v", src, in, back, again, want)
				}
			}
			return true
		})
		for _, lang := range Langs {
			for _, p := range []*Program{d.Forward, d.Inverse} {
				if code, err := Emit(p, lang); err != nil || code == "" {
					t.Fatalf("%s: emit %s: %v", src, lang, err)
				}
			}
		}
	})
}
