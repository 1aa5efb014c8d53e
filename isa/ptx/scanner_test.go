package ptx

import (
	"strings"
	"testing"
)

type tokLit struct {
	tok Token
	lit string
}

func scanAll(src string) ([]tokLit, []string) {
	var s Scanner
	var errs []string
	s.InitString(src, func(pos Pos, msg string) { errs = append(errs, pos.String()+": "+msg) }, 0)
	var out []tokLit
	for {
		_, tok, lit := s.Scan()
		if tok == EOF {
			return out, errs
		}
		out = append(out, tokLit{tok, lit})
	}
}

func TestScanTokens(t *testing.T) {
	tests := []struct {
		src  string
		want []tokLit
	}{
		{"ld.global.v4.f32 {%f1}, [%rd1+-16];", []tokLit{
			{IDENT, "ld.global.v4.f32"}, {LBRACE, ""}, {IDENT, "%f1"}, {RBRACE, ""}, {COMMA, ""},
			{LBRACK, ""}, {IDENT, "%rd1"}, {ADD, ""}, {SUB, ""}, {INT, "16"}, {RBRACK, ""}, {SEMI, ""}}},
		{"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", []tokLit{
			{IDENT, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"}}},
		{"tcgen05.wait::ld.sync.aligned;", []tokLit{{IDENT, "tcgen05.wait::ld.sync.aligned"}, {SEMI, ""}}},
		{".reg .b32 %r<12>;", []tokLit{{DIRECTIVE, ".reg"}, {DIRECTIVE, ".b32"}, {IDENT, "%r"}, {LT, ""}, {INT, "12"}, {GT, ""}, {SEMI, ""}}},
		{"$L__BB0_1: @!%p1", []tokLit{{IDENT, "$L__BB0_1"}, {COLON, ""}, {AT, ""}, {NOT, ""}, {IDENT, "%p1"}}},
		{"0f3F800000 0d3FF0000000000000 1.5 2e-3 .5", []tokLit{{FLOAT, "0f3F800000"}, {FLOAT, "0d3FF0000000000000"}, {FLOAT, "1.5"}, {FLOAT, "2e-3"}, {FLOAT, ".5"}}},
		{"0x1F 017 0b101 42U -7", []tokLit{{INT, "0x1F"}, {INT, "017"}, {INT, "0b101"}, {INT, "42U"}, {SUB, ""}, {INT, "7"}}},
		{"%tid.x %clock64", []tokLit{{IDENT, "%tid.x"}, {IDENT, "%clock64"}}},
		{"a % b << 2 >= c && d || !e", []tokLit{{IDENT, "a"}, {REM, ""}, {IDENT, "b"}, {SHL, ""}, {INT, "2"}, {GEQ, ""}, {IDENT, "c"}, {LAND, ""}, {IDENT, "d"}, {LOR, ""}, {NOT, ""}, {IDENT, "e"}}},
		{".file 1 \"a\\\"b.cu\" // comment\n/* block\ncomment */ x", []tokLit{{DIRECTIVE, ".file"}, {INT, "1"}, {STRING, `"a\"b.cu"`}, {IDENT, "x"}}},
		{"\xEF\xBB\xBF.version", []tokLit{{DIRECTIVE, ".version"}}},
	}
	for _, tt := range tests {
		got, errs := scanAll(tt.src)
		if len(errs) > 0 {
			t.Errorf("%q: errors %v", tt.src, errs)
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q:\n got %v\nwant %v", tt.src, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: token %d = %v, want %v", tt.src, i, got[i], tt.want[i])
			}
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"0f3F80", "1:1: hexadecimal float 0f3F80 needs exactly 8 hex digits, found 4"},
		{"0x", "1:1: hexadecimal literal has no digits"},
		{"12ab", "1:1: malformed number 12ab"},
		{"09", "1:1: invalid digit '9' in octal literal 09"},
		{"\"abc\n", "1:1: string literal not terminated"},
		{"x /* abc", "1:3: comment not terminated"},
		{"\n  #", "2:3: illegal character '#'"},
	}
	for _, tt := range tests {
		_, errs := scanAll(tt.src)
		if len(errs) != 1 || errs[0] != tt.want {
			t.Errorf("%q: errors %q, want [%q]", tt.src, errs, tt.want)
		}
	}
}

func TestScanPositions(t *testing.T) {
	var s Scanner
	s.InitString("a\n\tbb  c\n/* x\ny */ d", nil, 0)
	want := []Pos{{1, 1}, {2, 2}, {2, 6}, {4, 6}}
	for i, w := range want {
		pos, _, _ := s.Scan()
		if pos != w {
			t.Errorf("token %d at %v, want %v", i, pos, w)
		}
	}
}

func TestScanComments(t *testing.T) {
	var s Scanner
	s.InitString("// one\nx /* two */", nil, ScanComments)
	var got []string
	for {
		_, tok, lit := s.Scan()
		if tok == EOF {
			break
		}
		got = append(got, tok.String()+" "+lit)
	}
	if strings.Join(got, "|") != "comment // one|identifier x|comment /* two */" {
		t.Errorf("got %q", got)
	}
}
