package ptx

// Function bodies: blocks, statements, register scopes and instructions.

import (
	"strconv"
	"strings"
)

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
	p.eof.blocks = append(p.eof.blocks, b.Pos)
	defer func() {
		p.depth--
		p.eof.blocks = p.eof.blocks[:len(p.eof.blocks)-1]
	}()
	if p.depth > maxDepth {
		p.errorf(b.Pos, "blocks nested too deeply")
		for p.tok != EOF {
			p.next()
		}
		// The rest of the file was skipped on purpose: the end of file
		// that follows is no truncation.
		p.eof.reported, p.eof.at = true, p.pos
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
