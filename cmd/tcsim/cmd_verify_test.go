package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/gpu/probe"
)

const layoutFixtures = "../../fixtures/layouts"

func TestVerifyLayoutsReplay(t *testing.T) {
	code, out, errs := runCLI(t, "verify", "layouts", "--fixtures", layoutFixtures)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"replaying 24 of 24 layout probes recorded under ../../fixtures/layouts: NVIDIA H100 80GB HBM3 (sm_90, driver 580.159.04, CUDA 13.0)",
		"ldmatrix.m8n8.x1.trans.b16    verified (ldmatrix: 64 (thread, value) pairs)\n",
		"wgmma.m64n256.d.f32           verified (wgmma_acc_f32_smem: 16384 (thread, value) pairs; wgmma_acc_f32_reg: 16384 (thread, value) pairs; wgmma_acc_f32_tf32_smem: 16384 (thread, value) pairs)\n",
		"smem.k.sw128.b16              verified (wgmma_smem_k_b16: 4096 cells)\n",
		"tcgen05.tmem.m128n256.d.cta1  needs sm_100a, not verified\n",
		"smem.mn.sw128a32.b32          needs sm_100a, not verified\n",
		"286 atoms: 223 verified, 0 mismatched, 0 errors, 63 need sm_100a (not verified)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// --only and -q: the matching atoms, none of which fails.
	code, out, _ = runCLI(t, "verify", "layouts", "--fixtures", layoutFixtures, "--only", "ldmatrix", "-q")
	if code != 0 || !strings.HasSuffix(out, "ATOM  RESULT\n6 atoms: 6 verified, 0 mismatched, 0 errors\n") {
		t.Errorf("--only ldmatrix -q: exit %d\n%s", code, out)
	}
}

// tamper writes a copy of a recorded case into a new fixtures root after
// edit changes its output, with a valid manifest: what a GPU that
// disagrees with the catalog would have recorded.
func tamper(t *testing.T, name string, edit func(c *probe.Case, out []byte)) string {
	t.Helper()
	c := probe.Lookup(name)
	out, fc, err := c.LoadRecorded(layoutFixtures)
	if err != nil {
		t.Fatal(err)
	}
	out = append([]byte(nil), out...)
	edit(c, out)
	root := t.TempDir()
	if err := c.RecordCase(out, fc.Provenance).Write(filepath.Join(root, name), false); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestVerifyLayoutsMismatch plants a disagreement in a recording: the
// first two accumulator registers of thread 0, in both passes of the
// register-A probe, swapped. A(0,0) and A(0,1) then seem to sit where the
// catalog says the other one is, and the command must say so and fail.
func TestVerifyLayoutsMismatch(t *testing.T) {
	root := tamper(t, "wgmma_areg_b16", func(c *probe.Case, out []byte) {
		for job := 0; job < c.Jobs; job++ {
			r := out[job*c.OutRec+16:] // thread 0's registers
			a, b := binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:])
			binary.LittleEndian.PutUint32(r, b)
			binary.LittleEndian.PutUint32(r[4:], a)
		}
	})
	code, out, errs := runCLI(t, "verify", "layouts", "--fixtures", root, "--case", "wgmma_areg_b16")
	want := "wgmma.m64k16.a.reg.b16  MISMATCH in wgmma_areg_b16: 2 of 1024 (thread, value) pairs differ; " +
		"first: thread 0 value 0 (register 0, part 0): hardware (m 0, k 1), catalog (m 0, k 0)\n"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "1 atom: 0 verified, 1 mismatched") ||
		errs != "tcsim verify layouts: 1 atom did not verify\n" {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant the line %q", code, out, errs, want)
	}
}

// TestVerifyLayoutsStale: a recording whose kernel is not what the probe
// generator makes now is an error, with the command that re-records it.
func TestVerifyLayoutsStale(t *testing.T) {
	c := probe.Lookup("ldmatrix")
	out, fc, err := c.LoadRecorded(layoutFixtures)
	if err != nil {
		t.Fatal(err)
	}
	stale := c.RecordCase(out, fc.Provenance)
	stale.PTX = []byte(strings.Replace(c.PTX, "x4.trans", "x4", 1))
	root := t.TempDir()
	if err := stale.Write(filepath.Join(root, "ldmatrix"), false); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "verify", "layouts", "--fixtures", root, "--case", "ldmatrix", "-q")
	if code != 1 || !strings.Contains(stdout, "kernel.ptx differs from the probe gpu/probe generates now; re-record with: tcsim verify layouts --gpu --record fixtures/layouts") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

func TestVerifyLayoutsErrors(t *testing.T) {
	noDriver(t)
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"verify"}, 2, "missing subcommand (want: tcsim verify approx, tcsim verify layouts, tcsim verify tensormaps)"},
		{[]string{"verify", "layouts", "x"}, 2, `unexpected argument "x"`},
		{[]string{"verify", "layouts", "--record", "d"}, 2, "--record needs --gpu"},
		{[]string{"verify", "layouts", "--case", "nope"}, 2, `--case "nope": no such probe (see tcsim verify layouts --list)`},
		{[]string{"verify", "layouts", "--only", "zzz"}, 2, `--only "zzz" matches no atom`},
		{[]string{"verify", "layouts", "--fixtures", "/nonexistent/layouts"}, 2, "no recorded layout probes at /nonexistent/layouts (run from the repository root, pass --fixtures DIR, or run them with --gpu)"},
		{[]string{"verify", "layouts", "--fixtures", t.TempDir()}, 1, "no layout probe fixtures under"},
		{[]string{"verify", "layouts", "--gpu"}, 1, "no NVIDIA driver found (libcuda.so.1)"},
		{[]string{"verify", "layouts", "--child", "ldmatrix", "--record", t.TempDir()}, 1, "no NVIDIA driver found (libcuda.so.1)"},
	} {
		expectCLI(t, c.args, c.code, nil, nil, c.err)
	}
}

func TestVerifyLayoutsList(t *testing.T) {
	code, out, _ := runCLI(t, "verify", "layouts", "--list")
	if code != 0 || strings.Count(out, "\n") != len(probe.Cases())+1 ||
		!strings.Contains(out, "wgmma_smem_mn_b16        sm_90a  8     4       wgmma shared-memory atoms, mn-major, f16, every swizzle\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestVerifyLayoutsGPU runs two probes on the GPU, in this process (the
// child processes of the real command need the tcsim binary). Without an
// sm_90 GPU it is skipped, saying why.
func TestVerifyLayoutsGPU(t *testing.T) {
	d, err := gpu.Open(0)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	info := d.Info
	d.Close()
	if !probe.Supports("sm_90a", info.Major, info.Minor) {
		t.Skipf("the probes need an sm_90 GPU for wgmma; this is %s (%s)", info.Name, info.Arch())
	}
	root := t.TempDir()
	code, out, errs := runCLI(t, "verify", "layouts", "--gpu", "--in-process", "--record", root, "--case", "ldmatrix", "--case", "wgmma_areg_b16")
	if code != 0 || !strings.Contains(out, "7 atoms: 7 verified, 0 mismatched, 0 errors") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	if _, err := fixtures.Load(filepath.Join(root, "ldmatrix")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "wgmma_areg_b16", fixtures.ManifestFile)); err != nil {
		t.Error(err)
	}
}
