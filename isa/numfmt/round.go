package numfmt

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Mode is a PTX rounding modifier.
type Mode uint8

// The rounding modes. The integer modes (RNI...) round to an integral value;
// the others round to the destination's precision.
const (
	NoRound Mode = iota // no modifier: the conversion must be exact (Encode uses RN)
	RN                  // .rn  nearest, ties to even
	RZ                  // .rz  toward zero
	RM                  // .rm  toward -inf
	RP                  // .rp  toward +inf
	RNA                 // .rna nearest, ties away from zero
	RS                  // .rs  stochastic, from supplied random bits
	RNI                 // .rni nearest integer, ties to even
	RZI                 // .rzi integer toward zero
	RMI                 // .rmi integer toward -inf
	RPI                 // .rpi integer toward +inf
)

var modeNames = [...]string{"", "rn", "rz", "rm", "rp", "rna", "rs", "rni", "rzi", "rmi", "rpi"}

// String returns the modifier without its dot ("rn"), or "" for NoRound.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "rn", ".rn", "rni" and so on.
func ParseMode(s string) (Mode, error) {
	s = strings.TrimPrefix(strings.ToLower(s), ".")
	for i, n := range modeNames {
		if i > 0 && n == s {
			return Mode(i), nil
		}
	}
	return NoRound, fmt.Errorf("unknown rounding mode %q (want rn, rz, rm, rp, rna, rs, rni, rzi, rmi or rpi)%s", s, suggest.HintSuffix(s, modeNames[1:]))
}

// IsInteger reports whether m rounds to an integral value.
func (m Mode) IsInteger() bool { return m >= RNI }

// base maps integer modes to their direction.
func (m Mode) base() Mode {
	switch m {
	case RNI:
		return RN
	case RZI:
		return RZ
	case RMI:
		return RM
	case RPI:
		return RP
	case NoRound:
		return RN
	}
	return m
}

// Opts are the result modifiers of a conversion.
type Opts struct {
	Satfinite bool // overflow and ±inf become ±MAX_NORM
	Relu      bool // negative results (and -0) become +0; NaN stays NaN
	Sat       bool // clamp to [0, 1]; NaN becomes +0 (float .sat)
	FTZ       bool // subnormal results become sign-preserving zero
	// Random holds RandomBits random bits for RS rounding: the result is
	// rounded away from zero when the discarded bits, aligned to the top of
	// a RandomBits-wide field, plus Random carry out of that field.
	Random     uint64
	RandomBits int
}

// Info explains one rounding step. Down and Up are the two representable
// magnitudes that bracket the exact magnitude (equal when it is exact),
// before overflow handling.
type Info struct {
	Inexact   bool // the result differs from the exact value
	Tie       bool // the exact value was halfway between Down and Up
	RoundedUp bool // the larger magnitude was chosen
	Overflow  bool // the rounded magnitude exceeded MAX_NORM (or the integer range)
	Tiny      bool // the result is subnormal or zero while the input was not zero
	Saturated bool // .satfinite, .sat, .relu or integer saturation changed the result
	Flushed   bool // .ftz flushed a subnormal result to zero
	Down, Up  Value

	note    string // a fixed explanation, or a suffix to the rounding one
	rounded bool   // the explanation starts with the rounding step
	mode    Mode
}

// Why says in one line why the result was chosen.
func (i Info) Why() string {
	if i.rounded {
		return roundWhy(i.mode, i) + i.note
	}
	return i.note
}

// decide says whether to round the magnitude up.
func decide(m Mode, neg, odd, inexact, tie, above bool) bool {
	switch m.base() {
	case RN:
		return above || (tie && odd)
	case RNA:
		return above || tie
	case RZ:
		return false
	case RM:
		return inexact && neg
	case RP:
		return inexact && !neg
	}
	return false
}

// shiftRound divides sig by 2^shift (shift ≥ 1) and rounds under m.
func shiftRound(sig uint64, shift int, neg bool, m Mode, o Opts) (r uint64, inexact, tie, up bool) {
	var rem, half uint64
	switch {
	case shift >= 65:
		r, rem, half = 0, sig, 0 // half = 2^(shift-1) > any uint64
	case shift == 64:
		r, rem, half = 0, sig, 1<<63
	default:
		r, rem, half = sig>>shift, sig&(1<<shift-1), 1<<(shift-1)
	}
	inexact = rem != 0
	var above bool
	if half == 0 {
		above = false
	} else {
		tie = rem == half
		above = rem > half
	}
	if m == RS {
		up = inexact && stochasticUp(sig, shift, o)
	} else {
		up = decide(m, neg, r&1 == 1, inexact, tie, above)
	}
	if up {
		r++
	}
	return
}

// stochasticUp adds the random bits to the discarded bits (aligned to the
// top of an RandomBits-wide field) and reports the carry out.
func stochasticUp(sig uint64, shift int, o Opts) bool {
	n := o.RandomBits
	if n <= 0 || n > 32 {
		return false
	}
	var top uint64
	if shift >= n {
		if s := shift - n; s < 64 {
			top = (sig >> s) & lowMask(n)
		}
	} else {
		top = (sig & lowMask(shift)) << (n - shift)
	}
	return top+(o.Random&lowMask(n)) >= 1<<n
}

// Encode rounds the exact value v into f under mode m and the modifiers in
// o, and returns the bit pattern (in f's container) with an explanation.
// NaN inputs give f's canonical NaN (formats without NaN give +MAX_NORM, as
// .satfinite specifies); the cvt layer applies the per-instruction NaN rules
// before it calls Encode. Integer formats saturate to their range (PTX
// float-to-int conversions clamp by default).
func (f *Format) Encode(v Value, m Mode, o Opts) (uint64, Info) {
	switch f.Kind {
	case IntKind, BitKind:
		return f.encodeInt(v, m, o)
	case FixedKind:
		return f.encodeFixed(v, m, o)
	}
	if b, info, done := f.encodeSpecial(v, m, o); done {
		return b, info
	}
	return f.encodeFinite(v, m, o)
}

// encodeSpecial handles the inputs whose result needs no rounding: NaN,
// .relu and .sat clamps, negative values in unsigned formats, infinities
// and zeros. done is false for every other input.
func (f *Format) encodeSpecial(v Value, m Mode, o Opts) (b uint64, info Info, done bool) {
	if v.Class == NaN {
		if b, ok := f.CanonicalNaN(); ok {
			info.note = "NaN input gives the canonical NaN"
			return b, info, true
		}
		info.Saturated = true
		info.note = "NaN input: the format has no NaN, so the result is +MAX_NORM"
		return f.MaxFinite(false), info, true
	}
	neg := v.Neg
	if o.Relu && neg {
		info.Saturated = !v.IsZero()
		info.note = ".relu: negative input gives +0"
		return 0, info, true
	}
	if o.Sat {
		if neg {
			info.Saturated = !v.IsZero()
			info.note = ".sat: clamped to 0"
			return 0, info, true
		}
		if one := FromInt(1); Cmp(v, one) > 0 {
			b, _ := f.Encode(one, m, Opts{})
			info.Saturated, info.Inexact = true, true
			info.note = ".sat: clamped to 1"
			return b, info, true
		}
	}
	if neg && !f.Signed && !v.IsZero() {
		info.Saturated, info.Inexact = true, true
		if f.NoSubnormal {
			info.note = "negative input: the unsigned format's smallest code"
		} else {
			info.note = "negative input: the unsigned format's zero"
		}
		return 0, info, true
	}
	if !f.Signed {
		neg = false
	}
	sign := uint64(0)
	if neg {
		sign = f.signBit()
	}
	if v.Class == Inf {
		info.Overflow = true
		switch {
		case o.Satfinite:
			info.Saturated = true
			info.note = ".satfinite: infinity becomes MAX_NORM"
			return f.MaxFinite(neg), info, true
		case f.HasInf:
			info.note = "infinity is exact"
			b, _ := f.Inf(neg)
			return b, info, true
		}
		info.note = "infinity: the format has no infinity, so the result is NaN"
		b, ok := f.CanonicalNaN()
		if !ok {
			info.Saturated = true
			return f.MaxFinite(neg), info, true
		}
		return b, info, true
	}
	if v.IsZero() {
		if f.NoSubnormal {
			info.Saturated, info.Inexact = true, true
			info.note = "zero: the format has no zero, so the result is its smallest code"
			return 0, info, true
		}
		info.note = "zero is exact"
		return sign << f.Shift, info, true
	}
	return 0, info, false
}

// encodeFinite rounds a finite nonzero v into f.
func (f *Format) encodeFinite(v Value, m Mode, o Opts) (uint64, Info) {
	var info Info
	neg := v.Neg && f.Signed
	sign := uint64(0)
	if neg {
		sign = f.signBit()
	}
	M := f.MantBits
	emin := 1 - f.Bias
	if f.NoSubnormal {
		emin = -f.Bias
	}
	minQ := emin - M
	E := v.Log2()
	if o.FTZ && E < emin && !f.NoSubnormal {
		// The H100 detects tininess after rounding: the value is rounded to
		// the format's precision with an unbounded exponent, and flushed if
		// that is below the smallest normal. (The tie between the largest
		// subnormal and the smallest normal is exact at full precision, so
		// it is flushed although it would round up to the normal.)
		up := true
		if v.Exp < E-M {
			r, _, _, _ := shiftRound(v.Sig, E-M-v.Exp, neg, m, o)
			up = r == 1<<(M+1)
		} else {
			up = false
		}
		if !up {
			info.Flushed, info.Inexact, info.Tiny = true, true, true
			info.note = ".ftz: the result is below the smallest normal, flushed to zero"
			return sign << f.Shift, info
		}
	}
	q := max(E-M, minQ)
	var r uint64
	var inexact, tie, up bool
	if v.Exp >= q {
		r = v.Sig << (v.Exp - q)
	} else {
		r, inexact, tie, up = shiftRound(v.Sig, q-v.Exp, neg, m, o)
	}
	info.Inexact, info.Tie, info.RoundedUp = inexact, tie, up
	lo := r
	if up {
		lo--
	}
	info.Down = Value{Class: Normal, Sig: lo, Exp: q}
	info.Up = info.Down
	if inexact {
		info.Up = Value{Class: Normal, Sig: lo + 1, Exp: q}
	}
	if lo == 0 {
		info.Down.Class = Zero
	}
	if r == 1<<(M+1) {
		r >>= 1
		q++
	}
	res := Value{Class: Normal, Sig: r, Exp: q}
	if r != 0 && cmpMag(res, f.Decode(f.MaxFinite(false))) > 0 {
		return f.overflow(neg, m, o, info)
	}
	if r == 0 {
		info.Tiny = true
		if f.NoSubnormal {
			info.Saturated = true
			info.note = "underflow: the format has no zero, so the result is its smallest code"
			return 0, info
		}
		info.rounded, info.mode, info.note = true, m, "; underflows to zero"
		return sign << f.Shift, info
	}
	if r < 1<<M && !f.NoSubnormal {
		info.Tiny = true
		if o.FTZ {
			info.Flushed, info.Inexact = true, true
			info.note = ".ftz: subnormal result flushed to zero"
			return sign << f.Shift, info
		}
		info.rounded, info.mode, info.note = true, m, "; subnormal result"
		return (sign | r) << f.Shift, info
	}
	e := uint64(q + M + f.Bias)
	info.rounded, info.mode = true, m
	return (sign | e<<M | (r - 1<<M)) << f.Shift, info
}

// overflow is the result of a finite value beyond f's largest finite
// magnitude: infinity, MAX_NORM or NaN, by mode, .satfinite and what f has.
func (f *Format) overflow(neg bool, m Mode, o Opts, info Info) (uint64, Info) {
	info.Overflow, info.Inexact = true, true
	switch {
	case o.Satfinite:
		info.Saturated = true
		info.note = "overflow: .satfinite gives MAX_NORM"
		return f.MaxFinite(neg), info
	case f.HasInf:
		mode := m.base()
		toInf := mode == RN || mode == RNA || mode == RS || (mode == RM && neg) || (mode == RP && !neg)
		if toInf {
			info.note = "overflow: rounds to infinity"
			b, _ := f.Inf(neg)
			return b, info
		}
		info.note = "overflow: rounding toward zero keeps MAX_NORM"
		return f.MaxFinite(neg), info
	}
	if b, ok := f.CanonicalNaN(); ok {
		info.note = "overflow: the format has no infinity, so the result is NaN"
		return b, info
	}
	info.Saturated = true
	info.note = "overflow: the format has no infinity or NaN, so the result is MAX_NORM"
	return f.MaxFinite(neg), info
}

func roundWhy(m Mode, info Info) string {
	if !info.Inexact {
		return "exact"
	}
	name := "." + m.String()
	if m == NoRound {
		name = "nearest-even"
	}
	dir := "down"
	if info.RoundedUp {
		dir = "up"
	}
	switch {
	case info.Tie && (m.base() == RN):
		return fmt.Sprintf("%s: a tie, rounded %s to the even neighbour", name, dir)
	case info.Tie && m == RNA:
		return fmt.Sprintf("%s: a tie, rounded away from zero", name)
	}
	return fmt.Sprintf("%s: rounded %s in magnitude", name, dir)
}

// encodeInt rounds v to an integer and saturates it to f's range.
func (f *Format) encodeInt(v Value, m Mode, o Opts) (uint64, Info) {
	var info Info
	maxPos := f.Decode(f.MaxFinite(false))
	maxNeg := f.Decode(f.MaxFinite(true))
	sat := func(neg bool, why string) (uint64, Info) {
		info.Saturated, info.Inexact = true, true
		info.note = why
		return f.MaxFinite(neg), info
	}
	switch v.Class {
	case NaN:
		info.note = "NaN input gives 0"
		return 0, info
	case Inf:
		info.Overflow = true
		return sat(v.Neg, "infinity saturates to the integer range")
	}
	if v.IsZero() {
		info.note = "zero is exact"
		return 0, info
	}
	var r uint64
	neg := v.Neg
	switch {
	case v.Exp >= 0:
		if v.Log2() >= 64 {
			info.Overflow = true
			return sat(neg, "overflow saturates to the integer range")
		}
		r = v.Sig << v.Exp
	default:
		var inexact, tie, up bool
		r, inexact, tie, up = shiftRound(v.Sig, -v.Exp, neg, m, o)
		info.Inexact, info.Tie, info.RoundedUp = inexact, tie, up
		lo := r
		if up {
			lo--
		}
		info.Down = Value{Class: Normal, Sig: lo}
		info.Up = info.Down
		if inexact {
			info.Up = Value{Class: Normal, Sig: lo + 1}
		}
	}
	rv := Value{Class: Normal, Neg: neg, Sig: r}
	if r == 0 {
		info.rounded, info.mode, info.note = true, m, "; rounds to 0"
		return 0, info
	}
	if neg && Cmp(rv, maxNeg) < 0 {
		info.Overflow = true
		return sat(true, "below the integer range: saturates to the minimum")
	}
	if !neg && Cmp(rv, maxPos) > 0 {
		info.Overflow = true
		return sat(false, "above the integer range: saturates to the maximum")
	}
	info.rounded, info.mode = true, m
	if neg {
		return (-r) & lowMask(f.Bits), info
	}
	return r, info
}

// encodeFixed rounds v to a multiple of 2^-FracBits and saturates (s2f6).
func (f *Format) encodeFixed(v Value, m Mode, o Opts) (uint64, Info) {
	if v.Class == NaN {
		return f.MaxFinite(false), Info{Saturated: true, note: "NaN input: the format has no NaN, so the result is +MAX_NORM"}
	}
	if o.Relu && v.Neg {
		return 0, Info{Saturated: !v.IsZero(), note: ".relu: negative input gives +0"}
	}
	w := v
	if w.IsFinite() && !w.IsZero() {
		w.Exp += f.FracBits
	}
	ib := S64
	b, info := ib.encodeInt(w, m, o)
	x := int64(b)
	lo, hi := -int64(1)<<(f.Bits-1), int64(1)<<(f.Bits-1)-1
	switch {
	case x < lo:
		info.Saturated, info.Overflow, info.Inexact = true, true, true
		info.note = "below the range: saturates to the minimum"
		x = lo
	case x > hi:
		info.Saturated, info.Overflow, info.Inexact = true, true, true
		info.note = "above the range: saturates to the maximum"
		x = hi
	}
	return uint64(x) & lowMask(f.Bits), info
}

// RoundToIntegral rounds a float pattern of f to an integral value of the
// same format (cvt.rni.f32.f32 and friends): NaN gives the canonical NaN,
// infinities and zeros are kept, and the sign of a result that rounds to
// zero is the input's. o.FTZ flushes a subnormal input first; o.Sat then
// clamps the result to [+0, 1] (NaN and -0 give +0).
func (f *Format) RoundToIntegral(b uint64, m Mode, o Opts) (uint64, Info) {
	out, info := f.roundToIntegral(b, m, o.FTZ)
	if !o.Sat {
		return out, info
	}
	v := f.Decode(out)
	switch {
	case v.IsNaN() || v.Neg:
		info.Saturated = !v.IsZero() || v.IsNaN()
		info.note, info.rounded = ".sat: clamped to +0", false
		return 0, info
	case Cmp(v, FromInt(1)) > 0:
		one, _ := f.Encode(FromInt(1), RN, Opts{})
		info.Saturated = true
		info.note, info.rounded = ".sat: clamped to 1", false
		return one, info
	}
	return out, info
}

func (f *Format) roundToIntegral(b uint64, m Mode, ftz bool) (uint64, Info) {
	v := f.Decode(b)
	var info Info
	switch {
	case v.Class == NaN:
		c, _ := f.CanonicalNaN()
		info.note = "NaN input gives the canonical NaN"
		return c, info
	case v.Class == Inf || v.IsZero():
		info.note = "exact"
		return b & f.Mask(), info
	case ftz && v.Class == Subnormal:
		z, _ := f.Zero(v.Neg)
		info.Flushed, info.Inexact = true, true
		info.note = ".ftz: subnormal input flushed to zero"
		return z, info
	}
	if v.Exp >= 0 {
		info.note = "already integral"
		return b & f.Mask(), info
	}
	r, inexact, tie, up := shiftRound(v.Sig, -v.Exp, v.Neg, m, Opts{})
	info.Inexact, info.Tie, info.RoundedUp = inexact, tie, up
	info.rounded, info.mode = true, m
	out, _ := f.Encode(Value{Class: Normal, Neg: v.Neg, Sig: r}, RN, Opts{})
	if r == 0 {
		out, _ = f.Zero(v.Neg)
	}
	return out, info
}
