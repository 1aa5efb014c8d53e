package catalog

import "fmt"

// wgmma (sm_90a): PTX ISA 9.7.15.5.1 "Register Fragments and Shared Memory
// Matrix Layouts". The accumulator of wgmma.mma_async.m64nNkK is spread
// over the 128 threads of a warpgroup: warp w owns rows 16w..16w+15, lane
// l owns rows 16w + l/4 and 16w + l/4 + 8 and, in every 8-column group,
// columns 2(l%4) and 2(l%4)+1. The register A fragments follow the same
// pattern along K.

func init() { builders = append(builders, buildWGMMA) }

// wgmmaAccum describes one accumulator type.
type wgmmaAccum struct {
	typ      string
	elem     Elem
	bits     int
	perReg   int
	ks       []int  // the K of the instructions that produce it
	inputs   string // which input types, for the summary
	validN   func(n int) bool
	nComment string
}

var wgmmaAccums = []wgmmaAccum{
	{typ: "f32", elem: ElemF32, bits: 32, perReg: 1, ks: []int{8, 16, 32}, inputs: "k8 tf32, k16 f16/bf16, k32 e4m3/e5m2",
		validN: func(n int) bool { return n%8 == 0 }},
	{typ: "f16", elem: ElemF16, bits: 16, perReg: 2, ks: []int{16, 32}, inputs: "k16 f16, k32 e4m3/e5m2",
		validN: func(n int) bool { return n%8 == 0 }},
	{typ: "s32", elem: ElemS32, bits: 32, perReg: 1, ks: []int{32, 256}, inputs: "k32 s8/u8, k256 b1",
		validN:   func(n int) bool { return n <= 32 || n%16 == 0 },
		nComment: " The ISA allows .s32 only for N = 8, 16, 24, 32 and multiples of 16 from 48 to 256, so s32 atoms exist for those N only."},
}

// wgmmaOperand describes one A/B input type.
type wgmmaOperand struct {
	tok     string // name token
	elem    Elem
	types   string // PTX types, for the summary
	bits    int
	perReg  int
	k       int
	section string // the register-fragment section for this K
	aReg    string // TV layout of A in registers (64 x K)
	cute    string // CuTe's name and print of aReg
}

var wgmmaOperands = []wgmmaOperand{
	{tok: "b16", elem: ElemB16, types: "f16/bf16", bits: 16, perReg: 2, k: 16, section: "9.7.15.5.1.1.1",
		aReg: "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))",
		cute: "SM90::GMMA::ALayout_64x16: ((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))"},
	{tok: "tf32", elem: ElemTF32, types: "tf32", bits: 32, perReg: 1, k: 8, section: "9.7.15.5.1.1.2",
		aReg: "((4,8,4),(2,2)):((64,1,16),(8,256))",
		cute: "SM90::GMMA::ALayout_64x8: ((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))"},
	{tok: "b8", elem: ElemB8, types: "e4m3/e5m2/s8/u8", bits: 8, perReg: 4, k: 32, section: "9.7.15.5.1.1.3",
		aReg: "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))",
		cute: "SM90::GMMA::ALayout_64x32: ((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))"},
}

const wgmmaSMEMNote = "wgmma reads this operand from shared memory through a matrix descriptor, so no thread holds any of it in registers. " +
	"As CuTe does (GMMA::ABLayout), the atom gives the thread mode stride 0: every one of the 128 threads names the whole tile, " +
	"so every cell has exactly 128 owners (thread t, value v) with the same v, and value v is the cell itself (column-major index). " +
	"Where the elements sit in shared memory is the job of the smem.* atoms and the descriptor's leading/stride byte offsets."

func buildWGMMA(add func(Atom)) {
	allN := steps(8, 256, 8)
	for _, acc := range wgmmaAccums {
		for _, n := range allN {
			if !acc.validN(n) {
				continue
			}
			regs := n / 2 / acc.perReg
			pack := ""
			if acc.perReg == 2 {
				pack = " Two f16 values share a .f16x2 register: values 2j and 2j+1 are register j, low half first."
			}
			verified := ""
			if n == 8 && acc.typ == "f32" {
				// m64n8k16.f32.bf16.bf16, every element (REFERENCES.md).
				verified = "H100 (REFERENCES.md fact 2: m64n8k16.f32.bf16.bf16)"
			}
			add(Atom{
				Key:    Key{Family: WGMMA, Operand: OperandD, M: 64, N: n, Elem: acc.elem},
				Family: "wgmma", Arch: "sm_90a", Verified: verified,
				Section: "9.7.15.5.1.1", Operand: "C",
				Summary: fmt.Sprintf("accumulator D %s, 64x%d: %d values in %d registers per thread (%s)",
					acc.typ, n, n/2, regs, acc.inputs),
				Kind: KindTV, Rows: 64, Cols: n, RowName: "m", ColName: "n",
				ElemBits: acc.bits, ValsPerReg: acc.perReg,
				TV:        mustTV(fmt.Sprintf("((4,8,4),(2,2,%d)):((128,1,16),(64,8,512))", n/8), 64, n),
				Shapes:    shapeTokens(64, []int{n}, acc.ks),
				Broadcast: 1,
				CuTe:      fmt.Sprintf("SM90::GMMA::CLayout_64xN<%d>: ((_4,_8,_4),(_2,_2,_%d)):((_128,_1,_16),(_64,_8,_512))", n, n/8),
				Notes: "Thread t = 32*warp + lane, value v = 4*g + i (g = 8-column group, i = 0..3) holds " +
					"(row 16*warp + lane/4 + 8*(i>>1), col 8*g + 2*(lane%4) + (i&1)). " +
					"ISA 9.7.15.5.1.1.1-4 give the figures for k16, k8, k32 and k256; the layout does not depend on K." +
					pack + acc.nComment,
			})
		}
	}
	for _, op := range wgmmaOperands {
		k := op.k
		verified := ""
		if op.tok == "b16" {
			verified = "H100 (REFERENCES.md fact 3)"
		}
		add(Atom{
			Key:    Key{Family: WGMMA, Operand: OperandA, M: 64, K: k, Elem: op.elem},
			Family: "wgmma", Arch: "sm_90a", Verified: verified,
			Section: op.section, Operand: "A",
			Summary: fmt.Sprintf("A from registers, %s, 64x%d: %d values in 4 registers per thread", op.types, k, 4*op.perReg),
			Kind:    KindTV, Rows: 64, Cols: k, RowName: "m", ColName: "k",
			ElemBits: op.bits, ValsPerReg: op.perReg,
			TV:        mustTV(op.aReg, 64, k),
			Shapes:    shapeTokens(64, allN, []int{k}),
			Broadcast: 1,
			CuTe:      op.cute,
			Notes: fmt.Sprintf("Rows 16*warp + lane/4 and that +8; register r holds %d consecutive K values starting at k = %d*(lane%%4), "+
				"register order (row, k), (row+8, k), (row, k+%d), (row+8, k+%d). The same fragment as mma.sync m16n8k%d A, one per warp.",
				op.perReg, op.perReg, k/2, k/2, k),
		})
	}
	for _, op := range wgmmaOperands {
		k := op.k
		add(Atom{
			Key:    Key{Family: WGMMA, Operand: OperandA, M: 64, K: k, Elem: op.elem, Smem: true},
			Family: "wgmma", Arch: "sm_90a",
			Section: "9.7.15.5.1.2", Operand: "A",
			Summary: fmt.Sprintf("A from shared memory (descriptor), %s, 64x%d: whole-warpgroup operand, 128 owners per cell", op.types, k),
			Kind:    KindTV, Rows: 64, Cols: k, RowName: "m", ColName: "k",
			ElemBits:  op.bits,
			TV:        mustTV(fmt.Sprintf("(128,(64,%d)):(0,(1,64))", k), 64, k),
			Shapes:    shapeTokens(64, allN, []int{k}),
			Broadcast: 128,
			CuTe:      fmt.Sprintf("SM90::GMMA::ABLayout<64,%d>: (_128,(_64,_%d)):(_0,(_1,_64))", k, k),
			Notes:     wgmmaSMEMNote,
		})
		for _, n := range allN {
			add(Atom{
				Key:    Key{Family: WGMMA, Operand: OperandB, N: n, K: k, Elem: op.elem, Smem: true},
				Family: "wgmma", Arch: "sm_90a",
				Section: "9.7.15.5.1.2", Operand: "B",
				Summary: fmt.Sprintf("B from shared memory (descriptor), %s, %dx%d (n x k): whole-warpgroup operand, 128 owners per cell", op.types, n, k),
				Kind:    KindTV, Rows: n, Cols: k, RowName: "n", ColName: "k",
				ElemBits:  op.bits,
				TV:        mustTV(fmt.Sprintf("(128,(%d,%d)):(0,(1,%d))", n, k, n), n, k),
				Shapes:    shapeTokens(64, []int{n}, []int{k}),
				Broadcast: 128,
				CuTe:      fmt.Sprintf("SM90::GMMA::ABLayout<%d,%d>: (_128,(_%d,_%d)):(_0,(_1,_%d))", n, k, n, k, n),
				Notes:     wgmmaSMEMNote + " B is always in shared memory for wgmma.",
			})
		}
	}
}
