package sfu

import (
	"math"
	"sync"

	"github.com/tcsim/tcsim/isa/numfmt"
)

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

// halfFormat is the project's codec (isa/numfmt) for f16 (bf false) or bf16.
func halfFormat(bf bool) *numfmt.Format {
	if bf {
		return numfmt.BF16
	}
	return numfmt.F16
}

// halfToF32 widens an f16 (bf = false) or bf16 pattern to f32 exactly,
// through isa/numfmt (a table of its results, built on first use); a NaN
// widens to a quiet NaN (its payload and sign are not kept: every MUFU
// operation returns the canonical NaN for any NaN).
func halfToF32(h uint16, bf bool) uint32 {
	widenOnce.Do(func() {
		for k, bf := range []bool{false, true} {
			ft := halfFormat(bf)
			for x := range widened[k] {
				widened[k][x] = bits32(float32(ft.Float64(uint64(x))))
			}
		}
	})
	if bf {
		return widened[1][h]
	}
	return widened[0][h]
}

var (
	widenOnce sync.Once
	widened   [2][1 << 16]uint32 // [f16, bf16] pattern → f32 pattern
)

// f32ToHalf rounds an f32 pattern to f16 or bf16, nearest even, with IEEE
// overflow and subnormals, through isa/numfmt; NaN becomes the canonical
// 0x7FFF.
func f32ToHalf(x uint32, bf bool) uint16 {
	return uint16(halfFormat(bf).RoundFloat64(float64(f32(x))))
}
