package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// exitCase is one invocation and the exit status it must give: 0 success,
// 1 the check failed (or the run did), 2 a usage error, which includes an
// input file that is missing or unreadable.
type exitCase struct {
	args []string
	code int
}

// TestExitCodes runs every subcommand with a bad flag (2), a missing input
// where it reads one (2), and, where it can run without a GPU, an input
// that passes (0) and one that fails its check (1). A new command must
// add its cases here.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	root := func(p string) string { return filepath.Join("..", "..", p) }
	gemm := root("fixtures/kernels/gemm_tma_wgmma.sm_90a.ptx")
	launchJSON := root("fixtures/sim/launch/gemm_tma_wgmma.json")
	const inst = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
	// inputs that are not what a command reads: usage errors (2), as a
	// missing file is
	junk := filepath.Join(dir, "junk.bin")
	if err := os.WriteFile(junk, []byte("\x93\x00\xffjunk, not a record\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	overlap := filepath.Join(dir, "overlap.json")
	one, _ := filepath.Abs("testdata/one_instruction.ptx")
	if err := os.WriteFile(overlap, []byte(`{"ptx": "`+one+`", "grid": [1], "block": [32], "params": [],
  "buffers": ["A=buf:size=4096,addr=0x7fa000000000", "B=buf:size=16,addr=0x7fa000000ff0"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]exitCase{
		"atoms": {{[]string{"atoms", "wgmma", "n64"}, 0}, {[]string{"atoms", "zz-no-such-atom"}, 1}},
		"bitmath": {
			{[]string{"bitmath", "wgmma.m64n8.d.f32", "--lang", "c"}, 0},
			{[]string{"bitmath", "wgmma.m64n8.d.f32", "--check", "row = 0; col = 0"}, 1},
			{[]string{"bitmath", "(4,8"}, 2},
		},
		"capture": {{[]string{"capture", "--convert", missing, "-o", filepath.Join(dir, "cap")}, 2}, {[]string{"capture", "--convert", junk, "-o", filepath.Join(dir, "cap")}, 2}},
		"demo":    {{[]string{"demo", "extra"}, 2}, {[]string{"demo", "--thread", "200"}, 2}},
		"desc": {
			{[]string{"desc", "0x4002004000010048", "--major", "K", "--dtype", "bf16"}, 0},
			{[]string{"desc", "0x4000400000010040", "--major", "K", "--dtype", "bf16"}, 1},
			{[]string{"desc", "0xzz"}, 2},
			{[]string{"desc", junk}, 2},
			{[]string{"desc", root("sim/testdata/tmastruct/params.bin")}, 2},
		},
		"desc encode": {{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--addr", "0x400", "--lbo", "16", "--sbo", "1024", "--quiet"}, 0}},
		"desc probe":  {{[]string{"desc", "probe", "--check", missing}, 2}, {[]string{"desc", "probe", "--check", junk}, 2}, {[]string{"desc", "probe", "--check", root("fixtures/desc/desc_probe_h100.bin")}, 0}},
		"gpu":         {{[]string{"gpu"}, 2}},
		"gpu info":    {{[]string{"gpu", "info", "x"}, 2}},
		"gpu run":     {{[]string{"gpu", "run", missing, "--grid", "1", "--block", "1"}, 2}, {[]string{"gpu", "run", gemm, "--launch", launchJSON, "--dry-run"}, 0}},
		"layout":      {{[]string{"layout", "wgmma.m64n8.d.f32"}, 0}, {[]string{"layout", "(4,8"}, 2}},
		"layout eval": {
			{[]string{"layout", "eval", "composition((6,2):(8,2), (4,3):(3,1))"}, 0},
			{[]string{"layout", "eval", "composition((4,3):(1,10), 5:1)"}, 1},
			{[]string{"layout", "eval", "complement((2,2):(1,6) 24)"}, 2},
		},
		"mma": {
			{[]string{"mma", "--inst", inst, "--a", "uniform:bf16:1:-1:1", "--b", "zero", "--print"}, 0},
			{[]string{"mma", "--inst", inst, "--a", missing, "--b", "zero", "--print"}, 2},
			{[]string{"mma", "--a", "zero", "--b", "zero", "--print"}, 2},
			{[]string{"mma", "--inst", inst, "--a", "/dev/zero", "--b", "zero", "--print"}, 2},
			{[]string{"mma", "--inst", inst, "--a", junk, "--b", "zero", "--print"}, 2},
		},
		"num":                {{[]string{"num"}, 2}},
		"num cvt":            {{[]string{"num", "cvt", "cvt.rn.f16.f32", "0x3f800000"}, 0}, {[]string{"num", "cvt", "cvt.rn.f99.f32", "0"}, 2}, {[]string{"num", "cvt", "cvt.rn.f16.f32", "-inf"}, 0}},
		"num decode":         {{[]string{"num", "decode", "e4m3", "0x7e"}, 0}, {[]string{"num", "decode", "e9m9", "0"}, 2}},
		"num encode":         {{[]string{"num", "encode", "f32", "1.5"}, 0}, {[]string{"num", "encode", "f32"}, 2}, {[]string{"num", "encode", "f32", "-inf"}, 0}, {[]string{"num", "encode", "bf16", "-nan"}, 0}},
		"num formats":        {{[]string{"num", "formats"}, 0}},
		"num forms":          {{[]string{"num", "forms"}, 0}},
		"num probe":          {{[]string{"num", "probe"}, 2}},
		"num probe check":    {{[]string{"num", "probe", "check", missing}, 2}, {[]string{"num", "probe", "check", junk}, 2}},
		"num probe legality": {{[]string{"num", "probe", "legality", "x", "y", "z"}, 2}},
		"num probe ptx":      {{[]string{"num", "probe", "ptx"}, 2}},
		"num probe run":      {{[]string{"num", "probe", "run", "x", "y", "z"}, 2}},
		"num table":          {{[]string{"num", "table", "e4m3"}, 0}, {[]string{"num", "table", "f32"}, 2}},
		"ptx":                {{[]string{"ptx"}, 2}},
		"ptx check": {
			{[]string{"ptx", "check", gemm}, 0},
			{[]string{"ptx", "check", missing}, 2},
			{[]string{"ptx", "check", root("isa/ptx/testdata/cut/general_sm90a_lineinfo.ptx")}, 1},
		},
		"ptx fmt":     {{[]string{"ptx", "fmt", missing}, 2}},
		"ptx opcodes": {{[]string{"ptx", "opcodes"}, 0}},
		"record":      {{[]string{"record", missing, "--grid", "1", "--block", "1", "--case", filepath.Join(dir, "rec")}, 2}},
		"render": {
			{[]string{"render", "wgmma.m64n8.d.f32", "-o", filepath.Join(dir, "x.svg")}, 0},
			{[]string{"render", "wgmma.m64n8.d.f32"}, 2},
		},
		"replay": {
			{[]string{"replay", missing}, 2},
			{[]string{"replay", dir}, 2}, // a directory with no manifest is not a case
			{[]string{"replay", root("fixtures/corpus/gemm_tma_wgmma"), "-q"}, 0},
		},
		"run": {
			{[]string{"run", "--launch", launchJSON, "-q", "--limit", "0"}, 0},
			{[]string{"run", "--launch", missing}, 2},
			{[]string{"run", missing, "--grid", "1", "--block", "32"}, 2},
			{[]string{"run", missing}, 2}, // the missing kernel, before the missing grid
			{[]string{"run", "--launch", overlap}, 2},
			{[]string{"run", "--launch", launchJSON, "--kernel", "nope"}, 2},
			{[]string{"run", root("fixtures/sim/broken/gemm_missing_fence.ptx"), "--launch", launchJSON, "--check", "-q", "--limit", "0"}, 1},
			{[]string{"run", "--launch", launchJSON, "--max-steps", "10", "-q"}, 1},
			{[]string{"run", "--launch", launchJSON, "--workers", "-5"}, 2},
		},
		"tui": {
			{[]string{"tui", "--trace", missing, "--snapshot", "-"}, 2},
			{[]string{"tui", "--trace", junk, "--snapshot", "-"}, 2},
			{[]string{"tui", "--snapshot", "-", "--size", "80x24"}, 0},
		},
		"verify":            {{[]string{"verify"}, 2}},
		"verify layouts":    {{[]string{"verify", "layouts", "--fixtures", missing}, 2}, {[]string{"verify", "layouts", "--fixtures", junk}, 2}},
		"verify tensormaps": {{[]string{"verify", "tensormaps", "--fixture", missing}, 2}, {[]string{"verify", "tensormaps", "--fixture", junk}, 2}},
		"verify approx":     {{[]string{"verify", "approx", "--fixture", missing}, 2}, {[]string{"verify", "approx", "--fixture", junk}, 2}},
		"zz-test":           {{[]string{"zz-test", "-n", "7"}, 1}},
	}
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		cs, ok := cases[name]
		if !ok {
			t.Errorf("tcsim %s has no exit-status cases in TestExitCodes", name)
			continue
		}
		// every command: an unknown flag is a usage error
		cs = append(cs, exitCase{append(strings.Fields(name), "--no-such-flag"), 2})
		for _, c := range cs {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("tcsim %s: exit %d, want %d\nstdout: %.300s\nstderr: %.300s", strings.Join(c.args, " "), code, c.code, stdout, stderr)
			}
		}
	}
}

// TestInputErrors checks what the usage errors of bad inputs say: the
// missing kernel before the missing grid, overlapping placements at their
// line in the launch file, a Params blob given to desc with a pointer to
// --scan, and operand files of the wrong size.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	overlap := filepath.Join(dir, "overlap.json")
	one, _ := filepath.Abs("testdata/one_instruction.ptx")
	if err := os.WriteFile(overlap, []byte(`{"ptx": "`+one+`", "grid": [1], "block": [32], "params": [],
  "buffers": ["A=buf:size=4096,addr=0x7fa000000000",
              "B=buf:size=16,addr=0x7fa000000ff0"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	blob := "../../sim/testdata/tmastruct/params.bin"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "/nonexistent/k.ptx"}, "tcsim run: the kernel /nonexistent/k.ptx: no such file or directory\n"},
		{[]string{"gpu", "run", "/nonexistent/k.ptx", "--dry-run"}, "the kernel /nonexistent/k.ptx: no such file or directory"},
		{[]string{"run", "--launch", overlap}, overlap + ":3:15: B (buffer) at [0x7fa000000ff0, 0x7fa000001000) overlaps A (buffer) at [0x7fa000000000, 0x7fa000001000) (given at " + overlap + ":2:15)\n"},
		{[]string{"desc", blob}, "192 bytes of binary data, not the 128 bytes of a CUtensorMap; to find the maps inside a larger file (a by-value Params struct), run tcsim desc --scan " + blob + ", or --at OFFSET for one\n"},
		{[]string{"mma", "--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "--a", "/dev/zero", "--b", "zero", "--print"}, "/dev/zero: more than 2048 bytes, want 2048"},
	} {
		expectCLI(t, tc.args, 2, nil, nil, tc.want)
	}
}
