package sim

import (
	"math"
	"math/big"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// Bit-level helpers for the float formats registers hold. Every IEEE
// operation here rounds once, as the hardware does: products and sums that
// need more than float64's precision are formed with round-to-odd, which
// makes the final rounding to a narrower format correct in every mode.

func f32bits(x float32) uint32     { return math.Float32bits(x) }
func f32frombits(b uint32) float32 { return math.Float32frombits(b) }
func f64bits(x float64) uint64     { return math.Float64bits(x) }
func f64frombits(b uint64) float64 { return math.Float64frombits(b) }

// Canonical NaNs the GPU produces for NaN results.
const (
	nanF32  = 0x7FFFFFFF
	nanF64  = 0x7FFFFFFFFFFFFFFF
	nanF16  = 0x7FFF
	nanBF16 = 0x7FFF
)

func isNaN32(b uint32) bool { return b&0x7F800000 == 0x7F800000 && b&0x7FFFFF != 0 }

// ftz32 flushes an f32 subnormal to a zero of the same sign.
func ftz32(b uint32) uint32 {
	if b&0x7F800000 == 0 {
		return b & 0x80000000
	}
	return b
}

// sat01 clamps to [0, 1]; NaN becomes +0.
func sat01(b uint32) uint32 {
	x := f32frombits(b)
	switch {
	case x != x:
		return 0
	case x <= 0:
		return 0
	case x >= 1:
		return 0x3F800000
	}
	return b
}

// twoSum returns s = fl(a+b) and the exact error e with a+b = s+e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

// roundOdd64 returns p+c rounded to float64 with round-to-odd: when the sum
// is inexact the last mantissa bit is forced to 1. Rounding the result to a
// format with at most 51 mantissa bits then rounds p+c correctly.
func roundOdd64(p, c float64) float64 {
	s, e := twoSum(p, c)
	if e == 0 || math.IsInf(s, 0) || s != s {
		return s
	}
	b := math.Float64bits(s)
	if b&1 == 0 {
		// move one ulp toward the exact value
		if (e > 0) == (s > 0) {
			b++
		} else {
			b--
		}
		s = math.Float64frombits(b)
	}
	return s
}

// f64ToF32 rounds x to f32 with mode (RN fast path).
func f64ToF32(x float64, mode numfmt.Mode) uint32 {
	if mode == numfmt.RN || mode == numfmt.NoRound {
		return f32bits(float32(x))
	}
	if x != x {
		return nanF32
	}
	v, _ := numfmt.F32.Encode(numfmt.FromFloat64(x), mode, numfmt.Opts{})
	return uint32(v)
}

// f64ToF16 rounds x to f16, nearest even.
func f64ToF16(x float64) uint16 { return uint16(numfmt.F16.RoundFloat64(x)) }

// f64ToBF16 rounds x to bf16, nearest even.
func f64ToBF16(x float64) uint16 { return uint16(numfmt.BF16.RoundFloat64(x)) }

// halfFormat is f16 (5 exponent bits) or bf16 (8).
func halfFormat(ebits uint) *numfmt.Format {
	if ebits == 8 {
		return numfmt.BF16
	}
	return numfmt.F16
}

// f64ToHalf rounds x to f16 (ebits 5, mbits 10) or bf16 (ebits 8, mbits
// 7), nearest even, with IEEE overflow, subnormals and the canonical NaN:
// isa/numfmt's codec (RoundFloat64), the one every package uses.
func f64ToHalf(x float64, ebits, _ uint) uint64 { return halfFormat(ebits).RoundFloat64(x) }

// halfToF64 decodes an f16 (ebits 5) or bf16 (ebits 8) pattern.
func halfToF64(h uint64, ebits, _ uint) float64 { return halfFormat(ebits).Float64(h) }

func f16ToF64(h uint16) float64  { return numfmt.F16.Float64(uint64(h)) }
func bf16ToF64(h uint16) float64 { return numfmt.BF16.Float64(uint64(h)) }

// fmaF32 is fma.rn.f32 (or another rounding mode): a*b+c rounded once.
func fmaF32(a, b, c uint32, mode numfmt.Mode) uint32 {
	x, y, z := float64(f32frombits(a)), float64(f32frombits(b)), float64(f32frombits(c))
	p := x * y // exact
	if math.IsInf(p, 0) || math.IsInf(z, 0) || p != p || z != z {
		r := p + z
		if r != r {
			return nanF32
		}
		return f32bits(float32(r))
	}
	s := roundOdd64(p, z)
	if s == 0 {
		// exact zero: the sign follows IEEE (x*y + z with both signs)
		if p == 0 && z == 0 {
			if math.Signbit(p) && math.Signbit(z) {
				return 0x80000000
			}
			if mode == numfmt.RM && (math.Signbit(p) || math.Signbit(z)) {
				return 0x80000000
			}
			return 0
		}
		if mode == numfmt.RM {
			return 0x80000000
		}
		return 0
	}
	return f64ToF32(s, mode)
}

// addF32 and mulF32 with a rounding mode.
func addF32(a, b uint32, mode numfmt.Mode) uint32 {
	if mode == numfmt.RN {
		r := f32frombits(a) + f32frombits(b)
		if r != r {
			return nanF32
		}
		return f32bits(r)
	}
	return fmaF32(a, 0x3F800000, b, mode)
}

func mulF32(a, b uint32, mode numfmt.Mode) uint32 {
	if mode == numfmt.RN {
		r := float32(f32frombits(a) * f32frombits(b))
		if r != r {
			return nanF32
		}
		return f32bits(r)
	}
	x := float64(f32frombits(a)) * float64(f32frombits(b))
	if x != x {
		return nanF32
	}
	if x == 0 {
		return f32bits(float32(x))
	}
	return f64ToF32(x, mode)
}

// divF32 is div.rn.f32 (and directed modes through exact rationals).
func divF32(a, b uint32, mode numfmt.Mode) uint32 {
	x, y := f32frombits(a), f32frombits(b)
	if mode == numfmt.RN {
		r := x / y
		if r != r {
			return nanF32
		}
		return f32bits(r)
	}
	return ratRound32(float64(x), float64(y), mode, func(p, q *big.Rat) *big.Rat { return p.Quo(p, q) })
}

func ratRound32(x, y float64, mode numfmt.Mode, op func(p, q *big.Rat) *big.Rat) uint32 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) || x != x || y != y || y == 0 {
		r := float32(x / y)
		if r != r {
			return nanF32
		}
		return f32bits(r)
	}
	p, q := new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y)
	r := op(p, q)
	v, ok := numfmt.FromRat(r)
	if !ok {
		return f32bits(float32(x / y))
	}
	if r.Sign() == 0 && (math.Signbit(x) != math.Signbit(y)) {
		v.Neg = true
	}
	out, _ := numfmt.F32.Encode(v, mode, numfmt.Opts{})
	return uint32(out)
}

// fmaF64 with RN (math.FMA) or a directed mode through big.Float.
func fmaF64(a, b, c uint64, mode numfmt.Mode) uint64 {
	x, y, z := f64frombits(a), f64frombits(b), f64frombits(c)
	if mode == numfmt.RN {
		r := math.FMA(x, y, z)
		if r != r {
			return nanF64
		}
		return f64bits(r)
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsInf(z, 0) || x != x || y != y || z != z {
		r := math.FMA(x, y, z)
		if r != r {
			return nanF64
		}
		return f64bits(r)
	}
	bx, by, bz := new(big.Float).SetPrec(2200).SetFloat64(x), new(big.Float).SetPrec(2200).SetFloat64(y), new(big.Float).SetPrec(2200).SetFloat64(z)
	bx.Mul(bx, by)
	bx.Add(bx, bz)
	if bx.Sign() == 0 {
		return f64bits(math.FMA(x, y, z))
	}
	bx.SetMode(bigMode(mode)).SetPrec(53)
	r, _ := bx.Float64()
	return f64bits(r)
}

func bigMode(m numfmt.Mode) big.RoundingMode {
	switch m {
	case numfmt.RZ:
		return big.ToZero
	case numfmt.RM:
		return big.ToNegativeInf
	case numfmt.RP:
		return big.ToPositiveInf
	}
	return big.ToNearestEven
}

// minF32 / maxF32 follow PTX: a NaN operand is ignored (both NaN gives the
// canonical NaN; with .NaN any NaN propagates), and -0 < +0.
func minF32(a, b uint32, nan bool) uint32 { return pickF32(a, b, nan, false) }

func maxF32(a, b uint32, nan bool) uint32 { return pickF32(a, b, nan, true) }

// pickF32 is minF32 (greater false) or maxF32 (greater true).
func pickF32(a, b uint32, nan, greater bool) uint32 {
	an, bn := isNaN32(a), isNaN32(b)
	switch {
	case an && bn:
		return nanF32
	case an:
		if nan {
			return nanF32
		}
		return b
	case bn:
		if nan {
			return nanF32
		}
		return a
	}
	x, y := f32frombits(a), f32frombits(b)
	aNeg := a&0x80000000 != 0
	if greater {
		x, y, aNeg = y, x, !aNeg
	}
	if x < y || x == y && aNeg {
		return a
	}
	return b
}
