package sfu

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareDir holds tcsim run --compare-gpu on the attention kernels, as
// fixtures/approx/record.sh recorded it on the GPU machine.
const compareDir = fixtureDir + "/compare_gpu"

// TestCompareGPUEvidence: the recorded tcsim run --compare-gpu of both
// attention kernels (the softmax with ex2.approx.ftz.f32, and with exact
// exp) says that every buffer is identical to the GPU's, exited 0, has
// its provenance, and ran the kernel and launch files as they are now.
func TestCompareGPUEvidence(t *testing.T) {
	for _, k := range []string{"attention_step", "attention_step_exact"} {
		for _, p := range compareRecordProblems(filepath.Join(compareDir, k+".txt"), k, "../..") {
			t.Error(p)
		}
	}
}

// TestCompareRecordChecks: the checks of TestCompareGPUEvidence catch a
// record that failed, differs, lacks a buffer or provenance, or ran other
// files.
func TestCompareRecordChecks(t *testing.T) {
	k := "attention_step"
	var sums strings.Builder
	for _, p := range []string{"fixtures/kernels/" + k + ".sm_90a.ptx", "fixtures/sim/launch/" + k + ".json"} {
		data, err := os.ReadFile(filepath.Join("../..", p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "sha256: %x  %s\n", sha256.Sum256(data), p)
	}
	good := "command: tcsim run --launch fixtures/sim/launch/attention_step.json --compare-gpu\ndate: 2026-12-01T00:00:00Z\ngpu: NVIDIA H200, 1.0, 9.0\nptxas: V13\ntcsim: tcsim x\n" +
		sums.String() + "exit: 0\noutput:\nO (param 3), 32768 bytes:\n" +
		"compare-gpu: Q: 16384 bytes identical to NVIDIA H200\ncompare-gpu: K: 8192 bytes identical to NVIDIA H200\n" +
		"compare-gpu: V: 8192 bytes identical to NVIDIA H200\ncompare-gpu: O: 32768 bytes identical to NVIDIA H200\n"
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		bad        bool
	}{
		{"good", good, false},
		{"failed", strings.Replace(good, "exit: 0", "exit: 1", 1), true},
		{"differs", strings.Replace(good, "O: 32768 bytes identical to NVIDIA H200", "O: 3 of 8192 elements differ; first at element 7", 1), true},
		{"no O", strings.Replace(good, "compare-gpu: O: 32768 bytes identical to NVIDIA H200\n", "", 1), true},
		{"no gpu", strings.Replace(good, "gpu: NVIDIA H200, 1.0, 9.0\n", "", 1), true},
		{"other kernel", strings.Replace(good, "sha256: ", "sha256: 00", 1), true},
	} {
		fn := filepath.Join(dir, c.name)
		if err := os.WriteFile(fn, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if p := compareRecordProblems(fn, k, "../.."); (len(p) > 0) != c.bad {
			t.Errorf("%s: problems %q", c.name, p)
		}
	}
}

// compareRecordProblems checks one record of record.sh's --compare-gpu
// step for kernel k (root: the repository root).
func compareRecordProblems(fn, k, root string) []string {
	f, err := os.Open(fn)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fn+": "+fmt.Sprintf(format, args...)) }
	head := map[string][]string{}
	var out []string
	sc := bufio.NewScanner(f)
	for inOut := false; sc.Scan(); {
		l := sc.Text()
		switch {
		case inOut:
			out = append(out, l)
		case l == "output:":
			inOut = true
		default:
			key, val, _ := strings.Cut(l, ": ")
			head[key] = append(head[key], val)
		}
	}
	for _, key := range []string{"command", "date", "gpu", "ptxas", "tcsim", "exit"} {
		if len(head[key]) != 1 || strings.TrimSpace(head[key][0]) == "" {
			bad("no %s", key)
		}
	}
	if len(head["exit"]) == 1 && head["exit"][0] != "0" {
		bad("exit %s", head["exit"][0])
	}
	identical := map[string]bool{}
	for _, l := range out {
		if rest, ok := strings.CutPrefix(l, "compare-gpu: "); ok {
			name, res, _ := strings.Cut(rest, ": ")
			identical[name] = strings.Contains(res, " bytes identical to NVIDIA H")
			if !identical[name] {
				bad("%s", l)
			}
		}
	}
	for _, b := range []string{"O", "Q", "K", "V"} {
		if !identical[b] {
			bad("buffer %s is not compared identical", b)
		}
	}
	want := map[string]bool{"fixtures/kernels/" + k + ".sm_90a.ptx": false, "fixtures/sim/launch/" + k + ".json": false}
	for _, s := range head["sha256"] {
		sum, path, _ := strings.Cut(s, "  ")
		if _, ok := want[path]; !ok {
			continue
		}
		want[path] = true
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			bad("%v", err)
			continue
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
			bad("%s has changed since the GPU ran it", path)
		}
	}
	for path, seen := range want {
		if !seen {
			bad("no sha256 of %s", path)
		}
	}
	return problems
}
