package sfu

import "math"

// Bit helpers for the formats the unit reads and writes.

func f32(b uint32) float32    { return math.Float32frombits(b) }
func bits32(x float32) uint32 { return math.Float32bits(x) }
func f64(b uint64) float64    { return math.Float64frombits(b) }
func bits64(x float64) uint64 { return math.Float64bits(x) }
func isNaN32(b uint32) bool   { return b&0x7FFFFFFF > 0x7F800000 }
func isSub32(b uint32) bool   { return b&0x7F800000 == 0 && b&0x7FFFFF != 0 }
func ftz32(b uint32) uint32 {
	if b&0x7F800000 == 0 {
		return b & 0x80000000
	}
	return b
}

// Canonical NaNs the GPU writes.
const (
	nan32 = 0x7FFFFFFF
	nan64 = 0x7FFFFFFFFFFFFFFF
	nan16 = 0x7FFF
)

// halfToF32 widens an f16 (bf = false) or bf16 pattern to f32 exactly.
func halfToF32(h uint16, bf bool) uint32 {
	if bf {
		return uint32(h) << 16
	}
	s := uint32(h>>15) << 31
	e := uint32(h >> 10 & 31)
	m := uint32(h & 0x3FF)
	switch {
	case e == 31:
		return s | 0x7F800000 | m<<13
	case e == 0 && m == 0:
		return s
	case e == 0:
		// subnormal: normalize
		e = 127 - 15 + 1
		for m&0x400 == 0 {
			m <<= 1
			e--
		}
		return s | e<<23 | (m&0x3FF)<<13
	}
	return s | (e+127-15)<<23 | m<<13
}

// f32ToHalf rounds an f32 pattern to f16 or bf16, nearest even, with IEEE
// overflow and subnormals; NaN becomes the canonical 0x7FFF.
func f32ToHalf(x uint32, bf bool) uint16 {
	if isNaN32(x) {
		return nan16
	}
	if bf {
		r := x + 0x7FFF + (x >> 16 & 1)
		return uint16(r >> 16)
	}
	s := uint16(x>>16) & 0x8000
	e := int(x>>23&255) - 127 + 15
	m := x&0x7FFFFF | 0x800000
	if x&0x7FFFFFFF == 0x7F800000 {
		return s | 0x7C00
	}
	if x&0x7F800000 == 0 {
		return s // f32 subnormals are far below f16's range
	}
	var shift int
	if e <= 0 {
		shift = 13 + 1 - e
		if shift > 25 {
			return s
		}
		e = 0
	} else {
		shift = 13
	}
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	var out uint32
	if e == 0 {
		out = q // may carry into the smallest normal
	} else {
		out = uint32(e)<<10 + (q - 0x400) // q has the hidden bit; a carry bumps the exponent
	}
	if out >= 0x7C00 {
		return s | 0x7C00
	}
	return s | uint16(out)
}

// fmaRN32 is fma.rn.f32 (no ftz): x*y+z rounded once.
func fmaRN32(x, y, z uint32) uint32 {
	return bits32(fma32(f32(x), f32(y), f32(z)))
}

// fma32 rounds x*y+z once to f32. The product is exact in float64; the
// sum is formed with round-to-odd so the final rounding is correct.
func fma32(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	zz := float64(z)
	if math.IsInf(p, 0) || math.IsInf(zz, 0) || p != p || zz != zz {
		return float32(p + zz)
	}
	s := p + zz
	// error of the sum
	bb := s - p
	e := (p - (s - bb)) + (zz - bb)
	if e != 0 && !math.IsInf(s, 0) {
		b := math.Float64bits(s)
		if b&1 == 0 {
			if (e > 0) == (s > 0) {
				b++
			} else {
				b--
			}
			s = math.Float64frombits(b)
		}
	}
	if s == 0 {
		if p == 0 && zz == 0 {
			return float32(p + zz)
		}
		return 0 // exact cancellation: +0 in round-to-nearest
	}
	return float32(s)
}
