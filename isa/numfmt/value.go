package numfmt

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
)

// Class is the IEEE-style class of a value.
type Class uint8

// The classes. Integers and results of arithmetic are Zero or Normal.
const (
	Zero Class = iota
	Subnormal
	Normal
	Inf
	NaN
)

var classNames = [...]string{"zero", "subnormal", "normal", "inf", "nan"}

// String returns "zero", "subnormal", "normal", "inf" or "nan".
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Value is an exact number: for finite classes its magnitude is Sig·2^Exp;
// Neg is the sign (a negative zero has Neg set). For NaN, Sig holds the
// mantissa field (the payload) and Exp is unused. Any value of any format
// here fits: 64 bits of significand cover f64 and the 64-bit integers.
type Value struct {
	Class Class
	Neg   bool
	Sig   uint64
	Exp   int
}

// IsNaN reports whether v is a NaN.
func (v Value) IsNaN() bool { return v.Class == NaN }

// IsInf reports whether v is an infinity.
func (v Value) IsInf() bool { return v.Class == Inf }

// IsZero reports whether v is a zero of either sign.
func (v Value) IsZero() bool { return v.Class == Zero || (v.Class <= Normal && v.Sig == 0) }

// IsFinite reports whether v is neither infinite nor NaN.
func (v Value) IsFinite() bool { return v.Class <= Normal }

// Decode reads the bit pattern of one element of f (in its container, so
// tf32 takes the f32 pattern and uses bits 31..13). Bits outside the
// element are ignored.
func (f *Format) Decode(b uint64) Value {
	b = (b >> f.Shift) & lowMask(f.Bits)
	switch f.Kind {
	case IntKind, FixedKind:
		exp := 0
		if f.Kind == FixedKind {
			exp = -f.FracBits
		}
		if f.Signed && b&f.signBit() != 0 {
			mag := -b & lowMask(f.Bits)
			return Value{Class: Normal, Neg: true, Sig: mag, Exp: exp}
		}
		if b == 0 {
			return Value{Class: Zero, Exp: exp}
		}
		return Value{Class: Normal, Sig: b, Exp: exp}
	case BitKind:
		if b == 0 {
			return Value{Class: Zero}
		}
		return Value{Class: Normal, Sig: 1}
	}
	neg := f.Signed && b&f.signBit() != 0
	e := (b >> f.MantBits) & f.expMax()
	m := b & lowMask(f.MantBits)
	if f.NoSubnormal {
		if e == f.expMax() {
			return Value{Class: NaN, Neg: neg, Sig: m}
		}
		return Value{Class: Normal, Neg: neg, Sig: 1<<f.MantBits | m, Exp: int(e) - f.Bias - f.MantBits}
	}
	if e == f.expMax() {
		switch {
		case f.HasInf && m == 0:
			return Value{Class: Inf, Neg: neg}
		case f.NaN == IEEENaN:
			return Value{Class: NaN, Neg: neg, Sig: m}
		case f.NaN == AllOnesNaN && m == lowMask(f.MantBits):
			return Value{Class: NaN, Neg: neg, Sig: m}
		}
	}
	if e == 0 {
		if m == 0 {
			return Value{Class: Zero, Neg: neg}
		}
		return Value{Class: Subnormal, Neg: neg, Sig: m, Exp: 1 - f.Bias - f.MantBits}
	}
	return Value{Class: Normal, Neg: neg, Sig: 1<<f.MantBits | m, Exp: int(e) - f.Bias - f.MantBits}
}

// Classify returns the class of a bit pattern of f.
func (f *Format) Classify(b uint64) Class { return f.Decode(b).Class }

// Fields splits a float pattern into its sign, biased exponent and mantissa
// fields.
func (f *Format) Fields(b uint64) (sign, exp, mant uint64) {
	b = (b >> f.Shift) & lowMask(f.Bits)
	if f.Kind != FloatKind {
		return 0, 0, b
	}
	if f.Signed {
		sign = b >> (f.Bits - 1)
	}
	return sign, (b >> f.MantBits) & f.expMax(), b & lowMask(f.MantBits)
}

// FromFloat64 returns the exact value of x.
func FromFloat64(x float64) Value { return F64.Decode(math.Float64bits(x)) }

// FromFloat32 returns the exact value of x.
func FromFloat32(x float32) Value { return F32.Decode(uint64(math.Float32bits(x))) }

// FromInt returns the exact value of i.
func FromInt(i int64) Value { return S64.Decode(uint64(i)) }

// FromUint returns the exact value of u.
func FromUint(u uint64) Value { return U64.Decode(u) }

// norm returns the value with its significand shifted so that its lowest
// bit is set (a canonical form for comparisons).
func (v Value) norm() Value {
	if v.Class > Normal || v.Sig == 0 {
		return v
	}
	tz := bits.TrailingZeros64(v.Sig)
	v.Sig >>= tz
	v.Exp += tz
	return v
}

// Log2 returns the exponent of the leading bit of a finite nonzero value:
// 2^Log2 ≤ |v| < 2^(Log2+1).
func (v Value) Log2() int { return v.Exp + bits.Len64(v.Sig) - 1 }

// Cmp compares two non-NaN values numerically (-0 equals +0): -1, 0 or +1.
func Cmp(a, b Value) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := cmpMag(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

func (v Value) sign() int {
	if v.IsZero() {
		return 0
	}
	if v.Neg {
		return -1
	}
	return 1
}

// cmpMag compares magnitudes of non-NaN values.
func cmpMag(a, b Value) int {
	switch {
	case a.Class == Inf && b.Class == Inf:
		return 0
	case a.Class == Inf:
		return 1
	case b.Class == Inf:
		return -1
	}
	az, bz := a.IsZero(), b.IsZero()
	switch {
	case az && bz:
		return 0
	case az:
		return -1
	case bz:
		return 1
	}
	la, lb := a.Log2(), b.Log2()
	if la != lb {
		if la < lb {
			return -1
		}
		return 1
	}
	// Same leading exponent: align both significands to 64 bits.
	x := a.Sig << (64 - bits.Len64(a.Sig))
	y := b.Sig << (64 - bits.Len64(b.Sig))
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Rat returns the exact value of a finite v.
func (v Value) Rat() *big.Rat {
	r := new(big.Rat)
	if !v.IsFinite() || v.Sig == 0 {
		return r
	}
	n := new(big.Int).SetUint64(v.Sig)
	if v.Exp >= 0 {
		n.Lsh(n, uint(v.Exp))
		r.SetInt(n)
	} else {
		d := new(big.Int).Lsh(big.NewInt(1), uint(-v.Exp))
		r.SetFrac(n, d)
	}
	if v.Neg {
		r.Neg(r)
	}
	return r
}

// Float64 returns v as a float64, rounding to nearest even if v has more
// precision than a float64 (use Exact64 to know).
func (v Value) Float64() float64 {
	switch v.Class {
	case NaN:
		return math.NaN()
	case Inf:
		if v.Neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	b, _ := F64.Encode(v, RN, Opts{})
	return math.Float64frombits(b)
}

// Exact64 reports whether v is exactly a float64 (every value decoded from
// formats other than the 64-bit integers is).
func (v Value) Exact64() bool {
	if !v.IsFinite() {
		return true
	}
	b, info := F64.Encode(v, RN, Opts{})
	_ = b
	return !info.Inexact
}

// Decimal returns the exact decimal expansion of v ("-0", "448", "0.001953125",
// "inf", "nan"). Binary fractions always have finite decimal expansions.
func (v Value) Decimal() string {
	sign := v.signText("")
	if s, ok := v.special(sign); ok {
		return s
	}
	v = v.norm()
	n := new(big.Int).SetUint64(v.Sig)
	if v.Exp >= 0 {
		return sign + n.Lsh(n, uint(v.Exp)).String()
	}
	// Sig·2^Exp = Sig·5^k / 10^k with k = -Exp.
	k := -v.Exp
	n.Mul(n, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	s := n.String()
	if len(s) <= k {
		s = strings.Repeat("0", k-len(s)+1) + s
	}
	s = s[:len(s)-k] + "." + s[len(s)-k:]
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return sign + s
}

// String returns a short form: the decimal value if it has at most 20
// digits, otherwise a %g approximation followed by the exact binary form.
func (v Value) String() string {
	// A normalised finite value below 2^-24 has more than 24 decimals, one
	// of 2^80 or more more than 24 digits: skip computing the expansion,
	// whose cost grows with the exponent.
	long := v.IsFinite() && v.Sig != 0 && (v.norm().Exp < -24 || v.Log2() >= 80)
	if !long {
		if d := v.Decimal(); len(d) <= 24 || !v.IsFinite() {
			return d
		}
	}
	n := v.norm()
	return fmt.Sprintf("%s (= %s%d·2^%d)", v.Sci(17), v.signText("+"), n.Sig, n.Exp)
}

// Sci returns v in scientific notation with the given number of
// significant digits (rounded to nearest), for any exponent: "3.40282e+38",
// "-1e-1000000" (no float64 limits). NaN, infinities and zeros print as in
// Decimal.
func (v Value) Sci(digits int) string {
	if s, ok := v.special(v.signText("")); ok {
		return s
	}
	digits = min(max(digits, 1), 30)
	n := v.norm()
	f := new(big.Float).SetPrec(64).SetUint64(n.Sig)
	f.SetMantExp(f, n.Exp)
	sign := v.signText("")
	if e := v.Log2(); e > -1000 && e < 1000 {
		return sign + f.Text('g', digits)
	}
	// Far from 1, big.Float's decimal conversion costs time that grows with
	// the exponent: scale by a power of ten computed with 160-bit precision
	// instead (2^-150 of relative error, far below the digits shown).
	const prec = 160
	k := int(math.Floor(float64(v.Log2()) * math.Log10(2)))
	t := new(big.Float).SetPrec(prec).Set(f)
	p := pow10(abs(k), prec)
	if k >= 0 {
		t.Quo(t, p)
	} else {
		t.Mul(t, p)
	}
	for t.Cmp(big.NewFloat(10)) >= 0 {
		t.Quo(t, big.NewFloat(10))
		k++
	}
	for t.Cmp(big.NewFloat(1)) < 0 {
		t.Mul(t, big.NewFloat(10))
		k--
	}
	m := t.Text('f', digits-1)
	if strings.HasPrefix(m, "10") { // 9.99... rounded up
		m = "1" + m[2:]
		k++
	}
	if strings.Contains(m, ".") {
		m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
	}
	return fmt.Sprintf("%s%se%+03d", sign, m, k)
}

// pow10 is 10^k to prec bits, by repeated squaring.
func pow10(k, prec int) *big.Float {
	r := new(big.Float).SetPrec(uint(prec)).SetInt64(1)
	b := new(big.Float).SetPrec(uint(prec)).SetInt64(10)
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			r.Mul(r, b)
		}
		b.Mul(b, b)
	}
	return r
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// signText is "-" for a negative value, plus otherwise.
func (v Value) signText(plus string) string {
	if v.Neg {
		return "-"
	}
	return plus
}

// special is the text of a NaN, an infinity or a zero (sign, then "nan",
// "inf" or "0"); ok is false for any other value.
func (v Value) special(sign string) (s string, ok bool) {
	switch {
	case v.Class == NaN:
		return sign + "nan", true
	case v.Class == Inf:
		return sign + "inf", true
	case v.Sig == 0:
		return sign + "0", true
	}
	return "", false
}

// Binary returns the value as a binary scientific number, e.g.
// "+1.110×2^8" for 448, "-0.011×2^-6" for a subnormal given with the
// format's width of fraction bits (frac < 0 prints the significant bits only).
func (v Value) Binary(frac int) string {
	sign := v.signText("+")
	if s, ok := v.special(sign); ok {
		return s
	}
	e := v.Log2()
	digits := fmt.Sprintf("%b", v.Sig)
	f := digits[1:]
	if frac >= 0 {
		if len(f) < frac {
			f += strings.Repeat("0", frac-len(f))
		}
	} else {
		f = strings.TrimRight(f, "0")
	}
	if f == "" {
		return fmt.Sprintf("%s1×2^%d", sign, e)
	}
	return fmt.Sprintf("%s1.%s×2^%d", sign, f, e)
}
