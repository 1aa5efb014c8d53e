package numfmt

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFastPaths checks RoundFloat64 and Float64 against Encode and
// Decode: every f16 and bf16 pattern decoded, its neighbours and
// midpoints rounded, and millions of random float64 and f32 inputs.
func TestFastPaths(t *testing.T) {
	same := func(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b }
	for _, f := range []*Format{F16, BF16, F32} {
		if !f.ieeeLike() || !f.isIEEELike() {
			t.Fatalf("%s takes the slow path", f.Name)
		}
		bad := 0
		check := func(x float64) {
			want, _ := f.Encode(FromFloat64(x), RN, Opts{})
			if got := f.RoundFloat64(x); got != want && bad < 10 {
				t.Errorf("%s.RoundFloat64(%v = %#x) = %#x, want %#x", f.Name, x, math.Float64bits(x), got, want)
				bad++
			}
		}
		if f.Bits == 16 {
			for b := uint64(0); b < 1<<16; b++ {
				x := f.Decode(b).Float64()
				if got := f.Float64(b); !same(got, x) && bad < 10 {
					t.Errorf("%s.Float64(%#x) = %v, want %v", f.Name, b, got, x)
					bad++
				}
				if x != x || math.IsInf(x, 0) {
					continue
				}
				check(x)
				next := f.Decode(b + 1).Float64()
				if !math.IsInf(next, 0) && next == next && math.Signbit(next) == math.Signbit(x) {
					mid := x + (next-x)/2 // exact in float64: a tie
					check(mid)
					check(math.Nextafter(mid, math.Inf(1)))
					check(math.Nextafter(mid, math.Inf(-1)))
				}
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 1_000_000; i++ {
			switch i % 3 {
			case 0:
				check(float64(math.Float32frombits(rng.Uint32())))
			case 1:
				check(math.Float64frombits(rng.Uint64()))
			default:
				check(math.Ldexp(rng.Float64()-0.5, rng.IntN(300)-150))
			}
		}
		for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(),
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, 65504, 65519.99, 65520, 5.960464477539063e-08, 2.98e-08} {
			check(x)
		}
	}
	// Formats without the fast path still give Encode's bits.
	for _, x := range []float64{1.5, -448, 1e9, math.NaN()} {
		want, _ := E4M3.Encode(FromFloat64(x), RN, Opts{})
		if got := E4M3.RoundFloat64(x); got != want {
			t.Errorf("e4m3.RoundFloat64(%v) = %#x, want %#x", x, got, want)
		}
	}
}

func BenchmarkRoundFloat64(b *testing.B) {
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F16.RoundFloat64(float64(i) * 1.37e-3)
		}
	})
	b.Run("Encode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F16.Encode(FromFloat64(float64(i)*1.37e-3), RN, Opts{})
		}
	})
}
