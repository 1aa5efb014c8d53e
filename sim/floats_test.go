package sim

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// edge32 are f32 bit patterns around the interesting boundaries.
func edge32() []uint32 {
	out := []uint32{0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
		0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF,
		0x477FE000, 0x477FF000, 0x477FEFFF, 0x47800000, 0x33800000, 0x33000000, 0x3F808000, 0x3F818000,
		0x4B000000, 0x4AFFFFFF, 0x3F000000, 0x3FC00000, 0x40200000, 0xCF000000, 0x4F000000, 0x4EFFFFFF}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		out = append(out, r.Uint32())
	}
	return out
}

// TestCvtFastPaths checks every hand-written cvt against the H100-verified
// numfmt model.
func TestCvtFastPaths(t *testing.T) {
	specs := []string{"cvt.rn.bf16x2.f32", "cvt.rn.f16x2.f32", "cvt.rn.bf16.f32", "cvt.rn.f16.f32",
		"cvt.rni.f32.f32", "cvt.rzi.f32.f32", "cvt.rmi.f32.f32", "cvt.rpi.f32.f32",
		"cvt.rni.s32.f32", "cvt.rzi.s32.f32", "cvt.rmi.s32.f32", "cvt.rpi.s32.f32",
		"cvt.rn.f32.s32", "cvt.rn.f32.u32", "cvt.f32.bf16", "cvt.f32.f16"}
	vals := edge32()
	for _, name := range specs {
		s, err := numfmt.ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		fast := cvtFast(s)
		if fast == nil {
			t.Errorf("%s has no fast path", name)
			continue
		}
		ins := s.Inputs()
		bad := 0
		for i, v := range vals {
			args := []uint64{uint64(v)}
			if len(ins) == 2 {
				args = append(args, uint64(vals[(i*7+3)%len(vals)]))
			}
			for k, o := range ins {
				if o.Bits < 64 {
					args[k] &= 1<<o.Bits - 1
				}
			}
			want, err := numfmt.Cvt(s, args...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := fast(args); got != want && bad < 3 {
				t.Errorf("%s%#x: fast path %#x, numfmt %#x", name, args, got, want)
				bad++
			}
		}
	}
}

func TestHalfRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50000; i++ {
		x := math.Float64frombits(r.Uint64())
		if i%2 == 0 {
			x = float64(math.Float32frombits(r.Uint32()))
		}
		if x != x {
			continue
		}
		for _, f := range []struct {
			fmt *numfmt.Format
			got uint64
		}{{numfmt.F16, uint64(f64ToF16(x))}, {numfmt.BF16, uint64(f64ToBF16(x))}} {
			want, _ := f.fmt.Encode(numfmt.FromFloat64(x), numfmt.RN, numfmt.Opts{})
			if f.got != want {
				t.Fatalf("%g → %s: got %#x, want %#x", x, f.fmt.Name, f.got, want)
			}
		}
	}
}

// TestFmaF32 checks fma.rn.f32 (and directed modes) against exact
// rational arithmetic.
func TestFmaF32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	modes := []numfmt.Mode{numfmt.RN, numfmt.RZ, numfmt.RM, numfmt.RP}
	for i := 0; i < 20000; i++ {
		a, b, c := r.Uint32(), r.Uint32(), r.Uint32()
		if i%3 == 0 { // products near the sum's magnitude: cancellation
			c = f32bits(-f32frombits(a) * f32frombits(b))
			c ^= r.Uint32() & 0xF
		}
		x, y, z := f32frombits(a), f32frombits(b), f32frombits(c)
		if x != x || y != y || z != z || math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) {
			continue
		}
		exact := new(big.Rat).Mul(new(big.Rat).SetFloat64(float64(x)), new(big.Rat).SetFloat64(float64(y)))
		exact.Add(exact, new(big.Rat).SetFloat64(float64(z)))
		for _, m := range modes {
			got := fmaF32(a, b, c, m)
			if exact.Sign() == 0 {
				continue // the sign of an exact zero is checked by the corpus
			}
			v, ok := numfmt.FromRat(exact)
			if !ok {
				continue
			}
			want, _ := numfmt.F32.Encode(v, m, numfmt.Opts{})
			if uint64(got) != want {
				t.Fatalf("fma.%s(%g, %g, %g) = %#x, want %#x", m, x, y, z, got, want)
			}
		}
	}
}

// min and max follow PTX: a NaN operand is ignored unless .NaN, both NaN
// give the canonical NaN, and -0 < +0.
func TestMinMaxF32(t *testing.T) {
	const (
		pz, nz  = 0x00000000, 0x80000000
		one     = 0x3f800000
		mone    = 0xbf800000
		qnan    = 0x7fc00001
		inf     = 0x7f800000
		ninf    = 0xff800000
		subnorm = 0x00000001
	)
	for _, c := range []struct {
		a, b     uint32
		nan      bool
		min, max uint32
	}{
		{one, mone, false, mone, one},
		{mone, one, false, mone, one},
		{pz, nz, false, nz, pz},
		{nz, pz, false, nz, pz},
		{qnan, one, false, one, one},
		{one, qnan, false, one, one},
		{qnan, one, true, nanF32, nanF32},
		{qnan, qnan, false, nanF32, nanF32},
		{inf, ninf, false, ninf, inf},
		{subnorm, pz, false, pz, subnorm},
		{one, one, false, one, one},
	} {
		if got := minF32(c.a, c.b, c.nan); got != c.min {
			t.Errorf("min(%#x, %#x, nan=%v) = %#x, want %#x", c.a, c.b, c.nan, got, c.min)
		}
		if got := maxF32(c.a, c.b, c.nan); got != c.max {
			t.Errorf("max(%#x, %#x, nan=%v) = %#x, want %#x", c.a, c.b, c.nan, got, c.max)
		}
	}
}
