package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkStartup times whole processes: the tcsim binary running short
// commands against a trivial static Go binary that only starts and exits,
// built in the same run. The "x-trivial" metric is the ratio; every short
// command should stay within a few milliseconds of the trivial binary
// (issue 15: an old go-runewidth spent ~20 ms building tables in init).
//
//	go test ./cmd/tcsim -run '^$' -bench Startup -benchtime 50x
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	tcsim := filepath.Join(dir, "tcsim")
	trivial := filepath.Join(dir, "trivial")
	if out, err := exec.Command("go", "build", "-o", tcsim, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "trivial.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", trivial, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build trivial: %v\n%s", err, out)
	}
	// timeRun runs the command n times and returns the mean wall time.
	timeRun := func(b *testing.B, n int, name string, args ...string) time.Duration {
		start := time.Now()
		for range n {
			c := exec.Command(name, args...)
			c.Env = append(os.Environ(), "NO_COLOR=1")
			if err := c.Run(); err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					b.Fatal(err)
				}
			}
		}
		return time.Since(start) / time.Duration(n)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"version", []string{"--version"}},
		{"help", []string{"--help"}},
		{"num-decode", []string{"num", "decode", "e4m3", "0x7e"}},
		{"layout-eval", []string{"layout", "eval", "composition((6,2):(8,2), (4,3):(3,1))"}},
		{"desc", []string{"desc", "0x4002004000010048", "--major", "K", "--dtype", "bf16"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var base, own time.Duration
			for b.Loop() {
				// alternate so that a drift of the machine's speed hits both
				base += timeRun(b, 1, trivial)
				own += timeRun(b, 1, tcsim, tc.args...)
			}
			b.ReportMetric(float64(own.Microseconds())/float64(b.N)/1000, "ms/tcsim")
			b.ReportMetric(float64(base.Microseconds())/float64(b.N)/1000, "ms/trivial")
			b.ReportMetric(float64(own)/float64(base), "x-trivial")
		})
	}
}
