package sim

import "fmt"

// decoders is the simulator's one decoder table: for every opcode it runs
// (as the PTX front end's catalog names it), the function that decodes an
// instruction into an Inst. An opcode of the catalog that is not here is
// in unsupportedOpcodes; TestDecoderTable checks that the two cover the
// catalog exactly. Some decoders refuse forms they do not run (see
// Unsupported); those instructions fail with a clear message when
// executed.
var decoders = map[string]decodeFn{
	// Arithmetic (alu_arith.go) and floating-point functions (alu_float.go).
	"add":      decAddSub(false),
	"sub":      decAddSub(true),
	"mul":      decMul,
	"mad":      decMad,
	"fma":      decFma,
	"div":      decDiv,
	"rem":      decRem,
	"abs":      decAbsNeg(true),
	"neg":      decAbsNeg(false),
	"min":      decMinMax(true),
	"max":      decMinMax(false),
	"mul24":    decMul24,
	"mad24":    decMad24,
	"sad":      decSad,
	"addc":     decAddc(false),
	"subc":     decAddc(true),
	"madc":     decMadc,
	"dp4a":     decDp(4),
	"dp2a":     decDp(2),
	"copysign": decCopysign,
	"testp":    decTestp,
	"sqrt":     decMath("sqrt"),
	"rcp":      decMath("rcp"),
	"rsqrt":    decMath("rsqrt"),
	"ex2":      decMath("ex2"),
	"lg2":      decMath("lg2"),
	"sin":      decMath("sin"),
	"cos":      decMath("cos"),
	"tanh":     decMath("tanh"),

	// Logic and bit manipulation (alu_bits.go).
	"and":   decBitop("and"),
	"or":    decBitop("or"),
	"xor":   decBitop("xor"),
	"not":   decNot,
	"cnot":  decCnot,
	"shl":   decShift(true),
	"shr":   decShift(false),
	"shf":   decShf,
	"lop3":  decLop3,
	"prmt":  decPrmt,
	"popc":  decBitCount("popc"),
	"clz":   decBitCount("clz"),
	"brev":  decBitCount("brev"),
	"bfind": decBitCount("bfind"),
	"bfe":   decBfe,
	"bfi":   decBfi,
	"bmsk":  decBmsk,
	"szext": decSzext,

	// Comparison and selection (alu_cmp.go).
	"setp": decSetp,
	"selp": decSelp,
	"set":  decSet,
	"slct": decSlct,

	// Moves and conversions (alu_cvt.go).
	"mov":      decMov,
	"cvt":      decCvt,
	"cvt.pack": decCvtPack,

	// Control flow and barriers (exec_ctrl.go).
	"bra":             decBra,
	"call":            decCall,
	"ret":             decRet,
	"exit":            decExit,
	"trap":            decTrap,
	"brkpt":           decNop,
	"nanosleep":       decNop,
	"pmevent":         decNop,
	"griddepcontrol":  decNop,
	"bar":             decBar,
	"barrier":         decBar,
	"bar.warp.sync":   decWarpSync,
	"barrier.cluster": decClusterBar,

	// Fences, warp-level and lane-level operations (exec_warp.go).
	"membar":     decNop,
	"fence":      decFence,
	"setmaxnreg": decSetmaxnreg,
	"elect.sync": decElect,
	"activemask": decLaneValue(func(m uint32) uint64 { return uint64(m) }),
	"vote.sync":  decVote,
	"vote":       decVote,
	"shfl.sync":  decShfl,
	"shfl":       decShfl,
	"match":      decMatch,
	"redux.sync": decRedux,

	// Memory (exec_mem.go).
	"ld":                            decLd,
	"ldu":                           decLd,
	"st":                            decSt,
	"atom":                          decAtom(false),
	"red":                           decAtom(true),
	"cvta":                          decCvta,
	"isspacep":                      decIsspacep,
	"mapa":                          decMapa,
	"getctarank":                    decGetctarank,
	"prefetch":                      decPrefetch,
	"prefetchu":                     decNop,
	"applypriority":                 decNop,
	"discard":                       decNop,
	"cp.async.bulk.prefetch":        decNop,
	"cp.async.bulk.prefetch.tensor": decNop,
	"createpolicy":                  decLaneValue(func(uint32) uint64 { return 0 }),

	// Matrix loads and stores (matrix.go), mma.sync (mma.go).
	"ldmatrix":  decLdStMatrix(true),
	"stmatrix":  decLdStMatrix(false),
	"movmatrix": decMovmatrix,
	"mma":       decMma,

	// mbarrier (mbarrier.go).
	"mbarrier.init":          decMbar("init"),
	"mbarrier.inval":         decMbar("inval"),
	"mbarrier.arrive":        decMbar("arrive"),
	"mbarrier.arrive_drop":   decMbar("arrive_drop"),
	"mbarrier.expect_tx":     decMbar("expect_tx"),
	"mbarrier.complete_tx":   decMbar("complete_tx"),
	"mbarrier.test_wait":     decMbar("test_wait"),
	"mbarrier.try_wait":      decMbar("try_wait"),
	"mbarrier.pending_count": decPendingCount,

	// Asynchronous copies: TMA, bulk copies, cp.async (tma.go, async_copy.go).
	"cp.async.bulk.tensor":        decBulkTensor,
	"cp.async.bulk":               decBulk,
	"cp.async.bulk.commit_group":  decBulkCommit,
	"cp.async.bulk.wait_group":    decBulkWait,
	"cp.async":                    decCpAsync,
	"cp.async.commit_group":       decCpAsyncCommit,
	"cp.async.wait_group":         decCpAsyncWait(false),
	"cp.async.wait_all":           decCpAsyncWait(true),
	"cp.async.mbarrier.arrive":    decCpAsyncArrive,
	"st.async":                    decStAsync,
	"cp.reduce.async.bulk":        decBulkReduce,
	"cp.reduce.async.bulk.tensor": decBulkTensorReduce,
	"st.bulk":                     decStBulk,

	// wgmma (wgmma.go).
	"wgmma.mma_async":    decWgmma,
	"wgmma.fence":        decWgmmaSync("fence"),
	"wgmma.commit_group": decWgmmaSync("commit"),
	"wgmma.wait_group":   decWgmmaSync("wait"),

	// tcgen05 and Tensor Memory (tcgen05.go, tcgen05_tmem.go).
	"tcgen05.alloc":                     decTcAlloc(true),
	"tcgen05.dealloc":                   decTcAlloc(false),
	"tcgen05.relinquish_alloc_permit":   decTcRelinquish,
	"tcgen05.mma":                       decTcMma,
	"tcgen05.mma.ws":                    decTcMma,
	"tcgen05.commit":                    decTcCommit,
	"tcgen05.ld":                        decTcLdSt(true),
	"tcgen05.st":                        decTcLdSt(false),
	"tcgen05.wait::ld":                  decTcWait(true),
	"tcgen05.wait::st":                  decTcWait(false),
	"tcgen05.fence::before_thread_sync": decTcFence(true),
	"tcgen05.fence::after_thread_sync":  decTcFence(false),
	"tcgen05.cp":                        decTcCp,
	"tcgen05.shift":                     decTcShift,

	// Cluster launch control (clc.go).
	"clusterlaunchcontrol.try_cancel":   decClcTryCancel,
	"clusterlaunchcontrol.query_cancel": decClcQuery,
}

// unsupportedOpcodes lists the opcodes of the catalog that the simulator
// does not run. A program may contain them (it compiles); executing one
// faults with "NAME is not supported by the simulator", NAME being the
// opcode or, where the value is not empty, the value.
var unsupportedOpcodes = map[string]string{
	"brx.idx":            "",
	"wgmma.mma_async.sp": "wgmma.mma_async.sp (sparse)",
	"tcgen05.mma.sp":     "tcgen05.mma.sp (sparse)",
	"tcgen05.mma.ws.sp":  "tcgen05.mma.ws.sp (sparse)",

	"mma.sp": "", "mma.sp::ordered_metadata": "",
	"wmma.load": "", "wmma.mma": "", "wmma.store": "",
	"alloca": "", "stacksave": "", "stackrestore": "", "fns": "", "istypep": "",
	"red.async":              "",
	"multimem.cp.async.bulk": "", "multimem.cp.reduce.async.bulk": "", "multimem.ld_reduce": "",
	"multimem.red": "", "multimem.st": "",
	"tensormap.cp_fenceproxy": "", "tensormap.replace": "",

	// Textures and surfaces.
	"tex": "", "tld4": "", "txq": "", "suld": "", "sust": "", "sured": "", "suq": "",

	// Video instructions.
	"vadd": "", "vsub": "", "vabsdiff": "", "vmin": "", "vmax": "", "vshl": "", "vshr": "", "vmad": "", "vset": "",
	"vadd2": "", "vsub2": "", "vavrg2": "", "vabsdiff2": "", "vmin2": "", "vmax2": "", "vset2": "",
	"vadd4": "", "vsub4": "", "vavrg4": "", "vabsdiff4": "", "vmin4": "", "vmax4": "", "vset4": "",
}

// decTrap decodes trap: the kernel aborts where it executes.
func decTrap(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) { w.fault(in, firstLane(m), "trap: the kernel aborted") }
	return nil
}

// unsupportedFn is the instruction function of an opcode the simulator
// does not run.
func unsupportedFn(opcode string) execFn {
	name := unsupportedOpcodes[opcode]
	if name == "" {
		name = opcode
	}
	return unsupported(fmt.Sprintf("%s is not supported by the simulator", name))
}
