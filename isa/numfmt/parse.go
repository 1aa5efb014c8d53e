package numfmt

import (
	"fmt"
	"math/big"
	"strings"
)

// ExactRange bounds the magnitudes ParseNumber reads exactly: numbers
// whose binary exponent (Value.Log2) lies in [-ExactRange, ExactRange],
// that is magnitudes in [2^-ExactRange, 2^(ExactRange+1)). Every format
// of this package overflows or underflows long before (f64 spans 2^-1074
// to 2^1024).
const ExactRange = 1 << 14

// ParseNumber parses a number: a decimal ("3.3", "-0", "1e-3"), a fraction
// ("1/3"), a hexadecimal float ("0x1.8p3"), "inf" or "nan" (with a sign).
// When the number is a binary fraction with at most 64 significant bits
// and its binary exponent is within ±ExactRange the Value is exact.
// Otherwise it is the number truncated to 62 significant bits with the
// lowest bit set as a sticky bit, exact is false, and rounding it to any
// format of this package (53 bits at most) still gives the correctly
// rounded result of the original number. (Beyond ±ExactRange the 62 bits
// come from a 128-bit approximation: exact arithmetic there costs time
// that grows with the exponent, and every format rounds such numbers
// alike.)
func ParseNumber(s string) (v Value, exact bool, err error) {
	t := strings.TrimSpace(strings.ToLower(s))
	neg := false
	if strings.HasPrefix(t, "-") {
		neg, t = true, t[1:]
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	switch t {
	case "inf", "infinity":
		return Value{Class: Inf, Neg: neg}, true, nil
	case "nan":
		return Value{Class: NaN, Neg: neg, Sig: 1}, true, nil
	}
	if t == "" || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		return Value{}, false, fmt.Errorf("bad number %q", s)
	}
	if f, _, err := big.ParseFloat(t, 0, 128, big.ToZero); err == nil && !f.IsInf() && f.Sign() != 0 {
		if e := f.MantExp(nil) - 1; e > ExactRange || e < -ExactRange { // |f| = 1.x·2^e
			v := fromFarFloat(f)
			v.Neg = neg
			return v, false, nil
		}
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		f, _, ferr := big.ParseFloat(t, 0, 4096, big.ToZero)
		switch {
		case ferr == nil && !f.IsInf():
			r, _ = f.Rat(nil)
		case !strings.Contains(t, "/") && nonzeroLiteral(t) && hugeExponent(t):
			// Beyond big.Float's exponent range (|exponent| > 2^31).
			v := farValue(exponentSign(t) > 0)
			v.Neg = neg
			return v, false, nil
		default:
			return Value{}, false, fmt.Errorf("bad number %q (want a decimal like 3.3, a fraction like 1/3, or a hex float like 0x1.8p3)", s)
		}
	}
	v, exact = FromRat(r)
	if v.IsZero() && nonzeroLiteral(t) {
		// A literal like 1e-1000000000 that underflowed while parsing: it is
		// not zero, but far below every format's smallest subnormal.
		v, exact = farValue(false), false
	}
	v.Neg = neg
	return v, exact, nil
}

// FarExp places the stand-ins for numbers beyond big.Float's range (or
// that underflow to zero while parsing) far outside every format: their
// binary exponent (Log2) is FarExp-1 or -FarExp-1.
const FarExp = 4 * ExactRange

const farExp = FarExp

// farValue stands for a magnitude beyond ±ExactRange that only its side
// matters for: 1.5·2^(±farExp), with a sticky bit, so every format and
// rounding mode rounds it as it would round the true number.
func farValue(huge bool) Value {
	e := -farExp - 62
	if huge {
		e = farExp - 62
	}
	return Value{Class: Normal, Sig: 3<<60 | 1, Exp: e}
}

// nonzeroLiteral reports whether a decimal or hexadecimal literal (sign
// removed) has a nonzero digit in its significand.
func nonzeroLiteral(t string) bool {
	digits := "123456789"
	if strings.HasPrefix(t, "0x") {
		t, digits = t[2:], "123456789abcdef"
		if i := strings.IndexByte(t, 'p'); i >= 0 {
			t = t[:i]
		}
	} else if i := strings.IndexAny(t, "e/"); i >= 0 {
		if t[i] == '/' {
			return strings.ContainsAny(t[:i], digits) // n/d: a zero numerator is zero
		}
		t = t[:i]
	}
	return strings.ContainsAny(t, digits)
}

// exponentSign is the sign of a literal's decimal or binary exponent.
func exponentSign(t string) int {
	i := strings.LastIndexAny(t, "ep")
	if i < 0 || strings.HasPrefix(t, "0x") && t[i] == 'e' {
		return 0
	}
	if strings.HasPrefix(t[i+1:], "-") {
		return -1
	}
	return 1
}

// hugeExponent reports whether a literal's exponent has more than 9 digits.
func hugeExponent(t string) bool {
	i := strings.LastIndexAny(t, "ep")
	if i < 0 {
		return false
	}
	e := strings.TrimLeft(t[i+1:], "+-")
	e = strings.TrimLeft(e, "0")
	if len(e) == 0 {
		return false
	}
	for _, c := range e {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(e) > 9
}

// fromFarFloat converts a non-zero finite positive f to a Value of 62
// significant bits (truncated) with the sticky bit set.
func fromFarFloat(f *big.Float) Value {
	m := new(big.Float)
	e := f.MantExp(m) // f = m·2^e, 0.5 <= m < 1
	m.SetMantExp(m, 62)
	i, _ := m.Int(nil)
	return Value{Class: Normal, Sig: i.Uint64() | 1, Exp: e - 62}
}

// FromRat converts a rational to a Value: exactly when it is a binary
// fraction of at most 64 significant bits, otherwise truncated to 62 bits
// with a sticky lowest bit (exact=false).
func FromRat(r *big.Rat) (Value, bool) {
	if r.Sign() == 0 {
		return Value{Class: Zero}, true
	}
	neg := r.Sign() < 0
	num := new(big.Int).Abs(r.Num())
	den := new(big.Int).Set(r.Denom())
	// Exact when den is a power of two and num fits.
	if den.BitLen()-1 == int(den.TrailingZeroBits()) {
		tz := num.TrailingZeroBits()
		n := new(big.Int).Rsh(num, tz)
		if n.BitLen() <= 64 {
			return Value{Class: Normal, Neg: neg, Sig: n.Uint64(), Exp: int(tz) - (den.BitLen() - 1)}, true
		}
	}
	// Scale so that the quotient has 62 bits: q = floor(num·2^k / den).
	k := 62 - (num.BitLen() - den.BitLen())
	a, b := new(big.Int).Set(num), new(big.Int).Set(den)
	if k >= 0 {
		a.Lsh(a, uint(k))
	} else {
		b.Lsh(b, uint(-k))
	}
	q, rem := new(big.Int).QuoRem(a, b, new(big.Int))
	for q.BitLen() > 62 {
		rem.Add(rem, new(big.Int).Mul(new(big.Int).And(q, big.NewInt(1)), b))
		q.Rsh(q, 1)
		k--
	}
	sig := q.Uint64()
	exact := rem.Sign() == 0
	if !exact {
		sig |= 1
	}
	return Value{Class: Normal, Neg: neg, Sig: sig, Exp: -k}, exact
}
