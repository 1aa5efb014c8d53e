package sfu

import (
	"testing"
	"time"
)

// benchInputs is 4096 operands of a form spread over its domain.
func benchInputs(f *Form) (a, b []uint64) {
	d := f.Domains()[0]
	for k := range 4096 {
		x, y := d.Input(uint32(Mix64(uint64(k)) >> (64 - d.Bits)))
		a, b = append(a, x), append(b, y)
	}
	return a, b
}

// nsPerOp times fn over the inputs (the baseline measured in the same run).
func nsPerOp(fn func(a, b uint64) uint64, a, b []uint64) float64 {
	var sink uint64
	n := 0
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
		for i := range a {
			sink += fn(a[i], b[i])
		}
		n += len(a)
	}
	benchSink = sink
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

var benchSink uint64

// BenchmarkModel evaluates each form with the bit-exact model; x-float64 is
// its cost as a multiple of the float64 approximation it replaces
// (Reference: the math package's function in float64, rounded), measured
// in the same run.
func BenchmarkModel(b *testing.B) {
	for _, op := range []string{"ex2.approx.ftz.f32", "ex2.approx.f32", "lg2.approx.f32", "rcp.approx.f32", "rsqrt.approx.f32",
		"sqrt.approx.f32", "sin.approx.f32", "tanh.approx.f32", "div.full.f32", "ex2.approx.f16x2", "tanh.approx.bf16", "rsqrt.approx.f64"} {
		f := MustLookup(op)
		a, c := benchInputs(f)
		b.Run(op, func(b *testing.B) {
			base := nsPerOp(func(x, y uint64) uint64 { return Reference(f, x, y) }, a, c)
			var sink uint64
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				k := i & 4095
				sink += f.Eval(a[k], c[k])
			}
			benchSink = sink
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-float64")
		})
	}
}

// BenchmarkChunk hashes one chunk (2^20 inputs) of a campaign with the model.
func BenchmarkChunk(b *testing.B) {
	for _, op := range []string{"ex2.approx.ftz.f32", "div.full.f32", "ex2.approx.f16x2"} {
		f := MustLookup(op)
		d := f.Domains()[0]
		b.Run(op, func(b *testing.B) {
			for b.Loop() {
				f.ChunkHash(d, 1000)
			}
		})
	}
}
