package tui

import (
	"bytes"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

// trueBG is the 24-bit background escape of a swatch, as the TUI's grids
// write it (render.Options.TrueColor).
func trueBG(s render.Swatch) string {
	return "48;2;" + itoa(int(s.R)) + ";" + itoa(int(s.G)) + ";" + itoa(int(s.B)) + "m"
}

func snapshot(t *testing.T, cfg Config, w, h int, script string) *Model {
	t.Helper()
	msgs, err := ParseKeys(script)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Snapshot(cfg, w, h, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every view fills the screen exactly, at the smallest supported size,
// at odd sizes and in large terminals, and after live resizes.
func TestSizes(t *testing.T) {
	scripts := map[string]string{
		"layout":  `down right m / "ldmatrix x4" enter v c +`,
		"bitmath": `e "row = tid; col = v" enter esc x d`,
		"swizzle": "a ] a ] a ] w",
		"desc":    "v f down right i",
	}
	for _, view := range viewNames {
		for _, sz := range [][2]int{{80, 24}, {20, 8}, {45, 13}, {61, 19}, {100, 30}, {300, 90}} {
			m := snapshot(t, Config{View: view}, sz[0], sz[1], scripts[view])
			checkFrame(t, m, sz[0], sz[1])
			// Resize live, smaller and larger.
			for _, rs := range [][2]int{{72, 20}, {200, 60}} {
				m.Update(tea.WindowSizeMsg{Width: rs[0], Height: rs[1]})
				checkFrame(t, m, rs[0], rs[1])
			}
		}
	}
}

// A click on a cell selects it; the side panel follows. The wheel
// scrolls the window without moving the cursor.
func TestMouse(t *testing.T) {
	m := snapshot(t, Config{}, 100, 30, "")
	e := m.views[0].(*explorer)
	// Screen row of grid row r: the tab bar, the title line, the column
	// headers; column c starts after the row labels and a blank.
	labelW, headerH := e.pane.g.TextFrame(e.pane.window(), e.pane.zoom)
	x := labelW + 1 + 3*(e.pane.zoom+1) + 1
	y := 1 + 1 + headerH + 5
	m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	if got := e.pane.cur; got != (render.Pos{Row: 5, Col: 3}) {
		t.Fatalf("click at (%d, %d) selected %v, want row 5, col 3", x, y, got)
	}
	if !strings.Contains(m.Plain(), "m 5, n 3") {
		t.Errorf("side panel does not describe the clicked cell:\n%s", m.Plain())
	}
	m.Update(tea.MouseWheelMsg{X: x, Y: y, Button: tea.MouseWheelDown})
	if e.pane.row0 != 3 || e.pane.cur.Row != 5 {
		t.Errorf("wheel down: window row %d cursor row %d, want 3 and 5", e.pane.row0, e.pane.cur.Row)
	}
	m.Update(tea.MouseWheelMsg{X: x, Y: y, Button: tea.MouseWheelDown, Mod: tea.ModShift})
	if e.pane.col0 != 3 {
		t.Errorf("shift+wheel: window column %d, want 3", e.pane.col0)
	}
	// A click on a tab switches views.
	m.Update(tea.MouseClickMsg{X: 14, Y: 0, Button: tea.MouseLeft})
	if m.active != 1 {
		t.Errorf("click on the second tab: active view %d", m.active)
	}
	// Clicks outside the grid do nothing.
	m.Update(tea.MouseClickMsg{X: 0, Y: 0, Button: tea.MouseLeft})
	m.switchTo(0)
	before := e.pane.cur
	m.Update(tea.MouseClickMsg{X: 99, Y: 29, Button: tea.MouseLeft})
	if e.pane.cur != before {
		t.Errorf("click on the help line moved the cursor to %v", e.pane.cur)
	}
}

// The cursor highlights every cell of its thread, in reverse video and
// underlined, and the grid is coloured from render's palette.
func TestHighlight(t *testing.T) {
	m := snapshot(t, Config{Subject: "mma.sync.m16n8.d.f32"}, 80, 24, "")
	e := m.views[0].(*explorer)
	out := e.pane.render()
	if n := strings.Count(out, "\x1b[1;4m"); n != 3 {
		// T0 holds 4 cells of m16n8 (rows 0 and 8, cols 0 and 1): the
		// cursor is drawn reversed, the other three underlined.
		t.Errorf("%d underlined cells, want 3", n)
	}
	if !strings.Contains(out, "\x1b[7m") {
		t.Error("no reverse-video cursor")
	}
	// Threads are coloured by warp (hue) and lane (shade): T0 and T16,
	// both on screen, have colours of their own.
	for _, th := range []int{0, 16} {
		if !strings.Contains(out, trueBG(render.ThreadSwatch(th))) {
			t.Errorf("thread %d's cells do not have its colour", th)
		}
	}
	if render.ThreadSwatch(0) == render.ThreadSwatch(16) {
		t.Error("T0 and T16 share a colour")
	}
}

// Under NO_COLOR the terminal gets no colour codes, but the cursor is
// still marked (reverse video); with colours it gets xterm-256 codes.
func TestNoColor(t *testing.T) {
	for _, tc := range []struct {
		noColor bool
		profile colorprofile.Profile
	}{{true, colorprofile.ANSI256}, {false, colorprofile.ANSI256}} {
		m, err := New(Config{NoColor: tc.noColor})
		if err != nil {
			t.Fatal(err)
		}
		opts := append([]tea.ProgramOption{tea.WithColorProfile(tc.profile)}, ProgramOptions(Config{NoColor: tc.noColor})...)
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24), teatest.WithProgramOptions(opts...))
		// WaitFor consumes what it reads: keep it.
		var seen []byte
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen = append(seen[:0], b...)
			return bytes.Contains(b, []byte("T1V0"))
		}, teatest.WithDuration(30*time.Second))
		tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
		rest, err := io.ReadAll(tm.FinalOutput(t, teatest.WithFinalTimeout(60*time.Second)))
		if err != nil {
			t.Fatal(err)
		}
		s := string(seen) + string(rest)
		hasColor := strings.Contains(s, "48;5;") || strings.Contains(s, "38;5;")
		if hasColor == tc.noColor {
			t.Errorf("NoColor=%v: colour codes present=%v", tc.noColor, hasColor)
		}
		if !strings.Contains(s, "\x1b[7m") && !strings.Contains(s, ";7m") && !strings.Contains(s, "[7;") {
			t.Errorf("NoColor=%v: no reverse video for the cursor", tc.noColor)
		}
		// Quitting leaves the alternate screen.
		if !strings.Contains(s, "\x1b[?1049l") {
			t.Errorf("NoColor=%v: the alternate screen is not left on quit", tc.noColor)
		}
	}
	// The snapshot path honours NoColor too.
	m := snapshot(t, Config{NoColor: true}, 80, 24, "")
	if s := m.ANSI(); strings.Contains(s, "48;5;") || !strings.Contains(s, "\x1b[7m") {
		t.Error("ANSI() under NoColor keeps colours or drops reverse video")
	}
}

// q and ctrl+c quit from every view; inside a text field q is typed and
// ctrl+c still quits.
func TestQuit(t *testing.T) {
	for i := range viewNames {
		m, _ := New(Config{View: viewNames[i]})
		if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd == nil || cmd() != tea.Quit() {
			t.Errorf("%s: q does not quit", viewNames[i])
		}
	}
	m := snapshot(t, Config{View: "bitmath"}, 80, 24, "e q")
	if !m.views[1].capturing() {
		t.Fatal("e does not focus the formula box")
	}
	if b := m.views[1].(*bitmathView); b.input.Value() != "q" {
		t.Errorf("q in the box: value %q", b.input.Value())
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}); cmd == nil || cmd() != tea.Quit() {
		t.Error("ctrl+c in the box does not quit")
	}
	if m.View().Content != "" {
		t.Error("the view after quitting is not empty")
	}
}

func TestTabs(t *testing.T) {
	m := snapshot(t, Config{}, 80, 24, "")
	for i, want := range []string{"Bitmath of", "Swizzle & banks", "Descriptor 0x", "No kernel is open", "wgmma.m64n64.d.f32  64x64"} {
		m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
		if !strings.Contains(m.Plain(), want) {
			t.Errorf("after %d tabs the screen lacks %q", i+1, want)
		}
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if m.active != 4 {
		t.Errorf("shift+tab: view %d, want 4", m.active)
	}
	m.Update(tea.KeyPressMsg{Code: '3', Text: "3"})
	if m.active != 2 {
		t.Errorf("3: view %d, want 2", m.active)
	}
	if _, err := New(Config{View: "steper"}); err == nil || !strings.Contains(err.Error(), "layout, bitmath, swizzle, desc, stepper") {
		t.Errorf("unknown view: %v", err)
	}
}

// The explorer's side panel substitutes the cell's numbers into the
// bitmath, and the bitmath panel follows the MMA operand under the cursor.
func TestSidePanelBitmath(t *testing.T) {
	// Cell (17, 9) of the m64n64 accumulator: T36 V5 (warp 1, lane 4):
	// rows 16-31 are warp 1's, row 17 is lanes 4-7, col 9 = 8 + 1 is the
	// second value of the second 8-column group of lane%4 = 0.
	m := snapshot(t, Config{}, 120, 40, strings.Repeat("down ", 17)+strings.Repeat("right ", 9))
	s := m.Plain()
	for _, want := range []string{"m 17, n 9", "T36 V5", "tid 36 = warp 1, lane 4", "value 5 = register 5",
		"wid = tid >> 5 = 36 >> 5 = 1", "frag_row = (wid << 4) + (lane >> 2)", "= (1 << 4) + (4 >> 2) = 17",
		"col = frag_col + ((v >> 2) << 3) + (v & 1)", "= 0 + ((5 >> 2) << 3) + (5 & 1) = 9",
		"inverse (row 17, col 9)", "tid = (wid << 5) + lane = (1 << 5) + 4 = 36"} {
		if !strings.Contains(s, want) {
			t.Errorf("side panel lacks %q:\n%s", want, s)
		}
	}
	m = snapshot(t, Config{Subject: "mma.sync.m16n8k16", MMA: true}, 120, 40, "left left left left left left left left left 2")
	if !strings.Contains(m.Plain(), "Bitmath of mma.sync.m16k16.a.b16") {
		t.Errorf("the bitmath view does not follow the A operand:\n%s", m.Plain())
	}
}

func TestBitmathCheck(t *testing.T) {
	for _, tc := range []struct{ formula, want string }{
		{"row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)", "forward formula for wgmma.m64n64.d.f32: correct"},
		{"row = (wid<<4) + (lane>>2); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)", "wrong: at tid=0, v=2"},
		{"tid = ((row>>4)<<5) + ((row&7)<<2) + ((col>>1)&3); v = ((col>>3)<<2) + ((row&8)>>2) + (col&1)", "inverse formula for wgmma.m64n64.d.f32: correct"},
		{"row = (tid <<", "malformed"},
		{"row = tid / (v - v); col = 0", "cannot evaluate"},
	} {
		m := snapshot(t, Config{View: "bitmath"}, 120, 30, `e "`+tc.formula+`" enter`)
		if s := m.Plain(); !strings.Contains(s, tc.want) {
			t.Errorf("%s: the result lacks %q:\n%s", tc.formula, tc.want, s)
		}
	}
}

func TestSwizzleConflicts(t *testing.T) {
	m := snapshot(t, Config{View: "swizzle", SMEM: "(64,64):(64,1) b16"}, 120, 30, "")
	if got := costLine(m.views[2].(*swizzleView).instrs); got != "16 phases, 128 wavefronts (ideal 16): 8.00x, worst phase 8-way" {
		t.Errorf("row-major 64x64 bf16 stores from the accumulator should be 8-way conflicted: %s", got)
	}
	if s := m.Plain(); !strings.Contains(s, "8 wavefronts (banks 0-3)") || !strings.Contains(s, "0!") {
		t.Errorf("the conflicting phase is not shown:\n%s", s)
	}
	m = snapshot(t, Config{View: "swizzle"}, 120, 30, "")
	if got := costLine(m.views[2].(*swizzleView).instrs); got != "16 phases, 16 wavefronts (ideal 16): conflict-free" {
		t.Errorf("the 128B swizzle should remove the conflicts: %s", got)
	}
	// A bad typed layout is reported, the view keeps its layout.
	m = snapshot(t, Config{View: "swizzle"}, 120, 30, `s "(64,64):(64,1)" enter`)
	if s := m.Plain(); !strings.Contains(s, "give the element width") || !strings.Contains(s, "smem.k.sw128.b16") {
		t.Errorf("missing element width not reported:\n%s", s)
	}
}

func TestDescEditing(t *testing.T) {
	m := snapshot(t, Config{View: "desc"}, 100, 30, "right")
	d := m.views[3].(*descView)
	if d.value != 0x4000004000010041 {
		t.Errorf("start +16 bytes: %#x, want 0x4000004000010041", d.value)
	}
	m = snapshot(t, Config{View: "desc"}, 100, 30, `e ctrl+u "0x12" enter`)
	if d := m.views[3].(*descView); d.value != 0x12 {
		t.Errorf("typed 0x12: value %#x", d.value)
	}
	m = snapshot(t, Config{View: "desc"}, 100, 30, `e ctrl+u "zz" enter`)
	if s := m.Plain(); !strings.Contains(s, `"zz" is not a number`) {
		t.Errorf("a bad value is not reported:\n%s", s)
	}
	m = snapshot(t, Config{View: "desc"}, 100, 30, `down down down down enter ctrl+u "64B" enter`)
	if s := m.Plain(); !strings.Contains(s, "swizzle     64B") {
		t.Errorf("typing the swizzle mode did not set it:\n%s", s)
	}
	m = snapshot(t, Config{View: "desc"}, 100, 30, "T ctrl+u \"64x32\" enter")
	if s := m.Plain(); !strings.Contains(s, "tile 64x32") {
		t.Errorf("the tile did not change:\n%s", s)
	}
	if _, err := New(Config{Desc: "0xg"}); err == nil {
		t.Error("a bad --desc value is accepted")
	}
	// The value reads as tcsim desc reads it: bare hex, separators.
	for text, want := range map[string]uint64{"40000040000a0040": 0x40000040000a0040, "0x4000'0040'0001'0040": 0x4000004000010040, "010": 10} {
		m = snapshot(t, Config{View: "desc"}, 100, 30, `e ctrl+u "`+text+`" enter`)
		if d := m.views[3].(*descView); d.value != want {
			t.Errorf("typed %s: value %#x, want %#x", text, d.value, want)
		}
	}
}

func TestParseKeys(t *testing.T) {
	msgs, err := ParseKeys(`a Q enter shift+tab ctrl+c space "x y" click:3,4 wheeldown:1,2 ?`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		switch m := m.(type) {
		case tea.KeyPressMsg:
			got = append(got, m.String())
		case tea.MouseClickMsg:
			got = append(got, "click "+itoa(m.X)+","+itoa(m.Y))
		case tea.MouseWheelMsg:
			got = append(got, "wheel "+itoa(m.X)+","+itoa(m.Y))
		}
	}
	want := "a Q enter shift+tab ctrl+c space x space y click 3,4 wheel 1,2 ?"
	if strings.Join(got, " ") != want {
		t.Errorf("ParseKeys = %q, want %q", strings.Join(got, " "), want)
	}
	for _, bad := range []string{`"open`, "click:1", "click:a,b", "nosuchkey", "ctrl+"} {
		if _, err := ParseKeys(bad); err == nil {
			t.Errorf("ParseKeys(%q): no error", bad)
		}
	}
}

func FuzzParseKeys(f *testing.F) {
	for _, s := range []string{"a b", `"text" enter`, "click:1,2", "ctrl+shift+up", `"`, "wheelup:0,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msgs, err := ParseKeys(s)
		if err != nil {
			return
		}
		// Any parsed script runs without panicking.
		if len(msgs) > 50 {
			msgs = msgs[:50]
		}
		m, err := Snapshot(Config{}, 80, 24, msgs)
		if err != nil {
			t.Fatal(err)
		}
		_ = m.Content()
	})
}

// The PNG screenshot is drawn by render from the captured screen: its
// size follows the screen, and the cells carry the palette colours
// (none under NoColor).
func TestScreenshotPNG(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := snapshot(t, Config{NoColor: noColor}, 80, 24, "")
		scr, err := m.Screen()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := render.WriteScreenPNG(&buf, scr, 1); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 80*6 || b.Dy() != 24*11 {
			t.Fatalf("PNG is %v, want 480x264", b)
		}
		want := render.ThreadSwatch(0).RGBA() // thread 0's colour
		found := false
		for y := 0; y < img.Bounds().Dy() && !found; y++ {
			for x := 0; x < img.Bounds().Dx(); x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B {
					found = true
					break
				}
			}
		}
		if found == noColor {
			t.Errorf("NoColor=%v: thread 0's palette colour present=%v", noColor, found)
		}
		// The captured text is the screen's.
		var line strings.Builder
		for x := 0; x < scr.Cols; x++ {
			if r := scr.At(x, 0).Rune; r != 0 {
				line.WriteRune(r)
			}
		}
		if !strings.HasPrefix(line.String(), " 1 Layout │ 2 Bitmath") {
			t.Errorf("first captured line %q", line.String())
		}
	}
}

func TestSubjects(t *testing.T) {
	for _, tc := range []struct {
		text, want string // want: "" for an error
		rows, cols int
	}{
		{"wgmma.m64n64.d.f32", "wgmma.m64n64.d.f32", 64, 64},
		{"  WGMMA.M64N64.D.F32 ", "wgmma.m64n64.d.f32", 64, 64},
		{"(8,8):(8,1)", "(8,8):(8,1)", 8, 8},
		{"((4,8),(2,2,2)):((32,1),(16,8,128)) 16x16", "((4,8),(2,2,2)):((32,1),(16,8,128)) on a 16x16 tile", 16, 16},
		{"Sw<3,3,3> o 0 o (8,64):(64,1) b16", "Sw<3,3,3> o 0 o (8,64):(64,1)", 8, 64},
		{"composition((8,8):(8,1), (4,4):(1,8))", "(4,4):(8,1)", 4, 4},
		{"(8,8):(8,1", "", 0, 0},
		{"wgmma.m64n64.d.f33", "", 0, 0},
		{"(8,8):(8,1) 4x4", "", 0, 0},
		{"", "", 0, 0},
	} {
		s, err := newSubject(tc.text)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: no error", tc.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if s.grid.Title != tc.want || s.grid.Rows != tc.rows || s.grid.Cols != tc.cols {
			t.Errorf("%q: grid %q %dx%d, want %q %dx%d", tc.text, s.grid.Title, s.grid.Rows, s.grid.Cols, tc.want, tc.rows, tc.cols)
		}
	}
	_, err := newSubject("wgmma.m64n64.d.f33")
	if err == nil || !strings.Contains(err.Error(), "nearest: wgmma.m64n64.d.f32") {
		t.Errorf("a misspelt atom: %v", err)
	}
}

func FuzzSubject(f *testing.F) {
	for _, s := range []string{"(8,8):(8,1)", "Sw<3,3,3> o 0 o (8,64):(64,1) b16", "((4,8),(2,2)):((16,1),(8,64)) 16x16", "composition(4:1, 2:2)", "wgmma.m64n64.d.f32", "(2,2):(1,2) 2x2 b8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sub, err := newSubject(s)
		if err != nil {
			return
		}
		// A subject that parses draws and derives without panicking.
		if sub.grid.Rows*sub.grid.Cols > render.MaxCells {
			t.Fatalf("%q: grid %dx%d", s, sub.grid.Rows, sub.grid.Cols)
		}
		if sub.grid.Rows*sub.grid.Cols <= 4096 {
			sub.mathOf(0)
		}
	})
}

// The picker ranks exact words first, then fuzzy subsequences.
func TestPicker(t *testing.T) {
	var p picker
	p.open("t", "", catalog.All(), true)
	for _, tc := range []struct{ query, first string }{
		{"wgmma m64n256 d", "wgmma.m64n256.d.f32"},
		{"ldmx4tr", "ldmatrix.m8n8.x4.trans.b16"},
		{"smem sw128 b16 k", "smem.k.sw128.b16"},
		{"mma.sync.m16n8k16", "mma.sync.m16k16.a.b16"},
	} {
		p.input.SetValue(tc.query)
		p.refilter()
		if len(p.shown) == 0 || p.items[p.shown[0]].Name != tc.first {
			name := "(none)"
			if len(p.shown) > 0 {
				name = p.items[p.shown[0]].Name
			}
			t.Errorf("%q: first match %s, want %s", tc.query, name, tc.first)
		}
	}
	p.input.SetValue("zzzzqqq")
	p.refilter()
	if len(p.shown) != 0 {
		t.Errorf("nonsense matched %d atoms", len(p.shown))
	}
	if res := p.choose(); res == nil || res.typed != "zzzzqqq" {
		t.Errorf("enter on no match should take the typed text: %+v", res)
	}
	p.open("t", "", catalog.All(), true)
	p.input.SetValue("(8,8):(8,1)")
	p.refilter()
	if res := p.choose(); res == nil || res.typed != "(8,8):(8,1)" {
		t.Errorf("a layout is taken as typed text: %+v", res)
	}
}

func TestSmallHelpers(t *testing.T) {
	if got := runs([]int{5, 0, 1, 2, 8, 9, 2}); got != "0-2,5,8-9" {
		t.Errorf("runs = %q", got)
	}
	if got := fitLine("\x1b[31mabcdef\x1b[0m", 3); ansi.Strip(got) != "abc" || !strings.HasSuffix(got, "\x1b[0m") {
		t.Errorf("fitLine cut = %q", got)
	}
	if got := fitLine("ab", 4); got != "ab  " {
		t.Errorf("fitLine pad = %q", got)
	}
	if got := wrap("aaa bbb ccc", 7, 2); strings.Join(got, "|") != "aaa bbb|  ccc" {
		t.Errorf("wrap = %q", got)
	}
	if got := wrap("abcdefghij", 4, 0); strings.Join(got, "|") != "abcd|efgh|ij" {
		t.Errorf("wrap long word = %q", got)
	}
}

// TestMonkey presses random keys and clicks in every view, resizing now
// and then: nothing panics and every frame fills the screen exactly.
func TestMonkey(t *testing.T) {
	// Every view's keys, vim's too (O, the file picker, is left out: what
	// it finds depends on the machine's directories).
	keys := strings.Fields("up down left right pgup pgdown home end + - a b c d e f g G h H i j k K l L m n N o p P s t T u v w W x z [ ] , . ? / $ enter esc backspace 1 2 3 4 tab shift+tab space 0 7 ( ) : 8 x ctrl+j ctrl+k ctrl+f ctrl+b")
	rng := uint64(1)
	next := func(n int) int {
		rng = rng*6364136223846793005 + 1442695040888963407
		return int(rng>>33) % n
	}
	for _, view := range viewNames {
		m, err := New(Config{View: view})
		if err != nil {
			t.Fatal(err)
		}
		w, h := 80, 24
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		for i := 0; i < 1500; i++ {
			var msg tea.Msg
			switch r := next(20); {
			case r == 0:
				w, h = 20+next(150), 8+next(50)
				msg = tea.WindowSizeMsg{Width: w, Height: h}
			case r == 1:
				msg = tea.MouseClickMsg{X: next(w), Y: next(h), Button: tea.MouseLeft}
			case r == 2:
				msg = tea.MouseWheelMsg{X: next(w), Y: next(h), Button: tea.MouseWheelDown}
			default:
				k := keys[next(len(keys))]
				if k == "q" || k == "ctrl+c" {
					continue
				}
				msgs, err := ParseKeys(k)
				if err != nil {
					t.Fatal(err)
				}
				msg = msgs[0]
			}
			m.Update(msg)
			m.settle()
			if i%50 == 0 || testing.Verbose() {
				if n := strings.Count(m.Content(), "\n") + 1; n != h {
					t.Fatalf("%s, step %d (%T %v): %d lines, want %d; active view %d, help %d lines, body %d\n%s", view, i, msg, msg, n, h, m.active, m.helpHeight(), m.bodyHeight(), m.Plain())
				}
				checkFrame(t, m, w, h)
			}
		}
		checkFrame(t, m, w, h)
	}
}

// Colouring by register gives the two halves of a .f16x2 register one
// colour; colouring by value gives them two.
func TestColorByRegister(t *testing.T) {
	bg := func(k int) string { return trueBG(render.Palette[k]) }
	for _, tc := range []struct {
		presses string
		want    []int // the colours of row 0's first four cells: T0V0 T0V1 T1V0 T1V1
	}{
		{"c c c c", []int{0, 1, 0, 1}},   // value
		{"c c c c c", []int{0, 0, 0, 0}}, // register: v0 and v1 are register 0
	} {
		m := snapshot(t, Config{Subject: "mma.sync.m16k16.a.b16"}, 100, 30, tc.presses)
		e := m.views[0].(*explorer)
		lines := strings.Split(e.pane.render(), "\n")
		row := lines[1] // after the column headers
		got := strings.Split(row, "\x1b[0m")[:4]
		for i, k := range tc.want {
			if !strings.Contains(got[i], bg(k)) {
				t.Errorf("%s (%s): cell %d is not palette colour %d: %q", tc.presses, e.colorName(), i, k, got[i])
			}
		}
	}
}
