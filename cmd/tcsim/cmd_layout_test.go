package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tcsim/tcsim/render"
)

const acc64x8 = "((4,8,4),(2,2,1)):((128,1,16),(64,8,512))"

func TestLayoutText(t *testing.T) {
	tests := []struct {
		args []string
		want []string // substrings of stdout
	}{
		{[]string{"layout", "(4,2):(1,4)", "--boxed"}, []string{"(4,2):(1,4)\n    0   1\n  +---+---+\n0 | 0 | 4 |\n  +---+---+\n1 | 1 | 5 |"}},
		{[]string{"layout", "8:2"}, []string{" 0  1  2  3  4  5  6  7\n0  0  2  4  6  8 10 12 14\n"}},
		{[]string{"layout", acc64x8, "--tile", "64x8", "--region", "0:2"},
			[]string{"0  T0V0  T0V1  T1V0  T1V1  T2V0  T2V1  T3V0  T3V1\n1  T4V0", "showing rows 0..1 of 64"}},
		// A broadcast: every owner is listed.
		{[]string{"layout", "((2,16),2):((0,1),16)", "--tile", "16x2", "--region", "0:1"}, []string{"T0V0|T1V0", "T0V1|T1V1", "several owners"}},
		{[]string{"layout", "Sw<3,3,3> o 0 o (8,64):(64,1)", "--bits", "16", "--label", "bank", "--region", "1,0:10"},
			[]string{"1  4  4  5  5  6  6  7  7  0  0"}},
		{[]string{"layout", "wgmma.m64n8.d.f32", "--region", "8:9,0:4"}, []string{"wgmma.m64n8.d.f32", "8  T0V2  T0V3  T1V2  T1V3"}},
		{[]string{"layout", "smem.k.sw128.b16", "--region", "1,0:10", "--label", "offset"}, []string{"1 72 73 74 75 76 77 78 79 64 65"}},
		{[]string{"layout", "--mma", "mma.sync.m16n8k16", "--region", "0:1"}, []string{"A = mma.sync.m16k16.a.b16", "B = mma.sync.n8k16.b.b16", "C = mma.sync.m16n8.d.f32", "T0V0  T4V0"}},
		{[]string{"layout", "--mma", "mma.sync.m16k8.a.tf32", "--region", "0:1", "--no-legend"}, []string{"B = mma.sync.n8k8.b.tf32"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != 0 {
			t.Errorf("tcsim %q: exit %d: %s", tt.args, code, errs)
			continue
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("tcsim %q: escape codes in non-terminal output", tt.args)
		}
		for _, w := range tt.want {
			// Cell widths fit the window, so compare with blanks squeezed.
			if !strings.Contains(squeeze(out), squeeze(w)) {
				t.Errorf("tcsim %q: output lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
}

func squeeze(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }

func TestLayoutFormats(t *testing.T) {
	code, out, errs := runCLI(t, "layout", acc64x8, "--tile", "64x8", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var doc render.JSONGrid
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json does not parse: %v", err)
	}
	if c := doc.Cells[8]; len(doc.Cells) != 512 || c.Row != 1 || c.Col != 0 || c.Owners[0] != (render.JSONOwner{Thread: 4, Value: 0}) {
		t.Errorf("json: %d cells, cell 8 %+v", len(doc.Cells), c)
	}
	code, out, _ = runCLI(t, "layout", acc64x8, "--tile", "64x8", "--format", "ansi", "--color", "warp")
	if code != 0 || !strings.Contains(out, "\x1b[38;5;16;48;5;") || !strings.Contains(out, "colour = warp") {
		t.Errorf("ansi: exit %d\n%q", code, out)
	}
}

func TestDefaultFormat(t *testing.T) {
	env := func(vars map[string]string, out io.Writer) *env {
		return &env{stdout: out, getenv: func(k string) string { return vars[k] }}
	}
	if f := defaultFormat(env(nil, &bytes.Buffer{})); f != render.FormatText {
		t.Errorf("pipe: %s, want text", f)
	}
	if f := defaultFormat(env(map[string]string{"NO_COLOR": "1"}, os.Stdout)); f != render.FormatText {
		t.Errorf("NO_COLOR: %s, want text", f)
	}
	if f := defaultFormat(env(map[string]string{"TERM": "dumb"}, os.Stdout)); f != render.FormatText {
		t.Errorf("TERM=dumb: %s, want text", f)
	}
}

// A pasted CuTe C++ type may end in {} (a value of the type), wherever a
// layout is read.
func TestLayoutPastedValue(t *testing.T) {
	for _, args := range [][]string{
		{"layout", "eval", "Layout<Shape<_4,_8>,Stride<_1,_4>>{}"},
		{"layout", "eval", "size(Layout<Shape<_4,_8>,Stride<_1,_4>>{})"},
		{"layout", "Layout<Shape<_4,_8>,Stride<_1,_4>>{}", "--no-legend"},
		{"layout", "GMMA::Layout_K_SW128_Atom<bf16>{}", "--no-legend"},
		{"bitmath", "Layout<Shape<_4,_8>,Stride<_1,_4>>{}"},
	} {
		plain := append([]string(nil), args...)
		for i, a := range plain {
			plain[i] = strings.ReplaceAll(a, "{}", "")
		}
		_, want, _ := runCLI(t, plain...)
		code, got, errs := runCLI(t, args...)
		if code != 0 || got != want || want == "" {
			t.Errorf("tcsim %q: exit %d (%s), output differs from without {}:\n%s\nwant:\n%s", args, code, errs, got, want)
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	tests := []struct {
		args    []string
		errPart string
	}{
		{[]string{"layout"}, "missing LAYOUT"},
		{[]string{"layout", "(4,2):(1,4"}, "col 7"},
		{[]string{"layout", "(4,2):(1,(4,2))"}, "congruent"},
		{[]string{"layout", "wgmma.m64n7.d.f32"}, "unknown atom"},
		{[]string{"layout", "(2,2,2):(1,2,4)"}, "rank 3"},
		{[]string{"layout", "(4,2):(1,4)", "--tile", "4"}, "ROWSxCOLS"},
		{[]string{"layout", "(4,2):(1,4)", "--tile", "2x2"}, "outside the 2x2 tile"},
		{[]string{"layout", "(4,2):(1,4)", "--region", "9,0"}, "rows start at 9"},
		{[]string{"layout", "(4,2):(1,4)", "--region", "0:x"}, "col 3"},
		{[]string{"layout", "(4,2):(1,4)", "--format", "svg"}, "tcsim render"},
		{[]string{"layout", "(4,2):(1,4)", "--format", "gif"}, "unknown format"},
		{[]string{"layout", "(4,2):(1,4)", "--color", "hue"}, "unknown colour"},
		{[]string{"layout", "(4,2):(1,4)", "--cell", "-1"}, "--cell"},
		{[]string{"layout", "(4,2):(1,4)", "--mma"}, "unknown atom"},
		{[]string{"layout", "wgmma.m64n8.d.f32", "--tile", "64x8"}, "--tile applies to a plain LAYOUT"},
		{[]string{"layout", "Sw<3,3,3> o (8,8):(8,1)", "--tile", "8x8"}, "swizzled"},
		{[]string{"layout", "--mma", "smem.k.sw128.b16"}, "not an MMA operand"},
		{[]string{"layout", "--mma", "a", "b"}, "three atoms"},
		{[]string{"layout", "(100000,100000):(1,100000)"}, "too large"},
		{[]string{"layout", "(4,?):(1,4)"}, "col 4: '?' is a dynamic value (how the CuTe DSL prints a shape or stride known only at run time)"},
		{[]string{"layout", "eval", "(4,?):(1,4)"}, "col 4: '?' is a dynamic value"},
		{[]string{"bitmath", "((8,?),2):((1,8),16)"}, "'?' is a dynamic value"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.errPart) || out != "" {
			t.Errorf("tcsim %q: exit %d, stderr %q, stdout %q; want exit 2 and %q", tt.args, code, errs, out, tt.errPart)
		}
	}
}

func TestRenderFiles(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	args := []string{acc64x8, "--tile", "64x8"}
	for _, name := range []string{"a.svg", "a.png", "a.txt", "a.html", "a.json", "a.ansi"} {
		code, out, errs := runCLI(t, append([]string{"render", "-o", path(name)}, args...)...)
		if code != 0 || !strings.HasPrefix(out, "wrote "+path(name)) {
			t.Fatalf("render -o %s: exit %d: %s %s", name, code, out, errs)
		}
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The text file is exactly what `tcsim layout` prints.
	_, layoutOut, _ := runCLI(t, append([]string{"layout", "--format", "text"}, args...)...)
	if string(read("a.txt")) != layoutOut {
		t.Errorf("render -o a.txt differs from tcsim layout")
	}
	_, layoutANSI, _ := runCLI(t, append([]string{"layout", "--format", "ansi"}, args...)...)
	if string(read("a.ansi")) != layoutANSI {
		t.Errorf("render -o a.ansi differs from tcsim layout --format ansi")
	}
	d := xml.NewDecoder(bytes.NewReader(read("a.svg")))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
	}
	img, err := png.Decode(bytes.NewReader(read("a.png")))
	if err != nil || img.Bounds().Dx() < 8*30 || img.Bounds().Dy() < 64*11 {
		t.Errorf("PNG: %v %v", err, img.Bounds())
	}
	if h := string(read("a.html")); !strings.HasPrefix(h, "<!DOCTYPE html>") || !strings.Contains(h, "<svg") || !strings.Contains(h, "<script>") {
		t.Errorf("HTML page lacks its parts")
	}
	if !json.Valid(read("a.json")) {
		t.Errorf("JSON file does not parse")
	}
	// --format overrides the extension; -o - writes to stdout.
	code, out, _ := runCLI(t, append([]string{"render", "-o", "-", "--format", "svg"}, args...)...)
	if code != 0 || !strings.HasPrefix(out, "<?xml") {
		t.Errorf("render -o - --format svg: exit %d, %.40q", code, out)
	}
	code, out, _ = runCLI(t, append([]string{"render", "-o", path("b.dat"), "--format", "png"}, args...)...)
	if code != 0 {
		t.Errorf("render --format png to b.dat: exit %d %s", code, out)
	}
	if _, err := png.Decode(bytes.NewReader(read("b.dat"))); err != nil {
		t.Errorf("b.dat is not a PNG: %v", err)
	}
	for _, c := range []struct {
		args    []string
		errPart string
	}{
		{[]string{"render", "(4,2):(1,4)"}, "missing -o"},
		{[]string{"render", "(4,2):(1,4)", "-o", path("x.gif")}, "extension"},
		{[]string{"render", "(4,2):(1,4", "-o", path("x.svg")}, "col 7"},
		{[]string{"render", "(4,2):(1,4)", "-o", filepath.Join(dir, "no", "such", "x.svg")}, "writing the picture"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(errs, c.errPart) {
			t.Errorf("tcsim %q: exit %d, %q; want an error with %q", c.args, code, errs, c.errPart)
		}
	}
}

// tcsim render DESCRIPTOR: the operand tile labelled by core matrix, the
// bytes with --bytes, every format, and the flag errors.
func TestRenderDescriptor(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "render", "0x4000004000010040", "--major", "K", "--tile", "16x16", "-o", "-", "--format", "text")
	if code != 0 || !strings.Contains(out, "wgmma shared-memory matrix descriptor (sm_90a) 0x4000004000010040: 16x16 K-major bf16 tile, 128B swizzle") {
		t.Fatalf("render DESCRIPTOR: exit %d %s\n%s", code, errs, out)
	}
	// Core matrices are numbered (K index)*(core matrices along M/N) + (M/N
	// index): in a 16x16 tile row 0 reads core 0 for K 0-7 and core 2 for
	// K 8-15.
	lines := strings.Split(out, "\n")
	var row0 string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "0 ") {
			row0 = l
			break
		}
	}
	if f := strings.Fields(row0); len(f) != 17 || f[1] != "0" || f[9] != "2" {
		t.Errorf("row 0 of the tile: %q, want core 0 in K 0-7 and core 2 in K 8-15", row0)
	}
	code, out, _ = runCLI(t, "render", "0x4002004000010048", "--major", "K", "--bytes", "-o", "-", "--format", "text")
	if code != 0 || !strings.Contains(out, "00480  0.0  8.0") || !strings.Contains(out, "base-offset-shift") {
		t.Errorf("render DESCRIPTOR --bytes:\n%s", out)
	}
	for _, name := range []string{"d.svg", "d.png", "d.html"} {
		p := filepath.Join(dir, name)
		if code, out, errs := runCLI(t, "render", "0x4000004000010040", "--major", "MN", "--dtype", "e4m3", "-o", p); code != 0 {
			t.Fatalf("render -o %s: exit %d %s %s", name, code, out, errs)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "d.png"))
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("PNG: %v", err)
	}
	for _, c := range []struct {
		args    []string
		errPart string
	}{
		{[]string{"render", "0x4000004000010040", "-o", "-"}, "needs --major"},
		{[]string{"render", "0x4000004000010040", "--major", "X", "-o", "-"}, "--major"},
		{[]string{"render", "0x4000004000010040", "--major", "K", "--dtype", "f7", "-o", "-"}, "--dtype"},
		{[]string{"render", "0x4000004000010040", "--major", "K", "--arch", "sm_80", "-o", "-"}, "--arch"},
		{[]string{"render", "0xzz", "--major", "K", "-o", "-"}, "DESCRIPTOR"},
		{[]string{"render", "(4,2):(1,4)", "--bytes", "-o", "-"}, "apply to a DESCRIPTOR"},
	} {
		expectCLI(t, c.args, 2, nil, nil, c.errPart)
	}
}

// On a terminal a picture wider than the terminal shows the columns that
// fit and says how to see the rest; a file or a pipe gets all of them.
func TestLayoutFitsTerminal(t *testing.T) {
	run := func(width int, args ...string) string {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, width: width}
		if code := run(e, args); code != 0 {
			t.Fatalf("tcsim %q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	widest := func(s string) int {
		w := 0
		for _, l := range strings.Split(s, "\n") {
			w = max(w, len(l))
		}
		return w
	}
	full := run(0, "layout", "wgmma.m64n256.d.f32", "--no-legend")
	if widest(full) < 1000 {
		t.Fatalf("a pipe should get the whole 256-column tile; widest line %d", widest(full))
	}
	// every line fits, the notes under the title and the hint included,
	// with and without the legend, at the usual widths
	for _, width := range []int{80, 100, 132} {
		for _, args := range [][]string{{"layout", "wgmma.m64n256.d.f32", "--no-legend"}, {"layout", "wgmma.m64n256.d.f32"}, {"layout", "wgmma.m64n256.d.f32", "--region", "0:8,0:8"}} {
			fit := run(width, args...)
			for _, l := range strings.Split(fit, "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%v: a line of %d columns on a %d-column terminal: %q", args, n, width, l)
				}
			}
		}
	}
	fit := run(100, "layout", "wgmma.m64n256.d.f32", "--no-legend")
	if hint := strings.Join(strings.Fields(fit[strings.LastIndex(fit, "("):]), " "); !strings.HasPrefix(hint, "(10 of 256 columns fit this 100-column terminal: --region ,10:20 shows the next ones") {
		t.Errorf("no note on how to see the rest: %q", hint)
	}
	// a picture that fits keeps every column (only its notes wrap on a
	// narrow terminal; a wide one gets what a pipe gets), and --region is
	// the user's choice
	whole := run(0, "layout", "wgmma.m64n8.d.f32", "--no-legend")
	if wide := run(200, "layout", "wgmma.m64n8.d.f32", "--no-legend"); wide != whole {
		t.Errorf("a picture that fits changed on a wide terminal")
	}
	grid := whole[strings.Index(whole, "\nm/n"):]
	if small := run(100, "layout", "wgmma.m64n8.d.f32", "--no-legend"); !strings.HasSuffix(small, grid) || strings.Contains(small, "columns fit") {
		t.Errorf("a picture that fits lost columns on a 100-column terminal:\n%s", small)
	}
	if r := run(100, "layout", "wgmma.m64n256.d.f32", "--region", "0:4,0:40", "--no-legend"); strings.Contains(r, "columns fit") {
		t.Errorf("--region was overridden:\n%s", r)
	}
}
