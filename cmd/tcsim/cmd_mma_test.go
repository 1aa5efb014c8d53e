package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
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
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "--a", a, "--b", b, "--out", out}, 2, "256 bytes, want 512"},
		{[]string{"--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "--a", a, "--b", b, "--explain", "64,0"}, 2, "outside"},
		{[]string{"--inst", "tcgen05.mma.cta_group::1.kind::f16", "--a", a, "--b", b, "--out", out, "--n", "12", "--atype", "bf16", "--btype", "bf16"}, 2, "multiple of 8"},
	}
	for _, tt := range tests {
		expectCLI(t, append([]string{"mma"}, tt.args...), tt.code, nil, nil, tt.msg)
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

// The tcgen05 examples under sim/datapath/testdata (written by
// TestTCExamples): operands and the model's golden D.
var tcExampleDir = filepath.Join("..", "..", "sim", "datapath", "testdata", "tcgen05")

const nvfp4Inst = "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"

func nvfp4Args(dir string, extra ...string) []string {
	args := []string{"mma", "--inst", nvfp4Inst, "--m", "128", "--n", "8", "--stype", "ue4m3",
		"--a", filepath.Join(dir, "A.e2m1"), "--b", filepath.Join(dir, "B.e2m1"),
		"--scale-a", filepath.Join(dir, "SFA.ue4m3"), "--scale-b", filepath.Join(dir, "SFB.ue4m3")}
	return append(args, extra...)
}

func TestMMATcgen05BlockScaled(t *testing.T) {
	src := filepath.Join(tcExampleDir, "nvfp4")
	golden, err := os.ReadFile(filepath.Join(src, "D.f32"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "D.bin")
	code, stdout, errs := runCLI(t, nvfp4Args(src, "--out", out, "--explain", "0,0")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"m128n8k64, .e2m1×.e2m1→.f32, .ue4m3 scale factors per 16 elements of K (.scale_vec::4X)", "datapath not hardware-verified", "(not hardware-verified)"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	for _, w := range []string{"D[0][0] of problem 0 = 0x417c1800 (15.755859375); datapath not hardware-verified",
		"scale factors (.ue4m3): A row [0x3c = 1.5, 0x36 = 0.875, 0x01 = 0.001953125, 0x00 = 0]",
		"k16-31     Σ a·b = 12, × sfa 0.875 × sfb 1"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("explain lacks %q:\n%s", w, stdout)
		}
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, golden) {
		t.Errorf("D differs from the golden D.f32")
	}

	// The instruction descriptor gives the same D: kind::mxf4nvf4, e2m1
	// (code 1) for A and B, N = 8, ue4m3 (scale type 0), M = 128.
	idesc := fmt.Sprintf("%#x", 1<<7|1<<10|1<<17|1<<27)
	out2 := filepath.Join(dir, "D2.bin")
	code, _, errs = runCLI(t, "mma", "--inst", nvfp4Inst, "--idesc", idesc,
		"--a", filepath.Join(src, "A.e2m1"), "--b", filepath.Join(src, "B.e2m1"),
		"--scale-a", filepath.Join(src, "SFA.ue4m3"), "--scale-b", filepath.Join(src, "SFB.ue4m3"), "--out", out2)
	if code != 0 {
		t.Fatalf("--idesc: exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(out2); !bytes.Equal(got, golden) {
		t.Errorf("--idesc %s: D differs", idesc)
	}
	// CUTLASS's 64-bit runtime form, descriptor in the upper half.
	code, _, errs = runCLI(t, "mma", "--inst", nvfp4Inst, "--idesc", idesc+"00000000",
		"--a", filepath.Join(src, "A.e2m1"), "--b", filepath.Join(src, "B.e2m1"),
		"--scale-a", filepath.Join(src, "SFA.ue4m3"), "--scale-b", filepath.Join(src, "SFB.ue4m3"), "--out", out2)
	if code != 0 || !strings.Contains(errs, "upper 32 bits") {
		t.Fatalf("--idesc 64-bit: exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(out2); !bytes.Equal(got, golden) {
		t.Errorf("--idesc %s00000000: D differs", idesc)
	}

	// Scale factors from .npy, and a batch of two problems (the second with
	// A's scale factors doubled: ue4m3 exponent + 1, so D doubles).
	sfa, _ := os.ReadFile(filepath.Join(src, "SFA.ue4m3"))
	sfb, _ := os.ReadFile(filepath.Join(src, "SFB.ue4m3"))
	a, _ := os.ReadFile(filepath.Join(src, "A.e2m1"))
	b, _ := os.ReadFile(filepath.Join(src, "B.e2m1"))
	var sfa2, sfaVals []uint64
	for _, x := range sfa {
		sfaVals = append(sfaVals, uint64(x))
		d := uint64(x)
		if x>>3 != 0 && x>>3 < 14 {
			d += 8
		} else if x != 0 {
			d = uint64(x) << 1 // subnormal: double the mantissa
		}
		sfa2 = append(sfa2, d)
	}
	writeNpy := func(name string, vals []uint64, shape ...int) string {
		var buf bytes.Buffer
		if err := datapath.WriteNpy(&buf, vals, 8, shape...); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	sfbBatch := make([]uint64, 0, 2*len(sfb))
	for range 2 {
		for _, x := range sfb {
			sfbBatch = append(sfbBatch, uint64(x))
		}
	}
	os.WriteFile(filepath.Join(dir, "A2"), append(append([]byte{}, a...), a...), 0o644)
	os.WriteFile(filepath.Join(dir, "B2"), append(append([]byte{}, b...), b...), 0o644)
	npyOut := filepath.Join(dir, "D.npy")
	code, _, errs = runCLI(t, "mma", "--inst", nvfp4Inst, "--m", "128", "--n", "8", "--stype", "ue4m3", "--batch", "2",
		"--a", filepath.Join(dir, "A2"), "--b", filepath.Join(dir, "B2"),
		"--scale-a", writeNpy("sfa.npy", append(sfaVals, sfa2...), 2, 128, 4), "--scale-b", writeNpy("sfb.npy", sfbBatch, 2, 8, 4), "--out", npyOut)
	if code != 0 {
		t.Fatalf("npy batch: exit %d: %s", code, errs)
	}
	f, _ := os.Open(npyOut)
	vals, bits, err := datapath.ReadNpy(f)
	f.Close()
	if err != nil || bits != 32 || len(vals) != 2*128*8 {
		t.Fatalf("ReadNpy: %d vals, %d bits, %v", len(vals), bits, err)
	}
	for i := 0; i < 128*8; i++ {
		d1 := math.Float32frombits(binary.LittleEndian.Uint32(golden[4*i:]))
		if g := math.Float32frombits(uint32(vals[i])); g != d1 {
			t.Fatalf("problem 0 D[%d] = %g, want %g", i, g, d1)
		}
		if g := math.Float32frombits(uint32(vals[128*8+i])); g != 2*d1 {
			t.Fatalf("problem 1 D[%d] = %g, want 2×%g", i, g, d1)
		}
	}
}

func TestMMATcgen05Errors(t *testing.T) {
	src := filepath.Join(tcExampleDir, "nvfp4")
	dir := t.TempDir()
	out := filepath.Join(dir, "D.bin")
	bf := filepath.Join(dir, "bf16.bin")
	os.WriteFile(bf, make([]byte, 64*16*2), 0o644)
	e2m3 := filepath.Join(dir, "A.e2m3")
	bad := make([]byte, 128*32)
	bad[37] = 0x41
	os.WriteFile(e2m3, bad, 0o644)
	e4 := filepath.Join(dir, "B.e4m3")
	os.WriteFile(e4, make([]byte, 8*32), 0o644)
	sf128 := filepath.Join(dir, "sf128")
	os.WriteFile(sf128, bytes.Repeat([]byte{0x7f}, 128), 0o644)
	sf8 := filepath.Join(dir, "sf8")
	os.WriteFile(sf8, bytes.Repeat([]byte{0x7f}, 8), 0o644)
	badSF := filepath.Join(dir, "badsf")
	sfa, err := os.ReadFile(filepath.Join(src, "SFA.ue4m3"))
	if err != nil {
		t.Fatal(err)
	}
	sfa[5] |= 0x80
	os.WriteFile(badSF, sfa, 0o644)

	mx := "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale"
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{append(nvfp4Args(src)[:len(nvfp4Args(src))-4], "--out", out), 2, "needs --scale-a and --scale-b: one .ue4m3 byte per 16 elements of K, 4 per row of A (512 bytes) and per column of B (32 bytes)"},
		{append(nvfp4Args(src, "--out", out), "--scale-a", filepath.Join(src, "SFB.ue4m3")), 2, "scale factors of A (128 rows × 4 per row: K = 64 in blocks of 16, .scale_vec::4X; 1 problem(s)):"},
		{append(nvfp4Args(src, "--out", out), "--scale-a", filepath.Join(src, "SFB.ue4m3")), 2, "32 bytes, want 512"},
		// Block size mismatch: .block32 wants 2 scales per row, the files hold 4.
		{append([]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32"}, nvfp4Args(src, "--out", out)[3:]...), 2, "ue4m3 scale factors need .scale_vec::4X"},
		{append([]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32", "--m", "128", "--n", "8", "--stype", "ue8m0"}, nvfp4Args(src, "--out", out)[9:]...), 2, "512 bytes, want 256"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::mxf4.block_scale", "--m", "128", "--n", "8", "--stype", "ue4m3", "--a", bf, "--b", bf, "--out", out}, 2, "kind::mxf4 takes ue8m0 scale factors"},
		{[]string{"mma", "--inst", mx, "--m", "128", "--n", "8", "--atype", "bf16", "--btype", "e4m3", "--a", bf, "--b", bf, "--out", out}, 2, `atype: "bf16" is not an A type of kind::mxf8f6f4 (0 e4m3, 1 e5m2, 3 e2m3, 4 e3m2, 5 e2m1)`},
		{[]string{"mma", "--inst", mx, "--m", "128", "--n", "8", "--atype", "e2m3", "--btype", "e4m3", "--a", e2m3, "--b", e4, "--scale-a", sf128, "--scale-b", sf8, "--out", out}, 2, "A element 37 is 0x41: a .e2m3 element has 6 bits, and the bits above them must be 0"},
		{append(nvfp4Args(src, "--out", out), "--scale-a", badSF), 2, "scale factor element 5 is"},
		{[]string{"mma", "--inst", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "--a", bf, "--b", bf, "--scale-a", sf128, "--out", out}, 2, "--scale-a is for tcgen05.mma instructions"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--idesc", "0x08100490", "--m", "64", "--a", bf, "--b", bf, "--out", out}, 2, "drop --m"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--idesc", "0xzz", "--a", bf, "--b", bf, "--out", out}, 2, "want a 32-bit number"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--idesc", "0x0", "--a", bf, "--b", bf, "--out", out}, 2, "--idesc 0x00000000 (read as kind::f16): m: the M field is 0"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f8f6f4", "--n", "8", "--atype", "e4m3", "--btype", "e4m3", "--scale-input-d", "3", "--a", bf, "--b", bf, "--out", out}, 2, "scale-input-d exists only for kind::f16 and kind::tf32"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--m", "64", "--n", "8", "--atype", "bf16", "--btype", "bf16", "--scale-a", sf128, "--scale-b", sf8, "--a", bf, "--b", bf, "--out", out}, 2, "--scale-a and --scale-b are for the block-scaled kinds"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::4X", "--n", "8", "--a", bf, "--b", bf, "--out", out}, 2, ".scale_vec::4X is not a scale vector size of .kind::mxf4 (it takes .scale_vec::2X = .block32)"},
		{[]string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::mxf9", "--n", "8", "--a", bf, "--b", bf, "--out", out}, 2, "nearest: tcgen05.mma.cta_group::1.kind::"},
	}
	for _, tt := range tests {
		expectCLI(t, tt.args, tt.code, nil, nil, tt.msg)
	}
}

// TestMMATcgen05Dense runs kind::f16 with negation and scale-input-d, and
// kind::i8, end to end.
func TestMMATcgen05Dense(t *testing.T) {
	dir := t.TempDir()
	want := writeBF16Problem(t, dir, 8, 1)
	var c bytes.Buffer
	for range want {
		binary.Write(&c, binary.LittleEndian, math.Float32bits(8))
	}
	os.WriteFile(filepath.Join(dir, "C.bin"), c.Bytes(), 0o644)
	out := filepath.Join(dir, "D.bin")
	code, _, errs := runCLI(t, "mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--m", "64", "--n", "8",
		"--atype", "bf16", "--btype", "bf16", "--negate-a", "--scale-input-d", "3",
		"--a", filepath.Join(dir, "A.bin"), "--b", filepath.Join(dir, "B.bin"), "--c", filepath.Join(dir, "C.bin"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"note: negated by the instruction descriptor: A", "note: scale-input-d 3: D = A·B + C·2^-3"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	got, _ := os.ReadFile(out)
	for i, w := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != -w+1 {
			t.Fatalf("D[%d] = %g, want -(%g) + 8·2^-3", i, g, w)
		}
	}

	// kind::i8: s8 ones times u8 twos, K = 32: every D is 64; 40 with C = -24.
	a := bytes.Repeat([]byte{1}, 64*32)
	b := bytes.Repeat([]byte{2}, 8*32)
	os.WriteFile(filepath.Join(dir, "A8"), a, 0o644)
	os.WriteFile(filepath.Join(dir, "B8"), b, 0o644)
	code, stdout, errs := runCLI(t, "mma", "--inst", "tcgen05.mma.cta_group::1.kind::i8", "--m", "64", "--n", "8",
		"--atype", "s8", "--btype", "u8", "--a", filepath.Join(dir, "A8"), "--b", filepath.Join(dir, "B8"), "--out", out, "--explain", "3,4")
	if code != 0 {
		t.Fatalf("i8: exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "D[3][4] of problem 0 = 0x40 (64) (integer datapath") || !strings.Contains(errs, "→.s32") {
		t.Errorf("i8 output:\n%s\n%s", stdout, errs)
	}
	got, _ = os.ReadFile(out)
	for i := 0; i < 64*8; i++ {
		if v := int32(binary.LittleEndian.Uint32(got[4*i:])); v != 64 {
			t.Fatalf("i8 D[%d] = %d", i, v)
		}
	}
}

// tcsim mma on its own: generators instead of files, D on standard output
// or printed as a matrix, --explain with the operands, the exact value and
// the error in ULPs; a batch streams through any number of workers with
// the same bits.
func TestMMAStandalone(t *testing.T) {
	const inst = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
	code, raw, errs := runCLI(t, "mma", "--inst", inst, "--a", "uniform:bf16:1:-1:1", "--b", "iota:bf16", "--out", "-")
	if code != 0 || len(raw) != 64*8*4 {
		t.Fatalf("--out -: exit %d, %d bytes on stdout (want %d); %s", code, len(raw), 64*8*4, errs)
	}
	code, printed, errs := runCLI(t, "mma", "--inst", inst, "--a", "uniform:bf16:1:-1:1", "--b", "iota:bf16", "--print")
	if code != 0 || !strings.HasPrefix(printed, "D: 64×8 .f32, row-major\n") {
		t.Fatalf("--print: exit %d\n%s%s", code, printed, errs)
	}
	// the printed matrix holds the values --out wrote
	lines := strings.Split(printed, "\n")
	first := strings.Fields(lines[2]) // row 0
	if v := math.Float32frombits(binary.LittleEndian.Uint32([]byte(raw[4:8]))); first[2] != fmt.Sprint(v) {
		t.Errorf("--print D[0][1] = %s, --out - gives %v", first[2], v)
	}
	// a generator without its type takes the operand's: the same bytes
	for _, untyped := range [][2]string{{"uniform:1:-1:1", "iota"}, {"uniform:1:-1:1", "iota:0:1"}} {
		code, got, errs := runCLI(t, "mma", "--inst", inst, "--a", untyped[0], "--b", untyped[1], "--c", "const:0", "--out", "-")
		if code != 0 || got != raw {
			t.Errorf("--a %s --b %s: exit %d, %d bytes differ from the typed generators' (%s)", untyped[0], untyped[1], code, len(got), errs)
		}
	}
	if code, _, errs := runCLI(t, "mma", "--inst", inst, "--a", "iota:f16", "--b", "iota", "--print"); code != 2 || !strings.Contains(errs, "write iota:bf16") {
		t.Errorf("iota:f16 for a .bf16 operand: exit %d, %q", code, errs)
	}
	code, ex, errs := runCLI(t, "mma", "--inst", inst, "--a", "../../fixtures/examples/mma/A.bf16", "--b", "../../fixtures/examples/mma/B.bf16", "--explain", "0,0")
	for _, want := range []string{"operands (k: a_k × b_k):", " 0: 1 × 1", "2: 3 × 1", "exact A·B + C = 1.000003822147846221923828125\n", "error -0.0625 ULP of .f32"} {
		if code != 0 || !strings.Contains(ex, want) {
			t.Errorf("--explain: exit %d, output lacks %q:\n%s%s", code, want, ex, errs)
		}
	}
	// streaming: the same batch with 1 and 3 workers, and against the
	// generators computed whole (problem p is a slice of one stream)
	dir := t.TempDir()
	var outs [][]byte
	for _, w := range []string{"1", "3"} {
		out := filepath.Join(dir, "D"+w+".bin")
		code, _, errs := runCLI(t, "mma", "--inst", inst, "--a", "uniform:bf16:7:-2:2", "--b", "int:bf16:3:-4:4", "--c", "uniform:f32:5:-1:1", "--batch", "5", "--workers", w, "--out", out)
		if code != 0 {
			t.Fatalf("--workers %s: exit %d %s", w, code, errs)
		}
		b, _ := os.ReadFile(out)
		outs = append(outs, b)
	}
	if !bytes.Equal(outs[0], outs[1]) || len(outs[0]) != 5*64*8*4 {
		t.Errorf("batch of 5: %d and %d bytes, equal %v", len(outs[0]), len(outs[1]), bytes.Equal(outs[0], outs[1]))
	}
	out := filepath.Join(dir, "D3p.bin")
	if code, _, errs := runCLI(t, "mma", "--inst", inst, "--a", "uniform:bf16:7:-2:2", "--b", "int:bf16:3:-4:4", "--c", "uniform:f32:5:-1:1", "--batch", "3", "--out", out); code != 0 {
		t.Fatalf("batch of 3: %s", errs)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, outs[0][:len(b)]) {
		t.Errorf("the first 3 problems of a batch of 5 differ from a batch of 3")
	}
}

// Operand files that do not fit the instruction: a .npy of the transposed
// shape, one whose shape product overflows, devices, a wrong generator.
func TestMMAHostileOperands(t *testing.T) {
	const inst = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
	dir := t.TempDir()
	npy := func(name string, shape []int, vals int) string {
		var b bytes.Buffer
		if err := datapath.WriteNpy(&b, make([]uint64, vals), 16, shape...); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b.Bytes(), 0o644)
		return p
	}
	good := npy("a.npy", []int{64, 16}, 64*16)
	flat := npy("flat.npy", []int{64 * 16}, 64*16)
	trans := npy("t.npy", []int{16, 64}, 64*16)
	// a shape whose product wraps around to 1 (2^61+1 elements of 8 bytes)
	var ov bytes.Buffer
	datapath.WriteNpy(&ov, []uint64{7}, 64, 1)
	huge := bytes.Replace(ov.Bytes(), []byte("(1,)"), []byte("(2305843009213693953,)"), 1)
	huge = bytes.Replace(huge, []byte("(2305843009213693953,), "), []byte("(2305843009213693953,),"), 1)
	hugeP := filepath.Join(dir, "huge.npy")
	os.WriteFile(hugeP, huge, 0o644)
	b := "int:bf16:1:-2:2"
	for _, tc := range []struct {
		a    string
		code int
		want string
	}{
		{good, 0, ""},
		{flat, 0, ""},
		// an operand that is not what the instruction reads is a usage
		// error, as a missing file is (tcsim --help)
		{trans, 2, "shape (16, 64) is the transpose of (64, 16)"},
		{hugeP, 2, "more than"},
		{"/dev/zero", 2, "/dev/zero: more than 2048 bytes, want 2048"},
		{"/dev/null", 2, "/dev/null: the input ends early"},
		{"uniform:f16:1:-1:1", 2, "makes f16 values, but the operand holds .bf16"},
		{"random:x", 2, "seed"},
		{filepath.Join(dir, "missing.bin"), 2, "no such file"},
		{dir, 2, "is a directory"},
	} {
		expectCLI(t, []string{"mma", "--inst", inst, "--a", tc.a, "--b", b, "--print"}, tc.code, nil, nil, tc.want)
	}
	expectCLI(t, []string{"mma", "--inst", "tcgen05.mma.cta_group::1.kind::f16", "--n", "8", "--btype", "bf16", "--a", "zero", "--b", "zero", "--print"}, 2, nil, nil, "--atype is required")
	expectCLI(t, []string{"mma", "--inst", inst, "--a", "zero", "--b", "zero", "--print", "--out", "-"}, 2, nil, nil, "would mix text")
	expectCLI(t, []string{"mma", "--inst", inst, "--a", "zero", "--b", "zero", "--print", "--workers", "-5"}, 2, nil, nil, "--workers -5")
}

// --explain writes A·B + C exactly: a sum of binary floats is a dyadic
// rational, a finite decimal.
func TestExactDecimal(t *testing.T) {
	for _, tc := range []struct {
		num, den int64
		want     string
		digits   int
	}{
		{0, 1, "0", 0},
		{3, 1, "3", 1},
		{-1, 8, "-0.125", 3},
		{1, 512, "0.001953125", 7},
		{1<<30 + 1, 1 << 30, "1.000000000931322574615478515625", 31},
		{1200, 1, "1200", 4},
		{1, 3, "1/3", 0}, // not dyadic: the fraction
	} {
		got, digits := exactDecimal(big.NewRat(tc.num, tc.den))
		if got != tc.want || digits != tc.digits {
			t.Errorf("exactDecimal(%d/%d) = %s, %d; want %s, %d", tc.num, tc.den, got, digits, tc.want, tc.digits)
		}
	}
	// 2^-149 (f32's smallest subnormal) has 105 significant digits
	tiny := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 149))
	if s, d := exactDecimal(tiny); d != 105 || !strings.HasPrefix(s, "0.000000000000000000000000000000000000000000001401298464324817") {
		t.Errorf("2^-149 = %s (%d digits)", s, d)
	}
}
