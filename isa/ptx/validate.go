package ptx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Validate checks a parsed module against the PTX rules tcsim knows: the
// module header, declarations, every instruction against the catalog
// (modifiers, operand count and kinds, register types, state spaces) and
// the combination rules of each family (wgmma shapes and types, tcgen05
// shapes, mbarrier address spaces ...). It returns every problem found, in
// file order.
func Validate(m *Module) ErrorList {
	c := &checker{m: m, file: m.Filename, globals: map[string]*symbol{}, files: map[int]bool{}, badLocMore: map[int]int{}}
	c.run()
	c.finishLocs()
	c.errs.RemoveMultiples()
	return c.errs
}

// Check parses and validates src and returns the module with all syntax
// and validation errors, sorted by position.
func Check(filename string, src []byte) (*Module, ErrorList) {
	m, err := ParseFile(filename, src)
	var errs ErrorList
	if el, ok := err.(ErrorList); ok {
		errs = append(errs, el...)
	}
	if len(m.Decls) == 0 && len(errs) > 0 {
		return m, errs // not text, or nothing parsed: validation adds nothing
	}
	for _, e := range Validate(m) {
		// A statement cut by the end of a truncated file is not judged.
		if m.Truncated && len(errs) > 0 && e.Pos.Line >= errs[len(errs)-1].Pos.Line {
			continue
		}
		errs = append(errs, e)
	}
	errs.RemoveMultiples()
	return m, errs
}

type symKind uint8

const (
	symVar symKind = iota
	symParam
	symReg
	symFunc
	symLabel
	symProto
	symTargets
)

var symKindNames = [...]string{"variable", "parameter", "register", "function", "label", "call prototype", "target list"}

type symbol struct {
	kind  symKind
	space Space
	typ   Type
	vec   int
	pos   Pos
	fn    *Function
	decl  *VarDecl
}

type rangeSym struct {
	count int
	sym   *symbol // shared by every register of the range
}

type vscope struct {
	names  map[string]*symbol
	ranges map[string]rangeSym
}

// archInfo is the decoded .target.
type archInfo struct {
	name   string // "sm_90a"
	sm     int    // 90
	suffix byte   // 'a', 'f' or 0
}

type checker struct {
	m        *Module
	file     string
	errs     ErrorList
	arch     archInfo
	version  int // 10*major + minor, 0 if unknown
	addrSize int
	globals  map[string]*symbol
	files    map[int]bool

	fn       *Function
	scopes   []vscope
	reported map[string]bool

	staticShared int64           // static .shared bytes of the current function
	sharedSeen   map[string]bool // the .shared variables counted in it

	badLoc     map[int]*Error // the first .loc of each undeclared file index
	badLocMore map[int]int    // how many more .loc lines use it
	ctaGroup   *Instruction   // the first tcgen05 instruction with a .cta_group in this function
}

func (c *checker) errorf(pos Pos, hint, format string, args ...any) {
	c.errs.Add(Position{c.file, pos}, fmt.Sprintf(format, args...), hint)
}

// warnf reports code that ptxas accepts but that misbehaves at run time.
func (c *checker) warnf(pos Pos, hint, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: Position{c.file, pos}, Msg: Clip(fmt.Sprintf(format, args...)), Hint: Clip(hint), Warning: true})
}

func (c *checker) run() {
	c.checkHeader()
	c.addrSize = c.m.AddressSize()
	// Module symbols and .file indices first: nvcc puts .file after the
	// functions that refer to it, and functions may call functions that
	// are defined later.
	for _, d := range c.m.Decls {
		switch d := d.(type) {
		case *FileDirective:
			c.files[d.Index] = true
		case *VarDecl:
			c.checkVarDecl(d, true)
			for _, v := range d.Vars {
				if old, ok := c.globals[v.Name]; ok && !(old.decl != nil && old.decl.Linkage == "extern") && d.Linkage != "extern" {
					c.errorf(v.Pos, "", "%s redeclared (first declared at %s)", v.Name, old.pos)
					continue
				}
				c.globals[v.Name] = &symbol{kind: symVar, space: d.Space, typ: d.Type, vec: d.Vec, pos: v.Pos, decl: d}
			}
		case *Function:
			if old, ok := c.globals[d.Name]; ok {
				if old.kind != symFunc {
					c.errorf(d.NamePos, "", "%s redeclared as a function (first declared at %s)", d.Name, old.pos)
					continue
				}
				if old.fn.Body != nil && d.Body != nil {
					c.errorf(d.NamePos, "", "function %s defined twice (first at %s)", d.Name, old.pos)
					continue
				}
				if d.Body == nil {
					continue
				}
			}
			c.globals[d.Name] = &symbol{kind: symFunc, pos: d.NamePos, fn: d}
		case *AliasDirective:
			c.globals[d.Alias] = &symbol{kind: symFunc, pos: d.Pos}
		}
	}
	for _, d := range c.m.Decls {
		switch d := d.(type) {
		case *Function:
			c.checkFunction(d)
		case *Loc:
			c.checkLoc(d)
		case *Section:
			c.checkSection(d)
		}
	}
}

// ---- declarations ----

func (c *checker) checkVarDecl(d *VarDecl, module bool) {
	for _, a := range []int{d.Align, ptrAlign(d)} {
		if a != 0 && a&(a-1) != 0 {
			c.errorf(d.Pos, "", ".align %d: the alignment must be a power of two", a)
		}
	}
	if d.Type == TypeNone {
		return // reported by the parser
	}
	if module && d.Space == SpaceReg {
		c.errorf(d.Pos, "declare registers inside a function body", ".reg declarations are not allowed at module scope")
	}
	if d.Space == SpaceReg && !d.Type.IsRegType() {
		c.errorf(d.Pos, "", "registers cannot have type .%s", d.Type)
	}
	if d.Type == Pred && d.Space != SpaceReg {
		c.errorf(d.Pos, "", ".pred variables must be in .reg")
	}
	if d.Vec > 0 && d.Vec*d.Type.Bits() > 128 {
		c.errorf(d.Pos, "", ".v%d .%s is wider than 128 bits", d.Vec, d.Type)
	}
	for _, v := range d.Vars {
		c.checkVarSize(d, v)
		if !module {
			c.noteShared(v.Name, d, v)
		}
		if v.Range && d.Space != SpaceReg {
			c.errorf(v.Pos, "", "%s<%d>: only registers can be declared as a range", v.Name, v.Count)
		}
		if v.Range && v.Count == 0 {
			c.errorf(v.Pos, "", "%s<0> declares no registers", v.Name)
		}
		for i, n := range v.Dims {
			if n == -1 && !(i == 0 && (d.Linkage == "extern" || v.Init != nil || d.Space == SpaceParam)) {
				c.errorf(v.Pos, "only .extern arrays (dynamic shared memory) may be unsized", "array %s has no size", v.Name)
			}
			if n == 0 {
				c.errorf(v.Pos, "", "array %s has size 0", v.Name)
			}
		}
		if v.Init != nil {
			switch {
			case d.Space == SpaceShared || d.Space == SpaceLocal || d.Space == SpaceReg || d.Space == SpaceParam:
				c.errorf(v.Pos, "only .global and .const variables may have initializers", "%s variable %s cannot be initialized", "."+d.Space.String(), v.Name)
			case d.Linkage == "extern":
				c.errorf(v.Pos, "", ".extern variable %s cannot be initialized", v.Name)
			default:
				c.checkInit(d, v)
			}
		}
	}
	if d.Ptr != nil && d.Type != U64 && d.Type != U32 && d.Type != B64 && d.Type != B32 && d.Type != S64 && d.Type != S32 {
		c.errorf(d.Pos, "", ".ptr parameters must have an integer type, not .%s", d.Type)
	}
}

func (c *checker) checkInit(d *VarDecl, v *Declarator) {
	count := 1
	for _, n := range v.Dims {
		if n > 0 {
			count *= n
		}
	}
	var flat []Expr
	var walk func(e Expr)
	walk = func(e Expr) {
		if l, ok := e.(*InitList); ok {
			for _, x := range l.Elems {
				walk(x)
			}
			return
		}
		flat = append(flat, e)
	}
	walk(v.Init)
	c.checkInitShape(v, v.Init, v.Dims, d.Vec)
	for _, e := range flat {
		switch e := e.(type) {
		case *Imm:
			if e.Kind != ImmInt && d.Type.Kind() != KindFloat && d.Type.Kind() != KindBit {
				c.errorf(e.Pos, "", "floating-point initializer for .%s %s", d.Type, v.Name)
			}
		case *Ident:
			if _, ok := c.globals[e.Name]; !ok {
				c.errorf(e.Pos, "", "initializer refers to undefined symbol %s", e.Name)
			}
		}
	}
}

func ptrAlign(d *VarDecl) int {
	if d.Ptr != nil {
		return d.Ptr.Align
	}
	return 0
}

// checkInitShape checks that an initializer nests like the declaration:
// one brace level per array dimension and one for a vector type.
func (c *checker) checkInitShape(v *Declarator, e Expr, dims []int, vec int) {
	l, isList := e.(*InitList)
	switch {
	case len(dims) > 0:
		if !isList {
			if len(dims) == 1 && vec == 0 && dims[0] != 0 {
				return // a scalar fills the first element
			}
			c.errorf(e.Position(), "", "array %s needs a {...} initializer", v.Name)
			return
		}
		if len(dims) == 1 && vec > 0 {
			for _, x := range l.Elems {
				if _, ok := x.(*InitList); !ok {
					c.errorf(x.Position(), fmt.Sprintf("write {{a, b, ...}, ...} with %d values per element", vec), "a .v%d array %s needs one {...} per vector element", vec, v.Name)
					return
				}
			}
		}
		if dims[0] > 0 && len(l.Elems) > dims[0] {
			c.errorf(l.Pos, "", "%s has %d elements but %d initializers", v.Name, dims[0], len(l.Elems))
			return
		}
		for _, x := range l.Elems {
			c.checkInitShape(v, x, dims[1:], vec)
		}
	case vec > 0:
		if !isList {
			c.errorf(e.Position(), "", "vector element of %s needs a {...} initializer of %d values", v.Name, vec)
			return
		}
		if len(l.Elems) > vec {
			c.errorf(l.Pos, "", "a .v%d element of %s has %d initializers", vec, v.Name, len(l.Elems))
		}
		for _, x := range l.Elems {
			c.checkInitShape(v, x, nil, 0)
		}
	case isList:
		c.errorf(l.Pos, "", "scalar %s initialized with a list", v.Name)
	}
}

// ---- functions ----

func (c *checker) checkFunction(f *Function) {
	if f.Entry && len(f.Returns) > 0 {
		c.errorf(f.Pos, "", "kernel %s cannot return values", f.Name)
	}
	for _, p := range append(append([]*VarDecl(nil), f.Returns...), f.Params...) {
		if f.Entry && p.Space != SpaceParam {
			c.errorf(p.Pos, "", "kernel parameters must be .param, not .%s", p.Space)
		}
		if p.Space != SpaceParam && p.Space != SpaceReg {
			c.errorf(p.Pos, "", "function parameters must be .param or .reg, not .%s", p.Space)
		}
		if p.Ptr != nil && !f.Entry {
			c.errorf(p.Pos, "", ".ptr is only allowed on kernel parameters")
		}
		c.checkVarDecl(p, false)
	}
	for _, d := range f.Directives {
		want := map[string][2]int{"maxntid": {1, 3}, "reqntid": {1, 3}, "minnctapersm": {1, 1}, "maxnctapersm": {1, 1},
			"maxnreg": {1, 1}, "explicitcluster": {0, 0}, "reqnctapercluster": {1, 3}, "maxclusterrank": {1, 1},
			"noreturn": {0, 0}, "blocksareclusters": {0, 0}, "abi_preserve": {1, 1}, "abi_preserve_control": {1, 1}}[d.Name]
		if len(d.Values) < want[0] || len(d.Values) > want[1] {
			if want[0] == want[1] {
				c.errorf(d.Pos, "", ".%s takes %d values, found %d", d.Name, want[0], len(d.Values))
			} else {
				c.errorf(d.Pos, "", ".%s takes %d to %d values, found %d", d.Name, want[0], want[1], len(d.Values))
			}
		}
		switch d.Name {
		case "maxntid", "reqntid", "minnctapersm", "reqnctapercluster", "maxclusterrank", "maxnctapersm", "explicitcluster", "blocksareclusters":
			if !f.Entry {
				c.errorf(d.Pos, "", ".%s applies only to .entry functions", d.Name)
			}
		case "noreturn":
			if f.Entry {
				c.errorf(d.Pos, "", ".noreturn applies only to .func functions")
			} else if len(f.Returns) > 0 {
				c.errorf(d.Pos, "", ".noreturn function %s cannot have return parameters", f.Name)
			}
		}
		for _, v := range d.Values {
			if v <= 0 && d.Name != "abi_preserve" && d.Name != "abi_preserve_control" {
				c.errorf(d.Pos, "", ".%s values must be positive", d.Name)
				break
			}
		}
		if d.Name == "maxnreg" && len(d.Values) == 1 && d.Values[0] > 255 {
			c.errorf(d.Pos, "", ".maxnreg %d exceeds 255", d.Values[0])
		}
	}
	if f.Body == nil {
		return
	}
	c.fn = f
	c.ctaGroup = nil
	c.reported = map[string]bool{}
	c.scopes = c.scopes[:0]
	c.pushScope()
	for _, p := range append(append([]*VarDecl(nil), f.Returns...), f.Params...) {
		c.declare(p)
	}
	c.checkBlock(f.Body)
	c.checkStaticShared(f)
	c.scopes = c.scopes[:0]
	c.fn = nil
}

func (c *checker) pushScope() { c.scopes = append(c.scopes, vscope{}) }
func (c *checker) popScope()  { c.scopes = c.scopes[:len(c.scopes)-1] }

func (c *checker) top() *vscope { return &c.scopes[len(c.scopes)-1] }

func (c *checker) add(name string, s *symbol) {
	sc := c.top()
	if sc.names == nil {
		sc.names = map[string]*symbol{}
	}
	if old, ok := sc.names[name]; ok && old.kind != symLabel {
		c.errorf(s.pos, "", "%s redeclared in this scope (first declared at %s)", name, old.pos)
		return
	}
	if old, ok := sc.names[name]; ok && old.kind == symLabel && s.kind == symLabel {
		c.errorf(s.pos, "", "label %s defined twice in this block (first at %s)", name, old.pos)
		return
	}
	sc.names[name] = s
}

// declare adds a declaration's names to the current scope.
func (c *checker) declare(d *VarDecl) {
	for _, v := range d.Vars {
		kind := symVar
		if d.Space == SpaceReg {
			kind = symReg
		} else if d.Space == SpaceParam {
			kind = symParam
		}
		if v.Range {
			sc := c.top()
			if sc.ranges == nil {
				sc.ranges = map[string]rangeSym{}
			}
			if _, dup := sc.ranges[v.Name]; dup {
				c.errorf(v.Pos, "", "%s<..> redeclared in this scope", v.Name)
			}
			sc.ranges[v.Name] = rangeSym{count: v.Count, sym: &symbol{kind: symReg, space: SpaceReg, typ: d.Type, vec: d.Vec, pos: v.Pos, decl: d}}
			continue
		}
		c.add(v.Name, &symbol{kind: kind, space: d.Space, typ: d.Type, vec: d.Vec, pos: v.Pos, decl: d})
	}
}

// lookup resolves a name through the block scopes and the module.
func (c *checker) lookup(name string) *symbol {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		sc := &c.scopes[i]
		if s, ok := sc.names[name]; ok {
			return s
		}
		if sc.ranges != nil {
			if prefix, n, ok := splitRegNumber(name); ok {
				if r, ok := sc.ranges[prefix]; ok && n < r.count {
					return r.sym
				}
			}
		}
	}
	return c.globals[name]
}

// rangeHint explains a near miss such as %r12 with only %r<12> declared.
func (c *checker) rangeHint(name string) string {
	prefix, n, ok := splitRegNumber(name)
	if !ok {
		return ""
	}
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if r, ok := c.scopes[i].ranges[prefix]; ok {
			return fmt.Sprintf("%s<%d> declares %s0 to %s%d; %s needs %s<%d>", prefix, r.count, prefix, prefix, r.count-1, name, prefix, n+1)
		}
	}
	return ""
}

func (c *checker) checkBlock(b *Block) {
	c.pushScope()
	// Labels, prototypes and target lists are visible in the whole block.
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *Label:
			c.add(st.Name, &symbol{kind: symLabel, pos: st.Pos})
		case *CallPrototype:
			c.add(st.Name, &symbol{kind: symProto, pos: st.Pos})
		case *BranchTargets:
			c.add(st.Name, &symbol{kind: symTargets, pos: st.Pos})
		}
	}
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *VarDecl:
			c.checkVarDecl(st, false)
			if st.Linkage != "" && st.Linkage != "extern" {
				c.errorf(st.Pos, "", ".%s is not allowed inside a function", st.Linkage)
			}
			if st.Linkage == "extern" && st.Space != SpaceShared {
				c.errorf(st.Pos, "", "only .extern .shared may be declared inside a function")
			}
			c.declare(st)
		case *Instruction:
			c.checkInstruction(st)
		case *Block:
			c.checkBlock(st)
		case *Loc:
			c.checkLoc(st)
		case *BranchTargets:
			for _, t := range st.Targets {
				if s := c.lookup(t.Name); (s == nil && !c.cutFunction()) || s != nil && s.kind != symLabel {
					c.errorf(t.Pos, "", "%s in %s is not a label", t.Name, st.Name)
				}
			}
		case *CallPrototype:
			for _, p := range append(append([]*VarDecl(nil), st.Returns...), st.Params...) {
				if p.Space != SpaceParam && p.Space != SpaceReg {
					c.errorf(p.Pos, "", "prototype parameters must be .param or .reg")
				}
			}
		}
	}
	c.popScope()
}

// ---- instructions ----

func (c *checker) checkInstruction(in *Instruction) {
	info := catalog[in.Opcode]
	if info == nil {
		hint := ""
		name, near := nearOpcodes(in)
		if len(near) > 0 {
			hint = "did you mean " + strings.Join(near, ", ") + "?"
		}
		c.errorf(in.OpPos, hint, "unknown instruction %s", name)
		c.checkOperandNames(in.Operands)
		return
	}
	if in.Guard != nil {
		c.checkPredReg(in.Guard, "guard")
	}
	c.checkArch(in, info)
	if info.Family == "tcgen05" {
		if g := in.ModPrefix("cta_group::"); g == "cta_group::1" || g == "cta_group::2" {
			if c.ctaGroup == nil {
				c.ctaGroup = in
			} else if first := c.ctaGroup.ModPrefix("cta_group::"); first != g {
				c.errorf(modPos(in, "cta_group::"), "all tcgen05 instructions of a kernel use one CTA group; split the code into two kernels", "function %s mixes .%s and .%s (first at %s)", c.fn.Name, first, g, c.ctaGroup.OpPos)
			}
		}
	}
	c.checkOperandNames(in.Operands)
	if info.Loose {
		return
	}
	type cand struct {
		f     *Form
		probs []problem
	}
	var best *cand
	var okArr [8]*Form
	modOK := okArr[:0]
	for _, f := range info.Forms {
		if f.fits(in) {
			modOK = append(modOK, f)
		}
	}
	if len(modOK) == 0 {
		for _, f := range info.Forms {
			_, probs := f.matchMods(in)
			if best == nil || len(probs) < len(best.probs) {
				best = &cand{f, probs}
			}
		}
		for _, p := range best.probs {
			hint := p.hint
			if hint == "" && len(info.Forms) <= 4 {
				hint = "syntax: " + formSyntax(info, best.f)
			}
			c.errorf(p.pos, hint, "%s: %s", in.Name(), p.msg)
		}
		return
	}
	var chosen *cand
	for _, f := range modOK {
		probs := c.checkOperands(in, f)
		if chosen == nil || hardCount(probs) < hardCount(chosen.probs) {
			chosen = &cand{f, probs}
		}
		if hardCount(probs) == 0 {
			break
		}
	}
	hard := 0
	for _, p := range chosen.probs {
		if p.warn {
			c.warnf(p.pos, p.hint, "%s: %s", in.Name(), p.msg)
			continue
		}
		hard++
		c.errorf(p.pos, p.hint, "%s: %s", in.Name(), p.msg)
	}
	if hard == 0 && info.rule != nil {
		info.rule(c, in)
	}
}

func hardCount(ps []problem) int {
	n := 0
	for _, p := range ps {
		if !p.warn {
			n++
		}
	}
	return n
}

func formSyntax(info *OpInfo, f *Form) string {
	s := info.Name + strings.ReplaceAll(f.Mods, "$", "")
	if f.Ops != "" {
		s += " " + f.Ops
	}
	return s
}

// nearOpcodes suggests catalog opcodes for an unknown instruction. Each
// opcode is compared with as many dot-separated words of the instruction
// as it has ("mbarrier.try_wiat.shared::cta.b64" is compared with
// "mbarrier.try_wait" as "mbarrier.try_wiat"). It returns the unknown name
// to report (the words of the best match, or the first word) and up to
// three suggestions: those matching the most words, nearest first.
func nearOpcodes(in *Instruction) (string, []string) {
	words := []string{in.Opcode}
	for _, m := range in.Mods {
		words = append(words, m.Name)
	}
	type scored struct {
		name string
		d, k int
	}
	var out []scored
	for name := range catalog {
		k := strings.Count(name, ".") + 1
		if k > len(words) {
			continue
		}
		typed := strings.Join(words[:k], ".")
		if len(typed)-len(name) > 2 || len(name)-len(typed) > 2 {
			continue // farther than 2 edits
		}
		if d := suggest.Distance(typed, name); d <= min(2, max(1, len(typed)/3)) {
			out = append(out, scored{name, d, k})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].k != out[j].k {
			return out[i].k > out[j].k
		}
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].name < out[j].name
	})
	if len(out) == 0 {
		return in.Opcode, nil
	}
	var names []string
	for i := 0; i < len(out) && i < 3 && out[i].k == out[0].k; i++ {
		names = append(names, out[i].name)
	}
	return strings.Join(words[:out[0].k], "."), names
}

// checkArch reports instructions that the module's .target lacks.
func (c *checker) checkArch(in *Instruction, info *OpInfo) {
	if c.arch.name == "" {
		return
	}
	ok := c.arch.sm >= info.MinSM
	if ok && info.ArchSpecific {
		ok = c.arch.suffix == 'a' || c.arch.suffix == 'f'
		if ok && len(info.Archs) > 0 {
			ok = false
			for _, a := range info.Archs {
				if c.arch.sm == a {
					ok = true
				}
			}
		}
		if ok && c.arch.suffix == 'f' && info.Family == "wgmma" {
			ok = false
		}
	}
	if c.version != 0 && info.MinPTX != 0 && c.version < info.MinPTX {
		c.errorf(in.OpPos, fmt.Sprintf("use .version %d.%d or later", info.MinPTX/10, info.MinPTX%10), "%s requires PTX ISA %d.%d; the module declares .version %d.%d", in.Opcode, info.MinPTX/10, info.MinPTX%10, c.version/10, c.version%10)
	}
	if ok {
		return
	}
	want := fmt.Sprintf("sm_%d or later", info.MinSM)
	if info.ArchSpecific {
		var names []string
		for _, a := range info.Archs {
			names = append(names, fmt.Sprintf("sm_%da", a))
		}
		want = strings.Join(names, ", ")
	}
	c.errorf(in.OpPos, "change .target", "%s requires %s; the module targets %s", in.Opcode, want, c.arch.name)
}

// checkOperandNames reports undeclared registers and symbols anywhere in
// the operands, once per name and function.
func (c *checker) checkOperandNames(ops []Expr) {
	for _, e := range ops {
		c.checkNames(e)
	}
}

func (c *checker) checkNames(e Expr) {
	switch e := e.(type) {
	case *Reg:
		c.regType(e)
	case *Ident:
		c.resolveIdent(e)
	case *Address:
		if e.Base != nil {
			c.checkNames(e.Base)
		}
		if e.Coords != nil {
			c.checkNames(e.Coords)
		}
	case *Vector:
		for _, x := range e.Elems {
			c.checkNames(x)
		}
	case *List:
		for _, x := range e.Elems {
			c.checkNames(x)
		}
	case *Pair:
		c.checkNames(e.X)
		c.checkNames(e.Y)
	case *BinaryExpr:
		c.checkNames(e.X)
		c.checkNames(e.Y)
	case *UnaryExpr:
		c.checkNames(e.X)
	}
}

func (c *checker) resolveIdent(id *Ident) *symbol {
	s := c.lookup(id.Name)
	if s == nil && !c.reported[id.Name] && !c.cutFunction() {
		c.reported[id.Name] = true
		c.errorf(id.Pos, "", "undefined symbol %s", id.Name)
	}
	if s != nil && s.kind == symVar && s.decl != nil {
		for _, v := range s.decl.Vars {
			if v.Name == id.Name {
				c.noteShared(id.Name, s.decl, v)
			}
		}
	}
	return s
}

// regType returns the type of a register operand (the component type for
// special and vector registers). It reports undeclared registers once.
func (c *checker) regType(r *Reg) (Type, bool) {
	if sr, ok := specialRegs[r.Name]; ok {
		switch {
		case sr.Comps != "" && r.Comp == "":
			c.errorf(r.Pos, "e.g. "+r.Name+".x", "special register %s needs a component (.%s)", r.Name, strings.Join(strings.Split(sr.Comps, ""), ", ."))
			return TypeNone, false
		case sr.Comps == "" && r.Comp != "" || r.Comp != "" && (len(r.Comp) != 1 || !strings.Contains(sr.Comps, r.Comp)):
			c.errorf(r.Pos, "", "special register %s has no component .%s", r.Name, r.Comp)
			return TypeNone, false
		}
		return sr.Type, true
	}
	s := c.lookup(r.Name)
	if s == nil {
		if !c.reported[r.Name] {
			c.reported[r.Name] = true
			hint := c.rangeHint(r.Name)
			if hint == "" && strings.HasPrefix(r.Name, "%") {
				hint = "declare it with .reg"
			}
			c.errorf(r.Pos, hint, "undeclared register %s", r.Name)
		}
		return TypeNone, false
	}
	if s.kind != symReg {
		// A %-named variable used as a value: its address.
		return TypeNone, false
	}
	if r.Comp != "" {
		n := min(s.vec, 4)
		if n == 0 || len(r.Comp) != 1 || !strings.Contains("xyzw"[:n]+"rgba"[:n], r.Comp) {
			c.errorf(r.Pos, "", "register %s has no component .%s", r.Name, r.Comp)
			return TypeNone, false
		}
	} else if s.vec > 0 {
		return TypeNone, false // a whole vector register
	}
	return s.typ, true
}

func (c *checker) checkPredReg(r *Reg, what string) {
	t, ok := c.regType(r)
	if ok && t != Pred {
		c.errorf(r.Pos, "", "%s %s is .%s, not .pred", what, r.Name, t)
	}
}
