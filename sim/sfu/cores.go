package sfu

import (
	"math"
	"math/bits"
)

// The MUFU operations of sm_90 on f32 operands. Each takes and returns
// f32 bit patterns; subnormal operands read as zero and subnormal results
// are flushed to zero, as the unit does whatever the instruction's .ftz.

// exact-case helpers
const (
	expMask  = 0x7F800000
	manMask  = 0x007FFFFF
	signMask = 0x80000000
	posInf   = 0x7F800000
)

// pack builds sign | value where value = M·2^e with M a significand in
// [2^23, 2^24] (2^24 renormalizes), flushing results below the normal
// range to zero and overflowing to infinity.
func pack(sign uint32, M uint64, e int) uint32 {
	if M == 1<<24 {
		M >>= 1
		e++
	}
	be := e + 23 + 127 // biased exponent of M·2^e
	if be <= 0 {
		return sign
	}
	if be >= 255 {
		return sign | posInf
	}
	return sign | uint32(be)<<23 | uint32(M)&manMask
}

// normTrunc converts a fixed-point magnitude v·2^-frac (v > 0) to f32,
// truncating to 24 significant bits, with the sign; results below the
// normal range flush to zero.
func normTrunc(sign uint32, v uint64, frac int) uint32 {
	if v == 0 {
		return sign
	}
	n := 63 - leadingZeros64(v) // v in [2^n, 2^(n+1))
	var M uint64
	if n >= 23 {
		M = v >> (n - 23)
	} else {
		M = v << (23 - n)
	}
	return pack(sign, M, n-23-frac)
}

func leadingZeros64(x uint64) int { return bits.LeadingZeros64(x) }

// MufuEX2 is MUFU.EX2: 2^x. The operand is first truncated to a
// fixed-point number with 23 fraction bits (toward zero) and split into
// an integer part n (the exponent) and a fraction F (the table's
// argument); for a negative operand with a nonzero fraction the unit reads
// the table at F-1.
func MufuEX2(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	neg := x&signMask != 0
	a := x &^ signMask
	if a&expMask == 0 {
		return 0x3F800000 // ±0 and subnormals: 1
	}
	if a >= 0x43000000 { // |x| >= 128, and infinities
		if neg {
			return 0
		}
		return posInf
	}
	n, F := ex2Fixed(x)
	M := quadEX2.Floor(int(F>>17), F&(1<<17-1))
	return pack(0, uint64(M), int(n)-23)
}

// ex2Fixed converts a finite, normal EX2 operand with |x| < 128 to the
// unit's fixed point: X = |x|·2^23 truncated, negated for negative x, split
// into n = floor(X/2^23) and the fraction F; a negative operand with a
// nonzero fraction reads the table at F-1.
func ex2Fixed(x uint32) (n int64, F uint32) {
	a := x &^ signMask
	e := int(a>>23) - 127
	m := uint64(a&manMask | 1<<23)
	var X int64
	if e >= 0 {
		X = int64(m << e)
	} else if e > -24 {
		X = int64(m >> -e)
	}
	neg := x&signMask != 0
	if neg {
		X = -X
	}
	n = X >> 23 // floor
	F = uint32(X & (1<<23 - 1))
	if neg && F != 0 {
		F-- // a negative fraction is read one step below
	}
	return n, F
}

// MufuRCP is MUFU.RCP: 1/x.
func MufuRCP(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	s := x & signMask
	a := x &^ signMask
	switch {
	case a&expMask == 0:
		return s | posInf
	case a == posInf:
		return s
	}
	e := int(a>>23) - 127
	m := a & manMask
	M := quadRCP.Floor(int(m>>16), m&0xFFFF)
	return pack(s, uint64(M), -24-e)
}

// MufuRSQ is MUFU.RSQ: 1/sqrt(x).
func MufuRSQ(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	s := x & signMask
	a := x &^ signMask
	switch {
	case a&expMask == 0:
		return s | posInf
	case s != 0:
		return nan32
	case a == posInf:
		return 0
	}
	e := int(a>>23) - 127
	m := a & manMask
	j := e >> 1 // x = 4^j · m', m' in [1,4)
	q := quadRSQ[e&1]
	if m == 0 && e&1 == 0 {
		return pack(0, 1<<23, -23-j) // 4^j: exact
	}
	M := q.Floor(int(m>>17), m&(1<<17-1))
	return pack(0, uint64(M), -24-j)
}

// MufuSQRT is MUFU.SQRT: sqrt(x).
func MufuSQRT(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	s := x & signMask
	a := x &^ signMask
	switch {
	case a&expMask == 0:
		return s
	case s != 0:
		return nan32
	case a == posInf:
		return posInf
	}
	e := int(a>>23) - 127
	m := a & manMask
	j := e >> 1
	M := quadSQRT[e&1].Floor(int(m>>17), m&(1<<17-1))
	return pack(0, uint64(M), j-23)
}

// MufuLG2 is MUFU.LG2: log2(x), computed as e + log2(m) in fixed point and
// truncated toward zero.
func MufuLG2(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	s := x & signMask
	a := x &^ signMask
	switch {
	case a&expMask == 0:
		return signMask | posInf
	case s != 0:
		return nan32
	case a == posInf:
		return posInf
	case a == 0x3F800000:
		return 0
	}
	e := int64(a>>23) - 127
	m := a & manMask
	q := quadLG2
	S := q.Sum(int(m>>17), m&(1<<17-1)) >> (q.L + 3 - lg2Frac) // log2(m)·2^(24+lg2Frac), truncated
	frac := 24 + lg2Frac
	v := e<<frac + S
	if v < 0 {
		return normTrunc(signMask, uint64(-v-lg2NegAdj), frac)
	}
	return normTrunc(0, uint64(v), frac)
}

// lg2Frac is the number of fraction bits below 2^-24 the fixed-point
// logarithm keeps (results near 1 are multiples of 2^-36).
const lg2Frac = 12

var lg2NegAdj int64 = 1

var _ = math.Inf

// pack64h builds the high word of an f64 with sign, significand M in
// [2^23, 2^24] (truncated to 20 fraction bits) times 2^e; results below
// the normal range flush to zero.
func pack64h(sign uint32, M uint64, e int) uint32 {
	if M == 1<<24 {
		M >>= 1
		e++
	}
	be := e + 23 + 1023
	if be <= 0 {
		return sign
	}
	if be >= 2047 {
		return sign | 0x7FF00000
	}
	return sign | uint32(be)<<20 | uint32(M>>3)&0xFFFFF
}

// MufuRCP64H is MUFU.RCP64H: the high word of 1/x from the high word of
// x (sign, 11-bit exponent, 20 fraction bits), through the f32 reciprocal
// table; the result's significand is truncated to 20 bits.
func MufuRCP64H(hi uint32) uint32 {
	s := hi & signMask
	a := hi &^ signMask
	switch {
	case a > 0x7FF00000:
		return nan32
	case a&0x7FF00000 == 0:
		return s | 0x7FF00000
	case a == 0x7FF00000:
		return s
	}
	e := int(a>>20) - 1023
	m := (a & 0xFFFFF) << 3
	M := quadRCP.Floor(int(m>>16), m&0xFFFF)
	return pack64h(s, uint64(M), -24-e)
}

// MufuRSQ64H is MUFU.RSQ64H: the high word of 1/sqrt(x).
func MufuRSQ64H(hi uint32) uint32 {
	s := hi & signMask
	a := hi &^ signMask
	switch {
	case a > 0x7FF00000:
		return nan32
	case a&0x7FF00000 == 0:
		return s | 0x7FF00000
	case s != 0:
		return nan32
	case a == 0x7FF00000:
		return 0
	}
	e := int(a>>20) - 1023
	m := (a & 0xFFFFF) << 3
	j := e >> 1
	if m == 0 && e&1 == 0 {
		return pack64h(0, 1<<23, -23-j)
	}
	M := quadRSQ[e&1].Floor(int(m>>17), m&(1<<17-1))
	return pack64h(0, uint64(M), -24-j)
}

// f32ToHalfTrunc narrows an f32 to f16 or bf16 toward zero (NaN becomes
// the canonical 0x7FFF; f16 results below its normal range become f16
// subnormals).
func f32ToHalfTrunc(x uint32, bf bool) uint16 {
	if isNaN32(x) {
		return nan16
	}
	if bf {
		return uint16(x >> 16)
	}
	s := uint16(x>>16) & 0x8000
	e := int(x>>23&255) - 127 + 15
	m := x&manMask | 1<<23
	switch {
	case x&^signMask == posInf, e >= 31:
		return s | 0x7C00
	case x&expMask == 0:
		return s
	case e <= 0:
		sh := 13 + 1 - e
		if sh > 24 {
			return s
		}
		return s | uint16(m>>sh)
	}
	return s | uint16(e)<<10 | uint16(m>>13&0x3FF)
}

// sinArg converts MUFU.SIN/COS's operand (in revolutions) to the unit's
// fixed point: |r| truncated to 25 fraction bits, of which the top two
// are the quadrant and the other 23 the position in it; cos adds a
// quarter turn. In odd quadrants the unit reads the table at the one's
// complement of the position (sin(π/2·(1-f)) = sin(π/2·f) reflected).
func sinArg(r uint32, cos bool) (q, f uint32, ok bool) {
	a := r &^ signMask
	if a >= posInf {
		return 0, 0, false
	}
	e := int(a>>23) - 127
	m := uint64(a&manMask | 1<<23)
	var R uint64          // |r|·2^25 mod 2^25
	switch sh := e + 2; { // |r|·2^25 = m·2^(e+2)
	case a&expMask == 0, sh <= -24, sh >= 25:
		R = 0
	case sh >= 0:
		R = m << sh
	default:
		R = m >> -sh
	}
	R &= 1<<25 - 1
	if cos {
		R = (R + 1<<23) & (1<<25 - 1)
	}
	q = uint32(R >> 23)
	f = uint32(R & (1<<23 - 1))
	if q&1 == 1 {
		f = 1<<23 - 1 - f
	}
	return q, f, true
}

// mufuSinCos is MUFU.SIN (cos false) or MUFU.COS: sin(2π·r) or cos(2π·r)
// of an operand r in revolutions, from a table of sin over a quarter turn;
// the fixed-point result keeps 12 fraction bits below 2^-24 and is
// truncated to 24 significant bits.
func mufuSinCos(r uint32, cos bool) uint32 {
	if isNaN32(r) {
		return nan32
	}
	q, f, ok := sinArg(r, cos)
	if !ok {
		return nan32
	}
	neg := q >= 2
	if r&signMask != 0 && !cos && r&^signMask != 0 {
		neg = !neg
	}
	if r&expMask == 0 && !cos { // ±0 and subnormals: ±0
		return r & signMask
	}
	S := quadSIN.Sum(int(f>>17), f&(1<<17-1)) >> (quadSIN.L + 3 - sinFrac)
	var sign uint32
	if neg {
		sign = signMask
	}
	return normTrunc(sign, uint64(S), 24+sinFrac)
}

// sinFrac is the number of fraction bits below 2^-24 the fixed-point sine
// keeps.
const sinFrac = 20

// MufuSIN is MUFU.SIN: sin(2π·r).
func MufuSIN(r uint32) uint32 { return mufuSinCos(r, false) }

// MufuCOS is MUFU.COS: cos(2π·r).
func MufuCOS(r uint32) uint32 { return mufuSinCos(r, true) }

// TANH: below 2^-8 the unit returns x; from 8 on, ±1; between, each binade
// [2^e, 2^(e+1)) has its own table of 2^j intervals (tanhIndexBits) whose
// sums are in units of 2^(e-24), with Xl the 17 mantissa bits below the
// index (the operand's last 6-j bits are ignored).
const (
	tanhMinExp = -8
	tanhMaxExp = 2
	tanhFrac   = 20 // fraction bits below the result's 2^(e-24) the sum keeps
)

// tanhIndexBits is j for binades 2^-8 .. 2^2.
var tanhIndexBits = [tanhMaxExp - tanhMinExp + 1]int{0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 3}

// tanhSplit returns the table, interval and Xl for a mantissa of binade e.
func tanhSplit(e int, m uint32) (q int, i int, xl uint32) {
	k := e - tanhMinExp
	j := tanhIndexBits[k]
	return k, int(m >> (23 - j)), m >> (6 - j) & (1<<17 - 1)
}

// MufuTANH is MUFU.TANH.
func MufuTANH(x uint32) uint32 {
	if isNaN32(x) {
		return nan32
	}
	s := x & signMask
	a := x &^ signMask
	e := int(a>>23) - 127
	switch {
	case e < tanhMinExp:
		return x
	case e > tanhMaxExp:
		return s | 0x3F800000
	}
	k, i, xl := tanhSplit(e, a&manMask)
	q := quadTANH[k]
	S := q.Sum(i, xl) >> (q.L + 3 - tanhFrac)
	return normTrunc(s, uint64(S), 24+tanhFrac-e)
}
