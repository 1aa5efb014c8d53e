package catalog

// mma.sync (warp-level MMA): PTX ISA 9.7.14.5.7 (m16n8k8), 9.7.14.5.8
// (m16n8k16 floating point) and 9.7.14.5.10 (m16n8k32). In every fragment
// groupID = lane>>2 picks the row (A, C) or the column n (B), and
// threadID_in_group = lane%4 picks the K (or N) pair/quad; the ISA's
// row/col formulas are written out in each atom's notes.

func init() { builders = append(builders, buildMMA) }

func buildMMA(add func(Atom)) {
	type frag struct {
		key                             Key
		arch, section, operand, summary string
		rows, cols                      int
		rowName, colName                string
		bits, perReg                    int
		tv, cute, notes                 string
		shapes                          []string
	}
	frags := []frag{
		{key: Key{Family: MMASync, Operand: OperandA, M: 16, K: 8, Elem: ElemB16}, arch: "sm_75", section: "9.7.14.5.7", operand: "A",
			summary: "A of m16n8k8, f16/bf16 (bf16 needs sm_80), 16x8: 4 values in 2 .f16x2 registers",
			rows:    16, cols: 8, rowName: "m", colName: "k", bits: 16, perReg: 2,
			tv:     "((4,8),(2,2)):((32,1),(16,8))",
			cute:   "ALayout of SM75_16x8x8_F32F16F16F32_TN: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
			notes:  "ISA: row = groupID for a0,a1 and groupID+8 for a2,a3; col = threadID_in_group*2 + (i&1).",
			shapes: []string{"m16n8k8"}},
		{key: Key{Family: MMASync, Operand: OperandB, N: 8, K: 8, Elem: ElemB16}, arch: "sm_75", section: "9.7.14.5.7", operand: "B",
			summary: "B of m16n8k8, f16/bf16 (bf16 needs sm_80), 8x8 (n x k): 2 values in 1 .f16x2 register",
			rows:    8, cols: 8, rowName: "n", colName: "k", bits: 16, perReg: 2,
			tv:     "((4,8),2):((16,1),8)",
			cute:   "BLayout of SM75_16x8x8_F32F16F16F32_TN: ((_4,_8),_2):((_16,_1),_8)",
			notes:  "ISA (K x N figure): row k = threadID_in_group*2 + i, col n = groupID. The tile here is N x K, as in CuTe.",
			shapes: []string{"m16n8k8"}},
		{key: Key{Family: MMASync, Operand: OperandA, M: 16, K: 8, Elem: ElemTF32}, arch: "sm_80", section: "9.7.14.5.7", operand: "A",
			summary: "A of m16n8k8, tf32, 16x8: 4 values in 4 .b32 registers",
			rows:    16, cols: 8, rowName: "m", colName: "k", bits: 32, perReg: 1,
			tv:     "((4,8),(2,2)):((16,1),(8,64))",
			cute:   "ALayout of SM80_16x8x8_F32TF32TF32F32_TN: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
			notes:  "ISA: row = groupID for a0,a2 and groupID+8 for a1,a3; col = threadID_in_group for a0,a1 and +4 for a2,a3.",
			shapes: []string{"m16n8k8"}},
		{key: Key{Family: MMASync, Operand: OperandB, N: 8, K: 8, Elem: ElemTF32}, arch: "sm_80", section: "9.7.14.5.7", operand: "B",
			summary: "B of m16n8k8, tf32, 8x8 (n x k): 2 values in 2 .b32 registers",
			rows:    8, cols: 8, rowName: "n", colName: "k", bits: 32, perReg: 1,
			tv:     "((4,8),2):((8,1),32)",
			cute:   "BLayout of SM80_16x8x8_F32TF32TF32F32_TN: ((_4,_8),_2):((_8,_1),_32)",
			notes:  "ISA (K x N figure): row k = threadID_in_group for b0 and +4 for b1, col n = groupID.",
			shapes: []string{"m16n8k8"}},
		{key: Key{Family: MMASync, Operand: OperandA, M: 16, K: 16, Elem: ElemB16}, arch: "sm_80", section: "9.7.14.5.8", operand: "A",
			summary: "A of m16n8k16, f16/bf16, 16x16: 8 values in 4 .f16x2 registers",
			rows:    16, cols: 16, rowName: "m", colName: "k", bits: 16, perReg: 2,
			tv:     "((4,8),(2,2,2)):((32,1),(16,8,128))",
			cute:   "ALayout of SM80_16x8x16_F32F16F16F32_TN: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
			notes:  "ISA: row = groupID for a0,a1,a4,a5 and groupID+8 otherwise; col = threadID_in_group*2 + (i&1), +8 for i >= 4.",
			shapes: []string{"m16n8k16"}},
		{key: Key{Family: MMASync, Operand: OperandB, N: 8, K: 16, Elem: ElemB16}, arch: "sm_80", section: "9.7.14.5.8", operand: "B",
			summary: "B of m16n8k16, f16/bf16, 8x16 (n x k): 4 values in 2 .f16x2 registers",
			rows:    8, cols: 16, rowName: "n", colName: "k", bits: 16, perReg: 2,
			tv:     "((4,8),(2,2)):((16,1),(8,64))",
			cute:   "BLayout of SM80_16x8x16_F32F16F16F32_TN: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
			notes:  "ISA (K x N figure): row k = threadID_in_group*2 + (i&1), +8 for i >= 2; col n = groupID.",
			shapes: []string{"m16n8k16"}},
		{key: Key{Family: MMASync, Operand: OperandA, M: 16, K: 32, Elem: ElemB8}, arch: "sm_80", section: "9.7.14.5.10", operand: "A",
			summary: "A of m16n8k32, s8/u8 (e4m3/e5m2 need sm_89), 16x32: 16 values in 4 .b32 registers",
			rows:    16, cols: 32, rowName: "m", colName: "k", bits: 8, perReg: 4,
			tv:     "((4,8),(4,2,2)):((64,1),(16,8,256))",
			cute:   "ALayout of SM80_16x8x32_S32S8S8S32_TN: ((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
			notes:  "ISA: row = groupID for a0..a3 and a8..a11, groupID+8 otherwise; col = threadID_in_group*4 + (i&3), +16 for i >= 8.",
			shapes: []string{"m16n8k32"}},
		{key: Key{Family: MMASync, Operand: OperandB, N: 8, K: 32, Elem: ElemB8}, arch: "sm_80", section: "9.7.14.5.10", operand: "B",
			summary: "B of m16n8k32, s8/u8 (e4m3/e5m2 need sm_89), 8x32 (n x k): 8 values in 2 .b32 registers",
			rows:    8, cols: 32, rowName: "n", colName: "k", bits: 8, perReg: 4,
			tv:     "((4,8),(4,2)):((32,1),(8,128))",
			cute:   "BLayout of SM80_16x8x32_S32S8S8S32_TN: ((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
			notes:  "ISA (K x N figure): row k = threadID_in_group*4 + (i&3), +16 for i >= 4; col n = groupID.",
			shapes: []string{"m16n8k32"}},
	}
	const cNote = "ISA: row = groupID for c0,c1 and groupID+8 for c2,c3; col = threadID_in_group*2 + (i&1). " +
		"The same for m16n8k8 (9.7.14.5.7), m16n8k16 (9.7.14.5.8) and m16n8k32 (9.7.14.5.10)."
	for _, acc := range []struct {
		typ, arch, what string
		elem            Elem
		bits, perReg    int
		shapes          []string
	}{
		{"f32", "sm_75", "k8 f16/bf16/tf32, k16 f16/bf16, k32 e4m3/e5m2", ElemF32, 32, 1, []string{"m16n8k8", "m16n8k16", "m16n8k32"}},
		{"f16", "sm_75", "k8 f16, k16 f16, k32 e4m3/e5m2", ElemF16, 16, 2, []string{"m16n8k8", "m16n8k16", "m16n8k32"}},
		{"s32", "sm_80", "k32 s8/u8", ElemS32, 32, 1, []string{"m16n8k32"}},
	} {
		notes := cNote
		if acc.perReg == 2 {
			notes += " Values 2j and 2j+1 share .f16x2 register j, low half first."
		}
		frags = append(frags, frag{key: Key{Family: MMASync, Operand: OperandD, M: 16, N: 8, Elem: acc.elem}, arch: acc.arch, section: "9.7.14.5.8", operand: "C",
			summary: "accumulator C/D " + acc.typ + ", 16x8: 4 values per thread (" + acc.what + ")",
			rows:    16, cols: 8, rowName: "m", colName: "n", bits: acc.bits, perReg: acc.perReg,
			tv:    "((4,8),(2,2)):((32,1),(16,8))",
			cute:  "CLayout of the SM75/SM80 16x8xK atoms (SM80_16x8_Row): ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
			notes: notes, shapes: acc.shapes})
	}
	for _, f := range frags {
		add(Atom{
			Key: f.key, Family: "mma.sync", Arch: f.arch, Section: f.section, Operand: f.operand, Summary: f.summary,
			Kind: KindTV, Rows: f.rows, Cols: f.cols, RowName: f.rowName, ColName: f.colName,
			ElemBits: f.bits, ValsPerReg: f.perReg,
			TV:     mustTV(f.tv, f.rows, f.cols),
			Shapes: f.shapes, Broadcast: 1, CuTe: f.cute,
			Notes: "Warp of 32 threads; groupID = lane>>2, threadID_in_group = lane%4, i = value index. " + f.notes,
		})
	}
}
