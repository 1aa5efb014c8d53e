package ptx

import "fmt"

// An ErrorHandler is called for each lexical error with its position and
// message.
type ErrorHandler func(pos Pos, msg string)

// A Mode controls optional scanner behaviour.
type Mode uint

// ScanComments makes Scan return COMMENT tokens instead of skipping them.
const ScanComments Mode = 1 << iota

// Scanner splits PTX source into tokens. It is modelled on go/scanner: call
// Init, then Scan until EOF. Lexical errors go to the error handler, and
// scanning continues after each of them.
//
// An identifier followed directly (without blanks) by ".segment" parts is
// scanned as one IDENT, so an opcode such as
// "cp.async.bulk.tensor.2d.shared::cluster.global" or a special register
// such as "%tid.x" is one token; the parser splits it.
type Scanner struct {
	src       string
	err       ErrorHandler
	mode      Mode
	off       int // next byte to read
	line      int
	lineStart int // offset of the first byte of the current line

	// ErrorCount is the number of errors reported so far.
	ErrorCount int
}

// Init prepares s to scan src. err may be nil.
func (s *Scanner) Init(src []byte, err ErrorHandler, mode Mode) {
	s.InitString(string(src), err, mode)
}

// InitString is Init for a string source (which is not copied).
func (s *Scanner) InitString(src string, err ErrorHandler, mode Mode) {
	*s = Scanner{src: src, err: err, mode: mode, line: 1}
	// Skip a UTF-8 byte order mark.
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off, s.lineStart = 3, 3
	}
}

func (s *Scanner) pos(off int) Pos {
	return Pos{Line: int32(s.line), Col: int32(off - s.lineStart + 1)}
}

func (s *Scanner) error(off int, msg string) {
	s.ErrorCount++
	if s.err != nil {
		s.err(s.pos(off), msg)
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isIdentChar reports whether c may continue an identifier.
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '$' }

func (s *Scanner) peek(k int) byte {
	if s.off+k < len(s.src) {
		return s.src[s.off+k]
	}
	return 0
}

// Scan returns the next token, its position and its literal text. The
// literal is the source text for IDENT, DIRECTIVE, INT, FLOAT, STRING and
// COMMENT tokens and for ILLEGAL bytes; it is empty for operators.
func (s *Scanner) Scan() (pos Pos, tok Token, lit string) {
redo:
	s.skipBlanks()
	start := s.off
	pos = s.pos(start)
	if s.off >= len(s.src) {
		return pos, EOF, ""
	}
	c := s.src[s.off]
	switch {
	case isLetter(c) || c == '_' || c == '$' || c == '%' && isIdentChar(s.peek(1)):
		s.off++
		s.scanWord()
		return pos, IDENT, s.src[start:s.off]
	case isDigit(c) || c == '.' && isDigit(s.peek(1)):
		tok = s.scanNumber()
		return pos, tok, s.src[start:s.off]
	case c == '.' && (isLetter(s.peek(1)) || s.peek(1) == '_' || s.peek(1) == '$'):
		s.off++
		s.scanSegment()
		return pos, DIRECTIVE, s.src[start:s.off]
	case c == '"':
		s.scanString()
		return pos, STRING, s.src[start:s.off]
	case c == '/' && s.peek(1) == '/':
		for s.off < len(s.src) && s.src[s.off] != '\n' {
			s.off++
		}
		if s.mode&ScanComments != 0 {
			return pos, COMMENT, s.src[start:s.off]
		}
		goto redo
	case c == '/' && s.peek(1) == '*':
		s.off += 2
		closed := false
		for s.off < len(s.src) {
			if s.src[s.off] == '*' && s.peek(1) == '/' {
				s.off += 2
				closed = true
				break
			}
			if s.src[s.off] == '\n' {
				s.newline(s.off + 1)
			}
			s.off++
		}
		if !closed {
			s.errorAt(pos, "comment not terminated")
		}
		if s.mode&ScanComments != 0 {
			return pos, COMMENT, s.src[start:s.off]
		}
		goto redo
	}
	s.off++
	two := func(next byte, t2, t1 Token) Token {
		if s.peek(0) == next {
			s.off++
			return t2
		}
		return t1
	}
	switch c {
	case ',':
		tok = COMMA
	case ';':
		tok = SEMI
	case ':':
		tok = COLON
	case '{':
		tok = LBRACE
	case '}':
		tok = RBRACE
	case '[':
		tok = LBRACK
	case ']':
		tok = RBRACK
	case '(':
		tok = LPAREN
	case ')':
		tok = RPAREN
	case '+':
		tok = ADD
	case '-':
		tok = SUB
	case '*':
		tok = MUL
	case '/':
		tok = QUO
	case '%':
		tok = REM
	case '^':
		tok = XOR
	case '~':
		tok = TILDE
	case '@':
		tok = AT
	case '?':
		tok = QUEST
	case '&':
		tok = two('&', LAND, AND)
	case '|':
		tok = two('|', LOR, OR)
	case '!':
		tok = two('=', NEQ, NOT)
	case '=':
		tok = two('=', EQL, ASSIGN)
	case '<':
		if s.peek(0) == '<' {
			s.off++
			tok = SHL
		} else {
			tok = two('=', LEQ, LT)
		}
	case '>':
		if s.peek(0) == '>' {
			s.off++
			tok = SHR
		} else {
			tok = two('=', GEQ, GT)
		}
	default:
		s.error(start, fmt.Sprintf("illegal character %q", c))
		return pos, ILLEGAL, s.src[start:s.off]
	}
	return pos, tok, ""
}

func (s *Scanner) errorAt(pos Pos, msg string) {
	s.ErrorCount++
	if s.err != nil {
		s.err(pos, msg)
	}
}

func (s *Scanner) newline(next int) {
	s.line++
	s.lineStart = next
}

func (s *Scanner) skipBlanks() {
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case '\n':
			s.off++
			s.newline(s.off)
		case ' ', '\t', '\r', '\f', '\v':
			s.off++
		default:
			return
		}
	}
}

// scanSegment consumes identifier characters and "::" joints, as in
// "shared::cluster" or "L2::cache_hint".
func (s *Scanner) scanSegment() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		if isIdentChar(c) {
			s.off++
			continue
		}
		if c == ':' && s.peek(1) == ':' && isIdentChar(s.peek(2)) {
			s.off += 2
			continue
		}
		return
	}
}

// scanWord consumes the rest of an identifier and any ".segment" suffixes
// that follow it directly.
func (s *Scanner) scanWord() {
	for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
		s.off++
	}
	for s.off+1 < len(s.src) && s.src[s.off] == '.' && isIdentChar(s.src[s.off+1]) {
		s.off++
		s.scanSegment()
	}
}

func (s *Scanner) scanNumber() Token {
	start := s.off
	c := s.src[s.off]
	if c == '0' && s.off+1 < len(s.src) {
		switch s.src[s.off+1] {
		case 'f', 'F', 'd', 'D':
			if isHex(s.peek(2)) {
				want := 8
				if s.src[s.off+1]|0x20 == 'd' {
					want = 16
				}
				s.off += 2
				n := 0
				for s.off < len(s.src) && isHex(s.src[s.off]) {
					s.off++
					n++
				}
				if n != want {
					s.error(start, fmt.Sprintf("hexadecimal float %s needs exactly %d hex digits, found %d", s.src[start:s.off], want, n))
				}
				s.checkNumberEnd(start)
				return FLOAT
			}
		case 'x', 'X':
			s.off += 2
			n := 0
			for s.off < len(s.src) && isHex(s.src[s.off]) {
				s.off++
				n++
			}
			if n == 0 {
				s.error(start, "hexadecimal literal has no digits")
			}
			s.intSuffix()
			s.checkNumberEnd(start)
			return INT
		case 'b', 'B':
			if s.peek(2) == '0' || s.peek(2) == '1' {
				s.off += 2
				for s.off < len(s.src) && (s.src[s.off] == '0' || s.src[s.off] == '1') {
					s.off++
				}
				s.intSuffix()
				s.checkNumberEnd(start)
				return INT
			}
		}
	}
	for s.off < len(s.src) && isDigit(s.src[s.off]) {
		s.off++
	}
	tok := INT
	if s.off < len(s.src) && s.src[s.off] == '.' && !isLetter(s.peek(1)) && s.peek(1) != '_' {
		tok = FLOAT
		s.off++
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.off++
		}
	}
	if s.off < len(s.src) && (s.src[s.off] == 'e' || s.src[s.off] == 'E') {
		k := 1
		if s.peek(1) == '+' || s.peek(1) == '-' {
			k = 2
		}
		if isDigit(s.peek(k)) {
			tok = FLOAT
			s.off += k
			for s.off < len(s.src) && isDigit(s.src[s.off]) {
				s.off++
			}
		}
	}
	if tok == INT {
		s.intSuffix()
		if s.src[start] == '0' {
			for i := start; i < s.off; i++ {
				if s.src[i] == '8' || s.src[i] == '9' {
					s.error(start, fmt.Sprintf("invalid digit %q in octal literal %s", s.src[i], s.src[start:s.off]))
					break
				}
			}
		}
	}
	s.checkNumberEnd(start)
	return tok
}

func (s *Scanner) intSuffix() {
	if s.off < len(s.src) && (s.src[s.off] == 'U' || s.src[s.off] == 'u') {
		s.off++
	}
}

// checkNumberEnd reports (and consumes) letters glued to a number, as in
// "12ab".
func (s *Scanner) checkNumberEnd(start int) {
	if s.off < len(s.src) && isIdentChar(s.src[s.off]) {
		for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
			s.off++
		}
		s.error(start, fmt.Sprintf("malformed number %s", s.src[start:s.off]))
	}
}

func (s *Scanner) scanString() {
	start := s.off
	s.off++
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			s.error(start, "string literal not terminated")
			return
		}
		c := s.src[s.off]
		s.off++
		if c == '"' {
			return
		}
		if c == '\\' && s.off < len(s.src) && s.src[s.off] != '\n' {
			s.off++
		}
	}
}
