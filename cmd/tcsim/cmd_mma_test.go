package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/sim/datapath"
)

func bf16Bytes(vals ...float32) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, uint16(math.Float32bits(v)>>16))
	}
	return b.Bytes()
}

// writeBF16Problem writes a 64×K A and N×K B with small exact values and
// returns the exact expected D as float32.
func writeBF16Problem(t *testing.T, dir string, n, batch int) []float32 {
	t.Helper()
	const M, K = 64, 16
	var a, b []float32
	for p := 0; p < batch; p++ {
		for i := 0; i < M*K; i++ {
			a = append(a, float32((i*7+p)%9-4)/4)
		}
		for i := 0; i < n*K; i++ {
			b = append(b, float32((i*5+p)%7-3)/2)
		}
	}
	os.WriteFile(filepath.Join(dir, "A.bin"), bf16Bytes(a...), 0o644)
	os.WriteFile(filepath.Join(dir, "B.bin"), bf16Bytes(b...), 0o644)
	var d []float32
	for p := 0; p < batch; p++ {
		for i := 0; i < M; i++ {
			for j := 0; j < n; j++ {
				var s float32 // exact: few small terms
				for k := 0; k < K; k++ {
					s += a[p*M*K+i*K+k] * b[p*n*K+j*K+k]
				}
				d = append(d, s)
			}
		}
	}
	return d
}

func TestMMACommand(t *testing.T) {
	dir := t.TempDir()
	want := writeBF16Problem(t, dir, 16, 2)
	out := filepath.Join(dir, "D.bin")
	code, _, errs := runCLI(t, "mma", "--inst", "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16",
		"--a", filepath.Join(dir, "A.bin"), "--b", filepath.Join(dir, "B.bin"), "--out", out, "--batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "hardware-verified (H100)") {
		t.Errorf("missing verification status: %s", errs)
	}
	got, _ := os.ReadFile(out)
	if len(got) != len(want)*4 {
		t.Fatalf("D has %d bytes, want %d", len(got), len(want)*4)
	}
	for i, w := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != w {
			t.Fatalf("D[%d] = %g, want %g", i, g, w)
		}
	}
	// The same through .npy, with --explain.
	npy := filepath.Join(dir, "D.npy")
	code, outs, errs := runCLI(t, "mma", "--inst", "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16",
		"--a", filepath.Join(dir, "A.bin"), "--b", filepath.Join(dir, "B.bin"), "--out", npy, "--batch", "2",
		"--explain", "5,3", "--problem", "1")
	if code != 0 {
		t.Fatalf("npy: exit %d: %s", code, errs)
	}
	if !strings.Contains(outs, "anchor exponent") || !strings.Contains(outs, "D[5][3] of problem 1") {
		t.Errorf("explain output:\n%s", outs)
	}
	f, _ := os.Open(npy)
	vals, bits, err := datapath.ReadNpy(f)
	f.Close()
	if err != nil || bits != 32 || len(vals) != len(want) {
		t.Fatalf("ReadNpy: %d vals, %d bits, %v", len(vals), bits, err)
	}
	for i, w := range want {
		if math.Float32frombits(uint32(vals[i])) != w {
			t.Fatalf("npy D[%d] = %#x, want %g", i, vals[i], w)
		}
	}
}

func TestMMACommandErrors(t *testing.T) {
	dir := t.TempDir()
	writeBF16Problem(t, dir, 8, 1)
	a, b := filepath.Join(dir, "A.bin"), filepath.Join(dir, "B.bin")
	out := filepath.Join(dir, "D.bin")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--a", a, "--b", b, "--out", out}, 2, "--inst is required"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf61", "--a", a, "--b", b, "--out", out}, 2, "unknown number format"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16", "--a", a, "--b", b, "--out", out}, 2, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n12k16.f32.bf16.bf16", "--a", a, "--b", b, "--out", out}, 2, "multiple of 8"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n8k32.f32.bf16.bf16", "--a", a, "--b", b, "--out", out}, 2, "takes k16"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "--a", a, "--b", b, "--out", out}, 1, "256 bytes, want 512"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "--a", a, "--b", b, "--explain", "64,0"}, 2, "outside"},
		{[]string{"--inst", "tcgen05.mma.cta_group::1.kind::f16", "--a", a, "--b", b, "--out", out, "--n", "12", "--atype", "bf16", "--btype", "bf16"}, 2, "multiple of 8"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, append([]string{"mma"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("mma %v: exit %d, stderr %q; want exit %d containing %q", tt.args, code, errs, tt.code, tt.msg)
		}
	}
}

func TestMMATcgen05NotVerified(t *testing.T) {
	dir := t.TempDir()
	const M, N, K = 64, 8, 16
	os.WriteFile(filepath.Join(dir, "A.bin"), make([]byte, M*K*2), 0o644)
	os.WriteFile(filepath.Join(dir, "B.bin"), make([]byte, N*K*2), 0o644)
	code, _, errs := runCLI(t, "mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--m", "64", "--n", "8",
		"--atype", "bf16", "--btype", "bf16", "--a", filepath.Join(dir, "A.bin"), "--b", filepath.Join(dir, "B.bin"),
		"--out", filepath.Join(dir, "D.bin"))
	if code != 0 || !strings.Contains(errs, "not hardware-verified") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
