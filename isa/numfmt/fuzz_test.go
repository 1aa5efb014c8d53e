package numfmt

import "testing"

// FuzzParseNumber reads arbitrary text as 'tcsim num encode' and 'tcsim num
// cvt' do, and rounds every number it accepts into every format under every
// directed mode: no panic, the bits stay inside the container, an exact
// rounding gives back the number, and the directed modes bracket it.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"3.3", "-0", "1/3", "-7/8", "0x1.8p3", "inf", "-nan", "448", "464", "65519.99", "1e39",
		"1e-300000", "0.0000001", "-57344", "2.5", "0x1p-149", "340282356779733661637539395458142568448", "1_000"} {
		f.Add(s)
	}
	modes := []Mode{RN, RZ, RM, RP, RNA, RNI, RZI, RMI, RPI}
	f.Fuzz(func(t *testing.T, s string) {
		v, exact, err := ParseNumber(s)
		if err != nil {
			return
		}
		if v.Class == Zero || v.Class == Subnormal || v.Class == Normal {
			if v.Sig == 0 && v.Class != Zero {
				t.Fatalf("%q: finite value without significand: %+v", s, v)
			}
		}
		for _, fm := range Formats() {
			// res[m] is the finite, unsaturated result of mode m, if any.
			res := map[Mode]Value{}
			for _, m := range modes {
				b, info := fm.Encode(v, m, Opts{})
				if b&^lowMask(fm.Container) != 0 {
					t.Fatalf("%q as %s .%s: %#x is wider than the %d-bit container", s, fm.Name, m, b, fm.Container)
				}
				_ = info.Why()
				got := fm.Decode(b)
				if fm.Kind != FloatKind || !exact || !v.IsFinite() || !got.IsFinite() || info.Saturated || info.Flushed {
					continue
				}
				res[m] = got
				if !m.IsInteger() && !info.Inexact && Cmp(got, v) != 0 {
					t.Fatalf("%q as %s .%s: exact rounding gives %s", s, fm.Name, m, got.Decimal())
				}
			}
			lo, okLo := res[RM]
			hi, okHi := res[RP]
			if okLo && Cmp(lo, v) > 0 {
				t.Fatalf("%q as %s .rm: %s is above the number", s, fm.Name, lo.Decimal())
			}
			if okHi && Cmp(hi, v) < 0 {
				t.Fatalf("%q as %s .rp: %s is below the number", s, fm.Name, hi.Decimal())
			}
			if !okLo || !okHi {
				continue
			}
			for _, m := range []Mode{RN, RZ, RNA} {
				if got, ok := res[m]; ok && (Cmp(got, lo) < 0 || Cmp(got, hi) > 0) {
					t.Fatalf("%q as %s .%s: %s is outside [%s, %s]", s, fm.Name, m, got.Decimal(), lo.Decimal(), hi.Decimal())
				}
			}
		}
	})
}

// FuzzCvt runs every legal cvt opcode on arbitrary operand bits, as 'tcsim
// num cvt OPCODE 0x...' does: no panic, no error for operands that fit,
// and the result fits the destination.
func FuzzCvt(f *testing.F) {
	specs := AllSpecs()
	f.Add(uint16(0), uint64(0), uint64(0), uint64(0))
	f.Add(uint16(7), uint64(0x7f800000), uint64(0xff800001), uint64(0x80000000))
	f.Add(uint16(300), uint64(0xffffffffffffffff), uint64(1), uint64(0x7e))
	f.Fuzz(func(t *testing.T, which uint16, a, b, c uint64) {
		s := specs[int(which)%len(specs)]
		ops := s.Inputs()
		in := make([]uint64, len(ops))
		for i, o := range ops {
			x := []uint64{a, b, c, a ^ b}[i%4]
			if o.Bits < 64 {
				x &= 1<<o.Bits - 1
			}
			in[i] = x
		}
		out, err := Cvt(s, in...)
		if err != nil {
			t.Fatalf("%s %#x: %v", s, in, err)
		}
		if n := s.OutBits(); n < 64 && out>>n != 0 {
			t.Fatalf("%s %#x = %#x, wider than %d bits", s, in, out, n)
		}
		out2, lanes, err := CvtTrace(s, in...)
		if err != nil || out2 != out || len(lanes) == 0 {
			t.Fatalf("%s %#x: CvtTrace = %#x, %d lanes, %v; Cvt = %#x", s, in, out2, len(lanes), err, out)
		}
		for _, l := range lanes {
			_ = l.Info.Why()
		}
	})
}
