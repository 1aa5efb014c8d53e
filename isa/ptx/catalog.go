package ptx

import "sort"

// OpInfo describes one opcode in the instruction catalog.
type OpInfo struct {
	Name   string  // the opcode, e.g. "wgmma.mma_async"
	Family string  // e.g. "wgmma", "memory", "tcgen05"
	Forms  []*Form // the accepted syntaxes
	// MinPTX is the lowest .version (10*major+minor) that has the
	// instruction (0: not checked).
	MinPTX int
	// MinSM is the lowest sm_XX target that has the instruction (0: any).
	MinSM int
	// ArchSpecific instructions need an arch-specific target (sm_90a,
	// sm_100a, sm_100f ...); Archs, when set, lists the base architectures
	// that have them.
	ArchSpecific bool
	Archs        []int
	// Loose opcodes are recognised but their modifiers and operands are
	// not checked (texture, surface and video instructions, wmma).
	Loose bool

	rule func(c *checker, in *Instruction)
}

var catalog = map[string]*OpInfo{}

// Lookup returns the catalog entry for an opcode ("ld", "tcgen05.mma"),
// or nil.
func Lookup(opcode string) *OpInfo { return catalog[opcode] }

// Opcodes returns every opcode in the catalog, sorted.
func Opcodes() []string {
	out := make([]string, 0, len(catalog))
	for k := range catalog {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// F builds a form from the catalog notation described in forms.go.
func F(mods, ops string) *Form { return compileForm(mods, ops) }

type opt func(*OpInfo)

func ptxv(n int) opt                                { return func(o *OpInfo) { o.MinPTX = n } }
func sm(n int) opt                                  { return func(o *OpInfo) { o.MinSM = n } }
func archSpecific(archs ...int) opt                 { return func(o *OpInfo) { o.ArchSpecific, o.Archs = true, archs } }
func rule(fn func(c *checker, in *Instruction)) opt { return func(o *OpInfo) { o.rule = fn } }
func loose() opt                                    { return func(o *OpInfo) { o.Loose = true } }

func def(family, name string, opts []opt, forms ...*Form) {
	if _, dup := catalog[name]; dup {
		panic("ptx catalog: duplicate opcode " + name)
	}
	o := &OpInfo{Name: name, Family: family, Forms: forms}
	for _, f := range opts {
		f(o)
	}
	catalog[name] = o
}

func with(o ...opt) []opt { return o }

var tcgen05Archs = []int{100, 101, 103, 110}

func init() {
	defMemory()
	defIntegerArithmetic()
	defFloatingPoint()
	defBitManipulation()
	defCompareSelectConvert()
	defControlFlow()
	defSynchronisationAndCommunication()
	defMbarrier()
	defAsynchronousCopies()
	defMatrixDataMovement()
	defWarpgroupMMA()
	defWarpMMA()
	defTcgen05()
	defMultimemClusterLaunchControl()
	defTextureSurfaceVideo()
}

// defMemory defines the memory instructions.
func defMemory() {
	ldMods := "{.weak|volatile|relaxed|acquire|mmio}{.$scope}{.$ldss}{.$ldcop}{.nc}{.$l1ev}{.$l2ev}{.L2::cache_hint}{.$l2pf}{.$vec}.$ldt"
	def("memory", "ld", with(rule(ruleLdSt)), F(ldMods, "d=_v~, a=m, cache-policy=r:b64?L2::cache_hint"))
	stMods := "{.weak|volatile|relaxed|release|mmio}{.$scope}{.$stss}{.$stcop}{.$l1ev}{.$l2ev}{.L2::cache_hint}{.$vec}.$ldt"
	def("memory", "st", with(rule(ruleLdSt)), F(stMods, "a=m, b=v~, cache-policy=r:b64?L2::cache_hint"))
	def("memory", "ldu", with(rule(ruleLdSt)), F("{.global}{.v2|v4}.$ldt", "d=v~, a=m"))
	def("memory", "st.async", with(sm(90), rule(ruleLdSt)),
		F("{.weak}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2|v4}.b32|b64|u32|u64|s32|s64|f32|f64", "a=m, b=v, mbar=m:@shared"),
		F("{.mmio}.release.gpu|sys{.global}.b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f32|f64", "a=m, b=v"))
	def("memory", "st.bulk", with(sm(100)), F("{.weak}{.shared::cta}", "a=m, size=ri:b64, initval=i"))
	def("memory", "mov", with(rule(ruleMov)),
		F(".pred", "d=p, a=pi"),
		F(".b16|b32|b64|u16|u32|u64|s16|s32|s64|f16|bf16|f32|f64", "d=r, a=ris"),
		F(".b16|b32|b64|b128", "d=rV:*, a=rV:*"))
	def("memory", "cvta", nil,
		F(".$space.u32|u64", "d=r, a=ris"),
		F(".to.$space.u32|u64", "d=r, a=r"))
	def("memory", "prefetch", nil,
		F("{.global|local}.L1|L2", "a=m"),
		F(".global.L2::evict_last|L2::evict_normal", "a=m"),
		F("{.const|param}.tensormap", "a=m"))
	def("memory", "prefetchu", nil, F(".L1", "a=m"))
	def("memory", "isspacep", nil, F(".$space", "p=p, a=r"))
	def("memory", "createpolicy", with(sm(80)),
		F(".fractional.$l2prio{.L2::evict_first|L2::evict_unchanged}.b64", "policy=r:b64, fraction=ri:f32?"),
		F(".range{.global}.$l2prio{.L2::evict_first|L2::evict_unchanged}.b64", "policy=r:b64, a=m, primary=ri:b32, total=ri:b32"),
		F(".cvt.L2.b64", "policy=r:b64, prop=r:b64"))
	def("memory", "discard", with(sm(80)), F("{.global}.L2", "a=m, size=i"))
	def("memory", "applypriority", with(sm(80)), F("{.global}.L2::evict_normal", "a=m, size=i"))
	def("memory", "alloca", nil, F("{.local}.u32|u64", "ptr=r, size=ri, align=i?"))
	def("memory", "stacksave", nil, F(".u32|u64", "d=r"))
	def("memory", "stackrestore", nil, F(".u32|u64", "a=r"))
}

// defIntegerArithmetic defines the integer arithmetic instructions.
func defIntegerArithmetic() {
	// The floating-point forms add, sub and mul share (fresh Forms for each).
	fpArith := func(more ...*Form) []*Form {
		return append([]*Form{
			F("{.$rnd}{.ftz}{.sat}.f32", "d=r, a=ri, b=ri"),
			F("{.$rnd}{.ftz}.f32x2", "d=r, a=r, b=r"),
			F("{.$rnd}.f64", "d=r, a=ri, b=ri"),
			F("{.rn}{.ftz}{.sat}.f16|f16x2", "d=r, a=ri, b=ri"),
			F("{.rn}.bf16|bf16x2", "d=r, a=ri, b=ri"),
		}, more...)
	}
	mixedF32 := func() *Form { return F("{.$rnd}{.sat}.f32.f16|bf16", "d=r, a=ri:1, c=ri:0") }
	def("integer", "add", nil, append([]*Form{
		F("{.cc}.$int", "d=r, a=ri, b=ri"),
		F(".u16x2|s16x2", "d=r, a=ri, b=ri"),
		F(".sat.s32", "d=r, a=ri, b=ri"),
	}, fpArith(mixedF32())...)...)
	def("integer", "sub", nil, append([]*Form{
		F("{.cc}.$int", "d=r, a=ri, b=ri"),
		F(".sat.s32", "d=r, a=ri, b=ri"),
	}, fpArith(mixedF32())...)...)
	def("integer", "addc", nil, F("{.cc}.u32|s32|u64|s64", "d=r, a=ri, b=ri"))
	def("integer", "subc", nil, F("{.cc}.u32|s32|u64|s64", "d=r, a=ri, b=ri"))
	def("integer", "mul", nil, append([]*Form{
		F(".hi|lo.$int", "d=r, a=ri, b=ri"),
		F(".wide.$int32", "d=r:0w, a=ri, b=ri"),
	}, fpArith()...)...)
	def("integer", "mad", nil,
		F("{.cc}.hi|lo.$int", "d=r, a=ri, b=ri, c=ri"),
		F(".wide.$int32", "d=r:0w, a=ri, b=ri, c=ri:0w"),
		F(".hi.sat.s32", "d=r, a=ri, b=ri, c=ri"),
		F(".$rnd{.ftz}{.sat}.f32", "d=r, a=ri, b=ri, c=ri"),
		F(".$rnd.f64", "d=r, a=ri, b=ri, c=ri"))
	def("integer", "madc", nil, F("{.cc}.hi|lo.u32|s32|u64|s64", "d=r, a=ri, b=ri, c=ri"))
	def("integer", "mul24", nil, F(".hi|lo.u32|s32", "d=r, a=ri, b=ri"))
	def("integer", "mad24", nil, F(".hi|lo.u32|s32", "d=r, a=ri, b=ri, c=ri"), F(".hi.sat.s32", "d=r, a=ri, b=ri, c=ri"))
	def("integer", "sad", nil, F(".$int", "d=r, a=ri, b=ri, c=ri"))
	def("integer", "div", nil,
		F(".$int", "d=r, a=ri, b=ri"),
		F(".approx|full{.ftz}.f32", "d=r, a=ri, b=ri"),
		F(".$rnd{.ftz}.f32", "d=r, a=ri, b=ri"),
		F(".$rnd.f64", "d=r, a=ri, b=ri"))
	def("integer", "rem", nil, F(".$int", "d=r, a=ri, b=ri"))
	def("integer", "abs", nil,
		F(".s16|s32|s64", "d=r, a=ri"),
		F("{.ftz}.f32", "d=r, a=ri"), F(".f64", "d=r, a=ri"),
		F("{.ftz}.f16|f16x2", "d=r, a=ri"), F(".bf16|bf16x2", "d=r, a=ri"))
	def("integer", "neg", nil,
		F(".s16|s32|s64", "d=r, a=ri"),
		F("{.ftz}.f32", "d=r, a=ri"), F(".f64", "d=r, a=ri"),
		F("{.ftz}.f16|f16x2", "d=r, a=ri"), F(".bf16|bf16x2", "d=r, a=ri"))
	for _, mm := range []string{"min", "max"} {
		def("integer", mm, with(rule(ruleMinMax)),
			F(".u16|u32|u64|u16x2|s16|s64", "d=r, a=ri, b=ri"),
			F("{.relu}.s16x2|s32", "d=r, a=ri, b=ri"),
			F("{.ftz}{.NaN}{.xorsign}{.abs}.f32", "d=r, a=ri, b=ri"),
			F("{.ftz}{.NaN}{.abs}.f32", "d=r, a=ri, b=ri, c=ri"),
			F(".f64", "d=r, a=ri, b=ri"),
			F("{.ftz}{.NaN}{.xorsign}{.abs}.f16|f16x2", "d=r, a=ri, b=ri"),
			F("{.NaN}{.xorsign}{.abs}.bf16|bf16x2", "d=r, a=ri, b=ri"))
	}
	def("integer", "dp4a", nil, F(".u32|s32.u32|s32", "d=r:b32, a=ri:b32, b=ri:b32, c=ri:0"))
	def("integer", "dp2a", nil, F(".lo|hi.u32|s32.u32|s32", "d=r:b32, a=ri:b32, b=ri:b32, c=ri:0"))
}

// defFloatingPoint defines the floating point instructions.
func defFloatingPoint() {
	def("float", "fma", nil,
		F(".$rnd{.ftz}{.sat}.f32", "d=r, a=ri, b=ri, c=ri"),
		F(".$rnd{.ftz}.f32x2", "d=r, a=r, b=r, c=r"),
		F(".$rnd.f64", "d=r, a=ri, b=ri, c=ri"),
		F(".rn{.ftz}{.sat}.f16|f16x2", "d=r, a=ri, b=ri, c=ri"),
		F(".rn{.ftz}.relu.f16|f16x2", "d=r, a=ri, b=ri, c=ri"),
		F(".rn{.relu}.bf16|bf16x2", "d=r, a=ri, b=ri, c=ri"),
		F(".rn.oob{.relu}.f16|f16x2|bf16|bf16x2", "d=r, a=ri, b=ri, c=ri"),
		F(".$rnd{.sat}.f32.f16|bf16", "d=r, a=ri:1, b=ri:1, c=ri:0"))
	def("float", "copysign", nil, F(".f32|f64", "d=r, a=ri, b=ri"))
	def("float", "testp", nil, F(".finite|infinite|number|notanumber|normal|subnormal.f32|f64", "p=p, a=ri"))
	def("float", "sqrt", nil,
		F(".approx{.ftz}.f32", "d=r, a=ri"), F(".$rnd{.ftz}.f32", "d=r, a=ri"), F(".$rnd.f64", "d=r, a=ri"))
	def("float", "rcp", nil,
		F(".approx{.ftz}.f32", "d=r, a=ri"), F(".$rnd{.ftz}.f32", "d=r, a=ri"),
		F(".$rnd.f64", "d=r, a=ri"), F(".approx.ftz.f64", "d=r, a=ri"))
	def("float", "rsqrt", nil,
		F(".approx{.ftz}.f32", "d=r, a=ri"), F(".approx{.ftz}.f64", "d=r, a=ri"))
	def("float", "ex2", nil,
		F(".approx{.ftz}.f32", "d=r, a=ri"), F(".approx.f16|f16x2", "d=r, a=ri"),
		F(".approx.ftz.bf16|bf16x2", "d=r, a=ri"))
	def("float", "lg2", nil, F(".approx{.ftz}.f32", "d=r, a=ri"))
	def("float", "sin", nil, F(".approx{.ftz}.f32", "d=r, a=ri"))
	def("float", "cos", nil, F(".approx{.ftz}.f32", "d=r, a=ri"))
	def("float", "tanh", nil, F(".approx.f16|f32|f16x2|bf16|bf16x2", "d=r, a=ri"))
}

// defBitManipulation defines the bit manipulation instructions.
func defBitManipulation() {
	for _, op := range []string{"and", "or", "xor"} {
		def("bit", op, nil, F(".$pbits", "d=r, a=ri, b=ri"))
	}
	def("bit", "not", nil, F(".$pbits", "d=r, a=ri"))
	def("bit", "cnot", nil, F(".$bits", "d=r, a=ri"))
	def("bit", "lop3", with(rule(ruleLop3)),
		F(".b32", "d=r, a=ri, b=ri, c=ri, lut=i"),
		F(".or|and.b32", "d=r|p:pred, a=ri, b=ri, c=ri, lut=i, q=np"))
	def("bit", "prmt", nil, F(".b32{.f4e|b4e|rc8|ecl|ecr|rc16}", "d=r, a=ri, b=ri, c=ri"))
	def("bit", "bfe", nil, F(".u32|u64|s32|s64", "d=r, a=ri, b=ri:u32, c=ri:u32"))
	def("bit", "bfi", nil, F(".b32|b64", "f=r, a=ri, b=ri, c=ri:u32, d=ri:u32"))
	def("bit", "popc", nil, F(".b32|b64", "d=r:u32, a=ri"))
	def("bit", "clz", nil, F(".b32|b64", "d=r:u32, a=ri"))
	def("bit", "brev", nil, F(".b32|b64", "d=r, a=ri"))
	def("bit", "bfind", nil, F("{.shiftamt}.u32|u64|s32|s64", "d=r:u32, a=ri"))
	def("bit", "fns", nil, F(".b32", "d=r, mask=ri, base=ri:u32, offset=ri:s32"))
	def("bit", "shf", nil, F(".l|r.clamp|wrap.b32", "d=r, a=ri, b=ri, c=ri:u32"))
	def("bit", "shl", nil, F(".$bits", "d=r, a=ri, b=ri:u32"))
	def("bit", "shr", nil, F(".b16|b32|b64|u16|u32|u64|s16|s32|s64", "d=r, a=ri, b=ri:u32"))
	def("bit", "bmsk", nil, F(".clamp|wrap.b32", "d=r, a=ri:u32, b=ri:u32"))
	def("bit", "szext", nil, F(".clamp|wrap.u32|s32", "d=r, a=ri, b=ri:u32"))
}

// defCompareSelectConvert defines the compare, select, convert instructions.
func defCompareSelectConvert() {
	setpT := ".b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64"
	def("compare", "setp", with(rule(ruleCompare)),
		F(".$cmp{.$bool}{.ftz}"+setpT, "p=p|p?, a=ri, b=ri, c=np?and/or/xor"),
		F(".$fcmp{.$bool}{.ftz}.f16|f16x2", "p=p|p?, a=ri, b=ri, c=np?and/or/xor"),
		F(".$fcmp{.$bool}.bf16|bf16x2", "p=p|p?, a=ri, b=ri, c=np?and/or/xor"))
	def("compare", "set", with(rule(ruleCompare)),
		F(".$cmp{.$bool}{.ftz}.u32|s32|f32.b16|b32|b64|u16|u32|u64|s16|s32|s64|f16|f32|f64", "d=r, a=ri:1, b=ri:1, c=np?and/or/xor"),
		F(".$fcmp{.$bool}{.ftz}.f16|bf16.b16|b32|b64|u16|u32|u64|s16|s32|s64|f16|f32|f64", "d=r, a=ri:1, b=ri:1, c=np?and/or/xor"),
		F(".$fcmp{.$bool}{.ftz}.u16|s16|u32|s32|f16x2|bf16x2.f16|bf16|f16x2|bf16x2", "d=r, a=ri:1, b=ri:1, c=np?and/or/xor"))
	def("compare", "selp", nil, F(".b16|b32|b64|u16|u32|u64|s16|s32|s64|f16|bf16|f32|f64", "d=r, a=ri, b=ri, c=np"))
	def("compare", "slct", nil,
		F(".b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64.s32", "d=r, a=ri, b=ri, c=ri:1"),
		F("{.ftz}.b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64.f32", "d=r, a=ri, b=ri, c=ri:1"))
	def("convert", "cvt", with(rule(ruleCvt)),
		F("{.$irnd|$rnd}{.ftz}{.sat}.$cvtt.$cvtt", "d=r~, a=ri:1~"),
		F(".rn|rz{.relu}{.satfinite}.f16x2|bf16x2.f32", "d=r, a=ri:1, b=ri:1"),
		F(".rs{.relu}{.satfinite}.f16x2|bf16x2.f32", "d=r, a=ri:1, b=ri:1, rbits=ri:b32"),
		F(".rn|rz{.relu}{.satfinite}.f16|bf16.f32", "d=r, a=ri:1"),
		F(".rna|rn|rz{.satfinite}{.relu}.tf32.f32", "d=r:b32, a=ri:1"),
		F(".rn.satfinite{.relu}.$fnx2.f32", "d=r, a=ri:1, b=ri:1"),
		F(".rn.satfinite{.relu}.$f8x2.f16x2", "d=r, a=ri:1"),
		F(".rn{.relu}.f16x2.$fnx2", "d=r, a=ri:1"),
		F(".rs{.relu}.satfinite.$fnx4.f32", "d=r, a=V:f32, rbits=ri:b32"),
		F(".rz|rp{.satfinite}.ue8m0x2.f32|bf16x2", "d=r:b16, a=ri:1, b=ri:1?"),
		F(".rn.bf16x2.ue8m0x2", "d=r:b32, a=ri:b16"))
	def("convert", "cvt.pack", nil,
		F(".sat.u16|s16.s32", "d=r:b32, a=ri:1, b=ri:1"),
		F(".sat.u2|s2|u4|s4|u8|s8.s32.b32", "d=r:b32, a=ri:1, b=ri:1, c=ri:2"))
}

// defControlFlow defines the control flow instructions.
func defControlFlow() {
	def("control", "bra", nil, F("{.uni}", "target=s"))
	def("control", "brx.idx", nil, F("{.uni}", "index=ri:u32, targets=s"))
	def("control", "call", with(rule(ruleCall)), F("{.uni}", "*"))
	def("control", "ret", nil, F("{.uni}", ""))
	def("control", "exit", nil, F("", ""))
	def("control", "trap", nil, F("", ""))
	def("control", "brkpt", nil, F("", ""))
	def("control", "nanosleep", with(sm(70)), F(".u32", "t=ri"))
	def("control", "pmevent", nil, F("{.mask}", "a=i"))
}

// defSynchronisationAndCommunication defines the synchronisation and communication instructions.
func defSynchronisationAndCommunication() {
	def("sync", "bar", with(rule(ruleBar)),
		F("{.cta}.sync{.aligned}", "a=ri:b32, b=ri:b32?"),
		F("{.cta}.arrive{.aligned}", "a=ri:b32, b=ri:b32"),
		F("{.cta}.red.popc{.aligned}.u32", "d=r, a=ri:b32, c=np"),
		F("{.cta}.red.popc{.aligned}.u32", "d=r, a=ri:b32, b=ri:b32, c=np"),
		F("{.cta}.red.and|or{.aligned}.pred", "p=p, a=ri:b32, c=np"),
		F("{.cta}.red.and|or{.aligned}.pred", "p=p, a=ri:b32, b=ri:b32, c=np"))
	catalog["barrier"] = &OpInfo{Name: "barrier", Family: "sync", Forms: catalog["bar"].Forms, rule: ruleBar}
	def("sync", "bar.warp.sync", with(sm(70)), F("", "membermask=ri:b32"))
	def("sync", "barrier.cluster", with(sm(90)),
		F(".arrive{.release|relaxed}{.aligned}", ""),
		F(".wait{.acquire}{.aligned}", ""))
	def("sync", "membar", nil, F(".cta|gl|sys", ""), F(".proxy.alias", ""))
	def("sync", "fence", nil,
		F("{.sc|acq_rel|acquire|release}.$scope", ""),
		F(".acquire|release.sync_restrict::shared::cluster|sync_restrict::shared::cta.cluster", ""),
		F(".mbarrier_init.release.cluster", ""),
		F(".proxy.alias", ""),
		F(".proxy.async{.global|shared::cta|shared::cluster}", ""),
		F(".proxy.tensormap::generic.release.$scope", ""),
		F(".proxy.tensormap::generic.acquire.$scope", "a=m:@-, size=i"),
		F(".proxy.async::generic.acquire|release.sync_restrict::shared::cluster|sync_restrict::shared::cta.cluster", ""))
	def("sync", "shfl.sync", with(sm(70)), F(".up|down|bfly|idx.b32", "d=r|p:pred?, a=ri, b=ri:b32, c=ri:b32, membermask=ri:b32"))
	def("sync", "shfl", nil, F(".up|down|bfly|idx.b32", "d=r|p:pred?, a=ri, b=ri:b32, c=ri:b32"))
	def("sync", "vote.sync", with(sm(70)),
		F(".all|any|uni.pred", "d=p, a=np, membermask=ri:b32"),
		F(".ballot.b32", "d=r, a=np, membermask=ri:b32"))
	def("sync", "vote", nil,
		F(".all|any|uni.pred", "d=p, a=np"),
		F(".ballot.b32", "d=r, a=np"))
	def("sync", "match", with(sm(70)),
		F(".any.sync.b32|b64", "d=r:b32, a=ri, membermask=ri:b32"),
		F(".all.sync.b32|b64", "d=r:b32|p:pred?, a=ri, membermask=ri:b32"))
	def("sync", "redux.sync", with(sm(80)),
		F(".add|min|max.u32|s32", "d=r, a=r, membermask=ri:b32"),
		F(".and|or|xor.b32", "d=r, a=r, membermask=ri:b32"),
		F(".min|max{.abs}{.NaN}.f32", "d=r, a=r, membermask=ri:b32"))
	def("sync", "activemask", with(sm(70)), F(".b32", "d=r"))
	def("sync", "elect.sync", with(sm(90), ptxv(80)), F("", "d=_r:b32|p:pred, membermask=ri:b32"))
	def("sync", "griddepcontrol", with(sm(90), ptxv(78)), F(".launch_dependents|wait", ""))
	def("sync", "setmaxnreg", with(sm(90), ptxv(80), archSpecific(90, 100, 101, 103, 110, 120), rule(ruleSetmaxnreg)),
		F(".inc|dec.sync.aligned.u32", "count=i"))
	def("sync", "mapa", with(sm(90)), F("{.shared::cluster}.u32|u64", "d=r, a=ris, b=ri:u32"))
	def("sync", "getctarank", with(sm(90)), F("{.shared::cluster}.u32|u64", "d=r:u32, a=ris"))
	atomHead := "{.$atsem}{.$scope}{.$atomss}"
	def("sync", "atom", with(rule(ruleAtom)),
		F(atomHead+".and|or|xor|exch|add|inc|dec|min|max{.L2::cache_hint}.$atomt", "d=r, a=m, b=ri, cache-policy=r:b64?L2::cache_hint"),
		F(atomHead+".cas.b16|b32|b64|u32|u64|s32|s64|f32|f64|b128", "d=r, a=m, b=ri, c=ri"),
		F(atomHead+".exch{.L2::cache_hint}.b128", "d=r, a=m, b=r, cache-policy=r:b64?L2::cache_hint"),
		F(atomHead+".add.noftz{.L2::cache_hint}.f16|f16x2|bf16|bf16x2", "d=r, a=m, b=ri, cache-policy=r:b64?L2::cache_hint"),
		F("{.$atsem}{.$scope}{.global}.add|min|max{.noftz}{.L2::cache_hint}.$vec.f32|f16|bf16|f16x2|bf16x2", "d=V, a=m, b=V, cache-policy=r:b64?L2::cache_hint"))
	redHead := "{.$atomss}{.relaxed|release}{.$scope}"
	def("sync", "red", with(rule(ruleAtom)),
		F(redHead+".$redop{.L2::cache_hint}.$atomt", "a=m, b=ri, cache-policy=r:b64?L2::cache_hint"),
		F(redHead+".add.noftz{.L2::cache_hint}.f16|f16x2|bf16|bf16x2", "a=m, b=ri, cache-policy=r:b64?L2::cache_hint"),
		F("{.global}{.relaxed|release}{.$scope}.add|min|max{.noftz}{.L2::cache_hint}.$vec.f32|f16|bf16|f16x2|bf16x2", "a=m, b=V, cache-policy=r:b64?L2::cache_hint"))
	def("sync", "red.async", with(sm(90)),
		F(".relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.inc|dec|min|max|and|or|xor|add.u32|s32|b32|u64", "a=m, b=ri, mbar=m:@shared"),
		F("{.mmio}.release.gpu|cluster{.global}.add.u32|s32|u64|s64", "a=m, b=ri"))
}

// defMbarrier defines the mbarrier instructions.
func defMbarrier() {
	def("mbarrier", "mbarrier.init", with(sm(80), rule(ruleMbarrier)), F("{.$sh}.b64", "addr=m, count=ri:b32"))
	def("mbarrier", "mbarrier.inval", with(sm(80), rule(ruleMbarrier)), F("{.$sh}.b64", "addr=m"))
	def("mbarrier", "mbarrier.arrive", with(sm(80), rule(ruleMbarrier)),
		F("{.release|relaxed}{.cta|cluster}{.$shc}.b64", "state=_r:b64, addr=m, count=ri:b32?"),
		F(".expect_tx{.release|relaxed}{.cta|cluster}{.$shc}.b64", "state=_r:b64, addr=m, txCount=ri:b32"),
		F(".noComplete{.release}{.cta}{.$sh}.b64", "state=_r:b64, addr=m, count=ri:b32"))
	def("mbarrier", "mbarrier.arrive_drop", with(sm(80), rule(ruleMbarrier)),
		F("{.release|relaxed}{.cta|cluster}{.$shc}.b64", "state=_r:b64, addr=m, count=ri:b32?"),
		F(".expect_tx{.release|relaxed}{.cta|cluster}{.$shc}.b64", "state=_r:b64, addr=m, txCount=ri:b32"),
		F(".noComplete{.release}{.cta}{.$sh}.b64", "state=_r:b64, addr=m, count=ri:b32"))
	def("mbarrier", "mbarrier.expect_tx", with(sm(90), ptxv(80), rule(ruleMbarrier)), F("{.relaxed}{.cta|cluster}{.$shc}.b64", "addr=m, txCount=ri:b32"))
	def("mbarrier", "mbarrier.complete_tx", with(sm(90), ptxv(80), rule(ruleMbarrier)), F("{.relaxed}{.cta|cluster}{.$shc}.b64", "addr=m, txCount=ri:b32"))
	def("mbarrier", "mbarrier.test_wait", with(sm(80), rule(ruleMbarrier)),
		F("{.acquire|relaxed}{.cta|cluster}{.$sh}.b64", "waitComplete=p, addr=m, state=r:b64"),
		F(".parity{.acquire|relaxed}{.cta|cluster}{.$sh}.b64", "waitComplete=p, addr=m, phaseParity=ri:b32"))
	def("mbarrier", "mbarrier.try_wait", with(sm(90), rule(ruleMbarrier)),
		F("{.acquire|relaxed}{.cta|cluster}{.$sh}.b64", "waitComplete=p, addr=m, state=r:b64, suspendTimeHint=ri:b32?"),
		F(".parity{.acquire|relaxed}{.cta|cluster}{.$sh}.b64", "waitComplete=p, addr=m, phaseParity=ri:b32, suspendTimeHint=ri:b32?"))
	def("mbarrier", "mbarrier.pending_count", with(sm(80)), F(".b64", "count=r:b32, state=r:b64"))
}

// defAsynchronousCopies defines the asynchronous copies instructions.
func defAsynchronousCopies() {
	def("async-copy", "cp.async", with(sm(80), rule(ruleCpAsync)),
		F(".ca|cg.$sh.global{.L2::cache_hint}{.$l2pf}", "dst=m:@0, src=m:@1, cp-size=i, src-size=a?, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "cp.async.commit_group", with(sm(80)), F("", ""))
	def("async-copy", "cp.async.wait_group", with(sm(80)), F("", "n=i"))
	def("async-copy", "cp.async.wait_all", with(sm(80)), F("", ""))
	def("async-copy", "cp.async.mbarrier.arrive", with(sm(80)), F("{.noinc}{.$sh}.b64", "addr=m"))
	def("async-copy", "cp.async.bulk", with(sm(90), ptxv(80)),
		F(".shared::cta|shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}",
			"dst=m:@0, src=m:@1, size=ri:b32, mbar=m:@shared, ctaMask=ri:b16?multicast::cluster, cache-policy=r:b64?L2::cache_hint"),
		F(".shared::cluster.shared::cta.mbarrier::complete_tx::bytes", "dst=m:@0, src=m:@1, size=ri:b32, mbar=m:@shared"),
		F(".global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask}", "dst=m:@0, src=m:@1, size=ri:b32, cache-policy=r:b64?L2::cache_hint, byteMask=ri:b16?cp_mask"))
	loadModes := "{.tile|tile::gather4|im2col|im2col::w|im2col::w::128}"
	def("async-copy", "cp.async.bulk.tensor", with(sm(90), ptxv(80), rule(ruleBulkTensor)),
		F(".$dim.shared::cta|shared::cluster.global"+loadModes+".mbarrier::complete_tx::bytes{.multicast::cluster}{.$ctag}{.L2::cache_hint}",
			"dst=m:@0, tensor=m:@-, mbar=m:@shared, im2col=V:b16?im2col, ctaMask=ri:b16?multicast::cluster, cache-policy=r:b64?L2::cache_hint"),
		F(".$dim.global.shared::cta{.tile|tile::scatter4|im2col_no_offs}.bulk_group{.L2::cache_hint}",
			"tensor=m:@-, src=m:@1, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "cp.async.bulk.commit_group", with(sm(90)), F("", ""))
	def("async-copy", "cp.async.bulk.wait_group", with(sm(90)), F("{.read}", "n=i"))
	def("async-copy", "cp.async.bulk.prefetch", with(sm(90)), F(".L2.global{.L2::cache_hint}", "src=m, size=ri:b32, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "cp.async.bulk.prefetch.tensor", with(sm(90), rule(ruleBulkTensor)),
		F(".$dim.L2.global"+loadModes+"{.L2::cache_hint}", "tensor=m:@-, im2col=V:b16?im2col, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "cp.reduce.async.bulk", with(sm(90)),
		F(".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.$redop.b32|u32|s32|b64|u64", "dst=m:@0, src=m:@1, size=ri:b32, mbar=m:@shared"),
		F(".global.shared::cta.bulk_group{.L2::cache_hint}.$redop{.noftz}.f16|bf16|b32|u32|s32|b64|u64|s64|f32|f64", "dst=m:@0, src=m:@1, size=ri:b32, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "cp.reduce.async.bulk.tensor", with(sm(90), rule(ruleBulkTensor)),
		F(".$dim.global.shared::cta.add|min|max|inc|dec|and|or|xor{.tile|im2col_no_offs}.bulk_group{.L2::cache_hint}", "tensor=m:@-, src=m:@1, cache-policy=r:b64?L2::cache_hint"))
	def("async-copy", "tensormap.cp_fenceproxy", with(sm(90)),
		F(".global.shared::cta.tensormap::generic.release.$scope.sync.aligned", "dst=m:@0, src=m:@1, size=i"))
	def("async-copy", "tensormap.replace", with(sm(90), loose()))
}

// defMatrixDataMovement defines the matrix data movement instructions.
func defMatrixDataMovement() {
	def("matrix", "ldmatrix", with(sm(75), rule(ruleLdmatrix)),
		F(".sync.aligned.m8n8|m16n16.x1|x2|x4{.trans}{.$sh}.b16|b8", "d=rV:b32, a=m"),
		F(".sync.aligned.m8n16|m16n16.x1|x2|x4{.trans}{.$sh}.b8x16.b6x16_p32|b4x16_p64", "d=rV:b32, a=m"))
	def("matrix", "stmatrix", with(sm(90), ptxv(78), rule(ruleLdmatrix)),
		F(".sync.aligned.m8n8|m16n8.x1|x2|x4{.trans}{.$sh}.b16|b8", "a=m, r=rV:b32"))
	def("matrix", "movmatrix", with(sm(75)), F(".sync.aligned.m8n8.trans.b16", "d=r:b32, a=r:b32"))
}

// defWarpgroupMMA defines the warpgroup MMA instructions.
func defWarpgroupMMA() {
	wg := with(sm(90), ptxv(80), archSpecific(90))
	def("wgmma", "wgmma.fence", wg, F(".sync.aligned", ""))
	def("wgmma", "wgmma.commit_group", wg, F(".sync.aligned", ""))
	def("wgmma", "wgmma.wait_group", with(sm(90), ptxv(80), archSpecific(90), rule(ruleWaitGroup)), F(".sync.aligned", "n=i"))
	def("wgmma", "wgmma.mma_async", with(sm(90), ptxv(80), archSpecific(90), rule(ruleWgmma)),
		F(".sync.aligned.$mnk{.satfinite}.f16|f32|s32.$wgt.$wgt{.and}{.popc}",
			"d=V:*, a=rV:*, b-desc=r:b64, scale-d=pi, imm-scale-a=i?, imm-scale-b=i?, imm-trans-a=i?, imm-trans-b=i?"))
	def("wgmma", "wgmma.mma_async.sp", with(sm(90), ptxv(80), archSpecific(90), rule(ruleWgmma)),
		F(".sync.aligned.$mnk{.satfinite}.f16|f32|s32.$wgt.$wgt",
			"d=V:*, a=rV:*, b-desc=r:b64, sp-meta=ri:b32, sp-sel=i, scale-d=pi, imm-scale-a=i?, imm-scale-b=i?, imm-trans-a=i?, imm-trans-b=i?"))
}

// defWarpMMA defines the warp MMA instructions.
func defWarpMMA() {
	mmaMods := ".sync.aligned.$mnk{.row|col}{.row|col}{.satfinite}{.$kind}{.block_scale}{.$svec}.f16|f32|s32|f64.$mmat.$mmat.f16|f32|s32|f64{.ue8m0|ue4m3}{.xor|and}{.popc}"
	def("mma", "mma", with(sm(70), rule(ruleMma)), F(mmaMods, "d=V:*, a=V:*, b=V:*, c=V:*, *"))
	def("mma", "mma.sp", with(sm(80), rule(ruleMma)), F(mmaMods, "d=V:*, a=V:*, b=V:*, c=V:*, e=ri:b32, f=i, *"))
	def("mma", "mma.sp::ordered_metadata", with(sm(80), rule(ruleMma)), F(mmaMods, "d=V:*, a=V:*, b=V:*, c=V:*, e=ri:b32, f=i, *"))
	for _, w := range []string{"wmma.load", "wmma.store", "wmma.mma"} {
		def("mma", w, with(sm(70), loose()))
	}
}

// defTcgen05 defines the tcgen05 instructions.
func defTcgen05() {
	t5 := func(r func(*checker, *Instruction)) []opt {
		o := with(sm(100), ptxv(86), archSpecific(tcgen05Archs...))
		if r != nil {
			o = append(o, rule(r))
		}
		return o
	}
	def("tcgen05", "tcgen05.alloc", t5(ruleTcgen05Alloc), F(".$ctag.sync.aligned{.shared::cta}.b32", "dst=m:@shared, nCols=ri:b32"))
	def("tcgen05", "tcgen05.dealloc", t5(ruleTcgen05Alloc), F(".$ctag.sync.aligned.b32", "taddr=r:b32, nCols=ri:b32"))
	def("tcgen05", "tcgen05.relinquish_alloc_permit", t5(nil), F(".$ctag.sync.aligned", ""))
	def("tcgen05", "tcgen05.ld", t5(ruleTcgen05LdSt),
		F(".sync.aligned.$tmshp.$tmnum{.pack::16b}.b32", "r=rV:b32, taddr=m:@tmem"),
		F(".sync.aligned.16x32bx2.$tmnum{.pack::16b}.b32", "r=rV:b32, taddr=m:@tmem, immHalfSplitoff=i"),
		F(".red.sync.aligned.32x32b.$tmnum.min|max{.abs}{.NaN}.f32|u32|s32", "r=rV:0, redval=r:0, taddr=m:@tmem"),
		F(".red.sync.aligned.16x32bx2.$tmnum.min|max{.abs}{.NaN}.f32|u32|s32", "r=rV:0, redval=r:0, taddr=m:@tmem, immHalfSplitoff=i"))
	def("tcgen05", "tcgen05.st", t5(ruleTcgen05LdSt),
		F(".sync.aligned.$tmshp.$tmnum{.unpack::16b}.b32", "taddr=m:@tmem, r=rV:b32"),
		F(".sync.aligned.16x32bx2.$tmnum{.unpack::16b}.b32", "taddr=m:@tmem, immHalfSplitoff=i, r=rV:b32"))
	def("tcgen05", "tcgen05.wait::ld", t5(nil), F(".sync.aligned", ""))
	def("tcgen05", "tcgen05.wait::st", t5(nil), F(".sync.aligned", ""))
	def("tcgen05", "tcgen05.fence::before_thread_sync", t5(nil), F("", ""))
	def("tcgen05", "tcgen05.fence::after_thread_sync", t5(nil), F("", ""))
	def("tcgen05", "tcgen05.commit", t5(nil),
		F(".$ctag.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64", "mbar=m, ctaMask=ri:b16?multicast::cluster"))
	def("tcgen05", "tcgen05.cp", t5(ruleTcgen05Cp),
		F(".$ctag.128x256b|4x256b|128x128b|64x128b|32x128b{.warpx2::02_13|warpx2::01_23|warpx4}{.b8x16}{.b6x16_p32|b4x16_p64}", "taddr=m:@tmem, s-desc=r:b64"))
	def("tcgen05", "tcgen05.shift", t5(nil), F(".$ctag.down", "taddr=m:@tmem"))
	mmaT5 := ".$ctag.$kind{.block_scale}{.$svec}{.ashift}{.$coll}"
	def("tcgen05", "tcgen05.mma", t5(ruleTcgen05Mma), F(mmaT5, "d-tmem=m:@tmem, a=rm:b64, b-desc=r:b64, idesc=r:b32, *"))
	def("tcgen05", "tcgen05.mma.sp", t5(ruleTcgen05Mma), F(mmaT5, "d-tmem=m:@tmem, a=rm:b64, b-desc=r:b64, sp-meta=m:@tmem, idesc=r:b32, *"))
	mmaWS := ".cta_group::1.kind::f16|kind::tf32|kind::f8f6f4|kind::i8{.$wscoll}"
	def("tcgen05", "tcgen05.mma.ws", t5(ruleTcgen05Mma), F(mmaWS, "d-tmem=m:@tmem, a=rm:b64, b-desc=r:b64, idesc=r:b32, *"))
	def("tcgen05", "tcgen05.mma.ws.sp", t5(ruleTcgen05Mma), F(mmaWS, "d-tmem=m:@tmem, a=rm:b64, b-desc=r:b64, sp-meta=m:@tmem, idesc=r:b32, *"))
}

// defMultimemClusterLaunchControl defines the multimem, cluster launch control instructions.
func defMultimemClusterLaunchControl() {
	for _, n := range []string{"multimem.ld_reduce", "multimem.st", "multimem.red", "multimem.cp.async.bulk", "multimem.cp.reduce.async.bulk"} {
		def("multimem", n, with(sm(90), loose()))
	}
	def("sync", "clusterlaunchcontrol.try_cancel", with(sm(100), loose()))
	def("sync", "clusterlaunchcontrol.query_cancel", with(sm(100), loose()))
}

// defTextureSurfaceVideo defines the texture, surface, video (recognised, not checked) instructions.
func defTextureSurfaceVideo() {
	for _, n := range []string{"tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep",
		"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
		"vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
		"vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4"} {
		def("texture/video", n, with(loose()))
	}
}
