package datapath

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/isa/numfmt"
)

var updateTCExamples = flag.Bool("update-tc-examples", false, "rewrite the tcgen05 example operands and golden D under testdata/tcgen05")

// tcExample is one block-scaled example problem under testdata/tcgen05:
// row 0 of A and column 0 of B hold a hand-made dot product (want), the
// rest is seeded random data, and D.f32 is the model's output (a
// regression golden, not a hardware recording).
type tcExample struct {
	dir      string
	inst     string
	opts     TCOptions
	a0, b0   map[int]float64 // k -> value for row 0 of A / column 0 of B
	sfa0     []uint64
	sfb0     []uint64
	want00   float64
	files    [5]string // A, B, SFA, SFB, D
	seedBase uint64
}

func tcExamples() []tcExample {
	return []tcExample{
		{
			// NVFP4: 16-element blocks with ue4m3 scale factors. Block 0:
			// 6·6 - 6·6 + 1.5·1 + 0.5·0.5 = 1.75, ×1.5×2; block 1: 4·3 = 12,
			// ×0.875×1; block 2: 6·0.5 = 3, ×2^-9 (a subnormal scale)×1;
			// block 3: 6·6, × a zero scale.
			dir:  "nvfp4",
			inst: "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
			opts: TCOptions{M: 128, N: 8, ScaleType: "ue4m3"},
			a0:   map[int]float64{0: 6, 1: -6, 2: 1.5, 3: 0.5, 16: 4, 32: 6, 48: 6},
			b0:   map[int]float64{0: 6, 1: 6, 2: 1, 3: 0.5, 16: 3, 32: 0.5, 48: 6},
			sfa0: []uint64{0x3c, 0x36, 0x01, 0x00}, sfb0: []uint64{0x40, 0x38, 0x38, 0x38},
			want00:   1.75*1.5*2 + 12*0.875 + 3*math.Ldexp(1, -9),
			files:    [5]string{"A.e2m1", "B.e2m1", "SFA.ue4m3", "SFB.ue4m3", "D.f32"},
			seedBase: 20,
		},
		{
			// MXFP8 with a truncated product: (57344·448 - 57344·448 + 0.125·1
			// + 3·0.5)·2^3·2^-1. The anchor is 2^25 (2^23 times the scales'
			// 2^2) and terms keep 25 fraction bits below it, whole units: the
			// scaled 0.125 product (0.5) is dropped, D = 6, not 6.5.
			dir:  "mxf8f6f4",
			inst: "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
			opts: TCOptions{M: 128, N: 8, A: "e5m2", B: "e4m3"},
			a0:   map[int]float64{0: 57344, 1: -57344, 2: 0.125, 3: 3},
			b0:   map[int]float64{0: 448, 1: 448, 2: 1, 3: 0.5},
			sfa0: []uint64{ue8(3)}, sfb0: []uint64{ue8(-1)},
			want00:   6,
			files:    [5]string{"A.e5m2", "B.e4m3", "SFA.ue8m0", "SFB.ue8m0", "D.f32"},
			seedBase: 30,
		},
	}
}

// operands builds the example's A, B, SFA and SFB.
func (ex tcExample) operands(t *testing.T, in Inst) (a, b, sfa, sfb []uint64) {
	r := rand.New(rand.NewPCG(ex.seedBase, ex.seedBase+1))
	M, N, K, spr := in.M, in.N, in.K, in.ScalesPerRow()
	a, b = tcRand(r, in.A, M*K, FillNarrow), tcRand(r, in.B, N*K, FillNarrow)
	for k := 0; k < K; k++ {
		a[k], b[k] = tcEnc(t, in.A, ex.a0[k]), tcEnc(t, in.B, ex.b0[k])
	}
	sfa, sfb = bsRandScales(r, in.Scale, M*spr), bsRandScales(r, in.Scale, N*spr)
	copy(sfa, ex.sfa0)
	copy(sfb, ex.sfb0)
	return
}

// TestTCExamples checks the hand-made element of every example and the
// model's whole D against the golden files (-update-tc-examples rewrites
// them).
func TestTCExamples(t *testing.T) {
	for _, ex := range tcExamples() {
		in, err := ParseInst(ex.inst, ex.opts)
		if err != nil {
			t.Fatal(err)
		}
		a, b, sfa, sfb := ex.operands(t, in)
		spr := in.ScalesPerRow()
		d00 := in.Block.Dot(a[:in.K], b[:in.K], sfa[:spr], sfb[:spr], 0)
		if got := float64(math.Float32frombits(uint32(d00))); got != ex.want00 {
			t.Errorf("%s: D[0][0] = %g, want %g", ex.dir, got, ex.want00)
		}
		d := in.Block.MatMul(in.M, in.N, in.K, a, b, sfa, sfb, make([]uint64, in.M*in.N))
		data := [][]byte{Pack(in.A, a), Pack(in.B, b), Pack(in.Scale, sfa), Pack(in.Scale, sfb), Pack(numfmt.F32, d)}
		dir := filepath.Join("testdata", "tcgen05", ex.dir)
		if *updateTCExamples {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, f := range ex.files {
				if err := os.WriteFile(filepath.Join(dir, f), data[i], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		for i, f := range ex.files {
			got, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("%v (run go test -run TestTCExamples -update-tc-examples)", err)
			}
			if !bytes.Equal(got, data[i]) {
				t.Errorf("%s/%s differs from what the generator and the model give (rerun with -update-tc-examples if the change is intended)", ex.dir, f)
			}
		}
	}
}

// Benchmarks of the tcgen05 datapaths at full instruction size, with a
// plain float32 triple loop of the same size as the baseline (compare the
// ns/op of the runs in one go test -bench invocation).

func benchTC(bn *testing.B, name string, o TCOptions) {
	in, err := ParseInst(name, o)
	if err != nil {
		bn.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	M, N, K := in.M, in.N, in.K
	a, b, c := tcRand(r, in.A, M*K, FillWide), tcRand(r, in.B, N*K, FillWide), tcRand(r, in.C, M*N, FillNarrow)
	var sfa, sfb []uint64
	if in.Block != nil {
		sfa, sfb = bsRandScales(r, in.Scale, M*in.ScalesPerRow()), bsRandScales(r, in.Scale, N*in.ScalesPerRow())
	}
	bn.ResetTimer()
	for range bn.N {
		if in.Block != nil {
			in.Block.MatMul(M, N, K, a, b, sfa, sfb, c)
		} else {
			in.Eval.(*TCFloat).MatMul(M, N, K, a, b, c)
		}
	}
}

func BenchmarkTCF8F6F4E4M3m128n256k32(b *testing.B) {
	benchTC(b, "tcgen05.mma.cta_group::1.kind::f8f6f4", TCOptions{M: 128, N: 256, A: "e4m3", B: "e4m3"})
}

func BenchmarkTCMXF8F6F4E4M3m128n256k32(b *testing.B) {
	benchTC(b, "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale", TCOptions{M: 128, N: 256, A: "e4m3", B: "e4m3"})
}

func BenchmarkTCNVFP4m128n256k64(b *testing.B) {
	benchTC(b, "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 256, ScaleType: "ue4m3"})
}

func benchFloat32(bn *testing.B, M, N, K int) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b, c := make([]float32, M*K), make([]float32, N*K), make([]float32, M*N)
	for i := range a {
		a[i] = float32(r.NormFloat64())
	}
	for i := range b {
		b[i] = float32(r.NormFloat64())
	}
	d := make([]float32, M*N)
	bn.ResetTimer()
	for range bn.N {
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				s := c[i*N+j]
				ar, br := a[i*K:(i+1)*K], b[j*K:(j+1)*K]
				for k := range ar {
					s += ar[k] * br[k]
				}
				d[i*N+j] = s
			}
		}
	}
	sink = d[0]
}

func BenchmarkTCFloat32Loopm128n256k32(b *testing.B) { benchFloat32(b, 128, 256, 32) }
func BenchmarkTCFloat32Loopm128n256k64(b *testing.B) { benchFloat32(b, 128, 256, 64) }
