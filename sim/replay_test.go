package sim

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The corpus kernels recorded on an H100 (fixtures/corpus/NAME). Each is
// recorded by the lead with the command in recordCommand; until a case
// exists its test is skipped.
var recorded = []struct {
	name   string
	approx bool       // ex2.approx: compared within a tolerance, flagged not bit-exact
	expect HazardKind // the one kind of hazard the kernel must report, if any
}{
	{"gemm_tma_wgmma", false, ""},
	{"attention_step_exact", false, ""},
	{"epilogue_stmatrix", false, ""},
	{"attention_step", true, ""},
	{"stage_ldshared", false, ""},
	{"warp_transpose", false, ""},
	// TMA into destinations off the swizzle repeat (8 offsets x 3 modes).
	{"tma_swizzle_phase_128B", false, HzTmaSwizzleAlign},
	{"tma_swizzle_phase_64B", false, HzTmaSwizzleAlign},
	{"tma_swizzle_phase_32B", false, HzTmaSwizzleAlign},
}

func recordCommand(name string) string {
	return "tcsim record --launch fixtures/sim/launch/" + name + ".json --case fixtures/corpus/" + name
}

// TestRecordedCorpus replays the H100 recordings: tcsim must produce the
// same bytes.
func TestRecordedCorpus(t *testing.T) {
	for _, rc := range recorded {
		t.Run(rc.name, func(t *testing.T) {
			dir := filepath.Join("../fixtures/corpus", rc.name)
			if _, err := os.Stat(dir); os.IsNotExist(err) {
				t.Skipf("%s is not recorded yet; on an H100 run: %s", dir, recordCommand(rc.name))
			}
			c, m, mism := runFixture(t, dir)
			seen := false
			for _, h := range m.Errors() {
				if rc.expect != "" && h.Kind == rc.expect {
					seen = true
					continue
				}
				t.Errorf("hazard in a recorded corpus kernel: %s", h)
			}
			if rc.expect != "" && !seen {
				t.Errorf("no %s hazard reported", rc.expect)
			}
			if !rc.approx {
				for _, mm := range mism {
					t.Errorf("%s", mm)
				}
				return
			}
			// ex2.approx is computed in float64 here: compare within a bound.
			if len(m.ApproxPCs()) == 0 {
				t.Errorf("the approximate kernel reported no approximate instructions")
			}
			for _, o := range c.Outputs {
				b, _ := m.Buffer(o.Param)
				maxDiff, same := 0.0, 0
				for i := 0; i+4 <= len(o.Data); i += 4 {
					w := math.Float32frombits(binary.LittleEndian.Uint32(o.Data[i:]))
					g := math.Float32frombits(binary.LittleEndian.Uint32(b.Data[i:]))
					maxDiff = math.Max(maxDiff, math.Abs(float64(w)-float64(g)))
					if w == g {
						same++
					}
				}
				t.Logf("%s: %d of %d elements bit-identical, largest difference %g (ex2.approx is not bit-exact)", o.Param, same, len(o.Data)/4, maxDiff)
				if maxDiff > 1e-2 || maxDiff != maxDiff {
					t.Errorf("%s: differs from the H100 by up to %g", o.Param, maxDiff)
				}
			}
		})
	}
}
