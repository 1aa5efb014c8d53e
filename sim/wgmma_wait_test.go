package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestMissingWaitFix: gemm_missing_wait (the wgmma.wait_group after the
// commit at line 522 removed) is one finding under every schedule: the
// refill at 812 with the commit as its line to fix and the wait to add in
// its message, and the epilogue's accumulator reads at 995 as its
// consequence. Without --check (no happens-before order: the refill is
// judged by the schedule's in-flight operations) the accumulator read
// names the same line to fix.
func TestMissingWaitFix(t *testing.T) {
	path := filepath.Join(brokenDir, "gemm_missing_wait.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := launch.ReadLaunch("../fixtures/sim/launch/gemm_tma_wgmma.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Options) []Finding {
		m, err := Prepare(path, src, l, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		var out []Finding
		for _, f := range m.Findings() {
			if f.Severity <= SevWarning {
				out = append(out, f)
			}
		}
		return out
	}
	for _, o := range brokenSchedules() {
		if testing.Short() && o.Schedule != Lazy {
			continue
		}
		o.Check = true
		fs := run(o)
		if len(fs) != 1 {
			t.Fatalf("%s: %d findings, want 1: %+v", schedName(o), len(fs), fs)
		}
		f := fs[0]
		if f.Rule != HzAsyncRefill || f.Pos.Line != 812 || f.Cause.Line != 522 {
			t.Errorf("%s: %s at %d (fix %d), want %s at 812 (fix 522)", schedName(o), f.Rule, f.Pos.Line, f.Cause.Line, HzAsyncRefill)
		}
		if want := "wait for it with wgmma.wait_group 0 after line 522 and before line 812"; !strings.Contains(f.Msg, want) {
			t.Errorf("%s: message %q does not say %q", schedName(o), f.Msg, want)
		}
		if len(f.Consequences) != 1 || f.Consequences[0].Rule != HzWgmmaAccRead || f.Consequences[0].Pos.Line != 995 {
			t.Errorf("%s: consequences %+v, want the accumulator read at 995", schedName(o), f.Consequences)
		}
	}
	found := false
	for _, f := range run(Options{}) {
		if f.Rule == HzWgmmaAccRead {
			found = f.Pos.Line == 995 && f.Cause.Line == 522 && strings.Contains(f.Msg, "after line 522 and before line 995")
			if !found {
				t.Errorf("without --check: %s at %d (fix %d): %s; want it at 995 with the fix at 522", f.Rule, f.Pos.Line, f.Cause.Line, f.Msg)
			}
		}
	}
	if !found {
		t.Errorf("without --check: no %s", HzWgmmaAccRead)
	}
}
