package tui

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTmux runs the real tcsim binary inside tmux (testdata/e2e.sh): keys,
// mouse clicks, a live resize, NO_COLOR and a clean exit, checked on the
// captured screen. It is skipped where tmux is not installed (.ci/run
// installs it) and under -short.
func TestTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the tmux end-to-end test")
	}
	for _, tool := range []string{"tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: skipping the end-to-end test (.ci/run installs tmux with apt-get)", tool)
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build the binary for the end-to-end test")
	}
	bin := filepath.Join(t.TempDir(), "tcsim")
	build := exec.Command(goTool, "build", "-o", bin, "github.com/tcsim/tcsim/cmd/tcsim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", filepath.Join("testdata", "e2e.sh"), bin).CombinedOutput()
	if err != nil {
		t.Fatalf("testdata/e2e.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
