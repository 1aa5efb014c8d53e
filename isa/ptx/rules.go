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
