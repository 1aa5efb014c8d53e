package numfmt

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// Hand-checked values from the PTX ISA (5.2.3) and the OCP MX spec.
func TestKnownValues(t *testing.T) {
	tests := []struct {
		f     string
		bits  uint64
		value string
		class Class
	}{
		{"e4m3", 0x7e, "448", Normal},
		{"e4m3", 0xfe, "-448", Normal},
		{"e4m3", 0x7f, "nan", NaN},
		{"e4m3", 0xff, "-nan", NaN},
		{"e4m3", 0x78, "256", Normal}, // S.1111.000 is a number, not infinity
		{"e4m3", 0x01, "0.001953125", Subnormal},
		{"e4m3", 0x08, "0.015625", Normal},
		{"e4m3", 0x80, "-0", Zero},
		{"e5m2", 0x7b, "57344", Normal},
		{"e5m2", 0x7c, "inf", Inf},
		{"e5m2", 0xfc, "-inf", Inf},
		{"e5m2", 0x7d, "nan", NaN},
		{"e5m2", 0x01, "0.0000152587890625", Subnormal},
		{"e2m3", 0x1f, "7.5", Normal},
		{"e2m3", 0x01, "0.125", Subnormal},
		{"e2m3", 0x3f, "-7.5", Normal},
		{"e3m2", 0x1f, "28", Normal},
		{"e3m2", 0x01, "0.0625", Subnormal},
		{"e2m1", 0x7, "6", Normal},
		{"e2m1", 0x1, "0.5", Subnormal},
		{"e2m1", 0xf, "-6", Normal},
		{"ue8m0", 0x7f, "1", Normal},
		{"ue8m0", 0x80, "2", Normal},
		{"ue8m0", 0xfe, "170141183460469231731687303715884105728", Normal}, // 2^127
		{"ue8m0", 0xff, "nan", NaN},
		{"ue4m3", 0x7e, "448", Normal},
		{"ue4m3", 0x7f, "nan", NaN},
		{"ue4m3", 0x01, "0.001953125", Subnormal},
		{"f16", 0x7bff, "65504", Normal},
		{"f16", 0x0001, "0.000000059604644775390625", Subnormal},
		{"f16", 0x7c00, "inf", Inf},
		{"f16", 0xfe00, "-nan", NaN},
		{"bf16", 0x7f7f, "338953138925153547590470800371487866880", Normal},
		{"bf16", 0x3f80, "1", Normal},
		{"f32", 0x3f800001, "1.00000011920928955078125", Normal},
		{"tf32", 0x3f801fff, "1", Normal}, // low 13 bits ignored
		{"tf32", 0x3f802000, "1.0009765625", Normal},
		{"s8", 0x80, "-128", Normal},
		{"s8", 0x7f, "127", Normal},
		{"u8", 0xff, "255", Normal},
		{"s4", 0x8, "-8", Normal},
		{"u4", 0xf, "15", Normal},
		{"s16", 0x8000, "-32768", Normal},
		{"s64", 0x8000000000000000, "-9223372036854775808", Normal},
		{"u64", 0xffffffffffffffff, "18446744073709551615", Normal},
		{"s2f6", 0x80, "-2", Normal},
		{"s2f6", 0x7f, "1.984375", Normal},
		{"s2f6", 0x01, "0.015625", Normal},
		{"b1", 1, "1", Normal},
	}
	for _, tt := range tests {
		f, err := Lookup(tt.f)
		if err != nil {
			t.Fatal(err)
		}
		v := f.Decode(tt.bits)
		if got := v.Decimal(); got != tt.value || v.Class != tt.class {
			t.Errorf("%s %#x = %s (%s), want %s (%s)", tt.f, tt.bits, got, v.Class, tt.value, tt.class)
		}
	}
}

func TestMaxFinite(t *testing.T) {
	want := map[string]string{"e4m3": "448", "e5m2": "57344", "e2m3": "7.5", "e3m2": "28", "e2m1": "6",
		"ue4m3": "448", "f16": "65504", "s8": "127", "u4": "15", "s2f6": "1.984375"}
	for name, w := range want {
		f, _ := Lookup(name)
		if got := f.Decode(f.MaxFinite(false)).Decimal(); got != w {
			t.Errorf("%s MAX_NORM = %s, want %s", name, got, w)
		}
	}
	if got := E4M3.Decode(E4M3.MaxFinite(true)).Decimal(); got != "-448" {
		t.Errorf("e4m3 -MAX_NORM = %s", got)
	}
}

func TestE2M1Values(t *testing.T) {
	want := []string{"0", "0.5", "1", "1.5", "2", "3", "4", "6"}
	for i, w := range want {
		if got := E2M1.Decode(uint64(i)).Decimal(); got != w {
			t.Errorf("e2m1 %#x = %s, want %s", i, got, w)
		}
		if got := E2M1.Decode(uint64(i) | 8).Decimal(); got != "-"+w {
			t.Errorf("e2m1 %#x = %s, want -%s", i|8, got, w)
		}
	}
}

func TestLookupErrors(t *testing.T) {
	if _, err := Lookup("e9m9"); err == nil {
		t.Error("Lookup(e9m9) succeeded")
	}
	if f, err := Lookup(".E4M3"); err != nil || f != E4M3 {
		t.Errorf("Lookup(.E4M3) = %v, %v", f, err)
	}
}

func smallFloats() []*Format {
	return []*Format{E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0, UE4M3, F16, BF16}
}

// Every pattern of every float format of at most 16 bits decodes to a value
// that encodes back to the same pattern under every rounding mode.
func TestRoundTripExhaustive(t *testing.T) {
	modes := []Mode{RN, RZ, RM, RP, RNA}
	for _, f := range smallFloats() {
		for b := uint64(0); b < 1<<f.Bits; b++ {
			bits := b << f.Shift
			v := f.Decode(bits)
			for _, m := range modes {
				got, info := f.Encode(v, m, Opts{})
				want := bits
				if v.IsNaN() {
					want, _ = f.CanonicalNaN()
				}
				if got != want || (info.Inexact && !v.IsNaN()) {
					t.Fatalf("%s %#x (%s) .%s: encodes to %#x (inexact %v)", f, bits, v, m, got, info.Inexact)
				}
			}
		}
	}
}

// f64 -> f32 rounding to nearest must match Go's conversion, and f32 ->
// f64 must be exact.
func TestAgainstGoFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 300000 {
		var x float64
		switch i % 3 {
		case 0:
			x = math.Float64frombits(rng.Uint64())
		case 1: // near the f32 range, including subnormals and overflow
			x = math.Ldexp(rng.Float64()+0.5, rng.IntN(300)-170)
			if rng.IntN(2) == 0 {
				x = -x
			}
		default: // f32 ties
			f := math.Float32frombits(rng.Uint32())
			x = float64(f) + math.Ldexp(float64(f), -25)
		}
		if math.IsNaN(x) {
			continue
		}
		got, _ := F32.Encode(FromFloat64(x), RN, Opts{})
		want := math.Float32bits(float32(x))
		if uint32(got) != want {
			t.Fatalf("f32(%v = %#x) = %#x, Go gives %#x", x, math.Float64bits(x), got, want)
		}
		f := math.Float32frombits(rng.Uint32())
		if f != f {
			continue
		}
		v := FromFloat32(f)
		if v.Float64() != float64(f) || !v.Exact64() {
			t.Fatalf("f32 %v widens to %v", f, v.Float64())
		}
	}
}

// The rounding modes' defining properties, on random exact values and
// every float format.
func TestRoundingProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fmts := append([]*Format{F32, TF32}, smallFloats()...)
	for i := range 200000 {
		f := fmts[i%len(fmts)]
		v := Value{Class: Normal, Neg: rng.IntN(2) == 0 && f.Signed, Sig: rng.Uint64() >> rng.IntN(64), Exp: rng.IntN(80) - 60}
		if f == F32 || f == TF32 {
			v.Exp = rng.IntN(360) - 220
		}
		if v.Sig == 0 {
			continue
		}
		maxV := f.Decode(f.MaxFinite(false))
		if cmpMag(v, maxV) > 0 {
			continue // overflow behaviour is tested separately
		}
		res := map[Mode]Value{}
		for _, m := range []Mode{RN, RZ, RM, RP, RNA} {
			b, _ := f.Encode(v, m, Opts{})
			res[m] = f.Decode(b)
		}
		if f.NoSubnormal && cmpMag(v, f.Decode(0)) < 0 {
			continue // ue8m0 has no zero: values below 2^-127 clamp up
		}
		if cmpMag(res[RZ], v) > 0 {
			t.Fatalf("%s .rz of %s gives %s: larger in magnitude", f, v, res[RZ])
		}
		if Cmp(res[RM], v) > 0 || Cmp(res[RP], v) < 0 {
			t.Fatalf("%s: .rm %s ≤ %s ≤ .rp %s fails", f, res[RM], v, res[RP])
		}
		// RN and RNA are a nearest neighbour; they differ only on ties.
		lo, hi := res[RM], res[RP]
		dl, dh := distance(v, lo), distance(v, hi)
		for _, m := range []Mode{RN, RNA} {
			r := res[m]
			d := distance(v, r)
			if d.Cmp(dl) > 0 && d.Cmp(dh) > 0 {
				t.Fatalf("%s .%s of %s gives %s, not a nearest neighbour of %s, %s", f, m, v, r, lo, hi)
			}
		}
		if dl.Cmp(dh) == 0 && Cmp(lo, hi) != 0 {
			// A tie: RNA goes away from zero, RN to the even significand.
			away := hi
			if v.Neg {
				away = lo
			}
			if Cmp(res[RNA], away) != 0 {
				t.Fatalf("%s .rna tie of %s gives %s, want %s", f, v, res[RNA], away)
			}
			b, _ := f.Encode(res[RN], RZ, Opts{})
			if f.MantBits > 0 && b&(1<<f.Shift) != 0 {
				t.Fatalf("%s .rn tie of %s gives %s, an odd significand", f, v, res[RN])
			}
		}
	}
}

func distance(a, b Value) *bigRat {
	d := new(bigRat).Sub(a.Rat(), b.Rat())
	return d.Abs(d)
}

func TestOverflow(t *testing.T) {
	big := FromInt(1 << 40)
	tests := []struct {
		f    *Format
		v    Value
		m    Mode
		o    Opts
		want uint64
	}{
		{F16, big, RN, Opts{}, 0x7c00},
		{F16, big, RZ, Opts{}, 0x7bff},
		{F16, big, RP, Opts{}, 0x7c00},
		{F16, big, RM, Opts{}, 0x7bff},
		{F16, withNeg(big), RM, Opts{}, 0xfc00},
		{F16, withNeg(big), RP, Opts{}, 0xfbff},
		{F16, big, RN, Opts{Satfinite: true}, 0x7bff},
		{F16, FromInt(65520), RN, Opts{}, 0x7c00}, // the tie above 65504 rounds to even: infinity
		{F16, FromInt(65519), RN, Opts{}, 0x7bff},
		{E4M3, FromInt(464), RN, Opts{Satfinite: true}, 0x7e},
		{E4M3, Value{Class: Inf}, RN, Opts{Satfinite: true}, 0x7e},
		{E4M3, Value{Class: Inf, Neg: true}, RN, Opts{Satfinite: true}, 0xfe},
		{E4M3, FromInt(500), RN, Opts{}, 0x7f}, // no infinity: NaN
		{E5M2, FromInt(1 << 20), RN, Opts{Satfinite: true}, 0x7b},
		{E5M2, FromInt(1 << 20), RN, Opts{}, 0x7c},
		{E2M1, FromInt(7), RN, Opts{Satfinite: true}, 0x7},
		{E2M1, withNeg(FromInt(100)), RN, Opts{Satfinite: true}, 0xf},
		{UE8M0, Value{Class: Normal, Sig: 3, Exp: 127}, RP, Opts{Satfinite: true}, 0xfe},
		{UE8M0, Value{Class: Normal, Sig: 3, Exp: 127}, RP, Opts{}, 0xff},
		{UE8M0, Value{Class: Zero}, RZ, Opts{}, 0x00},
		{UE8M0, FromInt(3), RP, Opts{}, 0x81},
		{UE8M0, FromInt(3), RZ, Opts{}, 0x80},
		{S8, FromInt(300), RZI, Opts{}, 0x7f},
		{S8, FromInt(-300), RZI, Opts{}, 0x80},
		{U8, FromInt(-3), RZI, Opts{}, 0x00},
		{S2F6, FromInt(5), RN, Opts{Satfinite: true}, 0x7f},
	}
	for _, tt := range tests {
		got, _ := tt.f.Encode(tt.v, tt.m, tt.o)
		if got != tt.want {
			t.Errorf("%s .%s %+v of %s = %#x, want %#x", tt.f, tt.m, tt.o, tt.v, got, tt.want)
		}
	}
}

func withNeg(v Value) Value { v.Neg = true; return v }

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in    string
		dec   string
		exact bool
	}{
		{"448", "448", true},
		{"-0", "-0", true},
		{"0.5", "0.5", true},
		{"0x1.8p3", "12", true},
		{"1/4", "0.25", true},
		{"-inf", "-inf", true},
		{"1e-3", "", false},
		{"1/3", "", false},
	}
	for _, tt := range tests {
		v, exact, err := ParseNumber(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if exact != tt.exact || (tt.exact && v.Decimal() != tt.dec) {
			t.Errorf("ParseNumber(%s) = %s exact %v", tt.in, v.Decimal(), exact)
		}
	}
	// 0.1 rounds correctly into f32 despite not being a binary fraction.
	v, _, _ := ParseNumber("0.1")
	b, _ := F32.Encode(v, RN, Opts{})
	if uint32(b) != math.Float32bits(0.1) {
		t.Errorf("0.1 -> f32 %#x, want %#x", b, math.Float32bits(0.1))
	}
	for _, bad := range []string{"", "abc", "--1", "1/0"} {
		if _, _, err := ParseNumber(bad); err == nil {
			t.Errorf("ParseNumber(%q) succeeded", bad)
		}
	}
}

type bigRat = big.Rat
