package catalog

import "fmt"

// Scale factors of the block-scaled tcgen05.mma kinds (PTX ISA 9.7.16.10.7,
// CUTLASS cutlass/detail/sm100_blockscaled_layout.hpp). Not
// hardware-verified.
//
// CUTLASS keeps scale factors in global and shared memory in 512-byte
// chunks of 128 rows (of A; columns of B) x 4 k-blocks: byte
// 16*(r%32) + 4*(r/32) + kb, i.e. 32 rows of 16 bytes, row r%32 holding
// the scale factors of rows r%32, r%32+32, r%32+64 and r%32+96 (the
// "32x4x4" view). tcgen05.cp .32x128b.warpx4 copies the 32 rows into TMEM
// lanes r, 32+r, 64+r and 96+r (all four lane quarters), 4 columns; the
// MMA then reads row r's scale factor for k-block kb from lane r, column
// base + r/32, byte kb (the instruction descriptor's scale-factor ID plus
// the MMA's k-block).

func init() { builders = append(builders, buildTcgen05SF) }

func buildTcgen05SF(add func(Atom)) {
	add(Atom{
		Name: "tcgen05.sf.chunk128x4", Family: "tcgen05", Arch: "sm_100a", Section: "9.7.16.10.7",
		Summary: "block-scale factors in memory: CUTLASS's 128x4 chunk, 512 bytes (32 rows x 16 bytes) (not hardware-verified)",
		Kind:    KindSMEM, Rows: 128, Cols: 4, RowName: "r", ColName: "kb", ElemBits: 8,
		Offsets:   mustLayout("((32,4),4):((16,4),1)"),
		Shapes:    []string{"block_scale", "scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "mxf8f6f4", "mxf4", "mxf4nvf4", "nvfp4", "mxfp8", "ue8m0", "ue4m3"},
		NeedsArch: "sm_100a",
		CuTe:      "Sm1xxBlockScaledBasicChunk<SFVecSize>::SfKMajorAtom = ((32,4),(SFVecSize,4)):((16,4),(0,1)) (the SFVecSize mode, of stride 0, is the elements of K that share a scale factor)",
		Notes: "Offsets are bytes within the chunk: row r (of A, or column r of B) and k-block kb (each k-block is 32 elements of K for MX formats, " +
			"16 for NVFP4) are at byte 16*(r%32) + 4*(r/32) + kb. The 512 bytes are 32 rows of 16 bytes: row q holds rows q, q+32, q+64 and q+96, " +
			"4 k-blocks each (the 32x4x4 view). Chunks follow one another along K first (every 4 k-blocks), then along the 128-row blocks. " +
			"tcgen05.cp .32x128b.warpx4 copies one chunk into TMEM (atom tcgen05.tmem.sf.m128).",
	})
	add(Atom{
		Name: "tcgen05.tmem.sf.m128", Family: "tcgen05", Arch: "sm_100a", Section: "9.7.16.10.7",
		Summary: "block-scale factors in TMEM after tcgen05.cp .32x128b.warpx4: row r at lane r, column r/32, byte kb (not hardware-verified)",
		Kind:    KindTMEM, Rows: 128, Cols: 4, RowName: "r", ColName: "kb", ElemBits: 8,
		Offsets:   mustLayout("((32,4),4):((65536,2097153),0)"),
		CTAs:      1,
		Shapes:    []string{"tcgen05.cp.32x128b.warpx4", "block_scale", "scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "mxf8f6f4", "mxf4nvf4"},
		NeedsArch: "sm_100a",
		CuTe:      "the TMEM scale-factor tensors of CUTLASS's sm100 block-scaled collectives (tcgen05.cp through SM100_UTCCP_4x32dp128bit)",
		Notes: fmt.Sprintf("Offsets give the TMEM address lane<<16 | column of the 32-bit cell that holds row r's scale factors, relative to the "+
			"scale-factor address; k-block kb is byte kb of the cell (the column of this tile names the byte, not a TMEM column). "+
			"tcgen05.cp .32x128b.warpx4 writes the chunk's 32 rows of 16 bytes to lanes q, 32+q, 64+q, 96+q, columns 0-3, so lane r's "+
			"column r/32 holds row r. The MMA reads byte ID+j of that cell for its j-th scale factor: %s. "+
			"For 256 rows (B with N = 256) the second 128-row chunk sits 4 columns further. CUTLASS also writes the ID into bits 30-31 of "+
			"the scale-factor TMEM address.",
			"one per MMA with .scale_vec::1X (kind::mxf8f6f4, ID = the k-block), two with 2X (ID 0 or 2), all four with 4X (NVFP4, ID 0)"),
	})
}
