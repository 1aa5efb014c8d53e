package numfmt

import (
	"errors"
	"strings"
	"testing"
)

// TestParseNumberFar: numbers far beyond every format parse quickly (the
// exact path would build 33-million-bit integers) into a sticky 62-bit
// approximation that rounds as the number does.
func TestParseNumberFar(t *testing.T) {
	for _, c := range []struct {
		s         string
		log2      int
		neg       bool
		rnF32     uint64 // .rn into f32
		rpF32     uint64 // .rp into f32
		exactHere bool
	}{
		{"1e-9999999", -33219278, false, 0, 1, false},
		{"-1e-9999999", -33219278, true, 0x80000000, 0x80000000, false},
		{"1e9999999", 33219277, false, 0x7f800000, 0x7f800000, false},
		{"0x1p-20000", -20000, false, 0, 1, false},
		{"0x1p-16384", -16384, false, 0, 1, true},
		{"0x1.8p16384", 16384, false, 0x7f800000, 0x7f800000, true},
		{"0x1p16385", 16385, false, 0x7f800000, 0x7f800000, false},
		{"0x1.fffffffffffffp-16385", -16385, false, 0, 1, false},
	} {
		v, exact, err := ParseNumber(c.s)
		if err != nil {
			t.Fatalf("%s: %v", c.s, err)
		}
		if exact != c.exactHere || v.Neg != c.neg || v.Log2() != c.log2 {
			t.Errorf("%s: exact %v, neg %v, log2 %d; want %v %v %d", c.s, exact, v.Neg, v.Log2(), c.exactHere, c.neg, c.log2)
		}
		if b, _ := F32.Encode(v, RN, Opts{}); b != c.rnF32 {
			t.Errorf("%s .rn f32 = %#x, want %#x", c.s, b, c.rnF32)
		}
		if b, _ := F32.Encode(v, RP, Opts{}); b != c.rpF32 {
			t.Errorf("%s .rp f32 = %#x, want %#x", c.s, b, c.rpF32)
		}
		if s := v.String(); len(s) > 80 {
			t.Errorf("%s: String() is %d characters long", c.s, len(s))
		}
	}
}

// TestNameHints: misspelt formats, modes and cvt modifiers get the nearest
// name; a spec that does not parse is marked Syntax, an illegal form not.
func TestNameHints(t *testing.T) {
	if _, err := Lookup("e4m4"); err == nil || !strings.HasSuffix(err.Error(), "; did you mean e4m3?") {
		t.Errorf("Lookup(e4m4): %v", err)
	}
	if _, err := ParseMode("rzz"); err == nil || !strings.Contains(err.Error(), "; did you mean rz or rzi?") {
		t.Errorf("ParseMode(rzz): %v", err)
	}
	_, err := ParseSpec("cvt.rn.satfinte.e4m3x2.f32")
	var se *SpecError
	if !errors.As(err, &se) || !se.Syntax || !strings.Contains(err.Error(), "(did you mean .satfinite?)") {
		t.Errorf("misspelt modifier: %#v", err)
	}
	if _, err := ParseSpec("cvt.rm.relu.f16.f32"); !errors.As(err, &se) || se.Syntax {
		t.Errorf("illegal form: %#v", err)
	}
}
