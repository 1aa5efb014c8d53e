package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/launch"
)

const saxpyPTX = "../../gpu/testdata/saxpy.ptx"

var saxpyArgs = []string{"--grid", "8", "--block", "128", "--param", "n=u32:1000", "--param", "a=f32:2.5",
	"--param", "x=buf:size=4096,fill=iota:f32", "--param", "y=buf:size=4096,fill=const:f32:1"}

// noDriver makes the driver library unloadable, so that these tests see
// the same thing with and without a GPU.
func noDriver(t *testing.T) {
	t.Setenv(gpu.LibraryEnv, "/nonexistent/tcsim-test/libcuda.so.1")
}

func TestGPUCommandNeedsSubcommand(t *testing.T) {
	code, _, errs := runCLI(t, "gpu")
	if code != 2 || !strings.Contains(errs, "missing subcommand (want: tcsim gpu info, tcsim gpu run)") {
		t.Errorf("tcsim gpu: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "gpu", "inf")
	if code != 2 || !strings.Contains(errs, `unknown gpu subcommand "inf"`) {
		t.Errorf("tcsim gpu inf: %d %q", code, errs)
	}
}

func TestGPUNoDriver(t *testing.T) {
	noDriver(t)
	for _, c := range []struct {
		cmd  string
		args []string
	}{
		{"gpu info", []string{"gpu", "info"}},
		{"gpu run", append([]string{"gpu", "run", saxpyPTX}, saxpyArgs...)},
		{"record", append([]string{"record", saxpyPTX, "--case", filepath.Join(t.TempDir(), "c")}, saxpyArgs...)},
	} {
		code, out, errs := runCLI(t, c.args...)
		want := "tcsim " + c.cmd + ": no NVIDIA driver found (libcuda.so.1)\n"
		if code != 1 || out != "" || errs != want {
			t.Errorf("tcsim %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.cmd, code, out, errs, want)
		}
	}
}

func TestGPURunDryRun(t *testing.T) {
	noDriver(t)
	code, out, errs := runCLI(t, append([]string{"gpu", "run", saxpyPTX, "--dry-run"}, saxpyArgs...)...)
	want := `kernel saxpy: 4 parameters, 24 bytes of parameter space
   0  offset   0  .param .u32 n                         n=u32:1000
   1  offset   4  .param .f32 a                         a=f32:2.5
   2  offset   8  .param .u64 x                         x=buf:size=4096,fill=iota:f32
   3  offset  16  .param .u64 y                         y=buf:size=4096,fill=const:f32:1
`
	if code != 0 || out != want || errs != "" {
		t.Errorf("dry run: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errs, out, want)
	}
}

func TestGPURunLaunchFile(t *testing.T) {
	noDriver(t)
	dir := t.TempDir()
	ptx, err := os.ReadFile("../../gpu/testdata/tma.ptx")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tma.ptx"), ptx, 0o644)
	os.WriteFile(filepath.Join(dir, "launch.json"), []byte(`{
  "ptx": "tma.ptx",
  "kernel": "tma_tile",
  "grid": [1],
  "block": [128],
  "params": [
    "tmap:buf=src,dtype=bf16,dims=128x96,box=64x64,swizzle=128B",
    "out=buf:size=8192",
    "x0=u32:0", "y0=u32:0", "nbytes=u32:8192"
  ],
  "buffers": ["src=buf:size=24576,fill=iota:u16"],
  "outputs": ["out:u16"]
}`), 0o644)
	code, out, errs := runCLI(t, "gpu", "run", "--launch", filepath.Join(dir, "launch.json"), "--param", "x0=u32:64", "--dry-run")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"kernel tma_tile: 5 parameters, 148 bytes of parameter space",
		"0  offset   0  .param .align 64 .b8 tmap[128]", "x0=u32:64", "buffer      src"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestGPURunErrors(t *testing.T) {
	noDriver(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gpu", "run", "--grid", "1", "--block", "1"}, 2, "missing the PTX file"},
		{[]string{"gpu", "run", saxpyPTX, "--block", "1"}, 2, "grid: missing (--grid X,Y,Z)"},
		{[]string{"gpu", "run", saxpyPTX, "--grid", "1", "--block", "1", "--param", "u32"}, 2, `--param "u32": want KIND:ARGS`},
		{[]string{"gpu", "run", saxpyPTX, "--grid", "1", "--block", "1", "--param", "u32:1"}, 2,
			"kernel saxpy takes 4 parameters (.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y); the launch gives 1"},
		{[]string{"gpu", "run", saxpyPTX, "--grid", "1", "--block", "1", "--param", "u32:1", "--param", "f32:1", "--param", "u32:1", "--param", "buf:size=4"}, 2,
			"kernel saxpy, param 2 (x): u32 is 4 bytes, but the kernel declares .param .u64 x (8 bytes)"},
		{[]string{"gpu", "run", saxpyPTX, "--kernel", "gemm", "--grid", "1", "--block", "1"}, 2, `no kernel "gemm" (the module has saxpy)`},
		{[]string{"gpu", "run", "nonexistent.ptx", "--grid", "1", "--block", "1"}, 2, "nonexistent.ptx: no such file"},
		{append([]string{"gpu", "run", saxpyPTX, "--out", "n"}, saxpyArgs...), 2, "outputs[0]: parameter n is a scalar; only buffers can be read back"},
		{append([]string{"gpu", "run", saxpyPTX, "a.ptx"}, saxpyArgs...), 2, "want one PTX file, got 2 arguments"},
		{[]string{"gpu", "info", "x"}, 2, `unexpected argument "x"`},
	} {
		expectCLI(t, c.args, c.code, nil, nil, c.want)
	}
}

func TestRecordErrors(t *testing.T) {
	noDriver(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{append([]string{"record", saxpyPTX}, saxpyArgs...), 2, "missing --case DIR"},
		{append([]string{"record", saxpyPTX, "--case", dir}, saxpyArgs...), 1, "exists and is not empty; use --force to re-record it"},
		{append([]string{"record", saxpyPTX, "--case", filepath.Join(dir, "new"), "--out", "y=y.bin"}, saxpyArgs...), 2, "record stores outputs in the case; drop =y.bin"},
	} {
		expectCLI(t, c.args, c.code, nil, nil, c.want)
	}
}

func TestRecordCommand(t *testing.T) {
	l := &launch.Launch{Kernel: "k", Grid: launch.Dim3{2, 1, 1}, Block: launch.Dim3{32, 1, 1}}
	p, _ := launch.ParseParam("x=buf:in=my data.bin")
	l.Params = []launch.Param{p}
	got := recordCommand("k.ptx", l, "fixtures/g/c")
	want := "tcsim record k.ptx --kernel k --grid 2,1,1 --block 32,1,1 --param 'x=buf:in=my data.bin' --case fixtures/g/c"
	if got != want {
		t.Errorf("recordCommand = %s\nwant %s", got, want)
	}
}

func TestPrintValues(t *testing.T) {
	var b bytes.Buffer
	data := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 1, 2, 3}
	printValues(&b, data, launch.F32, 100)
	want := "  [0] 1 -2\n  (3 trailing bytes)\n"
	if b.String() != want {
		t.Errorf("f32:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	printValues(&b, make([]byte, 40), launch.InvalidType, 20)
	want = "  [0] 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n  [16] 00 00 00 00\n  ... 20 more (--limit N, or --out PARAM=FILE for all of it)\n"
	if b.String() != want {
		t.Errorf("hex:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestGPURunOnGPU runs saxpy through the CLI when a GPU is present.
func TestGPURunOnGPU(t *testing.T) {
	d, err := gpu.Open(0)
	if err != nil {
		t.Skipf("%v", err)
	}
	d.Close()
	dir := t.TempDir()
	yfile := filepath.Join(dir, "y.bin")
	code, out, errs := runCLI(t, append([]string{"gpu", "run", saxpyPTX, "--out", "3:f32=" + yfile, "--limit", "8"}, saxpyArgs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("%s%s", errs, out)
	for _, want := range []string{"kernel saxpy on ", "registers/thread", "y (param 3), 4096 bytes:\n  [0] 1 3.5 6 8.5 11 13.5 16 18.5\n", "4096 bytes written to " + yfile} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if b, err := os.ReadFile(yfile); err != nil || len(b) != 4096 {
		t.Errorf("y.bin: %d bytes, %v", len(b), err)
	}
	caseDir := filepath.Join(dir, "case")
	code, _, errs = runCLI(t, append([]string{"record", saxpyPTX, "--case", caseDir}, saxpyArgs...)...)
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errs)
	}
	c, err := fixtures.Load(caseDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Outputs) != 2 || c.Provenance.GPU == "" || !strings.HasPrefix(c.Provenance.Command, "tcsim record ") {
		t.Errorf("recorded case: %d outputs, provenance %+v", len(c.Outputs), c.Provenance)
	}
}
