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
			_, m, mism := runFixture(t, dir)
			for _, mm := range mism {
				t.Errorf("%s", mm)
			}
			for _, h := range m.Hazards() {
				t.Logf("hazard: %s", h)
			}
		})
	}
}

// runFixture loads the recorded case in dir and runs it with the hazard
// checks on, returning the case, the machine and the outputs that differ.
func runFixture(t testing.TB, dir string) (*fixtures.Case, *Machine, []Mismatch) {
	t.Helper()
	c, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, mism, err := RunCase(c, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, m, mism
}
