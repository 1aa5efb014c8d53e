package catalog

import "fmt"

// Canonical shared-memory layouts of the MMA operands: PTX ISA
// 9.7.15.5.1.2 (wgmma) and 9.7.16.10.6 (tcgen05). A swizzle atom is the
// repeating unit of a canonical layout: in 16-byte units ("128b elements")
// it is 8x1 (K-major, no swizzle), 8x2, 8x4, 8x8 (K-major 32B, 64B, 128B)
// and 1x8, 2x8, 4x8, 8x8 (MN-major), plus tcgen05's MN-major 8x4 for 128B
// swizzling with 32-byte atomicity. Along the leading (contiguous)
// dimension every 16 bytes hold 128/bits elements.
//
// The swizzle is defined on byte addresses: for the 32B, 64B and 128B
// modes the 16-byte granule index within a row (byte address bits 4 up)
// is XORed with the row index taken from bits 7 up (CuTe's Sw<B,4,3> on
// the byte address, B = 1, 2, 3); with 32-byte atomicity the 32-byte chunk
// (bits 5-6) is XORed with bits 7-8 (Sw<2,5,2>). The atoms store the same
// function in element units: shifting the swizzle by log2(8/bits) is exact
// because it only touches byte-address bits 4 and up, so even 4-bit
// elements (two per byte, element e in byte e/2) need no special case.

func init() { builders = append(builders, buildSMEM) }

type smemSwizzle struct {
	tok      string
	bytes    int // row width in bytes (16 for inter)
	b        int // CuTe Sw<B,4,3> bits on the byte address
	cuteName string
	desc     string
}

var smemSwizzles = []smemSwizzle{
	{"inter", 16, 0, "SWIZZLE_NONE", "no swizzle (INTERLEAVE): one 8 x 16-byte core matrix, 128 contiguous bytes"},
	{"sw32", 32, 1, "SWIZZLE_32B", "32B swizzle: byte bit 4 ^= bit 7 (granule ^= (row/4)%2), pattern repeats every 256 bytes"},
	{"sw64", 64, 2, "SWIZZLE_64B", "64B swizzle: byte bits 4-5 ^= bits 7-8 (granule ^= (row/2)%4), pattern repeats every 512 bytes"},
	{"sw128", 128, 3, "SWIZZLE_128B", "128B swizzle: byte bits 4-6 ^= bits 7-9 (granule ^= row%8), pattern repeats every 1024 bytes"},
}

// smemWidth describes which majors an element width may use.
type smemWidth struct {
	bits      int
	cuteType  string
	kArch     string // "" when K-major is not allowed
	mnArch    string // "" when MN-major (with these swizzles) is not allowed
	kUse      string
	mnUse     string
	sw128a32  bool // MN-major 128B swizzle with 32B atomicity (tcgen05 .kind::tf32)
	sw128a32U string
}

var smemWidths = []smemWidth{
	{bits: 4, cuteType: "float_e2m1_t", kArch: "sm_100a",
		kUse: "tcgen05 .kind::mxf4/.mxf4nvf4 (packed 4-bit; the ISA allows no transpose there)"},
	{bits: 8, cuteType: "uint8_t", kArch: "sm_90a", mnArch: "sm_100a",
		kUse:  "wgmma e4m3/e5m2/s8/u8 and tcgen05 .kind::f8f6f4/.i8",
		mnUse: "tcgen05 .kind::f8f6f4/.i8 only (wgmma transposes 16-bit types only)"},
	{bits: 16, cuteType: "half_t", kArch: "sm_90a", mnArch: "sm_90a",
		kUse:  "wgmma f16/bf16 and tcgen05 .kind::f16",
		mnUse: "wgmma f16/bf16 (imm-trans = 1) and tcgen05 .kind::f16"},
	{bits: 32, cuteType: "tfloat32_t", kArch: "sm_90a", sw128a32: true,
		kUse:      "wgmma tf32 and tcgen05 .kind::tf32 (wgmma transposes 16-bit types only)",
		sw128a32U: "tcgen05 .kind::tf32 transposed operands, which the ISA allows only with this mode"},
}

func log2(v int) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}

func buildSMEM(add func(Atom)) {
	for _, w := range smemWidths {
		perGranule := 128 / w.bits // elements per 16 bytes: T in the ISA's notation
		// Byte-address bit 4 is element bit mShift.
		mShift := 4 + 3 - log2(w.bits)
		for _, major := range []string{"k", "mn"} {
			arch, use := w.kArch, w.kUse
			if major == "mn" {
				arch, use = w.mnArch, w.mnUse
			}
			if arch == "" {
				continue
			}
			for _, sw := range smemSwizzles {
				lead := sw.bytes * 8 / w.bits // elements along the leading dimension
				var rows, cols int
				var lay, cuteLay, canon string
				if major == "k" {
					rows, cols = 8, lead
					lay = fmt.Sprintf("(8,%d):(%d,1)", lead, lead)
					cuteLay = fmt.Sprintf("(_8,_%d):(_%d,_1)", lead, lead)
					canon = map[string]string{
						"inter": "((8,m),(T,2k)):((1T,SBO),(1,LBO))", "sw32": "((8,m),(T,2k)):((2T,SBO),(1,T))",
						"sw64": "((8,m),(T,2k)):((4T,SBO),(1,T))", "sw128": "((8,m),(T,2k)):((8T,SBO),(1,T))",
					}[sw.tok]
				} else {
					rows, cols = lead, 8
					lay = fmt.Sprintf("(%d,8):(1,%d)", lead, lead)
					cuteLay = fmt.Sprintf("(_%d,_8):(_1,_%d)", lead, lead)
					canon = map[string]string{
						"inter": "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))", "sw32": "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))",
						"sw64": "((T,4,m),(8,k)):((1,T,LBO),(4T,SBO))", "sw128": "((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))",
					}[sw.tok]
				}
				offsets := mustLayout(lay)
				if sw.b > 0 {
					offsets = mustSwizzled(sw.b, mShift, 3, lay)
				}
				section := "9.7.15.5.1.2"
				needs := ""
				if arch == "sm_100a" {
					section, needs = "9.7.16.10.6", "sm_100a"
				}
				majorWord := map[string]string{"k": "K-major", "mn": "MN-major"}[major]
				swBytes := sw.bytes
				if sw.tok == "inter" {
					swBytes = 0
				}
				add(Atom{
					Name: fmt.Sprintf("smem.%s.%s.b%d", major, sw.tok, w.bits), Family: "smem", Arch: arch, Section: section,
					Smem: SmemKey{MN: major == "mn", Swizzle: swBytes, Bits: w.bits},
					Summary: fmt.Sprintf("%s %s, %d-bit: %dx%d atom, %d bytes; %s",
						majorWord, swizzleWord(sw.tok), w.bits, rows, cols, rows*cols*w.bits/8, use),
					Kind: KindSMEM, Rows: rows, Cols: cols, RowName: "mn", ColName: "k", ElemBits: w.bits,
					Offsets:   offsets,
					Shapes:    []string{sw.cuteName},
					NeedsArch: needs,
					CuTe: fmt.Sprintf("GMMA::Layout_%s_%s_Atom<%s>: Sw<%d,4,3> o smem_ptr[%db](unset) o %s (swizzle on the byte address)",
						map[string]string{"k": "K", "mn": "MN"}[major], map[string]string{"inter": "INTER", "sw32": "SW32", "sw64": "SW64", "sw128": "SW128"}[sw.tok],
						w.cuteType, sw.b, w.bits, cuteLay),
					Notes: fmt.Sprintf("%s. Offsets count %d-bit elements; in bytes this is CuTe's Sw<%d,4,3> on the byte address, "+
						"which is Sw<%d,%d,3> on element offsets (exact: the swizzle touches byte-address bits 4 and up only). "+
						"ISA canonical layout (T = %d elements per 16 bytes, m/k repeats, offsets in elements): Sw<%d,4,3> o %s. Used by %s.",
						sw.desc, w.bits, sw.b, sw.b, mShift, perGranule, sw.b, canon, use),
				})
			}
		}
		if w.sw128a32 {
			lead := 128 * 8 / w.bits
			lay := fmt.Sprintf("(%d,4):(1,%d)", lead, lead)
			add(Atom{
				Name: fmt.Sprintf("smem.mn.sw128a32.b%d", w.bits), Family: "smem", Arch: "sm_100a", Section: "9.7.16.10.6",
				Smem: SmemKey{MN: true, Swizzle: 128, Atom32: true, Bits: w.bits},
				Summary: fmt.Sprintf("MN-major 128B swizzle with 32B atomicity, %d-bit: %dx4 atom, 512 bytes; %s",
					w.bits, lead, w.sw128a32U),
				Kind: KindSMEM, Rows: lead, Cols: 4, RowName: "mn", ColName: "k", ElemBits: w.bits,
				Offsets:   mustSwizzled(2, 5+3-log2(w.bits), 2, lay),
				Shapes:    []string{"SWIZZLE_128B_BASE32B"},
				NeedsArch: "sm_100a",
				CuTe: fmt.Sprintf("UMMA::Layout_MN_SW128_32B_Atom<%s>: Sw<2,5,2> o smem_ptr[%db](unset) o (_%d,_4):(_1,_%d) (swizzle on the byte address)",
					w.cuteType, w.bits, lead, lead),
				Notes: fmt.Sprintf("128-byte rows along MN, 4 rows along K; the 32-byte chunk index (byte bits 5-6) is XORed with the row index mod 4 "+
					"(bits 7-8): CuTe's Sw<2,5,2> on the byte address, Sw<2,%d,2> on element offsets. Descriptor layout type 1 "+
					"(SWIZZLE_128B_BASE32B). The ISA lists this atom for MN-major only and allows it only with .kind::tf32 "+
					"(for every other kind the transpose is not supported with this mode).", 5+3-log2(w.bits)),
			})
		}
	}
}

func swizzleWord(tok string) string {
	switch tok {
	case "inter":
		return "no swizzle (interleave)"
	case "sw32":
		return "32B swizzle"
	case "sw64":
		return "64B swizzle"
	}
	return "128B swizzle"
}
