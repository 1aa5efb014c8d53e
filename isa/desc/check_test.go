package desc

import (
	"strings"
	"testing"
)

func smemFindings(t *testing.T, v uint64, arch Arch, ctx Context) Findings {
	t.Helper()
	return ExplainSmem(v, arch, ctx).Findings
}

func TestSmemChecks(t *testing.T) {
	kbf := Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 16}
	tests := []struct {
		name    string
		v       uint64
		arch    Arch
		ctx     Context
		rule    string   // a finding with this rule must be present ("" = no findings at all)
		sev     Severity // and have this severity
		msgPart string   // and mention this
	}{
		{"canonical wgmma 128B K-major", 0x4000004000010040, ArchUnknown, kbf, "", 0, ""},
		{"canonical tcgen05 128B K-major", 0x4000404000010040, ArchUnknown, kbf, "", 0, ""},
		{"canonical wgmma no swizzle K-major (fact 4)", 0x0000001000080000, SM90, kbf, "", 0, ""},
		{"SBO written in bytes", 0x4000040000010040, SM90, kbf, "offset-in-bytes", Warning, "write 64 (0x40)"},
		{"SBO in bytes, beyond smem", 0x40003c0000010040, SM90, kbf, "offset-in-bytes", Error, "more than the 228 KiB"},
		{"start past smem", 0x4000004000013f00, SM90, kbf, "start-beyond-smem", Error, "228 KiB"},
		{"base offset 0 at an unaligned start", 0x4000004000010048, SM90, kbf, "", 0, ""},
		{"base offset the ISA's value", 0x4002004000010048, SM90, kbf, "base-offset-shift", Warning, "1 is the ISA's (addr >> 7) & 7 for the start address 0x480"},
		{"base offset 64B shift mod 4", 0x800a002000010068, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 16}, "base-offset-shift", Warning, "shifted 1 row(s)"},
		{"base offset 64B whole repeat", 0x8008002000010040, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 16}, "base-offset-no-effect", Warning, "shifts nothing"},
		{"base offset sm100 shift", 0x4000404000010040 | 3<<49, SM100, kbf, "base-offset-shift", Warning, "not hardware-verified"},
		{"base offset with no swizzle", 0x0002001000080000, SM90, kbf, "base-offset-unused", Warning, "not used without a swizzle"},
		{"sm_100 code 2 written as wgmma layout type", 0x8000004000010040, SM90, Context{Major: MajorK, Swizzle: Swizzle128B}, "swizzle-mismatch", Error, "sm_100 code for 128B"},
		{"sm_90 code 1 written into tcgen05 field", 0x2000404000010040, SM100, Context{Major: MajorK, Swizzle: Swizzle128B}, "swizzle-mismatch", Error, "sm_90 code for 128B"},
		{"sm_90 code 1 in tcgen05, K-major", 0x2000404000010040, SM100, Context{Major: MajorK}, "swizzle-128b32a-major", Error, "only for MN-major"},
		{"sm_90 code 3 in tcgen05", 0x6000404000010040, SM100, Context{}, "swizzle-invalid-code", Error, "sm_100 code for 32B is 6"},
		{"sm_100 bit 61 in wgmma", 0x6000004000010040, SM90, Context{}, "sm100-swizzle-bit-in-wgmma", Error, "bit 61"},
		{"tcgen05 read as wgmma", 0x4000404000010040, SM90, Context{}, "tcgen05-version-in-wgmma", Error, "--arch sm_100a"},
		{"tcgen05 missing version", 0x4000004000010040, SM100, Context{}, "version-missing", Error, "sm_90 layout"},
		{"tcgen05 0xB0 at 53", 0x4000404000010040 | 0xB0<<53, SM100, Context{}, "fixed-zero-0xb0", Error, "0b00000000"},
		{"tcgen05 reserved bit 14", 0x4000404000014040, SM100, Context{}, "reserved-bits", Error, "14"},
		{"tcgen05 absolute LBO mode", 0x4010404000010040, SM100, Context{}, "lbo-mode-absolute", Warning, "sm_103a"},
		{"LBO ignored for swizzled K-major", 0x4000004000400040, SM90, kbf, "lbo-ignored", Info, "assumed to be 1"},
		{"LBO zero, no swizzle K-major", 0x0000001000000000, SM90, kbf, "lbo-zero", Error, "adjacent along K"},
		{"SBO zero", 0x4000000000010040, SM90, kbf, "sbo-zero", Error, "8-row groups"},
		{"LBO and SBO collide", 0x0000000800080040, SM90, kbf, "footprint-overlap", Error, "on top of each other"},
		{"footprint past smem", 0x4000004000013700, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 128, TileK: 16}, "footprint-beyond-smem", Error, "illegal memory access"},
		{"wgmma transpose tf32", 0x4000004000010040, SM90, Context{Major: MajorMN, DType: "tf32"}, "transpose-type", Error, "16-bit"},
		{"tcgen05 tf32 MN-major needs 128B-32A", 0x4000404000010040, SM100, Context{Major: MajorMN, DType: "tf32"}, "transpose-type", Error, "32-byte atomicity"},
		{"tcgen05 fp4 MN-major", 0x4000404000010040, SM100, Context{Major: MajorMN, DType: "e2m1"}, "transpose-type", Error, "no MN-major"},
		{"tcgen05 bf16 MN-major 128B-32A", 0x2000404000010040, SM100, Context{Major: MajorMN, DType: "bf16"}, "transpose-type", Error, "only for MN-major 32-bit"},
		{"64B swizzle with 128B SBO", 0x8000004000010040, SM90, Context{Major: MajorK, DType: "bf16"}, "sbo-fits-other-swizzle", Info, "packed stride of 128B"},
		{"K-major tile wider than swizzle row", 0xC000001000010040, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 64, TileK: 32}, "tile-wider-than-swizzle", Warning, "32-byte swizzle row"},
		{"MN-major tile narrower than swizzle row", 0x4000004000400040, SM90, Context{Major: MajorMN, DType: "bf16", TileMN: 32, TileK: 16}, "tile-narrower-than-swizzle", Warning, "TMA box"},
		{"no major: footprint skipped", 0x4000004000010040, SM90, Context{}, "footprint-skipped", Info, "--major"},
		{"bad tile", 0x4000004000010040, SM90, Context{Major: MajorK, DType: "bf16", TileMN: 60, TileK: 16}, "footprint-skipped", Warning, "multiple of 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := smemFindings(t, tt.v, tt.arch, tt.ctx)
			if tt.rule == "" {
				if len(fs) != 0 {
					t.Fatalf("want no findings, got:\n%s", findingsText(fs))
				}
				return
			}
			for _, f := range fs {
				if f.Rule == tt.rule {
					if f.Severity != tt.sev || !strings.Contains(f.Msg, tt.msgPart) {
						t.Fatalf("finding %v; want severity %v and %q in the message", f, tt.sev, tt.msgPart)
					}
					return
				}
			}
			t.Fatalf("no %q finding; got:\n%s", tt.rule, findingsText(fs))
		})
	}
}

func findingsText(fs Findings) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

func TestCheckByteInputs(t *testing.T) {
	fs := CheckByteInputs(0x400, 1, 64, Swizzle128B, Context{Major: MajorK})
	if !fs.Has("sbo-already-shifted") {
		t.Errorf("SBO 64 for 128B K-major not flagged: %v", fs)
	}
	fs = CheckByteInputs(0x40, 16, 1024, Swizzle128B, Context{Major: MajorK})
	if !fs.Has("addr-already-shifted") {
		t.Errorf("address 0x40 not flagged: %v", fs)
	}
	if fs := CheckByteInputs(0x400, 16, 1024, Swizzle128B, Context{Major: MajorK}); len(fs) != 0 {
		t.Errorf("canonical inputs flagged: %v", fs)
	}
}

func idescFindings(t *testing.T, s IDescSpec, ctx IDescContext) Findings {
	t.Helper()
	d, err := NewIDesc(s)
	if err != nil {
		t.Fatalf("NewIDesc(%+v): %v", s, err)
	}
	return d.Check(ctx)
}

func TestIDescChecks(t *testing.T) {
	f16 := func(m, n int) IDescSpec {
		return IDescSpec{Kind: KindF16, D: "f32", A: "bf16", B: "bf16", M: m, N: n}
	}
	tests := []struct {
		name string
		spec IDescSpec
		raw  *IDesc // used instead of spec when set
		ctx  IDescContext
		rule string
		sev  Severity
	}{
		{"f16 128x256", f16(128, 256), nil, IDescContext{}, "", 0},
		{"f16 64x8 cta1", f16(64, 8), nil, IDescContext{CTAGroup: 1}, "", 0},
		{"f16 64x8 only cta1", f16(64, 8), nil, IDescContext{}, "shape-form", Info},
		{"f16 M=96", f16(96, 64), nil, IDescContext{}, "m-illegal", Error},
		{"f16 M=256 cta1", f16(256, 64), nil, IDescContext{CTAGroup: 1}, "m-illegal", Error},
		{"f16 N=264", f16(128, 264), nil, IDescContext{}, "n-illegal", Error},
		{"f16 N=8 cta2", f16(128, 8), nil, IDescContext{CTAGroup: 2}, "n-illegal", Error},
		{"f16 .ws N=96", f16(64, 96), nil, IDescContext{WS: Yes}, "n-illegal", Error},
		{"f16 .ws M=32", f16(32, 128), nil, IDescContext{WS: Yes}, "", 0},
		{"f16 .ws cta2", f16(128, 128), nil, IDescContext{WS: Yes, CTAGroup: 2}, "form-invalid", Error},
		{"f16 D with bf16", IDescSpec{Kind: KindF16, D: "f16", A: "bf16", B: "bf16", M: 128, N: 128}, nil, IDescContext{}, "dtype-combination", Error},
		{"f16 mixed A/B", IDescSpec{Kind: KindF16, D: "f32", A: "f16", B: "bf16", M: 128, N: 128}, nil, IDescContext{}, "type-combination", Error},
		{"i8 negate", IDescSpec{Kind: KindI8, D: "s32", A: "s8", B: "s8", M: 128, N: 128, NegateA: true}, nil, IDescContext{}, "negate-i8", Error},
		{"i8 N=40", IDescSpec{Kind: KindI8, D: "s32", A: "s8", B: "s8", M: 128, N: 40}, nil, IDescContext{CTAGroup: 1}, "n-illegal", Error},
		{"i8 N=48", IDescSpec{Kind: KindI8, D: "s32", A: "s8", B: "s8", M: 128, N: 48}, nil, IDescContext{CTAGroup: 1}, "", 0},
		{"saturate on f16", IDescSpec{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 128, N: 128, Saturate: true}, nil, IDescContext{}, "saturate-kind", Error},
		{"selector without sparsity", IDescSpec{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 128, N: 128, SparseSelector: 2}, nil, IDescContext{}, "selector-without-sparsity", Warning},
		{"max shift without ws", IDescSpec{Kind: KindF16, D: "f32", A: "f16", B: "f16", M: 128, N: 128, MaxShift: 16}, nil, IDescContext{WS: No}, "max-shift-without-ws", Warning},
		{"f8f6f4 transpose e2m1", IDescSpec{Kind: KindF8F6F4, D: "f32", A: "e2m1", B: "e4m3", M: 128, N: 128, MajorA: MajorMN}, nil, IDescContext{}, "transpose-type", Error},
		{"f8f6f4 transpose e4m3", IDescSpec{Kind: KindF8F6F4, D: "f32", A: "e4m3", B: "e4m3", M: 128, N: 128, MajorA: MajorMN}, nil, IDescContext{}, "", 0},
		{"tf32 transpose with 128B", IDescSpec{Kind: KindTF32, D: "f32", A: "tf32", B: "tf32", M: 128, N: 128, MajorB: MajorMN}, nil, IDescContext{Swizzle: Swizzle128B}, "transpose-swizzle", Error},
		{"bf16 transpose with 128B-32A", IDescSpec{Kind: KindF16, D: "f32", A: "bf16", B: "bf16", M: 128, N: 128, MajorB: MajorMN}, nil, IDescContext{Swizzle: Swizzle128B32A}, "transpose-swizzle", Error},
		{"mxf4 transpose", IDescSpec{Kind: KindMXF4, A: "e2m1", B: "e2m1", M: 128, N: 128, MajorA: MajorMN}, nil, IDescContext{}, "transpose-type", Error},
		{"mxf4 ue4m3", IDescSpec{Kind: KindMXF4, A: "e2m1", B: "e2m1", M: 128, N: 128, ScaleType: "ue4m3"}, nil, IDescContext{}, "scale-type", Error},
		{"mxf4nvf4 ue4m3", IDescSpec{Kind: KindMXF4NVF4, A: "e2m1", B: "e2m1", M: 128, N: 128, ScaleType: "ue4m3"}, nil, IDescContext{}, "", 0},
		{"mxf4 scale id 1", IDescSpec{Kind: KindMXF4, A: "e2m1", B: "e2m1", M: 128, N: 128, ScaleAID: 1}, nil, IDescContext{}, "scale-id", Error},
		{"mxf8f6f4 scale id 3", IDescSpec{Kind: KindMXF8F6F4, A: "e4m3", B: "e5m2", M: 128, N: 128, ScaleBID: 3}, nil, IDescContext{}, "", 0},
		{"mxf8f6f4 M=256 cta1", IDescSpec{Kind: KindMXF8F6F4, A: "e4m3", B: "e4m3", M: 256, N: 128}, nil, IDescContext{CTAGroup: 1}, "m-illegal", Error},
		{"mxf8f6f4 .ws", IDescSpec{Kind: KindMXF8F6F4, A: "e4m3", B: "e4m3", M: 128, N: 128}, nil, IDescContext{WS: Yes}, "form-invalid", Error},
		{"mxf4 K96", IDescSpec{Kind: KindMXF4, A: "e2m1", B: "e2m1", M: 256, N: 128, K96: true}, nil, IDescContext{}, "k96", Warning},
		{"atype tf32 in f16", IDescSpec{}, &IDesc{Kind: KindF16, DType: 1, AType: 2, BType: 2, MField: 8, NField: 16}, IDescContext{}, "format-invalid", Error},
		{"f16 reserved bit 23", IDescSpec{}, &IDesc{Kind: KindF16, DType: 1, MField: 8, NField: 16, Reserved: 1 << 23}, IDescContext{}, "reserved-bits", Error},
		{"mx M>>4 style M=64", IDescSpec{}, &IDesc{Kind: KindMXF8F6F4, ScaleType: 1, NField: 16, Reserved: 4 << 24}, IDescContext{}, "m-bits-24-26", Error},
		{"N zero", IDescSpec{}, &IDesc{Kind: KindF16, DType: 1, MField: 8}, IDescContext{}, "n-zero", Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs Findings
			if tt.raw != nil {
				fs = tt.raw.Check(tt.ctx)
			} else {
				fs = idescFindings(t, tt.spec, tt.ctx)
			}
			if tt.rule == "" {
				if len(fs) != 0 {
					t.Fatalf("want no findings, got:\n%s", findingsText(fs))
				}
				return
			}
			for _, f := range fs {
				if f.Rule == tt.rule {
					if f.Severity != tt.sev {
						t.Fatalf("finding %v; want severity %v", f, tt.sev)
					}
					return
				}
			}
			t.Fatalf("no %q finding; got:\n%s", tt.rule, findingsText(fs))
		})
	}
}

// Every legal (kind, M, N) in the ISA's shape table passes, and the
// neighbours just outside fail, in at least one form.
func TestIDescShapeTableEdges(t *testing.T) {
	types := map[Kind][3]string{
		KindF16: {"f32", "f16", "f16"}, KindTF32: {"f32", "tf32", "tf32"}, KindF8F6F4: {"f32", "e4m3", "e4m3"},
		KindI8: {"s32", "s8", "s8"}, KindMXF8F6F4: {"", "e4m3", "e4m3"}, KindMXF4: {"", "e2m1", "e2m1"}, KindMXF4NVF4: {"", "e2m1", "e2m1"},
	}
	for _, k := range Kinds {
		ty := types[k]
		legal := 0
		for _, m := range []int{32, 64, 128, 256} {
			for n := 8; n <= 256; n += 8 {
				if k.BlockScaled() && m < 128 {
					continue
				}
				d, err := NewIDesc(IDescSpec{Kind: k, D: ty[0], A: ty[1], B: ty[2], M: m, N: n})
				if err != nil {
					t.Fatalf("%s %dx%d: %v", k, m, n, err)
				}
				fs := d.Check(IDescContext{})
				if !fs.HasErrors() {
					legal++
				}
			}
			// N = 264 is never legal.
			d, _ := NewIDesc(IDescSpec{Kind: k, D: ty[0], A: ty[1], B: ty[2], M: m, N: 264})
			if m >= 128 || !k.BlockScaled() {
				if !d.Check(IDescContext{}).HasErrors() {
					t.Errorf("%s M=%d N=264 passed", k, m)
				}
			}
		}
		if legal == 0 {
			t.Errorf("%s: no legal shape found", k)
		}
	}
}
