package numfmt

import (
	"math/big"
	"testing"
)

// TestFarInputs audits every directed rounding mode on inputs far beyond
// every format, tiny and huge, of both signs: a tiny nonzero number is not
// an exact zero (it rounds away from zero under the directed mode that
// points away), and a huge one overflows by the mode's rules.
func TestFarInputs(t *testing.T) {
	for _, c := range []struct {
		lit  string
		zero bool // the literal is an exact zero
	}{
		{"1e-1000000000", false}, {"-1e-1000000000", false}, {"1e1000000000", false}, {"-1e1000000000", false},
		{"1e-400000", false}, {"-1e400000", false}, {"0x1p-99999999999", false}, {"0x1p+99999999999", false},
		{"3/1e1000000000", true}, // not a fraction syntax big.Rat reads: an error below
		{"0e-1000000000", true}, {"-0e99999999999", true}, {"0x0p-99999999999", true},
	} {
		v, exact, err := ParseNumber(c.lit)
		if c.lit == "3/1e1000000000" {
			if err == nil {
				t.Errorf("%s: no error", c.lit)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.lit, err)
			continue
		}
		if c.zero != v.IsZero() || c.zero != exact {
			t.Errorf("%s: zero %v exact %v", c.lit, v.IsZero(), exact)
		}
	}
	modes := []Mode{RN, RZ, RM, RP, RNA}
	for _, name := range []string{"f64", "f32", "tf32", "f16", "bf16", "e4m3", "e5m2", "e2m1", "e3m2"} {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range []string{"1e-1000000000", "-1e-1000000000", "1e1000000000", "-1e1000000000", "1e-400000", "-1e400000"} {
			v, _, err := ParseNumber(lit)
			if err != nil {
				t.Fatal(err)
			}
			neg, tiny := v.Neg, v.Log2() < 0
			sign := uint64(0)
			if neg {
				sign = f.signBit()
			}
			for _, m := range modes {
				var want uint64
				away := m == RP && !neg || m == RM && neg // directed away from zero
				switch {
				case tiny && away:
					want = (sign | 1) << f.Shift // the smallest subnormal
				case tiny:
					want = sign << f.Shift
				case !f.HasInf:
					// No infinity: NaN in every mode where the format has one
					// (e4m3 without .satfinite), else MAX_NORM.
					want = f.MaxFinite(neg)
					if b, ok := f.CanonicalNaN(); ok {
						want = b
					}
				case !(away || m == RN || m == RNA): // toward zero: the largest finite
					want = f.MaxFinite(neg)
				default:
					want, _ = f.Inf(neg)
				}
				got, info := f.Encode(v, m, Opts{})
				if got != want || !info.Inexact {
					t.Errorf("%s %s .%s: %#x (inexact %v), want %#x", name, lit, m, got, info.Inexact, want)
				}
				if !tiny {
					if b, _ := f.Encode(v, m, Opts{Satfinite: true}); b != f.MaxFinite(neg) {
						t.Errorf("%s %s .%s.satfinite: %#x, want MAX_NORM %#x", name, lit, m, b, f.MaxFinite(neg))
					}
				}
			}
		}
	}
}

// TestSci compares the scaled conversion that Sci uses far from 1 with
// big.Float's exact one, and checks values no float64 can hold.
func TestSci(t *testing.T) {
	for _, e := range []int{-5000, -3001, -1074, 1001, 2048, 4999} {
		for _, sig := range []uint64{1, 3, 0x1fffffffffffff, 12345678901234567} {
			v := Value{Class: Normal, Sig: sig, Exp: e}
			f := new(big.Float).SetPrec(64).SetUint64(sig)
			f.SetMantExp(f, e)
			if got, want := v.Sci(17), f.Text('g', 17); got != want {
				t.Errorf("%d·2^%d: Sci %s, big.Float %s", sig, e, got, want)
			}
		}
	}
	for lit, want := range map[string]string{"1e100000": "1e+100000", "-2.5e-300000": "-2.5e-300000", "1e-9999999": "1e-9999999"} {
		v, _, _ := ParseNumber(lit)
		if got := v.Sci(17); got != want {
			t.Errorf("%s: Sci %s, want %s", lit, got, want)
		}
	}
}
