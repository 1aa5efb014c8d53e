package numfmt

import "math"

// The float64 fast paths of Encode and Decode for the IEEE-like binary
// formats of at most 32 bits (f16, bf16, f32, tf32 excluded: it has a
// shift): the simulator converts through them on every cvt and half
// instruction. TestFastPaths checks them against Encode and Decode: every
// f16 and bf16 pattern, and millions of float64 inputs.

// ieeeLike reports whether f's fast paths apply: f16, bf16 or f32 (float
// formats with infinities and IEEE NaNs, subnormals, no shift and at most
// 32 bits; TestFastPaths checks that they are).
func (f *Format) ieeeLike() bool { return f == F16 || f == BF16 || f == F32 }

func (f *Format) isIEEELike() bool {
	return f.Kind == FloatKind && f.HasInf && f.NaN == IEEENaN && !f.NoSubnormal && f.Shift == 0 &&
		f.Bits == f.Container && f.Bits <= 32 && f.Signed && f.ExpBits+f.MantBits+1 == f.Bits
}

// RoundFloat64 rounds x to f to nearest, ties to even: the bits of
// f.Encode(FromFloat64(x), RN, Opts{}), computed directly from the
// float64's bits for the IEEE-like formats (f16, bf16, f32), by Encode for
// the others. Overflow gives infinity; a NaN gives the canonical NaN.
func (f *Format) RoundFloat64(x float64) uint64 {
	if !f.ieeeLike() {
		b, _ := f.Encode(FromFloat64(x), RN, Opts{})
		return b
	}
	ebits, mbits := uint(f.ExpBits), uint(f.MantBits)
	b := math.Float64bits(x)
	sign := (b >> 63) << (ebits + mbits)
	if x != x {
		nan, _ := f.CanonicalNaN()
		return nan
	}
	bias := 1<<(ebits-1) - 1
	expMax := 1<<ebits - 1
	if math.IsInf(x, 0) {
		return sign | uint64(expMax)<<mbits
	}
	if x == 0 {
		return sign
	}
	_, exp := math.Frexp(math.Abs(x)) // |x| = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1                      // |x| = 1.f * 2^e
	minExp := 1 - bias
	sig := b&(1<<52-1) | 1<<52
	if math.Float64bits(math.Abs(x))>>52 == 0 {
		// A float64 subnormal: its significand has no hidden bit.
		sig = b & (1<<52 - 1)
		sig <<= uint(52 - (e + 1074)) // normalise: the top bit at 52
	}
	shift := 52 - int(mbits) // bits of the 53-bit significand to drop
	if e < minExp {
		shift += minExp - e // a subnormal result
	}
	if shift > 60 {
		return sign // rounds to zero
	}
	half := uint64(1) << (shift - 1)
	rem := sig & (uint64(1)<<shift - 1)
	q := sig >> shift
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	if e < minExp {
		// q is the subnormal significand; it may have become the smallest normal.
		return sign | q
	}
	be := uint64(e + bias)
	if q>>(mbits+1) != 0 { // the significand overflowed: the next binade
		q >>= 1
		be++
	}
	if be >= uint64(expMax) {
		return sign | uint64(expMax)<<mbits
	}
	return sign | be<<mbits | q&(uint64(1)<<mbits-1)
}

// Float64 is f.Decode(bits).Float64() for the IEEE-like formats,
// computed directly, and by Decode for the others.
func (f *Format) Float64(bits uint64) float64 {
	if !f.ieeeLike() {
		return f.Decode(bits).Float64()
	}
	ebits, mbits := uint(f.ExpBits), uint(f.MantBits)
	if ebits == 8 && mbits <= 23 {
		// bf16 and f32: the top bits of an f32.
		return float64(math.Float32frombits(uint32(bits) << (23 - mbits)))
	}
	sign := 1.0
	if bits>>(ebits+mbits)&1 == 1 {
		sign = -1
	}
	e := int(bits >> mbits & (1<<ebits - 1))
	mant := float64(bits & (1<<mbits - 1))
	bias := 1<<(ebits-1) - 1
	switch e {
	case 0:
		return sign * math.Ldexp(mant, 1-bias-int(mbits))
	case 1<<ebits - 1:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+mant/float64(uint64(1)<<mbits), e-bias)
}
