package main

import (
	"bufio"
	"bytes"
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
	for _, want := range []string{"error [proxy/generic-to-async] TMA store reads shared bytes",
		"  at   ../../fixtures/sim/broken/epilogue_missing_proxy_fence.ptx:742:2  cp.async.bulk.tensor",
		"  fix  ../../fixtures/sim/broken/epilogue_missing_proxy_fence.ptx:725:2  bar.sync 0",
		"epilogue_stmatrix.cu:67:3  __syncthreads();", // the kernel's own source, through .loc
		"  sites: 4: lines 742 (fix 725) ← 651 ×4", "scope: 4 CTAs", "why: ", "1 error"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "why: ") != 1 {
		t.Errorf("the explanation is printed more than once:\n%s", out)
	}
	// The kernel's bank conflicts (its staging stores and stmatrix) are
	// performance findings: reported, not counted as hazards.
	if !strings.Contains(errOut, "1 error, 3 performance findings reported") {
		t.Errorf("stderr: %q", errOut)
	}
}

// TestRunReportFormats: --brief, --format json and sarif, --strict,
// --allow and --rules.
func TestRunReportFormats(t *testing.T) {
	args := []string{"run", "../../fixtures/sim/broken/gemm_wrong_swizzle.ptx", "--launch", "../../fixtures/sim/launch/gemm_tma_wgmma.json", "--check", "-q", "--limit", "0"}
	code, out, _ := runCLI(t, append(args, "--brief")...)
	// one finding at the first descriptor constant to fix (343), over the
	// eight wgmmas' A and B operands
	if code != 1 || strings.Count(out, "[desc/layout-mismatch]") != 1 || !strings.Contains(out, "gemm_wrong_swizzle.ptx:343:2: error [desc/layout-mismatch]") || !strings.Contains(out, "(16 sites)") {
		t.Errorf("--brief: exit %d, want one line for the 8 wgmmas:\n%s", code, out)
	}
	code, out, _ = runCLI(t, append(args, "--format", "json")...)
	var doc struct {
		Summary  map[string]int
		Findings []struct {
			Rule, Severity string
			Cause          struct {
				File string
				Line int
			}
			Sites []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	if code != 1 || doc.Summary["errors"] != 1 || len(doc.Findings) != 1 || doc.Findings[0].Rule != "desc/layout-mismatch" || len(doc.Findings[0].Sites) != 16 || doc.Findings[0].Cause.Line != 343 {
		t.Errorf("--format json: exit %d, %+v", code, doc)
	}
	code, out, _ = runCLI(t, append(args, "--format", "sarif")...)
	var sarif struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil {
		t.Fatalf("--format sarif: %v\n%s", err, out)
	}
	if code != 1 || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Tool.Driver.Rules) < 40 ||
		len(sarif.Runs[0].Results) != 1 || sarif.Runs[0].Results[0].RuleID != "desc/layout-mismatch" || sarif.Runs[0].Results[0].Level != "error" ||
		sarif.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine != 343 {
		t.Errorf("--format sarif: exit %d, %+v", code, sarif)
	}
	// --allow silences a rule (and the run succeeds); a family works too
	for _, allow := range []string{"desc/layout-mismatch", "desc"} {
		code, out, _ = runCLI(t, append(args, "--allow", allow)...)
		if code != 0 || strings.Contains(out, "error [") || !strings.Contains(out, "allowed (not reported): desc/layout-mismatch") {
			t.Errorf("--allow %s: exit %d:\n%s", allow, code, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "want text, json or sarif"},
		{[]string{"--allow", "desc/layout-mismatsh"}, "did you mean desc/layout-mismatch"},
	} {
		if code, _, errs := runCLI(t, append(args, tc.args...)...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q", tc.args, code, errs)
		}
	}
	code, out, _ = runCLI(t, "run", "--rules")
	if code != 0 || !strings.Contains(out, "proxy/cp-async-to-wgmma") || !strings.Contains(out, "mbarrier/phase-lapped") {
		t.Errorf("--rules: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "run", "--rules", "proxy/cp-async-to-wgmma")
	if code != 0 || !strings.Contains(out, "FenceInsertion.cpp") || !strings.Contains(out, "PTX ISA 9.7.15.4") {
		t.Errorf("--rules RULE: exit %d:\n%s", code, out)
	}
}

// TestRunExitStatus: 1 whenever an error or warning was reported, whatever
// stopped the run; portability notes alone do not fail unless --strict.
func TestRunExitStatus(t *testing.T) {
	broken := []string{"run", "../../fixtures/sim/broken/attention_missing_wait.ptx", "--launch", "../../fixtures/sim/launch/attention_step_exact.json", "-q", "--limit", "0"}
	for _, tc := range []struct {
		extra []string
		code  int
		want  string
	}{
		{nil, 1, "[wgmma/acc-read-before-wait]"},                                                          // protocol checks run without --check
		{[]string{"--until", "hazard"}, 1, "stopped after a hazard"},                                      // stopped by the hazard
		{[]string{"--break", "602"}, 1, "stopped at the breakpoint"},                                      // the hazard came before the breakpoint
		{[]string{"--max-steps", "8000", "--workers", "1", "--check"}, 1, "[wgmma/acc-read-before-wait]"}, // the step limit stops it after the hazard
		{[]string{"--allow", "wgmma"}, 0, "allowed (not reported)"},
	} {
		code, out, errs := runCLI(t, append(broken, tc.extra...)...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", tc.extra, code, tc.code, tc.want, out, errs)
		}
	}
	// a portability note alone passes; --strict makes it a warning
	note := []string{"run", "../../fixtures/sim/broken/gemm_mbarrier_init_unfenced.ptx", "--launch", "../../fixtures/sim/launch/gemm_tma_wgmma.json", "-q", "--limit", "0", "--check"}
	if code, out, _ := runCLI(t, note...); code != 0 || !strings.Contains(out, "note [mbarrier/init-not-fenced]") || !strings.Contains(out, "1 portability note") {
		t.Errorf("a note: exit %d:\n%s", code, out)
	}
	if code, out, _ := runCLI(t, append(note, "--strict")...); code != 1 || !strings.Contains(out, "warning [mbarrier/init-not-fenced]") {
		t.Errorf("--strict: exit %d:\n%s", code, out)
	}
}

func TestRunCheckClean(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--launch", "../../fixtures/sim/launch/attention_step_exact.json", "--check", "--limit", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	// Clean: no error, warning or note; the staging stores' bank conflicts
	// are performance findings.
	if !strings.Contains(out, "\n3 performance findings\n") || strings.Contains(out, "error") || strings.Contains(out, "warning") || strings.Contains(out, "note") {
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
		{[]string{"run", oob, "--grid", "1", "--block", "32"}, 2, "takes 1 parameter (.param"},
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
	for _, want := range []string{"stopped at the breakpoint", "attention_step_exact.sm_90a.ptx:403:1 before wgmma.mma_async", "warps:", "CTA (0,0,0) warp  0"} {
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
// warps interleave as in the TUI stepper. The race is the same finding
// whichever access comes second in that order: at the load (line 33),
// with the store as the other party.
func TestRunQuantum(t *testing.T) {
	args := []string{"run", "../../tui/testdata/stepper/tiny_race.ptx", "--launch", "../../tui/testdata/stepper/tiny.json", "--check", "-q", "--brief"}
	_, out64, _ := runCLI(t, args...)
	_, out1, _ := runCLI(t, append(args, "--quantum", "1")...)
	for _, out := range []string{out64, out1} {
		if !strings.Contains(out, "tiny_race.ptx:33:2: error [smem/race]") {
			t.Errorf("want the race at the load (line 33):\n%s", out)
		}
	}
	if code, _, errs := runCLI(t, append(args, "--quantum", "-1")...); code != 2 || !strings.Contains(errs, "--quantum") {
		t.Errorf("--quantum -1: exit %d %q", code, errs)
	}
}

// TestRunBankConflicts checks --check's bank-conflict findings on the
// transpose kernels: a 32-way conflict, reported with its line and cost
// in every format, which does not change the exit status; none with the
// padded tile; none without --check.
func TestRunBankConflicts(t *testing.T) {
	args := func(kernel string, more ...string) []string {
		return append([]string{"run", "../../fixtures/sim/banks/transpose.ptx", "--kernel", kernel, "--grid", "1", "--block", "32,32",
			"--param", "in=buf:size=4096,fill=iota:f32", "--param", "out=buf:size=4096", "--out", "out:f32", "--limit", "4"}, more...)
	}
	code, out, errOut := runCLI(t, args("transpose32", "--check")...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"perf [perf/bank-conflict] 32 requests of 4-byte accesses took 1024 wavefronts, ideal 32 (32.00x); worst phase 32-way\n",
		"  at   ../../fixtures/sim/banks/transpose.ptx:48:2  ld.shared.f32 %f1, [%r11]\n",
		"scope: 1 CTA, 32 warps, 1024 threads",
		"\n1 performance finding\n",
		"[0] 0 32 64 96",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, js, _ := runCLI(t, args("transpose32", "--check", "--format", "json")...)
	if !strings.Contains(js, `"rule": "perf/bank-conflict"`) || !strings.Contains(js, `"perf": 1`) {
		t.Errorf("json:\n%s", js)
	}
	code, out, errOut = runCLI(t, args("transpose32_padded", "--check")...)
	if code != 0 || !strings.Contains(out, "\nno hazards\n") || strings.Contains(out, "bank-conflict") {
		t.Errorf("padded: exit %d, %s\n%s", code, errOut, out)
	}
	if _, out, _ := runCLI(t, args("transpose32")...); strings.Contains(out, "bank-conflict") {
		t.Errorf("output without --check:\n%s", out)
	}
}

// Correctness caveats survive -q: the sm_100a "not hardware-verified" note
// (and the not-bit-exact note, TestReplayNotBitExact) is printed with and
// without it; with --format json standard output carries the document only.
func TestRunCaveatsQuiet(t *testing.T) {
	launch := "../../fixtures/sim/launch/tcgen05_gemm.json"
	const note = "  note: sm_100a (tcgen05, Tensor Memory) semantics and arithmetic are modelled from the ISA and public evidence: not hardware-verified\n"
	for _, args := range [][]string{
		{"run", "--launch", launch, "--limit", "0"},
		{"run", "--launch", launch, "--limit", "0", "-q"},
	} {
		expectCLI(t, args, 0, []string{note}, nil, "")
	}
	expectCLI(t, []string{"run", "--launch", launch, "--limit", "0", "-q", "--format", "json"}, 0, nil, []string{"not hardware-verified"}, "")
	// an sm_90a run has no such note
	expectCLI(t, []string{"run", "--launch", "../../fixtures/sim/launch/gemm_tma_wgmma.json", "--limit", "0", "-q"}, 0, nil, []string{"not hardware-verified"}, "")
}

// --out PARAM:TYPE:RxC prints a buffer as the rows of a matrix: every
// column on a pipe, the columns that fit (every line within the width) on a
// terminal; a shape that does not cover the buffer is a usage error.
func TestRunOutShape(t *testing.T) {
	launch := "../../fixtures/sim/launch/gemm_tma_wgmma.json"
	args := []string{"run", "--launch", launch, "--out", "C:f32:256x256", "-q", "--limit", "512"}
	expectCLI(t, args, 0, []string{"C (param 2), 262144 bytes, 256×256 row-major:\n", "\n0    5.4671373    2.6795554   -7.9969907", "  ... 254 more rows"}, []string{"[0]"}, "")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, width: 80}
	if code := run(e, args); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 80 {
			t.Errorf("a %d-column line on an 80-column terminal: %q", len(l), l)
		}
	}
	if !strings.Contains(out.String(), "of 256 fit this 80-column terminal") {
		t.Errorf("no note on the columns left out:\n%s", out.String())
	}
	expectCLI(t, []string{"run", "--launch", launch, "--out", "C:f32:256x255", "-q"}, 2, nil, nil, "--out C:f32:256x255: 256×255 .f32 elements are 261120 bytes; buffer C (param 2) has 262144 (65536 elements)")
	expectCLI(t, []string{"run", "--launch", launch, "--out", "C:f32:256by256", "-q"}, 2, nil, nil, `shape "256by256": want ROWSxCOLS`)
}
