package tui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/sim"
)

// kernelAt is the stepper's configuration for a launch file, with the PTX
// of ptx instead of the launch's when it is not empty.
func kernelAt(t *testing.T, launch, ptx string) *KernelConfig {
	t.Helper()
	l, err := fixtures.ReadLaunch(launch)
	if err != nil {
		t.Fatal(err)
	}
	if ptx != "" {
		l.PTX = ptx
	}
	src, err := os.ReadFile(l.PTX)
	if err != nil {
		t.Fatal(err)
	}
	return &KernelConfig{Path: l.PTX, Source: src, Launch: l}
}

var (
	tinyLaunch  = filepath.Join("testdata", "stepper", "tiny.json")
	tinyRace    = filepath.Join("testdata", "stepper", "tiny_race.ptx")
	gemmLaunch  = filepath.Join("..", "fixtures", "sim", "launch", "gemm_tma_wgmma.json")
	gemmWait    = filepath.Join("..", "fixtures", "sim", "broken", "gemm_missing_wait.ptx")
	tcgenLaunch = filepath.Join("..", "fixtures", "sim", "launch", "tcgen05_gemm.json")
)

// oneCTA makes a launch's grid a single CTA, to keep a test short.
func oneCTA(k *KernelConfig) *KernelConfig {
	k.Launch.Grid = fixtures.Dim3{1, 1, 1}
	return k
}

// stepper opens the stepper on k at w × h and presses the keys of script.
func stepper(t *testing.T, k *KernelConfig, w, h int, script string) (*Model, *stepperView) {
	t.Helper()
	m := snapshot(t, Config{Kernel: k}, w, h, script)
	sv, ok := m.views[m.active].(*stepperView)
	if !ok {
		t.Fatalf("the app opened view %d, not the stepper", m.active)
	}
	return m, sv
}

// TestStepperGolden draws the stepper's main key paths (refresh with
// go test ./tui -run TestStepperGolden -update).
func TestStepperGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k      func(t *testing.T) *KernelConfig
		w, h   int
		script string
	}{
		{"tiny_start", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 100, 30, ""},
		{"tiny_steps", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 100, 30, "s s s s s s s"},
		{"tiny_warp_steps_thread", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 100, 30, "> w w w t t"},
		{"tiny_breakpoint", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 100, 30, `g "31" enter b r`},
		{"tiny_race_hazard", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, tinyRace) }, 100, 30, "h"},
		{"tiny_80x24", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 80, 24, "s s s s ]"},
		{"gemm_hazard", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, gemmWait)) }, 120, 36, "h"},
		{"gemm_fragment", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 120, 36, `g "790" enter b r ]`},
		{"gemm_async", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 120, 36, `g "515" enter b r ] ] ] ] ]`},
		{"tcgen05_tmem", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, tcgenLaunch, "")) }, 120, 36, `g "558" enter b r ] ] ]`},
		{"gemm_smem_zoom", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 100, 30, `g "515" enter b r ] ] f z`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := stepper(t, tc.k(t), tc.w, tc.h, tc.script)
			checkFrame(t, m, tc.w, tc.h)
			golden.RequireEqual(t, []byte(m.Plain()))
		})
	}
	t.Run("empty", func(t *testing.T) {
		m := snapshot(t, Config{View: "stepper"}, 100, 24, "s r h")
		checkFrame(t, m, 100, 24)
		golden.RequireEqual(t, []byte(m.Plain()))
	})
}

// Stepping back re-simulates: the state after n steps and one step back
// (every warp's position, every register of every thread, shared memory)
// is the state after n-1 steps.
func TestStepperBackEqualsFewerSteps(t *testing.T) {
	for _, n := range []int{1, 5, 23, 60} {
		fwd := strings.Repeat("s ", n-1)
		_, want := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, fwd)
		_, got := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, fwd+"s p")
		if a, b := stateOf(t, got.be), stateOf(t, want.be); a != b {
			t.Errorf("%d steps and one back differs from %d steps:\n%s\n---\n%s", n, n-1, a, b)
		}
	}
	// Back to the previous stop (P) undoes a whole run.
	_, want := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "s s s")
	_, got := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `s s s g "31" enter b r P`)
	if a, b := stateOf(t, got.be), stateOf(t, want.be); a != b {
		t.Errorf("run and P differs from before the run:\n%s\n---\n%s", a, b)
	}
}

// stateOf describes the machine state a backend shows: the step count,
// every warp's position, every register of every lane, shared memory.
func stateOf(t *testing.T, be stepBackend) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "step %d\n", be.steps())
	for _, w := range be.warps() {
		fmt.Fprintf(&b, "warp %d pc %d line %d %s %s %08x\n", w.warp, w.pc, w.line, w.state, w.wait, w.active)
		for _, r := range be.regs(w.ctaIdx, w.warp) {
			v, err := be.reg(w.ctaIdx, w.warp, r.name)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  %s %x\n", r.name, v)
		}
	}
	sm, err := be.shared(0, 0, be.smemSize())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "smem %x\n", sm)
	return b.String()
}

// A breakpoint stops every run at its line; a line without an
// instruction refuses one.
func TestStepperBreakpoint(t *testing.T) {
	// Both warps stop at the breakpoint once, then the run goes on to the
	// end.
	seen := map[int]bool{}
	for n := 1; n <= 2; n++ {
		_, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `g "31" enter b`+strings.Repeat(" r", n))
		s := v.be.last()
		if s.line != 31 || s.reason != "breakpoint" || seen[s.warp] {
			t.Fatalf("run %d stopped at line %d (%s, warp %d), want the breakpoint at 31 for a new warp (seen %v)", n, s.line, s.reason, s.warp, seen)
		}
		seen[s.warp] = true
	}
	_, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `g "31" enter b r r r`)
	if !v.be.done() {
		t.Fatalf("third run: %+v, want the end of the kernel", v.be.last())
	}
	// h stops at a breakpoint before the hazard it runs to.
	_, v = stepper(t, kernelAt(t, tinyLaunch, tinyRace), 100, 30, `g "31" enter b h`)
	if s := v.be.last(); s.line != 31 || s.reason != "breakpoint" || len(v.hazRows) != 0 {
		t.Fatalf("h with a breakpoint before the race: stopped at line %d (%s) with %d hazards", s.line, s.reason, len(v.hazRows))
	}
	m, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `g "27" enter b`)
	if len(v.breaks) != 0 || !strings.Contains(m.Plain(), "holds no instruction") {
		t.Fatalf("breakpoint on an empty line accepted: %v\n%s", v.breaks, m.Plain())
	}
}

// Run to the next hazard stops on the planted bug, the hazard pane lists
// it, and enter on it moves the source cursor to its line.
func TestStepperHazardJump(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    func(t *testing.T) *KernelConfig
		kind string
		line int
	}{
		{"race", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, tinyRace) }, "smem-race", 33},
		{"missing wait", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, gemmWait)) }, "async-source-reuse", 812},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, v := stepper(t, tc.k(t), 120, 36, "h")
			if len(v.hazRows) == 0 {
				t.Fatal("no hazard after h")
			}
			h := v.hazRows[0]
			if h.kind != tc.kind || h.line != tc.line {
				t.Fatalf("first hazard %s at line %d, want %s at %d", h.kind, h.line, tc.kind, tc.line)
			}
			// Focus the hazard pane (f cycles the focus), move the
			// source away, and jump back with enter.
			_, v = stepper(t, tc.k(t), 120, 36, "h g \"1\" enter "+focusKeys(v, paneHazards)+" enter")
			if v.src.cur+1 != tc.line || v.focus != paneSource {
				t.Fatalf("enter on the hazard: source line %d, focus %s; want line %d and the source", v.src.cur+1, paneNames[v.focus], tc.line)
			}
		})
	}
}

// focusKeys are the keys that move the focus from the source to pane p.
func focusKeys(v *stepperView, p paneKind) string {
	var keys []string
	for _, q := range tabPanes {
		if q == p {
			break
		}
		keys = append(keys, "]")
	}
	// The first f focuses the right-hand pane.
	return strings.Join(append(keys, "f"), " ")
}

// A trace written by the simulator replays to the same end: every warp
// finished, the same hazards.
func TestStepperTraceReplay(t *testing.T) {
	k := kernelAt(t, tinyLaunch, tinyRace)
	var buf bytes.Buffer
	m, err := sim.Prepare(k.Path, k.Source, k.Launch, sim.Options{Trace: &buf, TraceValues: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	m.FlushTrace()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	app := snapshot(t, Config{Trace: path}, 100, 30, "h")
	v := app.views[app.active].(*stepperView)
	if len(v.hazRows) == 0 || v.hazRows[0].kind != "smem-race" {
		t.Fatalf("trace replay: hazards %v, want the smem race first", v.hazRows)
	}
	app = snapshot(t, Config{Trace: path}, 100, 30, "r")
	v = app.views[app.active].(*stepperView)
	if !v.be.done() {
		t.Fatalf("trace replay did not reach the end: %+v", v.be.last())
	}
	live := snapshot(t, Config{Kernel: kernelAt(t, tinyLaunch, tinyRace)}, 100, 30, "r")
	lv := live.views[live.active].(*stepperView)
	if v.be.steps() != lv.be.steps() {
		t.Errorf("trace replay ends after %d steps, the live run after %d", v.be.steps(), lv.be.steps())
	}
	if len(v.hazRows) != len(lv.hazRows) {
		t.Errorf("trace replay has %d hazards, the live run %d", len(v.hazRows), len(lv.hazRows))
	}
	// Bad trace files are refused with the file named.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{not json\n"), 0o644)
	if _, err := New(Config{Trace: bad}); err == nil || !strings.Contains(err.Error(), "bad.jsonl") {
		t.Errorf("bad trace: %v", err)
	}
}

// Random key presses never panic and always draw a full frame.
func TestStepperRandomKeys(t *testing.T) {
	keys := []string{"s", "w", "r", "h", "p", "P", "b", "t", "T", ">", "<", "]", "[", "f", "z", "x", "o", "c",
		"up", "down", "left", "right", "pgup", "pgdown", "home", "end", "enter", "esc", "g", "1", "2", "tab", "5"}
	r := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 6; round++ {
		var script []string
		for i := 0; i < 40; i++ {
			script = append(script, keys[r.IntN(len(keys))])
		}
		k := kernelAt(t, tinyLaunch, tinyRace)
		w, h := 60+r.IntN(80), 16+r.IntN(30)
		m, err := New(Config{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		msgs, err := ParseKeys(strings.Join(script, " "))
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			m.Update(msg)
		}
		checkFrame(t, m, w, h)
	}
}
