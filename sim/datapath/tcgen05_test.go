package datapath

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// tcEnc encodes x exactly in f or fails the test.
func tcEnc(t *testing.T, f *numfmt.Format, x float64) uint64 {
	t.Helper()
	v, ok := exact(f, x)
	if !ok {
		t.Fatalf("%g is not exact in .%s", x, f.Name)
	}
	return v
}

// tcRow is k elements of f: vals, then zeros.
func tcRow(t *testing.T, f *numfmt.Format, k int, vals ...float64) []uint64 {
	t.Helper()
	out := make([]uint64, k)
	for i := range out {
		x := 0.0
		if i < len(vals) {
			x = vals[i]
		}
		out[i] = tcEnc(t, f, x)
	}
	return out
}

func tcF32(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }

const tcName1 = "tcgen05.mma.cta_group::1.kind::"

func TestTCParseInst(t *testing.T) {
	type want struct {
		m, n, k  int
		a, b, c  string
		scale    string
		block    int
		errSub   string
		evalType string
	}
	tests := []struct {
		name string
		opts TCOptions
		want want
	}{
		{"f16", TCOptions{M: 128, N: 256, A: "bf16", B: "bf16"}, want{m: 128, n: 256, k: 16, a: "bf16", b: "bf16", c: "f32", evalType: "float"}},
		{"f16", TCOptions{M: 64, N: 8, A: "f16", B: "f16", D: "f16"}, want{m: 64, n: 8, k: 16, a: "f16", b: "f16", c: "f16", evalType: "float"}},
		{"f16", TCOptions{M: 128, N: 64, A: "bf16", B: "bf16", D: "f16"}, want{errSub: "f16 D is for f16 inputs"}},
		{"f16", TCOptions{M: 128, N: 64, A: "f16", B: "bf16"}, want{errSub: "f16 x f16 or bf16 x bf16"}},
		{"tf32", TCOptions{M: 128, N: 64, A: "tf32", B: "tf32"}, want{m: 128, n: 64, k: 8, a: "tf32", b: "tf32", c: "f32", evalType: "float"}},
		{"f8f6f4", TCOptions{M: 128, N: 256, A: "e4m3", B: "e2m1"}, want{m: 128, n: 256, k: 32, a: "e4m3", b: "e2m1", c: "f32", evalType: "float"}},
		{"f8f6f4", TCOptions{M: 128, N: 16, A: "e3m2", B: "e2m3", D: "f16"}, want{m: 128, n: 16, k: 32, a: "e3m2", b: "e2m3", c: "f16", evalType: "float"}},
		{"f8f6f4", TCOptions{M: 128, N: 16, A: "bf16", B: "e4m3"}, want{errSub: `"bf16" is not an A type of kind::f8f6f4`}},
		{"i8", TCOptions{M: 128, N: 32, A: "s8", B: "u8"}, want{m: 128, n: 32, k: 32, a: "s8", b: "u8", c: "s32", evalType: "int"}},
		{"i8", TCOptions{M: 128, N: 40, A: "s8", B: "u8"}, want{errSub: "N = 40"}},
		{"i8", TCOptions{M: 128, N: 32, A: "s8", B: "s8", NegateA: true}, want{errSub: "kind::i8 cannot negate"}},
		{"f16", TCOptions{M: 256, N: 64, A: "f16", B: "f16"}, want{errSub: "M = 256"}},
		{"f16", TCOptions{M: 128, N: 64, A: "f16", B: "f16", ScaleInputD: 16}, want{errSub: "0..15"}},
		{"f8f6f4", TCOptions{M: 128, N: 64, A: "e4m3", B: "e4m3", ScaleInputD: 2}, want{errSub: "only for kind::f16 and kind::tf32"}},
		{"f16", TCOptions{M: 128, N: 64, A: "f16", B: "f16", ScaleType: "ue8m0"}, want{errSub: "--stype is for the block-scaled"}},
		{"mxf8f6f4.block_scale", TCOptions{M: 128, N: 256, A: "e4m3", B: "e2m1"}, want{m: 128, n: 256, k: 32, a: "e4m3", b: "e2m1", c: "f32", scale: "ue8m0", block: 32}},
		{"mxf8f6f4.block_scale.block32", TCOptions{M: 128, N: 8, A: "e5m2", B: "e3m2"}, want{m: 128, n: 8, k: 32, a: "e5m2", b: "e3m2", c: "f32", scale: "ue8m0", block: 32}},
		{"mxf8f6f4.block_scale.scale_vec::2X", TCOptions{M: 128, N: 8, A: "e4m3", B: "e4m3"}, want{errSub: "not a scale vector size of .kind::mxf8f6f4"}},
		{"mxf8f6f4.block_scale", TCOptions{M: 64, N: 8, A: "e4m3", B: "e4m3"}, want{errSub: "m: 64 cannot be encoded"}},
		{"mxf8f6f4.block_scale", TCOptions{M: 128, N: 8, A: "e4m3", B: "e4m3", D: "f16"}, want{errSub: "accumulate in f32"}},
		{"mxf8f6f4.block_scale", TCOptions{M: 128, N: 8, A: "e4m3", B: "e4m3", ScaleType: "ue4m3"}, want{errSub: "takes ue8m0 scale factors"}},
		{"mxf4.block_scale", TCOptions{M: 128, N: 64}, want{m: 128, n: 64, k: 64, a: "e2m1", b: "e2m1", c: "f32", scale: "ue8m0", block: 32}},
		{"mxf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 64}, want{errSub: "not a scale vector size of .kind::mxf4"}},
		{"mxf4.block_scale", TCOptions{M: 128, N: 64, NegateB: true}, want{errSub: "cannot negate"}},
		{"mxf4", TCOptions{M: 128, N: 64}, want{errSub: "needs .block_scale"}},
		{"f16.block_scale", TCOptions{M: 128, N: 64, A: "f16", B: "f16"}, want{errSub: ".block_scale needs"}},
		{"mxf4nvf4.block_scale", TCOptions{M: 128, N: 64}, want{errSub: "explicit scale vector size"}},
		{"mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 64}, want{errSub: "set --stype"}},
		{"mxf4nvf4.block_scale.scale_vec::4X", TCOptions{M: 128, N: 64, ScaleType: "ue4m3"}, want{m: 128, n: 64, k: 64, a: "e2m1", b: "e2m1", c: "f32", scale: "ue4m3", block: 16}},
		{"mxf4nvf4.block_scale.block16", TCOptions{M: 128, N: 64, ScaleType: "ue8m0"}, want{m: 128, n: 64, k: 64, a: "e2m1", b: "e2m1", c: "f32", scale: "ue8m0", block: 16}},
		{"mxf4nvf4.block_scale.scale_vec::2X", TCOptions{M: 128, N: 64, ScaleType: "ue4m3"}, want{errSub: "ue4m3 scale factors need .scale_vec::4X"}},
		{"mxf4nvf4.block_scale.scale_vec::3X", TCOptions{M: 128, N: 64}, want{errSub: "scale_vec::1X, 2X or 4X"}},
		{"mxf4nvf4.block_scale.block32", TCOptions{M: 128, N: 64, A: "e4m3"}, want{errSub: "not an A type of kind::mxf4nvf4"}},
	}
	for _, tt := range tests {
		in, err := ParseInst(tcName1+tt.name, tt.opts)
		w := tt.want
		if w.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), w.errSub) {
				t.Errorf("%s %+v: err %v, want it to contain %q", tt.name, tt.opts, err, w.errSub)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %+v: %v", tt.name, tt.opts, err)
			continue
		}
		if in.M != w.m || in.N != w.n || in.K != w.k || in.A.Name != w.a || in.B.Name != w.b || in.C.Name != w.c {
			t.Errorf("%s: got m%dn%dk%d %s×%s→%s, want m%dn%dk%d %s×%s→%s", tt.name, in.M, in.N, in.K, in.A, in.B, in.C, w.m, w.n, w.k, w.a, w.b, w.c)
		}
		if in.Source != NotHardwareVerified || !strings.Contains(in.Note, "sm_100a tcgen05.mma kind::"+strings.Split(tt.name, ".")[0]) {
			t.Errorf("%s: source %q, note %q", tt.name, in.Source, in.Note)
		}
		switch {
		case w.block != 0:
			if in.Block == nil || in.Eval != nil || in.Scale.Name != w.scale || in.BlockSize != w.block || in.ScalesPerRow() != w.k/w.block {
				t.Errorf("%s: block %v eval %v scale %v blocksize %d", tt.name, in.Block, in.Eval, in.Scale, in.BlockSize)
			}
		case w.evalType == "float":
			if _, ok := in.Eval.(*TCFloat); !ok {
				t.Errorf("%s: eval %T", tt.name, in.Eval)
			}
		case w.evalType == "int":
			if _, ok := in.Eval.(*IntModel); !ok {
				t.Errorf("%s: eval %T", tt.name, in.Eval)
			}
		}
	}
}

func TestTCParseNames(t *testing.T) {
	for _, tt := range []struct{ name, errSub string }{
		{"tcgen05.mma.sp.cta_group::1.kind::f16", "sparse"},
		{"tcgen05.mma.ws.cta_group::1.kind::f16", "weight-stationary"},
		{"tcgen05.mma.cta_group::3.kind::f16", "cta_group::1 or cta_group::2"},
		{"tcgen05.mma.cta_group::1.kind::f61", "unknown tcgen05 kind"},
		{"tcgen05.mma.cta_group::1.kind::f61", "nearest: tcgen05.mma.cta_group::1.kind::f16"},
		{"tcgen05.mma.kind::f16", "missing .cta_group"},
		{"tcgen05.mma.cta_group::1", "missing .kind"},
		{"tcgen05.mma.cta_group::1.kind::f16.collector::a::fill", "not the arithmetic"},
		{"tcgen05.mma.cta_group::1.kind::f16.foo", "unknown qualifier .foo"},
		{"tcgen05.mmax", "expected '.'"},
	} {
		_, err := ParseInst(tt.name, TCOptions{M: 128, N: 64, A: "f16", B: "f16"})
		if err == nil || !strings.Contains(err.Error(), tt.errSub) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.errSub)
		}
	}
}

// TestTCIDesc: an instruction descriptor gives the same instruction as the
// flags it encodes.
func TestTCIDesc(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec desc.IDescSpec
		opts TCOptions
	}{
		{"f16", desc.IDescSpec{Kind: desc.KindF16, A: "bf16", B: "bf16", D: "f32", M: 128, N: 256, NegateB: true},
			TCOptions{M: 128, N: 256, A: "bf16", B: "bf16", NegateB: true}},
		{"f8f6f4", desc.IDescSpec{Kind: desc.KindF8F6F4, A: "e2m3", B: "e5m2", D: "f16", M: 64, N: 24, NegateA: true},
			TCOptions{M: 64, N: 24, A: "e2m3", B: "e5m2", D: "f16", NegateA: true}},
		{"i8", desc.IDescSpec{Kind: desc.KindI8, A: "u8", B: "s8", D: "s32", M: 128, N: 16, Saturate: true},
			TCOptions{M: 128, N: 16, A: "u8", B: "s8", Saturate: true}},
		{"mxf4nvf4.block_scale.scale_vec::4X", desc.IDescSpec{Kind: desc.KindMXF4NVF4, A: "e2m1", B: "e2m1", M: 128, N: 128, ScaleType: "ue4m3"},
			TCOptions{M: 128, N: 128, ScaleType: "ue4m3"}},
		{"mxf8f6f4.block_scale", desc.IDescSpec{Kind: desc.KindMXF8F6F4, A: "e4m3", B: "e2m1", M: 128, N: 8, NegateA: true, NegateB: true},
			TCOptions{M: 128, N: 8, A: "e4m3", B: "e2m1", NegateA: true, NegateB: true}},
	} {
		d, err := desc.NewIDesc(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		v, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		viaDesc, err1 := ParseInst(tcName1+tt.name, TCOptions{IDesc: v, HasIDesc: true})
		viaFlags, err2 := ParseInst(tcName1+tt.name, tt.opts)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", tt.name, err1, err2)
		}
		if viaDesc.M != viaFlags.M || viaDesc.N != viaFlags.N || viaDesc.A != viaFlags.A || viaDesc.B != viaFlags.B || viaDesc.C != viaFlags.C ||
			viaDesc.NegA != viaFlags.NegA || viaDesc.NegB != viaFlags.NegB || viaDesc.Sat != viaFlags.Sat || viaDesc.Scale != viaFlags.Scale {
			t.Errorf("%s: --idesc %#x gives %+v, flags give %+v", tt.name, v, viaDesc, viaFlags)
		}
	}
	// A descriptor with problems names them, and says it came from --idesc.
	for _, tt := range []struct {
		v      uint32
		name   string
		errSub string
	}{
		{1<<2 | 1<<4 | 1<<7 | 1<<10 | 8<<17 | 8<<24, "f16", "sparse tcgen05.mma is not modelled"},
		{1<<4 | 2<<7 | 2<<10 | 8<<17 | 8<<24, "f16", "atype: code 2 is not an A type of kind::f16"},
		{1<<4 | 8<<17, "f16", "M field is 0"},
	} {
		_, err := ParseInst(tcName1+tt.name, TCOptions{IDesc: tt.v, HasIDesc: true})
		if err == nil || !strings.Contains(err.Error(), tt.errSub) || !strings.Contains(err.Error(), "--idesc") {
			t.Errorf("idesc %#x: err %v, want %q", tt.v, err, tt.errSub)
		}
	}
}

func tcInst(t *testing.T, name string, o TCOptions) Inst {
	t.Helper()
	in, err := ParseInst(tcName1+name, o)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestTCKindsExact checks hand-computed dot products of every kind.
func TestTCKindsExact(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	bf := numfmt.BF16
	tests := []struct {
		name    string
		in      Inst
		a, b    []float64
		c, want uint64
	}{
		// 1 + 2^-18 + 3 - 3 + 2^-27: the last term is truncated by the alignment.
		{"f16 bf16", tcInst(t, "f16", TCOptions{M: 128, N: 8, A: "bf16", B: "bf16"}),
			[]float64{1, p(-9), 3, -3, p(-20)}, []float64{1, p(-9), 1, 1, p(-7)}, 0, 0x3f800020},
		// f16 accumulator, round to nearest even: 1 + 2^-11 is a tie (to 1),
		// 1 + 2^-11 + 2^-20 rounds up.
		{"f16 f16 tie", tcInst(t, "f16", TCOptions{M: 128, N: 8, A: "f16", B: "f16", D: "f16"}),
			[]float64{1, p(-11)}, []float64{1, 1}, 0, 0x3c00},
		{"f16 f16 up", tcInst(t, "f16", TCOptions{M: 128, N: 8, A: "f16", B: "f16", D: "f16"}),
			[]float64{1, p(-11), p(-10)}, []float64{1, 1, p(-10)}, 0, 0x3c01},
		{"tf32", tcInst(t, "tf32", TCOptions{M: 128, N: 8, A: "tf32", B: "tf32"}),
			[]float64{1.5, -0.25}, []float64{2, 8}, tcF32(0.5), tcF32(1.5)},
		// FP8: 1 + 2^-14 keeps its small product (25 fraction bits, 23-bit
		// result; the H100 would give 1).
		{"f8f6f4 e4m3", tcInst(t, "f8f6f4", TCOptions{M: 128, N: 8, A: "e4m3", B: "e4m3"}),
			[]float64{1, p(-7)}, []float64{1, p(-7)}, 0, tcF32(1 + p(-14))},
		{"f8f6f4 e2m3×e2m1", tcInst(t, "f8f6f4", TCOptions{M: 128, N: 8, A: "e2m3", B: "e2m1"}),
			[]float64{7.5, -0.125}, []float64{6, 0.5}, 0, tcF32(44.9375)},
		// e3m2's smallest subnormal 2^-4 times e5m2's 2^-16.
		{"f8f6f4 e3m2×e5m2", tcInst(t, "f8f6f4", TCOptions{M: 128, N: 8, A: "e3m2", B: "e5m2"}),
			[]float64{1, p(-4), 28}, []float64{1, p(-16), -p(-3)}, tcF32(2.5), tcF32(1 + p(-20) - 3.5 + 2.5)},
		{"f8f6f4 f16 out", tcInst(t, "f8f6f4", TCOptions{M: 128, N: 8, A: "e5m2", B: "e4m3", D: "f16"}),
			[]float64{57344, -57344}, []float64{1, 1}, 0x3c00, 0x3c00},
		{"i8", tcInst(t, "i8", TCOptions{M: 128, N: 32, A: "s8", B: "u8"}),
			[]float64{-128, 127, 5}, []float64{255, 255, 3}, uint64(1000), uint64(1000 - 128*255 + 127*255 + 15)},
		{"i8 wrap", tcInst(t, "i8", TCOptions{M: 128, N: 32, A: "s8", B: "u8"}),
			[]float64{100}, []float64{200}, uint64(math.MaxInt32 - 100), uint64(1<<32 + math.MinInt32 + 19899)},
		{"i8 satfinite", tcInst(t, "i8", TCOptions{M: 128, N: 32, A: "s8", B: "u8", Saturate: true}),
			[]float64{100}, []float64{200}, uint64(math.MaxInt32 - 100), math.MaxInt32},
	}
	for _, tt := range tests {
		var a, b []uint64
		if tt.in.A.IsFloat() {
			a, b = tcRow(t, tt.in.A, tt.in.K, tt.a...), tcRow(t, tt.in.B, tt.in.K, tt.b...)
		} else {
			a, b = make([]uint64, tt.in.K), make([]uint64, tt.in.K)
			for i, x := range tt.a {
				a[i] = uint64(int64(x)) & 0xff
			}
			for i, x := range tt.b {
				b[i] = uint64(int64(x)) & 0xff
			}
		}
		if got := tt.in.Eval.Dot(a, b, tt.c); got != tt.want {
			t.Errorf("%s: got %#x, want %#x", tt.name, got, tt.want)
		}
	}
	// The same FP8 sum on the H100 model loses the small product.
	e4 := numfmt.E4M3
	a := tcRow(t, e4, 32, 1, p(-7))
	if got := Hopper(e4, e4, numfmt.F32).Dot(a, a, 0); got != tcF32(1) {
		t.Errorf("Hopper FP8 reference: %#x", got)
	}
	_ = bf
}

// tcRand fills n elements of f from family fill.
func tcRand(r *rand.Rand, f *numfmt.Format, n, fill int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = randElem(r, f, fill, i, 0)
	}
	return out
}

var tcFloatCombos = [][3]*numfmt.Format{
	{numfmt.BF16, numfmt.BF16, numfmt.F32}, {numfmt.F16, numfmt.F16, numfmt.F32}, {numfmt.F16, numfmt.F16, numfmt.F16},
	{numfmt.TF32, numfmt.TF32, numfmt.F32}, {numfmt.E4M3, numfmt.E5M2, numfmt.F32}, {numfmt.E2M3, numfmt.E2M1, numfmt.F32},
	{numfmt.E3M2, numfmt.E4M3, numfmt.F16}, {numfmt.E2M1, numfmt.E2M1, numfmt.F32},
}

func tcK(f *numfmt.Format) int {
	switch f {
	case numfmt.F16, numfmt.BF16:
		return 16
	case numfmt.TF32:
		return 8
	}
	return 32
}

// TestTCFloatAgreesWithModel: without negation or scale-input-d, the
// tcgen05 evaluator gives the bits of the H100-style fused Model (its own
// term pipeline is a second implementation of Model.fused).
func TestTCFloatAgreesWithModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	n := 0
	for _, fm := range tcFloatCombos {
		m := Blackwell(fm[0], fm[1], fm[2])
		tc := &TCFloat{Model: m}
		k := tcK(fm[0])
		for i := 0; i < 3000; i++ {
			fill := i % numFills
			a, b := tcRand(r, fm[0], k, fill), tcRand(r, fm[1], k, fill)
			c := tcRand(r, fm[2], 1, fill)[0]
			if got, want := tc.Dot(a, b, c), m.Dot(a, b, c); got != want {
				t.Fatalf("%s×%s→%s fill %s: TCFloat %#x, Model %#x\n%s", fm[0], fm[1], fm[2], FillNames[fill], got, want, tc.Explain(a, b, c).Trace)
			}
			n++
		}
	}
	t.Logf("%d dot products agree", n)
}

// TestTCNegate: the datapath is symmetric under sign changes (truncation
// toward zero, round toward zero or to nearest even), so negating A and C
// negates D, except that a zero result is +0 either way; negating A and B
// changes nothing.
func TestTCNegate(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	for _, fm := range tcFloatCombos {
		m := Blackwell(fm[0], fm[1], fm[2])
		k := tcK(fm[0])
		plain, negA, negAB := &TCFloat{Model: m}, &TCFloat{Model: m, NegA: true}, &TCFloat{Model: m, NegA: true, NegB: true}
		sc := signBit(fm[2])
		for i := 0; i < 2000; i++ {
			fill := i % numFills
			a, b := tcRand(r, fm[0], k, fill), tcRand(r, fm[1], k, fill)
			c := tcRand(r, fm[2], 1, fill)[0]
			d := plain.Dot(a, b, c)
			if fm[2].Decode(d).IsNaN() {
				continue
			}
			want := d ^ sc
			if d == 0 {
				want = 0
			}
			if got := negA.Dot(a, b, c^sc); got != want {
				t.Fatalf("%s×%s→%s: D(-A, B, -C) = %#x, want -D = %#x", fm[0], fm[1], fm[2], got, want)
			}
			if got := negAB.Dot(a, b, c); got != d {
				t.Fatalf("%s×%s→%s: D(-A, -B, C) = %#x, want D = %#x", fm[0], fm[1], fm[2], got, d)
			}
		}
	}
}

// TestTCScaleInputD checks D = A·B + C·2^-s.
func TestTCScaleInputD(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	bf, f16 := numfmt.BF16, numfmt.F16
	m := Blackwell(bf, bf, numfmt.F32)
	for _, tt := range []struct {
		name string
		s    int
		a, b []float64
		c    uint64
		want uint64
	}{
		{"1024·2^-10 + 0.5", 10, []float64{0.5}, []float64{1}, tcF32(1024), tcF32(1.5)},
		{"3·2^-4", 4, nil, nil, tcF32(3), tcF32(0.1875)},
		// Exact below the f32 normals: 2^-126·2^-15 = 2^-141 is a subnormal.
		{"subnormal", 15, nil, nil, tcF32(p(-126)), 1 << 8},
		// 2^-140·2^-15 underflows to +0 on its own and is truncated away next to 2^-130.
		{"underflow", 15, []float64{p(-65)}, []float64{p(-65)}, 1 << 9, tcF32(p(-130))},
		// The scaled C is aligned like a product: next to the cancelling
		// products 1 - 1 (anchor 0), (1+2^-23)·2^-5 keeps 25 fraction bits,
		// so its 2^-28 bit is dropped: D = 2^-5, not 2^-5 + 2^-28.
		{"truncated", 5, []float64{1, -1}, []float64{1, 1}, tcF32(1 + p(-23)), tcF32(p(-5))},
		{"s = 0", 0, []float64{1, -1}, []float64{1, 1}, tcF32(1 + p(-23)), tcF32(1 + p(-23))},
	} {
		tc := &TCFloat{Model: m, ScaleD: tt.s}
		a, b := tcRow(t, bf, 16, tt.a...), tcRow(t, bf, 16, tt.b...)
		if got := tc.Dot(a, b, tt.c); got != tt.want {
			t.Errorf("%s: got %#x, want %#x\n%s", tt.name, got, tt.want, tc.Explain(a, b, tt.c).Trace)
		}
	}
	// Property: when C·2^-s is an f32, scaling it first and running the
	// (H100-verified) Model gives the same bits.
	r := rand.New(rand.NewPCG(8, 9))
	for _, fm := range [][3]*numfmt.Format{{bf, bf, numfmt.F32}, {f16, f16, f16}, {numfmt.TF32, numfmt.TF32, numfmt.F32}} {
		m := Blackwell(fm[0], fm[1], fm[2])
		k := tcK(fm[0])
		checked := 0
		for i := 0; i < 4000; i++ {
			s := 1 + r.IntN(15)
			fill := i % numFills
			a, b := tcRand(r, fm[0], k, fill), tcRand(r, fm[1], k, fill)
			c := tcRand(r, fm[2], 1, fill)[0]
			cv := fm[2].Decode(c)
			if !cv.IsFinite() {
				continue
			}
			// Only where C·2^-s is a normal number of C's format: a subnormal
			// one would decode at the format's minimum exponent, not at
			// exp(C) - s as scale-input-d lowers it.
			scaled, ok := exact(fm[2], math.Ldexp(cv.Float64(), -s))
			if !ok || fm[2].Decode(scaled).Class != numfmt.Normal {
				continue
			}
			checked++
			if got, want := (&TCFloat{Model: m, ScaleD: s}).Dot(a, b, c), m.Dot(a, b, scaled); got != want {
				t.Fatalf("%s: s=%d: %#x, want %#x (Model on the pre-scaled C)", fm, s, got, want)
			}
		}
		if checked < 1000 {
			t.Errorf("%s: only %d cases checked", fm, checked)
		}
	}
}

// TestTCMatMulAgreesWithDot covers both MatMul paths of TCFloat.
func TestTCMatMulAgreesWithDot(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	const M, N = 8, 16
	for _, fm := range tcFloatCombos {
		k := tcK(fm[0])
		for _, tc := range []*TCFloat{
			{Model: Blackwell(fm[0], fm[1], fm[2])},
			{Model: Blackwell(fm[0], fm[1], fm[2]), NegA: true},
			{Model: Blackwell(fm[0], fm[1], fm[2]), NegB: true, ScaleD: 7},
		} {
			for fill := range numFills {
				a, b, c := tcRand(r, fm[0], M*k, fill), tcRand(r, fm[1], N*k, fill), tcRand(r, fm[2], M*N, fill)
				d := tc.MatMul(M, N, k, a, b, c)
				for i := 0; i < M; i++ {
					for j := 0; j < N; j++ {
						if want := tc.Dot(a[i*k:(i+1)*k], b[j*k:(j+1)*k], c[i*N+j]); d[i*N+j] != want {
							t.Fatalf("%v neg %v/%v s %d: MatMul[%d][%d] = %#x, Dot %#x", fm, tc.NegA, tc.NegB, tc.ScaleD, i, j, d[i*N+j], want)
						}
					}
				}
			}
		}
	}
}

func TestTCExplain(t *testing.T) {
	in := tcInst(t, "f16", TCOptions{M: 128, N: 8, A: "bf16", B: "bf16", NegateA: true})
	in.Eval.(*TCFloat).ScaleD = 3
	a := tcRow(t, numfmt.BF16, 16, 1, 2)
	r := in.Eval.(*TCFloat).Explain(a, a, tcF32(8))
	// -(1·1 + 2·2) + 8·2^-3 = -4
	if r.Bits != tcF32(-4) {
		t.Errorf("got %#x", r.Bits)
	}
	s := r.Trace.String()
	for _, w := range []string{"c        +0x800000 × 2^-23 = +1  (exponent 0)", "p0       -0x4000 × 2^-14 = -1", "anchor exponent 2"} {
		if !strings.Contains(s, w) {
			t.Errorf("trace lacks %q:\n%s", w, s)
		}
	}
}

func TestCheckElems(t *testing.T) {
	if err := CheckElems(numfmt.E2M3, []uint64{0x3f, 0x01}, "A"); err != nil {
		t.Error(err)
	}
	if err := CheckElems(numfmt.E2M3, []uint64{0x3f, 0x41}, "A"); err == nil || !strings.Contains(err.Error(), "A element 1 is 0x41") {
		t.Errorf("e2m3: %v", err)
	}
	if err := CheckElems(numfmt.UE4M3, []uint64{0x80}, "SFA"); err == nil || !strings.Contains(err.Error(), ".ue4m3 element has 7 bits") {
		t.Errorf("ue4m3: %v", err)
	}
	if err := CheckElems(numfmt.E2M1, []uint64{0x10}, "B"); err == nil {
		t.Error("e2m1 0x10 accepted")
	}
	if err := CheckElems(numfmt.TF32, []uint64{0xffffffff}, "A"); err != nil {
		t.Error(err)
	}
}

func FuzzParseTcgen05(f *testing.F) {
	f.Add("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", uint32(0x08400490), true, 128, 64, "e2m1", "e2m1", "", "ue4m3")
	f.Add("tcgen05.mma.cta_group::2.kind::f16", uint32(0), false, 256, 256, "bf16", "bf16", "f32", "")
	f.Add("tcgen05.mma.cta_group::1.kind::i8", uint32(0), false, 64, 8, "s8", "u8", "s32", "")
	f.Fuzz(func(t *testing.T, name string, v uint32, hasDesc bool, m, n int, a, b, d, st string) {
		in, err := ParseInst(name, TCOptions{M: m, N: n, A: a, B: b, D: d, ScaleType: st, IDesc: v, HasIDesc: hasDesc})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if in.M <= 0 || in.N <= 0 || in.K <= 0 || in.A == nil || in.B == nil || in.C == nil || (in.Eval == nil) == (in.Block == nil) && in.Family == FamilyTcgen05 {
			t.Fatalf("%q: incomplete instruction %+v", name, in)
		}
	})
}
