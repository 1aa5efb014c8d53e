package numfmt

import (
	"fmt"
	"strings"
	"testing"
)

// Cases the H100 settled (see fixtures/numfmt), kept here as readable
// regression tests, and hand-checked cases from the ISA.
func TestCvt(t *testing.T) {
	tests := []struct {
		spec string
		in   []uint64
		want uint64
		note string
	}{
		// Packing: a goes to the upper half.
		{"cvt.rn.f16x2.f32", []uint64{0x3f800000, 0x40000000}, 0x3c004000, "a high, b low"},
		{"cvt.rn.satfinite.e4m3x2.f32", []uint64{0x43e00000, 0xce6e6b28}, 0x7efe, "448 and -1e9 saturate"},
		{"cvt.rn.f16x2.e4m3x2", []uint64{0x7e01}, 0x5f001800, "448 and the smallest subnormal 2^-9"},
		{"cvt.rn.satfinite.e5m2x2.f16x2", []uint64{0x7c00fc00}, 0x7bfb, "±inf saturate to ±57344"},
		{"cvt.rn.satfinite.e2m1x2.f32", []uint64{0x40400000, 0xc0a00000}, 0x5e, "3 and -5 (a tie: to even -4)"},
		{"cvt.rn.satfinite.e2m3x2.f32", []uint64{0x41000000, 0x3e000000}, 0x1f01, "8 saturates to 7.5; 0.125"},
		{"cvt.rz.satfinite.ue8m0x2.f32", []uint64{0x40400000, 0x3f800000}, 0x807f, "3 -> 2, 1 -> 1"},
		{"cvt.rp.satfinite.ue8m0x2.f32", []uint64{0x40400000, 0x7f800000}, 0x81fe, "3 -> 4, inf -> 2^127"},
		{"cvt.rn.bf16x2.ue8m0x2", []uint64{0x7f00}, 0x3f800040, "1 and 2^-127 (a bf16 subnormal)"},
		// NaN rules measured on the H100.
		{"cvt.rn.f16.f32", []uint64{0xffc00001}, 0x7fff, "f32 -> f16: canonical NaN"},
		{"cvt.rn.f16.f64", []uint64{0xfff8000000000000}, 0xfe00, "f64 -> f16: sign and payload, quieted"},
		{"cvt.f64.f32", []uint64{0x7f800001}, 0x7ff8000020000000, "f32 -> f64: payload kept, quieted"},
		{"cvt.f32.bf16", []uint64{0x7f81}, 0x7f810000, "bf16 -> f32: bits shifted, not quieted"},
		{"cvt.ftz.f32.bf16", []uint64{0x7f81}, 0x7fffffff, "with .ftz: canonical"},
		{"cvt.ftz.f64.f32", []uint64{0xffc00000}, 0x7fffffffe0000000, ".ftz makes the f32 NaN canonical first"},
		{"cvt.f32.f32", []uint64{0x7f800001}, 0x7f800001, "a plain move keeps signalling NaNs"},
		{"cvt.rni.f32.f32", []uint64{0x7f800001}, 0x7fffffff, "integer rounding: canonical"},
		{"cvt.rna.tf32.f32", []uint64{0x7f800001}, 0x7f800000, "rna truncates a NaN's payload: infinity"},
		{"cvt.rna.satfinite.tf32.f32", []uint64{0x7fc00000}, 0x7fbfe000, ".satfinite takes one ulp off"},
		{"cvt.rna.satfinite.tf32.f32", []uint64{0x7f800000}, 0x7f7fe000, "inf -> MAX_NORM"},
		{"cvt.rn.tf32.f32", []uint64{0x7fc00001}, 0x7fffe000, "rn: canonical"},
		{"cvt.rna.tf32.f32", []uint64{0x3f801000}, 0x3f802000, "rna: a tie goes away from zero"},
		{"cvt.rn.tf32.f32", []uint64{0x3f801000}, 0x3f800000, "rn: a tie goes to even"},
		{"cvt.rn.satfinite.e4m3x2.f32", []uint64{0x7fc00000, 0xffc00000}, 0x7f7f, "NaN -> 0x7f, sign dropped"},
		{"cvt.rn.f16x2.e4m3x2", []uint64{0xff7f}, 0x7fff7fff, "e4m3 NaN -> canonical f16 NaN"},
		// Integer conversions.
		{"cvt.rzi.s32.f32", []uint64{0x7fc00000}, 0, "NaN -> 0"},
		{"cvt.rzi.s32.f64", []uint64{0x7ff8000000000000}, 0x80000000, "f64 NaN -> 1<<31"},
		{"cvt.rzi.u64.f32", []uint64{0x7fc00000}, 0x8000000000000000, "NaN -> 1<<63 for 64-bit"},
		{"cvt.rni.s32.f32", []uint64{0x40200000}, 2, "2.5 -> 2 (even)"},
		{"cvt.rni.s32.f32", []uint64{0x4f800000}, 0x7fffffff, "2^32 saturates"},
		{"cvt.rzi.u8.f32", []uint64{0xbf800000}, 0, "-1 -> 0 unsigned"},
		{"cvt.rpi.ftz.s32.f32", []uint64{0x00000001}, 0, ".ftz flushes the input first"},
		{"cvt.rpi.s32.f32", []uint64{0x00000001}, 1, "no .ftz: ceil(2^-149) = 1"},
		{"cvt.s8.s32", []uint64{0x00000180}, 0x80, "wraps"},
		{"cvt.sat.s8.s32", []uint64{0x00000180}, 0x7f, ".sat clamps"},
		{"cvt.sat.u8.s32", []uint64{0xffffffff}, 0, ".sat clamps -1 to 0"},
		{"cvt.rn.f16.s32", []uint64{65520}, 0x7c00, "65520 rounds to inf"},
		{"cvt.rz.f16.s32", []uint64{65520}, 0x7bff, "rz keeps 65504"},
		// .ftz and .sat details measured on the H100.
		{"cvt.rm.ftz.f16.f32", []uint64{0x80000001}, 0x8001, ".ftz does not flush f32 inputs toward f16"},
		{"cvt.rm.ftz.bf16.f32", []uint64{0x80000001}, 0x8000, "but does toward bf16"},
		{"cvt.rn.ftz.f32.f64", []uint64{0x380fffffe0000000}, 0, "tininess after rounding: this tie is exact at 24 bits"},
		{"cvt.rn.ftz.f32.f64", []uint64{0x380fffffffffffff}, 0x800000, "rounds up to 2^-126 at 24 bits: kept"},
		{"cvt.rn.f32.f64", []uint64{0x380fffffe0000000}, 0x800000, "no .ftz: the tie rounds to even 2^-126"},
		{"cvt.rni.sat.f32.f32", []uint64{0x3fc00000}, 0x3f800000, "1.5 -> 2 -> clamped to 1"},
		{"cvt.rmi.sat.f64.f64", []uint64{0x8000000000000000}, 0, ".sat turns -0 into +0"},
		{"cvt.sat.f32.f16", []uint64{0xfc00}, 0, "-inf -> 0"},
		{"cvt.rn.relu.f16.f32", []uint64{0x80000000}, 0, ".relu turns -0 into +0"},
		{"cvt.rn.relu.f16.f32", []uint64{0xffc00000}, 0x7fff, ".relu keeps NaN canonical"},
		{"cvt.bf16.f16", []uint64{0x3c01}, 0x3f80, "no rounding modifier: nearest even"},
	}
	for _, tt := range tests {
		s, err := ParseSpec(tt.spec)
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		got, err := Cvt(s, tt.in...)
		if err != nil {
			t.Errorf("%s %x: %v", tt.spec, tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s %x = %#x, want %#x (%s)", tt.spec, tt.in, got, tt.want, tt.note)
		}
	}
}

func TestCvtErrors(t *testing.T) {
	s := MustParseSpec("cvt.rn.satfinite.e4m3x2.f32")
	if _, err := Cvt(s, 1); err == nil || !strings.Contains(err.Error(), "takes 2 source operand(s) (a, b)") {
		t.Errorf("wrong operand count: %v", err)
	}
	if _, err := Cvt(MustParseSpec("cvt.rn.f16x2.e4m3x2"), 0x10000); err == nil {
		t.Error("an operand wider than 16 bits was accepted")
	}
}

func ExampleCvt() {
	s, _ := ParseSpec("cvt.rn.satfinite.e4m3x2.f32")
	d, _ := Cvt(s, 0x43e00000, 0x3e800000) // 448, 0.25
	fmt.Printf("%#04x\n", d)
	// Output: 0x7e28
}

func ExampleFormat_Decode() {
	v := E4M3.Decode(0x7e)
	fmt.Println(v.Class, v.Decimal(), v.Binary(3))
	// Output: normal 448 +1.110×2^8
}

func ExampleFormat_Encode() {
	v, _, _ := ParseNumber("1.3")
	b, info := E2M1.Encode(v, RN, Opts{Satfinite: true})
	fmt.Printf("%#x %s: %s\n", b, E2M1.Decode(b).Decimal(), info.Why())
	// Output: 0x3 1.5: .rn: rounded up in magnitude
}

func ExampleCvtTrace() {
	s := MustParseSpec("cvt.rni.s32.f32")
	d, lanes, _ := CvtTrace(s, 0x40200000) // 2.5
	fmt.Println(int32(d), lanes[0].Info.Why())
	// Output: 2 .rni: a tie, rounded down to the even neighbour
}
