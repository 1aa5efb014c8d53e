package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Address windows of the simulated generic address space. Global buffers
// live below SharedWindow; each other state space has a window whose base
// is added by cvta and removed by cvta.to.
const (
	SharedWindow uint64 = 0x0000_1000_0000_0000 // + shared::cluster address
	LocalWindow  uint64 = 0x0000_2000_0000_0000 // + the thread's local offset
	ParamWindow  uint64 = 0x0000_3000_0000_0000 // + kernel parameter offset
	ConstWindow  uint64 = 0x0000_4000_0000_0000 // + constant bank offset
	windowSize   uint64 = 1 << 40
	GlobalBase   uint64 = 0x0000_7000_0000_0000 // first global buffer
)

// Program is a PTX module compiled for simulation: every instruction of the
// kernel and of the functions it may call, pre-decoded into a compact form
// with registers resolved to indices, branch targets to program counters and
// each branch's reconvergence point computed from the control-flow graph.
type Program struct {
	Module   *ptx.Module
	Filename string
	Arch     string // "sm_90a"
	Kernel   *Function
	Funcs    []*Function
	Insts    []Inst // every instruction; a pc indexes this slice

	// Static shared memory: module-level and function-level .shared
	// variables, laid out from offset 0. Dynamic shared memory (.extern
	// .shared arrays) starts at DynSharedOffset.
	SharedStatic    int
	DynSharedOffset int
	sharedSyms      map[string]uint32

	// Module-level .global variables become buffers at launch; .const
	// variables form the constant bank.
	GlobalVars []*GlobalVar
	ConstBank  []byte
	constSyms  map[string]uint32

	funcByName map[string]*Function
	lines      []string
	hasWgmma   bool
	hasTcgen05 bool
}

// GlobalVar is a module-level .global variable with its initial bytes.
type GlobalVar struct {
	Name  string
	Size  int
	Align int
	Init  []byte
	// relocs are initializer entries holding the address of a symbol.
	relocs []reloc
	Addr   uint64 // assigned by the machine
}

type reloc struct {
	off  int
	size int
	sym  string
	add  int64
}

// Function is one .entry or .func of the program.
type Function struct {
	Name       string
	Entry      bool
	Start, End int // instruction range [Start, End)
	NumRegs    int // data registers, including hidden ones
	NumPreds   int
	RegNames   []string
	RegTypes   []ptx.Type
	PredNames  []string
	Params     []Symbol // .entry: kernel parameters; .func: formal parameters
	Returns    []Symbol
	FrameSize  int // per-thread bytes: .local variables, .param temporaries, formal params
	Directives map[string][]int64

	sregs  []sregFill // hidden registers holding per-thread constants
	labels map[string]int
	decl   *ptx.Function
	// postdominator per pc: reconvergence point of a branch at pc.
	ipdom []int
}

// Symbol is a named location: a parameter, a variable, a label.
type Symbol struct {
	Name  string
	Space ptx.Space
	Off   int64 // offset in its space (frame-relative for .local/.param in functions)
	Size  int
	Align int
	Type  ptx.Type
}

type sregFill struct {
	reg  int32
	name string // "%tid.x"
}

// opKind says what an operand is.
type opKind uint8

const (
	oNone  opKind = iota
	oReg          // a data register
	oPred         // a predicate register
	oImm          // an immediate, broadcast to all lanes
	oSreg         // a special register read at run time (%clock ...)
	oFrame        // a frame-relative address (local/param symbol in a function)
	oSink         // "_"
)

// Opnd is a decoded operand.
type Opnd struct {
	K     opKind
	Not   bool // predicate negation
	R     int32
	Imm   uint64
	Off   int64 // address offset
	lanes *[32]uint64
	Name  string
}

// Inst is one pre-decoded instruction.
type Inst struct {
	fn   execFn
	PTX  *ptx.Instruction
	PC   int
	Func *Function
	Line int

	guard int32 // predicate register, or -1
	gnot  bool

	dst []Opnd
	src []Opnd

	typ, typ2 ptx.Type
	space     ptx.Space
	vec       int
	flags     uint32
	aux, aux2 int
	target    int // branch target
	rpc       int // reconvergence pc of a branch (ipdom)
	ext       any // per-opcode data

	approx bool // the result is not bit-exact (approximate math)
	// async/collective classification for the hazard checker
	class instClass
}

// instClass groups instructions for the hazard checker and tracing.
type instClass uint8

const (
	clsPlain instClass = iota
	clsWgmma
	clsBranch
)

// flags
const (
	fFTZ uint32 = 1 << iota
	fSat
	fCC   // writes the carry flag
	fUseC // reads the carry flag
	fHi
	fLo
	fWide
	fRelu
	fNaN
	fAbs
	fXorsign
	fSatfinite
	fUni
	fAligned
	fVolatile
)

// String formats the instruction as written.
func (in *Inst) String() string { return in.PTX.String() }

// Position is the instruction's file:line:col.
func (in *Inst) Position(p *Program) ptx.Position {
	return ptx.Position{Filename: p.Filename, Pos: in.PTX.Pos}
}

// Line returns source line n (1-based) of the program's file, or "".
func (p *Program) Line(n int) string {
	if n <= 0 || n > len(p.lines) {
		return ""
	}
	return p.lines[n-1]
}

// Function returns the function named name, or nil.
func (p *Program) Function(name string) *Function { return p.funcByName[name] }

// FuncAt returns the function containing pc.
func (p *Program) FuncAt(pc int) *Function {
	for _, f := range p.Funcs {
		if pc >= f.Start && pc < f.End {
			return f
		}
	}
	return nil
}

// LabelPC returns the pc of a label in function f ("" f means the kernel).
func (p *Program) LabelPC(f *Function, label string) (int, bool) {
	if f == nil {
		f = p.Kernel
	}
	pc, ok := f.labels[label]
	return pc, ok
}

// PCsAtLine returns the pcs of the instructions on source line n.
func (p *Program) PCsAtLine(n int) []int {
	var out []int
	for i := range p.Insts {
		if int(p.Insts[i].PTX.Pos.Line) == n {
			out = append(out, i)
		}
	}
	return out
}

// CompileError is a PTX construct the simulator cannot run.
type CompileError struct {
	Pos ptx.Position
	Msg string
}

func (e *CompileError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Compile prepares kernel (the .entry name; "" when the module has exactly
// one) of module m for simulation. src is the module's text, kept to show
// source lines. Validate the module with ptx.Validate first: Compile assumes
// well-formed PTX and reports only what it cannot simulate.
func Compile(m *ptx.Module, src []byte, kernel string) (*Program, error) {
	p := &Program{Module: m, Filename: m.Filename, funcByName: map[string]*Function{},
		sharedSyms: map[string]uint32{}, constSyms: map[string]uint32{}}
	if t := m.Target(); t != nil {
		p.Arch = t.Arch()
	}
	if src != nil {
		p.lines = strings.Split(string(src), "\n")
	}
	c := &compiler{p: p, mod: m}
	// Kernel selection.
	var entries []*ptx.Function
	for _, f := range m.Functions() {
		if f.Entry && f.Body != nil {
			entries = append(entries, f)
		}
	}
	var kf *ptx.Function
	for _, f := range entries {
		if kernel == "" || f.Name == kernel {
			if kf != nil && kernel == "" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name)
				}
				return nil, fmt.Errorf("%s: the module has %d kernels (%s); name one", m.Filename, len(entries), strings.Join(names, ", "))
			}
			kf = f
		}
	}
	if kf == nil {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		if kernel == "" {
			return nil, fmt.Errorf("%s: no .entry with a body", m.Filename)
		}
		return nil, fmt.Errorf("%s: no kernel %q (the module has %s)", m.Filename, kernel, strings.Join(names, ", "))
	}
	if err := c.moduleVars(); err != nil {
		return nil, err
	}
	// Compile the kernel, then every function with a body (callees are
	// resolved by name; compiling all keeps pcs stable).
	if err := c.function(kf); err != nil {
		return nil, err
	}
	p.Kernel = p.Funcs[0]
	for _, f := range m.Functions() {
		if !f.Entry && f.Body != nil && p.funcByName[f.Name] == nil {
			if err := c.function(f); err != nil {
				return nil, err
			}
		}
	}
	if err := c.link(); err != nil {
		return nil, err
	}
	for _, f := range p.Funcs {
		computeReconvergence(p, f)
	}
	if len(c.errs) > 0 {
		return nil, c.errs[0]
	}
	return p, nil
}

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
						c.errorf(v.Pos, "address initializers in .const variables are not supported")
					}
				}
				for len(p.ConstBank) < off {
					p.ConstBank = append(p.ConstBank, 0)
				}
				p.ConstBank = append(p.ConstBank, buf...)
				p.constSyms[v.Name] = uint32(off)
				c.global.syms[v.Name] = Symbol{Name: v.Name, Space: ptx.SpaceConst, Off: int64(off), Size: size, Type: vd.Type}
			case ptx.SpaceLocal:
				c.errorf(v.Pos, "module-level .local variables are not supported")
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
		return &CompileError{Pos: ptx.Position{Filename: c.p.Filename, Pos: e.Position()}, Msg: fmt.Sprintf("initializer expression of %s is not supported", v.Name)}
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
				c.errorf(v.Pos, "register arrays are not supported")
				continue
			}
			if d.Vec > 0 {
				c.errorf(v.Pos, "vector registers (.v%d .reg) are not supported", d.Vec)
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
		c.errorf(d.Pos, ".%s variables inside a function are not supported", d.Space)
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
				in.fn = unsupported(fmt.Sprintf("call to %s, which has no body in this module", cl.name))
				continue
			}
			cl.callee = f
		}
	}
	return nil
}

// decoder carries what an opcode decoder needs.
type decoder struct {
	c  *compiler
	sc *scope
	in *Inst
	x  *ptx.Instruction
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

func (d *decoder) has(mod string) bool { return d.x.Has(mod) }

func (d *decoder) nops() int { return len(d.x.Operands) }

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
		return Opnd{}, fmt.Errorf("special register %s is not supported", name)
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
	return Opnd{}, fmt.Errorf("operand %T is not supported here", e)
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
			return Opnd{}, fmt.Errorf("function addresses (%s) are not supported", name)
		}
		return Opnd{}, fmt.Errorf("%s is not a declared symbol", name)
	}
	switch s.Space.Base() {
	case ptx.SpaceShared:
		o := immOpnd(uint64(s.Off + off))
		o.Name = name
		return o, nil
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
	return Opnd{}, fmt.Errorf("the address of %s (.%s) is not supported", name, s.Space)
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
	return Opnd{}, fmt.Errorf("address base %T is not supported", a.Base)
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
