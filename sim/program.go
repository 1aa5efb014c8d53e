package sim

import (
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
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
	src        sourceMap
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
	oNone   opKind = iota
	oReg           // a data register
	oPred          // a predicate register
	oImm           // an immediate, broadcast to all lanes
	oSreg          // a special register read at run time (%clock ...)
	oFrame         // a frame-relative address (local/param symbol in a function)
	oSink          // "_"
	oShared        // the shared::cta address of a shared variable (Imm) in the executing CTA
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
	aux       int
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
			names = append(names, demangle.Short(e.Name))
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
