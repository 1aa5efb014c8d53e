package tui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim"
)

// The backends under the view, driven directly: stepping, step back
// against an independent re-simulation, breakpoints and hazards, and the
// trace replay against the live run it was written by.

var brokenDir = filepath.Join("..", "fixtures", "sim", "broken")

// simOf opens the live backend on k.
func simOf(t *testing.T, k *KernelConfig) *simBackend {
	t.Helper()
	b, err := newSimBackend(*k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTrace runs k through the simulator with a trace (register values
// included) and returns the trace file.
func writeTrace(t *testing.T, k *KernelConfig) string {
	t.Helper()
	var buf bytes.Buffer
	m, err := sim.Prepare(k.Path, k.Source, k.Launch, sim.Options{Trace: &buf, TraceValues: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = m.Run() // a deadlock ends the trace like any run
	m.FlushTrace()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func traceOf(t *testing.T, path string) *traceBackend {
	t.Helper()
	b, err := newTraceBackend(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// positions lists every warp's next line, "-" once it has exited.
func positions(be stepBackend) string {
	var parts []string
	for _, w := range be.warps() {
		at := "-"
		if w.state != "done" {
			at = fmt.Sprint(w.line)
		}
		parts = append(parts, fmt.Sprintf("w%d:%s", w.warp, at))
	}
	return strings.Join(parts, " ")
}

// Steps go round-robin one warp-instruction at a time; a warp step moves
// only that warp; a warp that cannot run refuses to step and nothing
// changes.
func TestStepperBackendStepping(t *testing.T) {
	b := simOf(t, kernelAt(t, tinyLaunch, ""))
	for _, tc := range []struct {
		do    func() error
		steps int64
		at    string
	}{
		{nil, 0, "w0:17 w1:17"},
		{b.step, 1, "w0:18 w1:17"},
		{b.step, 2, "w0:18 w1:18"},
		{func() error { return b.stepWarp(0, 1) }, 3, "w0:18 w1:19"},
		{func() error { return b.stepWarp(0, 1) }, 4, "w0:18 w1:20"},
		{func() error { return b.stepWarp(0, 1) }, 5, "w0:18 w1:22"}, // the label line 21 has no instruction
		{b.step, 6, "w0:19 w1:22"},
	} {
		if tc.do != nil {
			if err := tc.do(); err != nil {
				t.Fatal(err)
			}
		}
		if got := positions(b); b.steps() != tc.steps || got != tc.at {
			t.Fatalf("after %d steps: %q (step %d), want %q", tc.steps, got, b.steps(), tc.at)
		}
	}
	// Warp 1 runs to the barrier and waits there for warp 0.
	for i := 0; i < 40 && !strings.Contains(positions(b), "w1:32"); i++ {
		if err := b.stepWarp(0, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.stepWarp(0, 1); err != nil {
		t.Fatal(err) // the bar.sync itself
	}
	before, steps := positions(b), b.steps()
	err := b.stepWarp(0, 1)
	if err == nil || !strings.Contains(err.Error(), "cannot run") {
		t.Fatalf("stepping a warp blocked at bar.sync: %v", err)
	}
	if positions(b) != before || b.steps() != steps {
		t.Fatalf("a refused warp step changed the state: %s → %s", before, positions(b))
	}
	if err := b.stepWarp(0, 7); err == nil {
		t.Fatal("stepping warp 7 of a 2-warp CTA succeeded")
	}
}

// snapshotState is the machine state a backend shows, for comparisons:
// the step count, warp positions, every register of every lane, and
// shared memory (which a trace does not hold).
func snapshotState(t *testing.T, be stepBackend) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "step %d done %v\n", be.steps(), be.done())
	for _, w := range be.warps() {
		fmt.Fprintf(&b, "cta %v warp %d pc %d line %d %s %q %08x\n", w.cta, w.warp, w.pc, w.line, w.state, w.wait, w.active)
		for _, r := range be.regs(w.ctaIdx, w.warp) {
			v, err := be.reg(w.ctaIdx, w.warp, r.name)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  %s %x\n", r.name, v)
		}
	}
	for i := range be.ctas() {
		if be.kind() == "trace" {
			break
		}
		sm, err := be.shared(i, 0, be.smemSize())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "smem %d %x\n", i, sm)
		for _, mb := range be.mbarriers(i) {
			fmt.Fprintf(&b, "mbarrier %+v\n", mb)
		}
	}
	for _, a := range be.inflight() {
		fmt.Fprintf(&b, "async %+v\n", a)
	}
	return b.String()
}

// Stepping back lands exactly where plain steps from a fresh machine land
// (an independent re-simulation: n round-robin steps), after runs to a
// breakpoint, runs to a hazard, single steps and the end of the grid.
func TestStepperBackEqualsResimulation(t *testing.T) {
	gemm := func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }
	fence := func(t *testing.T) *KernelConfig {
		return oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_missing_fence.ptx")))
	}
	tiny := func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }
	for _, tc := range []struct {
		name string
		k    func(t *testing.T) *KernelConfig
		do   func(b *simBackend) error
	}{
		{"tiny steps", tiny, func(b *simBackend) error {
			for i := 0; i < 9; i++ {
				if err := b.step(); err != nil {
					return err
				}
			}
			return nil
		}},
		{"tiny run to the end", tiny, func(b *simBackend) error { return b.run(nil, false, 0) }},
		{"gemm breakpoint in a loop", gemm, func(b *simBackend) error {
			for i := 0; i < 5; i++ {
				if err := b.run([]int{359}, false, 0); err != nil {
					return err
				}
			}
			return b.step()
		}},
		{"gemm after TMA completions", gemm, func(b *simBackend) error { return b.run([]int{364}, false, 0) }},
		{"fence variant to its hazard", fence, func(b *simBackend) error { return b.run(nil, true, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := simOf(t, tc.k(t))
			if err := tc.do(b); err != nil {
				t.Fatal(err)
			}
			n := b.steps()
			if err := b.back(false); err != nil {
				t.Fatal(err)
			}
			if b.last().reason != "back" || b.steps() != n-1 {
				t.Fatalf("after p: %+v, want reason back at step %d", b.last(), n-1)
			}
			fresh := simOf(t, tc.k(t))
			for fresh.steps() < n-1 {
				if err := fresh.step(); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := snapshotState(t, b), snapshotState(t, fresh); got != want {
				t.Fatalf("one step back from step %d differs from %d steps:\n%s", n, n-1, lineDiff(got, want))
			}
			// Back again: one more instruction undone.
			if err := b.back(false); err != nil {
				t.Fatal(err)
			}
			if b.steps() != n-2 {
				t.Fatalf("second step back: step %d, want %d", b.steps(), n-2)
			}
		})
	}
	// At the start there is nothing to undo.
	b := simOf(t, kernelAt(t, tinyLaunch, ""))
	if err := b.back(false); err == nil || !strings.Contains(err.Error(), "at the start") {
		t.Fatalf("back at the start: %v", err)
	}
}

// lineDiff shows the first lines where two states differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 8; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("line %d:\n  got  %.200s\n  want %.200s", i+1, x, y))
		}
	}
	return strings.Join(out, "\n")
}

// After the last instruction the grid has finished, but the panes still
// show its last CTA: every warp exited, the registers and shared memory
// as they were left. Stepping on refuses; a step back undoes the last
// instruction.
func TestStepperFinishedStateStays(t *testing.T) {
	b := simOf(t, kernelAt(t, tinyLaunch, ""))
	if err := b.run(nil, false, 0); err != nil {
		t.Fatal(err)
	}
	if !b.done() || b.last().reason != "done" {
		t.Fatalf("run without breakpoints: %+v", b.last())
	}
	if got := positions(b); got != "w0:- w1:-" {
		t.Fatalf("warps after the end: %q", got)
	}
	// tiny stores the sum 4*tid in shared memory and loads it back into
	// %r6.
	for warp := 0; warp < 2; warp++ {
		r6, err := b.reg(0, warp, "%r6")
		if err != nil {
			t.Fatal(err)
		}
		for l := 0; l < 32; l++ {
			if tid := uint64(32*warp + l); r6[l] != 4*tid {
				t.Fatalf("warp %d lane %d: %%r6 = %d, want %d", warp, l, r6[l], 4*tid)
			}
		}
	}
	sm, err := b.shared(0, 4*63, 4)
	if err != nil || sm[0] != 4*63&0xff {
		t.Fatalf("shared word 63 after the end: %v %v", sm, err)
	}
	if err := b.step(); err == nil || !strings.Contains(err.Error(), "finished") {
		t.Fatalf("step after the end: %v", err)
	}
	n := b.steps()
	if err := b.back(false); err != nil || b.done() || b.steps() != n-1 {
		t.Fatalf("back from the end: %v, done %v, step %d (want %d)", err, b.done(), b.steps(), n-1)
	}
}

// A breakpoint stops every warp on every visit: in tiny's loop (4 rounds,
// 2 warps) that is 8 stops, then the run ends. The trace replay stops as
// often: once per instruction record on the line.
func TestStepperBreakpointEveryVisit(t *testing.T) {
	const line = 22 // add.s32 %r2, %r2, %r1 at the top of the loop
	k := kernelAt(t, tinyLaunch, "")
	path := writeTrace(t, k)
	for _, be := range []stepBackend{simOf(t, k), traceOf(t, path)} {
		stops := map[int]int{}
		for i := 0; ; i++ {
			if i > 20 {
				t.Fatalf("%s: no end after 20 runs: stops %v", be.kind(), stops)
			}
			if err := be.run([]int{line}, false, 0); err != nil {
				t.Fatal(err)
			}
			s := be.last()
			if be.done() {
				break
			}
			if s.reason != "breakpoint" || s.line != line {
				t.Fatalf("%s: run %d stopped %+v, want the breakpoint at line %d", be.kind(), i, s, line)
			}
			// The stopped warp's next instruction is the breakpoint's.
			for _, w := range be.warps() {
				if w.warp == s.warp && w.line != line {
					t.Fatalf("%s: warp %d stopped for line %d but is at line %d", be.kind(), s.warp, line, w.line)
				}
			}
			stops[s.warp]++
		}
		if stops[0] != 4 || stops[1] != 4 {
			t.Errorf("%s: breakpoint stops per warp %v, want 4 each", be.kind(), stops)
		}
	}
}

// A run to the next hazard stops on the bug planted in each broken
// variant (sim/broken_test.go lists them) at its line, and the view
// selects the hazard in the hazard pane and puts the source cursor on it.
func TestStepperRunToPlantedHazard(t *testing.T) {
	for _, tc := range []struct {
		ptx, launch string
		kind        string
		line        int
	}{
		{"gemm_missing_fence.ptx", gemmLaunch, "wgmma/missing-fence", 359},
		{"gemm_missing_wait.ptx", gemmLaunch, "async/refill-before-release", 812},
		{"gemm_wrong_swizzle.ptx", gemmLaunch, "desc/layout-mismatch", 359},
		{"gemm_phase_bug.ptx", gemmLaunch, "mbarrier/wrong-parity", 314},
		{"tcgen05_lane_quarter.ptx", tcgenLaunch, "tcgen05/lane-quarter", 611},
		{"tcgen05_missing_dealloc.ptx", tcgenLaunch, "tcgen05/alloc", 63},
	} {
		t.Run(strings.TrimSuffix(tc.ptx, ".ptx"), func(t *testing.T) {
			k := oneCTA(kernelAt(t, tc.launch, filepath.Join(brokenDir, tc.ptx)))
			m, v := stepper(t, k, 120, 36, "H")
			s := v.be.last()
			if len(s.hazards) == 0 || s.hazards[0].kind != tc.kind || s.hazards[0].line != tc.line {
				t.Fatalf("h stopped %+v, want the %s hazard at line %d", s, tc.kind, tc.line)
			}
			if v.hz.cur >= len(v.hazRows) || v.hazRows[v.hz.cur].kind != tc.kind || v.hazRows[v.hz.cur].line != tc.line {
				t.Fatalf("the hazard pane selects %d of %v", v.hz.cur, v.hazRows)
			}
			if !v.visible(paneHazards) || v.src.cur+1 != tc.line {
				t.Fatalf("hazards pane visible %v, source cursor at line %d; want %d", v.visible(paneHazards), v.src.cur+1, tc.line)
			}
			if !strings.Contains(m.Plain(), tc.kind) {
				t.Fatalf("the screen does not name %s:\n%s", tc.kind, m.Plain())
			}
		})
	}
}

// The trace replay of a run reaches the same end as the live simulation
// of the same launch: the same number of warp-instructions, the same
// hazards, every warp exited, and every register the trace wrote holding
// the value the live run left. A run to the hazard stops at the same
// line in both.
func TestStepperTraceMatchesLive(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    func(t *testing.T) *KernelConfig
		// racy: the kernel's result and where the race is reported (the
		// second access) depend on the order of the warps, which differs
		// (tcsim run schedules 64 instructions a turn, the stepper one):
		// only the hazard kinds and the positions are compared.
		racy bool
	}{
		{"tiny", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, false},
		{"tiny race", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, tinyRace) }, true},
		{"gemm missing fence", func(t *testing.T) *KernelConfig {
			return oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_missing_fence.ptx")))
		}, false},
		{"tcgen05 gemm", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, tcgenLaunch, "")) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.k(t)
			live, tr := simOf(t, k), traceOf(t, writeTrace(t, k))
			if tr.note != "" {
				t.Fatalf("a whole trace has a note: %s", tr.note)
			}
			// The first hazard, where there is one.
			if err := live.run(nil, true, 0); err != nil {
				t.Fatal(err)
			}
			if err := tr.run(nil, true, 0); err != nil {
				t.Fatal(err)
			}
			lh, th := live.last().hazards, tr.last().hazards
			// (racy: the trace's schedule may report the cross-warp race
			// at another stop; the first hazard is the same)
			if (len(lh) == 0) != (len(th) == 0) || len(lh) > 0 && (lh[0].kind != th[0].kind || !tc.racy && (len(lh) != len(th) || lh[0].line != th[0].line)) {
				t.Fatalf("first hazard: live %v, trace %v", lh, th)
			}
			for _, be := range []stepBackend{live, tr} {
				for !be.done() {
					if err := be.run(nil, false, 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			if live.steps() != tr.steps() {
				t.Errorf("live run: %d warp-instructions, trace: %d", live.steps(), tr.steps())
			}
			if a, b := hazardSet(live.hazards(), tc.racy), hazardSet(tr.hazards(), tc.racy); a != b {
				t.Errorf("hazards differ:\nlive  %s\ntrace %s", a, b)
			}
			if a, b := positions(live), positions(tr); a != b || strings.Count(a, ":-") != len(live.warps()) {
				t.Errorf("final positions: live %q, trace %q, want every warp exited", a, b)
			}
			if tc.racy {
				return
			}
			checked := 0
			for _, w := range tr.warps() {
				for _, r := range tr.regs(w.ctaIdx, w.warp) {
					want, err := tr.reg(w.ctaIdx, w.warp, r.name)
					if err != nil {
						t.Fatal(err)
					}
					got, err := live.reg(w.ctaIdx, w.warp, r.name)
					if err != nil {
						t.Fatalf("live %s of warp %d: %v", r.name, w.warp, err)
					}
					if got != want {
						t.Fatalf("warp %d %s: live %x, trace %x", w.warp, r.name, got, want)
					}
					checked++
				}
			}
			if checked < 10 {
				t.Errorf("only %d registers compared", checked)
			}
		})
	}
}

// hazardSet is the hazards' kinds and lines (kinds only), sorted, as text.
func hazardSet(hs []hazardRow, kindsOnly bool) string {
	var out []string
	for _, h := range hs {
		if kindsOnly {
			out = append(out, h.kind)
			continue
		}
		out = append(out, fmt.Sprintf("%s@%d", h.kind, h.line))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// Stepping back through a trace undoes one instruction record at a time
// and P returns to where the last action started.
func TestStepperTraceBack(t *testing.T) {
	tr := traceOf(t, writeTrace(t, kernelAt(t, tinyLaunch, "")))
	var states []string
	for i := 0; i < 6; i++ {
		states = append(states, snapshotTrace(t, tr))
		if err := tr.step(); err != nil {
			t.Fatal(err)
		}
	}
	for i := len(states) - 1; i >= 0; i-- {
		if err := tr.back(false); err != nil {
			t.Fatal(err)
		}
		if got := snapshotTrace(t, tr); got != states[i] {
			t.Fatalf("back to step %d:\n%s", i, lineDiff(got, states[i]))
		}
	}
	if err := tr.back(false); err == nil {
		t.Fatal("back at the start of the trace succeeded")
	}
	if err := tr.run([]int{32}, false, 0); err != nil {
		t.Fatal(err)
	}
	at := tr.steps()
	tr.step()
	tr.step()
	if err := tr.back(true); err != nil || tr.steps() != at+1 {
		t.Fatalf("P after run, step, step: step %d (%v), want %d", tr.steps(), err, at+1)
	}
}

// snapshotTrace is snapshotState without memory (a trace holds none).
func snapshotTrace(t *testing.T, be stepBackend) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "step %d %s\n", be.steps(), positions(be))
	for _, w := range be.warps() {
		for _, r := range be.regs(w.ctaIdx, w.warp) {
			v, _ := be.reg(w.ctaIdx, w.warp, r.name)
			fmt.Fprintf(&b, "w%d %s %x\n", w.warp, r.name, v)
		}
	}
	fmt.Fprintf(&b, "%v %v\n", be.hazards(), be.inflight())
	return b.String()
}

// Malformed traces are refused with the file and line; a trace cut short
// in its last line replays what it holds.
func TestStepperTraceErrors(t *testing.T) {
	good, err := os.ReadFile(writeTrace(t, kernelAt(t, tinyLaunch, "")))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(good), "\n"), "\n")
	header := lines[0]
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, err string
	}{
		{"empty", "", "empty: no header record"},
		{"blank", "\n\n", "empty: no header record"},
		{"no header", lines[1], ":1: a trace starts with a header record"},
		{"version", strings.Replace(header, `"version":1`, `"version":99`, 1), ":1: trace format version 99"},
		{"two headers", header + header, ":2: a second header"},
		{"bad type", header + `{"type":"bogus"}` + "\n", `unknown record type "bogus"`},
		{"inst without warp", header + `{"type":"inst","pc":1}` + "\n", "instruction record without warp or pc"},
		{"lanes", header + `{"type":"inst","warp":0,"pc":0,"line":17,"w":{"%r1":["0x1"]}}` + "\n", "has 1 lane values, want 32"},
		{"value", header + `{"type":"inst","warp":0,"pc":0,"line":17,"w":{"%r1":[` + strings.Repeat(`"x",`, 31) + `"x"]}}` + "\n", `lane 0: "x" is not a number`},
		{"active", header + `{"type":"inst","warp":0,"pc":0,"line":17,"active":"0xzz"}` + "\n", "active mask"},
		{"event", header + `{"type":"event"}` + "\n", `event record without "event"`},
		{"torn middle", header + lines[1][:20] + "\n" + lines[2], ":2: not a trace record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			os.WriteFile(path, []byte(tc.text), 0o644)
			_, err := newTraceBackend(path)
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want %q naming the file", err, tc.err)
			}
		})
	}
	// Cut in the middle of its last line: the records before it replay.
	cut := filepath.Join(dir, "cut.jsonl")
	text := strings.Join(lines[:len(lines)/2], "") + lines[len(lines)/2][:15]
	os.WriteFile(cut, []byte(text), 0o644)
	tr := traceOf(t, cut)
	if !strings.Contains(tr.note, "is cut short") {
		t.Fatalf("note %q", tr.note)
	}
	for !tr.done() {
		if err := tr.step(); err != nil {
			t.Fatal(err)
		}
	}
	if tr.steps() == 0 {
		t.Fatal("nothing replayed from the cut trace")
	}
	// Without its end record.
	os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
	if tr := traceOf(t, cut); !strings.Contains(tr.note, "has no end record") {
		t.Fatalf("note %q", tr.note)
	}
}

// The stepper draws exactly its size at any terminal size, including
// after live resizes between key presses, on both backends.
func TestStepperResize(t *testing.T) {
	trace := writeTrace(t, oneCTA(kernelAt(t, gemmLaunch, "")))
	for _, cfg := range []Config{
		{Kernel: oneCTA(kernelAt(t, gemmLaunch, ""))},
		{Trace: trace},
		{View: "stepper"},
	} {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := ParseKeys(`: "359" enter b r ] f right down ] x z`)
		if err != nil {
			t.Fatal(err)
		}
		sizes := [][2]int{{120, 36}, {80, 24}, {200, 60}, {64, 20}, {40, 12}, {20, 8}, {100, 9}, {81, 25}}
		for i, msg := range msgs {
			sz := sizes[i%len(sizes)]
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkFrame(t, m, sz[0], sz[1])
			m.Update(msg)
			m.settle()
			checkFrame(t, m, sz[0], sz[1])
		}
	}
}

// Random keys, clicks, wheel turns and resizes on every kind of kernel
// and on a trace never panic, and every frame is exactly the screen.
func TestStepperMonkey(t *testing.T) {
	keys := []string{"s", "s", "s", "w", "r", "H", "u", "p", "P", "b", "t", "T", ">", "<", "]", "[", "f", "z", "x", "o", "c",
		"up", "down", "left", "right", "pgup", "pgdown", "home", "end", "enter", "esc", "backspace", "?", `: "12" enter`,
		`: "0x10" enter`, `: "1,2" enter`, `: "%r1" enter`, `: "" enter`, `: "x" esc`,
		"j", "k", "h", "l", "g", "G", "$", "0", "L", "n", "N", `/ "mov" enter`, `/ "zzz" enter`, `/ "" enter`, `/ "x" esc`}
	type target struct {
		name string
		cfg  func(t *testing.T) Config
	}
	targets := []target{
		{"tiny", func(t *testing.T) Config { return Config{Kernel: kernelAt(t, tinyLaunch, tinyRace)} }},
		{"gemm", func(t *testing.T) Config {
			return Config{Kernel: oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_phase_bug.ptx")))}
		}},
		{"tcgen05", func(t *testing.T) Config { return Config{Kernel: oneCTA(kernelAt(t, tcgenLaunch, ""))} }},
		{"cluster", func(t *testing.T) Config {
			k := kernelAt(t, tinyLaunch, "")
			k.Launch.Grid, k.Launch.Cluster = launch.Dim3{4, 1, 1}, launch.Dim3{2, 1, 1}
			return Config{Kernel: k}
		}},
		{"trace", func(t *testing.T) Config {
			return Config{Trace: writeTrace(t, oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_missing_wait.ptx"))))}
		}},
	}
	r := rand.New(rand.NewPCG(3, 5))
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			cfg := tg.cfg(t)
			for round := 0; round < 3; round++ {
				m, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				w, h := 60+r.IntN(100), 14+r.IntN(40)
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				for i := 0; i < 60; i++ {
					var msgs []tea.Msg
					switch x := r.IntN(10); {
					case x == 0:
						w, h = 20+r.IntN(180), 8+r.IntN(60)
						msgs = []tea.Msg{tea.WindowSizeMsg{Width: w, Height: h}}
					case x == 1:
						msgs = []tea.Msg{tea.MouseClickMsg{X: r.IntN(w), Y: r.IntN(h), Button: tea.MouseLeft}}
					case x == 2:
						msgs = []tea.Msg{tea.MouseWheelMsg{X: r.IntN(w), Y: r.IntN(h), Button: tea.MouseWheelDown}}
					default:
						msgs, err = ParseKeys(keys[r.IntN(len(keys))])
						if err != nil {
							t.Fatal(err)
						}
					}
					for _, msg := range msgs {
						if _, ok := msg.(tea.MouseMsg); ok {
							m.Content()
						}
						m.Update(msg)
						m.settle()
					}
					checkFrame(t, m, w, h)
				}
			}
		})
	}
}

// TestStepperGoldenMore draws key paths the other stepper goldens leave
// out: the trace replay (stepping, a breakpoint, the fragment with the
// values the trace recorded, a hazard), the register-A operand of a wgmma
// with its bf16 values, the end of a run, the full key help at 80x24
// (refresh with go test ./tui -run TestStepperGoldenMore -update).
func TestStepperGoldenMore(t *testing.T) {
	fence := oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_missing_fence.ptx")))
	fenceTrace := writeTrace(t, fence)
	tinyTrace := writeTrace(t, kernelAt(t, tinyLaunch, ""))
	attention := oneCTA(kernelAt(t, filepath.Join("..", "fixtures", "sim", "launch", "attention_step_exact.json"), ""))
	for _, tc := range []struct {
		name   string
		cfg    Config
		w, h   int
		script string
	}{
		{"trace_steps", Config{Trace: tinyTrace}, 100, 30, "s s s s s ] ] ] ] ]"},
		{"trace_breakpoint_regs", Config{Trace: tinyTrace}, 100, 30, `: "33" enter b r f down`},
		{"trace_hazard", Config{Trace: fenceTrace}, 120, 36, "H"},
		{"trace_fragment", Config{Trace: fenceTrace}, 120, 36, `: "380" enter b r ]`},
		{"trace_80x24", Config{Trace: fenceTrace}, 80, 24, `H ] ] ] ]`},
		{"register_a_fragment", Config{Kernel: attention}, 120, 36, `: "1748" enter b r ] o f right down`},
		{"finished", Config{Kernel: kernelAt(t, tinyLaunch, "")}, 100, 30, `r`},
		{"deadlock", Config{Kernel: oneCTA(kernelAt(t, gemmLaunch, filepath.Join(brokenDir, "gemm_phase_bug.ptx")))}, 100, 30, `r ] ] ] ] ]`},
		{"help_80x24", Config{Kernel: kernelAt(t, tinyLaunch, "")}, 80, 24, `?`},
		{"cluster_cta", Config{Kernel: func() *KernelConfig {
			k := kernelAt(t, tinyLaunch, "")
			k.Launch.Grid, k.Launch.Cluster = launch.Dim3{2, 1, 1}, launch.Dim3{2, 1, 1}
			return k
		}()}, 100, 30, `s s s c ] ] ] ] ] ]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := snapshot(t, tc.cfg, tc.w, tc.h, tc.script)
			checkFrame(t, m, tc.w, tc.h)
			golden.RequireEqual(t, []byte(m.Plain()))
		})
	}
}

// The registers of a warp's next instruction come from its parsed PTX,
// on both backends, and from the trace's text read by the PTX parser when
// the trace's source file is gone.
func TestStepperWarpRegs(t *testing.T) {
	k := kernelAt(t, tinyLaunch, "")
	path := writeTrace(t, k)
	live, tr := simOf(t, k), traceOf(t, path)
	for i := 0; i < 6; i++ {
		live.step()
		tr.step()
	}
	tw := tr.warps()
	for _, rows := range [][]warpRow{live.warps(), tw} {
		n := 0
		for _, w := range rows {
			if w.state == "done" {
				continue
			}
			n++
			in, err := ptx.ParseInstruction(w.inst)
			if err != nil {
				t.Fatal(err)
			}
			if want := in.RegNames(); !slices.Equal(w.regs, want) {
				t.Errorf("warp %d, %s: %v, want %v", w.warp, w.inst, w.regs, want)
			}
		}
		if n == 0 {
			t.Fatal("no warp has a next instruction")
		}
	}
	// Without the source, the record's text is parsed.
	tr.module = nil
	tr.regsByPC = nil
	for i, w := range tr.warps() {
		if w.state != "done" && !slices.Equal(w.regs, tw[i].regs) {
			t.Errorf("warp %d without the source: %v, want %v", w.warp, w.regs, tw[i].regs)
		}
	}
}
