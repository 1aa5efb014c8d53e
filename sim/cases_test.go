package sim

import (
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
)

// TestGPUCases replays the H100-recorded cases of fixtures/gpu in the
// simulator: every output buffer must match bit for bit.
func TestGPUCases(t *testing.T) {
	dirs, err := filepath.Glob("../fixtures/gpu/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c, err := fixtures.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			m, mism, err := RunCase(c, Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, mm := range mism {
				t.Errorf("%s", mm)
			}
			for _, h := range m.Hazards() {
				t.Logf("hazard: %s", h)
			}
		})
	}
}
