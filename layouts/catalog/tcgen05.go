package catalog

import "fmt"

// tcgen05 (sm_100a): PTX ISA 9.7.16. None of these atoms is
// hardware-verified: the machine that checks this catalog is an H100.
//
// The data-path atoms (tcgen05.ld / tcgen05.st shapes, 9.7.16.2.3.1) are
// thread-value layouts over the Tensor Memory itself: tile rows are the
// 128 TMEM lanes, tile columns the 32-bit TMEM columns relative to the
// instruction's base address, for a whole warpgroup of 128 threads. Warp w
// of the warpgroup can reach lanes 32w..32w+31 only (9.7.16.8.1).
//
// The TMEM atoms (9.7.16.10.5, "Data path layout organization") say where
// tcgen05.mma puts accumulator cell (m, n).

func init() { builders = append(builders, buildTcgen05) }

// tcgen05Shape describes one tcgen05.ld/st data-movement shape.
type tcgen05Shape struct {
	shape    string
	key      TMEMShape
	section  string
	maxNum   int
	colsPer  int    // TMEM columns per .num repeat
	regsPer  int    // registers per thread per repeat
	lanes16  bool   // a 16-lane shape: each warp reaches 16 of its 32 lanes
	cute     string // CuTe's copy-op stem
	tv       func(num int) string
	mapping  string // register r of lane l of warp w, in words
	extraDoc string
}

var tcgen05Shapes = []tcgen05Shape{
	{shape: "32x32b", key: Shape32x32b, section: "9.7.16.2.3.1.1", maxNum: 128, colsPer: 1, regsPer: 1, cute: "SM100_TMEM_LOAD_32dp32b%dx",
		tv:      func(num int) string { return fmt.Sprintf("(128,%d):(1,128)", num) },
		mapping: "lane 32w + l, column r"},
	{shape: "16x64b", key: Shape16x64b, section: "9.7.16.2.3.1.2", maxNum: 128, colsPer: 2, regsPer: 1, lanes16: true, cute: "SM100_TMEM_LOAD_16dp64b%dx",
		tv:      func(num int) string { return fmt.Sprintf("((2,2,8,4),%d):((8,128,1,32),256)", num) },
		mapping: "lane 32w + l/4 + 8*(l%2), column (l/2)%2 + 2r"},
	{shape: "16x128b", key: Shape16x128b, section: "9.7.16.2.3.1.3", maxNum: 64, colsPer: 4, regsPer: 2, lanes16: true, cute: "SM100_TMEM_LOAD_16dp128b%dx",
		tv:      func(num int) string { return fmt.Sprintf("((4,8,4),(2,%d)):((128,1,32),(8,512))", num) },
		mapping: "lane 32w + l/4 + 8*(r%2), column l%4 + 4*(r/2)"},
	{shape: "16x256b", key: Shape16x256b, section: "9.7.16.2.3.1.4", maxNum: 32, colsPer: 8, regsPer: 4, lanes16: true, cute: "SM100_TMEM_LOAD_16dp256b%dx",
		tv:      func(num int) string { return fmt.Sprintf("((4,8,4),(2,2,%d)):((256,1,32),(128,8,1024))", num) },
		mapping: "lane 32w + l/4 + 8*((r/2)%2), column 2*(l%4) + r%2 + 8*(r/4): per 8 columns, the same pattern as an mma.sync m16n8 accumulator"},
	{shape: "16x32bx2", key: Shape16x32bx2, section: "9.7.16.2.3.1.5", maxNum: 128, colsPer: 2, regsPer: 1, lanes16: true, cute: "SM100_TMEM_LOAD_16dp32b%dx",
		tv:      func(num int) string { return fmt.Sprintf("((16,2,4),%d):((1,%d,32),128)", num, 128*num) },
		mapping: "lane 32w + l%16, column r + N*(l/16)",
		extraDoc: " The shape makes two 16x32b accesses, the second at column taddr + immHalfSplitoff; " +
			"the atom takes immHalfSplitoff = N (= .num), as CuTe does, so the two halves sit side by side."},
}

func buildTcgen05(add func(Atom)) {
	for _, s := range tcgen05Shapes {
		for num := 1; num <= s.maxNum; num *= 2 {
			cols := s.colsPer * num
			regs := s.regsPer * num
			reach, lanesPerWarp := "lanes 32w..32w+31", 32
			if s.lanes16 {
				reach, lanesPerWarp = "lanes 32w..32w+15 (lane field 32w; +16 reaches 32w+16..32w+31)", 16
			}
			doc := fmt.Sprintf("Warpgroup of 128 threads, thread t = 32w + l. Warp w (warp id %% 4) reaches %s only (ISA 9.7.16.8.1). "+
				"Register r of lane l holds %s, N = %d. Columns are relative to taddr's column field; lane 32w is taddr's lane field for warp w.",
				reach, s.mapping, num)
			if s.lanes16 {
				doc += " Tile lanes 32w+16..32w+31 have no owner here."
			}
			add(Atom{
				Key:    Key{Family: Tcgen05LdSt, Shape: s.key, Num: num},
				Family: "tcgen05", Arch: "sm_100a",
				Section: s.section,
				Summary: fmt.Sprintf("tcgen05.ld/st .%s.x%d: %d registers per thread, %d lanes x %d columns per warp (not hardware-verified)",
					s.shape, num, regs, lanesPerWarp, cols),
				Kind: KindTV, Rows: 128, Cols: cols, RowName: "lane", ColName: "col",
				ElemBits: 32, ValsPerReg: 1,
				TV: mustTV(s.tv(num), 128, cols),
				Shapes: []string{
					fmt.Sprintf("tcgen05.ld.sync.aligned.%s.x%d.b32", s.shape, num),
					fmt.Sprintf("tcgen05.st.sync.aligned.%s.x%d.b32", s.shape, num),
				},
				Broadcast: 1, NeedsArch: "sm_100a",
				CuTe:  fmt.Sprintf("Copy_Traits<"+s.cute+">::DstLayout (per warp, in bits of TMEM rows; TMEM_STORE uses the same map)", num),
				Notes: doc + s.extraDoc + " With .pack::16b / .unpack::16b a register holds the low 16 bits of two adjacent columns (twice the columns of the same .num); the atom shows the unpacked form.",
			})
		}
	}

	// TMEM accumulator placements.
	for _, n := range []int{64, 128, 256} {
		ks := []int{8, 16, 32}
		for _, p := range []struct {
			m        int
			variant  string
			letter   string
			section  string
			ctas     int
			offsets  string
			summary  string
			notes    string
			extraTok []string
		}{
			{m: 128, variant: "cta1", letter: "D", section: "9.7.16.10.5.4", ctas: 1,
				offsets: fmt.Sprintf("(128,%d):(65536,1)", n),
				summary: "row m at lane m, column n",
				notes:   "Every lane is used. Warp w reads rows 32w..32w+31 (with 32x32b, thread t of the warpgroup gets row t)."},
			{m: 64, variant: "cta1", letter: "F", section: "9.7.16.10.5.6", ctas: 1,
				offsets: fmt.Sprintf("((16,4),%d):((65536,2097152),1)", n),
				summary: "row m at lane 32*(m/16) + m%16, column n: only lanes 0-15 of each 32-lane quarter",
				notes: "Rows 0-63 do NOT sit in lanes 0-63 (the mistake behind tile-ai/tilelang#2877): rows 16w..16w+15 are in lanes 32w..32w+15, " +
					"the part of TMEM warp w can reach, and lanes 32w+16..32w+31 stay free for a second M=64 accumulator (lane field +16). " +
					"Read it back with a 16-lane shape (16x256b, 16x128b, 16x64b, 16x32bx2) from all four warps."},
			{m: 64, variant: "ws", letter: "E", section: "9.7.16.10.5.5", ctas: 1,
				offsets: fmt.Sprintf("(64,(%d,2)):(65536,(1,4194304))", n/2),
				summary: fmt.Sprintf("row m at lane m for n < %d and lane 64+m for n >= %d, column n %% %d", n/2, n/2, n/2),
				notes: fmt.Sprintf("tcgen05.mma.ws (weight stationary, N = 64, 128 or 256): the N columns are folded into %d TMEM columns, "+
					"the left half in lanes 0-63, the right half in lanes 64-127.", n/2),
				extraTok: []string{"tcgen05.mma.ws"}},
			{m: 128, variant: "cta2", letter: "B", section: "9.7.16.10.5.2", ctas: 2,
				offsets: fmt.Sprintf("((64,2),(%d,2)):((65536,0),(1,4194304))", n/2),
				summary: fmt.Sprintf("CTA m/64 of the pair; row m%%64 at lane m%%64 for n < %d and lane 64 + m%%64 for n >= %d, column n %% %d", n/2, n/2, n/2),
				notes: fmt.Sprintf("cta_group::2 with M = 128 and a dense A: CTA r of the pair (r = %%cluster_ctarank & 1) holds rows 64r..64r+63 "+
					"in its own TMEM, folded into %d columns (left half of N in lanes 0-63, right half in lanes 64-127). "+
					"The stride-0 mode of the offset layout is the CTA: both CTAs use the same addresses.", n/2)},
			{m: 256, variant: "cta2", letter: "A", section: "9.7.16.10.5.1", ctas: 2,
				offsets: fmt.Sprintf("((128,2),%d):((65536,0),1)", n),
				summary: "CTA m/128 of the pair; row m%128 at lane m%128, column n",
				notes: "cta_group::2 with M = 256: CTA r of the pair (r = %cluster_ctarank & 1) holds rows 128r..128r+127 in all 128 lanes " +
					"of its own TMEM. The stride-0 mode of the offset layout is the CTA: both CTAs use the same addresses."},
		} {
			name := fmt.Sprintf("tcgen05.tmem.m%dn%d.d.%s", p.m, n, p.variant)
			group := "cta_group::1"
			if p.ctas == 2 {
				group = "cta_group::2"
			}
			add(Atom{
				Name: name, Family: "tcgen05", Arch: "sm_100a", Section: p.section, Operand: "C",
				Summary: fmt.Sprintf("TMEM accumulator M=%d N=%d %s (ISA Layout %s): %s (not hardware-verified)",
					p.m, n, group, p.letter, p.summary),
				Kind: KindTMEM, Rows: p.m, Cols: n, RowName: "m", ColName: "n", ElemBits: 32,
				Offsets: mustLayout(p.offsets),
				Shapes:  append(shapeTokens(p.m, []int{n}, ks), append([]string{"tcgen05.mma", group}, p.extraTok...)...),
				CTAs:    p.ctas, NeedsArch: "sm_100a",
				CuTe: "UMMA::tmem_frg (mma_traits_sm100_frag.hpp); CuTe's TMEM pointers count lanes in bits 16+ and columns in bits 0-15 " +
					"of the address, as this atom's offsets do",
				Notes: fmt.Sprintf("Offsets give the TMEM address lane<<16 | column relative to the accumulator's base (d_tmem). "+
					"One 32-bit accumulator (f32 or s32) per TMEM cell. %s", p.notes),
			})
		}
	}
}
