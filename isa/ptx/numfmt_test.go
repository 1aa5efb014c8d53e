package ptx

import "testing"

// TestNumFormat checks that every type with a number format has the
// format of the same name and width, and that the types without one are
// the packed, untyped and opaque ones.
func TestNumFormat(t *testing.T) {
	n := 0
	for ty := Type(1); ty < numTypes; ty++ {
		f := ty.NumFormat()
		if f == nil {
			switch ty.Kind() {
			case KindFloat, KindSigned, KindUnsigned:
				if ty.Bits() <= 64 && ty != U2 && ty != S2 && !packed(ty) {
					t.Errorf("%s has no number format", ty)
				}
			}
			continue
		}
		n++
		if f.Name != ty.String() || (f.Bits != ty.Bits() && f.Container != ty.Bits()) {
			t.Errorf("%s: format %s of %d bits (container %d), type of %d bits", ty, f.Name, f.Bits, f.Container, ty.Bits())
		}
	}
	if n < 20 {
		t.Errorf("only %d types have a number format", n)
	}
}

func packed(t Type) bool {
	switch t {
	case F16x2, BF16x2, F32x2, U16x2, S16x2, E4M3x2, E5M2x2, E2M3x2, E3M2x2, E2M1x2,
		E4M3x4, E5M2x4, E2M3x4, E3M2x4, E2M1x4, UE8M0x2:
		return true
	}
	return false
}
