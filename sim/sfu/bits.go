package sfu

import "math"

// Bit helpers for the formats the unit reads and writes.

func f32(b uint32) float32    { return math.Float32frombits(b) }
func bits32(x float32) uint32 { return math.Float32bits(x) }
func f64(b uint64) float64    { return math.Float64frombits(b) }
func bits64(x float64) uint64 { return math.Float64bits(x) }
func isNaN32(b uint32) bool   { return b&0x7FFFFFFF > 0x7F800000 }
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
