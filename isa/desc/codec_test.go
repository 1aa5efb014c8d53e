package desc

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestWGMMARoundTripFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		d := WGMMA{
			StartAddr:  uint16(rng.IntN(1 << 14)),
			LBO:        uint16(rng.IntN(1 << 14)),
			SBO:        uint16(rng.IntN(1 << 14)),
			BaseOffset: uint8(rng.IntN(8)),
			LayoutType: uint8(rng.IntN(4)),
		}
		if i%3 == 0 {
			d.Reserved = rng.Uint64() & wgmmaReservedMsk
		}
		v, err := d.Encode()
		if err != nil {
			t.Fatalf("Encode(%+v): %v", d, err)
		}
		if got := DecodeWGMMA(v); got != d {
			t.Fatalf("Decode(Encode(%+v)) = %+v (value %#x)", d, got, v)
		}
	}
}

func TestWGMMARoundTripValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		v := rng.Uint64()
		got, err := DecodeWGMMA(v).Encode()
		if err != nil || got != v {
			t.Fatalf("Encode(Decode(%#x)) = %#x, %v", v, got, err)
		}
	}
}

func TestTCGen05SmemRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		d := TCGen05Smem{
			StartAddr:   uint16(rng.IntN(1 << 14)),
			LBO:         uint16(rng.IntN(1 << 14)),
			SBO:         uint16(rng.IntN(1 << 14)),
			Version:     uint8(rng.IntN(8)),
			BaseOffset:  uint8(rng.IntN(8)),
			LBOMode:     uint8(rng.IntN(2)),
			SwizzleCode: uint8(rng.IntN(8)),
		}
		if i%3 == 0 {
			d.Reserved = rng.Uint64() & tcReservedMsk
		}
		v, err := d.Encode()
		if err != nil {
			t.Fatalf("Encode(%+v): %v", d, err)
		}
		if got := DecodeTCGen05Smem(v); got != d {
			t.Fatalf("Decode(Encode(%+v)) = %+v", d, got)
		}
		w := rng.Uint64()
		if got, err := DecodeTCGen05Smem(w).Encode(); err != nil || got != w {
			t.Fatalf("Encode(Decode(%#x)) = %#x, %v", w, got, err)
		}
	}
}

// randIDesc draws a descriptor with every field of kind k random and in
// range, and the fields k lacks zero.
func randIDesc(rng *rand.Rand, k Kind) IDesc {
	d := IDesc{
		Kind: k, Sparse: rng.IntN(2) == 1, AType: uint8(rng.IntN(8)),
		NegateA: rng.IntN(2) == 1, NegateB: rng.IntN(2) == 1,
		TransposeA: rng.IntN(2) == 1, TransposeB: rng.IntN(2) == 1,
		NField: uint8(rng.IntN(64)),
	}
	if k.BlockScaled() {
		d.BType = uint8(rng.IntN(8))
		if k.fp4Only() {
			d.BType = uint8(rng.IntN(4))
			d.KSize = uint8(rng.IntN(2))
		}
		d.MField = uint8(rng.IntN(4))
		d.ScaleAID, d.ScaleBID, d.ScaleType = uint8(rng.IntN(4)), uint8(rng.IntN(4)), uint8(rng.IntN(2))
	} else {
		d.SparseSelector, d.Saturate, d.DType = uint8(rng.IntN(4)), rng.IntN(2) == 1, uint8(rng.IntN(4))
		d.BType, d.MField, d.MaxShift = uint8(rng.IntN(8)), uint8(rng.IntN(32)), uint8(rng.IntN(4))
	}
	if rng.IntN(3) == 0 {
		d.Reserved = rng.Uint32() & k.reservedMask()
	}
	return d
}

func TestIDescRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range Kinds {
		for i := 0; i < 5000; i++ {
			d := randIDesc(rng, k)
			v, err := d.Encode()
			if err != nil {
				t.Fatalf("%s: Encode(%+v): %v", k, d, err)
			}
			if got := DecodeIDesc(v, k); got != d {
				t.Fatalf("%s: Decode(Encode(%+v)) = %+v (value %#x)", k, d, got, v)
			}
			w := rng.Uint32()
			if got, err := DecodeIDesc(w, k).Encode(); err != nil || got != w {
				t.Fatalf("%s: Encode(Decode(%#x)) = %#x, %v", k, w, got, err)
			}
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	bad := []struct {
		name string
		enc  func() error
	}{
		{"wgmma start 15 bits", func() error { _, err := WGMMA{StartAddr: 1 << 14}.Encode(); return err }},
		{"wgmma layout 3 bits", func() error { _, err := WGMMA{LayoutType: 4}.Encode(); return err }},
		{"wgmma reserved in field", func() error { _, err := WGMMA{Reserved: 1}.Encode(); return err }},
		{"tcgen05 version 4 bits", func() error { _, err := TCGen05Smem{Version: 8}.Encode(); return err }},
		{"tcgen05 lbo mode 2", func() error { _, err := TCGen05Smem{LBOMode: 2}.Encode(); return err }},
		{"idesc no kind", func() error { _, err := IDesc{}.Encode(); return err }},
		{"idesc f16 scale id", func() error { _, err := IDesc{Kind: KindF16, ScaleAID: 1}.Encode(); return err }},
		{"idesc mxf4 saturate", func() error { _, err := IDesc{Kind: KindMXF4, Saturate: true}.Encode(); return err }},
		{"idesc mxf4 btype 3 bits", func() error { _, err := IDesc{Kind: KindMXF4, BType: 4}.Encode(); return err }},
		{"idesc mx M 3 bits", func() error { _, err := IDesc{Kind: KindMXF8F6F4, MField: 4}.Encode(); return err }},
		{"idesc mxf8f6f4 k size", func() error { _, err := IDesc{Kind: KindMXF8F6F4, KSize: 1}.Encode(); return err }},
		{"idesc reserved outside mask", func() error { _, err := IDesc{Kind: KindF16, Reserved: 1}.Encode(); return err }},
	}
	for _, b := range bad {
		if err := b.enc(); err == nil {
			t.Errorf("%s: Encode succeeded", b.name)
		}
	}
}

// Known values: built by hand from the ISA tables and cross-checked
// against CUTLASS's bitfield structs (mma_sm90_desc.hpp GmmaDescriptor,
// mma_sm100_desc.hpp SmemDescriptor / InstrDescriptor).
func TestKnownValues(t *testing.T) {
	w, err := NewWGMMA(0x400, 16, 1024, Swizzle128B, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := w.Encode(); v != 0x4000004000010040 {
		t.Errorf("wgmma 128B K-major at 0x400: %#x, want 0x4000004000010040", v)
	}
	// No swizzle K-major bf16 64x16 with core matrices along K adjacent:
	// LBO 128 (REFERENCES fact 4: the distance between the two core
	// matrices adjacent along K), SBO 256.
	w, _ = NewWGMMA(0x0, 128, 256, SwizzleNone, 0)
	if v, _ := w.Encode(); v != 0x0000001000080000 {
		t.Errorf("wgmma no-swizzle: %#x, want 0x0000001000080000", v)
	}
	w, _ = NewWGMMA(0x200, 16, 256, Swizzle32B, 0)
	if v, _ := w.Encode(); v != 0xC000001000010020 {
		t.Errorf("wgmma 32B: %#x", v)
	}
	s, err := NewTCGen05Smem(0x400, 16, 1024, Swizzle128B, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Encode(); v != 0x4000404000010040 {
		t.Errorf("tcgen05 128B K-major at 0x400: %#x, want 0x4000404000010040", v)
	}
	if b := ISABaseOffset(0x480, Swizzle128B); b != 1 {
		t.Errorf("the ISA's base offset at 0x480 for 128B = %d, want 1", b)
	}
	if b := ISABaseOffset(0x680, Swizzle64B); b != 1 {
		t.Errorf("the ISA's base offset at 0x680 for 64B = %d, want 1 (5 mod 4)", b)
	}
	if _, err := NewWGMMA(0x400, 16, 1024, Swizzle128B, -1); err == nil {
		t.Error("base offset -1 accepted")
	}
	for _, c := range []struct {
		swz  Swizzle
		code uint8
	}{{SwizzleNone, 0}, {Swizzle128B32A, 1}, {Swizzle128B, 2}, {Swizzle64B, 4}, {Swizzle32B, 6}} {
		s, _ := NewTCGen05Smem(0, 0, 0, c.swz, 0)
		if v, _ := s.Encode(); v>>61 != uint64(c.code) {
			t.Errorf("tcgen05 %s: code %d, want %d", c.swz, v>>61, c.code)
		}
	}
	id, err := NewIDesc(IDescSpec{Kind: KindF16, D: "f32", A: "bf16", B: "bf16", M: 128, N: 256})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := id.Encode(); v != 0x08400490 {
		t.Errorf("idesc f16 bf16->f32 128x256: %#x, want 0x08400490", v)
	}
	// kind::mxf4nvf4 as a public NVFP4 kernel builds it:
	// (1<<7) | (1<<10) | ((N>>3)<<17) | ((M>>7)<<27), ue4m3 scales.
	id, _ = NewIDesc(IDescSpec{Kind: KindMXF4NVF4, A: "e2m1", B: "e2m1", M: 128, N: 256, ScaleType: "ue4m3"})
	if v, _ := id.Encode(); v != (1<<7)|(1<<10)|(32<<17)|(1<<27) {
		t.Errorf("idesc mxf4nvf4: %#x", v)
	}
	id, _ = NewIDesc(IDescSpec{Kind: KindI8, D: "s32", A: "s8", B: "u8", M: 64, N: 48, Saturate: true, MajorB: MajorMN})
	if v, _ := id.Encode(); v != 1<<3|2<<4|1<<7|0<<10|1<<16|6<<17|4<<24 {
		t.Errorf("idesc i8: %#x", v)
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := NewWGMMA(0x408, 16, 1024, Swizzle128B, 0); err == nil {
		t.Error("unaligned address accepted")
	}
	if _, err := NewWGMMA(0x400, 1<<18, 1024, Swizzle128B, 0); err == nil {
		t.Error("LBO of 256 KiB accepted")
	}
	if _, err := NewWGMMA(0x400, 16, 1024, Swizzle128B32A, 0); err == nil {
		t.Error("128B-32A accepted on sm_90")
	}
	if _, err := NewTCGen05Smem(0x400, 16, 1024, Swizzle128B, 8); err == nil {
		t.Error("base offset 8 accepted")
	}
	for _, s := range []IDescSpec{
		{Kind: KindF16, D: "f32", A: "tf32", B: "bf16", M: 128, N: 256},
		{Kind: KindF16, D: "s32", A: "f16", B: "f16", M: 128, N: 256},
		{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 100, N: 256},
		{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 128, N: 12},
		{Kind: KindMXF8F6F4, A: "e4m3", B: "e4m3", M: 64, N: 256},
		{Kind: KindMXF4, A: "e2m1", B: "e2m1", M: 128, N: 256, Saturate: true},
		{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 128, N: 256, MaxShift: 4},
	} {
		if _, err := NewIDesc(s); err == nil {
			t.Errorf("NewIDesc(%+v) succeeded", s)
		}
	}
}

func TestSwizzleCodes(t *testing.T) {
	for _, s := range []Swizzle{SwizzleNone, Swizzle32B, Swizzle64B, Swizzle128B} {
		c, ok := s.SM90Code()
		if !ok || SwizzleFromSM90(c) != s {
			t.Errorf("sm_90 %s: code %d ok=%v", s, c, ok)
		}
	}
	for _, s := range []Swizzle{SwizzleNone, Swizzle32B, Swizzle64B, Swizzle128B, Swizzle128B32A} {
		c, ok := s.SM100Code()
		if !ok || SwizzleFromSM100(c) != s {
			t.Errorf("sm_100 %s: code %d ok=%v", s, c, ok)
		}
		p, err := ParseSwizzle(s.String())
		if err != nil || p != s {
			t.Errorf("ParseSwizzle(%q) = %v, %v", s, p, err)
		}
	}
	for _, c := range []uint8{3, 5, 7} {
		if SwizzleFromSM100(c) != SwizzleUnknown {
			t.Errorf("sm_100 code %d decoded as valid", c)
		}
	}
	// The sm_100 codes 2, 4, 6 put the sm_90 codes 1, 2, 3 of the same
	// mode in bits 62-63: a coincidence of the encodings worth testing,
	// because it is why the two are so easily confused.
	for _, s := range []Swizzle{Swizzle128B, Swizzle64B, Swizzle32B} {
		c100, _ := s.SM100Code()
		c90, _ := s.SM90Code()
		if c100>>1 != c90 {
			t.Errorf("%s: sm_100 code %d >> 1 != sm_90 code %d", s, c100, c90)
		}
	}
	for _, bad := range []string{"", "96B", "128C", "sw"} {
		if _, err := ParseSwizzle(bad); err == nil {
			t.Errorf("ParseSwizzle(%q) accepted", bad)
		}
	}
}

func TestSwizzleApply(t *testing.T) {
	// 128B: chunk (bits 4-6) ^= row (bits 7-9).
	for _, c := range []struct {
		s        Swizzle
		in, want uint32
	}{
		{Swizzle128B, 0x080, 0x090}, {Swizzle128B, 0x380, 0x3f0}, {Swizzle128B, 0x400, 0x400}, {Swizzle128B, 0x4b5, 0x4a5},
		{Swizzle64B, 0x080, 0x090}, {Swizzle64B, 0x180, 0x1b0}, {Swizzle64B, 0x200, 0x200}, {Swizzle64B, 0x380, 0x3b0},
		{Swizzle32B, 0x080, 0x090}, {Swizzle32B, 0x100, 0x100}, {Swizzle32B, 0x0f0, 0x0e0}, {Swizzle32B, 0x070, 0x070},
		{Swizzle128B32A, 0x080, 0x0a0}, {Swizzle128B32A, 0x180, 0x1e0}, {Swizzle128B32A, 0x190, 0x1f0}, {Swizzle128B32A, 0x200, 0x200},
		{SwizzleNone, 0x3f0, 0x3f0},
	} {
		if got := c.s.Apply(c.in); got != c.want {
			t.Errorf("%s.Apply(%#x) = %#x, want %#x", c.s, c.in, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]Arch{"sm_90a": SM90, "SM90": SM90, "sm_100a": SM100, "tcgen05": SM100} {
		if a, err := ParseArch(s); err != nil || a != want {
			t.Errorf("ParseArch(%q) = %v, %v", s, a, err)
		}
	}
	if _, err := ParseArch("sm_80"); err == nil {
		t.Error("ParseArch(sm_80) accepted")
	}
	for s, want := range map[string]Major{"K": MajorK, "mn": MajorMN, "N": MajorMN, "k-major": MajorK} {
		if m, err := ParseMajor(s); err != nil || m != want {
			t.Errorf("ParseMajor(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMajor("row"); err == nil {
		t.Error("ParseMajor(row) accepted")
	}
	for _, k := range Kinds {
		if got, err := ParseKind(".kind::" + k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%s) = %v, %v", k, got, err)
		}
	}
	if _, err := ParseKind("kind::mxf8"); err == nil || !strings.HasSuffix(err.Error(), "; did you mean mxf4?") {
		t.Errorf("ParseKind(mxf8): %v", err)
	}
	if _, err := ElemBits("bf61"); err == nil || !strings.HasSuffix(err.Error(), "; did you mean bf16?") {
		t.Errorf("ElemBits(bf61): %v", err)
	}
	if mn, k, err := ParseTile("64x16"); err != nil || mn != 64 || k != 16 {
		t.Errorf("ParseTile = %d %d %v", mn, k, err)
	}
	for _, bad := range []string{"64", "x16", "64x", "-8x16", "64x16x2", "0x8", "64X0", "99999x8"} {
		if _, _, err := ParseTile(bad); err == nil {
			t.Errorf("ParseTile(%q) accepted", bad)
		}
	}
}
