package sim

import (
	"fmt"
	"sort"

	"github.com/tcsim/tcsim/isa/ptx"
)

// The compiler: scopes, module-level variables and their initial bytes,
// functions (registers, locals, labels), and each instruction handed to its
// decoder (decoders.go).

type scope struct {
	parent *scope
	regs   map[string]regRef
	syms   map[string]Symbol
	labels map[string]int
}

type regRef struct {
	idx  int32
	pred bool
	typ  ptx.Type
}

func (s *scope) lookupReg(name string) (regRef, bool) {
	for ; s != nil; s = s.parent {
		if r, ok := s.regs[name]; ok {
			return r, true
		}
	}
	return regRef{}, false
}

func (s *scope) lookupSym(name string) (Symbol, bool) {
	for ; s != nil; s = s.parent {
		if r, ok := s.syms[name]; ok {
			return r, true
		}
	}
	return Symbol{}, false
}

func (s *scope) lookupLabel(name string) (int, bool) {
	for ; s != nil; s = s.parent {
		if r, ok := s.labels[name]; ok {
			return r, true
		}
	}
	return 0, false
}

type compiler struct {
	p      *Program
	mod    *ptx.Module
	global *scope
	errs   []error

	// per function
	f     *Function
	sregs map[string]int32
	fixes []fix
}

type fix struct {
	pc    int
	label string
	sc    *scope
	pos   ptx.Pos
	call  bool
}

func (c *compiler) errorf(pos ptx.Pos, format string, args ...any) {
	c.errs = append(c.errs, &CompileError{Pos: ptx.Position{Filename: c.p.Filename, Pos: pos}, Msg: fmt.Sprintf(format, args...)})
}

// maxLocal is the local memory of one thread (512 KB on sm_90).
const maxLocal = 512 << 10

// maxGlobalVar bounds a module-level .global or .const variable.
const maxGlobalVar = 1 << 28

// maxRegs bounds the registers of one function (each costs 256 bytes per warp).
const maxRegs = 1 << 16

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

func declSize(d *ptx.VarDecl, v *ptx.Declarator) int {
	n := d.Type.Bits() / 8
	if d.Type == ptx.Pred {
		n = 1
	}
	if n == 0 {
		n = 1
	}
	if d.Vec > 0 {
		n *= d.Vec
	}
	for _, dim := range v.Dims {
		if dim < 0 {
			return 0
		}
		if dim > 0 && n > (1<<40)/dim {
			return 1 << 40 // absurd: reported by the size checks
		}
		n *= dim
	}
	return n
}

func declAlign(d *ptx.VarDecl) int {
	if d.Align > 0 {
		return d.Align
	}
	n := d.Type.Bits() / 8
	if d.Vec > 0 {
		n *= d.Vec
	}
	return max(n, 1)
}

// moduleVars lays out module-level variables.
func (c *compiler) moduleVars() error {
	p := c.p
	c.global = &scope{syms: map[string]Symbol{}, regs: map[string]regRef{}}
	var dynAlign = 16
	var dyn []string
	for _, d := range c.mod.Decls {
		vd, ok := d.(*ptx.VarDecl)
		if !ok {
			continue
		}
		for _, v := range vd.Vars {
			size := declSize(vd, v)
			switch vd.Space.Base() {
			case ptx.SpaceShared:
				if size == 0 || vd.Linkage == "extern" && len(v.Dims) > 0 && v.Dims[0] < 0 {
					dyn = append(dyn, v.Name)
					dynAlign = max(dynAlign, declAlign(vd))
					continue
				}
				off := alignUp(p.SharedStatic, declAlign(vd))
				p.sharedSyms[v.Name] = uint32(off)
				c.global.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceShared, Off: int64(off), Size: size, Align: declAlign(vd), Type: vd.Type}
				p.SharedStatic = off + size
			case ptx.SpaceGlobal:
				if size > maxGlobalVar {
					return &CompileError{Pos: ptx.Position{Filename: p.Filename, Pos: v.Pos}, Msg: fmt.Sprintf(".global variable %s has %d bytes; the simulator allows %d", v.Name, size, maxGlobalVar)}
				}
				gv := &GlobalVar{Name: v.Name, Size: max(size, 1), Align: max(declAlign(vd), 16), Init: make([]byte, max(size, 1))}
				if v.Init != nil {
					if err := c.initBytes(vd, v, gv.Init, &gv.relocs); err != nil {
						return err
					}
				}
				p.GlobalVars = append(p.GlobalVars, gv)
				c.global.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceGlobal, Size: size, Align: gv.Align, Type: vd.Type}
			case ptx.SpaceConst:
				if size > 64<<10 {
					return &CompileError{Pos: ptx.Position{Filename: p.Filename, Pos: v.Pos}, Msg: fmt.Sprintf(".const variable %s has %d bytes; a constant bank has 64 KB", v.Name, size)}
				}
				off := alignUp(len(p.ConstBank), declAlign(vd))
				buf := make([]byte, size)
				if v.Init != nil {
					var rel []reloc
					if err := c.initBytes(vd, v, buf, &rel); err != nil {
						return err
					}
					if len(rel) > 0 {
						c.errorf(v.Pos, "%s", refConstAddrInit.msg("the address initializer of the .const variable %s", v.Name))
					}
				}
				for len(p.ConstBank) < off {
					p.ConstBank = append(p.ConstBank, 0)
				}
				p.ConstBank = append(p.ConstBank, buf...)
				p.constSyms[v.Name] = uint32(off)
				c.global.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceConst, Off: int64(off), Size: size, Type: vd.Type}
			case ptx.SpaceLocal:
				c.errorf(v.Pos, "%s", refLocalVar.msg("the module-level .local variable %s", v.Name))
			}
		}
	}
	// Function-level .shared declarations are static too; collect them now
	// so that the dynamic window starts after all of them.
	for _, f := range c.mod.Functions() {
		if f.Body == nil {
			continue
		}
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch x := s.(type) {
				case *ptx.Block:
					walk(x)
				case *ptx.VarDecl:
					if x.Space.Base() != ptx.SpaceShared {
						continue
					}
					for _, v := range x.Vars {
						size := declSize(x, v)
						if size == 0 {
							dyn = append(dyn, v.Name)
							dynAlign = max(dynAlign, declAlign(x))
							continue
						}
						off := alignUp(p.SharedStatic, declAlign(x))
						p.sharedSyms[f.Name+"\x00"+v.Name] = uint32(off)
						p.SharedStatic = off + size
					}
				}
			}
		}
		walk(f.Body)
	}
	p.DynSharedOffset = alignUp(p.SharedStatic, dynAlign)
	for _, n := range dyn {
		p.sharedSyms[n] = uint32(p.DynSharedOffset)
		c.global.syms[n] = Symbol{Name: n, Space: ptx.SpaceShared, Off: int64(p.DynSharedOffset)}
	}
	return nil
}

// initBytes evaluates a variable initializer into buf.
func (c *compiler) initBytes(vd *ptx.VarDecl, v *ptx.Declarator, buf []byte, rel *[]reloc) error {
	esize := vd.Type.Bits() / 8
	if esize == 0 {
		esize = 1
	}
	idx := 0
	var put func(e ptx.Expr) error
	put = func(e ptx.Expr) error {
		switch x := e.(type) {
		case *ptx.InitList:
			for _, el := range x.Elems {
				if err := put(el); err != nil {
					return err
				}
			}
			return nil
		case *ptx.Imm:
			off := idx * esize
			if off+esize > len(buf) {
				return &CompileError{Pos: ptx.Position{Filename: c.p.Filename, Pos: x.Pos}, Msg: fmt.Sprintf("initializer of %s has more elements than the variable", v.Name)}
			}
			bits := immBits(x, vd.Type)
			for i := 0; i < esize; i++ {
				buf[off+i] = byte(bits >> (8 * i))
			}
			idx++
			return nil
		case *ptx.Ident:
			off := idx * esize
			*rel = append(*rel, reloc{off: off, size: esize, sym: x.Name, add: x.Offset})
			idx++
			return nil
		case *ptx.BinaryExpr:
			if id, ok := x.X.(*ptx.Ident); ok {
				if im, ok := x.Y.(*ptx.Imm); ok && (x.Op == ptx.ADD || x.Op == ptx.SUB) {
					add := im.Int()
					if x.Op == ptx.SUB {
						add = -add
					}
					*rel = append(*rel, reloc{off: idx * esize, size: esize, sym: id.Name, add: id.Offset + add})
					idx++
					return nil
				}
			}
		}
		return &CompileError{Pos: ptx.Position{Filename: c.p.Filename, Pos: e.Position()}, Msg: refInitExpr.msg("the initializer expression of %s", v.Name)}
	}
	return put(v.Init)
}

// immBits returns an immediate's bits converted to type t (integers to
// floats as PTX does for float-typed operands written as integers).
func immBits(x *ptx.Imm, t ptx.Type) uint64 {
	switch x.Kind {
	case ptx.ImmF32:
		if t == ptx.F64 {
			return f64bits(float64(f32frombits(uint32(x.Bits))))
		}
		return x.Bits
	case ptx.ImmF64:
		switch t {
		case ptx.F32, ptx.F32x2:
			return uint64(f32bits(float32(f64frombits(x.Bits))))
		case ptx.F16:
			return uint64(f64ToF16(f64frombits(x.Bits)))
		case ptx.BF16:
			return uint64(f64ToBF16(f64frombits(x.Bits)))
		}
		return x.Bits
	}
	// integer literal
	switch t {
	case ptx.F32:
		if x.Unsigned {
			return uint64(f32bits(float32(x.Bits)))
		}
		return uint64(f32bits(float32(int64(x.Bits))))
	case ptx.F64:
		if x.Unsigned {
			return f64bits(float64(x.Bits))
		}
		return f64bits(float64(int64(x.Bits)))
	}
	return x.Bits
}

// function compiles one function body.
func (c *compiler) function(fd *ptx.Function) error {
	p := c.p
	f := &Function{Name: fd.Name, Entry: fd.Entry, Start: len(p.Insts), decl: fd, labels: map[string]int{}, Directives: map[string][]int64{}}
	for _, d := range fd.Directives {
		f.Directives[d.Name] = d.Values
	}
	p.Funcs = append(p.Funcs, f)
	p.funcByName[fd.Name] = f
	c.f = f
	c.sregs = map[string]int32{}
	c.fixes = nil
	fs := &scope{parent: c.global, regs: map[string]regRef{}, syms: map[string]Symbol{}, labels: f.labels}
	// Parameters.
	if fd.Entry {
		off := 0
		for _, d := range fd.Params {
			for _, v := range d.Vars {
				size, al := declSize(d, v), declAlign(d)
				off = alignUp(off, al)
				s := Symbol{Name: v.Name, Space: ptx.SpaceParam, Off: int64(off), Size: size, Align: al, Type: d.Type}
				f.Params = append(f.Params, s)
				fs.syms[v.Name] = s
				off += size
			}
		}
	} else {
		for gi, group := range [][]*ptx.VarDecl{fd.Returns, fd.Params} {
			for _, d := range group {
				for _, v := range d.Vars {
					var s Symbol
					if d.Space.Base() == ptx.SpaceReg {
						// .reg parameters of a .func: registers passed by value.
						r := c.newReg(v.Name, d.Type)
						fs.regs[v.Name] = r
						s = Symbol{Name: v.Name, Space: ptx.SpaceReg, Off: int64(r.idx), Type: d.Type, Size: d.Type.Bits() / 8}
					} else {
						size, al := declSize(d, v), declAlign(d)
						off := alignUp(f.FrameSize, al)
						s = Symbol{Name: v.Name, Space: ptx.SpaceLocal, Off: int64(off), Size: size, Align: al, Type: d.Type}
						f.FrameSize = off + size
						fs.syms[v.Name] = s
					}
					if gi == 0 {
						f.Returns = append(f.Returns, s)
					} else {
						f.Params = append(f.Params, s)
					}
				}
			}
		}
	}
	c.block(fd.Body, fs)
	if f.NumRegs > maxRegs || f.NumPreds > maxRegs {
		return &CompileError{Pos: ptx.Position{Filename: p.Filename, Pos: fd.Pos},
			Msg: fmt.Sprintf("%s declares %d registers and %d predicates; the simulator allows %d of each", fd.Name, f.NumRegs, f.NumPreds, maxRegs)}
	}
	f.End = len(p.Insts)
	if f.End == f.Start {
		// An empty body: give it a ret so that pcs are valid.
		c.emit(&ptx.Instruction{Pos: fd.Body.End, OpPos: fd.Body.End, Opcode: "ret"}, fs)
		f.End = len(p.Insts)
	}
	// Hidden special registers.
	names := make([]string, 0, len(c.sregs))
	for n := range c.sregs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f.sregs = append(f.sregs, sregFill{reg: c.sregs[n], name: n})
	}
	for _, fx := range c.fixes {
		if fx.call {
			continue
		}
		pc, ok := fx.sc.lookupLabel(fx.label)
		if !ok {
			c.errorf(fx.pos, "branch target %s is not a label of %s", fx.label, fd.Name)
			continue
		}
		p.Insts[fx.pc].target = pc
	}
	return nil
}

func (c *compiler) newReg(name string, t ptx.Type) regRef {
	f := c.f
	if t == ptx.Pred {
		r := regRef{idx: int32(f.NumPreds), pred: true, typ: t}
		f.NumPreds++
		f.PredNames = append(f.PredNames, name)
		return r
	}
	r := regRef{idx: int32(f.NumRegs), typ: t}
	f.NumRegs++
	f.RegNames = append(f.RegNames, name)
	f.RegTypes = append(f.RegTypes, t)
	if t == ptx.B128 {
		// 128-bit registers take two slots: low, then high.
		f.NumRegs++
		f.RegNames = append(f.RegNames, name+".hi")
		f.RegTypes = append(f.RegTypes, ptx.B64)
	}
	return r
}

// block compiles the statements of a block in a new scope.
func (c *compiler) block(b *ptx.Block, sc *scope) {
	// Labels first: a branch may jump forward.
	pcs := c.p.Insts
	_ = pcs
	for _, s := range b.Stmts {
		switch x := s.(type) {
		case *ptx.VarDecl:
			c.decl(x, sc)
		case *ptx.Label:
			sc.labels[x.Name] = len(c.p.Insts)
		case *ptx.Block:
			inner := &scope{parent: sc, regs: map[string]regRef{}, syms: map[string]Symbol{}, labels: map[string]int{}}
			c.block(x, inner)
		case *ptx.Instruction:
			c.emit(x, sc)
		}
	}
}

func (c *compiler) decl(d *ptx.VarDecl, sc *scope) {
	f := c.f
	switch d.Space.Base() {
	case ptx.SpaceReg:
		for _, v := range d.Vars {
			if v.Range {
				if v.Count > maxRegs || f.NumRegs+f.NumPreds+v.Count > 2*maxRegs {
					c.errorf(v.Pos, "%s<%d>: too many registers for the simulator (at most %d per function)", v.Name, v.Count, maxRegs)
					continue
				}
				for i := 0; i < v.Count; i++ {
					n := fmt.Sprintf("%s%d", v.Name, i)
					sc.regs[n] = c.newReg(n, d.Type)
				}
				continue
			}
			if len(v.Dims) > 0 {
				c.errorf(v.Pos, "%s", refRegArray.msg("the register array %s", v.Name))
				continue
			}
			if d.Vec > 0 {
				c.errorf(v.Pos, "%s", refVectorReg.msg("the vector register %s (.v%d .reg)", v.Name, d.Vec))
				continue
			}
			sc.regs[v.Name] = c.newReg(v.Name, d.Type)
		}
	case ptx.SpaceLocal, ptx.SpaceParam:
		for _, v := range d.Vars {
			size, al := declSize(d, v), declAlign(d)
			if size > maxLocal || f.FrameSize+size > maxLocal {
				c.errorf(v.Pos, "%s: %d bytes of local memory; a thread has at most %d", v.Name, size, maxLocal)
				continue
			}
			off := alignUp(f.FrameSize, al)
			f.FrameSize = off + size
			sc.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceLocal, Off: int64(off), Size: size, Align: al, Type: d.Type}
		}
	case ptx.SpaceShared:
		for _, v := range d.Vars {
			off, ok := c.p.sharedSyms[c.f.Name+"\x00"+v.Name]
			if !ok {
				off = c.p.sharedSyms[v.Name]
			}
			sc.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceShared, Off: int64(off), Size: declSize(d, v), Align: declAlign(d), Type: d.Type}
		}
	default:
		c.errorf(d.Pos, "%s", refFuncVar.msg(".%s variables inside a function", d.Space))
	}
}

// emit decodes one instruction.
func (c *compiler) emit(x *ptx.Instruction, sc *scope) {
	p := c.p
	in := Inst{PTX: x, PC: len(p.Insts), Func: c.f, Line: int(x.Pos.Line), guard: -1, target: -1, rpc: -1}
	if x.Guard != nil {
		r, ok := sc.lookupReg(x.Guard.Name)
		if !ok || !r.pred {
			c.errorf(x.Guard.Pos, "guard %s is not a predicate register", x.Guard.Name)
		} else {
			in.guard, in.gnot = r.idx, x.Guard.Not
		}
	}
	if len(x.Types) > 0 {
		in.typ = x.Types[0]
	}
	if len(x.Types) > 1 {
		in.typ2 = x.Types[1]
	}
	in.space = x.Space()
	in.vec = x.Vec()
	d := &decoder{c: c, sc: sc, in: &in, x: x}
	dec := decoders[x.Opcode]
	if dec == nil {
		in.fn = unsupportedFn(x.Opcode)
	} else if err := dec(d); err != nil {
		in.fn = unsupported(err.Error())
	}
	p.Insts = append(p.Insts, in)
}

// link resolves call targets.
func (c *compiler) link() error {
	for i := range c.p.Insts {
		in := &c.p.Insts[i]
		if cl, ok := in.ext.(*callInfo); ok {
			f := c.p.funcByName[cl.name]
			if f == nil {
				in.fn = unsupported(refExternCall.msg("a call to %s, which has no body in this module,", cl.name))
				continue
			}
			cl.callee = f
		}
	}
	return nil
}
