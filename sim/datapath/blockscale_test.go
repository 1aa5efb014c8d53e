package datapath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// ue8 is the ue8m0 code of 2^e.
func ue8(e int) uint64 { return uint64(e + 127) }

// bsModels are the three block-scaled kinds as ParseInst builds them.
func bsInst(t *testing.T, name string, o TCOptions) *BlockScaled {
	t.Helper()
	return tcInst(t, name, o).Block
}

func TestBlockScaledExact(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	e4, e2 := numfmt.E4M3, numfmt.E2M1
	mx8 := bsInst(t, "mxf8f6f4.block_scale", TCOptions{M: 128, N: 8, A: "e4m3", B: "e2m1"})
	mx4 := bsInst(t, "mxf4.block_scale", TCOptions{M: 128, N: 8})
	nv4 := bsInst(t, "mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 8, ScaleType: "ue4m3"})
	at := func(k int, pairs ...float64) []float64 { // k-indexed values: at(64, k0, v0, k1, v1, ...)
		out := make([]float64, k)
		for i := 0; i+1 < len(pairs); i += 2 {
			out[int(pairs[i])] = pairs[i+1]
		}
		return out
	}
	tests := []struct {
		name     string
		m        *BlockScaled
		a, b     []float64
		sfa, sfb []uint64
		c, want  uint64
	}{
		// (1.5·4 + 2·(-0.5))·2^3·2^-1 + 1 = 21
		{"mxf8f6f4", mx8, []float64{1.5, 2}, []float64{4, -0.5}, []uint64{ue8(3)}, []uint64{ue8(-1)}, tcF32(1), tcF32(21)},
		// block 0: (6·2 - 1.5·4 + 0.5·0.5)·2^0·2^1 = 12.5; block 1: (3·1 - 6·0.5 + 4·1)·2^-2 = 1; C = -0.5
		{"mxf4", mx4, at(64, 0, 6, 1, -1.5, 16, 0.5, 32, 3, 48, -6, 33, 4), at(64, 0, 2, 1, 4, 16, 0.5, 32, 1, 48, 0.5, 33, 1),
			[]uint64{ue8(0), ue8(-2)}, []uint64{ue8(1), ue8(0)}, tcF32(-0.5), tcF32(13)},
		// ue4m3 scales 1.5, 0.75, 2^-9 (subnormal), 0 against 2, 1, 1, 1:
		// 4·3 - 3·0.75 + 36·2^-9 + 36·0 = 9.8203125
		{"mxf4nvf4 ue4m3", nv4, at(64, 0, 1, 1, 0.5, 16, -2, 32, 6, 48, 6), at(64, 0, 3, 1, 2, 16, 1.5, 32, 6, 48, 6),
			[]uint64{0x3c, 0x34, 0x01, 0x00}, []uint64{0x40, 0x38, 0x38, 0x38}, 0, tcF32(9.8203125)},
		// A NaN scale factor makes the result NaN.
		{"ue8m0 NaN", mx8, []float64{1}, []float64{1}, []uint64{0xff}, []uint64{ue8(0)}, 0, 0x7fffffff},
		{"ue4m3 NaN", nv4, nil, nil, []uint64{0x38, 0x38, 0x38, 0x38}, []uint64{0x38, 0x7f, 0x38, 0x38}, tcF32(1), 0x7fffffff},
		// ue8m0 code 0 is 2^-127, not zero: 6·6·2^-127·2^-127 = 36·2^-254 underflows to +0.
		{"ue8m0 code 0", mx8, []float64{6}, []float64{6}, []uint64{0}, []uint64{0}, 0, 0},
		{"ue8m0 huge", mx8, []float64{448}, []float64{6}, []uint64{254}, []uint64{ue8(0)}, 0, 0x7f800000},
		// Cancellation at 2^20 next to 0.25·2^-5: the 16-product runs keep 35
		// fraction bits below the anchor, so 2^-7 survives ...
		{"35 bits keep", mx4, at(64, 0, 1, 16, -1, 32, 0.5), at(64, 0, 1, 16, 1, 32, 0.5),
			[]uint64{ue8(20), ue8(-5)}, []uint64{ue8(0), ue8(0)}, 0, tcF32(p(-7))},
		// ... and 0.25·2^-30 (aligned 50 places below 2^20) does not.
		{"35 bits drop", mx4, at(64, 0, 1, 16, -1, 32, 0.5), at(64, 0, 1, 16, 1, 32, 0.5),
			[]uint64{ue8(20), ue8(-30)}, []uint64{ue8(0), ue8(0)}, 0, 0},
	}
	for _, tt := range tests {
		K := 32
		if fp4Kind(tt.m.Kind) {
			K = 64
		}
		a, b := tcRow(t, tt.m.A, K, tt.a...), tcRow(t, tt.m.B, K, tt.b...)
		got := tt.m.Dot(a, b, tt.sfa, tt.sfb, tt.c)
		if got != tt.want {
			_, tr := tt.m.Explain(a, b, tt.sfa, tt.sfb, tt.c)
			t.Errorf("%s: got %#x, want %#x\n%s", tt.name, got, tt.want, tr)
		}
	}
	// The per-product alternative (Group 1, 25 bits: MMA-Sim's mxf8f6f4
	// datapath applied to FP4) loses the 2^-7 that the default keeps.
	alt := *mx4
	alt.Group, alt.FracBits, alt.ZeroInAnchor = 1, 25, false
	a := tcRow(t, e2, 64, at(64, 0, 1, 16, -1, 32, 0.5)...)
	b := tcRow(t, e2, 64, at(64, 0, 1, 16, 1, 32, 0.5)...)
	if got := alt.Dot(a, b, []uint64{ue8(20), ue8(-5)}, []uint64{ue8(0), ue8(0)}, 0); got != 0 {
		t.Errorf("per-product alternative: got %#x, want +0", got)
	}
	_ = e4
}

// bsRandScales draws n scale codes of f that are finite and near 1.
func bsRandScales(r *rand.Rand, f *numfmt.Format, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		if f == numfmt.UE8M0 {
			out[i] = ue8(r.IntN(41) - 20)
		} else {
			out[i] = uint64(1+r.IntN(12))<<3 | uint64(r.IntN(8)) // normal ue4m3, exponent field 1..12
		}
	}
	return out
}

type bsCase struct {
	name string
	m    *BlockScaled
	K    int
}

func bsCases(t *testing.T) []bsCase {
	var out []bsCase
	for _, ab := range [][2]string{{"e4m3", "e2m1"}, {"e5m2", "e4m3"}, {"e2m3", "e3m2"}, {"e2m1", "e2m1"}} {
		out = append(out, bsCase{"mxf8f6f4 " + ab[0] + "×" + ab[1], bsInst(t, "mxf8f6f4.block_scale", TCOptions{M: 128, N: 8, A: ab[0], B: ab[1]}), 32})
	}
	out = append(out,
		bsCase{"mxf4", bsInst(t, "mxf4.block_scale", TCOptions{M: 128, N: 8}), 64},
		bsCase{"mxf4nvf4 2X", bsInst(t, "mxf4nvf4.block_scale.scale_vec::2X", TCOptions{M: 128, N: 8}), 64},
		bsCase{"mxf4nvf4 4X ue8m0", bsInst(t, "mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 8, ScaleType: "ue8m0"}), 64},
		bsCase{"mxf4nvf4 4X ue4m3", bsInst(t, "mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 8, ScaleType: "ue4m3"}), 64},
	)
	return out
}

// TestBlockScaledPowerOfTwo: multiplying every A scale factor by 2^k
// multiplies the result by 2^k exactly (C = 0, both results normal): the
// alignment is relative to the anchor.
func TestBlockScaledPowerOfTwo(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	for _, bc := range bsCases(t) {
		m, K := bc.m, bc.K
		nb := K / m.BlockSize
		checked := 0
		for i := 0; i < 2000; i++ {
			fill := []int{FillNarrow, FillWide, FillCancel, FillUniformBits}[i%4]
			a, b := tcRand(r, m.A, K, fill), tcRand(r, m.B, K, fill)
			sfa, sfb := bsRandScales(r, m.Scale, nb), bsRandScales(r, m.Scale, nb)
			k := r.IntN(5)
			if m.Scale == numfmt.UE4M3 {
				k = r.IntN(3) // keeps the exponent field below 15
			}
			up := make([]uint64, nb)
			for j, s := range sfa {
				up[j] = s + uint64(k)
				if m.Scale == numfmt.UE4M3 {
					up[j] = s + uint64(k)<<3
				}
			}
			d := math.Float32frombits(uint32(m.Dot(a, b, sfa, sfb, 0)))
			d2 := math.Float32frombits(uint32(m.Dot(a, b, up, sfb, 0)))
			if math.IsNaN(float64(d)) || math.IsInf(float64(d), 0) {
				continue
			}
			want := float32(math.Ldexp(float64(d), k))
			if d != 0 && (math.Abs(float64(d)) < 0x1p-126 || math.Abs(float64(want)) < 0x1p-126 || math.IsInf(float64(want), 0)) {
				continue
			}
			checked++
			if d2 != want {
				t.Fatalf("%s: D = %g, with A's scales ×2^%d D = %g, want %g", bc.name, d, k, d2, want)
			}
		}
		if checked < 500 {
			t.Errorf("%s: only %d cases checked", bc.name, checked)
		}
	}
}

// TestBlockScaledSymmetries: swapping the operands (and their scale
// factors) changes nothing; negating A negates the result (C = 0).
func TestBlockScaledSymmetries(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 15))
	for _, bc := range bsCases(t) {
		m, K := bc.m, bc.K
		nb := K / m.BlockSize
		swapped := *m
		swapped.A, swapped.B = m.B, m.A
		neg := *m
		neg.NegA = true
		for i := 0; i < 1500; i++ {
			fill := i % numFills
			a, b := tcRand(r, m.A, K, fill), tcRand(r, m.B, K, fill)
			sfa, sfb := bsRandScales(r, m.Scale, nb), bsRandScales(r, m.Scale, nb)
			c := tcRand(r, m.C, 1, fill)[0]
			d := m.Dot(a, b, sfa, sfb, c)
			if got := swapped.Dot(b, a, sfb, sfa, c); got != d {
				t.Fatalf("%s: swapped operands give %#x, want %#x", bc.name, got, d)
			}
			d0 := m.Dot(a, b, sfa, sfb, 0)
			if math.IsNaN(float64(math.Float32frombits(uint32(d0)))) {
				continue
			}
			want := d0 ^ 0x80000000
			if d0 == 0 {
				want = 0
			}
			if got := neg.Dot(a, b, sfa, sfb, 0); got != want {
				t.Fatalf("%s: negated A gives %#x, want %#x", bc.name, got, want)
			}
		}
	}
}

// TestBlockScaledExactWhenAligned: when no term loses bits to the
// alignment (one scale exponent for every block, C = 0, narrow inputs),
// the result is the exact sum truncated to f32.
func TestBlockScaledExactWhenAligned(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	for _, bc := range bsCases(t) {
		m, K := bc.m, bc.K
		nb := K / m.BlockSize
		for i := 0; i < 1000; i++ {
			a, b := tcRand(r, m.A, K, FillNarrow), tcRand(r, m.B, K, FillNarrow)
			e := r.IntN(21) - 10
			sfa, sfb := make([]uint64, nb), make([]uint64, nb)
			exact := new(big.Float).SetPrec(200)
			for j := range sfa {
				var sa, sb float64
				if m.Scale == numfmt.UE8M0 {
					sfa[j], sfb[j] = ue8(e), ue8(-e/2)
					sa, sb = math.Ldexp(1, e), math.Ldexp(1, -e/2)
				} else { // significands vary, exponents do not: 1.xxx·2^0
					ma, mb := r.IntN(8), r.IntN(8)
					sfa[j], sfb[j] = uint64(7<<3|ma), uint64(7<<3|mb)
					sa, sb = 1+float64(ma)/8, 1+float64(mb)/8
				}
				blk := 0.0
				for k := j * m.BlockSize; k < (j+1)*m.BlockSize; k++ {
					blk += m.A.Decode(a[k]).Float64() * m.B.Decode(b[k]).Float64() // exact: few small terms
				}
				exact.Add(exact, new(big.Float).SetFloat64(blk*sa*sb))
			}
			rz := new(big.Float).SetPrec(24).SetMode(big.ToZero).Set(exact)
			want, _ := rz.Float32()
			got := math.Float32frombits(uint32(m.Dot(a, b, sfa, sfb, 0)))
			if got != want && !(got == 0 && want == 0) {
				_, tr := m.Explain(a, b, sfa, sfb, 0)
				t.Fatalf("%s: got %g, want %g (exact %s)\n%s", bc.name, got, want, exact.Text('g', 20), tr)
			}
		}
	}
}

// TestBlockScaledMatMulAgreesWithDot covers every kind, every fill family
// (NaN and Inf included) and random scale codes (NaN included).
func TestBlockScaledMatMulAgreesWithDot(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 19))
	const M, N = 8, 8
	for _, bc := range bsCases(t) {
		m, K := bc.m, bc.K
		nb := K / m.BlockSize
		for fill := range numFills {
			a, b, c := tcRand(r, m.A, M*K, fill), tcRand(r, m.B, N*K, fill), tcRand(r, m.C, M*N, fill)
			sfa, sfb := tcRand(r, m.Scale, M*nb, FillUniformBits), tcRand(r, m.Scale, N*nb, FillUniformBits)
			if fill != FillUniformBits {
				sfa, sfb = bsRandScales(r, m.Scale, M*nb), bsRandScales(r, m.Scale, N*nb)
			}
			d := m.MatMul(M, N, K, a, b, sfa, sfb, c)
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					want := m.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], sfa[i*nb:(i+1)*nb], sfb[j*nb:(j+1)*nb], c[i*N+j])
					if d[i*N+j] != want {
						t.Fatalf("%s fill %s: MatMul[%d][%d] = %#x, Dot %#x", bc.name, FillNames[fill], i, j, d[i*N+j], want)
					}
				}
			}
		}
	}
}

func TestBlockScaledExplain(t *testing.T) {
	m := bsInst(t, "mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 8, ScaleType: "ue4m3"})
	e2 := numfmt.E2M1
	a := tcRow(t, e2, 64, 1, 0.5)
	b := tcRow(t, e2, 64, 3, 2)
	d, tr := m.Explain(a, b, []uint64{0x3c, 0x38, 0x38, 0x38}, []uint64{0x40, 0x38, 0x38, 0x38}, tcF32(1))
	if d != tcF32(13) {
		t.Errorf("got %#x", d)
	}
	s := tr.String()
	for _, w := range []string{
		"datapath (not hardware-verified): sm_100a tcgen05.mma kind::mxf4nvf4: each run of 16 .e2m1×.e2m1 products is summed exactly",
		"scale factors (.ue4m3): A row [0x3c = 1.5, 0x38 = 1, 0x38 = 1, 0x38 = 1]; B column [0x40 = 2,",
		"k0-15      Σ a·b = 4, × sfa 1.5 × sfb 2 → +0x600 × 2^-7 = +12  (scale exponent 1)  → aligned",
		"k16-31     Σ a·b = 0, × sfa 1 × sfb 1 → 0  (zero at scale exponent 0: takes part in choosing the anchor)",
		"anchor exponent 1;",
		"normalised (round-toward-zero) to f32: 0x41500000 = 13",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("trace lacks %q:\n%s", w, s)
		}
	}
	// Per-product kinds list the products, zero runs collapsed.
	m8 := bsInst(t, "mxf8f6f4.block_scale", TCOptions{M: 128, N: 8, A: "e4m3", B: "e4m3"})
	a8 := tcRow(t, numfmt.E4M3, 32, 2)
	_, tr8 := m8.Explain(a8, a8, []uint64{ue8(1)}, []uint64{ue8(0)}, 0)
	s = tr8.String()
	for _, w := range []string{"p0         a 2 × b 2 × sfa 2 × sfb 1 → +0x40 × 2^-3 = +8  (exponent 3)", "p1..p31    0  (zero: takes no part in choosing the anchor)"} {
		if !strings.Contains(s, w) {
			t.Errorf("trace lacks %q:\n%s", w, s)
		}
	}
	_, trn := m8.Explain(a8, a8, []uint64{0xff}, []uint64{ue8(0)}, 0)
	if !strings.Contains(trn.String(), "a NaN scale factor (block 0) makes the result NaN") {
		t.Errorf("NaN trace:\n%s", trn)
	}
}

func TestBlockScaledValidate(t *testing.T) {
	m := NewBlockScaled(desc.KindMXF4, numfmt.E5M2, numfmt.E5M2, numfmt.UE8M0, 32)
	if err := m.Validate(64); err == nil || !strings.Contains(err.Error(), "-bit sums") {
		t.Errorf("e5m2 in 16-product runs: %v", err)
	}
	m = NewBlockScaled(desc.KindMXF4, numfmt.E2M1, numfmt.E2M1, numfmt.UE8M0, 32)
	for _, tt := range []struct {
		mod    func(*BlockScaled)
		K      int
		errSub string
	}{
		{func(*BlockScaled) {}, 64, ""},
		{func(*BlockScaled) {}, 48, "not a whole number of 32-element blocks"},
		{func(x *BlockScaled) { x.Group = 12 }, 64, "do not divide"},
		{func(x *BlockScaled) { x.Scale = numfmt.E4M3 }, 64, "ue8m0 or ue4m3"},
		{func(x *BlockScaled) { x.FracBits = 41 }, 64, "FracBits"},
		{func(x *BlockScaled) { x.C = numfmt.F16 }, 64, "accumulator is f32"},
	} {
		x := *m
		tt.mod(&x)
		err := x.Validate(tt.K)
		if (tt.errSub == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.errSub)) {
			t.Errorf("validate: %v, want %q", err, tt.errSub)
		}
	}
}

// FuzzBlockScaledFastPath: for any operand bytes, the allocation-free path
// of MatMul gives the bits of Dot.
func FuzzBlockScaledFastPath(f *testing.F) {
	f.Add(uint8(0), []byte{0x38, 0x40, 0x7e, 0x01, 0x12, 0x34, 0x56, 0x78}, uint32(0x3f800000))
	f.Add(uint8(3), []byte{0xff, 0x00, 0x7f, 0x80, 0x11}, uint32(0))
	f.Fuzz(func(t *testing.T, which uint8, data []byte, c uint32) {
		cases := bsCases(t)
		bc := cases[int(which)%len(cases)]
		m, K := bc.m, bc.K
		nb := K / m.BlockSize
		at := func(i int) uint64 {
			if len(data) == 0 {
				return 0
			}
			return uint64(data[i%len(data)] ^ byte(i/len(data)))
		}
		mask := func(f *numfmt.Format, v uint64) uint64 { return v & (1<<(f.Shift+f.Bits) - 1) }
		a, b := make([]uint64, K), make([]uint64, K)
		for k := range a {
			a[k], b[k] = mask(m.A, at(k)), mask(m.B, at(K+k))
		}
		sa, sb := make([]uint64, nb), make([]uint64, nb)
		for j := range sa {
			sa[j], sb[j] = mask(m.Scale, at(2*K+j)), mask(m.Scale, at(2*K+nb+j))
		}
		want := m.Dot(a, b, sa, sb, uint64(c))
		if got := m.MatMul(1, 1, K, a, b, sa, sb, []uint64{uint64(c)})[0]; got != want {
			t.Fatalf("%s: MatMul %#x, Dot %#x", bc.name, got, want)
		}
	})
}
