package numfmt

import (
	"math"
	"math/rand/v2"
	"testing"
)

func benchInputs() []uint64 {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]uint64, 4096)
	for i := range xs {
		xs[i] = math.Float64bits(math.Ldexp(rng.Float64()+0.5, rng.IntN(60)-30))
	}
	return xs
}

// Baseline: Go's own f64 -> f32 conversion. Compare ns/op with the others.
func BenchmarkGoFloat64ToFloat32(b *testing.B) {
	xs := benchInputs()
	var sink uint32
	for i := 0; b.Loop(); i++ {
		sink += math.Float32bits(float32(math.Float64frombits(xs[i&4095])))
	}
	_ = sink
}

func BenchmarkEncodeF64ToF32(b *testing.B) {
	xs := benchInputs()
	var sink uint64
	for i := 0; b.Loop(); i++ {
		r, _ := F32.Encode(F64.Decode(xs[i&4095]), RN, Opts{})
		sink += r
	}
	_ = sink
}

func BenchmarkCvtF32ToE4M3x2(b *testing.B) {
	xs := benchInputs()
	s := MustParseSpec("cvt.rn.satfinite.e4m3x2.f32")
	var sink uint64
	for i := 0; b.Loop(); i++ {
		a := uint64(math.Float32bits(float32(math.Float64frombits(xs[i&4095]))))
		r, _ := Cvt(s, a, a)
		sink += r
	}
	_ = sink
}
