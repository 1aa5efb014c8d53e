package main

import (
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
	cases := map[string][]exitCase{
		"atoms": {{[]string{"atoms", "wgmma", "n64"}, 0}, {[]string{"atoms", "zz-no-such-atom"}, 1}},
		"bitmath": {
			{[]string{"bitmath", "wgmma.m64n8.d.f32", "--lang", "c"}, 0},
			{[]string{"bitmath", "wgmma.m64n8.d.f32", "--check", "row = 0; col = 0"}, 1},
			{[]string{"bitmath", "(4,8"}, 2},
		},
		"capture": {{[]string{"capture", "--convert", missing, "-o", filepath.Join(dir, "cap")}, 2}},
		"demo":    {{[]string{"demo", "extra"}, 2}, {[]string{"demo", "--thread", "200"}, 2}},
		"desc": {
			{[]string{"desc", "0x4002004000010048", "--major", "K", "--dtype", "bf16"}, 0},
			{[]string{"desc", "0x4000400000010040", "--major", "K", "--dtype", "bf16"}, 1},
			{[]string{"desc", "0xzz"}, 2},
		},
		"desc encode": {{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--addr", "0x400", "--lbo", "16", "--sbo", "1024", "--quiet"}, 0}},
		"desc probe":  {{[]string{"desc", "probe", "--check", missing}, 2}, {[]string{"desc", "probe", "--check", root("fixtures/desc/desc_probe_h100.bin")}, 0}},
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
		},
		"num":                {{[]string{"num"}, 2}},
		"num cvt":            {{[]string{"num", "cvt", "cvt.rn.f16.f32", "0x3f800000"}, 0}, {[]string{"num", "cvt", "cvt.rn.f99.f32", "0"}, 2}},
		"num decode":         {{[]string{"num", "decode", "e4m3", "0x7e"}, 0}, {[]string{"num", "decode", "e9m9", "0"}, 2}},
		"num encode":         {{[]string{"num", "encode", "f32", "1.5"}, 0}, {[]string{"num", "encode", "f32"}, 2}},
		"num formats":        {{[]string{"num", "formats"}, 0}},
		"num forms":          {{[]string{"num", "forms"}, 0}},
		"num probe":          {{[]string{"num", "probe"}, 2}},
		"num probe check":    {{[]string{"num", "probe", "check", missing}, 2}},
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
			{[]string{"replay", root("fixtures/corpus/gemm_tma_wgmma"), "-q"}, 0},
		},
		"run": {
			{[]string{"run", "--launch", launchJSON, "-q", "--limit", "0"}, 0},
			{[]string{"run", "--launch", missing}, 2},
			{[]string{"run", missing, "--grid", "1", "--block", "32"}, 2},
			{[]string{"run", root("fixtures/sim/broken/gemm_missing_fence.ptx"), "--launch", launchJSON, "--check", "-q", "--limit", "0"}, 1},
			{[]string{"run", "--launch", launchJSON, "--max-steps", "10", "-q"}, 1},
			{[]string{"run", "--launch", launchJSON, "--workers", "-5"}, 2},
		},
		"tui": {
			{[]string{"tui", "--trace", missing, "--snapshot", "-"}, 2},
			{[]string{"tui", "--snapshot", "-", "--size", "80x24"}, 0},
		},
		"verify":            {{[]string{"verify"}, 2}},
		"verify layouts":    {{[]string{"verify", "layouts", "--fixtures", missing}, 2}},
		"verify tensormaps": {{[]string{"verify", "tensormaps", "--fixture", missing}, 2}},
		"verify approx":     {{[]string{"verify", "approx", "--fixture", missing}, 2}},
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
