package sim

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
)

// What decoders share: operands (registers, special registers,
// immediates, symbols, addresses) decoded into Opnd values.

// decoder carries what an opcode decoder needs.
type decoder struct {
	c  *compiler
	sc *scope
	in *Inst
	x  *ptx.Instruction
}

func (d *decoder) has(mod string) bool { return d.x.Has(mod) }

// reg resolves e as a register (data or predicate).
func (d *decoder) reg(e ptx.Expr) (regRef, bool) {
	switch x := e.(type) {
	case *ptx.Reg:
		if x.Comp != "" {
			return regRef{}, false
		}
		return d.sc.lookupReg(x.Name)
	case *ptx.Ident:
		if x.Offset != 0 {
			return regRef{}, false
		}
		return d.sc.lookupReg(x.Name)
	}
	return regRef{}, false
}

// sreg returns the hidden register of a per-thread constant special
// register, or a dynamic operand.
func (d *decoder) sreg(x *ptx.Reg) (Opnd, error) {
	name := x.Name
	if x.Comp != "" {
		name += "." + x.Comp
	}
	switch x.Name {
	case "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi":
		return Opnd{K: oSreg, Name: name}, nil
	}
	if _, ok := ptx.LookupSpecialReg(x.Name); !ok {
		return Opnd{}, fmt.Errorf("unknown register %s", name)
	}
	if !sregKnown(name) {
		return Opnd{}, refSpecialReg.errorf("the special register %s", name)
	}
	r, ok := d.c.sregs[name]
	if !ok {
		typ := ptx.U32
		if name == "%is_explicit_cluster" {
			typ = ptx.U32
		}
		if strings.HasSuffix(name, "_64") || name == "%gridid" || name == "%current_graph_exec" {
			typ = ptx.U64
		}
		rr := d.c.newReg(name, typ)
		r = rr.idx
		d.c.sregs[name] = r
	}
	return Opnd{K: oReg, R: r, Name: name}, nil
}

// val decodes a source operand: a register, an immediate (converted to t),
// a special register or a symbol address.
func (d *decoder) val(e ptx.Expr, t ptx.Type) (Opnd, error) {
	switch x := e.(type) {
	case *ptx.Reg:
		if x.Comp != "" || strings.HasPrefix(x.Name, "%") {
			if r, ok := d.sc.lookupReg(x.Name); ok && x.Comp == "" {
				if r.pred {
					return Opnd{K: oPred, R: r.idx, Not: x.Not, Name: x.Name}, nil
				}
				return Opnd{K: oReg, R: r.idx, Name: x.Name}, nil
			}
			if _, ok := ptx.LookupSpecialReg(x.Name); ok {
				return d.sreg(x)
			}
		}
		r, ok := d.sc.lookupReg(x.Name)
		if !ok {
			return Opnd{}, fmt.Errorf("%s is not a declared register", x.Name)
		}
		if r.pred {
			return Opnd{K: oPred, R: r.idx, Not: x.Not, Name: x.Name}, nil
		}
		return Opnd{K: oReg, R: r.idx, Name: x.Name}, nil
	case *ptx.Ident:
		if r, ok := d.sc.lookupReg(x.Name); ok && x.Offset == 0 {
			if r.pred {
				return Opnd{K: oPred, R: r.idx, Name: x.Name}, nil
			}
			return Opnd{K: oReg, R: r.idx, Name: x.Name}, nil
		}
		return d.symAddr(x.Name, x.Offset, x.Pos)
	case *ptx.Imm:
		return immOpnd(immBits(x, t)), nil
	case *ptx.BinaryExpr, *ptx.UnaryExpr:
		if id, off, ok := symPlus(e); ok {
			return d.symAddr(id, off, e.Position())
		}
	}
	return Opnd{}, fmt.Errorf("unexpected operand %T here", e)
}

func symPlus(e ptx.Expr) (string, int64, bool) {
	switch x := e.(type) {
	case *ptx.Ident:
		return x.Name, x.Offset, true
	case *ptx.BinaryExpr:
		if id, ok := x.X.(*ptx.Ident); ok {
			if im, ok := x.Y.(*ptx.Imm); ok {
				switch x.Op {
				case ptx.ADD:
					return id.Name, id.Offset + im.Int(), true
				case ptx.SUB:
					return id.Name, id.Offset - im.Int(), true
				}
			}
		}
	}
	return "", 0, false
}

func immOpnd(bits uint64) Opnd {
	var l [32]uint64
	for i := range l {
		l[i] = bits
	}
	return Opnd{K: oImm, Imm: bits, lanes: &l}
}

// symAddr is the address of a symbol in its own state space (what mov
// gives): shared offsets, param window addresses, global addresses.
func (d *decoder) symAddr(name string, off int64, pos ptx.Pos) (Opnd, error) {
	s, ok := d.sc.lookupSym(name)
	if !ok {
		if f := d.c.mod.Func(name); f != nil {
			return Opnd{}, refIndirectCall.errorf("the function address %s", name)
		}
		return Opnd{}, fmt.Errorf("%s is not a declared symbol", name)
	}
	switch s.Space.Base() {
	case ptx.SpaceShared:
		// Run time adds the CTA's rank in the cluster (bits 24 and up), as
		// the hardware's shared::cta addresses carry it.
		return Opnd{K: oShared, Imm: uint64(s.Off + off), Name: name}, nil
	case ptx.SpaceParam:
		o := immOpnd(ParamWindow + uint64(s.Off+off))
		o.Name = name
		return o, nil
	case ptx.SpaceConst:
		o := immOpnd(ConstWindow + uint64(s.Off+off))
		o.Name = name
		return o, nil
	case ptx.SpaceLocal:
		return Opnd{K: oFrame, Imm: uint64(s.Off + off), Name: name}, nil
	case ptx.SpaceGlobal:
		// Resolved at launch: the variable's buffer address.
		o := immOpnd(0)
		o.Name = name
		o.Off = off
		d.in.ext = globalRef{name: name}
		return o, nil
	}
	return Opnd{}, refSymAddr.errorf("the address of %s (.%s)", name, s.Space)
}

type globalRef struct{ name string }

// dstPair decodes a destination that may be a pair, "a|b" (as setp, shfl,
// elect and match write): the first and the second register, the second
// a sink when e is a single register.
func (d *decoder) dstPair(e ptx.Expr) (first, second Opnd, err error) {
	second = Opnd{K: oSink}
	if pr, ok := e.(*ptx.Pair); ok {
		if first, err = d.dstReg(pr.X); err != nil {
			return first, second, err
		}
		second, err = d.dstReg(pr.Y)
		return first, second, err
	}
	first, err = d.dstReg(e)
	return first, second, err
}

// dstReg decodes a destination register operand.
func (d *decoder) dstReg(e ptx.Expr) (Opnd, error) {
	switch x := e.(type) {
	case *ptx.Sink:
		return Opnd{K: oSink}, nil
	case *ptx.Reg, *ptx.Ident:
		r, ok := d.reg(x)
		if !ok {
			return Opnd{}, fmt.Errorf("destination %s is not a declared register", exprString(e))
		}
		if r.pred {
			return Opnd{K: oPred, R: r.idx, Name: exprString(e)}, nil
		}
		return Opnd{K: oReg, R: r.idx, Name: exprString(e)}, nil
	}
	return Opnd{}, fmt.Errorf("destination %s is not a register", exprString(e))
}

func exprString(e ptx.Expr) string {
	switch x := e.(type) {
	case *ptx.Reg:
		s := x.Name
		if x.Comp != "" {
			s += "." + x.Comp
		}
		if x.Not {
			s = "!" + s
		}
		return s
	case *ptx.Ident:
		return x.Name
	case *ptx.Sink:
		return "_"
	}
	return fmt.Sprintf("%T", e)
}

// regType is the declared type of a register operand (TypeNone otherwise).
func (d *decoder) regType(o Opnd) ptx.Type {
	if o.K == oReg {
		return d.c.f.RegTypes[o.R]
	}
	if o.K == oPred {
		return ptx.Pred
	}
	return ptx.TypeNone
}

// addr decodes a memory operand [base+off].
func (d *decoder) addr(e ptx.Expr) (Opnd, error) {
	a, ok := e.(*ptx.Address)
	if !ok {
		return Opnd{}, fmt.Errorf("want a memory operand [addr], got %s", exprString(e))
	}
	switch b := a.Base.(type) {
	case nil:
		o := immOpnd(uint64(a.Offset))
		return o, nil
	case *ptx.Reg:
		o, err := d.val(b, ptx.U64)
		if err != nil {
			return o, err
		}
		o.Off = a.Offset
		return o, nil
	case *ptx.Ident:
		if r, ok := d.sc.lookupReg(b.Name); ok && !r.pred {
			return Opnd{K: oReg, R: r.idx, Off: a.Offset + b.Offset, Name: b.Name}, nil
		}
		o, err := d.symAddr(b.Name, b.Offset, b.Pos)
		if err != nil {
			return o, err
		}
		if o.K == oShared {
			o.Imm += uint64(a.Offset)
			return o, nil
		}
		if o.K == oImm {
			o = immOpnd(o.Imm + uint64(a.Offset))
			o.Name = b.Name
			if gr, ok := d.in.ext.(globalRef); ok {
				_ = gr
				o.Off = b.Offset + a.Offset
			}
			return o, nil
		}
		o.Off += a.Offset
		return o, nil
	}
	return Opnd{}, fmt.Errorf("unexpected address base %T", a.Base)
}

// vec returns the elements of a vector operand, or the operand itself.
func vecElems(e ptx.Expr) []ptx.Expr {
	if v, ok := e.(*ptx.Vector); ok {
		return v.Elems
	}
	return []ptx.Expr{e}
}

func sregKnown(name string) bool {
	switch name {
	case "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
		"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z",
		"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
		"%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
		"%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z",
		"%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z",
		"%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
		"%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
		"%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size":
		return true
	}
	return strings.HasPrefix(name, "%envreg")
}
