package desc

import (
	"strings"
	"testing"
)

// FuzzSmemDescriptor decodes any 64-bit value under both formats and any
// context: it must not panic, must round-trip, and every finding must name
// a field and a rule.
func FuzzSmemDescriptor(f *testing.F) {
	for _, v := range []uint64{0, 0x4000004000010040, 0x4000404000010040, 0x0000001000080000, 0x2000402000400040,
		0xffffffffffffffff, 0x6000004000010040, 0x40003c0000010040, 0x4000004000010048} {
		f.Add(v, uint8(0), uint8(0), uint8(0), uint16(0))
		f.Add(v, uint8(1), uint8(1), uint8(3), uint16(64<<8|16))
	}
	f.Fuzz(func(t *testing.T, v uint64, arch, major, dt uint8, tile uint16) {
		ctx := Context{Major: Major(major % 3), Swizzle: Swizzle(dt / 8 % 6), TileMN: int(tile>>8) * 8, TileK: int(tile & 0xff)}
		ctx.DType = []string{"", "bf16", "tf32", "e4m3", "e2m1", "s8"}[int(dt)%6]
		r := ExplainSmem(v, Arch(arch%3), ctx)
		for _, fd := range r.Findings {
			if fd.Field == "" || fd.Rule == "" || fd.Msg == "" {
				t.Fatalf("finding without field, rule or message: %+v", fd)
			}
		}
		if len(r.Fields) == 0 || !strings.Contains(r.String(), "bits") {
			t.Fatal("no fields explained")
		}
		if w, err := DecodeWGMMA(v).Encode(); err != nil || w != v {
			t.Fatalf("wgmma round trip %#x -> %#x, %v", v, w, err)
		}
		if w, err := DecodeTCGen05Smem(v).Encode(); err != nil || w != v {
			t.Fatalf("tcgen05 round trip %#x -> %#x, %v", v, w, err)
		}
		// render.FuzzDrawFootprint draws the footprint of the same inputs.
		if fr, err := r.WithFootprint(); err == nil && len(fr.Footprint) == 0 {
			t.Fatal("a footprint without reads")
		}
	})
}

// FuzzIDesc decodes any 32-bit value as every kind under any context.
func FuzzIDesc(f *testing.F) {
	for _, v := range []uint32{0, 0x08400490, 0x08400480, 0x0261e488, 0xffffffff, 1 << 23} {
		f.Add(v, uint8(0))
		f.Add(v, uint8(0x1f))
	}
	f.Fuzz(func(t *testing.T, v uint32, c uint8) {
		ctx := IDescContext{CTAGroup: int(c % 3), WS: Tri(c / 3 % 3), Swizzle: Swizzle(c / 9 % 6)}
		for _, k := range Kinds {
			d := DecodeIDesc(v, k)
			if w, err := d.Encode(); err != nil || w != v {
				t.Fatalf("%s: round trip %#x -> %#x, %v", k, v, w, err)
			}
			r := ExplainIDesc(v, k, ctx)
			for _, fd := range r.Findings {
				if fd.Field == "" || fd.Rule == "" || fd.Msg == "" {
					t.Fatalf("finding without field, rule or message: %+v", fd)
				}
			}
			_ = r.String()
		}
	})
}

// FuzzEncode builds descriptors from arbitrary byte values and words, as
// 'tcsim desc encode' does: no panic, and whatever encodes decodes back
// to what was asked for.
func FuzzEncode(f *testing.F) {
	f.Add(uint32(0x400), uint32(16), uint32(1024), uint8(4), int8(-1), uint8(0), uint16(128), uint16(256), uint8(0))
	f.Add(uint32(0x40000), uint32(0x3fff0), uint32(8), uint8(1), int8(7), uint8(3), uint16(64), uint16(8), uint8(0xff))
	f.Add(uint32(0xffffffff), uint32(17), uint32(0), uint8(5), int8(9), uint8(6), uint16(0), uint16(0), uint8(1))
	types := []string{"", "f32", "f16", "bf16", "tf32", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "s8", "u8", "s32", "ue8m0", "x"}
	f.Fuzz(func(t *testing.T, addr, lbo, sbo uint32, swz uint8, base int8, kind uint8, m, n uint16, flags uint8) {
		sw := Swizzle(swz % 6)
		if d, err := NewWGMMA(addr, lbo, sbo, sw, int(base)); err == nil {
			v, err := d.Encode()
			if err != nil {
				t.Fatalf("NewWGMMA(%#x, %d, %d, %s, %d) does not encode: %v", addr, lbo, sbo, sw, base, err)
			}
			l := DecodeWGMMA(v).Layout()
			if l.Start != addr&0x3FFF0 || l.LBO != lbo || l.SBO != sbo || l.Swizzle != sw || (base >= 0 && l.BaseOffset != int(base)) {
				t.Fatalf("NewWGMMA(%#x, %d, %d, %s, %d) = %#x decodes to %+v", addr, lbo, sbo, sw, base, v, l)
			}
		}
		if d, err := NewTCGen05Smem(addr, lbo, sbo, sw, int(base)); err == nil {
			v, err := d.Encode()
			if err != nil {
				t.Fatalf("NewTCGen05Smem(%#x, %d, %d, %s, %d) does not encode: %v", addr, lbo, sbo, sw, base, err)
			}
			l := DecodeTCGen05Smem(v).Layout()
			if l.Start != addr&0x3FFF0 || l.LBO != lbo || l.SBO != sbo || l.Swizzle != sw || (base >= 0 && l.BaseOffset != int(base)) {
				t.Fatalf("NewTCGen05Smem(%#x, %d, %d, %s, %d) = %#x decodes to %+v", addr, lbo, sbo, sw, base, v, l)
			}
		}
		k := Kinds[int(kind)%len(Kinds)]
		spec := IDescSpec{Kind: k, D: types[int(flags)%len(types)], A: types[int(kind/8)%len(types)], B: types[int(swz/8)%len(types)],
			M: int(m), N: int(n), Sparse: flags&1 != 0, SparseSelector: int(flags>>1) % 5, Saturate: flags&8 != 0,
			NegateA: flags&16 != 0, NegateB: flags&32 != 0, MajorA: Major(flags >> 6 % 3), MajorB: Major(swz % 3),
			MaxShift: []int{0, 8, 16, 32, 7}[int(base)&7%5], ScaleType: []string{"", "ue8m0", "ue4m3", "e4m3"}[swz%4],
			ScaleAID: int(base) % 5, ScaleBID: int(kind) % 5, K96: flags&4 != 0}
		d, err := NewIDesc(spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		v, err := d.Encode()
		if err != nil {
			t.Fatalf("NewIDesc(%+v) does not encode: %v", spec, err)
		}
		back := DecodeIDesc(v, k)
		if back != d || back.M() != spec.M || back.N() != spec.N {
			t.Fatalf("NewIDesc(%+v) = %#x decodes to %+v (M %d N %d), built %+v", spec, v, back, back.M(), back.N(), d)
		}
		_ = ExplainIDesc(v, k, IDescContext{}).String()
	})
}
