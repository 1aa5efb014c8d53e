package ptx

// Module-level declarations: the header directives, .file/.loc/.pragma/.section,
// functions, parameter lists and variable declarations.

import (
	"strconv"
	"strings"
)

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
	p.fn = f.Name
	defer func() { p.fn = "" }()
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

// Bounds on declarations, so that no input makes a consumer allocate
// without limit.
const (
	// MaxRegRange is the largest register range %r<N> the parser accepts.
	MaxRegRange = 1 << 24
	// MaxArrayDim is the largest array dimension the parser accepts.
	MaxArrayDim = 1 << 40
)

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
		switch {
		case n < 0:
			p.errorf(v.Pos, "%s<%d>: a register count must be positive", v.Name, n)
			n = 1
		case n > MaxRegRange:
			p.errorHint(v.Pos, "nvcc declares at most a few thousand", "%s<%d>: too many registers: a range may declare at most %d", v.Name, n, MaxRegRange)
			n = MaxRegRange
		}
		v.Count = int(n)
		p.expect(GT, "after the register count")
	}
	for p.tok == LBRACK {
		p.next()
		if p.tok == RBRACK {
			v.Dims = append(v.Dims, -1)
		} else {
			at := p.pos
			n := p.intLit("an array size")
			switch {
			case n < 0:
				p.errorf(at, "array size %d is negative", n)
				n = 1
			case n > MaxArrayDim:
				p.errorf(at, "array size %d is too large: at most %d (2^40) per dimension", n, MaxArrayDim)
				n = 1
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
