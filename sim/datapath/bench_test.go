package datapath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The speed target: bit-exact m64n256k16 costs at most 4× a plain
// float32 triple loop of the same size. Compare BenchmarkMatMul* with
// BenchmarkFloat32Loop in the same run.

// benchOperands are typical data: A and B elements with magnitudes in
// [1/8, 16) and random signs (randElem's FillCancel exponent range), C
// normally distributed, like the float32 loop's. With fill FillWide most
// dot products overflow to Inf, which exercises the general path instead.
func benchOperands(v Variant, fill int) (a, b, c []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	const M, N = 64, 256
	a, b, c = make([]uint64, M*v.K), make([]uint64, N*v.K), make([]uint64, M*N)
	for i := range a {
		a[i] = randElem(r, v.A, fill, 0, 0)
	}
	for i := range b {
		b[i] = randElem(r, v.B, fill, 0, 0)
	}
	for i := range c {
		c[i] = uint64(math.Float32bits(float32(r.NormFloat64())))
	}
	return
}

func benchMatMul(bn *testing.B, name string, fill int) {
	v, err := VariantByName(name)
	if err != nil {
		bn.Fatal(err)
	}
	a, b, c := benchOperands(v, fill)
	m := Hopper(v.A, v.B, v.C)
	bn.ResetTimer()
	for range bn.N {
		m.MatMul(64, 256, v.K, a, b, c)
	}
}

func BenchmarkMatMulBF16m64n256k16(b *testing.B) { benchMatMul(b, "f32.bf16.bf16", FillCancel) }
func BenchmarkMatMulE4M3m64n256k32(b *testing.B) { benchMatMul(b, "f32.e4m3.e4m3", FillCancel) }

// The same with exponents over the whole range: most results are Inf.
func BenchmarkMatMulBF16m64n256k16Wide(b *testing.B) { benchMatMul(b, "f32.bf16.bf16", FillWide) }
func BenchmarkMatMulE4M3m64n256k32Wide(b *testing.B) { benchMatMul(b, "f32.e4m3.e4m3", FillWide) }

var sink float32

// BenchmarkFloat32LoopK16 and K32 are the baselines: the same m64n256k16
// and m64n256k32 products as plain float32 triple loops (benchFloat32).
func BenchmarkFloat32LoopK16(bn *testing.B) { benchFloat32(bn, 64, 256, 16) }
func BenchmarkFloat32LoopK32(bn *testing.B) { benchFloat32(bn, 64, 256, 32) }
