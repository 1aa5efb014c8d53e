package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// The corpus kernels recorded on an H100 (fixtures/corpus/NAME). Each is
// recorded by the lead with the command in recordCommand; until a case
// exists its test is skipped.
var recorded = []struct {
	name   string
	expect HazardKind // the one kind of hazard the kernel must report, if any
}{
	{"gemm_tma_wgmma", ""},
	{"attention_step_exact", ""},
	{"epilogue_stmatrix", ""},
	// ex2.approx.ftz.f32 (the softmax's exp2): bit-exact through sim/sfu.
	{"attention_step", ""},
	{"stage_ldshared", ""},
	{"warp_transpose", ""},
	// (The Triton attention forward captured on the H100,
	// fixtures/captures/triton_attention, replays bit-identically too:
	// cmd/tcsim's TestCapturedKernels.)
	// TMA into destinations off the swizzle repeat (8 offsets x 3 modes).
	{"tma_swizzle_phase_128B", HzTmaSwizzleAlign},
	{"tma_swizzle_phase_64B", HzTmaSwizzleAlign},
	{"tma_swizzle_phase_32B", HzTmaSwizzleAlign},
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
			_, m, mism := runFixture(t, dir)
			seen := false
			for _, h := range m.Hazards() {
				if rc.expect != "" && h.Kind == rc.expect {
					seen = true
					continue
				}
				if h.Severity <= SevWarning {
					t.Errorf("hazard in a recorded corpus kernel: %s", h)
				}
			}
			if rc.expect != "" && !seen {
				t.Errorf("no %s hazard reported", rc.expect)
			}
			for _, mm := range mism {
				t.Errorf("%s", mm)
			}
			if len(m.ApproxPCs()) != 0 {
				t.Errorf("instructions reported not bit-exact at pcs %v", m.ApproxPCs())
			}
		})
	}
}
