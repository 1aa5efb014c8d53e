package ptx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/demangle"
)

// ParseFile parses a PTX module. It returns the module (as complete as the
// input allows) and an ErrorList with every syntax error, or nil.
//
// Input that is not text (a cubin, a gzip file, random bytes) gives one
// error, "binary file, not PTX text", at its first non-text byte; input
// that ends in the middle of a statement gives one "unexpected end of
// file" error and sets Module.Truncated.
func ParseFile(filename string, src []byte) (*Module, error) {
	return ParseString(filename, string(src))
}

// ParseString is ParseFile for a string.
func ParseString(filename, src string) (*Module, error) {
	if err := checkText(filename, src); err != nil {
		return &Module{Filename: filename}, ErrorList{err}
	}
	p := newParser(filename, src)
	m := p.parseModule()
	m.Truncated = p.eof.reported
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

	lastLine int32 // the last line of a file that does not end with a newline, or -1

	fn  string   // the function being parsed, for messages
	eof eofState // the one "unexpected end of file" report
}

// eofState records the error reported when the input ends in the middle
// of something; every later error at the end of the file follows from it.
type eofState struct {
	reported bool
	at       Pos   // where it was reported
	blocks   []Pos // the blocks open at the end, innermost last
}

const maxDepth = 200

func newParser(filename, src string) *parser {
	p := &parser{file: filename}
	// A file cut in the middle of a line (it does not end with a newline)
	// may end in half a token; a lexical error on that last line is the
	// end of the file's fault.
	lastLine := int32(-1)
	if src != "" && src[len(src)-1] != '\n' {
		lastLine = int32(strings.Count(src, "\n") + 1)
	}
	p.lastLine = lastLine
	p.sc.InitString(src, func(pos Pos, msg string) {
		if pos.Line == lastLine {
			p.eofError(pos, msg)
			return
		}
		if p.eof.reported && !pos.Before(p.eof.at) {
			return
		}
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
	p.errorHint(pos, "", format, args...)
}

func (p *parser) errorHint(pos Pos, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.tok == EOF && !p.semiOptional || p.cutToken() {
		p.eofError(p.pos, msg)
		return
	}
	if p.eof.reported && !pos.Before(p.eof.at) {
		return
	}
	p.errs.Add(Position{p.file, pos}, msg, hint)
}

// cutToken reports whether the current token is the last of a file that
// ends without a newline: a token the end of the file may have cut.
func (p *parser) cutToken() bool {
	switch p.tok {
	case IDENT, DIRECTIVE, INT, FLOAT, ILLEGAL: // tokens a cut can shorten
	default:
		return false
	}
	if p.pos.Line != p.lastLine || p.semiOptional {
		return false
	}
	_, t, _ := p.peek()
	return t == EOF
}

// eofError reports, once, that the input ended in the middle of a
// statement or block: msg says what the parser expected there, the hint
// that the file ended early, in which function and block. Later errors
// at the end of the file are consequences and are dropped.
func (p *parser) eofError(pos Pos, msg string) {
	if p.eof.reported {
		return
	}
	p.eof.reported, p.eof.at = true, pos
	if !strings.Contains(msg, "end of file") {
		msg += ", at the end of the file"
	}
	hint := "unexpected end of file"
	if p.fn != "" {
		hint += " in function " + demangle.Short(p.fn)
	}
	if n := len(p.eof.blocks); n > 0 {
		hint += fmt.Sprintf(", whose block opened at %s is not closed", p.eof.blocks[n-1])
	}
	hint += ": the file looks truncated (an interrupted nvcc -ptx, or a cut copy?)"
	p.errs.Add(Position{p.file, pos}, msg, hint)
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
