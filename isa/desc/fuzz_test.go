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
		if fr, err := r.WithFootprint(); err == nil {
			var b strings.Builder
			if err := DrawFootprint(&b, fr.Footprint, fr.Operand, DrawOptions{MaxLines: 64}); err != nil {
				t.Fatal(err)
			}
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
