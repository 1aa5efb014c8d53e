package ptx

// Token is the kind of a lexical token.
type Token uint8

// The tokens of PTX.
const (
	ILLEGAL Token = iota
	EOF
	COMMENT // only returned when the scanner is asked for comments

	IDENT     // %r1, foo, $L__BB0_1, and dotted words such as ld.global.f32 or %tid.x
	DIRECTIVE // .reg, .b32, .shared::cta
	INT       // 42, 0x2A, 052, 0b101010, 42U
	FLOAT     // 1.5, 2e-3, 0f3F800000, 0d3FF0000000000000
	STRING    // "text"

	COMMA  // ,
	SEMI   // ;
	COLON  // :
	LBRACE // {
	RBRACE // }
	LBRACK // [
	RBRACK // ]
	LPAREN // (
	RPAREN // )
	LT     // <
	GT     // >
	ADD    // +
	SUB    // -
	MUL    // *
	QUO    // /
	REM    // %  (only as an operator; %name is an IDENT)
	AND    // &
	OR     // |
	XOR    // ^
	SHL    // <<
	SHR    // >>
	LAND   // &&
	LOR    // ||
	NOT    // !
	TILDE  // ~
	AT     // @
	ASSIGN // =
	QUEST  // ?
	EQL    // ==
	NEQ    // !=
	LEQ    // <=
	GEQ    // >=
)

var tokenNames = [...]string{
	ILLEGAL: "ILLEGAL", EOF: "end of file", COMMENT: "comment",
	IDENT: "identifier", DIRECTIVE: "directive", INT: "integer", FLOAT: "float", STRING: "string",
	COMMA: "','", SEMI: "';'", COLON: "':'", LBRACE: "'{'", RBRACE: "'}'",
	LBRACK: "'['", RBRACK: "']'", LPAREN: "'('", RPAREN: "')'", LT: "'<'", GT: "'>'",
	ADD: "'+'", SUB: "'-'", MUL: "'*'", QUO: "'/'", REM: "'%'", AND: "'&'", OR: "'|'",
	XOR: "'^'", SHL: "'<<'", SHR: "'>>'", LAND: "'&&'", LOR: "'||'", NOT: "'!'",
	TILDE: "'~'", AT: "'@'", ASSIGN: "'='", QUEST: "'?'", EQL: "'=='", NEQ: "'!='",
	LEQ: "'<='", GEQ: "'>='",
}

// String names the token for error messages.
func (t Token) String() string {
	if int(t) < len(tokenNames) && tokenNames[t] != "" {
		return tokenNames[t]
	}
	return "token"
}
