package main

import (
	"regexp"
	"strings"
	"testing"
)

// demoCommand is one "on files:" command of the demo: its arguments after
// "tcsim", and the keys of a "(the stepper: KEYS)" hint.
type demoCommand struct {
	line string
	args []string
	keys []string
}

// demoCommands finds the commands the demo prints after "on files:" (and
// on the indented lines that follow).
func demoCommands(out string) []demoCommand {
	var cs []demoCommand
	in := false
	for _, l := range strings.Split(out, "\n") {
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "on files: "):
			s, in = strings.TrimPrefix(s, "on files: "), true
		case in && strings.HasPrefix(s, "tcsim "):
		default:
			in = false
			continue
		}
		c := demoCommand{line: s}
		if i := strings.Index(s, "   ("); i >= 0 {
			if keys, ok := strings.CutPrefix(strings.TrimSuffix(s[i+4:], ")"), "the stepper: "); ok {
				c.keys = strings.Fields(keys)
			}
			s = s[:i]
		}
		c.args = strings.Fields(strings.TrimPrefix(s, "tcsim "))
		cs = append(cs, c)
	}
	return cs
}

// TestDemoOnFiles runs every command the demo prints after "on files:",
// from the repository root, and checks that it exits as it should and
// shows what the demo says it does: the step's claim holds on the files.
// A command the demo prints that this table does not know fails the test.
func TestDemoOnFiles(t *testing.T) {
	code, out, errs := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("tcsim demo: exit %d: %s", code, errs)
	}
	type check struct {
		code int
		out  []string
		err  string
	}
	want := map[string]check{
		"replay fixtures/corpus/gemm_tma_wgmma": {0, []string{"C: bit-identical to the GPU (65536 elements, 262144 bytes)", "replay: 1 of 1 buffers bit-identical to the GPU"}, ""},
		"run fixtures/sim/broken/gemm_missing_wait.ptx --launch fixtures/sim/launch/gemm_tma_wgmma.json --check": {1, []string{
			"error [async/refill-before-release]", "fixtures/sim/broken/gemm_missing_wait.ptx:812:2",
			"fix  fixtures/sim/broken/gemm_missing_wait.ptx:522:2  wgmma.commit_group.sync.aligned",
			"wait for it with wgmma.wait_group 0 after line 522 and before line 812",
			"consequences (this run's; they vary with --schedule): wgmma/acc-read-before-wait at 995 ×16", "1 error"}, "1 error reported"},
		"replay fixtures/corpus/gemm_tma_wgmma --ptx fixtures/sim/broken/gemm_missing_wait.ptx -q": {1, []string{
			"variant: the kernel of fixtures/sim/broken/gemm_missing_wait.ptx, not the case's kernel.ptx",
			"C: 65536 of 65536 elements differ from the GPU (0 bit-identical)"}, "1 of 1 buffers differ from the GPU (the variant fixtures/sim/broken/gemm_missing_wait.ptx)"},
		"bitmath wgmma.m64n128.d.f32 --lang c":                          {0, []string{"frag_row", "frag_col"}, ""},
		"tui --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1": {0, []string{"breakpoint: warp 1 is at line 995", "D wgmma.m64n128.d.f32, 64 registers"}, ""},
	}
	// the demo's own claims, which the commands must bear out
	for _, claim := range []string{
		"C: 65536/65536 f32 elements bit-identical to the NVIDIA H100 80GB HBM3",
		"is the recorded kernel with line 527 changed",
		"reports 1 error:",
		"error [async/refill-before-release] at line 812",
		"wait for it with wgmma.wait_group 0 after line 522 and before line 812",
		"522 | wgmma.commit_group.sync.aligned;   (the line to fix)",
		"and its consequence, folded into it: [wgmma/acc-read-before-wait] at line 995",
		"line 527, after line 522 and before line 812",
		"65536 of 65536 elements\n   of its C differ from the H100's",
		"stopped before the epilogue's first store (line 995)",
	} {
		if !strings.Contains(out, claim) {
			t.Errorf("the demo no longer says %q; update this test with it:\n%s", claim, out)
		}
	}
	cmds := demoCommands(out)
	if len(cmds) != len(want) {
		t.Errorf("the demo prints %d commands on files, this test knows %d", len(cmds), len(want))
	}
	t.Chdir("../..")
	quoted := regexp.MustCompile(`^[0-9]+$`)
	for _, c := range cmds {
		w, ok := want[strings.Join(c.args, " ")]
		if !ok {
			t.Errorf("the demo prints %q, which this test does not check: add it", c.line)
			continue
		}
		args := c.args
		if len(c.keys) > 0 {
			// the stepper's keys, as a snapshot instead of a terminal
			keys := append([]string(nil), c.keys...)
			for i, k := range keys {
				if quoted.MatchString(k) {
					keys[i] = `"` + k + `"` // typed text
				}
			}
			args = append(append([]string(nil), args...), "--snapshot", "-", "--size", "120x40", "--keys", strings.Join(keys, " "))
		}
		expectCLI(t, args, w.code, w.out, nil, w.err)
	}
}
