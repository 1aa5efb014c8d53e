package ptx

import (
	"fmt"
	"strings"
)

// This file holds the combination rules that the form notation cannot
// express: legal shape and type pairs, operand counts that depend on the
// shape, immediate ranges and address-space rules. Each rule runs after
// the instruction has matched a form.

// ruleErr reports a rule violation, prefixed with the instruction name.
func (c *checker) ruleErr(in *Instruction, pos Pos, hint, format string, args ...any) {
	c.errorf(pos, hint, "%s: %s", in.Name(), fmt.Sprintf(format, args...))
}

// ruleWarn reports a rule violation that ptxas does not catch.
func (c *checker) ruleWarn(in *Instruction, pos Pos, hint, format string, args ...any) {
	c.warnf(pos, hint, "%s: %s", in.Name(), fmt.Sprintf(format, args...))
}

// modPos returns the position of the modifier with the given prefix, or
// of the opcode.
func modPos(in *Instruction, prefix string) Pos {
	for _, m := range in.Mods {
		if strings.HasPrefix(m.Name, prefix) {
			return m.Pos
		}
	}
	return in.OpPos
}

// typePos returns the position of the i-th type modifier.
func typePos(in *Instruction, i int) Pos {
	k := 0
	for _, m := range in.Mods {
		if LookupType(m.Name) != TypeNone {
			if k == i {
				return m.Pos
			}
			k++
		}
	}
	return in.OpPos
}

func immValue(e Expr) (int64, bool) {
	if imm, ok := e.(*Imm); ok && imm.Kind == ImmInt {
		return int64(imm.Bits), true
	}
	return 0, false
}

// regCount is the number of registers in a register-or-vector operand.
func regCount(e Expr) int {
	switch e := e.(type) {
	case *Vector:
		return len(e.Elems)
	case *Reg:
		return 1
	}
	return 0
}

func operand(in *Instruction, i int) Expr {
	if i < len(in.Operands) {
		return in.Operands[i]
	}
	return nil
}

func opPos(in *Instruction, i int) Pos {
	if e := operand(in, i); e != nil {
		return e.Position()
	}
	return in.OpPos
}

// ---- memory ----

func ruleLdSt(c *checker, in *Instruction) {
	sem := ""
	for _, s := range []string{"relaxed", "acquire", "release", "volatile", "weak", "mmio"} {
		if in.Has(s) {
			sem = s
		}
	}
	scope := ""
	for _, s := range []string{"cta", "cluster", "gpu", "sys"} {
		if in.Has(s) {
			scope = s
		}
	}
	switch {
	case (sem == "relaxed" || sem == "acquire" || sem == "release") && scope == "" && in.Opcode != "st.async":
		c.ruleErr(in, modPos(in, sem), "e.g. ."+sem+".gpu", ".%s needs a scope (.cta, .cluster, .gpu or .sys)", sem)
	case scope != "" && sem != "relaxed" && sem != "acquire" && sem != "release" && in.Opcode != "st.async":
		c.ruleErr(in, modPos(in, scope), "", "scope .%s needs .relaxed, .acquire or .release", scope)
	case sem == "mmio" && (!in.Has("relaxed") || scope != "sys"):
		c.ruleErr(in, modPos(in, "mmio"), "", ".mmio needs .relaxed.sys")
	}
	if sem == "volatile" {
		for _, m := range in.Mods {
			if strings.HasPrefix(m.Name, "L1::") || strings.HasPrefix(m.Name, "L2::") || m.Name == "ca" || m.Name == "cg" || m.Name == "cs" || m.Name == "lu" || m.Name == "cv" || m.Name == "wb" || m.Name == "wt" {
				c.ruleErr(in, m.Pos, "", ".volatile cannot be combined with cache qualifier .%s", m.Name)
			}
		}
	}
	if in.Has("nc") && in.Space() != SpaceGlobal {
		c.ruleErr(in, modPos(in, "nc"), "use ld.global.nc", ".nc is only allowed on .global loads")
	}
	if in.Opcode == "st" && in.Space() == SpaceConst {
		c.ruleErr(in, in.OpPos, "", "stores to .const are not allowed")
	}
	if vec := in.Vec(); vec > 0 && len(in.Types) > 0 {
		t := in.Types[len(in.Types)-1]
		bits := vec * t.Bits()
		switch {
		case bits > 256:
			c.ruleErr(in, modPos(in, "v"), "", ".v%d.%s is %d bits; vector accesses are at most 256 bits", vec, t, bits)
		case bits > 128:
			c.needVersion(in, modPos(in, "v"), 88, "256-bit loads and stores")
			if c.arch.name != "" && c.arch.sm < 100 {
				c.ruleErr(in, modPos(in, "v"), "", "256-bit loads and stores need sm_100 or later; the module targets %s", c.arch.name)
			}
		}
	}
}

func ruleMov(c *checker, in *Instruction) {
	if len(in.Operands) != 2 || len(in.Types) == 0 {
		return
	}
	t := in.Types[0]
	dv, dIsVec := in.Operands[0].(*Vector)
	av, aIsVec := in.Operands[1].(*Vector)
	if dIsVec && aIsVec {
		c.ruleErr(in, dv.Pos, "", "only one operand of mov may be a vector")
		return
	}
	v := dv
	if aIsVec {
		v = av
	}
	if v == nil {
		return
	}
	if n := len(v.Elems); n != 2 && n != 4 {
		c.ruleErr(in, v.Pos, "", "a packing mov takes a vector of 2 or 4 elements, found %d", n)
		return
	}
	total := 0
	for _, e := range v.Elems {
		switch e := e.(type) {
		case *Reg:
			if rt, ok := c.regType(e); ok {
				total += rt.regBits()
			} else {
				return
			}
		case *Sink:
			total += t.Bits() / len(v.Elems)
		default:
			if !dIsVec {
				total += t.Bits() / len(v.Elems)
			} else {
				c.ruleErr(in, e.Position(), "", "unexpected %s in the destination vector", describeExpr(e))
				return
			}
		}
	}
	if total != t.Bits() {
		c.ruleErr(in, v.Pos, fmt.Sprintf("the elements must add up to %d bits", t.Bits()), "vector elements total %d bits, but .%s is %d bits", total, t, t.Bits())
	}
}

// ---- arithmetic and compare ----

// needVersion reports a feature that needs a newer .version.
func (c *checker) needVersion(in *Instruction, pos Pos, v int, what string) {
	if c.version != 0 && c.version < v {
		c.ruleErr(in, pos, fmt.Sprintf("use .version %d.%d or later", v/10, v%10), "%s need PTX ISA %d.%d; the module declares .version %d.%d", what, v/10, v%10, c.version/10, c.version%10)
	}
}

func ruleMinMax(c *checker, in *Instruction) {
	if len(in.Operands) == 4 {
		c.needVersion(in, in.OpPos, 88, "three-input min/max")
		if c.arch.name != "" && c.arch.sm < 100 {
			c.ruleErr(in, in.OpPos, "", "three-input min/max needs sm_100 or later; the module targets %s", c.arch.name)
		}
	}
	if len(in.Operands) == 3 && in.Has("abs") != in.Has("xorsign") {
		c.ruleErr(in, modPos(in, "abs"), "write .xorsign.abs", ".xorsign and .abs must be used together")
		if !in.Has("abs") {
			c.ruleErr(in, modPos(in, "xorsign"), "write .xorsign.abs", ".xorsign and .abs must be used together")
		}
	}
}

func ruleLop3(c *checker, in *Instruction) {
	if v, ok := immValue(operand(in, 4)); ok && (v < 0 || v > 255) {
		c.ruleErr(in, opPos(in, 4), "the lookup table is 8 bits", "immLut %d is outside 0..255", v)
	}
}

var floatOnlyCmp = map[string]bool{"equ": true, "neu": true, "ltu": true, "leu": true, "gtu": true, "geu": true, "num": true, "nan": true}
var unsignedCmp = map[string]bool{"lo": true, "ls": true, "hi": true, "hs": true}

func ruleCompare(c *checker, in *Instruction) {
	t := in.Types[len(in.Types)-1]
	cmp := in.Mods[0]
	switch {
	case t.Kind() == KindFloat && unsignedCmp[cmp.Name]:
		c.ruleErr(in, cmp.Pos, "use .lt, .le, .gt or .ge", ".%s is an unsigned comparison and does not apply to .%s", cmp.Name, t)
	case t.Kind() != KindFloat && floatOnlyCmp[cmp.Name]:
		c.ruleErr(in, cmp.Pos, "", ".%s is a floating-point comparison and does not apply to .%s", cmp.Name, t)
	case t.Kind() == KindBit && cmp.Name != "eq" && cmp.Name != "ne":
		c.ruleErr(in, cmp.Pos, "use .u or .s types for ordered comparisons", "bit types compare only with .eq and .ne, not .%s", cmp.Name)
	}
	if in.Has("ftz") && t != F32 && t != F16 && t != F16x2 && in.Opcode == "setp" {
		c.ruleErr(in, modPos(in, "ftz"), "", ".ftz applies only to .f32 and .f16 comparisons")
	}
	if in.Opcode == "setp" && (t == F16x2 || t == BF16x2) {
		if _, ok := operand(in, 0).(*Pair); !ok {
			c.ruleErr(in, opPos(in, 0), "write p|q", "packed .%s comparisons write two predicates", t)
		}
	}
}

func ruleCvt(c *checker, in *Instruction) {
	if len(in.Types) != 2 {
		return
	}
	d, a := in.Types[0], in.Types[1]
	if !isCvtScalar(d) || !isCvtScalar(a) {
		return // the packed forms have their own syntax in the catalog
	}
	rnd := ""
	var rpos Pos
	for _, m := range in.Mods {
		switch m.Name {
		case "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs":
			rnd, rpos = m.Name, m.Pos
		}
	}
	irnd := strings.HasSuffix(rnd, "i")
	df, af := d.Kind() == KindFloat, a.Kind() == KindFloat
	switch {
	case df && af && d.Bits() < a.Bits():
		if rnd == "" || irnd {
			c.ruleErr(in, in.OpPos, "add .rn, .rz, .rm or .rp", "narrowing float conversion .%s to .%s needs a floating-point rounding modifier", a, d)
		}
	case df && af && d.Bits() > a.Bits():
		if rnd != "" {
			c.ruleErr(in, rpos, "", "widening conversion .%s to .%s is exact and takes no rounding modifier", a, d)
		}
	case df && af:
		if rnd != "" && !irnd && d == a {
			c.ruleErr(in, rpos, "use .rni, .rzi, .rmi or .rpi to round to an integral value", "same-size float conversion takes an integer rounding modifier, not .%s", rnd)
		}
	case !df && af:
		if !irnd {
			c.ruleErr(in, in.OpPos, "add .rni, .rzi, .rmi or .rpi", "float-to-integer conversion .%s to .%s needs an integer rounding modifier", a, d)
		}
	case df && !af:
		if rnd == "" || irnd {
			c.ruleErr(in, in.OpPos, "add .rn, .rz, .rm or .rp", "integer-to-float conversion .%s to .%s needs a floating-point rounding modifier", a, d)
		}
	default:
		if rnd != "" {
			c.ruleErr(in, rpos, "", "integer-to-integer conversion takes no rounding modifier")
		}
	}
	if in.Has("ftz") && a != F32 && d != F32 {
		c.ruleErr(in, modPos(in, "ftz"), "", ".ftz applies only to .f32 sources or destinations")
	}
}

func isCvtScalar(t Type) bool {
	switch t {
	case U8, U16, U32, U64, S8, S16, S32, S64, BF16, F16, F32, F64:
		return true
	}
	return false
}

func ruleCall(c *checker, in *Instruction) {
	ops := in.Operands
	i := 0
	var rets, args *List
	if i < len(ops) {
		if l, ok := ops[i].(*List); ok {
			rets = l
			i++
		}
	}
	if i >= len(ops) {
		c.ruleErr(in, in.OpPos, "call [(ret),] func[, (args)][, proto]", "missing call target")
		return
	}
	target := ops[i]
	i++
	if i < len(ops) {
		if l, ok := ops[i].(*List); ok {
			args = l
			i++
		}
	}
	var proto Expr
	if i < len(ops) {
		proto = ops[i]
		i++
	}
	if i < len(ops) {
		c.ruleErr(in, ops[i].Position(), "", "unexpected operand after the call target list")
	}
	for _, l := range []*List{rets, args} {
		if l == nil {
			continue
		}
		for _, e := range l.Elems {
			switch e.(type) {
			case *Ident, *Reg, *Imm:
			default:
				c.ruleErr(in, e.Position(), "", "call arguments must be parameters, registers or immediates")
			}
		}
	}
	switch t := target.(type) {
	case *Ident:
		s := c.lookup(t.Name)
		if s == nil {
			return
		}
		if s.kind != symFunc {
			c.ruleErr(in, t.Pos, "", "%s is a %s, not a function", t.Name, symKindNames[s.kind])
			return
		}
		if s.fn == nil {
			return
		}
		if s.fn.Entry {
			c.ruleErr(in, t.Pos, "kernels are launched, not called", "cannot call .entry %s", t.Name)
			return
		}
		if proto != nil {
			c.ruleErr(in, proto.Position(), "", "a direct call takes no prototype")
		}
		nr, na := 0, 0
		if rets != nil {
			nr = len(rets.Elems)
		}
		if args != nil {
			na = len(args.Elems)
		}
		if nr != len(s.fn.Returns) {
			c.ruleErr(in, t.Pos, "", "%s returns %d values, the call takes %d", t.Name, len(s.fn.Returns), nr)
		}
		if na != len(s.fn.Params) {
			c.ruleErr(in, t.Pos, "", "%s has %d parameters, the call passes %d", t.Name, len(s.fn.Params), na)
		}
	case *Reg:
		if proto == nil {
			c.ruleErr(in, t.Pos, "name a .callprototype or .calltargets list", "an indirect call needs a prototype")
		} else if id, ok := proto.(*Ident); ok {
			if s := c.lookup(id.Name); s != nil && s.kind != symProto && s.kind != symTargets {
				c.ruleErr(in, id.Pos, "", "%s is not a .callprototype or .calltargets", id.Name)
			}
		}
	default:
		c.ruleErr(in, target.Position(), "", "call target must be a function name or a register")
	}
}

// ---- synchronisation ----

func ruleBar(c *checker, in *Instruction) {
	if v, ok := immValue(operand(in, barIndex(in))); ok && (v < 0 || v > 15) {
		c.ruleErr(in, opPos(in, barIndex(in)), "there are 16 named barriers, 0..15", "barrier %d is out of range", v)
	}
	if len(in.Operands) >= 2 {
		i := barIndex(in) + 1
		if in.Has("red") && len(in.Operands) == 3 {
			return
		}
		if v, ok := immValue(operand(in, i)); ok && (v <= 0 || v%32 != 0) {
			c.ruleErr(in, opPos(in, i), "", "thread count %d must be a positive multiple of 32", v)
		}
	}
}

func barIndex(in *Instruction) int {
	if in.Has("red") {
		return 1
	}
	return 0
}

func ruleSetmaxnreg(c *checker, in *Instruction) {
	if v, ok := immValue(operand(in, 0)); ok && (v < 24 || v > 256 || v%8 != 0) {
		c.ruleErr(in, opPos(in, 0), "use a multiple of 8 from 24 to 256", "register count %d is out of range", v)
	}
}

func ruleAtom(c *checker, in *Instruction) {
	t := in.Types[len(in.Types)-1]
	half := t == F16 || t == BF16 || t == F16x2 || t == BF16x2
	vec := in.Vec()
	if in.Has("noftz") && !half {
		c.ruleErr(in, modPos(in, "noftz"), "", ".noftz applies only to .f16 and .bf16 types")
	}
	if vec > 0 {
		if !in.Has("noftz") && half {
			c.ruleErr(in, in.OpPos, "", "vector .%s reductions need .noftz", t)
		}
		if t == F32 && (vec == 8 || !in.Has("add")) {
			c.ruleErr(in, modPos(in, "v"), "", "vector .f32 atomics are .add with .v2 or .v4")
		}
		if (t == F16x2 || t == BF16x2) && vec == 8 {
			c.ruleErr(in, modPos(in, "v8"), "", ".v8 is not allowed for packed .%s", t)
		}
		for _, e := range in.Operands {
			if v, ok := e.(*Vector); ok && len(v.Elems) != vec {
				c.ruleErr(in, v.Pos, "", "vector has %d elements; .v%d needs %d", len(v.Elems), vec, vec)
			}
		}
	}
	if in.Has("inc") || in.Has("dec") {
		if t != U32 {
			c.ruleErr(in, typePos(in, 0), "", ".inc and .dec need .u32, not .%s", t)
		}
	}
	if (in.Has("and") || in.Has("or") || in.Has("xor")) && t.Kind() != KindBit {
		c.ruleErr(in, typePos(in, 0), "", "bitwise atomics need a .b32 or .b64 type, not .%s", t)
	}
	if in.Has("add") && t.Kind() == KindBit {
		c.ruleErr(in, typePos(in, 0), "use .u32, .s32, .u64 or a float type", ".add does not take bit type .%s", t)
	}
}

// ruleMbarrier checks the mbarrier object operand and the state operand.
func ruleMbarrier(c *checker, in *Instruction) {
	ai := 0
	for i, e := range in.Operands {
		if _, ok := e.(*Address); ok {
			ai = i
			break
		}
	}
	a, _ := operand(in, ai).(*Address)
	cluster := in.Has("shared::cluster")
	if (in.Opcode == "mbarrier.arrive" || in.Opcode == "mbarrier.arrive_drop") && cluster {
		if _, sink := operand(in, 0).(*Sink); !sink {
			c.ruleErr(in, opPos(in, 0), "write _ as the state operand", "a remote (.shared::cluster) arrive returns no state")
		}
	}
	if a == nil {
		return
	}
	if id, ok := a.Base.(*Ident); ok {
		if s := c.lookup(id.Name); s != nil && s.kind == symVar {
			if s.space != SpaceShared {
				c.ruleErr(in, id.Pos, "declare it .shared", "mbarrier object %s is in .%s; mbarriers live in shared memory", id.Name, s.space)
			}
			align := 0
			if s.decl != nil {
				align = s.decl.Align
			}
			if align == 0 {
				align = max(s.typ.Bits()/8, 1)
			}
			if align < 8 || a.Offset%8 != 0 {
				c.ruleWarn(in, a.Pos, "an mbarrier is a 64-bit object: use .align 8 and a multiple-of-8 offset", "mbarrier object [%s%+d] is not 8-byte aligned", id.Name, a.Offset)
			}
		}
	} else if a.Offset%8 != 0 {
		c.ruleWarn(in, a.Pos, "an mbarrier is a 64-bit object", "mbarrier object offset %+d is not a multiple of 8", a.Offset)
	}
	if in.Opcode == "mbarrier.init" {
		if v, ok := immValue(operand(in, 1)); ok && (v < 1 || v >= 1<<20) {
			c.ruleWarn(in, opPos(in, 1), "the PTX ISA allows 1 to 2^20-1 arrivals", "arrival count %d is out of range", v)
		}
	}
	if strings.HasSuffix(in.Opcode, "wait") && in.Has("parity") {
		if v, ok := immValue(operand(in, 2)); ok && v != 0 && v != 1 {
			c.ruleErr(in, opPos(in, 2), "", "phase parity must be 0 or 1, found %d", v)
		}
	}
}

// ---- async copies ----

func ruleCpAsync(c *checker, in *Instruction) {
	size, ok := immValue(operand(in, 2))
	if !ok {
		return
	}
	if size != 4 && size != 8 && size != 16 {
		c.ruleErr(in, opPos(in, 2), "", "cp-size must be 4, 8 or 16, found %d", size)
	}
	if in.Has("cg") && size != 16 {
		c.ruleErr(in, opPos(in, 2), "use .ca for 4- and 8-byte copies", ".cg copies 16 bytes, found %d", size)
	}
	if v, ok := immValue(operand(in, 3)); ok && (v < 0 || v > size) {
		c.ruleErr(in, opPos(in, 3), "", "src-size %d exceeds cp-size %d", v, size)
	}
}

func ruleBulkTensor(c *checker, in *Instruction) {
	dim := 0
	for _, m := range in.Mods {
		if len(m.Name) == 2 && m.Name[1] == 'd' && m.Name[0] >= '1' && m.Name[0] <= '5' {
			dim = int(m.Name[0] - '0')
		}
	}
	var tensor *Address
	for _, e := range in.Operands {
		if a, ok := e.(*Address); ok && a.Coords != nil {
			tensor = a
		}
	}
	if tensor == nil {
		return
	}
	n := len(tensor.Coords.Elems)
	mode := in.ModPrefix("tile")
	if mode == "" {
		mode = in.ModPrefix("im2col")
	}
	switch {
	case mode == "tile::gather4" || mode == "tile::scatter4":
		if dim != 2 {
			c.ruleErr(in, modPos(in, mode), "", ".%s needs .2d", mode)
		}
		if n != 5 {
			c.ruleErr(in, tensor.Coords.Pos, "one column and four rows", ".%s takes 5 coordinates, found %d", mode, n)
		}
	case n != dim:
		c.ruleErr(in, tensor.Coords.Pos, fmt.Sprintf("a .%dd copy takes %d", dim, dim), "%d tensor coordinates for a .%dd copy", n, dim)
	}
	if strings.HasPrefix(mode, "im2col") {
		if dim < 3 {
			c.ruleErr(in, modPos(in, "im2col"), "", "im2col needs at least .3d, found .%dd", dim)
		}
		for _, e := range in.Operands {
			if v, ok := e.(*Vector); ok && mode == "im2col" && len(v.Elems) != dim-2 {
				c.ruleErr(in, v.Pos, "", "im2col takes %d offsets for .%dd, found %d", dim-2, dim, len(v.Elems))
			}
		}
	}
}

// ---- matrix moves ----

func ruleLdmatrix(c *checker, in *Instruction) {
	num := 0
	switch {
	case in.Has("x1"):
		num = 1
	case in.Has("x2"):
		num = 2
	case in.Has("x4"):
		num = 4
	}
	regs := num
	shape := in.Shape
	b8 := in.Has("b8") || in.Has("b8x16")
	switch {
	case shape == Shape{M: 8, N: 8}:
		if b8 {
			c.ruleErr(in, typePos(in, 0), "use .b16", ".m8n8 moves .b16 elements")
		}
	case shape == Shape{M: 16, N: 16}:
		if !b8 {
			c.ruleErr(in, modPos(in, "m16n16"), "", ".m16n16 moves .b8 elements")
		}
		if !in.Has("trans") {
			c.ruleErr(in, modPos(in, "m16n16"), "add .trans", ".m16n16 requires .trans")
		}
		if num == 4 {
			c.ruleErr(in, modPos(in, "x4"), "", ".m16n16 allows .x1 and .x2")
		}
		regs = 2 * num
	case shape == Shape{M: 16, N: 8}:
		if !in.Has("b8") || !in.Has("trans") {
			c.ruleErr(in, modPos(in, "m16n8"), "", ".m16n8 needs .trans and .b8")
		}
	case shape == Shape{M: 8, N: 16}:
		if in.Has("trans") {
			c.ruleErr(in, modPos(in, "trans"), "", ".m8n16 does not allow .trans")
		}
		if !in.Has("b8x16") {
			c.ruleErr(in, modPos(in, "m8n16"), "", ".m8n16 needs .b8x16 and a source format")
		}
	}
	if in.Has("b8x16") != (in.Has("b6x16_p32") || in.Has("b4x16_p64")) {
		c.ruleErr(in, in.OpPos, "", ".b8x16 goes with a source format .b6x16_p32 or .b4x16_p64")
	}
	ri := 0
	if in.Opcode == "stmatrix" {
		ri = 1
	}
	if got := regCount(operand(in, ri)); got != regs {
		c.ruleErr(in, opPos(in, ri), "", ".%s with .x%d takes %d registers, found %d", shape, num, regs, got)
	}
}

// ---- wgmma ----

func ruleWaitGroup(c *checker, in *Instruction) {
	if v, ok := immValue(operand(in, 0)); ok && v < 0 {
		c.ruleErr(in, opPos(in, 0), "", "wait_group N must not be negative, found %d", v)
	}
}

// wgmmaClass groups wgmma input types.
func wgmmaClass(t Type) string {
	switch t {
	case F16, BF16:
		return "16"
	case TF32:
		return "tf32"
	case E4M3, E5M2:
		return "fp8"
	case S8, U8:
		return "int8"
	case B1:
		return "b1"
	}
	return ""
}

func ruleWgmma(c *checker, in *Instruction) {
	sparse := strings.HasSuffix(in.Opcode, ".sp")
	if len(in.Types) != 3 {
		return
	}
	dt, at, bt := in.Types[0], in.Types[1], in.Types[2]
	sh := in.Shape
	shPos := modPos(in, "m")
	id := "wgmma " + sh.String()
	class := wgmmaClass(at)
	// Type combinations.
	switch {
	case class == "16" && bt != at:
		c.ruleErr(in, typePos(in, 2), "", ".atype and .btype must match for 16-bit inputs: .%s vs .%s", at, bt)
	case class == "tf32" && bt != TF32:
		c.ruleErr(in, typePos(in, 2), "", ".tf32 needs .tf32 B, not .%s", bt)
	case class == "fp8" && wgmmaClass(bt) != "fp8":
		c.ruleErr(in, typePos(in, 2), "", "an FP8 A (.%s) needs an FP8 B (.e4m3 or .e5m2), not .%s", at, bt)
	case class == "int8" && wgmmaClass(bt) != "int8":
		c.ruleErr(in, typePos(in, 2), "", "an 8-bit integer A needs .s8 or .u8 B, not .%s", bt)
	case class == "b1" && bt != B1:
		c.ruleErr(in, typePos(in, 2), "", ".b1 A needs .b1 B, not .%s", bt)
	}
	switch {
	case class == "16" && at == F16 && dt != F16 && dt != F32,
		class == "fp8" && dt != F16 && dt != F32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator .%s is not allowed with .%s inputs (use .f16 or .f32)", dt, at)
	case (at == BF16 || class == "tf32") && dt != F32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator must be .f32 with .%s inputs, not .%s", at, dt)
	case (class == "int8" || class == "b1") && dt != S32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator must be .s32 with .%s inputs, not .%s", at, dt)
	}
	if in.Has("satfinite") && class != "int8" {
		c.ruleErr(in, modPos(in, "satfinite"), "", ".satfinite applies only to integer wgmma")
	}
	if class == "b1" {
		if sparse {
			c.ruleErr(in, typePos(in, 1), "", "sparse wgmma does not support .b1")
		}
		if !in.Has("and") || !in.Has("popc") {
			c.ruleErr(in, in.OpPos, "write ...s32.b1.b1.and.popc", "single-bit wgmma needs .and.popc")
		}
	} else if in.Has("and") || in.Has("popc") {
		c.ruleErr(in, modPos(in, "and"), "", ".and.popc applies only to .b1 wgmma")
	}
	// Shape.
	if sh.M != 64 {
		c.ruleErr(in, shPos, "wgmma shapes are m64nNkK", "%s: M must be 64, found %d", id, sh.M)
	}
	switch class {
	case "16", "tf32", "fp8":
		if sh.N < 8 || sh.N > 256 || sh.N%8 != 0 {
			c.ruleErr(in, shPos, "N = 8, 16, 24, ..., 256", "%s: N must be a multiple of 8 from 8 to 256 for .%s", id, at)
		}
	case "int8", "b1":
		if !(sh.N == 8 || sh.N == 16 || sh.N == 24 || sh.N%16 == 0 && sh.N >= 32 && sh.N <= 256) {
			c.ruleErr(in, shPos, "N = 8, 16, 24, 32, 48, 64, ..., 256", "%s: N must be 8, 16, 24 or a multiple of 16 up to 256 for .%s", id, at)
		}
	}
	wantK := map[string]int{"16": 16, "tf32": 8, "fp8": 32, "int8": 32, "b1": 256}[class]
	if sparse {
		wantK *= 2
	}
	if wantK != 0 && sh.K != wantK {
		kind := "dense"
		if sparse {
			kind = "sparse"
		}
		c.ruleErr(in, shPos, fmt.Sprintf("use m64n%dk%d", sh.N, wantK), "%s: K must be %d for %s .%s", id, wantK, kind, at)
	}
	// Accumulator registers.
	dRegs := sh.N / 2
	elem := F32
	switch dt {
	case F16:
		dRegs, elem = sh.N/4, B32
	case S32:
		elem = S32
	}
	if d, ok := operand(in, 0).(*Vector); ok {
		if len(d.Elems) != dRegs && sh.N%8 == 0 {
			c.ruleErr(in, d.Pos, fmt.Sprintf("m64n%d with .%s accumulates in %d registers per thread", sh.N, dt, dRegs), "accumulator has %d registers, want %d", len(d.Elems), dRegs)
		}
		c.checkVecElems(in, d, elem, "accumulator")
	}
	// A operand: descriptor or registers.
	rs := false
	switch a := operand(in, 1).(type) {
	case *Vector:
		rs = true
		if class == "b1" {
			c.ruleErr(in, a.Pos, "", "single-bit wgmma takes A from shared memory (a descriptor)")
		}
		if len(a.Elems) != 4 {
			c.ruleErr(in, a.Pos, "A in registers is four .b32 registers per thread", "A fragment has %d registers, want 4", len(a.Elems))
		}
		c.checkVecElems(in, a, B32, "A fragment")
	case *Reg:
		if t, ok := c.regType(a); ok && t.Bits() != 64 {
			c.ruleErr(in, a.Pos, "a matrix descriptor is 64 bits", "a-desc %s is .%s, want a 64-bit register (or a {4 x .b32} A fragment)", a.Name, t)
		}
	}
	// Immediate operands.
	base := 4
	if sparse {
		base = 6
		if v, ok := immValue(operand(in, 4)); ok && (v < 0 || v > 3) {
			c.ruleErr(in, opPos(in, 4), "", "sparsity selector must be 0..3, found %d", v)
		}
	}
	var names []string
	switch class {
	case "16":
		names = []string{"imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"}
		if rs {
			names = []string{"imm-scale-a", "imm-scale-b", "imm-trans-b"}
		}
	case "tf32", "fp8":
		names = []string{"imm-scale-a", "imm-scale-b"}
	}
	got := len(in.Operands) - base
	if got != len(names) {
		hint := "operands after scale-d: " + strings.Join(names, ", ")
		if len(names) == 0 {
			hint = "integer and single-bit wgmma end at scale-d"
		}
		switch {
		case got > len(names) && (class == "tf32" || class == "fp8"):
			c.ruleErr(in, opPos(in, base+len(names)), hint, "imm-trans-a/imm-trans-b are only allowed for .f16/.bf16: transpose is only supported for 16-bit types, not .%s", at)
		case got > len(names) && class == "16" && rs:
			c.ruleErr(in, opPos(in, base+len(names)), hint, "with A in registers there is no imm-trans-a: A is not transposed")
		case got > len(names) && len(names) == 0:
			c.ruleErr(in, opPos(in, base), hint, "integer and single-bit wgmma take no imm-scale or imm-trans operands")
		default:
			c.ruleErr(in, in.OpPos, hint, "expects %d immediates after scale-d, found %d", len(names), got)
		}
	}
	for i := 0; i < len(names) && base+i < len(in.Operands); i++ {
		v, ok := immValue(in.Operands[base+i])
		if !ok {
			continue
		}
		if strings.Contains(names[i], "scale") && v != 1 && v != -1 {
			c.ruleErr(in, opPos(in, base+i), "1 keeps the sign, -1 negates", "%s must be 1 or -1, found %d", names[i], v)
		}
		if strings.Contains(names[i], "trans") && v != 0 && v != 1 {
			c.ruleErr(in, opPos(in, base+i), "0 or 1", "%s must be 0 or 1, found %d", names[i], v)
		}
	}
}

// checkVecElems checks that every register in a fragment vector has a
// type compatible with want.
func (c *checker) checkVecElems(in *Instruction, v *Vector, want Type, what string) {
	for _, e := range v.Elems {
		r, ok := e.(*Reg)
		if !ok {
			c.ruleErr(in, e.Position(), "", "%s elements must be registers, found %s", what, describeExpr(e))
			continue
		}
		if t, ok := c.regType(r); ok && !compatible(want, t, false) {
			c.ruleErr(in, r.Pos, compatHint(want, false), "%s register %s is .%s, want .%s", what, r.Name, t, want)
		}
	}
}

// ---- mma.sync ----

func sh3(m, n, k int) Shape { return Shape{m, n, k} }

var mmaDense = map[string][]Shape{
	"f16":      {sh3(8, 8, 4), sh3(16, 8, 8), sh3(16, 8, 16)},
	"bf16":     {sh3(16, 8, 8), sh3(16, 8, 16)},
	"tf32":     {sh3(16, 8, 4), sh3(16, 8, 8)},
	"f64":      {sh3(8, 8, 4), sh3(16, 8, 4), sh3(16, 8, 8), sh3(16, 8, 16)},
	"fp8":      {sh3(16, 8, 16), sh3(16, 8, 32)},
	"f8f6f4":   {sh3(16, 8, 32)},
	"int8":     {sh3(8, 8, 16), sh3(16, 8, 16), sh3(16, 8, 32)},
	"int4":     {sh3(8, 8, 32), sh3(16, 8, 32), sh3(16, 8, 64)},
	"b1":       {sh3(8, 8, 128), sh3(16, 8, 128), sh3(16, 8, 256)},
	"mxf8f6f4": {sh3(16, 8, 32)},
	"mxf4":     {sh3(16, 8, 64)},
	"mxf4nvf4": {sh3(16, 8, 64)},
}

var mmaSparse = map[string][]Shape{
	"f16":      {sh3(16, 8, 16), sh3(16, 8, 32)},
	"bf16":     {sh3(16, 8, 16), sh3(16, 8, 32)},
	"tf32":     {sh3(16, 8, 8), sh3(16, 8, 16)},
	"fp8":      {sh3(16, 8, 64)},
	"f8f6f4":   {sh3(16, 8, 64)},
	"int8":     {sh3(16, 8, 32), sh3(16, 8, 64)},
	"int4":     {sh3(16, 8, 64), sh3(16, 8, 128)},
	"mxf8f6f4": {sh3(16, 8, 64)},
	"mxf4":     {sh3(16, 8, 128)},
	"mxf4nvf4": {sh3(16, 8, 128)},
}

func mmaClass(in *Instruction, at Type) string {
	if k := in.ModPrefix("kind::"); k != "" {
		return strings.TrimPrefix(k, "kind::")
	}
	switch at {
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	case TF32:
		return "tf32"
	case F64:
		return "f64"
	case E4M3, E5M2:
		return "fp8"
	case S8, U8:
		return "int8"
	case S4, U4:
		return "int4"
	case B1:
		return "b1"
	}
	return "?"
}

func ruleMma(c *checker, in *Instruction) {
	sparse := in.Opcode != "mma"
	if len(in.Types) < 4 {
		return
	}
	dt, at, bt, ct := in.Types[0], in.Types[1], in.Types[2], in.Types[3]
	class := mmaClass(in, at)
	sh := in.Shape
	shPos := modPos(in, "m")
	table := mmaDense
	if sparse {
		table = mmaSparse
	}
	shapes, ok := table[class]
	if !ok {
		c.ruleErr(in, typePos(in, 1), "", "no %smma for .%s inputs", map[bool]string{true: "sparse ", false: ""}[sparse], at)
		return
	}
	found := false
	for _, s := range shapes {
		if s == sh {
			found = true
		}
	}
	if !found {
		var names []string
		for _, s := range shapes {
			names = append(names, "."+s.String())
		}
		c.ruleErr(in, shPos, "valid: "+strings.Join(names, ", "), "shape .%s is not available for %s", sh, class)
	}
	// Input type pairs.
	switch class {
	case "f16", "bf16", "tf32", "f64", "b1":
		if bt != at {
			c.ruleErr(in, typePos(in, 2), "", ".atype and .btype must match: .%s vs .%s", at, bt)
		}
	case "fp8":
		if wgmmaClass(bt) != "fp8" {
			c.ruleErr(in, typePos(in, 2), "", "FP8 A needs an FP8 B, not .%s", bt)
		}
	case "int8", "int4":
		if mmaClass(in, bt) != class {
			c.ruleErr(in, typePos(in, 2), "", "integer A .%s needs a B of the same width, not .%s", at, bt)
		}
	}
	// Accumulator types.
	okD := func(ts ...Type) bool {
		for _, t := range ts {
			if dt == t {
				for _, u := range ts {
					if ct == u {
						return true
					}
				}
			}
		}
		return false
	}
	switch class {
	case "f16", "fp8", "f8f6f4":
		if !okD(F16, F32) {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f16 or .f32, found .%s and .%s", dt, ct)
		}
	case "bf16", "tf32", "mxf8f6f4", "mxf4", "mxf4nvf4":
		if dt != F32 || ct != F32 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f32 for %s, found .%s and .%s", class, dt, ct)
		}
	case "f64":
		if dt != F64 || ct != F64 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f64")
		}
	case "int8", "int4", "b1":
		if dt != S32 || ct != S32 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .s32 for integer mma")
		}
	}
	if class == "b1" && (!in.Has("popc") || !(in.Has("xor") || in.Has("and"))) {
		c.ruleErr(in, in.OpPos, "", "single-bit mma needs .xor.popc or .and.popc")
	}
	if in.Has("satfinite") && class != "int8" && class != "int4" {
		c.ruleErr(in, modPos(in, "satfinite"), "", ".satfinite applies only to integer mma")
	}
	mx := strings.HasPrefix(class, "mx")
	if mx != in.Has("block_scale") {
		c.ruleErr(in, modPos(in, "kind"), "", ".block_scale goes with .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4")
	}
	// Layouts.
	var layouts []string
	for _, m := range in.Mods {
		if m.Name == "row" || m.Name == "col" {
			layouts = append(layouts, m.Name)
		}
	}
	if len(layouts) != 2 {
		c.ruleErr(in, in.OpPos, "write .row.col (or .alayout.blayout for .m8n8k4)", "mma needs two layouts, found %d", len(layouts))
	} else if !(class == "f16" && sh == sh3(8, 8, 4)) && (layouts[0] != "row" || layouts[1] != "col") {
		c.ruleErr(in, modPos(in, "row"), "write .row.col", "shape .%s needs .row.col layouts", sh)
	}
	// Register counts.
	regBits := 32
	if class == "f64" {
		regBits = 64
	}
	abits := func(t Type) int {
		if class == "f8f6f4" || class == "mxf8f6f4" {
			return 8 // narrow types sit in 8-bit containers
		}
		return t.Bits()
	}
	k := sh.K
	if sparse {
		k /= 2
	}
	wantA := sh.M * k * abits(at) / (32 * regBits)
	wantB := sh.K * sh.N * abits(bt) / (32 * regBits)
	wantC := sh.M * sh.N * ct.Bits() / (32 * regBits)
	wantD := sh.M * sh.N * dt.Bits() / (32 * regBits)
	if class == "f16" && sh == sh3(8, 8, 4) {
		wantA, wantB, wantC, wantD = 2, 2, 8*ct.Bits()/32, 8*dt.Bits()/32
	}
	if found {
		for i, w := range []int{wantD, wantA, wantB, wantC} {
			if got := regCount(operand(in, i)); got != w {
				c.ruleErr(in, opPos(in, i), "", "%s fragment has %d registers, want %d", "dabc"[i:i+1], got, w)
			}
		}
	}
	// Block-scale operands.
	extra := len(in.Operands) - 4
	if sparse {
		extra -= 2
	}
	if mx && extra != 4 {
		c.ruleErr(in, in.OpPos, "scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}", "block-scaled mma takes 4 scale operands, found %d", extra)
	}
	if !mx && extra != 0 {
		c.ruleErr(in, opPos(in, len(in.Operands)-extra), "", "unexpected operands after c")
	}
	if sparse {
		if v, ok := immValue(operand(in, 5)); ok && (v < 0 || v > 3) {
			c.ruleErr(in, opPos(in, 5), "", "sparsity selector must be 0..3, found %d", v)
		}
	}
}

// ---- tcgen05 ----

func ruleTcgen05Alloc(c *checker, in *Instruction) {
	v, ok := immValue(operand(in, 1))
	if !ok {
		return
	}
	if v < 32 || v > 512 || v&(v-1) != 0 {
		c.ruleErr(in, opPos(in, 1), "nCols is a power of two from 32 to 512", "nCols %d is not a valid Tensor Memory allocation", v)
	}
}

var tmemShapes = map[string]struct{ regs, maxNum int }{
	"32x32b": {1, 128}, "16x64b": {1, 128}, "16x128b": {2, 64}, "16x256b": {4, 32}, "16x32bx2": {1, 128},
}

func ruleTcgen05LdSt(c *checker, in *Instruction) {
	shape := ""
	var spos Pos
	num := 0
	for _, m := range in.Mods {
		if _, ok := tmemShapes[m.Name]; ok {
			shape, spos = m.Name, m.Pos
		}
		if len(m.Name) > 1 && m.Name[0] == 'x' && isDigit(m.Name[1]) {
			fmt.Sscanf(m.Name[1:], "%d", &num)
		}
	}
	info := tmemShapes[shape]
	if num > info.maxNum {
		c.ruleErr(in, modPos(in, "x"), fmt.Sprintf(".%s allows .x1 to .x%d", shape, info.maxNum), ".%s.x%d is not a valid shape and count pair", shape, num)
		return
	}
	ri := 0
	if in.Opcode == "tcgen05.st" {
		ri = len(in.Operands) - 1
	}
	want := info.regs * num
	if got := regCount(operand(in, ri)); got != want {
		c.ruleErr(in, opPos(in, ri), fmt.Sprintf(".%s.x%d moves %d registers per thread", shape, num, want), "register vector has %d registers, want %d", got, want)
	}
	if v, ok := operand(in, ri).(*Vector); ok {
		for _, e := range v.Elems {
			if _, ok := e.(*Reg); !ok {
				c.ruleErr(in, e.Position(), "", "register vector elements must be registers")
			}
		}
	}
	_ = spos
}

func ruleTcgen05Cp(c *checker, in *Instruction) {
	shape := ""
	var spos Pos
	for _, m := range in.Mods {
		switch m.Name {
		case "128x256b", "4x256b", "128x128b", "64x128b", "32x128b":
			shape, spos = m.Name, m.Pos
		}
	}
	mc := in.ModPrefix("warpx")
	switch shape {
	case "64x128b":
		if mc != "warpx2::02_13" && mc != "warpx2::01_23" {
			c.ruleErr(in, spos, "", ".64x128b needs .warpx2::02_13 or .warpx2::01_23")
		}
	case "32x128b":
		if mc != "warpx4" {
			c.ruleErr(in, spos, "", ".32x128b needs .warpx4")
		}
	default:
		if mc != "" {
			c.ruleErr(in, modPos(in, "warpx"), "", ".%s does not multicast (.%s)", shape, mc)
		}
	}
	if in.Has("b8x16") != (in.Has("b6x16_p32") || in.Has("b4x16_p64")) {
		c.ruleErr(in, in.OpPos, "", "decompression needs both .b8x16 and a source format (.b6x16_p32 or .b4x16_p64)")
	}
}

func ruleTcgen05Mma(c *checker, in *Instruction) {
	ws := strings.Contains(in.Opcode, ".ws")
	sparse := strings.HasSuffix(in.Opcode, ".sp")
	kind := strings.TrimPrefix(in.ModPrefix("kind::"), "kind::")
	kpos := modPos(in, "kind::")
	mx := strings.HasPrefix(kind, "mx")
	bs := in.Has("block_scale")
	two := in.Has("cta_group::2")
	if mx != bs {
		if mx {
			c.ruleErr(in, kpos, "add .block_scale", ".kind::%s needs .block_scale", kind)
		} else {
			c.ruleErr(in, modPos(in, "block_scale"), "", ".block_scale needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4")
		}
		return
	}
	if in.Has("block16") || in.Has("block32") {
		c.needVersion(in, modPos(in, "block"), 88, ".block16 and .block32")
	}
	if sv := in.ModPrefix("scale_vec::"); sv != "" || in.Has("block16") || in.Has("block32") {
		v := sv
		if v == "" {
			v = "block16"
			if in.Has("block32") {
				v = "block32"
			}
		}
		okv := map[string][]string{
			"mxf8f6f4": {"scale_vec::1X", "block32"},
			"mxf4":     {"scale_vec::2X", "block32"},
			"mxf4nvf4": {"scale_vec::2X", "scale_vec::4X", "block16", "block32"},
		}[kind]
		good := false
		for _, x := range okv {
			if x == v {
				good = true
			}
		}
		if !good {
			c.ruleErr(in, modPos(in, strings.Split(v, "::")[0]), "", ".%s is not valid for .kind::%s", v, kind)
		}
	} else if kind == "mxf4nvf4" {
		c.ruleErr(in, kpos, "add .scale_vec::2X or .scale_vec::4X", ".kind::mxf4nvf4 needs an explicit scale vector size")
	}
	aTmem := false
	if _, ok := operand(in, 1).(*Address); ok {
		aTmem = true
	}
	if in.Has("ashift") && !aTmem {
		c.ruleErr(in, modPos(in, "ashift"), "", ".ashift needs A in Tensor Memory ([a-tmem])")
	}
	if in.Has("ashift") && two {
		// allowed; the shift happens in both CTAs
	}
	base := 4
	if sparse {
		base = 5
	}
	tail := in.Operands[min(base, len(in.Operands)):]
	switch {
	case ws:
		// enable-input-d {, zero-column-mask-desc}
		if len(tail) < 1 || len(tail) > 2 {
			c.ruleErr(in, in.OpPos, "enable-input-d{, zero-column-mask-desc}", "expects 1 or 2 operands after idesc, found %d", len(tail))
			return
		}
		c.checkPredOrImm(in, tail[0], "enable-input-d")
		if len(tail) == 2 {
			c.checkReg64(in, tail[1], "zero-column-mask-desc")
		}
	case bs:
		if len(tail) != 3 {
			c.ruleErr(in, in.OpPos, "[scale-A-tmem], [scale-B-tmem], enable-input-d", "block-scaled tcgen05.mma expects 3 operands after idesc, found %d", len(tail))
			return
		}
		for i, name := range []string{"scale-A-tmem", "scale-B-tmem"} {
			if a, ok := tail[i].(*Address); ok {
				c.checkTmemAddr(in, a, name)
			} else {
				c.ruleErr(in, tail[i].Position(), "", "%s must be a Tensor Memory address [taddr]", name)
			}
		}
		c.checkPredOrImm(in, tail[2], "enable-input-d")
	default:
		// {disable-output-lane,} enable-input-d {, scale-input-d}
		i := 0
		if len(tail) > 0 {
			if v, ok := tail[0].(*Vector); ok {
				want := 4
				if two {
					want = 8
				}
				if len(v.Elems) != want {
					c.ruleErr(in, v.Pos, "one 32-bit mask per output lane group", "disable-output-lane has %d registers, want %d for .cta_group::%d", len(v.Elems), want, map[bool]int{false: 1, true: 2}[two])
				}
				c.checkVecElems(in, v, B32, "disable-output-lane")
				i = 1
			}
		}
		if i >= len(tail) {
			c.ruleErr(in, in.OpPos, "", "missing enable-input-d")
			return
		}
		c.checkPredOrImm(in, tail[i], "enable-input-d")
		i++
		if i < len(tail) {
			if kind != "f16" && kind != "tf32" {
				c.ruleWarn(in, tail[i].Position(), "ptxas 13.0 accepts it, but the ISA defines it only for .kind::f16 and .kind::tf32", "scale-input-d is only allowed with .kind::f16 and .kind::tf32")
			} else if v, ok := immValue(tail[i]); !ok {
				c.ruleErr(in, tail[i].Position(), "", "scale-input-d must be an immediate")
			} else if v < 0 || v > 15 {
				c.ruleErr(in, tail[i].Position(), "D is scaled by 2^-scale-input-d", "scale-input-d must be 0..15, found %d", v)
			}
			i++
		}
		if i < len(tail) {
			c.ruleErr(in, tail[i].Position(), "", "unexpected operand")
		}
	}
}

func (c *checker) checkPredOrImm(in *Instruction, e Expr, name string) {
	switch x := e.(type) {
	case *Reg:
		if t, ok := c.regType(x); ok && t != Pred {
			c.ruleErr(in, x.Pos, "", "%s must be a predicate, %s is .%s", name, x.Name, t)
		}
	case *Imm:
		if x.Kind != ImmInt {
			c.ruleErr(in, x.Pos, "", "%s must be a predicate or an integer", name)
		}
	default:
		c.ruleErr(in, e.Position(), "", "%s must be a predicate, found %s", name, describeExpr(e))
	}
}

func (c *checker) checkReg64(in *Instruction, e Expr, name string) {
	r, ok := e.(*Reg)
	if !ok {
		c.ruleErr(in, e.Position(), "", "%s must be a 64-bit register", name)
		return
	}
	if t, ok := c.regType(r); ok && t.Bits() != 64 {
		c.ruleErr(in, r.Pos, "", "%s %s is .%s, want 64 bits", name, r.Name, t)
	}
}

func (c *checker) checkTmemAddr(in *Instruction, a *Address, name string) {
	var probs []problem
	sp := &opSpec{name: name, kind: opAddr, typ: typeRef{index: -1, space: "tmem"}}
	c.checkAddress(in, sp, a, &probs)
	for _, p := range probs {
		c.ruleErr(in, p.pos, p.hint, "%s", p.msg)
	}
}
