package sim

import (
	"fmt"
	"sort"
)

// Supported reports whether the simulator runs opcode (as the PTX front
// end names it: "ld", "wgmma.mma_async", "tcgen05.ld"). Some supported
// opcodes have forms it does not run (see Unsupported); those fail with a
// clear message when executed.
func Supported(opcode string) bool {
	_, ok := decoders[opcode]
	return ok
}

// refusal is a form that the PTX front end accepts and the simulator does
// not run. Every place that refuses one (a decoder's error, which faults
// where the instruction executes, or a fault at run time) says so through
// its refusal, so that Unsupported, the messages and the README's list are
// one table (TestRefusalSites, TestReadmeUnsupported).
type refusal uint8

const (
	refIndirectCall refusal = iota
	refExternCall
	refRegArray
	refVectorReg
	refLocalVar
	refFuncVar
	refConstAddrInit
	refInitExpr
	refSpecialReg
	refSymAddr
	refFloatArith
	refSetpPacked
	refXorsign
	refFmaHalfSat
	refLop3Pred
	refVectorAtomic
	refAtomic128
	refMatrixShape
	refMmaSyncShape
	refMmaSyncKind
	refWgmmaB1
	refCpMask
	refStAsyncNoMbar
	refTmapKind
	refTmapInterleave
	refTmapPacked
	refTmapAtomSwizzle
	refTmaIm2col
	refReduceTmapType
	refReduceIm2col
	refTcMmaAshift
	refTcMmaWsZeroCol
	refTcMmaWsM32
	refTcMmaShape
	refTcMmaATmemFolded
	numRefusals
)

// refusalForms says what each refusal refuses, in the words of the
// README's list.
var refusalForms = [numRefusals]string{
	refIndirectCall:     "indirect calls (call through a register or a function address)",
	refExternCall:       "calls to functions without a body in the module",
	refRegArray:         "register arrays (.reg .b32 r[4])",
	refVectorReg:        "vector registers (.reg .v2/.v4)",
	refLocalVar:         ".local variables at module level",
	refFuncVar:          ".global and .const variables declared inside a function",
	refConstAddrInit:    "address initializers in .const variables",
	refInitExpr:         "initializer expressions other than constants and symbol addresses",
	refSpecialReg:       "special registers other than thread, CTA, cluster, lane-mask, clock and shared-size ones (%pm*, %envreg*, %reserved_smem_*, …)",
	refSymAddr:          "the address of a variable outside .shared, .param, .const, .local and .global (mov of a .tex or .surf symbol, …)",
	refFloatArith:       "floating-point add, sub, mul, div, fma and math functions on a type the simulator has no arithmetic of them for (their f16, bf16, f16x2, bf16x2, f32, f32x2 and f64 forms run)",
	refSetpPacked:       "setp on f16x2/bf16x2",
	refXorsign:          "min/max .xorsign",
	refFmaHalfSat:       "fma on f16/bf16 with .sat, .relu or .oob",
	refLop3Pred:         "lop3 with a predicate output",
	refVectorAtomic:     "vector atomics (.v2/.v4/.v8 atom, red)",
	refAtomic128:        "128-bit atomics (.b128 atom, red)",
	refMatrixShape:      "ldmatrix/stmatrix shapes other than .m8n8.b16 (m16n16, m8n16, .b8, the .b6x16_p32/.b4x16_p64 decompression)",
	refMmaSyncShape:     "mma.sync shapes other than m16n8kK .row.col",
	refMmaSyncKind:      "mma.sync .kind and .block_scale",
	refWgmmaB1:          "wgmma.mma_async with .b1 A in registers",
	refCpMask:           "cp.async.bulk .cp_mask",
	refStAsyncNoMbar:    "st.async without .mbarrier::complete_tx::bytes",
	refTmapKind:         "im2col and im2col-wide tensor maps",
	refTmapInterleave:   "interleaved tensor maps (interleave=16B/32B)",
	refTmapPacked:       "tensor maps of 16U4_ALIGN16B and 16U6_ALIGN16B elements, and of 16U4_ALIGN8B outside sm_100a kernels",
	refTmapAtomSwizzle:  "the 128B_atom_32B_flip_8B and 128B_atom_64B tensor-map swizzles, and 128B_atom_32B outside sm_100a kernels",
	refTmaIm2col:        "cp.async.bulk.tensor im2col modes (.im2col, .im2col::w, .im2col::w::128)",
	refReduceTmapType:   "cp.reduce.async.bulk.tensor through tf32 and packed (16U4, 16U6) tensor maps",
	refReduceIm2col:     "cp.reduce.async.bulk.tensor .im2col_no_offs",
	refTcMmaAshift:      "tcgen05.mma .ashift",
	refTcMmaWsZeroCol:   "tcgen05.mma.ws with a zero-column mask",
	refTcMmaWsM32:       "tcgen05.mma.ws with M=32",
	refTcMmaShape:       "tcgen05.mma shapes other than M=64 and 128 (cta_group::1) and M=128 and 256 (cta_group::2)",
	refTcMmaATmemFolded: "tcgen05.mma with A in TMEM and a folded layout (cta_group::2 M=128, .ws M=64)",
}

// msg is a refusal's message: what the program has (format, args), and
// that the simulator does not run it.
func (r refusal) msg(format string, args ...any) string {
	return fmt.Sprintf(format, args...) + " is not supported by the simulator"
}

// errorf is msg as the error of a decoder (the instruction faults with it
// where it executes) or of the compiler.
func (r refusal) errorf(format string, args ...any) error {
	return &RefusedError{Form: refusalForms[r], Msg: r.msg(format, args...)}
}

// RefusedError is a form the simulator does not run: Form names it as
// Unsupported lists it, Msg says what the program has.
type RefusedError struct {
	Form string
	Msg  string
}

func (e *RefusedError) Error() string { return e.Msg }

// Unsupported lists the opcodes of the front end's catalog that the
// simulator does not run (every other one it decodes: TestDecoderTable
// checks it), and the forms of supported opcodes it does not run either
// (the refusals above, in table order).
func Unsupported() (opcodes []string, forms []string) {
	for op := range unsupportedOpcodes {
		opcodes = append(opcodes, op)
	}
	sort.Strings(opcodes)
	return opcodes, append([]string(nil), refusalForms[:]...)
}
