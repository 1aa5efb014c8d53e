package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// fakeProgram builds testdata/fakecuda.c as libcuda.so.1 (a CUDA driver
// that keeps device memory in host memory), testdata/prog.c (a program
// that talks to the driver as the CUDA runtime does) and the interposer,
// once for the test binary. It skips the test when there is no C compiler.
func fakeProgram(t *testing.T) (prog string, env []string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the interposer uses LD_PRELOAD, which needs Linux")
	}
	cc := FindCC("")
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang): tcsim capture compiles its interposer with one")
	}
	fake.once.Do(func() {
		dir, err := os.MkdirTemp("", "tcsim-capture-test")
		if err != nil {
			fake.err = err
			return
		}
		fake.dir = dir
		lib := filepath.Join(dir, "lib")
		os.MkdirAll(lib, 0o755)
		for _, c := range [][]string{
			{cc, "-shared", "-fPIC", "-o", filepath.Join(lib, "libcuda.so.1"), "testdata/fakecuda.c", "-ldl"},
			{cc, "-o", filepath.Join(dir, "prog"), "testdata/prog.c", "-ldl"},
		} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				fake.err = fmt.Errorf("%s: %v\n%s", strings.Join(c, " "), err, out)
				return
			}
		}
		fake.interposer, _, fake.err = BuildInterposer(filepath.Join(dir, "tool"), "")
		fake.env = append(os.Environ(), "LD_LIBRARY_PATH="+lib)
	})
	if fake.err != nil {
		t.Fatal(fake.err)
	}
	return filepath.Join(fake.dir, "prog"), fake.env
}

var fake struct {
	once       sync.Once
	dir        string
	interposer string
	env        []string
	err        error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fake.dir != "" {
		os.RemoveAll(fake.dir)
	}
	os.Exit(code)
}

func record(t *testing.T, prog string, env []string, o Options) (string, []*RawLaunch, map[int]*Process, string) {
	t.Helper()
	raw := filepath.Join(t.TempDir(), "raw")
	var out bytes.Buffer
	o.Env, o.Stdout, o.Stderr, o.Interposer = env, &out, &out, fake.interposer
	s, err := Record(raw, []string{prog}, o)
	if err != nil {
		t.Fatalf("Record: %v\n%s", err, out.String())
	}
	if s.ExitCode != 0 || !strings.Contains(out.String(), "prog: ok") {
		t.Fatalf("the program failed under the interposer (exit %d):\n%s", s.ExitCode, out.String())
	}
	ls, procs, err := ReadRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	return raw, ls, procs, out.String()
}

func TestRecordFakeDriver(t *testing.T) {
	prog, env := fakeProgram(t)
	raw, ls, procs, _ := record(t, prog, env, Options{Launch: -1})
	if len(ls) != 2 {
		t.Fatalf("%d launches recorded, want 2", len(ls))
	}
	p := procs[ls[0].PID]
	if p == nil || p.Device != "Fake GPU (host memory)" || p.CC != "9.0" || p.CUDA != 13000 {
		t.Errorf("process = %+v", p)
	}

	// scale: through a plain dlsym'd cuLaunchKernel; y points 256 bytes
	// into its allocation.
	l := ls[0]
	if l.Kernel != "scale" || l.API != "cuLaunchKernel" || l.Grid != [3]uint32{8, 1, 1} || l.Block != [3]uint32{128, 1, 1} {
		t.Errorf("launch 0 = %s %s grid %v block %v", l.Kernel, l.API, l.Grid, l.Block)
	}
	if want := []RawParam{{0, 8}, {8, 8}, {16, 4}}; !equalParams(l.Params, want) {
		t.Errorf("params = %v, want %v", l.Params, want)
	}
	pb, err := l.ReadParams()
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint32(pb[16:]); n != 1000 {
		t.Errorf("n = %d, want 1000", n)
	}
	if len(l.Buffers) != 2 {
		t.Fatalf("%d buffers, want 2: %+v", len(l.Buffers), l.Buffers)
	}
	x, y := l.Buffers[0], l.Buffers[1]
	if x.Size != 4000 || y.Size != 4256 || x.AllocatedBy != "cuMemAlloc" {
		t.Errorf("buffers = %+v", l.Buffers)
	}
	yBase, _ := ParseAddr(y.Base)
	if len(y.Refs) != 1 || y.Refs[0].Offset != 8 || y.Refs[0].Value != hexAddr(yBase+256) {
		t.Errorf("y's references = %+v, want param offset 8 at base+256", y.Refs)
	}
	xb := readFile(t, filepath.Join(l.Dir, x.Before))
	xa := readFile(t, filepath.Join(l.Dir, x.After))
	ya := readFile(t, filepath.Join(l.Dir, y.After))
	if !bytes.Equal(xb, xa) {
		t.Error("x changed")
	}
	for i := 0; i < 1000; i++ {
		xv := math.Float32frombits(binary.LittleEndian.Uint32(xb[4*i:]))
		yv := math.Float32frombits(binary.LittleEndian.Uint32(ya[256+4*i:]))
		if yv != 2*xv {
			t.Fatalf("y[%d] = %v after the launch, want %v", i, yv, 2*xv)
		}
	}
	ptx, src, err := FindPTX(raw, l)
	if err != nil || !bytes.Contains(ptx, []byte(".entry scale(")) {
		t.Errorf("FindPTX: %v (%s)", err, src)
	}

	// tmcopy: through cuGetProcAddress'd cuLaunchKernelEx with a cluster
	// attribute; its first parameter is a tensor map.
	l = ls[1]
	if l.Kernel != "tmcopy" || l.API != "cuLaunchKernelEx" || l.Cluster != [3]uint32{2, 1, 1} || l.SharedMem != 1024 {
		t.Errorf("launch 1 = %s %s cluster %v smem %d", l.Kernel, l.API, l.Cluster, l.SharedMem)
	}
	if len(l.TensorMaps) != 1 || l.TensorMaps[0].Offset != 0 || l.TensorMaps[0].Encode.DType != 7 || l.TensorMaps[0].Encode.Dims[0] != 64 {
		t.Errorf("tensor maps = %+v", l.TensorMaps)
	}
	if len(l.Buffers) != 2 || l.Buffers[0].Size != 256 {
		t.Fatalf("buffers = %+v", l.Buffers)
	}
	if b, err := os.ReadFile(filepath.Join(raw, "tensormaps.jsonl")); err != nil || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("tensormaps.jsonl: %v, %q", err, b)
	}
}

func TestRecordSelection(t *testing.T) {
	prog, env := fakeProgram(t)
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"kernel regex", Options{Kernel: "^tm", Launch: -1}, []string{"tmcopy"}},
		{"launch index", Options{Launch: 1}, []string{"tmcopy"}},
		{"regex and index", Options{Kernel: "scale|tmcopy", Launch: 0}, []string{"scale"}},
		{"max", Options{Launch: -1, Max: 1}, []string{"scale"}},
		{"no match", Options{Kernel: "nothing", Launch: -1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ls, _, _ := record(t, prog, env, tc.o)
			var got []string
			for _, l := range ls {
				got = append(got, l.Kernel)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("captured %v, want %v", got, tc.want)
			}
		})
	}
}

// TestConvertFakeDriver turns the fake program's launches into cases: the
// buffers at the addresses the program had (addr=; issue 11's launch
// model), since a pointer to them also sits in the parameters.
func TestConvertFakeDriver(t *testing.T) {
	prog, env := fakeProgram(t)
	raw, _, _, _ := record(t, prog, env, Options{Launch: -1})
	res, err := ConvertAll(raw, t.TempDir(), ConvertOptions{Command: "tcsim capture (test)"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Launch.Kernel, r.Err)
			continue
		}
		lj, err := os.ReadFile(filepath.Join(r.Dir, "launch.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(lj), ",addr=0x") {
			t.Errorf("%s: no buffer placed at its address:\n%s", r.Launch.Kernel, lj)
		}
	}
}

func TestBuildInterposerNoCompiler(t *testing.T) {
	_, _, err := BuildInterposer(t.TempDir(), "no-such-compiler-tcsim")
	if err == nil || !strings.Contains(err.Error(), "no C compiler found") {
		t.Errorf("err = %v", err)
	}
}

func TestRecordNoProgram(t *testing.T) {
	if _, err := Record(t.TempDir(), nil, Options{}); err == nil {
		t.Error("no error without a program")
	}
}

func TestParseFatbin(t *testing.T) {
	ptx := []byte(".version 8.0\n.target sm_90a\n.visible .entry k()\n{\n\tret;\n}\n")
	fb := fatbin(t, entry{1, 90, ptx, 0}, entry{2, 90, []byte("\x7fELF...."), 0x8000})
	es, err := ParseFatbin(fb)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Kind != 1 || es[0].Arch != 90 || es[0].Compressed || !bytes.Equal(bytes.TrimRight(es[0].Data, "\x00"), ptx) ||
		es[1].Kind != 2 || !es[1].Compressed {
		t.Errorf("entries = %+v", es)
	}
	for _, bad := range [][]byte{fb[:20], append([]byte{1, 2, 3, 4}, fb[4:]...)} {
		if _, err := ParseFatbin(bad); err == nil {
			t.Errorf("no error for a damaged fatbin of %d bytes", len(bad))
		}
	}
	// A launch whose image is this fatbin finds the PTX in it.
	raw := t.TempDir()
	os.MkdirAll(filepath.Join(raw, "images"), 0o755)
	os.WriteFile(filepath.Join(raw, "images", "x.fatbin"), fb, 0o644)
	if err := ExtractPTX(raw, nil, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := FindPTX(raw, &RawLaunch{Kernel: "k", Image: "images/x.fatbin", ImageKind: "fatbin"})
	if err != nil || !bytes.Equal(got, ptx) {
		t.Errorf("FindPTX = %q, %v", got, err)
	}
	_, _, err = FindPTX(raw, &RawLaunch{Kernel: "other", Image: "images/x.fatbin", ImageKind: "fatbin"})
	if !IsNoPTX(err) || !strings.Contains(err.Error(), "code=[sm_90a,compute_90a]") {
		t.Errorf("a kernel without PTX: %v", err)
	}
}

func TestFuzzishFatbin(t *testing.T) {
	// Truncations of a valid fatbin never panic.
	fb := fatbin(t, entry{1, 90, []byte(".version 8.0\n"), 0})
	for n := 0; n <= len(fb); n++ {
		ParseFatbin(fb[:n])
	}
}

type entry struct {
	kind, arch int
	data       []byte
	flags      uint64
}

func fatbin(t *testing.T, es ...entry) []byte {
	t.Helper()
	var body []byte
	for _, e := range es {
		h := make([]byte, 64)
		aligned := (len(e.data) + 7) &^ 7
		binary.LittleEndian.PutUint16(h[0:], uint16(e.kind))
		binary.LittleEndian.PutUint16(h[2:], 0x101)
		binary.LittleEndian.PutUint32(h[4:], 64)
		binary.LittleEndian.PutUint32(h[8:], uint32(aligned))
		binary.LittleEndian.PutUint32(h[16:], uint32(len(e.data)))
		binary.LittleEndian.PutUint32(h[28:], uint32(e.arch))
		binary.LittleEndian.PutUint64(h[40:], e.flags)
		body = append(body, h...)
		body = append(body, e.data...)
		body = append(body, make([]byte, aligned-len(e.data))...)
	}
	hdr := make([]byte, 16)
	binary.LittleEndian.PutUint32(hdr, fatbinMagic)
	binary.LittleEndian.PutUint16(hdr[4:], 1)
	binary.LittleEndian.PutUint16(hdr[6:], 16)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(body)))
	return append(hdr, body...)
}

func TestCaseName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"matmul_kernel", "matmul_kernel"},
		{"_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEEEEvNT_6ParamsE", "cutlass_device_kernel"},
		{"_Z4gemmPf", "gemm"},
		{"", "kernel"},
		{"a.b$c", "a_b_c"},
	} {
		if got := CaseName(tc.in); got != tc.want {
			t.Errorf("CaseName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParamSpec(t *testing.T) {
	buf := &buffer{base: 0x7000, before: make([]byte, 64), param: -1, name: "mem0"}
	find := func(v uint64) *buffer {
		if v >= buf.base && v < buf.base+64 {
			return buf
		}
		return nil
	}
	le := func(v uint64, n int) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, v)
		return b[:n]
	}
	ptr := launch.ParamDecl{Name: "p", Type: ptx.U64, Size: 8, Align: 8, Ptr: &ptx.PtrAttr{}}
	for _, tc := range []struct {
		d    launch.ParamDecl
		v    []byte
		name string
		want string
	}{
		{ptr, le(0, 8), "scratch", "scratch=null"},
		{ptr, le(0x7000, 8), "a", "a=buf:size=64,addr=0x7000"},
		{ptr, le(0x7010, 8), "", "bytes:1070000000000000"},
		{launch.ParamDecl{Type: ptx.U32, Size: 4, Align: 4}, le(1000, 4), "n", "n=u32:0x3e8"},
		{launch.ParamDecl{Type: ptx.F32, Size: 4, Align: 4}, le(0x3f800000, 4), "", "f32:0x3f800000"},
		{launch.ParamDecl{Type: ptx.B8, Size: 3, Align: 1, Array: 3}, []byte{1, 2, 3}, "", "bytes:010203"},
	} {
		buf.param = -1
		got, _, err := paramSpec(tc.d, tc.v, tc.name, find)
		if err != nil || got != tc.want {
			t.Errorf("paramSpec(%v, %x) = %q, %v; want %q", tc.d.Type, tc.v, got, err, tc.want)
		}
	}
}

func TestReadRawErrors(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "launch-0000-p1"), 0o755)
	if _, _, err := ReadRaw(dir); err == nil || !strings.Contains(err.Error(), "no launch.json") {
		t.Errorf("missing launch.json: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "launch-0000-p1", "launch.json"), []byte("{"), 0o644)
	if _, _, err := ReadRaw(dir); err == nil {
		t.Error("no error for a broken launch.json")
	}
	good, _ := json.Marshal(RawLaunch{Kernel: "k", Launch: 700})
	os.WriteFile(filepath.Join(dir, "launch-0000-p1", "launch.json"), good, 0o644)
	res, err := ConvertAll(dir, t.TempDir(), ConvertOptions{})
	if err != nil || len(res) != 1 || res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "failed on the GPU") {
		t.Errorf("a failed launch: %v %+v", err, res)
	}
}

func equalParams(a, b []RawParam) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hexAddr(v uint64) string { return fmt.Sprintf("%#x", v) }

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
