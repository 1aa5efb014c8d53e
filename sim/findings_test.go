package sim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFindingsGrouped: observations of one root cause are one finding: the
// same rule at the instructions of one straight stretch of code (four
// tcgen05.ld with one missing wait before them), or at one instruction.
func TestFindingsGrouped(t *testing.T) {
	for _, tc := range []struct {
		variant string
		rule    HazardKind
		lines   []int // the cause lines of the one finding
	}{
		{"pair_missing_wait_ld", HzTcgenLdRead, []int{183, 187, 191, 195}},
		{"pair_lane_quarter", HzTmemLane, nil},
		{"mxf8_refill_inflight", HzTcgenInFlight, []int{138, 139, 140, 141}},
		{"warp_transpose_no_syncwarp", HzWarpExchange, []int{330, 332, 334, 336}},
		{"gemm_skip_wait", HzAsyncEarlyRead, []int{359, 380, 407, 425, 452, 470, 497, 515}},
		{"gemm_wrong_swizzle", HzDescLayout, swizzleLines},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			i := slices.IndexFunc(brokenCases, func(bc brokenCase) bool { return bc.name == tc.variant })
			if i < 0 {
				t.Fatalf("no variant %s", tc.variant)
			}
			bc := brokenCases[i]
			path := filepath.Join(brokenDir, bc.name+".ptx")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := runBroken(t, bc, path, src, Options{Schedule: Lazy})
			var got [][]int
			for _, f := range m.Findings() {
				if f.Rule != tc.rule {
					continue
				}
				var ls []int
				for _, s := range f.Sites {
					c := s.Cause
					if !c.IsValid() {
						c = s.Pos
					}
					if !slices.Contains(ls, int(c.Line)) {
						ls = append(ls, int(c.Line))
					}
				}
				slices.Sort(ls)
				got = append(got, ls)
			}
			if len(got) != 1 {
				t.Fatalf("%s: %d findings %v, want one", tc.rule, len(got), got)
			}
			for _, l := range tc.lines {
				if !slices.Contains(got[0], l) {
					t.Errorf("%s: the finding's lines %v lack %d", tc.rule, got[0], l)
				}
			}
		})
	}
}
