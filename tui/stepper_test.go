package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/tcsim/tcsim/launch"
)

// kernelAt is the stepper's configuration for a launch file, with the PTX
// of ptx instead of the launch's when it is not empty.
func kernelAt(t *testing.T, launchFile, ptx string) *KernelConfig {
	t.Helper()
	l, err := launch.ReadLaunch(launchFile)
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
	k.Launch.Grid = launch.Dim3{1, 1, 1}
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
		{"tiny_breakpoint", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 100, 30, `: "31" enter b r`},
		{"tiny_race_hazard", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, tinyRace) }, 100, 30, "H"},
		{"tiny_80x24", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }, 80, 24, "s s s s ]"},
		{"gemm_hazard", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, gemmWait)) }, 120, 36, "H"},
		{"gemm_fragment", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 120, 36, `: "790" enter b r ]`},
		{"gemm_async", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 120, 36, `: "515" enter b r ] ] ] ] ]`},
		{"tcgen05_tmem", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, tcgenLaunch, "")) }, 120, 36, `: "611" enter b r ] ] ]`},
		{"gemm_smem_zoom", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, "")) }, 100, 30, `: "515" enter b r ] ] f z`},
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

// P goes back to the previous stop: a whole run undone.
func TestStepperBackToStop(t *testing.T) {
	_, want := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "s s s")
	_, got := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `s s s : "31" enter b r P`)
	if a, b := snapshotState(t, got.be), snapshotState(t, want.be); a != b {
		t.Errorf("run and P differs from before the run:\n%s", lineDiff(a, b))
	}
}

// A breakpoint stops every run at its line; a line without an
// instruction refuses one.
func TestStepperBreakpoint(t *testing.T) {
	// Both warps stop at the breakpoint once, then the run goes on to the
	// end.
	seen := map[int]bool{}
	for n := 1; n <= 2; n++ {
		_, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `: "31" enter b`+strings.Repeat(" r", n))
		s := v.be.last()
		if s.line != 31 || s.reason != "breakpoint" || seen[s.warp] {
			t.Fatalf("run %d stopped at line %d (%s, warp %d), want the breakpoint at 31 for a new warp (seen %v)", n, s.line, s.reason, s.warp, seen)
		}
		seen[s.warp] = true
	}
	_, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `: "31" enter b r r r`)
	if !v.be.done() {
		t.Fatalf("third run: %+v, want the end of the kernel", v.be.last())
	}
	// h stops at a breakpoint before the hazard it runs to.
	_, v = stepper(t, kernelAt(t, tinyLaunch, tinyRace), 100, 30, `: "31" enter b H`)
	if s := v.be.last(); s.line != 31 || s.reason != "breakpoint" || len(v.hazRows) != 0 {
		t.Fatalf("h with a breakpoint before the race: stopped at line %d (%s) with %d hazards", s.line, s.reason, len(v.hazRows))
	}
	m, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, `: "27" enter b`)
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
		{"race", func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, tinyRace) }, "smem/warp-exchange-without-sync", 33},
		{"missing wait", func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, gemmWait)) }, "async/refill-before-release", 812},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, v := stepper(t, tc.k(t), 120, 36, "H")
			if len(v.hazRows) == 0 {
				t.Fatal("no hazard after h")
			}
			h := v.hazRows[0]
			if h.kind != tc.kind || h.line != tc.line {
				t.Fatalf("first hazard %s at line %d, want %s at %d", h.kind, h.line, tc.kind, tc.line)
			}
			// Focus the hazard pane (f cycles the focus), move the
			// source away, and jump back with enter.
			_, v = stepper(t, tc.k(t), 120, 36, "H : \"1\" enter "+focusKeys(v, paneHazards)+" enter")
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
