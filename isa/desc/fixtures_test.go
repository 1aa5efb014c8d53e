package desc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The descriptors of tcsim's example kernels (fixtures/kernels), whose
// sm_90a builds gave exact results on an H100 (fixtures/kernels/PROVENANCE:
// 0 mismatches for gemm_tma_wgmma and epilogue_stmatrix). Each test mirrors
// the kernel's descriptor helper, checks that the codec encodes the same
// bits and finds no error, and that the footprint reads each element from
// where the kernel stored it. Agreement here is agreement with hardware.

func fixtureSource(t *testing.T, name string, lines ...string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "kernels", name))
	if err != nil {
		t.Fatalf("fixture kernel: %v", err)
	}
	for _, l := range lines {
		if !strings.Contains(string(src), l) {
			t.Fatalf("%s no longer contains %q: update this test to the kernel's descriptors", name, l)
		}
	}
}

// wgmmaDescC mirrors wgmma_desc in fixtures/kernels/tc_common.cuh.
func wgmmaDescC(saddr, lbo, sbo uint32, swizzle uint64) uint64 {
	return uint64((saddr&0x3FFFF)>>4) | uint64((lbo>>4)&0x3FFF)<<16 | uint64((sbo>>4)&0x3FFF)<<32 | (swizzle&3)<<62
}

// checkAgainstStore checks d's footprint for an mn x k bf16 K-major operand
// whose element (m, k) the kernel stored at store(m, k).
func checkAgainstStore(t *testing.T, v uint64, arch Arch, mn, k int, store func(m, k int) uint32) {
	t.Helper()
	ctx := Context{Major: MajorK, DType: "bf16", TileMN: mn, TileK: k}
	r := ExplainSmem(v, arch, ctx)
	if r.Findings.HasErrors() || r.Findings.Count(Warning) > 0 {
		t.Fatalf("%#x: hardware-verified descriptor flagged:\n%s", v, findingsText(r.Findings))
	}
	fr, err := r.WithFootprint()
	if err != nil {
		t.Fatal(err)
	}
	for _, rd := range fr.Footprint {
		for kk := rd.K0; kk < rd.K1; kk++ {
			if got, want := rd.Addr+uint32(2*(kk-rd.K0)), store(rd.MN0, kk); got != want {
				t.Fatalf("%#x: element (%d,%d) read at %#x, the kernel stored it at %#x", v, rd.MN0, kk, got, want)
			}
		}
	}
}

func TestFixtureGemmTMAWGMMA(t *testing.T) {
	fixtureSource(t, "gemm_tma_wgmma.cu",
		"wgmma_desc(saddr, 16, 1024, 1)",
		"sw128_desc(a0 + k * 32)", "sw128_desc(a0 + 64 * 128 + k * 32)", "sw128_desc(b0 + k * 32)",
		"constexpr int BM = 128, BN = 128, BK = 64")
	const BK = 64
	// The kernel aligns its tiles to 1024 bytes; TMA with SWIZZLE_128B
	// stores element (row, c) of a 128-byte-wide box at
	// tile + row*128 + ((2c) XOR ((row%8) << 4)).
	for _, tile := range []uint32{0x400, 0x4400, 0x8400, 0x1c400} {
		tma := func(row, c int) uint32 {
			return tile + uint32(row*128) + (uint32(2*c) ^ uint32(row%8)<<4)
		}
		for k := 0; k < BK/16; k++ {
			saddr := tile + uint32(k*32)
			v := wgmmaDescC(saddr, 16, 1024, 1)
			d, err := NewWGMMA(saddr, 16, 1024, Swizzle128B, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := d.Encode(); got != v {
				t.Fatalf("NewWGMMA(%#x) = %#x, kernel builds %#x", saddr, got, v)
			}
			// A rows 0-63 and B (N = 128 rows), the k-th 16-column slice.
			checkAgainstStore(t, v, SM90, 64, 16, func(m, c int) uint32 { return tma(m, k*16+c) })
			checkAgainstStore(t, v, SM90, 128, 16, func(m, c int) uint32 { return tma(m, k*16+c) })
			// A rows 64-127.
			v2 := wgmmaDescC(tile+64*128+uint32(k*32), 16, 1024, 1)
			checkAgainstStore(t, v2, SM90, 64, 16, func(m, c int) uint32 { return tma(64+m, k*16+c) })
		}
	}
}

// kmajorInterleaveOff mirrors kmajor_interleave_off in tc_common.cuh: 8x8
// core matrices stored contiguously, a row block's 8 core matrices adjacent
// along K, row blocks 1024 bytes apart.
func kmajorInterleaveOff(row, k int) uint32 {
	return uint32(((row>>3)*8+(k>>3))*128 + (row&7)*16 + (k&7)*2)
}

func TestFixtureNoSwizzleKMajor(t *testing.T) {
	fixtureSource(t, "attention_step.cu",
		"wgmma_desc(smem_u32(sQ) + 256 * k, 128, 1024, 0)", "wgmma_desc(smem_u32(sK) + 256 * k, 128, 1024, 0)",
		"wgmma_desc(smem_u32(sVt) + 256 * k, 128, 1024, 0)")
	fixtureSource(t, "epilogue_stmatrix.cu", "wgmma_desc(smem_u32(sA) + 256 * k, 128, 1024, 0)")
	for _, base := range []uint32{0x0, 0x2000, 0x6000} {
		for k := 0; k < 4; k++ {
			saddr := base + uint32(256*k)
			v := wgmmaDescC(saddr, 128, 1024, 0)
			d, _ := NewWGMMA(saddr, 128, 1024, SwizzleNone, 0)
			if got, _ := d.Encode(); got != v {
				t.Fatalf("NewWGMMA(%#x) = %#x, kernel builds %#x", saddr, got, v)
			}
			// Q, K, V^T and the epilogue's A and B: 64 rows, the k-th 16-column slice.
			checkAgainstStore(t, v, SM90, 64, 16, func(m, c int) uint32 { return base + kmajorInterleaveOff(m, k*16+c) })
		}
	}
}

// The tcgen05 kernel is compiled and ptxas-checked for sm_100a, not run:
// this checks the codec agrees with it, not hardware.
func TestFixtureTCGen05GEMM(t *testing.T) {
	fixtureSource(t, "tcgen05_gemm.cu",
		"d |= (uint64_t)1 << 16;", "d |= (uint64_t)(1024 >> 4) << 32;", "d |= (uint64_t)1 << 46;", "d |= (uint64_t)2 << 61;",
		"constexpr uint32_t IDESC = (1u << 4) | (1u << 7) | (1u << 10) | ((uint32_t)(BN >> 3) << 17) | ((uint32_t)(BM >> 4) << 24);",
		"umma_sw128_desc(smem_u32(sA) + 32 * k)")
	for _, saddr := range []uint32{0x400, 0x420, 0x440, 0x460} {
		v := uint64((saddr&0x3FFFF)>>4) | 1<<16 | uint64(1024>>4)<<32 | 1<<46 | 2<<61
		d, _ := NewTCGen05Smem(saddr, 16, 1024, Swizzle128B, 0)
		if got, _ := d.Encode(); got != v {
			t.Fatalf("NewTCGen05Smem(%#x) = %#x, kernel builds %#x", saddr, got, v)
		}
		k := int(saddr-0x400) / 32
		checkAgainstStore(t, v, SM100, 128, 16, func(m, c int) uint32 {
			return 0x400 + uint32(m*128) + (uint32(2*(k*16+c)) ^ uint32(m%8)<<4)
		})
	}
	const BM, BN = 128, 128
	want := uint32(1<<4 | 1<<7 | 1<<10 | (BN>>3)<<17 | (BM>>4)<<24)
	id, err := NewIDesc(IDescSpec{Kind: KindF16, D: "f32", A: "bf16", B: "bf16", M: BM, N: BN})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := id.Encode(); got != want {
		t.Fatalf("idesc %#x, kernel uses %#x", got, want)
	}
	if fs := id.Check(IDescContext{CTAGroup: 1, WS: No}); len(fs) != 0 {
		t.Fatalf("kernel's idesc flagged:\n%s", findingsText(fs))
	}
}
