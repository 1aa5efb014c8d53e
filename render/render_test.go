package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// accTV is the wgmma accumulator on a 64×n tile.
func accTV(t testing.TB, n int) layouts.TV {
	t.Helper()
	l := layouts.MustMake(
		layouts.Tuple(layouts.Ints(4, 8, 4), layouts.Ints(2, 2, n/8)),
		layouts.Tuple(layouts.Ints(128, 1, 16), layouts.Ints(64, 8, 512)))
	tv, err := layouts.NewTV(l, 64, n)
	if err != nil {
		t.Fatal(err)
	}
	return tv
}

func mustTV(t testing.TB, src string, rows, cols int) layouts.TV {
	t.Helper()
	tv, err := layouts.NewTV(layouts.MustParse(src), rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return tv
}

// mustGrid returns g; the builders' inputs in these tests are all valid,
// so an error is a bug and panics the test.
func mustGrid(g *Grid, err error) *Grid {
	if err != nil {
		panic(err)
	}
	return g
}

// The owners the grid stores are exactly the TV layout's, cell by cell.
func TestFromTVMatchesOwners(t *testing.T) {
	tvs := []layouts.TV{
		accTV(t, 8), accTV(t, 64), accTV(t, 256),
		mustTV(t, "((4,8),(2,2)):((0,1),(8,16))", 8, 4),    // threads 0..3 broadcast
		mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4), // pairs broadcast
		mustTV(t, "(32,4):(1,64)", 32, 8),                  // half the tile empty
		mustTV(t, "(4,(2,2)):(2,(1,0))", 8, 1),             // a thread holds a cell twice
	}
	for _, tv := range tvs {
		g, err := FromTV(tv, "")
		if err != nil {
			t.Fatal(err)
		}
		want := tv.Owners()
		for r := 0; r < tv.Rows; r++ {
			for c := 0; c < tv.Cols; c++ {
				got := g.At(r, c).Owners
				w := want[r+tv.Rows*c]
				if fmt.Sprint(got) != fmt.Sprint(w) && !(len(got) == 0 && len(w) == 0) {
					t.Fatalf("%v cell (%d,%d): owners %v, want %v", tv.Layout, r, c, got, w)
				}
				if cell := g.At(r, c); cell.Row != r || cell.Col != c || cell.Panel != 0 {
					t.Fatalf("%v cell (%d,%d): tile coordinate (%d,%d) panel %d", tv.Layout, r, c, cell.Row, cell.Col, cell.Panel)
				}
			}
		}
		e1, s1 := tv.Coverage()
		e2, s2 := g.Coverage()
		if e1 != e2 || s1 != s2 {
			t.Errorf("%v: coverage %d/%d, want %d/%d", tv.Layout, e2, s2, e1, s1)
		}
	}
}

func TestFromTVRejectsOutOfTile(t *testing.T) {
	tv := layouts.TV{Layout: layouts.MustParse("(4,2):(1,4)"), Rows: 2, Cols: 2}
	if _, err := FromTV(tv, ""); err == nil || !strings.Contains(err.Error(), "outside the 2x2 tile") {
		t.Errorf("got %v, want an outside-the-tile error", err)
	}
	if _, err := FromTVLayout(layouts.MustParse("(8,8):(1,8)"), 1<<12, 1<<12); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("huge tile: got %v", err)
	}
}

func TestFromLayout(t *testing.T) {
	tests := []struct {
		src        string
		bits       int
		rows, cols int
		at         [][3]int // row, col, offset
		bank       [][3]int // row, col, bank
		errPart    string
	}{
		{src: "(4,2):(1,4)", rows: 4, cols: 2, at: [][3]int{{0, 0, 0}, {3, 0, 3}, {1, 1, 5}}},
		{src: "(4,2):(2,1)", rows: 4, cols: 2, at: [][3]int{{1, 0, 2}, {3, 1, 7}}},
		{src: "8:2", rows: 1, cols: 8, at: [][3]int{{0, 7, 14}}},
		{src: "((2,2),(2,2)):((1,4),(2,8))", rows: 4, cols: 4, at: [][3]int{{1, 0, 1}, {2, 0, 4}, {0, 1, 2}, {3, 3, 15}}},
		// SW128 K-major, 16-bit: Sw<3,4,3> on byte addresses is Sw<3,3,3> on elements.
		{src: "Sw<3,3,3> o 0 o (8,64):(64,1)", bits: 16, rows: 8, cols: 64,
			at:   [][3]int{{0, 0, 0}, {1, 0, 72}, {1, 8, 64}, {7, 0, 7*64 + 56}},
			bank: [][3]int{{0, 0, 0}, {1, 0, 4}, {1, 8, 0}, {0, 63, 31}, {7, 0, 28}}},
		{src: "(2,2,2):(1,2,4)", errPart: "rank 3"},
		{src: "(1024,8192):(1,1024)", errPart: "too large"},
	}
	for _, tt := range tests {
		l, err := layouts.ParseAnyLayout(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := FromLayout(l, tt.bits)
		if tt.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("%s: error %v, want %q", tt.src, err, tt.errPart)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if g.Rows != tt.rows || g.Cols != tt.cols {
			t.Errorf("%s: %dx%d, want %dx%d", tt.src, g.Rows, g.Cols, tt.rows, tt.cols)
		}
		for _, a := range tt.at {
			if got := g.At(a[0], a[1]).Offset; got != a[2] {
				t.Errorf("%s (%d,%d): offset %d, want %d", tt.src, a[0], a[1], got, a[2])
			}
		}
		for _, a := range tt.bank {
			if got := g.At(a[0], a[1]).Bank; got != a[2] {
				t.Errorf("%s (%d,%d): bank %d, want %d", tt.src, a[0], a[1], got, a[2])
			}
		}
	}
}

func TestBank(t *testing.T) {
	for _, c := range []struct{ off, bits, want int }{
		{0, 16, 0}, {1, 16, 0}, {2, 16, 1}, {63, 16, 31}, {64, 16, 0},
		{7, 4, 0}, {8, 4, 1}, {1, 32, 1}, {33, 32, 1}, {1, 64, 2}, {5, 0, -1},
	} {
		if got := Bank(c.off, c.bits); got != c.want {
			t.Errorf("Bank(%d, %d) = %d, want %d", c.off, c.bits, got, c.want)
		}
	}
}

func TestAppendCompact(t *testing.T) {
	os := func(pairs ...int) []layouts.Owner {
		var out []layouts.Owner
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, layouts.Owner{Thread: pairs[i], Value: pairs[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		in         []layouts.Owner
		full, comp string
	}{
		{os(0, 0), "T0V0", "T0V0"},
		{os(0, 0, 4, 0), "T0V0|T4V0", "T0,4V0"},
		{os(0, 1, 1, 1, 2, 1, 3, 1), "T0V1|T1V1|T2V1|T3V1", "T0-3V1"},
		{os(5, 0, 5, 1, 5, 2), "T5V0|T5V1|T5V2", "T5V0-2"},
		{os(0, 0, 1, 0, 2, 0, 8, 0, 4, 1), "T0V0|T1V0|T2V0|T8V0|T4V1", "T0-2,8V0|T4V1"},
	} {
		if got := string(AppendOwners(nil, c.in)); got != c.full {
			t.Errorf("AppendOwners(%v) = %q, want %q", c.in, got, c.full)
		}
		if got := string(AppendCompact(nil, c.in)); got != c.comp {
			t.Errorf("AppendCompact(%v) = %q, want %q", c.in, got, c.comp)
		}
		if got := ownerSet(t, c.comp); fmt.Sprint(got) != fmt.Sprint(sortedOwners(c.in)) {
			t.Errorf("compact %q reads back as %v, want %v", c.comp, got, c.in)
		}
	}
}

// ownerSet parses a full or compact owner label back into sorted owners.
func ownerSet(t testing.TB, s string) []layouts.Owner {
	t.Helper()
	var out []layouts.Owner
	runs := func(s string) []int {
		var xs []int
		for _, p := range strings.Split(s, ",") {
			lo, hi, isRange := strings.Cut(p, "-")
			a, err := strconv.Atoi(lo)
			if err != nil {
				t.Fatalf("bad owner label %q", s)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil {
					t.Fatalf("bad owner label %q", s)
				}
			}
			for x := a; x <= b; x++ {
				xs = append(xs, x)
			}
		}
		return xs
	}
	for _, grp := range strings.Split(s, "|") {
		ts, vs, ok := strings.Cut(strings.TrimPrefix(grp, "T"), "V")
		if !ok || !strings.HasPrefix(grp, "T") {
			t.Fatalf("bad owner label %q", s)
		}
		for _, th := range runs(ts) {
			for _, v := range runs(vs) {
				out = append(out, layouts.Owner{Thread: th, Value: v})
			}
		}
	}
	return sortedOwners(out)
}

func sortedOwners(os []layouts.Owner) []layouts.Owner {
	out := append([]layouts.Owner(nil), os...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Thread != out[j].Thread {
			return out[i].Thread < out[j].Thread
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// Whatever the cell width, the text never drops an owner of a shared
// cell: each is listed in the cell (in full or compact form) or through a
// legend reference.
func TestTextNeverDropsOwners(t *testing.T) {
	for _, tv := range []layouts.TV{
		mustTV(t, "((4,8),(2,2)):((0,1),(8,16))", 8, 4),
		mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4),
		mustTV(t, "((2,2,8),2):((0,16,1),8)", 8, 8),
		mustTV(t, "(128,(4,4)):(0,(1,4))", 4, 4), // every thread holds every cell
	} {
		g := mustGrid(FromTV(tv, ""))
		for width := 0; width <= 24; width++ {
			var b bytes.Buffer
			if err := WriteText(&b, g, Options{CellWidth: width}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			lines := strings.Split(out, "\n")
			refs := map[string]string{}  // "*N" -> owners
			atPos := map[string]string{} // "r,c" -> owners
			for _, l := range lines {
				if m := regexp.MustCompile(`^  (\*\d+) \((\d+,\d+)\): (\S+)$`).FindStringSubmatch(l); m != nil {
					refs[m[1]] = m[3]
					atPos[m[2]] = m[3]
				}
			}
			// Grid rows follow the header; row r's line starts with its label.
			grid := map[int][]string{}
			for _, l := range lines {
				f := strings.Fields(l)
				if len(f) == tv.Cols+1 {
					if r, err := strconv.Atoi(f[0]); err == nil && r < tv.Rows {
						grid[r] = f[1:]
					}
				}
			}
			for r := 0; r < tv.Rows; r++ {
				for c := 0; c < tv.Cols; c++ {
					cell := g.At(r, c)
					if len(cell.Owners) < 2 {
						continue
					}
					lab := grid[r][c]
					if strings.HasPrefix(lab, "*") || strings.HasSuffix(lab, "…") {
						// A reference, possibly cut by a tiny --cell: the
						// legend lists the cell by reference and position.
						full, ok := refs[lab]
						if !ok {
							full, ok = atPos[fmt.Sprintf("%d,%d", r, c)]
						}
						if !ok {
							t.Fatalf("%v width %d: cell (%d,%d) shows %q with no legend line\n%s", tv.Layout, width, r, c, lab, out)
						}
						lab = full
					}
					if got := ownerSet(t, lab); fmt.Sprint(got) != fmt.Sprint(sortedOwners(cell.Owners)) {
						t.Fatalf("%v width %d: cell (%d,%d) shows %q = %v, want %v", tv.Layout, width, r, c, lab, got, cell.Owners)
					}
				}
			}
			if width > 0 && !strings.Contains(out, "…") {
				for _, l := range lines[2:] {
					if f := strings.Fields(l); len(f) == tv.Cols+1 {
						for _, x := range f[1:] {
							if len([]rune(x)) > width {
								t.Fatalf("width %d: label %q is wider than the cell", width, x)
							}
						}
					}
				}
			}
		}
	}
}

func TestCutLabelsAreMarked(t *testing.T) {
	g := mustGrid(FromTV(accTV(t, 16), "acc"))
	var b bytes.Buffer
	if err := WriteText(&b, g, Options{CellWidth: 4, Region: Region{Row0: 8, Row1: 11}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "T0V2") || !strings.Contains(out, "T10…") || !strings.Contains(out, "were cut to the cell width") {
		t.Errorf("width 4 output:\n%s", out)
	}
}

func TestANSIAndText(t *testing.T) {
	g := mustGrid(FromTV(mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4), "bc"))
	var text, ansi bytes.Buffer
	if err := WriteText(&text, g, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteANSI(&ansi, g, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "\x1b") {
		t.Errorf("text output has escape codes")
	}
	// T0V0|T1V0: each owner in its own colour.
	want := escCell(ColorThread, 0, false) + "  T0V0|" + escCell(ColorThread, 1, false) + "T1V0" + escReset
	if !strings.Contains(ansi.String(), want) {
		t.Errorf("ANSI output lacks per-owner colours %q:\n%q", want, ansi.String())
	}
	// Stripping the escapes gives the text grid back (the legend differs).
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(ansi.String(), "")
	if !strings.HasPrefix(stripped, strings.TrimSuffix(text.String(), "\n")) {
		t.Errorf("ANSI without escapes differs from text:\n%s\nvs\n%s", stripped, text.String())
	}
	// Colour schemes pick the key they name.
	for _, c := range []struct {
		by   ColorBy
		t, v int
		key  int
	}{{ColorThread, 37, 0, 37}, {ColorThread, 300, 0, 44}, {ColorWarp, 100, 0, 3}, {ColorWarp, 300, 0, 1}, {ColorLane, 100, 0, 4}, {ColorValue, 3, 18, 2}} {
		if got := ownerKey(c.by, &Cell{}, nil, c.t, c.v); got != c.key {
			t.Errorf("%v key of T%dV%d = %d, want %d", c.by, c.t, c.v, got, c.key)
		}
	}
}

func TestCursorHighlightsThread(t *testing.T) {
	g := mustGrid(FromTV(accTV(t, 8), "acc"))
	var b bytes.Buffer
	if err := WriteANSI(&b, g, Options{Cursor: &Pos{0, 0}, Region: Region{Row1: 9}, NoLegend: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// T0 holds (0,0) (0,1) (8,0) (8,1): one reversed, three marked.
	if n := strings.Count(out, escRev); n != 1 {
		t.Errorf("%d reversed cells, want 1", n)
	}
	if n := strings.Count(out, escMark); n != 3 {
		t.Errorf("%d marked cells, want 3:\n%q", n, out)
	}
	if got := g.CellsOf(0); fmt.Sprint(got) != "[0 1 64 65]" {
		t.Errorf("CellsOf(0) = %v", got)
	}
}

func TestParseRegion(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    Region
		errPart string
	}{
		{"0:16,0:32", Region{0, 16, 0, 32}, ""},
		{"8", Region{8, 9, 0, 0}, ""},
		{",128:", Region{0, 0, 128, 0}, ""},
		{":4,:", Region{0, 4, 0, 0}, ""},
		{"", Region{}, ""},
		{"4:2", Region{}, "empty"},
		{"1,2,3", Region{}, "commas"},
		{"0:x", Region{}, "col 3"},
		{"0:4,a:", Region{}, "col 5"},
		{"-1:4", Region{}, "integer"},
	} {
		got, err := ParseRegion(c.in)
		if c.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), c.errPart) {
				t.Errorf("ParseRegion(%q) error %v, want %q", c.in, err, c.errPart)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseRegion(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	g, _ := NewGrid(4, 8)
	if w, err := (Region{Row1: 99, Col0: 2, Col1: 30}).Resolve(g); err != nil || w != (Region{0, 4, 2, 8}) {
		t.Errorf("ends past the grid: %+v %v, want them clamped", w, err)
	}
	for _, c := range []struct {
		r       Region
		errPart string
	}{{Region{Row0: 4}, "rows start at 4"}, {Region{Col0: 9}, "cols start at 9"}, {Region{Row0: 2, Row1: 2}, "empty"}} {
		if _, err := c.r.Resolve(g); err == nil || !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("Resolve(%+v) = %v, want %q", c.r, err, c.errPart)
		}
	}
}

func FuzzParseRegion(f *testing.F) {
	for _, s := range []string{"0:16,0:32", "8", ",128:", ":", "4:2", "1,2,3", "0:99999999999"} {
		f.Add(s)
	}
	g, _ := NewGrid(64, 256)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRegion(s)
		if err != nil {
			return
		}
		w, err := r.Resolve(g)
		if err != nil {
			return
		}
		if w.Row0 < 0 || w.Row1 > 64 || w.Col0 < 0 || w.Col1 > 256 || w.Row0 >= w.Row1 || w.Col0 >= w.Col1 {
			t.Fatalf("%q resolved to %+v", s, w)
		}
		if back, err := ParseRegion(r.String()); err != nil || back != r {
			t.Fatalf("%q: String %q reads back as %+v, %v", s, r.String(), back, err)
		}
	})
}

func TestJSON(t *testing.T) {
	tv := mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4)
	g := mustGrid(FromTV(tv, "bc"))
	var b bytes.Buffer
	if err := WriteJSON(&b, g, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc JSONGrid
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, b.String())
	}
	if doc.Rows != 16 || doc.Cols != 4 || len(doc.Cells) != 64 || doc.Panels[0].Kind != "owners" || doc.Panels[0].Threads != 32 {
		t.Fatalf("doc header %+v", doc)
	}
	owners := tv.Owners()
	for _, c := range doc.Cells {
		want := owners[c.Row+16*c.Col]
		if len(c.Owners) != len(want) {
			t.Fatalf("cell %+v: want %v", c, want)
		}
		for i, o := range c.Owners {
			if o.Thread != want[i].Thread || o.Value != want[i].Value {
				t.Fatalf("cell %+v: want %v", c, want)
			}
		}
	}
	// A region limits the cells; offsets carry banks.
	l, _ := layouts.ParseAnyLayout("Sw<3,3,3> o 0 o (8,64):(64,1)")
	g = mustGrid(FromLayout(l, 16))
	b.Reset()
	if err := WriteJSON(&b, g, Options{Region: Region{Row0: 1, Row1: 2, Col0: 0, Col1: 2}}); err != nil {
		t.Fatal(err)
	}
	doc = JSONGrid{}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cells) != 2 || *doc.Cells[0].Offset != 72 || *doc.Cells[0].Bank != 4 || doc.Region != (JSONRegion{1, 2, 0, 2}) {
		t.Errorf("region JSON: %s", b.String())
	}
}

// The SVG is well-formed XML, has one group per cell, and lists every
// owner of a shared cell in its tooltip.
func TestSVGParsesAndListsOwners(t *testing.T) {
	for _, g := range []*Grid{
		mustGrid(FromTV(mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4), "pairs & <more>")),
		mustGrid(FromTV(mustTV(t, "(128,(4,4)):(0,(1,4))", 4, 4), "all threads")),
		mustGrid(FromTV(accTV(t, 256), "acc")),
		mmaGrid(t),
	} {
		var b bytes.Buffer
		if err := WriteSVG(&b, g, Options{}); err != nil {
			t.Fatal(err)
		}
		titles, groups := checkXML(t, b.Bytes())
		cells := 0
		for i := range g.Cells {
			if g.Cells[i].Panel >= 0 {
				cells++
			}
		}
		if groups != cells {
			t.Errorf("%s: %d cell groups, want %d", g.Title, groups, cells)
		}
		c := g.At(0, 0)
		if g.PanelOf(c) == nil {
			c = g.At(g.Rows-1, g.Cols-1)
		}
		if len(c.Owners) > 0 {
			// Up to four owners are listed one by one, more in the
			// (lossless) compact form.
			want := string(AppendOwners(nil, c.Owners))
			if len(c.Owners) > maxBands {
				want = string(AppendCompact(nil, c.Owners))
			}
			found := false
			for _, ti := range titles {
				found = found || strings.HasSuffix(ti, ": "+want)
			}
			if !found {
				t.Errorf("%s: no tooltip lists %s", g.Title, want)
			}
		}
	}
}

// checkXML decodes every token and returns the <title> texts and the
// number of cell groups (the <g> elements of a row group).
func checkXML(t *testing.T, b []byte) (titles []string, groups int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	inTitle := false
	var stack []string // the class of each open <g>
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inTitle = e.Name.Local == "title"
			if e.Name.Local == "g" {
				cls := ""
				for _, a := range e.Attr {
					if a.Name.Local == "class" {
						cls = a.Value
					}
				}
				if len(stack) > 0 && stack[len(stack)-1] == "row" {
					groups++
				}
				stack = append(stack, cls)
			}
		case xml.CharData:
			if inTitle {
				titles = append(titles, string(e))
			}
		case xml.EndElement:
			inTitle = false
			if e.Name.Local == "g" {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return titles, groups
}

// The PNG decodes, has the scene's size, and shows each owner's colour.
func TestPNG(t *testing.T) {
	tests := []struct {
		g    *Grid
		o    Options
		want func(c *Cell) []Swatch // the colours expected inside the cell
	}{
		{mustGrid(FromTV(accTV(t, 16), "acc")), Options{}, func(c *Cell) []Swatch { return []Swatch{ThreadSwatch(c.Owners[0].Thread)} }},
		{mustGrid(FromTV(accTV(t, 16), "acc")), Options{Color: ColorWarp, Scale: 1}, func(c *Cell) []Swatch { return []Swatch{WarpSwatch(c.Owners[0].Thread / 32)} }},
		{mustGrid(FromTV(mustTV(t, "((2,16),(2,2)):((0,1),(16,32))", 16, 4), "pairs")), Options{Scale: 3},
			func(c *Cell) []Swatch {
				return []Swatch{ThreadSwatch(c.Owners[0].Thread), ThreadSwatch(c.Owners[1].Thread)}
			}},
		{swGrid(t), Options{}, func(c *Cell) []Swatch { return []Swatch{Palette[c.Bank]} }},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WritePNG(&b, tt.g, tt.o); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("PNG does not decode: %v", err)
		}
		sc, _, err := buildScene(tt.g, tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if bd := img.Bounds(); bd.Dx() != sc.w || bd.Dy() != sc.h {
			t.Fatalf("PNG is %v, scene %dx%d", bd, sc.w, sc.h)
		}
		// Walk the scene's cells; sample each band's fill just inside its
		// left edge, where no glyph reaches.
		cellIdx := 0
		for i := range tt.g.Cells {
			c := &tt.g.Cells[i]
			if c.Panel < 0 {
				continue
			}
			cg := sc.cells[cellIdx]
			cellIdx++
			for k, want := range tt.want(c) {
				r := cg.rects[k]
				x, y := r.x+1+sc.scale, r.y+r.h/2 // past the cell border and panel frame
				got := img.At(x, y)
				wr, wg, wb, _ := want.RGBA().RGBA()
				gr, gg, gb, _ := got.RGBA()
				if wr != gr || wg != gg || wb != gb {
					t.Fatalf("%s cell %d band %d at (%d,%d): colour %v, want %v", tt.g.Title, i, k, x, y, got, want)
				}
			}
		}
	}
}

func swGrid(t testing.TB) *Grid {
	l, err := layouts.ParseAnyLayout("Sw<3,3,3> o 0 o (8,64):(64,1)")
	if err != nil {
		t.Fatal(err)
	}
	return mustGrid(FromLayout(l, 16))
}

// mma.sync m16n8k8 (f16), built here from CuTe's SM80 layouts so that the
// test does not depend on the catalog's contents.
func mmaAtoms(t testing.TB) (a, b, c catalog.Atom) {
	a = catalog.Atom{Name: "test.m16n8k8.a", Family: "mma.sync", Operand: "A", Kind: catalog.KindTV, Rows: 16, Cols: 8, RowName: "m", ColName: "k", ElemBits: 16, ValsPerReg: 2,
		TV: mustTV(t, "((4,8),(2,2)):((32,1),(16,8))", 16, 8)}
	b = catalog.Atom{Name: "test.m16n8k8.b", Family: "mma.sync", Operand: "B", Kind: catalog.KindTV, Rows: 8, Cols: 8, RowName: "n", ColName: "k", ElemBits: 16, ValsPerReg: 2,
		TV: mustTV(t, "((4,8),2):((16,1),8)", 8, 8)}
	c = catalog.Atom{Name: "test.m16n8k8.c", Family: "mma.sync", Operand: "C", Kind: catalog.KindTV, Rows: 16, Cols: 8, RowName: "m", ColName: "n", ElemBits: 32, ValsPerReg: 1,
		TV: mustTV(t, "((4,8),(2,2)):((32,1),(16,8))", 16, 8), Verified: "test"}
	return a, b, c
}

func mmaGrid(t testing.TB) *Grid {
	a, b, c := mmaAtoms(t)
	return mustGrid(MMA(a, b, c))
}

func TestMMAPlacement(t *testing.T) {
	a, b, c := mmaAtoms(t)
	g := mmaGrid(t)
	if g.Rows != 8+1+16 || g.Cols != 8+1+8 || len(g.Panels) != 3 {
		t.Fatalf("MMA grid %dx%d with %d panels", g.Rows, g.Cols, len(g.Panels))
	}
	// C at the origin (rows 9.., cols 9..), A to its left, B above with k down.
	check := func(r, col int, want layouts.Owner, panel, tr, tc int) {
		t.Helper()
		cell := g.At(r, col)
		if cell.Panel != panel || cell.Row != tr || cell.Col != tc || len(cell.Owners) != 1 || cell.Owners[0] != want {
			t.Errorf("grid (%d,%d): panel %d tile (%d,%d) owners %v; want panel %d tile (%d,%d) %v", r, col, cell.Panel, cell.Row, cell.Col, cell.Owners, panel, tr, tc, want)
		}
	}
	for m := 0; m < 16; m++ {
		for k := 0; k < 8; k++ {
			check(9+m, k, a.TV.Owners()[m+16*k][0], 0, m, k)
		}
		for n := 0; n < 8; n++ {
			check(9+m, 9+n, c.TV.Owners()[m+16*n][0], 2, m, n)
		}
	}
	for k := 0; k < 8; k++ {
		for n := 0; n < 8; n++ {
			// B's tile is n×k; drawn transposed, k runs down.
			check(k, 9+n, b.TV.Owners()[n+8*k][0], 1, n, k)
		}
	}
	if g.At(0, 0).Panel != -1 || g.At(8, 12).Panel != -1 || g.At(12, 8).Panel != -1 {
		t.Errorf("the corner and the gaps must be void")
	}
	if g.RowLabel(0) != "k0" || g.RowLabel(9) != "m0" || g.ColLabel(0) != "k0" || g.ColLabel(9) != "n0" {
		t.Errorf("labels %q %q %q %q", g.RowLabel(0), g.RowLabel(9), g.ColLabel(0), g.ColLabel(9))
	}
	// Mismatched tiles are refused.
	c.Rows = 8
	if _, err := MMA(a, b, c); err == nil {
		t.Errorf("MMA accepted C with 8 rows for A with 16")
	}
}

// Golden files: text, ANSI and SVG of several layouts.
func TestGolden(t *testing.T) {
	type gcase struct {
		name string
		g    *Grid
		o    Options
	}
	bcast := mustGrid(FromTV(mustTV(t, "((4,8),(2,2)):((0,1),(8,16))", 8, 4), ""))
	cases := []gcase{
		{"acc64x16", mustGrid(FromTV(accTV(t, 16), "wgmma accumulator 64x16")), Options{Region: Region{Row1: 17}}},
		{"acc64x256_region", mustGrid(FromTV(accTV(t, 256), "wgmma accumulator 64x256")), Options{Region: Region{Row0: 8, Row1: 12, Col0: 120, Col1: 132}, CellWidth: 5, Color: ColorWarp}},
		{"broadcast", bcast, Options{}},
		{"broadcast_narrow", bcast, Options{CellWidth: 4}},
		{"swizzle_sw128_16b", swGrid(t), Options{Region: Region{Col1: 24}}},
		{"plain_boxed", mustGrid(FromLayout(layouts.AnyLayout{L: layouts.MustParse("(4,(2,2)):(2,(1,8))")}, 0)), Options{Boxed: true}},
		{"mma_m16n8k8", mmaGrid(t), Options{Color: ColorLane}},
	}
	for _, c := range cases {
		for _, f := range []Format{FormatText, FormatANSI, FormatSVG} {
			if f == FormatSVG && c.name == "acc64x256_region" {
				continue
			}
			var b bytes.Buffer
			if err := Write(&b, c.g, f, c.o); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+"."+string(f)+".golden", b.Bytes())
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./render -update after checking):\n--- got ---\n%s", name, got)
	}
}

// TestNewGridTooLarge: the refusal states the true cell count, also where
// it overflows int64.
func TestNewGridTooLarge(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		cells      string
	}{{4096, 4096, "16777216 cells"}, {1 << 32, 1 << 32, "18446744073709551616 cells"}, {1 << 62, 8, "36893488147419103232 cells"}} {
		_, err := NewGrid(c.rows, c.cols)
		if err == nil || !strings.Contains(err.Error(), c.cells) {
			t.Errorf("NewGrid(%d, %d): %v; want %q", c.rows, c.cols, err, c.cells)
		}
	}
}

// TestHugeLayoutsRefused: a layout whose size wraps around int (here
// (2^32+1)(2^32-1)(2^32+1)(2^32-1) = 1 mod 2^64) is refused, not drawn as
// one cell; a TV layout with more pairs than MaxCells is refused before
// layouts.NewTV walks them.
func TestHugeLayoutsRefused(t *testing.T) {
	for _, src := range []string{"((4294967297,4294967295,4294967297,4294967295)):((1,1,1,1))", "((4294967297,4294967295,4294967297,4294967295),2):((1,1,1,1),1)"} {
		a, err := layouts.ParseAnyLayout(src)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := FromLayout(a, 0); err == nil {
			t.Errorf("FromLayout(%s) drew a %dx%d grid", src, g.Rows, g.Cols)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"((4294967297,4294967295,4294967297,4294967295),2):((1,1,1,1),1)", "more (thread, value) pairs than the 4194304"},
		{"(1048576,1048576):(0,0)", "more (thread, value) pairs than the 4194304"},
		{"(170000000000,0)", "needs at least one thread and one value"},
		{"(0,1099511627776):(1,1)", "needs at least one thread and one value"},
	} {
		l, err := layouts.ParseAnyLayout(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromTVLayout(l.L, 1, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromTVLayout(%s): %v; want %q", c.src, err, c.want)
		}
	}
}

// TestPictureLimits: pictures too large to draw in reasonable memory are
// refused with the limit named; the same grid still prints as text.
func TestPictureLimits(t *testing.T) {
	g, err := NewGrid(1024, 512)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatSVG, FormatPNG, FormatHTML} {
		if err := Write(io.Discard, g, f, Options{}); err == nil || !strings.Contains(err.Error(), "too many for a picture (the limit is 262144)") {
			t.Errorf("%s of 1024x512 cells: %v", f, err)
		}
	}
	if err := Write(io.Discard, g, FormatText, Options{}); err != nil {
		t.Errorf("text of 1024x512 cells: %v", err)
	}
	small, err := NewGrid(64, 256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Image(small, Options{Scale: 16}); err == nil || !strings.Contains(err.Error(), "pixel image is too large") {
		t.Errorf("64x256 cells at scale 16: %v", err)
	}
	if _, err := Image(small, Options{Scale: 1}); err != nil {
		t.Errorf("64x256 cells at scale 1: %v", err)
	}
}

// TestParseNamesHint: the --color, --label and --format parsers accept any
// case and suggest the nearest name for a misspelt one.
func TestParseNamesHint(t *testing.T) {
	if c, err := ParseColorBy("WARP"); err != nil || c != ColorWarp {
		t.Errorf("ParseColorBy(WARP) = %v, %v", c, err)
	}
	for _, c := range []struct {
		parse func() error
		want  string
	}{
		{func() error { _, err := ParseColorBy("thred"); return err }, "did you mean thread?"},
		{func() error { _, err := ParseLabelMode("bnk"); return err }, "did you mean bank?"},
		{func() error { _, err := ParseFormat("jsn"); return err }, "did you mean json?"},
		{func() error { _, err := ParseFormat("qqqqqq"); return err }, "(want one of text, ansi, json, svg, png, html)"},
	} {
		if err := c.parse(); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%v; want it to end in %q", err, c.want)
		}
	}
}
