package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTUISnapshot(t *testing.T) {
	code, out, errs := runCLI(t, "tui", "--snapshot", "-", "--size", "80x24", "--keys", "down right", "mma.sync.m16n8.d.f32")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 24 || !strings.HasPrefix(lines[0], " 1 Layout │ 2 Bitmath") {
		t.Fatalf("snapshot has %d lines:\n%s", len(lines), out)
	}
	for _, want := range []string{"mma.sync.m16n8.d.f32  16x8", "m 1, n 1", "T4 V1"} {
		if !strings.Contains(out, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, out)
		}
	}
	// Other views, and the MMA of a shape.
	for _, args := range [][]string{
		{"--view", "desc", "--desc", "0x4000404000010040"},
		{"--view", "swizzle", "--smem", "smem.mn.sw64.b16"},
		{"--view", "bitmath", "ldmatrix.m8n8.x4.b16"},
		{"--mma", "wgmma.m64n64k16"},
	} {
		code, out, errs := runCLI(t, append([]string{"tui", "--snapshot", "-"}, args...)...)
		if code != 0 || len(strings.Split(strings.TrimSuffix(out, "\n"), "\n")) != 32 {
			t.Errorf("tcsim tui %v: exit %d, %s\n%s", args, code, errs, out)
		}
	}
}

func TestTUISnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "layout.png")
	if code, _, errs := runCLI(t, "tui", "--snapshot", pngPath, "--size", "90x30", "--scale", "1"); code != 0 {
		t.Fatalf("png: exit %d: %s", code, errs)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 90*6 || b.Dy() != 30*11 {
		t.Errorf("PNG is %v, want 540x330", b)
	}
	ansiPath := filepath.Join(dir, "x.ansi")
	if code, _, errs := runCLI(t, "tui", "--snapshot", ansiPath); code != 0 {
		t.Fatalf("ansi: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(ansiPath)
	if !strings.Contains(string(b), "48;5;") {
		t.Error("the .ansi snapshot has no colours")
	}
	if code, _, errs := runCLI(t, "tui", "--no-color", "--snapshot", ansiPath); code != 0 {
		t.Fatalf("ansi --no-color: exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(ansiPath)
	if strings.Contains(string(b), "48;5;") || !strings.Contains(string(b), "\x1b[7m") {
		t.Error("--no-color: colours kept or the reverse-video cursor lost")
	}
}

func TestTUIErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "run 'tcsim demo' for a tour of what tcsim does (no files needed), 'tcsim --help' for the commands"},
		{[]string{"tui"}, 2, "the explorer needs a terminal"},
		{[]string{"tui", "--view", "steper", "--snapshot", "-"}, 2, `unknown view "steper"`},
		{[]string{"tui", "--snapshot", "-", "wgmma.m64n64.d.f33"}, 2, "nearest: wgmma.m64n64.d.f32"},
		{[]string{"tui", "--snapshot", "-", "(8,8):(8,1"}, 2, "unclosed '('"},
		{[]string{"tui", "--snapshot", "-", "--size", "10x5"}, 2, "--size"},
		{[]string{"tui", "--snapshot", "-", "--keys", `"open`}, 2, "unterminated quote"},
		{[]string{"tui", "--snapshot", "-", "--desc", "0xzz"}, 2, "want hex"},
		{[]string{"tui", "--mma"}, 2, "--mma needs"},
		{[]string{"tui", "--keys", "a"}, 2, "--keys applies to --snapshot"},
		{[]string{"tui", "--kernel", "x", "--snapshot", "-"}, 2, "describe the stepper's launch"},
		{[]string{"tui", "--trace", "a.jsonl", "--run", "b.ptx", "--snapshot", "-"}, 2, "give one or the other"},
		{[]string{"tui", "--run", "testdata/missing.ptx", "--grid", "1", "--block", "32", "--snapshot", "-"}, 2, "missing.ptx"},
		{[]string{"tui", "--launch", "../../tui/testdata/stepper/tiny.json", "--schedule", "bogus", "--snapshot", "-"}, 2, "want lazy, latest, eager or random"},
		{[]string{"tui", "--launch", "../../tui/testdata/stepper/tiny.json", "--grid", "0", "--snapshot", "-"}, 2, "--grid"},
		{[]string{"tui", "--trace", "testdata/missing.jsonl", "--snapshot", "-"}, 2, "missing.jsonl"},
		{[]string{"tui", "--trace", "../../tui/testdata/stepper/tiny.ptx", "--snapshot", "-"}, 2, "tiny.ptx:1: not a trace record"},
		{[]string{"tui", "--run", "../../tui/testdata/stepper/tiny.ptx", "--snapshot", "-"}, 2, "needs its launch: --launch FILE"},
		{[]string{"tui", "--run", "../../tui/testdata/stepper/tiny.ptx", "--grid", "1", "--snapshot", "-"}, 2, "needs its launch"},
		{[]string{"tui", "--launch", "../../tui/testdata/stepper/tiny.json", "--kernel", "nope", "--snapshot", "-"}, 2, "nope"},
		{[]string{"tui", "--launch", "../../tui/testdata/stepper/tiny.json", "--trace", "x.jsonl", "--snapshot", "-"}, 2, "give one or the other"},
		{[]string{"tui", "--launch", "testdata/missing.json", "--snapshot", "-"}, 2, "missing.json"},
		{[]string{"tui", "--grid", "1", "--snapshot", "-"}, 2, "describe the stepper's launch"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("tcsim %v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.err)
		}
	}
	// A PTX syntax error names file:line:col.
	bad := filepath.Join(t.TempDir(), "bad.ptx")
	os.WriteFile(bad, []byte(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tadd.u32 %r1, %r2\n\tret;\n}\n"), 0o644)
	if code, _, errs := runCLI(t, "tui", "--run", bad, "--grid", "1", "--block", "32", "--snapshot", "-"); code != 1 || !strings.Contains(errs, "bad.ptx:6:") {
		t.Errorf("PTX syntax error: exit %d, stderr %q", code, errs)
	}
	// The PTX file as the argument, as tcsim run takes it.
	if code, out, errs := runCLI(t, "tui", "../../tui/testdata/stepper/tiny.ptx", "--launch", "../../tui/testdata/stepper/tiny.json", "--snapshot", "-", "--size", "100x30", "--keys", "s"); code != 0 || !strings.Contains(out, "step 1 · warp 0 ran line 17") {
		t.Errorf("tcsim tui KERNEL.ptx --launch ...: exit %d, stderr %q\n%s", code, errs, out)
	}
	// A trace cut short (a run killed while writing it) replays what it
	// holds and says so; a bad line before the last one is an error.
	trace := filepath.Join(t.TempDir(), "run.jsonl")
	if code, _, errs := runCLI(t, "run", "../../tui/testdata/stepper/tiny.ptx", "--launch", "../../tui/testdata/stepper/tiny.json", "--trace", trace, "--trace-values"); code != 0 {
		t.Fatalf("tcsim run --trace: exit %d: %s", code, errs)
	}
	full, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	os.WriteFile(cut, full[:len(full)*2/3], 0o644)
	if code, out, errs := runCLI(t, "tui", "--trace", cut, "--snapshot", "-", "--size", "200x30"); code != 0 || !strings.Contains(out, "is cut short; replaying the") {
		t.Errorf("cut trace: exit %d, stderr %q\n%s", code, errs, out)
	}
	lines := strings.SplitAfter(string(full), "\n")
	lines[3] = lines[3][:len(lines[3])/2] + "\n"
	os.WriteFile(cut, []byte(strings.Join(lines, "")), 0o644)
	if code, _, errs := runCLI(t, "tui", "--trace", cut, "--snapshot", "-"); code != 2 || !strings.Contains(errs, "cut.jsonl:4: not a trace record") {
		t.Errorf("trace with a bad line 4: exit %d, stderr %q", code, errs)
	}
	// The stepper from the command line.
	if code, out, errs := runCLI(t, "tui", "--launch", "../../tui/testdata/stepper/tiny.json", "--snapshot", "-", "--size", "100x30", "--keys", "s s"); code != 0 || !strings.Contains(out, "step 2 · warp") {
		t.Errorf("tcsim tui --launch ... --keys 's s': exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, _ := runCLI(t, "tui", "--help")
	if code != 0 || !strings.Contains(out, "1 Layout") || !strings.Contains(out, "--snapshot") {
		t.Errorf("tcsim tui --help: exit %d\n%s", code, out)
	}
}
