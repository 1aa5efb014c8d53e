package probe

import (
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
)

// BenchmarkReplay measures replaying the largest recording: Load is the
// baseline (reading the case and checking its manifest); Check is
// decoding its output and comparing it with 32 catalog atoms.
func BenchmarkReplay(b *testing.B) {
	c := Lookup("wgmma_acc_f32_smem")
	dir := filepath.Join(fixturesRoot, c.Name)
	b.Run("Load", func(b *testing.B) {
		for range b.N {
			if _, err := fixtures.Load(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	out, _, err := c.LoadRecorded(fixturesRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Check", func(b *testing.B) {
		for range b.N {
			for _, o := range c.CheckOutput(out) {
				if !o.OK() {
					b.Fatal(o)
				}
			}
		}
	})
}
