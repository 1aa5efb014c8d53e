package ptx

import "fmt"

// checkOperands checks the operands against a form whose modifiers match
// and returns the problems.
func (c *checker) checkOperands(in *Instruction, f *Form) []problem {
	specs := f.activeOps(in)
	var buf [16]*opSpec
	bound, p := bindOps(in, specs, buf[:0])
	if p != nil {
		return []problem{*p}
	}
	var probs []problem
	for i, e := range in.Operands {
		c.checkOperand(in, bound[i], e, &probs)
	}
	return probs
}

func addProb(probs *[]problem, pos Pos, hint, format string, args ...any) {
	*probs = append(*probs, problem{pos, fmt.Sprintf(format, args...), hint, false})
}

// describeExpr names an operand's kind for messages.
func describeExpr(e Expr) string {
	switch e := e.(type) {
	case *Reg:
		if e.Not {
			return "!" + e.Name
		}
		return "register " + e.Name
	case *Imm:
		return "immediate " + formatImm(e)
	case *Ident:
		return "symbol " + e.Name
	case *Address:
		return "address"
	case *Vector:
		return fmt.Sprintf("vector of %d", len(e.Elems))
	case *Sink:
		return "'_'"
	case *Pair:
		return "pair"
	case *List:
		return "list"
	}
	return "expression"
}

func (c *checker) checkOperand(in *Instruction, sp *opSpec, e Expr, probs *[]problem) {
	if sp.kind == opRest {
		return
	}
	if pr, ok := e.(*Pair); ok {
		if sp.second == nil {
			addProb(probs, pr.Pos, "", "%s cannot be a pair a|b", sp.name)
			return
		}
		first := *sp
		first.second = nil
		c.checkOperand(in, &first, pr.X, probs)
		c.checkOperand(in, sp.second, pr.Y, probs)
		return
	}
	if sp.second != nil && !sp.secondOK {
		addProb(probs, e.Position(), "", "%s needs two destinations %s|%s", sp.name, sp.name, sp.second.name)
		return
	}
	if _, ok := e.(*Sink); ok {
		if !sp.sink {
			addProb(probs, e.Position(), "", "'_' is not allowed as %s", sp.name)
		}
		return
	}
	oc := &operandCheck{c: c, in: in, sp: sp, e: e, want: c.specType(in, sp), probs: probs}
	oc.check()
}

// operandCheck checks one operand against its spec, by operand kind.
type operandCheck struct {
	c     *checker
	in    *Instruction
	sp    *opSpec
	e     Expr
	want  Type
	probs *[]problem
}

// bad reports an operand of the wrong kind.
func (o *operandCheck) bad() {
	addProb(o.probs, o.e.Position(), "", "%s must be %s, found %s", o.sp.name, opKindDesc[o.sp.kind], describeExpr(o.e))
}

// reg checks a register operand that cannot be negated.
func (o *operandCheck) reg(x *Reg) {
	if x.Not {
		o.bad()
		return
	}
	o.c.checkRegOperand(o.sp, x, o.want, o.probs)
}

func (o *operandCheck) check() {
	c, in, sp, e, want, probs := o.c, o.in, o.sp, o.e, o.want, o.probs
	switch sp.kind {
	case opReg:
		if r, ok := e.(*Reg); ok {
			o.reg(r)
		} else {
			o.bad()
		}
	case opRegImm, opAny:
		switch x := e.(type) {
		case *Reg:
			if x.Not && sp.kind != opAny {
				o.bad()
				return
			}
			if sp.kind == opRegImm {
				c.checkRegOperand(sp, x, want, probs)
			} else {
				c.regType(x)
			}
		case *Imm:
			c.checkImm(sp, x, want, probs)
		default:
			o.bad()
		}
	case opImm:
		if _, ok := e.(*Imm); !ok {
			o.bad()
		}
	case opPred, opNotPred, opPredImm:
		o.pred()
	case opAddr:
		a, ok := e.(*Address)
		if !ok {
			o.bad()
			return
		}
		c.checkAddress(in, sp, a, probs)
	case opValue:
		o.value()
	case opVector:
		v, ok := e.(*Vector)
		if !ok {
			o.bad()
			return
		}
		c.checkElems(sp, v, want, true, probs)
	case opRegVec:
		switch x := e.(type) {
		case *Reg:
			o.reg(x)
		case *Vector:
			c.checkElems(sp, x, want, true, probs)
		default:
			o.bad()
		}
	case opSym:
		o.sym()
	case opRegImmSym:
		switch x := e.(type) {
		case *Reg:
			o.reg(x)
		case *Imm:
			c.checkImm(sp, x, want, probs)
		case *Ident:
			if s := c.lookup(x.Name); s != nil && s.kind == symLabel {
				addProb(probs, x.Pos, "", "%s is a label, not a variable", x.Name)
			}
		default:
			o.bad()
		}
	case opRegAddr:
		switch x := e.(type) {
		case *Reg:
			c.checkRegOperand(sp, x, want, probs)
		case *Address:
			tmem := *sp
			tmem.typ.space = "tmem"
			c.checkAddress(in, &tmem, x, probs)
		default:
			o.bad()
		}
	case opList:
		if _, ok := e.(*List); !ok {
			o.bad()
		}
	}
}

// pred checks a predicate operand (or a predicate-or-integer one).
func (o *operandCheck) pred() {
	sp, probs := o.sp, o.probs
	switch x := o.e.(type) {
	case *Reg:
		if x.Not && sp.kind == opPred {
			addProb(probs, x.Pos, "", "%s cannot be negated", sp.name)
			return
		}
		if t, ok := o.c.regType(x); ok && t != Pred {
			addProb(probs, x.Pos, "", "%s must be a .pred register, %s is .%s", sp.name, x.Name, t)
		}
	case *Imm:
		if sp.kind != opPredImm {
			o.bad()
		} else if x.Kind != ImmInt {
			addProb(probs, x.Pos, "", "%s must be a predicate or an integer, found %s", sp.name, formatImm(x))
		}
	default:
		o.bad()
	}
}

// value checks the value operand of a load or store: a vector for .vN.
func (o *operandCheck) value() {
	c, sp, e, want, probs := o.c, o.sp, o.e, o.want, o.probs
	if vec := o.in.Vec(); vec > 0 {
		v, ok := e.(*Vector)
		if !ok {
			addProb(probs, e.Position(), "", "%s of a .v%d access must be a vector of %d, found %s", sp.name, vec, vec, describeExpr(e))
			return
		}
		if len(v.Elems) != vec {
			addProb(probs, v.Pos, "", "%s has %d elements; .v%d needs %d", sp.name, len(v.Elems), vec, vec)
		}
		c.checkElems(sp, v, want, sp.name != "d", probs)
		return
	}
	switch x := e.(type) {
	case *Reg:
		o.reg(x)
	case *Imm:
		if sp.name == "d" {
			o.bad()
			return
		}
		c.checkImm(sp, x, want, probs)
	case *Vector:
		// ptxas reads a braced single operand ({ %r1 }) as the operand:
		// Triton writes its scalar loads and stores that way.
		if len(x.Elems) == 1 {
			c.checkOperand(o.in, sp, x.Elems[0], probs)
			return
		}
		addProb(probs, x.Pos, "add .v2, .v4 or .v8 for a vector access", "%s is a vector but the instruction has no .vN modifier", sp.name)
	default:
		o.bad()
	}
}

// sym checks a symbol operand: branch targets and branch-target lists.
func (o *operandCheck) sym() {
	c, in, probs := o.c, o.in, o.probs
	id, ok := o.e.(*Ident)
	if !ok {
		o.bad()
		return
	}
	if s := c.lookup(id.Name); s != nil && in.Opcode == "bra" && s.kind != symLabel {
		addProb(probs, id.Pos, "", "branch target %s is a %s, not a label", id.Name, symKindNames[s.kind])
	}
	if in.Opcode == "brx.idx" {
		if s := c.lookup(id.Name); s != nil && s.kind != symTargets {
			addProb(probs, id.Pos, "declare it with name: .branchtargets L1, L2, ...;", "%s is not a .branchtargets list", id.Name)
		}
	}
}

// specType resolves the type an operand spec asks for.
func (c *checker) specType(in *Instruction, sp *opSpec) Type {
	t := sp.typ.fixed
	if sp.typ.index >= 0 {
		if sp.typ.index >= len(in.Types) {
			return TypeNone
		}
		t = in.Types[sp.typ.index]
	}
	if sp.typ.wide {
		t = widen(t)
	}
	if sp.kind == opPred || sp.kind == opNotPred || sp.kind == opPredImm {
		return Pred
	}
	return t
}

func widen(t Type) Type {
	switch t {
	case U16:
		return U32
	case U32:
		return U64
	case S16:
		return S32
	case S32:
		return S64
	case B16:
		return B32
	case B32:
		return B64
	}
	return TypeNone
}

func (c *checker) checkElems(sp *opSpec, v *Vector, want Type, immOK bool, probs *[]problem) {
	for _, x := range v.Elems {
		switch x := x.(type) {
		case *Reg:
			if x.Not {
				addProb(probs, x.Pos, "", "vector elements cannot be negated")
				continue
			}
			c.checkRegOperand(sp, x, want, probs)
		case *Imm:
			if !immOK {
				addProb(probs, x.Pos, "", "%s: a destination vector cannot hold an immediate", sp.name)
				continue
			}
			c.checkImm(sp, x, want, probs)
		case *Sink:
		default:
			addProb(probs, x.Position(), "", "%s: unexpected %s in a vector", sp.name, describeExpr(x))
		}
	}
}

func (c *checker) checkImm(sp *opSpec, x *Imm, want Type, probs *[]problem) {
	if x.Kind != ImmInt && (want.Kind() == KindSigned || want.Kind() == KindUnsigned) {
		addProb(probs, x.Pos, "", "%s: floating-point immediate %s for an integer .%s operand", sp.name, formatImm(x), want)
	}
	if want == Pred && x.Kind != ImmInt {
		addProb(probs, x.Pos, "", "%s: a predicate immediate must be an integer", sp.name)
	}
}

func (c *checker) checkRegOperand(sp *opSpec, r *Reg, want Type, probs *[]problem) {
	got, ok := c.regType(r)
	if !ok || want == TypeNone {
		return
	}
	if !compatible(want, got, sp.typ.relaxed) {
		addProb(probs, r.Pos, compatHint(want, sp.typ.relaxed), "%s: %s is .%s, want .%s", sp.name, regString(r), got, want)
	}
}

func regString(r *Reg) string {
	if r.Comp != "" {
		return r.Name + "." + r.Comp
	}
	return r.Name
}

func compatHint(want Type, relaxed bool) string {
	switch want.Kind() {
	case KindPred:
		return "use a .pred register"
	case KindFloat:
		return fmt.Sprintf("use a %d-bit .b or .%s register", want.regBits(), want)
	case KindSigned, KindUnsigned:
		return fmt.Sprintf("use a %d-bit integer or .b register", want.regBits())
	}
	if relaxed {
		return fmt.Sprintf("use a register of at least %d bits", want.regBits())
	}
	return fmt.Sprintf("use a %d-bit register", want.regBits())
}

// compatible implements PTX operand type compatibility: bit types match
// any type of the same size, signed and unsigned integers match each other,
// floating-point types need the same type or a bit type. With relaxed
// (ld, st, cvt) the register may be wider.
func compatible(want, got Type, relaxed bool) bool {
	if want == Pred || got == Pred {
		return want == got
	}
	wb, gb := want.regBits(), got.regBits()
	if relaxed {
		if gb < wb {
			return false
		}
	} else if gb != wb {
		return false
	}
	switch want.Kind() {
	case KindBit, KindOpaque:
		return true
	case KindSigned, KindUnsigned:
		k := got.Kind()
		return k == KindBit || k == KindSigned || k == KindUnsigned
	case KindFloat:
		switch got.Kind() {
		case KindBit:
			return true
		case KindFloat:
			return gb == wb && (got == want || want == TF32 && got == F32 || isHalfFamily(want) && isHalfFamily(got))
		}
		return false
	}
	return false
}

func isHalfFamily(t Type) bool { return t == F16 || t == BF16 }

// checkAddress checks a memory operand: its base register size, its
// symbol's state space against the instruction's, and coordinates.
func (c *checker) checkAddress(in *Instruction, sp *opSpec, a *Address, probs *[]problem) {
	space := SpaceNone
	check := true
	tmem := false
	switch sp.typ.space {
	case "-":
		check = false
	case "tmem":
		tmem = true
	case "shared":
		space = SpaceShared
		if s := in.Spaces(); len(s) > 0 && s[0].Base() == SpaceShared {
			space = s[0]
		} else if len(s) == 0 {
			space = SpaceNone // generic addressing of shared memory
		}
	case "0", "1", "2":
		idx := int(sp.typ.space[0] - '0')
		if s := in.Spaces(); idx < len(s) {
			space = s[idx]
		}
	}
	if a.Coords != nil && sp.typ.space != "-" {
		addProb(probs, a.Coords.Pos, "", "%s: coordinates are only allowed in a tensor operand [tmap, {..}]", sp.name)
	}
	if a.Coords == nil && sp.name == "tensor" {
		addProb(probs, a.Pos, "write [tensorMap, {c0, c1, ...}]", "%s: missing tensor coordinates", sp.name)
	}
	if a.Coords != nil {
		for _, x := range a.Coords.Elems {
			switch x := x.(type) {
			case *Reg:
				if t, ok := c.regType(x); ok && t.regBits() != 32 {
					addProb(probs, x.Pos, "", "tensor coordinate %s is .%s, want a 32-bit register", x.Name, t)
				}
			case *Imm:
			default:
				addProb(probs, x.Position(), "", "tensor coordinates must be registers or immediates")
			}
		}
	}
	switch b := a.Base.(type) {
	case nil:
		if tmem {
			addProb(probs, a.Pos, "", "%s: a Tensor Memory address must be a 32-bit register", sp.name)
		}
	case *Reg:
		t, ok := c.regType(b)
		if !ok {
			return
		}
		bits := t.regBits()
		switch {
		case t == Pred || t.Kind() == KindFloat:
			addProb(probs, b.Pos, "", "%s: address register %s is .%s", sp.name, b.Name, t)
		case tmem && bits != 32:
			addProb(probs, b.Pos, "Tensor Memory addresses are 32-bit (lane<<16 | column)", "%s: TMEM address %s is .%s, want a 32-bit register", sp.name, b.Name, t)
		case bits != 32 && bits != 64:
			addProb(probs, b.Pos, "", "%s: address register %s is .%s, want 32 or 64 bits", sp.name, b.Name, t)
		case check && !tmem && space == SpaceNone && c.addrSize == 64 && bits == 32 && in.Opcode != "call":
			*probs = append(*probs, problem{b.Pos, fmt.Sprintf("%s: generic address in 32-bit register %s: ptxas accepts it, but generic addresses are 64-bit and a 32-bit shared-memory offset is not one", sp.name, b.Name),
				"add a state space such as .shared::cta, or convert with cvta", true})
		}
	case *Ident:
		if tmem {
			*probs = append(*probs, problem{b.Pos, fmt.Sprintf("%s: symbol %s used as a Tensor Memory address; TMEM addresses are 32-bit registers holding what tcgen05.alloc wrote", sp.name, b.Name), "load the address from the tcgen05.alloc slot with ld.shared.u32", true})
			return
		}
		s := c.lookup(b.Name)
		if s == nil || !check {
			return
		}
		switch s.kind {
		case symReg:
			// [reg] written with a bare register name declared later.
		case symLabel, symProto, symTargets:
			addProb(probs, b.Pos, "", "%s: %s is a %s, not a variable", sp.name, b.Name, symKindNames[s.kind])
		case symFunc:
			addProb(probs, b.Pos, "", "%s: %s is a function, not a variable", sp.name, b.Name)
		default:
			if space != SpaceNone && !spaceHolds(space, s) {
				where := "." + s.space.String()
				addProb(probs, b.Pos, fmt.Sprintf("use .%s or a generic address", s.space.Base()), "%s: %s is declared %s, but the instruction accesses .%s", sp.name, b.Name, where, space)
			}
		}
	default:
		addProb(probs, a.Pos, "", "%s: unsupported address", sp.name)
	}
}

// spaceHolds reports whether an access in space may name a symbol s.
func spaceHolds(space Space, s *symbol) bool {
	vs := s.space
	if s.kind == symParam {
		vs = SpaceParam
	}
	return space.Base() == vs.Base()
}
