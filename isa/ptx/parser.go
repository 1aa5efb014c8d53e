package ptx

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseFile parses a PTX module. It returns the module (as complete as the
// input allows) and an ErrorList with every syntax error, or nil.
func ParseFile(filename string, src []byte) (*Module, error) {
	p := newParser(filename, string(src))
	m := p.parseModule()
	return m, p.errs.Err()
}

// ParseString is ParseFile for a string.
func ParseString(filename, src string) (*Module, error) {
	p := newParser(filename, src)
	m := p.parseModule()
	return m, p.errs.Err()
}

// ParseInstruction parses a single instruction, such as
// "@%p1 ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];" (the semicolon
// is optional). Operands named with a leading % are registers; other
// names are symbols (*Ident).
func ParseInstruction(src string) (*Instruction, error) {
	p := newParser("", src)
	p.semiOptional = true
	st := p.parseStmt()
	if p.tok == SEMI {
		p.next()
	}
	if p.tok != EOF {
		p.errorf(p.pos, "unexpected %s after the instruction", p.desc())
	}
	in, ok := st.(*Instruction)
	if !ok && len(p.errs) == 0 {
		p.errorf(Pos{1, 1}, "not an instruction")
	}
	return in, p.errs.Err()
}

// slab hands out nodes from chunks, so that a large module needs few
// allocations. Nodes stay independent values; only their storage is
// shared.
type slab[T any] struct{ buf []T }

func (s *slab[T]) alloc() *T {
	if len(s.buf) == 0 {
		s.buf = make([]T, 256)
	}
	x := &s.buf[0]
	s.buf = s.buf[1:]
	return x
}

func (p *parser) newReg(r Reg) *Reg {
	x := p.regs.alloc()
	*x = r
	return x
}

func (p *parser) newImm(i Imm) *Imm {
	x := p.imms.alloc()
	*x = i
	return x
}

func (p *parser) newInstruction() *Instruction { return p.insts.alloc() }
func (p *parser) newAddress() *Address         { return p.addrs.alloc() }

type scope struct {
	regs   map[string]bool
	ranges map[string]int
}

type parser struct {
	sc   Scanner
	file string
	errs ErrorList

	pos Pos
	tok Token
	lit string

	prevLine int32 // line of the previous token

	peeked bool
	ppos   Pos
	ptok   Token
	plit   string

	regs  slab[Reg]
	imms  slab[Imm]
	insts slab[Instruction]
	addrs slab[Address]

	scopes       []scope
	bareRegs     bool // treat every bare identifier operand as a register
	inCall       bool // parsing call operands: '(' starts a list
	depth        int  // nesting of blocks and expressions, to bound recursion
	inSection    bool // section data may name other sections (.b32 .debug_abbrev)
	semiOptional bool // ParseInstruction: the final ';' may be left out
}

const maxDepth = 200

func newParser(filename, src string) *parser {
	p := &parser{file: filename}
	p.sc.InitString(src, func(pos Pos, msg string) {
		p.errs.Add(Position{filename, pos}, msg, "")
	}, 0)
	p.next()
	return p
}

func (p *parser) next() {
	p.prevLine = p.pos.Line
	if p.peeked {
		p.pos, p.tok, p.lit = p.ppos, p.ptok, p.plit
		p.peeked = false
		return
	}
	p.pos, p.tok, p.lit = p.sc.Scan()
}

func (p *parser) peek() (Pos, Token, string) {
	if !p.peeked {
		p.ppos, p.ptok, p.plit = p.sc.Scan()
		p.peeked = true
	}
	return p.ppos, p.ptok, p.plit
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.errs.Add(Position{p.file, pos}, fmt.Sprintf(format, args...), "")
}

func (p *parser) errorHint(pos Pos, hint, format string, args ...any) {
	p.errs.Add(Position{p.file, pos}, fmt.Sprintf(format, args...), hint)
}

// desc describes the current token for error messages.
func (p *parser) desc() string {
	switch p.tok {
	case IDENT, DIRECTIVE, INT, FLOAT:
		return strconv.Quote(p.lit)
	case STRING:
		return "string " + p.lit
	case ILLEGAL:
		return strconv.Quote(p.lit)
	}
	return p.tok.String()
}

func (p *parser) expect(t Token, what string) Pos {
	pos := p.pos
	if p.tok != t {
		p.errorf(p.pos, "expected %s %s, found %s", t, what, p.desc())
		return pos
	}
	p.next()
	return pos
}

// expectSemi consumes the ';' that ends a statement. A missing ';' before
// a token on a later line is reported without skipping that line.
func (p *parser) expectSemi(what string) bool {
	if p.tok == SEMI {
		p.next()
		return true
	}
	if p.tok == EOF && p.semiOptional {
		return true
	}
	if p.pos.Line > p.prevLine && p.prevLine > 0 {
		p.errorHint(Pos{p.prevLine, 0}.fix(p), "PTX statements end with ';'", "missing ';' after %s", what)
		return true
	}
	p.errorf(p.pos, "expected ';' after %s, found %s", what, p.desc())
	p.skipStmt()
	return false
}

// expectSemiAfter is expectSemi for an instruction; the instruction's
// name is only built for an error message.
func (p *parser) expectSemiAfter(in *Instruction) bool {
	if p.tok == SEMI {
		p.next()
		return true
	}
	return p.expectSemi(in.Name())
}

// fix turns a line-only position into one at column 1 of that line.
func (pos Pos) fix(*parser) Pos {
	if pos.Col == 0 {
		pos.Col = 1
	}
	return pos
}

// skipStmt skips to the end of the current statement: past the next ';',
// or up to a '}' that starts a line (the end of the enclosing block).
func (p *parser) skipStmt() {
	depth := 0
	for p.tok != EOF {
		switch p.tok {
		case SEMI:
			if depth <= 0 {
				p.next()
				return
			}
		case LBRACE:
			depth++
		case RBRACE:
			if depth == 0 && p.pos.Line > p.prevLine {
				return
			}
			if depth > 0 {
				depth--
			}
		}
		p.next()
	}
}

// ---- module level ----

var linkages = map[string]bool{".visible": true, ".extern": true, ".weak": true, ".common": true}

func (p *parser) parseModule() *Module {
	m := &Module{Filename: p.file}
	for p.tok != EOF {
		if d := p.parseDecl(); d != nil {
			m.Decls = append(m.Decls, d)
		}
	}
	return m
}

func (p *parser) parseDecl() Decl {
	pos := p.pos
	switch p.tok {
	case SEMI:
		p.next()
		return nil
	case DIRECTIVE:
	default:
		p.errorf(pos, "expected a directive at module level, found %s", p.desc())
		p.skipStmt()
		if p.tok == RBRACE {
			p.next()
		}
		return nil
	}
	switch p.lit {
	case ".version":
		p.next()
		d := &VersionDirective{Pos: pos}
		if p.tok == FLOAT || p.tok == INT {
			maj, min, ok := strings.Cut(p.lit, ".")
			a, e1 := strconv.Atoi(maj)
			b, e2 := strconv.Atoi(min)
			if !ok || e1 != nil || e2 != nil || a > 99 || b > 99 {
				p.errorf(p.pos, "malformed .version %s: want major.minor, e.g. 8.7", p.lit)
			}
			d.Major, d.Minor = a, b
			p.next()
		} else {
			p.errorf(p.pos, "expected a version number after .version, found %s", p.desc())
		}
		p.optSemi()
		return d
	case ".target":
		p.next()
		d := &TargetDirective{Pos: pos}
		for {
			if p.tok != IDENT {
				p.errorf(p.pos, "expected a target name such as sm_90a, found %s", p.desc())
				break
			}
			d.Targets = append(d.Targets, p.lit)
			p.next()
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.optSemi()
		return d
	case ".address_size":
		p.next()
		d := &AddressSizeDirective{Pos: pos}
		if p.tok == INT {
			d.Size, _ = strconv.Atoi(p.lit)
			p.next()
		} else {
			p.errorf(p.pos, "expected 32 or 64 after .address_size, found %s", p.desc())
		}
		p.optSemi()
		return d
	case ".file":
		return p.parseFile()
	case ".loc":
		return p.parseLoc()
	case ".pragma":
		return p.parsePragma()
	case ".section":
		return p.parseSection()
	case ".alias":
		p.next()
		d := &AliasDirective{Pos: pos}
		d.Alias = p.identLit("alias name")
		p.expect(COMMA, "in .alias")
		d.Aliasee = p.identLit("aliased function")
		p.expectSemi(".alias")
		return d
	}
	// Linkage, then a function or a variable.
	linkage := ""
	for p.tok == DIRECTIVE && linkages[p.lit] {
		if linkage != "" {
			p.errorf(p.pos, "more than one linkage directive (%s and %s)", "."+linkage, p.lit)
		}
		linkage = p.lit[1:]
		p.next()
	}
	if p.tok == DIRECTIVE && (p.lit == ".entry" || p.lit == ".func") {
		return p.parseFunction(pos, linkage)
	}
	if p.tok == DIRECTIVE && isSpaceDirective(p.lit) {
		d := p.parseVarDecl(pos, false)
		d.Linkage = linkage
		p.expectSemi("the declaration")
		return d
	}
	p.errorf(p.pos, "unexpected %s at module level", p.desc())
	p.skipStmt()
	return nil
}

// optSemi accepts an optional ';' after a header directive.
func (p *parser) optSemi() {
	if p.tok == SEMI {
		p.next()
	}
}

func (p *parser) identLit(what string) string {
	if p.tok != IDENT {
		p.errorf(p.pos, "expected %s, found %s", what, p.desc())
		return ""
	}
	s := p.lit
	p.next()
	return s
}

func (p *parser) intLit(what string) int64 {
	neg := false
	if p.tok == SUB {
		neg = true
		p.next()
	}
	if p.tok != INT {
		p.errorf(p.pos, "expected %s, found %s", what, p.desc())
		return 0
	}
	v, _, err := parseIntLit(p.lit)
	if err != nil {
		p.errorf(p.pos, "%s: %v", p.lit, err)
	}
	p.next()
	if neg {
		return -int64(v)
	}
	return int64(v)
}

func (p *parser) parseFile() *FileDirective {
	d := &FileDirective{Pos: p.pos}
	p.next()
	d.Index = int(p.intLit("a file index"))
	if p.tok == STRING {
		d.Name = unquote(p.lit)
		p.next()
	} else {
		p.errorf(p.pos, "expected a quoted file name, found %s", p.desc())
	}
	if p.tok == COMMA {
		p.next()
		d.HasMeta = true
		d.Mtime = p.intLit("a timestamp")
		p.expect(COMMA, "in .file")
		d.Size = p.intLit("a file size")
	}
	p.optSemi()
	return d
}

func (p *parser) parseLoc() *Loc {
	d := &Loc{Pos: p.pos}
	line := p.pos.Line
	p.next()
	d.File = int(p.intLit("a file index"))
	d.Line = int(p.intLit("a line number"))
	d.Col = int(p.intLit("a column number"))
	// The optional tail "function_name X, inlined_at f l c" runs to the end
	// of the line.
	var extra []string
	for p.tok != EOF && p.pos.Line == line && p.tok != SEMI {
		switch p.tok {
		case COMMA:
			if len(extra) > 0 {
				extra[len(extra)-1] += ","
			}
		case IDENT, INT, FLOAT:
			extra = append(extra, p.lit)
		case ADD:
			extra = append(extra, "+")
		default:
			p.errorf(p.pos, "unexpected %s in .loc", p.desc())
		}
		p.next()
	}
	d.Extra = strings.Join(extra, " ")
	d.Extra = strings.ReplaceAll(d.Extra, " + ", "+")
	p.optSemi()
	return d
}

func (p *parser) parsePragma() *Pragma {
	d := &Pragma{Pos: p.pos}
	p.next()
	if p.tok == STRING {
		d.Text = unquote(p.lit)
		p.next()
	} else {
		p.errorf(p.pos, "expected a quoted string after .pragma, found %s", p.desc())
	}
	p.expectSemi(".pragma")
	return d
}

func (p *parser) parseSection() *Section {
	d := &Section{Pos: p.pos}
	p.next()
	if p.tok == DIRECTIVE || p.tok == IDENT {
		d.Name = p.lit
		p.next()
	} else {
		p.errorf(p.pos, "expected a section name, found %s", p.desc())
	}
	if p.tok != LBRACE {
		p.errorf(p.pos, "expected '{' after .section %s, found %s", d.Name, p.desc())
		p.skipStmt()
		return d
	}
	p.next()
	p.inSection = true
	defer func() { p.inSection = false }()
	for p.tok != RBRACE && p.tok != EOF {
		pos := p.pos
		switch {
		case p.tok == IDENT:
			name := p.lit
			p.next()
			p.expect(COLON, "after a label")
			d.Items = append(d.Items, &Label{Pos: pos, Name: name})
		case p.tok == DIRECTIVE && LookupType(p.lit[1:]) != TypeNone:
			dd := &DataDirective{Pos: pos, Type: LookupType(p.lit[1:])}
			p.next()
			for {
				e := p.parseExpr()
				if e == nil {
					p.next()
					break
				}
				dd.Values = append(dd.Values, e)
				if p.tok != COMMA {
					break
				}
				p.next()
			}
			p.optSemi()
			d.Items = append(d.Items, dd)
		default:
			p.errorf(pos, "unexpected %s in .section", p.desc())
			p.next()
		}
	}
	p.expect(RBRACE, "to close .section")
	return d
}

func unquote(lit string) string {
	if s, err := strconv.Unquote(lit); err == nil {
		return s
	}
	return strings.Trim(lit, `"`)
}

var spaceDirectives = map[string]Space{
	".reg": SpaceReg, ".sreg": SpaceSReg, ".const": SpaceConst, ".global": SpaceGlobal,
	".local": SpaceLocal, ".param": SpaceParam, ".shared": SpaceShared, ".tex": SpaceTex,
}

func isSpaceDirective(s string) bool { _, ok := spaceDirectives[s]; return ok }

var perfDirectives = map[string]bool{
	"maxntid": true, "reqntid": true, "minnctapersm": true, "maxnctapersm": true,
	"maxnreg": true, "explicitcluster": true, "reqnctapercluster": true,
	"maxclusterrank": true, "noreturn": true, "blocksareclusters": true,
	"abi_preserve": true, "abi_preserve_control": true,
}

func (p *parser) parseFunction(pos Pos, linkage string) *Function {
	f := &Function{Pos: pos, Linkage: linkage, Entry: p.lit == ".entry"}
	p.next()
	if !f.Entry && p.tok == LPAREN {
		f.Returns = p.parseParamList()
	}
	f.NamePos = p.pos
	f.Name = p.identLit("a function name")
	if p.tok == LPAREN {
		f.HasParen = true
		f.Params = p.parseParamList()
	}
	for p.tok == DIRECTIVE && perfDirectives[p.lit[1:]] {
		d := &PerfDirective{Pos: p.pos, Name: p.lit[1:]}
		p.next()
		for p.tok == INT {
			v, _, err := parseIntLit(p.lit)
			if err != nil {
				p.errorf(p.pos, "%s: %v", p.lit, err)
			}
			d.Values = append(d.Values, int64(v))
			p.next()
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		f.Directives = append(f.Directives, d)
	}
	switch p.tok {
	case SEMI:
		p.next()
	case LBRACE:
		p.scopes = p.scopes[:0]
		p.pushScope()
		for _, r := range f.Returns {
			p.declareRegs(r)
		}
		for _, r := range f.Params {
			p.declareRegs(r)
		}
		f.Body = p.parseBlock()
		p.scopes = p.scopes[:0]
	default:
		p.errorf(p.pos, "expected '{' or ';' after the declaration of %s, found %s", f.Name, p.desc())
		p.skipToModuleLevel()
	}
	return f
}

func (p *parser) parseParamList() []*VarDecl {
	p.expect(LPAREN, "to open the parameter list")
	var ps []*VarDecl
	for p.tok != RPAREN && p.tok != EOF {
		if p.tok != DIRECTIVE || !isSpaceDirective(p.lit) {
			p.errorf(p.pos, "expected a parameter declaration (.param or .reg), found %s", p.desc())
			for p.tok != COMMA && p.tok != RPAREN && p.tok != EOF && p.tok != LBRACE && p.tok != SEMI {
				p.next()
			}
		} else {
			d := p.parseVarDecl(p.pos, true)
			ps = append(ps, d)
		}
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(RPAREN, "to close the parameter list")
	return ps
}

// parseVarDecl parses a declaration starting at its state-space directive.
func (p *parser) parseVarDecl(pos Pos, param bool) *VarDecl {
	d := &VarDecl{Pos: pos}
	d.Space = spaceDirectives[p.lit]
	p.next()
	for p.tok == DIRECTIVE {
		name := p.lit[1:]
		switch {
		case name == "align":
			p.next()
			n := p.intLit("an alignment")
			if n < 0 || n > 1<<30 {
				n = 0
			}
			if d.Ptr != nil {
				d.Ptr.Align = int(n)
			} else {
				d.Align = int(n)
			}
			continue
		case name == "attribute":
			p.next()
			p.expect(LPAREN, "after .attribute")
			for p.tok == DIRECTIVE {
				d.Attrs = append(d.Attrs, p.lit[1:])
				p.next()
				if p.tok == COMMA {
					p.next()
				}
			}
			p.expect(RPAREN, "to close .attribute")
			continue
		case name == "ptr":
			if !param {
				p.errorf(p.pos, ".ptr is only allowed on kernel parameters")
			}
			d.Ptr = &PtrAttr{}
		case vecWidth(name) > 0:
			d.Vec = vecWidth(name)
		case LookupType(name) != TypeNone:
			if d.Type != TypeNone {
				p.errorf(p.pos, "declaration has two types (.%s and %s)", d.Type, p.lit)
			}
			d.Type = LookupType(name)
		case d.Ptr != nil && LookupSpace(name) != SpaceNone:
			d.Ptr.Space = LookupSpace(name)
		default:
			p.errorf(p.pos, "unexpected %s in a declaration", p.lit)
		}
		p.next()
	}
	if d.Type == TypeNone {
		p.errorHint(p.pos, "e.g. .reg .b32 %r<4>;", "declaration without a type")
	}
	for {
		dv := p.parseDeclarator(param)
		if dv == nil {
			break
		}
		d.Vars = append(d.Vars, dv)
		if param || p.tok != COMMA {
			break
		}
		p.next()
	}
	return d
}

func (p *parser) parseDeclarator(param bool) *Declarator {
	if p.tok != IDENT {
		p.errorf(p.pos, "expected a name in the declaration, found %s", p.desc())
		if !param {
			p.skipStmtKeepSemi()
		}
		return nil
	}
	v := &Declarator{Pos: p.pos, Name: p.lit}
	p.next()
	if p.tok == LT {
		p.next()
		v.Range = true
		n := p.intLit("a register count")
		if n < 0 || n > 1<<24 {
			p.errorf(v.Pos, "register count %d out of range", n)
			n = 0
		}
		v.Count = int(n)
		p.expect(GT, "after the register count")
	}
	for p.tok == LBRACK {
		p.next()
		if p.tok == RBRACK {
			v.Dims = append(v.Dims, -1)
		} else {
			n := p.intLit("an array size")
			if n < 0 || n > 1<<40 {
				p.errorf(p.pos, "array size %d out of range", n)
				n = 0
			}
			v.Dims = append(v.Dims, int(n))
		}
		p.expect(RBRACK, "after the array size")
	}
	if p.tok == ASSIGN {
		p.next()
		v.Init = p.parseInit()
	}
	return v
}

// skipToModuleLevel skips a damaged function: up to the next module-level
// directive that starts a line, or past a '}' that starts a line.
func (p *parser) skipToModuleLevel() {
	for p.tok != EOF {
		newLine := p.pos.Line > p.prevLine
		if newLine && p.tok == DIRECTIVE {
			switch p.lit {
			case ".visible", ".extern", ".weak", ".entry", ".func", ".global", ".const", ".file", ".section", ".version", ".target":
				return
			}
		}
		if newLine && p.tok == RBRACE {
			p.next()
			return
		}
		p.next()
	}
}

// skipStmtKeepSemi skips to the next ';' without consuming it.
func (p *parser) skipStmtKeepSemi() {
	for p.tok != EOF && p.tok != SEMI && p.tok != RBRACE {
		p.next()
	}
}

func (p *parser) parseInit() Expr {
	if p.tok == LBRACE {
		pos := p.pos
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		l := &InitList{Pos: pos}
		if p.depth > maxDepth {
			p.errorf(pos, "initializer nested too deeply")
			p.skipStmtKeepSemi()
			return l
		}
		for p.tok != RBRACE && p.tok != EOF && p.tok != SEMI {
			e := p.parseInit()
			if e == nil {
				p.skipStmtKeepSemi()
				return l
			}
			l.Elems = append(l.Elems, e)
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RBRACE, "to close the initializer")
		return l
	}
	return p.parseExpr()
}

// ---- scopes ----

func (p *parser) pushScope() { p.scopes = append(p.scopes, scope{}) }
func (p *parser) popScope() {
	if len(p.scopes) > 0 {
		p.scopes = p.scopes[:len(p.scopes)-1]
	}
}

// declareRegs records the bare (non-%) register names a .reg declaration
// introduces, so that operands naming them parse as registers.
func (p *parser) declareRegs(d *VarDecl) {
	if d.Space != SpaceReg || len(p.scopes) == 0 {
		return
	}
	s := &p.scopes[len(p.scopes)-1]
	for _, v := range d.Vars {
		if strings.HasPrefix(v.Name, "%") {
			continue
		}
		if v.Range {
			if s.ranges == nil {
				s.ranges = map[string]int{}
			}
			s.ranges[v.Name] = v.Count
		} else {
			if s.regs == nil {
				s.regs = map[string]bool{}
			}
			s.regs[v.Name] = true
		}
	}
}

func (p *parser) isReg(name string) bool {
	if p.bareRegs || strings.HasPrefix(name, "%") {
		return true
	}
	for i := len(p.scopes) - 1; i >= 0; i-- {
		s := p.scopes[i]
		if s.regs[name] {
			return true
		}
		if s.ranges != nil {
			if prefix, n, ok := splitRegNumber(name); ok {
				if c, ok := s.ranges[prefix]; ok && n < c {
					return true
				}
			}
		}
	}
	return false
}

// splitRegNumber splits "%r12" into "%r" and 12.
func splitRegNumber(name string) (string, int, bool) {
	i := len(name)
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	if i == len(name) || i == 0 || len(name)-i > 9 {
		return "", 0, false
	}
	if name[i] == '0' && i < len(name)-1 {
		return "", 0, false // %r01 is not declared by %r<N>
	}
	n, _ := strconv.Atoi(name[i:])
	return name[:i], n, true
}

// ---- function bodies ----

func (p *parser) parseBlock() *Block {
	b := &Block{Pos: p.pos}
	p.expect(LBRACE, "to open the block")
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(b.Pos, "blocks nested too deeply")
		for p.tok != EOF {
			p.next()
		}
		return b
	}
	for p.tok != RBRACE && p.tok != EOF {
		if st := p.parseStmt(); st != nil {
			b.Stmts = append(b.Stmts, st)
		}
	}
	b.End = p.pos
	if p.tok == EOF {
		p.errorf(b.Pos, "block not closed: missing '}'")
	} else {
		p.next()
	}
	return b
}

func (p *parser) parseStmt() Stmt {
	pos := p.pos
	switch p.tok {
	case SEMI:
		p.next()
		return nil
	case LBRACE:
		p.pushScope()
		b := p.parseBlock()
		p.popScope()
		return b
	case AT:
		return p.parseInstruction()
	case IDENT:
		if _, t, _ := p.peek(); t == COLON {
			name := p.lit
			p.next()
			p.next()
			if p.tok == DIRECTIVE {
				switch p.lit {
				case ".callprototype":
					return p.parseCallPrototype(pos, name)
				case ".branchtargets", ".calltargets":
					return p.parseBranchTargets(pos, name)
				}
			}
			return &Label{Pos: pos, Name: name}
		}
		return p.parseInstruction()
	case DIRECTIVE:
		switch p.lit {
		case ".loc":
			return p.parseLoc()
		case ".pragma":
			return p.parsePragma()
		case ".file":
			return p.parseFile()
		}
		if isSpaceDirective(p.lit) {
			d := p.parseVarDecl(pos, false)
			p.declareRegs(d)
			p.expectSemi("the declaration")
			return d
		}
		if linkages[p.lit] {
			linkage := p.lit[1:]
			p.next()
			if p.tok == DIRECTIVE && isSpaceDirective(p.lit) {
				d := p.parseVarDecl(pos, false)
				d.Linkage = linkage
				p.expectSemi("the declaration")
				return d
			}
		}
		p.errorf(pos, "unexpected directive %s in a function body", p.lit)
		p.skipStmt()
		return nil
	}
	p.errorf(pos, "expected an instruction, label or declaration, found %s", p.desc())
	p.skipStmt()
	return nil
}

func (p *parser) parseCallPrototype(pos Pos, name string) Stmt {
	c := &CallPrototype{Pos: pos, Name: name}
	p.next()
	if p.tok == LPAREN {
		c.Returns = p.parseParamList()
	}
	if p.tok == IDENT && p.lit == "_" {
		p.next()
	} else {
		p.errorf(p.pos, "expected '_' in .callprototype, found %s", p.desc())
	}
	if p.tok == LPAREN {
		c.Params = p.parseParamList()
	}
	for p.tok == DIRECTIVE && p.lit == ".noreturn" {
		p.next()
	}
	p.expectSemi(".callprototype")
	return c
}

func (p *parser) parseBranchTargets(pos Pos, name string) Stmt {
	b := &BranchTargets{Pos: pos, Name: name, Calls: p.lit == ".calltargets"}
	p.next()
	for p.tok == IDENT {
		b.Targets = append(b.Targets, &Ident{Pos: p.pos, Name: p.lit})
		p.next()
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	if len(b.Targets) == 0 {
		p.errorf(p.pos, "expected a list of targets, found %s", p.desc())
	}
	p.expectSemi("the target list")
	return b
}

func (p *parser) parseInstruction() Stmt {
	nerr := len(p.errs)
	in := p.parseInstruction1()
	if in == nil || len(p.errs) > nerr {
		// A statement with a syntax error is dropped, so that the
		// validator does not report its fragments again.
		return nil
	}
	return in
}

func (p *parser) parseInstruction1() *Instruction {
	in := p.newInstruction()
	in.Pos = p.pos
	if p.tok == AT {
		gpos := p.pos
		p.next()
		not := false
		if p.tok == NOT {
			not = true
			p.next()
		}
		if p.tok != IDENT {
			p.errorf(p.pos, "expected a predicate register after '@', found %s", p.desc())
			p.skipStmt()
			return nil
		}
		in.Guard = p.newReg(Reg{Pos: gpos, Name: p.lit, Not: not})
		p.next()
	}
	if p.tok != IDENT {
		p.errorf(p.pos, "expected an opcode, found %s", p.desc())
		p.skipStmt()
		return nil
	}
	in.OpPos = p.pos
	if strings.HasPrefix(p.lit, "%") || strings.HasPrefix(p.lit, "$") {
		p.errorf(p.pos, "expected an opcode, found %q", p.lit)
		p.skipStmt()
		return nil
	}
	splitOpcode(in, p.lit, p.pos)
	opLine := p.pos.Line
	p.next()
	p.inCall = in.Opcode == "call"
	if p.tok != SEMI && p.tok != EOF && !(p.pos.Line > opLine && !p.inCall && startsStatement(p)) {
		in.Operands = make([]Expr, 0, 4)
		for {
			op := p.parseOperand()
			if op == nil {
				p.skipStmt()
				p.inCall = false
				return in
			}
			in.Operands = append(in.Operands, op)
			if p.tok != COMMA {
				break
			}
			p.next()
		}
	}
	p.inCall = false
	if !p.expectSemiAfter(in) {
		return nil
	}
	return in
}

// startsStatement guesses whether the current token (on a new line after
// an opcode without operands) begins the next statement, so that a missing
// ';' is reported without swallowing that statement.
func startsStatement(p *parser) bool {
	switch p.tok {
	case AT, RBRACE, DIRECTIVE:
		return true
	case IDENT:
		_, t, _ := p.peek()
		return t == COLON || t == IDENT && !strings.HasPrefix(p.lit, "%")
	}
	return false
}

// splitOpcode splits a dotted instruction word into the longest catalog
// opcode that prefixes it and the remaining modifiers.
func splitOpcode(in *Instruction, word string, pos Pos) {
	// Find the dot positions.
	cut := -1
	for i := 0; i <= len(word); i++ {
		if i == len(word) || word[i] == '.' {
			if _, ok := catalog[word[:i]]; ok {
				cut = i
			}
		}
	}
	if cut < 0 {
		cut = strings.IndexByte(word, '.')
		if cut < 0 {
			cut = len(word)
		}
	}
	in.Opcode = word[:cut]
	if cut == len(word) {
		return
	}
	rest := word[cut+1:]
	col := pos.Col + int32(cut) + 1
	n := strings.Count(rest, ".") + 1
	in.Mods = make([]Mod, 0, n)
	for {
		i := strings.IndexByte(rest, '.')
		seg := rest
		if i >= 0 {
			seg = rest[:i]
		}
		in.Mods = append(in.Mods, Mod{Pos: Pos{pos.Line, col}, Name: seg})
		if t := LookupType(seg); t != TypeNone {
			in.Types = append(in.Types, t)
		} else if s, ok := ParseShape(seg); ok && in.Shape.IsZero() {
			in.Shape = s
		}
		if i < 0 {
			break
		}
		col += int32(i) + 1
		rest = rest[i+1:]
	}
}

// ---- operands and expressions ----

func (p *parser) parseOperand() Expr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(p.pos, "operand nested too deeply")
		return nil
	}
	x := p.parseOperand1()
	if x != nil && p.tok == OR {
		pos := p.pos
		p.next()
		y := p.parseOperand1()
		if y == nil {
			return nil
		}
		_ = pos
		return &Pair{Pos: x.Position(), X: x, Y: y}
	}
	return x
}

func (p *parser) parseOperand1() Expr {
	pos := p.pos
	switch p.tok {
	case LBRACK:
		return p.parseAddress()
	case LBRACE:
		return p.parseVector()
	case LPAREN:
		if p.inCall {
			p.next()
			l := &List{Pos: pos}
			for p.tok != RPAREN && p.tok != EOF {
				e := p.parseOperand()
				if e == nil {
					return nil
				}
				l.Elems = append(l.Elems, e)
				if p.tok != COMMA {
					break
				}
				p.next()
			}
			if p.tok != RPAREN {
				p.errorf(p.pos, "expected ')' to close the call list, found %s", p.desc())
				return nil
			}
			p.next()
			return l
		}
	case NOT:
		if _, t, lit := p.peek(); t == IDENT && p.isReg(lit) {
			p.next()
			name := p.lit
			p.next()
			return p.newReg(Reg{Pos: pos, Name: name, Not: true})
		}
	case IDENT:
		if p.lit == "_" {
			p.next()
			return &Sink{Pos: pos}
		}
		if p.isReg(p.lit) {
			r := p.makeReg(pos, p.lit)
			p.next()
			return r
		}
	case INT, FLOAT, SUB, ADD, TILDE:
	default:
		p.errorf(pos, "expected an operand, found %s", p.desc())
		return nil
	}
	x := p.parseExpr()
	if x == nil {
		return nil
	}
	return x
}

// makeReg builds a register operand, splitting a component suffix off
// special and vector registers ("%tid.x").
func (p *parser) makeReg(pos Pos, lit string) *Reg {
	base, comp := splitComponent(lit)
	if comp != "" && strings.IndexByte(comp, '.') >= 0 {
		p.errorf(pos, "malformed register %q", lit)
	}
	return p.newReg(Reg{Pos: pos, Name: base, Comp: comp})
}

func (p *parser) parseVector() Expr {
	v := &Vector{Pos: p.pos}
	p.next()
	for p.tok != RBRACE && p.tok != EOF {
		var e Expr
		if p.tok == LBRACE || p.tok == LBRACK {
			p.errorf(p.pos, "unexpected %s inside a vector operand", p.desc())
			return nil
		}
		e = p.parseOperand()
		if e == nil {
			return nil
		}
		v.Elems = append(v.Elems, e)
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	if p.tok != RBRACE {
		p.errorf(p.pos, "expected ',' or '}' in the vector operand, found %s", p.desc())
		return nil
	}
	p.next()
	if len(v.Elems) == 0 {
		p.errorf(v.Pos, "empty vector operand")
	}
	return v
}

func (p *parser) parseAddress() Expr {
	a := p.newAddress()
	a.Pos = p.pos
	p.next()
	switch {
	case p.tok == IDENT && p.isReg(p.lit):
		a.Base = p.makeReg(p.pos, p.lit)
		p.next()
		if p.tok == ADD || p.tok == SUB {
			a.Offset = p.constOffset()
		}
	default:
		x := p.parseExpr()
		switch x := x.(type) {
		case nil:
			return nil
		case *Ident:
			a.Offset, x.Offset = x.Offset, 0
			a.Base = x
		case *Imm:
			if x.Kind != ImmInt {
				p.errorf(x.Pos, "an address offset must be an integer")
			}
			a.Offset = int64(x.Bits)
		default:
			p.errorHint(x.Position(), "use [reg+imm], [symbol+imm] or [imm]", "unsupported address expression")
		}
	}
	if p.tok == COMMA {
		p.next()
		if p.tok != LBRACE {
			p.errorf(p.pos, "expected a coordinate vector {c0, ...} after the tensor map, found %s", p.desc())
			return nil
		}
		v, ok := p.parseVector().(*Vector)
		if !ok {
			return nil
		}
		a.Coords = v
	}
	if p.tok != RBRACK {
		p.errorf(p.pos, "expected ']' to close the address, found %s", p.desc())
		return nil
	}
	p.next()
	return a
}

// constOffset parses "+imm" or "-imm" (also "+-imm") after a base register.
func (p *parser) constOffset() int64 {
	neg := p.tok == SUB
	p.next()
	x := p.parseUnary()
	imm, ok := x.(*Imm)
	if !ok || imm.Kind != ImmInt {
		if x != nil {
			p.errorHint(x.Position(), "PTX addresses are [reg+imm]", "address offset must be an integer constant")
		}
		return 0
	}
	if neg {
		return -int64(imm.Bits)
	}
	return int64(imm.Bits)
}

// Binary operator precedence, as in C.
func precedence(t Token) int {
	switch t {
	case LOR:
		return 1
	case LAND:
		return 2
	case OR:
		return 3
	case XOR:
		return 4
	case AND:
		return 5
	case EQL, NEQ:
		return 6
	case LT, GT, LEQ, GEQ:
		return 7
	case SHL, SHR:
		return 8
	case ADD, SUB:
		return 9
	case MUL, QUO, REM:
		return 10
	}
	return 0
}

// parseExpr parses a constant expression. Literal-only expressions are
// folded into an *Imm; "symbol ± int" becomes an *Ident with an Offset.
func (p *parser) parseExpr() Expr { return p.parseBinary(1) }

func (p *parser) parseBinary(prec int) Expr {
	x := p.parseUnary()
	for x != nil {
		op := p.tok
		oprec := precedence(op)
		// '|' separates a predicate pair and '<' opens a register range;
		// neither is an operator at operand level when a register is on
		// the left.
		if oprec < prec {
			return x
		}
		switch x.(type) {
		case *Reg, *Sink:
			// Registers take no part in constant expressions; a '|'
			// after one separates a predicate pair.
			return x
		}
		if op == OR {
			if _, isImm := x.(*Imm); !isImm {
				return x
			}
		}
		pos := p.pos
		p.next()
		y := p.parseBinary(oprec + 1)
		if y == nil {
			return nil
		}
		x = p.combine(pos, op, x, y)
	}
	return x
}

func (p *parser) parseUnary() Expr {
	pos := p.pos
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(pos, "expression nested too deeply")
		return nil
	}
	switch p.tok {
	case SUB, ADD, TILDE, NOT:
		op := p.tok
		p.next()
		x := p.parseUnary()
		if x == nil {
			return nil
		}
		return p.unary(pos, op, x)
	case LPAREN:
		p.next()
		x := p.parseExpr()
		if x == nil {
			return nil
		}
		if p.tok != RPAREN {
			p.errorf(p.pos, "expected ')', found %s", p.desc())
			return nil
		}
		p.next()
		return x
	case INT:
		v, unsigned, err := parseIntLit(p.lit)
		if err == errOverflow {
			p.errorf(pos, "%s: %v", p.lit, err)
		}
		hex := len(p.lit) > 1 && (p.lit[1] == 'x' || p.lit[1] == 'X')
		p.next()
		return p.newImm(Imm{Pos: pos, Kind: ImmInt, Bits: v, Unsigned: unsigned, Hex: hex})
	case FLOAT:
		imm := p.newImm(Imm{Pos: pos})
		kind, bits, err := parseFloatLit(p.lit)
		if err == errFloatRange {
			p.errorf(pos, "%s: %v", p.lit, err)
		}
		imm.Kind, imm.Bits = kind, bits
		p.next()
		return imm
	case DIRECTIVE:
		if p.inSection {
			id := &Ident{Pos: pos, Name: p.lit}
			p.next()
			return id
		}
	case IDENT:
		name := p.lit
		p.next()
		if name == "_" {
			return &Sink{Pos: pos}
		}
		if name == "generic" && p.tok == LPAREN {
			p.next()
			id := &Ident{Pos: pos, Generic: true}
			id.Name = p.identLit("a variable name in generic()")
			if p.tok != RPAREN {
				p.errorf(p.pos, "expected ')' after generic(%s, found %s", id.Name, p.desc())
				return nil
			}
			p.next()
			return id
		}
		if p.isReg(name) {
			return p.makeReg(pos, name)
		}
		return &Ident{Pos: pos, Name: name}
	}
	p.errorf(pos, "expected an operand or constant, found %s", p.desc())
	return nil
}

func (p *parser) unary(pos Pos, op Token, x Expr) Expr {
	if imm, ok := x.(*Imm); ok {
		r := *imm
		r.Pos = pos
		switch {
		case op == ADD:
			return &r
		case op == SUB && r.Kind == ImmF32:
			r.Bits ^= 1 << 31
			return &r
		case op == SUB && r.Kind == ImmF64:
			r.Bits ^= 1 << 63
			return &r
		case r.Kind != ImmInt:
			p.errorf(pos, "operator %s is not defined on floating-point constants", op)
			return &r
		case op == SUB:
			r.Bits = -r.Bits
		case op == TILDE:
			r.Bits = ^r.Bits
		case op == NOT:
			r.Bits = b2u(r.Bits == 0)
			r.Hex = false
		}
		return &r
	}
	if op == ADD {
		return x
	}
	if op == NOT {
		if r, ok := x.(*Reg); ok && !r.Not {
			r.Not = true
			r.Pos = pos
			return r
		}
	}
	return &UnaryExpr{Pos: pos, Op: op, X: x}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (p *parser) combine(pos Pos, op Token, x, y Expr) Expr {
	xi, xok := x.(*Imm)
	yi, yok := y.(*Imm)
	if xok && yok {
		if xi.Kind != ImmInt || yi.Kind != ImmInt {
			p.errorf(pos, "operator %s is not supported on floating-point constants", op)
			return xi
		}
		r := &Imm{Pos: xi.Pos, Kind: ImmInt, Unsigned: xi.Unsigned || yi.Unsigned, Hex: xi.Hex && yi.Hex}
		a, b := xi.Bits, yi.Bits
		sa, sb := int64(a), int64(b)
		switch op {
		case ADD:
			r.Bits = a + b
		case SUB:
			r.Bits = a - b
		case MUL:
			r.Bits = a * b
		case QUO, REM:
			if b == 0 {
				p.errorf(pos, "division by zero in a constant expression")
				return r
			}
			switch {
			case r.Unsigned && op == QUO:
				r.Bits = a / b
			case r.Unsigned:
				r.Bits = a % b
			case sb == -1:
				if op == QUO {
					r.Bits = -a
				}
			case op == QUO:
				r.Bits = uint64(sa / sb)
			default:
				r.Bits = uint64(sa % sb)
			}
		case AND:
			r.Bits = a & b
		case OR:
			r.Bits = a | b
		case XOR:
			r.Bits = a ^ b
		case SHL:
			if b >= 64 {
				r.Bits = 0
			} else {
				r.Bits = a << b
			}
		case SHR:
			switch {
			case b >= 64 && (r.Unsigned || sa >= 0):
				r.Bits = 0
			case b >= 64:
				r.Bits = ^uint64(0)
			case r.Unsigned:
				r.Bits = a >> b
			default:
				r.Bits = uint64(sa >> b)
			}
		default:
			var v bool
			switch op {
			case LAND:
				v = a != 0 && b != 0
			case LOR:
				v = a != 0 || b != 0
			case EQL:
				v = a == b
			case NEQ:
				v = a != b
			case LT:
				v = lessInt(a, b, r.Unsigned)
			case GT:
				v = lessInt(b, a, r.Unsigned)
			case LEQ:
				v = !lessInt(b, a, r.Unsigned)
			case GEQ:
				v = !lessInt(a, b, r.Unsigned)
			}
			r.Bits, r.Hex, r.Unsigned = b2u(v), false, false
		}
		return r
	}
	// symbol ± integer
	if id, ok := x.(*Ident); ok && yok && yi.Kind == ImmInt && (op == ADD || op == SUB) {
		r := *id
		if op == ADD {
			r.Offset += int64(yi.Bits)
		} else {
			r.Offset -= int64(yi.Bits)
		}
		return &r
	}
	if id, ok := y.(*Ident); ok && xok && xi.Kind == ImmInt && op == ADD {
		r := *id
		r.Pos = xi.Pos
		r.Offset += int64(xi.Bits)
		return &r
	}
	return &BinaryExpr{Pos: x.Position(), Op: op, X: x, Y: y}
}

func lessInt(a, b uint64, unsigned bool) bool {
	if unsigned {
		return a < b
	}
	return int64(a) < int64(b)
}

var (
	errOverflow   = errors.New("integer literal overflows 64 bits")
	errFloatRange = errors.New("floating-point literal out of range")
)

// parseIntLit decodes a PTX integer literal: decimal, 0x hex, 0b binary or
// 0-prefixed octal, with an optional U suffix.
func parseIntLit(lit string) (v uint64, unsigned bool, err error) {
	s := lit
	if n := len(s); n > 0 && (s[n-1] == 'U' || s[n-1] == 'u') {
		s, unsigned = s[:n-1], true
	}
	base := 10
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err = strconv.ParseUint(s, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return math.MaxUint64, true, errOverflow
		}
		return 0, unsigned, fmt.Errorf("malformed integer literal")
	}
	if v > math.MaxInt64 {
		unsigned = true
	}
	return v, unsigned, nil
}

// parseFloatLit decodes 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX and decimal floats
// (which PTX reads as double precision).
func parseFloatLit(lit string) (ImmKind, uint64, error) {
	if len(lit) > 2 && lit[0] == '0' && (lit[1]|0x20 == 'f' || lit[1]|0x20 == 'd') {
		kind, want := ImmF32, 8
		if lit[1]|0x20 == 'd' {
			kind, want = ImmF64, 16
		}
		digits := lit[2:]
		if len(digits) != want {
			return kind, 0, fmt.Errorf("needs exactly %d hex digits", want)
		}
		v, err := strconv.ParseUint(digits, 16, 64)
		if err != nil {
			return kind, 0, fmt.Errorf("malformed hexadecimal float")
		}
		return kind, v, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return ImmF64, math.Float64bits(f), errFloatRange
		}
		return ImmF64, 0, fmt.Errorf("malformed floating-point literal")
	}
	return ImmF64, math.Float64bits(f), nil
}
