package ptx

import "strings"

// Node is implemented by every syntax tree node.
type Node interface {
	// Position returns where the node starts.
	Position() Pos
}

// Decl is a module-level item: a directive, a variable, a function or a
// debug section.
type Decl interface {
	Node
	declNode()
}

// Stmt is an item of a function body: an instruction, a label, a
// declaration, a nested block or a directive.
type Stmt interface {
	Node
	stmtNode()
}

// Expr is an instruction operand or an initializer expression.
type Expr interface {
	Node
	exprNode()
}

// Module is one parsed PTX file. Decls holds every module-level item in
// source order, including the .version, .target and .address_size
// directives.
type Module struct {
	Filename string
	Decls    []Decl
	// Truncated is set when the source ended in the middle of a
	// statement, block or function (a cut or interrupted file). The
	// parser then reports one "unexpected end of file" error, and the
	// validator skips the checks that need the rest of the file (.loc
	// file indices, which nvcc declares at the end).
	Truncated bool
}

// Version returns the module's .version directive, or nil.
func (m *Module) Version() *VersionDirective {
	for _, d := range m.Decls {
		if v, ok := d.(*VersionDirective); ok {
			return v
		}
	}
	return nil
}

// Target returns the module's .target directive, or nil.
func (m *Module) Target() *TargetDirective {
	for _, d := range m.Decls {
		if v, ok := d.(*TargetDirective); ok {
			return v
		}
	}
	return nil
}

// AddressSize returns the module's address size in bits: the value of its
// .address_size directive, or 32 when there is none (the PTX default).
func (m *Module) AddressSize() int {
	for _, d := range m.Decls {
		if v, ok := d.(*AddressSizeDirective); ok {
			return v.Size
		}
	}
	return 32
}

// Functions returns the module's functions (entries, device functions and
// prototypes) in source order.
func (m *Module) Functions() []*Function {
	var fs []*Function
	for _, d := range m.Decls {
		if f, ok := d.(*Function); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// Func returns the function named name that has a body, or else the first
// declaration of that name, or nil.
func (m *Module) Func(name string) *Function {
	var decl *Function
	for _, d := range m.Decls {
		if f, ok := d.(*Function); ok && f.Name == name {
			if f.Body != nil {
				return f
			}
			if decl == nil {
				decl = f
			}
		}
	}
	return decl
}

// VersionDirective is ".version major.minor".
type VersionDirective struct {
	Pos          Pos
	Major, Minor int
}

// TargetDirective is ".target sm_90a[, debug ...]".
type TargetDirective struct {
	Pos     Pos
	Targets []string // "sm_90a", "debug", "texmode_independent", "map_f64_to_f32"
}

// Arch returns the first sm_* target, or "".
func (t *TargetDirective) Arch() string {
	for _, s := range t.Targets {
		if strings.HasPrefix(s, "sm_") {
			return s
		}
	}
	return ""
}

// AddressSizeDirective is ".address_size 32|64".
type AddressSizeDirective struct {
	Pos  Pos
	Size int
}

// FileDirective is `.file index "name"[, mtime, size]`.
type FileDirective struct {
	Pos     Pos
	Index   int
	Name    string // unquoted
	HasMeta bool   // the optional timestamp and size are present
	Mtime   int64
	Size    int64
}

// AliasDirective is ".alias alias, aliasee;".
type AliasDirective struct {
	Pos     Pos
	Alias   string
	Aliasee string
}

// Section is a DWARF ".section name { ... }" block, as emitted with -G or
// -lineinfo. Its items are labels and data directives.
type Section struct {
	Pos   Pos
	Name  string // ".debug_info"
	Items []SectionItem
}

// SectionItem is a *Label or a *DataDirective.
type SectionItem interface {
	Node
	sectionItem()
}

// DataDirective is ".b8 1, 2, 3" or ".b64 $L__func_begin0" inside a section.
type DataDirective struct {
	Pos    Pos
	Type   Type
	Values []Expr
}

// Pragma is `.pragma "text";`, at module level or in a body.
type Pragma struct {
	Pos  Pos
	Text string // unquoted
}

// Loc is ".loc file line col[, function_name label[+off], inlined_at f l c]".
type Loc struct {
	Pos       Pos
	File      int
	Line, Col int
	// Extra is the raw tail of the directive after the column, such as
	// "function_name $L__info_string0, inlined_at 1 2 3", normalised to
	// single spaces. It is empty for a plain .loc.
	Extra string
}

// Function is an .entry or .func, with or without a body.
type Function struct {
	Pos      Pos    // of the linkage or .entry/.func keyword
	Linkage  string // "", "visible", "extern", "weak" or "common"
	Entry    bool   // .entry (a kernel) rather than .func
	Returns  []*VarDecl
	NamePos  Pos
	Name     string
	Params   []*VarDecl
	HasParen bool // the parameter list was written, even if empty
	// Directives are the performance and attribute directives between
	// the parameters and the body: .maxntid, .reqntid, .minnctapersm,
	// .maxnreg, .explicitcluster, .reqnctapercluster, .noreturn ...
	Directives []*PerfDirective
	Body       *Block // nil for a declaration
}

// PerfDirective is a function directive such as ".maxntid 128, 1, 1".
type PerfDirective struct {
	Pos    Pos
	Name   string // without the dot: "maxntid"
	Values []int64
}

// Directive returns the function's directive called name, or nil.
func (f *Function) Directive(name string) *PerfDirective {
	for _, d := range f.Directives {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// VarDecl declares variables, registers or parameters:
//
//	.reg .b32 %r<12>;
//	.shared .align 16 .b8 smem[4096];
//	.extern .shared .align 1024 .b8 dsmem[];
//	.global .align 4 .u32 table[3] = {1, 2, 3};
//	.param .u64 .ptr .global .align 16 p
type VarDecl struct {
	Pos     Pos
	Linkage string // "", "visible", "extern", "weak", "common"
	Space   Space
	Align   int  // .align N, 0 if absent
	Vec     int  // .v2/.v4/.v8, 0 if scalar
	Type    Type // element type
	// Attrs are the names inside ".attribute(...)", e.g. "managed".
	Attrs []string
	// Ptr holds the .ptr attributes of a kernel parameter, or nil.
	Ptr  *PtrAttr
	Vars []*Declarator
}

// PtrAttr is ".ptr [.space] [.align N]" on a kernel parameter.
type PtrAttr struct {
	Space Space // SpaceNone for generic
	Align int
}

// Declarator is one name in a VarDecl.
type Declarator struct {
	Pos  Pos
	Name string
	// Range marks a parameterised register name "%r<Count>", which
	// declares %r0 ... %r(Count-1).
	Range bool
	Count int
	Dims  []int // array dimensions; -1 for an unsized "[]"
	Init  Expr  // initializer, or nil
}

// Block is "{ stmts }": a function body or a nested scope.
type Block struct {
	Pos   Pos
	Stmts []Stmt
	End   Pos // of the closing brace
}

// Label is "name:".
type Label struct {
	Pos  Pos
	Name string
}

// CallPrototype is "name: .callprototype (.param .b32 _) _ (.param .b64 _);".
type CallPrototype struct {
	Pos     Pos
	Name    string
	Returns []*VarDecl
	Params  []*VarDecl
}

// BranchTargets is "name: .branchtargets L1, L2;" (or .calltargets).
type BranchTargets struct {
	Pos     Pos
	Name    string
	Calls   bool // .calltargets rather than .branchtargets
	Targets []*Ident
}

// Mod is one instruction modifier, without its dot: "sync",
// "shared::cluster", "m64n128k16", "f32".
type Mod struct {
	Pos  Pos
	Name string
}

// Instruction is one PTX instruction.
type Instruction struct {
	Pos      Pos  // of the guard, or of the opcode if there is none
	Guard    *Reg // @%p or @!%p (Not set), or nil
	OpPos    Pos  // of the opcode
	Opcode   string
	Mods     []Mod
	Operands []Expr

	// Decoded from Mods by the parser:
	Types []Type // the type modifiers in order (.f32.bf16.bf16)
	Shape Shape  // an .mXnYkZ modifier, or zero
}

// Has reports whether the instruction has modifier name.
func (in *Instruction) Has(name string) bool {
	for _, m := range in.Mods {
		if m.Name == name {
			return true
		}
	}
	return false
}

// ModPrefix returns the first modifier that starts with prefix (for
// example "cta_group::" gives "cta_group::2"), or "".
func (in *Instruction) ModPrefix(prefix string) string {
	for _, m := range in.Mods {
		if strings.HasPrefix(m.Name, prefix) {
			return m.Name
		}
	}
	return ""
}

// Vec returns the vector width of a .v2/.v4/.v8 modifier, or 0.
func (in *Instruction) Vec() int {
	for _, m := range in.Mods {
		if v := vecWidth(m.Name); v > 0 {
			return v
		}
	}
	return 0
}

// Spaces returns the state-space modifiers in order (ld.shared: [shared];
// cp.async.bulk.shared::cluster.global: [shared::cluster global]).
func (in *Instruction) Spaces() []Space {
	var out []Space
	for _, m := range in.Mods {
		if s := LookupSpace(m.Name); s != SpaceNone && s != SpaceReg && s != SpaceSReg && s != SpaceTex {
			out = append(out, s)
		}
	}
	return out
}

// Space returns the first state-space modifier, or SpaceNone (generic).
func (in *Instruction) Space() Space {
	if s := in.Spaces(); len(s) > 0 {
		return s[0]
	}
	return SpaceNone
}

// Name returns the full dotted instruction name, as written
// ("ld.global.v4.f32").
func (in *Instruction) Name() string {
	var b strings.Builder
	b.WriteString(in.Opcode)
	for _, m := range in.Mods {
		b.WriteByte('.')
		b.WriteString(m.Name)
	}
	return b.String()
}

// Reg is a register operand: "%r1", "p", a special register "%tid.x"
// (Name "%tid", Comp "x"), or a predicate "!%p" (Not set).
type Reg struct {
	Pos  Pos
	Name string
	Comp string // vector component: x, y, z, w (r, g, b, a)
	Not  bool
}

// Imm is an integer or floating-point immediate with its exact bits.
type Imm struct {
	Pos  Pos
	Kind ImmKind
	// Bits holds the value: a two's-complement int64 or a uint64 for
	// integers, the IEEE-754 bits for floats.
	Bits uint64
	// Unsigned marks an integer written with a U suffix or too large for
	// an int64.
	Unsigned bool
	// Hex records that an integer was written in hexadecimal, so that the
	// printer keeps masks readable.
	Hex bool
}

// ImmKind says how to read an Imm's bits.
type ImmKind uint8

// The immediate kinds.
const (
	ImmInt ImmKind = iota // an integer
	ImmF32                // 0fXXXXXXXX: the 32 IEEE bits
	ImmF64                // 0dXXXXXXXXXXXXXXXX or a decimal float: the 64 IEEE bits
)

// Int returns an integer immediate's value as an int64.
func (i *Imm) Int() int64 { return int64(i.Bits) }

// Ident is a symbol operand: a variable, parameter, function or label,
// with an optional byte offset ("smem+16"). A bare name that the parser
// knows to be a register is a *Reg instead.
type Ident struct {
	Pos     Pos
	Name    string
	Offset  int64
	Generic bool // written generic(name) in an initializer
}

// Address is a memory operand "[base+offset]". Base is a *Reg, an *Ident
// or nil (an absolute address). A tensor operand "[tmap, {c0, c1}]" has
// Coords.
type Address struct {
	Pos    Pos
	Base   Expr
	Offset int64
	Coords *Vector
}

// Vector is "{a, b, c, d}".
type Vector struct {
	Pos   Pos
	Elems []Expr
}

// Sink is the "_" operand.
type Sink struct {
	Pos Pos
}

// Pair is a dual destination "p|q" (setp, shfl, elect, lop3).
type Pair struct {
	Pos  Pos
	X, Y Expr
}

// List is a parenthesised operand list of a call: "(retval0)",
// "(param0, param1)".
type List struct {
	Pos   Pos
	Elems []Expr
}

// BinaryExpr is a constant expression "X op Y" that involves a symbol
// (expressions of literals are folded into an *Imm by the parser).
type BinaryExpr struct {
	Pos  Pos
	Op   Token
	X, Y Expr
}

// UnaryExpr is "op X" on a symbol.
type UnaryExpr struct {
	Pos Pos
	Op  Token
	X   Expr
}

// InitList is a brace initializer "{1, 2, 3}".
type InitList struct {
	Pos   Pos
	Elems []Expr
}

// Position returns where the node starts; see Node.
func (n *VersionDirective) Position() Pos     { return n.Pos }
func (n *TargetDirective) Position() Pos      { return n.Pos }
func (n *AddressSizeDirective) Position() Pos { return n.Pos }
func (n *FileDirective) Position() Pos        { return n.Pos }
func (n *AliasDirective) Position() Pos       { return n.Pos }
func (n *Section) Position() Pos              { return n.Pos }
func (n *DataDirective) Position() Pos        { return n.Pos }
func (n *Pragma) Position() Pos               { return n.Pos }
func (n *Loc) Position() Pos                  { return n.Pos }
func (n *Function) Position() Pos             { return n.Pos }
func (n *PerfDirective) Position() Pos        { return n.Pos }
func (n *VarDecl) Position() Pos              { return n.Pos }
func (n *Declarator) Position() Pos           { return n.Pos }
func (n *Block) Position() Pos                { return n.Pos }
func (n *Label) Position() Pos                { return n.Pos }
func (n *CallPrototype) Position() Pos        { return n.Pos }
func (n *BranchTargets) Position() Pos        { return n.Pos }
func (n *Instruction) Position() Pos          { return n.Pos }
func (n *Reg) Position() Pos                  { return n.Pos }
func (n *Imm) Position() Pos                  { return n.Pos }
func (n *Ident) Position() Pos                { return n.Pos }
func (n *Address) Position() Pos              { return n.Pos }
func (n *Vector) Position() Pos               { return n.Pos }
func (n *Sink) Position() Pos                 { return n.Pos }
func (n *Pair) Position() Pos                 { return n.Pos }
func (n *List) Position() Pos                 { return n.Pos }
func (n *BinaryExpr) Position() Pos           { return n.Pos }
func (n *UnaryExpr) Position() Pos            { return n.Pos }
func (n *InitList) Position() Pos             { return n.Pos }

func (*VersionDirective) declNode()     {}
func (*TargetDirective) declNode()      {}
func (*AddressSizeDirective) declNode() {}
func (*FileDirective) declNode()        {}
func (*AliasDirective) declNode()       {}
func (*Section) declNode()              {}
func (*Pragma) declNode()               {}
func (*Function) declNode()             {}
func (*VarDecl) declNode()              {}
func (*Loc) declNode()                  {}

func (*Pragma) stmtNode()        {}
func (*Loc) stmtNode()           {}
func (*VarDecl) stmtNode()       {}
func (*Block) stmtNode()         {}
func (*Label) stmtNode()         {}
func (*CallPrototype) stmtNode() {}
func (*BranchTargets) stmtNode() {}
func (*Instruction) stmtNode()   {}
func (*FileDirective) stmtNode() {}

func (*Label) sectionItem()         {}
func (*DataDirective) sectionItem() {}

func (*Reg) exprNode()        {}
func (*Imm) exprNode()        {}
func (*Ident) exprNode()      {}
func (*Address) exprNode()    {}
func (*Vector) exprNode()     {}
func (*Sink) exprNode()       {}
func (*Pair) exprNode()       {}
func (*List) exprNode()       {}
func (*BinaryExpr) exprNode() {}
func (*UnaryExpr) exprNode()  {}
func (*InitList) exprNode()   {}
