package sfu

import "testing"

// BenchmarkChunk hashes one chunk (2^20 inputs) with each form's model.
func BenchmarkChunk(b *testing.B) {
	for _, op := range []string{"ex2.approx.ftz.f32", "ex2.approx.f32", "rcp.approx.f32", "lg2.approx.f32", "sqrt.approx.f32", "div.full.f32", "ex2.approx.f16x2", "rsqrt.approx.f64", "sin.approx.f32", "tanh.approx.f32"} {
		f := MustLookup(op)
		d := f.Domains()[0]
		b.Run(op, func(b *testing.B) {
			for b.Loop() {
				f.ChunkHash(d, 1000)
			}
		})
	}
}
