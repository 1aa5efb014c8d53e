package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/capture"
)

// TestCapturedKernelsHazards runs the hazard checker on the production
// kernels whose raw records are not committed as cases (Triton's TMA
// persistent matmul, tcsim's warp-specialized GEMMs ws_gemm_coop,
// ws_gemm_pingpong and ws_gemm_batched; sim's TestHazardCorpus covers the
// committed ones): see
// checkSchedules.
func TestCapturedKernelsHazards(t *testing.T) {
	for _, k := range capturedKernels {
		if exists(filepath.Join("../../fixtures/captures", k.name)) || k.convert != "" || k.replay != "bit-exact" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			raw := untar(t, filepath.Join("../../fixtures/captures/testdata", k.name+".tar.gz"))
			res, err := capture.ConvertAll(raw, t.TempDir(), capture.ConvertOptions{Command: "test"})
			if err != nil || res[0].Err != nil {
				t.Fatalf("convert: %v %v", err, res[0].Err)
			}
			checkSchedules(t, res[0].Dir)
		})
	}
}

// checkSchedules replays the case in dir with --check under the lazy,
// eager and latest schedules and 20 random seeds (lazy and one seed with
// -short): each run
// must report no error and no warning, at most one portability note per
// rule, and replay the GPU's bytes exactly.
func checkSchedules(t *testing.T, dir string) {
	t.Helper()
	seeds := 20
	scheds := [][]string{{"--schedule", "lazy"}, {"--schedule", "eager"}, {"--schedule", "latest"}}
	if testing.Short() {
		// the edit-test loop: one fixed and one random order
		scheds, seeds = scheds[:1], 1
	}
	for s := 1; s <= seeds; s++ {
		scheds = append(scheds, []string{"--schedule", "random", "--seed", fmt.Sprint(s)})
	}
	noteRe := regexp.MustCompile(`(?m)^note \[([a-z0-9/-]+)\]`)
	for _, sc := range scheds {
		args := append([]string{"replay", dir, "--check", "-q"}, sc...)
		code, out, errs := runCLI(t, args...)
		if code != 0 || strings.Contains(out, "error [") || strings.Contains(out, "warning [") {
			t.Errorf("%v: exit %d\n%s%s", sc, code, out, errs)
			continue
		}
		notes := map[string]int{}
		for _, m := range noteRe.FindAllStringSubmatch(out, -1) {
			notes[m[1]]++
		}
		for r, n := range notes {
			if n > 1 {
				t.Errorf("%v: %d portability notes of %s", sc, n, r)
			}
		}
	}
}
