package datapath

import (
	"math"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// IntModel is the integer MMA datapath: exact products and sums with a
// 32-bit accumulator that wraps, or saturates with .satfinite. With B1 the
// products are popc(a AND b) over single bits.
type IntModel struct {
	A, B     *numfmt.Format
	Saturate bool
	B1       bool
}

// Dot computes sum_k a[k]*b[k] + c on raw bit patterns.
func (m *IntModel) Dot(a, b []uint64, c uint64) uint64 {
	sum := int64(int32(uint32(c)))
	for k := range a {
		if m.B1 {
			sum += int64(bits.OnesCount64(a[k] & b[k] & 1))
			continue
		}
		sum += intValue(m.A, a[k]) * intValue(m.B, b[k])
	}
	if m.Saturate {
		sum = max(math.MinInt32, min(math.MaxInt32, sum))
	}
	return uint64(uint32(int32(sum)))
}

func intValue(f *numfmt.Format, raw uint64) int64 {
	x := raw & (1<<f.Bits - 1)
	if f.Signed && x>>(f.Bits-1) == 1 {
		return int64(x) - 1<<f.Bits
	}
	return int64(x)
}
