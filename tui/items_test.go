package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/render"
)

// The key page lists the active view's keys first and the app's after,
// scrolls over what the screen cannot hold, and closes with esc or ?.
func TestHelpPage(t *testing.T) {
	for _, view := range viewNames {
		m := snapshot(t, Config{View: view}, 80, 24, "?")
		if !m.page.on {
			t.Fatalf("%s: ? did not open the key page", view)
		}
		lines := m.helpLines(80)
		first, global := -1, -1
		for i, l := range lines {
			switch plain := strings.TrimSpace(stripANSI(l)); {
			case strings.HasSuffix(plain, " keys") && first < 0:
				first = i
			case plain == "Global keys":
				global = i
			}
		}
		title := m.views[m.active].title()
		if first != 0 || !strings.HasPrefix(stripANSI(lines[0]), title+" keys") || global <= first {
			t.Errorf("%s: the view's keys (line %d) do not come before the global ones (line %d)", view, first, global)
		}
		// Everything is reachable: G shows the last line, g the first.
		m.Update(keyMsg(t, "G"))
		if s := m.Plain(); !strings.Contains(s, "Mouse: a click selects") {
			t.Errorf("%s: G does not reach the end of the key page:\n%s", view, s)
		}
		m.Update(keyMsg(t, "g"))
		if s := m.Plain(); !strings.Contains(s, title+" keys") {
			t.Errorf("%s: g does not go back to the top:\n%s", view, s)
		}
		m.Update(keyMsg(t, "j"))
		if m.page.vp.YOffset() != 1 && len(lines) > m.page.vp.Height() {
			t.Errorf("%s: j does not scroll the page", view)
		}
		m.Update(keyMsg(t, "esc"))
		if m.page.on {
			t.Errorf("%s: esc does not close the page", view)
		}
		m.Update(keyMsg(t, "?"))
		m.Update(keyMsg(t, "?"))
		if m.page.on {
			t.Errorf("%s: ? does not close the page", view)
		}
	}
	// q quits from the page; tab shows the next view's keys.
	m := snapshot(t, Config{}, 80, 24, "? tab")
	if !m.page.on || !strings.Contains(m.Plain(), "Bitmath keys") {
		t.Errorf("tab on the key page:\n%s", m.Plain())
	}
	if _, cmd := m.Update(keyMsg(t, "q")); cmd == nil || !m.quit {
		t.Error("q on the key page does not quit")
	}
}

// The bottom line always ends with the keys that show the rest and quit,
// at every width; long status lines end in "…".
func TestShortHelpAndStatus(t *testing.T) {
	for _, w := range []int{40, 60, 80, 120} {
		for _, view := range viewNames {
			m := snapshot(t, Config{View: view}, w, 24, "")
			last := m.Plain()
			lines := strings.Split(strings.TrimSuffix(last, "\n"), "\n")
			if l := lines[len(lines)-1]; !strings.Contains(l, "? keys") || !strings.HasSuffix(l, "q quit") || strings.Contains(l, "…") {
				t.Errorf("%s at %d columns: bottom line %q", view, w, l)
			}
		}
	}
	if got := stripANSI(fitStatus(strings.Repeat("x", 100), 20)); got != strings.Repeat("x", 19)+"…" {
		t.Errorf("a long status: %q", got)
	}
}

// The tab names shorten so that the note on the right shows whole where
// it can; a click still finds each tab.
func TestTabForms(t *testing.T) {
	for _, tc := range []struct {
		w       int
		cfg     Config
		want    string // a tab label
		note    string // the whole note, or its end after "…"
		cutNote bool
	}{
		{120, Config{}, "4 Descriptor", "wgmma.m64n64.d.f32", false},
		{80, Config{}, "4 Desc", "wgmma.m64n64.d.f32", false},
		{80, Config{Subject: "tcgen05.tmem.m256n64.d.cta2"}, "2 Bits", "tcgen05.tmem.m256n64.d.cta2", false},
		{60, Config{Subject: "tcgen05.tmem.m256n64.d.cta2"}, " 1 Layout │ 2 │", "tcgen05.tmem.m256n64.d.cta2", false},
		{50, Config{Subject: "tcgen05.tmem.m256n64.d.cta2"}, " 1 Layout │ 2 │", "m256n64.d.cta2", true},
	} {
		m := snapshot(t, tc.cfg, tc.w, 24, "")
		top := strings.Split(m.Plain(), "\n")[0]
		if !strings.Contains(top, tc.want) || !strings.HasSuffix(top, tc.note) || strings.Contains(top, "…") != tc.cutNote {
			t.Errorf("%d columns: tab bar %q, want %q and the note %q (cut %v)", tc.w, top, tc.want, tc.note, tc.cutNote)
		}
		_, ends := m.tabs()
		for i := range m.views {
			x := 1
			if i > 0 {
				x = ends[i-1] + 2
			}
			if got := m.tabAt(x); got != i {
				t.Errorf("%d columns: column %d is tab %d, want %d", tc.w, x, got, i)
			}
		}
	}
}

// Vim keys do what the arrows and home/end do, in every view that moves.
func TestVimKeys(t *testing.T) {
	stepperCfg := func(t *testing.T) Config { return Config{Kernel: kernelAt(t, tinyLocLaunch, "")} }
	for _, tc := range []struct {
		name      string
		cfg       func(t *testing.T) Config
		vim, keys string
		state     func(m *Model) any
	}{
		{"layout", func(*testing.T) Config { return Config{} }, "j j l k $ 0 l", "down down right up end home right",
			func(m *Model) any { return m.views[0].(*explorer).pane.cur }},
		{"layout G", func(*testing.T) Config { return Config{} }, "G", strings.Repeat("down ", 63),
			func(m *Model) any { return m.views[0].(*explorer).pane.cur }},
		{"bitmath", func(*testing.T) Config { return Config{View: "bitmath"} }, "j j j k l", "down down down up right",
			func(m *Model) any { b := m.views[1].(*bitmathView); return [2]int{b.vp.YOffset(), b.vp.XOffset()} }},
		{"swizzle", func(*testing.T) Config { return Config{View: "swizzle"} }, "j l l h", "down right right left",
			func(m *Model) any { return m.views[2].(*swizzleView).pane.cur }},
		{"desc fields", func(*testing.T) Config { return Config{View: "desc"} }, "j j l k", "down down right up",
			func(m *Model) any { d := m.views[3].(*descView); return [2]uint64{uint64(d.field), d.value} }},
		{"desc picture", func(*testing.T) Config { return Config{View: "desc"} }, "f j j l $ G", "f down down right end " + strings.Repeat("down ", 63),
			func(m *Model) any { return m.views[3].(*descView).pane.cur }},
		{"stepper source", stepperCfg, "j j j k G g", "down down down up end home",
			func(m *Model) any { return m.views[4].(*stepperView).src.cur }},
		{"stepper regs", stepperCfg, "f j j l", "f down down right",
			func(m *Model) any { v := m.views[4].(*stepperView); return [2]int{v.regsL.cur, v.thread} }},
		{"picker", func(*testing.T) Config { return Config{} }, `/ "ldm" ctrl+j ctrl+j ctrl+k`, `/ "ldm" down down up`,
			func(m *Model) any { return m.views[0].(*explorer).pick.sel }},
		{"file picker", stepperCfg, "O j j j k", "O down down down up",
			func(m *Model) any { return m.views[4].(*stepperView).open.fp.HighlightedPath() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := snapshot(t, tc.cfg(t), 100, 30, tc.vim)
			b := snapshot(t, tc.cfg(t), 100, 30, tc.keys)
			if x, y := tc.state(a), tc.state(b); x != y {
				t.Errorf("%q gives %v, %q gives %v", tc.vim, x, tc.keys, y)
			}
		})
	}
}

// Under 100 columns the stepper stacks its panes, each the full width:
// the source, the tabbed pane (registers first) and the hazards.
func TestStepperStacks(t *testing.T) {
	for _, tc := range []struct {
		w, h  int
		kinds []paneKind
		wide  bool
	}{
		{80, 24, []paneKind{paneSource, paneRegs, paneHazards}, false},
		{64, 24, []paneKind{paneSource, paneRegs, paneHazards}, false},
		{99, 40, []paneKind{paneSource, paneRegs, paneHazards}, false},
		{80, 16, []paneKind{paneSource, paneRegs}, false},
		{100, 30, []paneKind{paneSource, paneRegs, paneHazards}, true},
		{100, 24, []paneKind{paneSource, paneRegs}, true},
	} {
		_, v := stepper(t, kernelAt(t, tinyLocLaunch, ""), tc.w, tc.h, "")
		rs := v.layout()
		var kinds []paneKind
		for _, r := range rs {
			kinds = append(kinds, r.kind)
			if !tc.wide && (r.x != 0 || r.w != tc.w) {
				t.Errorf("%dx%d: %s pane at x %d, %d wide; want the full width", tc.w, tc.h, paneNames[r.kind], r.x, r.w)
			}
		}
		if len(kinds) != len(tc.kinds) || (len(rs) > 1 && (rs[1].x == 0) == tc.wide) {
			t.Errorf("%dx%d: panes %v (second at x %d), want %v wide=%v", tc.w, tc.h, kinds, rs[1].x, tc.kinds, tc.wide)
			continue
		}
		for i := range kinds {
			if kinds[i] != tc.kinds[i] {
				t.Errorf("%dx%d: panes %v, want %v", tc.w, tc.h, kinds, tc.kinds)
			}
		}
	}
}

// The stepper hides the .loc and inline-asm comment lines (L shows them),
// searches what it shows, and maps PTX lines to the CUDA source.
func TestStepperSourceView(t *testing.T) {
	for _, tc := range []struct {
		line string
		hide bool
	}{
		{"\t.loc\t1 7 3", true},
		{"  .loc 2 19 3, function_name $L__info_string0, inlined_at 1 43 5", true},
		{"\t// begin inline asm", true},
		{"\t// end inline asm", true},
		{"\t.local .align 4 .b8 x[4];", false},
		{"\t.location", false},
		{"\t// a comment", false},
		{"\tmov.u32 %r1, 0;", false},
	} {
		if got := hiddenLine(tc.line); got != tc.hide {
			t.Errorf("hiddenLine(%q) = %v", tc.line, got)
		}
	}
	_, v := stepper(t, kernelAt(t, tinyLocLaunch, ""), 100, 30, "")
	if n := v.hiddenCount(); n != 13 {
		t.Errorf("%d hidden lines, want 13 (.loc and inline-asm comments)", n)
	}
	for _, r := range v.rows() {
		if hiddenLine(v.be.lines()[r]) {
			t.Errorf("line %d is shown: %q", r+1, v.be.lines()[r])
		}
	}
	// Search: forward from the cursor, n and N, wrapping, hidden-only and
	// missing text.
	for _, tc := range []struct {
		script string
		line   int
		msg    string
	}{
		{`/ "bar.sync" enter`, 41, "match 1 of 2"},
		{`/ "bar.sync" enter n`, 44, "match 2 of 2"},
		{`/ "bar.sync" enter n n`, 41, "wrapped around"},
		{`/ "bar.sync" enter N`, 44, "match 2 of 2"},
		{`/ "BAR.SYNC" enter`, 41, "match 1 of 2"},
		{`/ ".loc 1 19" enter`, 19, "only on hidden lines"},
		{`/ "nothing" enter`, 19, "is not in the source"},
		{`L / ".loc 1 19" enter`, 53, "match 1 of 1"},
	} {
		m, v := stepper(t, kernelAt(t, tinyLocLaunch, ""), 100, 30, tc.script)
		if v.src.cur+1 != tc.line || !strings.Contains(m.Plain(), tc.msg) {
			t.Errorf("%s: cursor on line %d, want %d with %q:\n%s", tc.script, v.src.cur+1, tc.line, tc.msg, m.Plain())
		}
	}
	// Source mapping: an instruction's own .loc, a .loc line's next
	// instruction, inlined code's call site, and a line without one.
	for _, tc := range []struct {
		line int
		want string
		text string
	}{
		{19, "tiny_loc.cu:7:3", "unsigned tid = threadIdx.x;"},
		{18, "tiny_loc.cu:7:3", "unsigned tid = threadIdx.x;"},
		{44, "tiny_loc.cu:17:3", `asm volatile("bar.sync 0;");`},
		{54, "tiny_loc.cu:19:1", "}"},
	} {
		r, ok := v.be.sourceAt(tc.line)
		if !ok || r.String() != tc.want || r.text != tc.text {
			t.Errorf("line %d: %v %q (%v), want %s %q", tc.line, r, r.text, ok, tc.want, tc.text)
		}
	}
	if _, ok := v.be.sourceAt(3); ok {
		t.Error("a comment at the top maps to a source line")
	}
	// The gemm kernel's hazard line maps to inlined code, with its call
	// site; a kernel without .loc maps nothing.
	_, g := stepper(t, oneCTA(kernelAt(t, gemmLaunch, gemmWait)), 100, 30, "")
	if r, ok := g.be.sourceAt(812); !ok || r.loc.InlinedAt == nil || !strings.Contains(r.String(), "inlined at gemm_tma_wgmma.cu:83") || r.text == "" {
		t.Errorf("line 812: %v %q", r, r.text)
	}
	if src := g.hazardSource(812); len(src) < 2 || !strings.HasPrefix(src[0], "at tc_common.cuh:49:11") {
		t.Errorf("hazard source %q", src)
	}
	_, tv := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "")
	if tv.be.sourceMapped() {
		t.Error("tiny.ptx has no .loc but reads as mapped")
	}
	// A trace maps its source too.
	tr := traceOf(t, writeTrace(t, kernelAt(t, tinyLocLaunch, "")))
	if r, ok := tr.sourceAt(44); !ok || r.String() != "tiny_loc.cu:17:3" {
		t.Errorf("trace line 44: %v %v", r, ok)
	}
}

// u runs until a warp is about to execute the cursor's line, and refuses
// a line without an instruction.
func TestStepperRunToCursor(t *testing.T) {
	m, v := stepper(t, kernelAt(t, tinyLocLaunch, ""), 100, 30, `: "47" enter u`)
	if s := v.be.last(); s.reason != "breakpoint" || s.line != 47 || len(v.breaks) != 0 {
		t.Errorf("stopped %+v with breakpoints %v, want line 47 and none set", s, v.breaks)
	}
	if !strings.Contains(m.Plain(), "at the cursor: warp 0 is at line 47") {
		t.Errorf("status:\n%s", m.Plain())
	}
	// Again: the other warp reaches it.
	_, v = stepper(t, kernelAt(t, tinyLocLaunch, ""), 100, 30, `: "47" enter u u`)
	if s := v.be.last(); s.line != 47 || s.warp != 1 {
		t.Errorf("second u: %+v, want warp 1 at line 47", s)
	}
	m, _ = stepper(t, kernelAt(t, tinyLocLaunch, ""), 100, 30, `: "17" enter u`)
	if !strings.Contains(m.Plain(), "line 17 holds no instruction") {
		t.Errorf("u on an empty line:\n%s", m.Plain())
	}
}

// The file picker opens a launch file, a kernel with the launch file
// beside it that names it, a kernel that needs one picked, a trace and a
// case directory; anything else is a one-line error.
func TestStepperOpen(t *testing.T) {
	dir := filepath.Join("testdata", "stepper")
	trace := writeTrace(t, kernelAt(t, tinyLaunch, ""))
	caseDir := filepath.Join("..", "fixtures", "captures", "triton_matmul_bf16")
	for _, tc := range []struct {
		path, pending string
		kind, kernel  string
		err           string
		needLaunch    bool
	}{
		{path: filepath.Join(dir, "tiny_loc.json"), kind: "sim", kernel: "_ZN7cutlass13device_kernelIN4gemm6kernel13GemmUniversalIiEEEEvNT_6ParamsE"},
		{path: filepath.Join(dir, "tiny.ptx"), kind: "sim", kernel: "tiny"},
		{path: filepath.Join(dir, "tiny_race.ptx"), needLaunch: true},
		{path: filepath.Join(dir, "tiny.json"), pending: filepath.Join(dir, "tiny_race.ptx"), kind: "sim", kernel: "tiny"},
		{path: trace, kind: "trace", kernel: "tiny"},
		{path: caseDir, kind: "sim", kernel: "matmul_kernel"},
		{path: filepath.Join(dir, "tiny_loc.cu"), err: "open a .ptx kernel, a .json launch file, a .jsonl trace or a case directory"},
		{path: filepath.Join(dir, "missing.json"), err: "no such file"},
	} {
		o := &openState{ptx: tc.pending}
		be, err := o.backend(tc.path)
		switch {
		case tc.needLaunch:
			if !errors.Is(err, errNeedLaunch) {
				t.Errorf("%s: %v, want it to ask for a launch file", tc.path, err)
			}
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.path, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case be.kind() != tc.kind || !strings.HasPrefix(be.kernel(), tc.kernel):
			t.Errorf("%s: %s backend of %s, want %s of %s", tc.path, be.kind(), be.kernel(), tc.kind, tc.kernel)
		}
	}
	if _, err := os.Stat(caseDir); err != nil {
		t.Fatalf("the case fixture moved: %v", err)
	}
	// From the view: O, pick tiny_race.ptx, then its launch file.
	m, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "O G enter")
	if v.open == nil || v.open.ptx == "" || !strings.Contains(m.Plain(), "The launch file (.json) of tiny_race.ptx") {
		t.Fatalf("a kernel without a launch file:\n%s", m.Plain())
	}
	for _, k := range strings.Fields("g j j enter") { // tiny.json
		m.Update(keyMsg(t, k))
	}
	if abs, _ := filepath.Abs(filepath.Join(dir, "tiny_race.ptx")); v.open != nil || v.be.file() != abs {
		t.Errorf("after picking the launch file: picker %v, file %s", v.open != nil, v.be.file())
	}
	// esc closes the picker and keeps what was open.
	_, v = stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "s O esc")
	if v.open != nil || v.be.steps() != 1 {
		t.Errorf("esc: picker %v, step %d", v.open != nil, v.be.steps())
	}
}

// A trace whose PTX cannot be read still tells wgmma records from the
// others: by the record's instruction, parsed (not its text's prefix).
func TestTraceWgmmaWithoutSource(t *testing.T) {
	path := writeTrace(t, oneCTA(kernelAt(t, gemmLaunch, "")))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 2)
	noSrc := filepath.Join(t.TempDir(), "nosrc.jsonl")
	header := strings.Replace(lines[0], `"file":"`, `"file":"/nowhere/`, 1)
	if err := os.WriteFile(noSrc, []byte(header+"\n"+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	with, without := traceOf(t, path), traceOf(t, noSrc)
	if with.module == nil || without.module != nil {
		t.Fatalf("module with %v, without %v", with.module != nil, without.module != nil)
	}
	seen := 0
	for with.forward() {
		without.forward()
		a, b := with.inflight(), without.inflight()
		if len(a) != len(b) {
			t.Fatalf("at record %d: %d operations in flight with the source, %d without", with.st.pos, len(a), len(b))
		}
		for i := range a {
			if a[i].kind == "wgmma.mma_async" {
				seen++
				if a[i] != b[i] {
					t.Fatalf("at record %d: %+v with the source, %+v without", with.st.pos, a[i], b[i])
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no wgmma in flight: the test shows nothing")
	}
	r := without.recs[0]
	for _, rec := range without.recs {
		if rec.Inst != nil && strings.HasPrefix(rec.Inst.Inst, "wgmma.fence") {
			r = rec
		}
	}
	if r.Inst == nil || without.isWgmma(r.Inst) {
		t.Errorf("%v reads as a wgmma.mma_async", r.Inst)
	}
}

// At 200×60 the accumulator's cells are coloured by warp (hue) and lane
// (shade): threads 0, 16, 32, 64 and 96 (one colour under "thread mod
// 16") each have their own colour on the screen.
func TestColoursOnScreen(t *testing.T) {
	m := snapshot(t, Config{Subject: "wgmma.m64n16.d.f32"}, 200, 60, "")
	scr, err := m.Screen()
	if err != nil {
		t.Fatal(err)
	}
	bg := map[int]render.ScreenCell{}
	text := strings.Split(strings.TrimSuffix(m.Plain(), "\n"), "\n")
	for _, th := range []int{0, 16, 32, 64, 96} {
		label := "T" + itoa(th) + "V1" // V0 of T0 is the cursor, drawn reversed
		for y, l := range text {
			if x := strings.Index(l, " "+label); x >= 0 {
				bg[th] = *scr.At(x+2, y)
				break
			}
		}
		c, ok := bg[th]
		if !ok {
			t.Fatalf("%s is not on the screen", label)
		}
		if want := render.ThreadSwatch(th).RGBA(); c.BG != want {
			t.Errorf("%s: background %v, want %v", label, c.BG, want)
		}
	}
	for a := range bg {
		for b := range bg {
			if a < b && bg[a].BG == bg[b].BG {
				t.Errorf("T%d and T%d share a colour", a, b)
			}
		}
	}
}
