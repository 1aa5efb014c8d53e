package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunSaxpy(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "../../gpu/testdata/saxpy.ptx", "--grid", "8", "--block", "128",
		"--param", "n=u32:1000", "--param", "a=f32:2.5", "--param", "x=buf:size=4096,fill=iota:f32",
		"--param", "y=buf:size=4096,fill=const:f32:1", "--out", "y:f32", "--limit", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"kernel saxpy", "y (param 3), 4096 bytes:", "[0] 1 3.5 6 8.5 11 13.5 16 18.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunCheckBroken(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "../../fixtures/sim/broken/epilogue_missing_proxy_fence.ptx",
		"--launch", "../../fixtures/sim/launch/epilogue_stmatrix.json", "--check", "--limit", "0")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (hazards): %s", code, errOut)
	}
	for _, want := range []string{"1 hazard(s):", "epilogue_missing_proxy_fence.ptx:742:2: error [async-proxy-fence]", "fence.proxy.async"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "1 hazard(s) found") {
		t.Errorf("stderr: %q", errOut)
	}
}

func TestRunCheckClean(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--launch", "../../fixtures/sim/launch/attention_step_exact.json", "--check", "--limit", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "no hazards") {
		t.Errorf("output:\n%s", out)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ptx")
	os.WriteFile(bad, []byte(".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p) {\n\t.reg .b32 %r<2>;\n\tadd.u32 %r1, %r9, 1;\n\tret;\n}\n"), 0o644)
	oob := filepath.Join(dir, "oob.ptx")
	os.WriteFile(oob, []byte(".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p) {\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [p];\n\tst.global.u32 [%rd1+64], 1;\n\tret;\n}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", bad, "--grid", "1", "--block", "32", "--param", "p=buf:size=16"}, 1, "bad.ptx:6:15"},
		{[]string{"run", oob, "--grid", "1", "--block", "32", "--param", "p=buf:size=16"}, 1, "out-of-bounds global memory access: 4 bytes at"},
		{[]string{"run", oob, "--grid", "1", "--block", "32", "--param", "p=buf:size=16"}, 1, "48 bytes past the end of buffer p"},
		{[]string{"run", oob, "--grid", "1", "--block", "32"}, 2, "takes 1 parameters"},
		{[]string{"run", oob, "--grid", "1", "--block", "32", "--param", "p=buf:size=16", "--schedule", "sideways"}, 2, "want lazy, latest, eager or random"},
		{[]string{"run", oob, "--grid", "1", "--block", "32", "--param", "p=buf:size=128", "--compare-gpu"}, 1, "no NVIDIA driver found"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[1:], code, errOut, tc.code, tc.want)
		}
	}
}

func TestRunBreakAndTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	code, out, errOut := runCLI(t, "run", "--launch", "../../fixtures/sim/launch/attention_step_exact.json",
		"--break", "403", "--trace", trace, "--trace-values")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"stopped at the breakpoint", "attention_step_exact.sm_90a.ptx:403:1 before wgmma.mma_async", "warps:", "CTA [0 0 0] warp  0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	types := map[string]int{}
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("bad trace line %q: %v", sc.Text(), err)
		}
		types[rec["type"].(string)]++
	}
	if types["header"] != 1 || types["inst"] == 0 {
		t.Errorf("trace record types %v", types)
	}
}

// --quantum sets how many instructions a warp runs per turn: with 1 the
// warps interleave as in the TUI stepper, and a race is reported at the
// access that comes second in that order.
func TestRunQuantum(t *testing.T) {
	args := []string{"run", "../../tui/testdata/stepper/tiny_race.ptx", "--launch", "../../tui/testdata/stepper/tiny.json", "--check", "-q"}
	_, out64, _ := runCLI(t, args...)
	_, out1, _ := runCLI(t, append(args, "--quantum", "1")...)
	if !strings.Contains(out64, "tiny_race.ptx:31:2: error [smem-race]") {
		t.Errorf("default quantum: want the race at the store (line 31):\n%s", out64)
	}
	if !strings.Contains(out1, "tiny_race.ptx:33:2: error [smem-race]") {
		t.Errorf("--quantum 1: want the race at the load (line 33):\n%s", out1)
	}
	if code, _, errs := runCLI(t, append(args, "--quantum", "-1")...); code != 2 || !strings.Contains(errs, "--quantum") {
		t.Errorf("--quantum -1: exit %d %q", code, errs)
	}
}
