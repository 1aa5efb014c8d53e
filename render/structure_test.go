package render

import (
	"bytes"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts/catalog"
)

// Thread colours show the warp structure: a hue per warp, a shade per
// lane, so that T0, T16 and T32 (one colour under "thread mod 16") differ,
// every thread of a warpgroup has its own colour, and black text stays
// readable.
func TestThreadColours(t *testing.T) {
	for _, tc := range []struct {
		a, b int
		same bool
	}{
		{0, 16, false}, // lanes 0 and 16 of warp 0: two shades
		{0, 32, false}, // lane 0 of warps 0 and 1: two hues
		{0, 256, true}, // 8 warps of hues: warp 8 is warp 0's hue again
		{5, 5 + 256, true},
		{31, 63, false},
	} {
		if got := ThreadSwatch(tc.a) == ThreadSwatch(tc.b); got != tc.same {
			t.Errorf("ThreadSwatch(%d) == ThreadSwatch(%d) is %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	seen := map[Swatch]int{}
	for th := 0; th < 128; th++ {
		s := ThreadSwatch(th)
		if o, ok := seen[s]; ok {
			t.Errorf("threads %d and %d of a warpgroup share colour %v", o, th, s)
		}
		seen[s] = th
		h, l := hueLightness(s.RGBA())
		if d := math.Abs(h - WarpHues[th/32]); math.Min(d, 360-d) > 6 {
			t.Errorf("thread %d: hue %.0f, want warp %d's %.0f", th, h, th/32, WarpHues[th/32])
		}
		if l < 0.55 {
			t.Errorf("thread %d: lightness %.2f is too dark for black text", th, l)
		}
		if th%32 > 0 {
			if _, prev := hueLightness(ThreadSwatch(th - 1).RGBA()); l >= prev {
				t.Errorf("thread %d: lightness %.3f is not below lane %d's %.3f (lanes darken)", th, l, th%32-1, prev)
			}
		}
		// The xterm-256 fallback keeps the hue family: it is the cube
		// colour nearest to the swatch.
		x := xterm(s.Xterm)
		if d := colourDist(x, s); d > 60 {
			t.Errorf("thread %d: xterm %d is %.0f away from %v", th, s.Xterm, d, s)
		}
	}
	for w := 0; w < 8; w++ {
		h, _ := hueLightness(WarpSwatch(w).RGBA())
		if d := math.Abs(h - WarpHues[w]); math.Min(d, 360-d) > 6 {
			t.Errorf("warp %d: hue %.0f, want %.0f", w, h, WarpHues[w])
		}
	}
}

func colourDist(a, b Swatch) float64 {
	dr, dg, db := float64(a.R)-float64(b.R), float64(a.G)-float64(b.G), float64(a.B)-float64(b.B)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}

// hueLightness returns the HSL hue (degrees) and lightness of c.
func hueLightness(c color.RGBA) (h, l float64) {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	l = (mx + mn) / 2
	d := mx - mn
	switch {
	case d == 0:
		return 0, l
	case mx == r:
		h = math.Mod((g-b)/d, 6)
	case mx == g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, l
}

// The legends say what the colours mean: per warp for threads, with the
// warps the grid has.
func TestLegendRows(t *testing.T) {
	acc := mustGrid(FromTV(accTV(t, 16), "acc")) // one warpgroup
	for _, tc := range []struct {
		by   ColorBy
		g    *Grid
		want string
	}{
		{ColorThread, acc, "warp 0: T0 T8 T16 T24 T31|warp 1: T32 T40 T48 T56 T63|warp 2: T64 T72 T80 T88 T95|warp 3: T96 T104 T112 T120 T127"},
		{ColorWarp, acc, "W0 W1 W2 W3"},
		{ColorValue, acc, "V0 V1 V2 V3 V4 V5 V6 V7 V8 V9 V10 V11 V12 V13 V14 V15"},
	} {
		var rows []string
		for _, r := range legendRows(tc.by, tc.g) {
			s := strings.Join(r.labels, " ")
			if r.head != "" {
				s = r.head + ": " + s
			}
			rows = append(rows, s)
		}
		if got := strings.Join(rows, "|"); got != tc.want {
			t.Errorf("%v legend:\n got %s\nwant %s", tc.by, got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := WriteANSI(&b, acc, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "colour = thread: hue = warp (mod 8), shade = lane") {
		t.Errorf("the ANSI legend does not explain the thread colours:\n%s", b.String())
	}
}

// TrueColor writes 24-bit cell colours (the TUI); the default stays
// xterm-256.
func TestTrueColor(t *testing.T) {
	g := mustGrid(FromTV(accTV(t, 8), "acc"))
	for _, tc := range []struct {
		true24 bool
		want   string
	}{
		{false, cellEsc(ThreadSwatch(0), false)},
		{true, cellEsc(ThreadSwatch(0), true)},
	} {
		b, err := AppendGrid(nil, g, Options{TrueColor: tc.true24}, true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("TrueColor %v: no %q in %q", tc.true24, tc.want, b)
		}
	}
	s := ThreadSwatch(40)
	if got, want := cellEsc(s, true), "\x1b[38;5;16;48;2;"; !strings.HasPrefix(got, want) {
		t.Errorf("24-bit escape %q, want prefix %q", got, want)
	}
}

// Clean pictures (tcsim render --clean) keep the title and drop the
// notes and the window line.
func TestClean(t *testing.T) {
	a, err := catalog.Lookup("mma.sync.m16n8.d.f32")
	if err != nil {
		t.Fatal(err)
	}
	g := mustGrid(FromAtom(a))
	note := "accumulator C/D f32"
	for _, f := range []Format{FormatText, FormatSVG, FormatHTML} {
		for _, clean := range []bool{false, true} {
			var b bytes.Buffer
			if err := Write(&b, g, f, Options{Clean: clean, Region: Region{Row1: 4}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "mma.sync.m16n8.d.f32") {
				t.Errorf("%s clean=%v: no title", f, clean)
			}
			if got := strings.Contains(out, note); got == clean {
				t.Errorf("%s clean=%v: note shown %v", f, clean, got)
			}
			if got := strings.Contains(out, "showing rows"); got == clean {
				t.Errorf("%s clean=%v: window line shown %v", f, clean, got)
			}
		}
	}
}

// The HTML of a wgmma.m64n64k16 MMA (6,144 cells, a whole-warpgroup B)
// stays under 1 MB: fills are CSS classes, stripes one gradient, cell
// geometry shared (it was 4.3 MB with inline styles per cell).
func TestHTMLSize(t *testing.T) {
	a, b, c, err := catalog.MMAOperands("wgmma.m64n64k16")
	if err != nil {
		t.Fatal(err)
	}
	g, err := MMA(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatHTML, FormatSVG} {
		var buf bytes.Buffer
		if err := Write(&buf, g, f, Options{}); err != nil {
			t.Fatal(err)
		}
		if n := buf.Len(); n >= 1_000_000 {
			t.Errorf("%s of wgmma.m64n64k16: %d bytes, want under 1 MB", f, n)
		} else {
			t.Logf("%s of wgmma.m64n64k16: %d bytes", f, n)
		}
		if f == FormatSVG {
			titles, groups := checkXML(t, buf.Bytes())
			if groups != 64*16+16*64+64*64 {
				t.Errorf("%d cell groups, want %d", groups, 64*16+16*64+64*64)
			}
			want := "T0-127V0"
			found := false
			for _, ti := range titles {
				found = found || strings.HasSuffix(ti, ": "+want)
			}
			if !found {
				t.Errorf("no tooltip lists B's broadcast %s", want)
			}
		}
	}
}

// TMEM cells name the CTA of a 2-CTA pair and the byte of a sub-word
// element (block-scale factors).
func TestTMEMLabels(t *testing.T) {
	for _, tc := range []struct {
		atom     string
		row, col int
		want     string
	}{
		{"tcgen05.tmem.m256n64.d.cta2", 0, 0, "c0:L0C0"},
		{"tcgen05.tmem.m256n64.d.cta2", 127, 3, "c0:L127C3"},
		{"tcgen05.tmem.m256n64.d.cta2", 128, 0, "c1:L0C0"},
		{"tcgen05.tmem.m128n64.d.cta2", 64, 33, "c1:L64C1"},
		{"tcgen05.tmem.m128n64.d.cta1", 64, 1, "L64C1"},
		{"tcgen05.tmem.sf.m128", 0, 0, "L0C0b0"},
		{"tcgen05.tmem.sf.m128", 0, 3, "L0C0b3"},
		{"tcgen05.tmem.sf.m128", 33, 2, "L33C1b2"},
	} {
		a, err := catalog.Lookup(tc.atom)
		if err != nil {
			t.Fatal(err)
		}
		g := mustGrid(FromAtom(a))
		c := g.At(tc.row, tc.col)
		if got := string(appendBase(nil, c, g.PanelOf(c), LabelAuto)); got != tc.want {
			t.Errorf("%s (%d,%d): label %q, want %q", tc.atom, tc.row, tc.col, got, tc.want)
		}
	}
}

// JSON gives a TMEM cell its lane, column, CTA (of a pair) and byte.
func TestTMEMJSON(t *testing.T) {
	for _, tc := range []struct {
		atom              string
		row, col          int
		lane, column, cta int
		byte              int // -1: none
		ctaSet            bool
	}{
		{"tcgen05.tmem.m256n64.d.cta2", 200, 5, 72, 5, 1, -1, true},
		{"tcgen05.tmem.sf.m128", 33, 2, 33, 1, 0, 2, false},
		{"tcgen05.tmem.m128n64.d.cta1", 3, 4, 3, 4, 0, -1, false},
	} {
		a, err := catalog.Lookup(tc.atom)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ToJSON(mustGrid(FromAtom(a)), Options{Region: Region{Row0: tc.row, Row1: tc.row + 1, Col0: tc.col, Col1: tc.col + 1}})
		if err != nil {
			t.Fatal(err)
		}
		c := doc.Cells[0]
		if c.Lane == nil || *c.Lane != tc.lane || *c.Column != tc.column || (c.CTA != nil) != tc.ctaSet || tc.ctaSet && *c.CTA != tc.cta ||
			(c.Byte != nil) != (tc.byte >= 0) || tc.byte >= 0 && *c.Byte != tc.byte {
			t.Errorf("%s (%d,%d): %+v", tc.atom, tc.row, tc.col, c)
		}
		if !doc.Panels[0].TMEM || (doc.Panels[0].CTAs == 2) != tc.ctaSet {
			t.Errorf("%s: panel %+v", tc.atom, doc.Panels[0])
		}
	}
}
