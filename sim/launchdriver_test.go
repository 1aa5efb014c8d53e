package sim

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/tensormap"
	"github.com/tcsim/tcsim/launch"
)

// tmaStruct takes its tensor map inside a by-value struct, as CUTLASS's
// Params does: bytes [0, 128) a CUtensorMap of a 16x64 u16 tensor, [128,
// 136) the pointer it copies the box to, [136, 144) the address of a second
// CUtensorMap in global memory, through which it stores the box back.
const tmaStruct = `
.shared .align 1024 .b8 smem[2048];
.shared .align 8 .b64 bar;
.visible .entry tma_struct(.param .align 64 .b8 tma_struct_param_0[192])
.maxntid 128, 1, 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<16>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [tma_struct_param_0+128];
	ld.param.u64 %rd6, [tma_struct_param_0+136];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r5, smem;
	mov.u32 %r6, bar;
	mov.u32 %r14, 0;
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra $issued;
	mov.u32 %r13, 1;
	mbarrier.init.shared::cta.b64 [%r6], %r13;
	fence.mbarrier_init.release.cluster;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 2048;
	mov.b64 %rd2, tma_struct_param_0;
	cvta.param.u64 %rd3, %rd2;
	prefetch.tensormap [%rd3];
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd3, {%r14, %r14}], [%r6];
$issued:
	bar.sync 0;
	mov.u32 %r15, 0;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r6], %r15;
	@!%p3 bra $wait;
	shl.b32 %r11, %r1, 4;
	add.u32 %r12, %r5, %r11;
	ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r12];
	cvt.u64.u32 %rd4, %r11;
	add.s64 %rd5, %rd1, %rd4;
	st.global.v4.u32 [%rd5], {%r20, %r21, %r22, %r23};
	@%p2 bra $done;
	cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd6, {%r14, %r14}], [%r5];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
$done:
	ret;
}
`

const (
	addrT   = 0x7fa0_abe0_0000 // the tensor the struct's map reads
	addrOut = 0x7fa0_abf0_0000 // where the kernel copies the box
	addrMap = 0x7fa0_ac00_0000 // the second map, in global memory
	addrO2  = 0x7fa0_ac10_0000 // the tensor the second map writes
)

func u16Map(addr uint64) *tensormap.Map {
	return &tensormap.Map{Kind: tensormap.Tiled, DType: tensormap.U16, Address: addr, Dims: []uint64{16, 64}, Strides: []uint64{32},
		Box: []uint32{16, 64}, ElemStrides: []uint32{1, 1}}
}

// structLaunch writes the struct and the global map to files in dir and
// returns the launch.
func structLaunch(t *testing.T, dir string, edit func(blob, gmap []byte)) *launch.Launch {
	t.Helper()
	a, err := tensormap.Encode(u16Map(addrT))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tensormap.Encode(u16Map(addrO2))
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 192)
	copy(blob, a[:])
	binary.LittleEndian.PutUint64(blob[128:], addrOut)
	binary.LittleEndian.PutUint64(blob[136:], addrMap)
	gmap := append([]byte(nil), b[:]...)
	if edit != nil {
		edit(blob, gmap)
	}
	for name, data := range map[string][]byte{"params.bin": blob, "map.bin": gmap} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specs := []string{
		"P=blob:in=" + filepath.Join(dir, "params.bin"),
		"T=buf:size=2048,fill=iota:u16,addr=0x7fa0abe00000",
		"out=buf:size=2048,addr=0x7fa0abf00000",
		"M=buf:in=" + filepath.Join(dir, "map.bin") + ",addr=0x7fa0ac000000",
		"O2=buf:size=2048,addr=0x7fa0ac100000",
	}
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1}}
	for i, s := range specs {
		p, err := launch.ParseParam(s)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			l.Params = append(l.Params, p)
		} else {
			l.Buffers = append(l.Buffers, p)
		}
	}
	return l
}

// tmaStructDir holds the example of the README: the kernel, its struct
// and the global map as files, and the launch. TestTMAStructFiles keeps
// them equal to what structLaunch writes (go test ./sim -run
// TestTMAStructFiles -update rewrites them).
const tmaStructDir = "testdata/tmastruct"

const tmaStructLaunch = `{
  "ptx": "kernel.ptx",
  "grid": [1, 1, 1],
  "block": [128, 1, 1],
  "params": [
    "P=blob:in=params.bin"
  ],
  "buffers": [
    "T=buf:size=2048,fill=iota:u16,addr=0x7fa0abe00000",
    "out=buf:size=2048,addr=0x7fa0abf00000",
    "M=buf:in=map.bin,addr=0x7fa0ac000000",
    "O2=buf:size=2048,addr=0x7fa0ac100000"
  ],
  "outputs": [
    "out:u16",
    "O2:u16"
  ]
}
`

func TestTMAStructFiles(t *testing.T) {
	tmp := t.TempDir()
	structLaunch(t, tmp, nil)
	want := map[string][]byte{
		"kernel.ptx":  []byte("// tma_struct: written by hand for tcsim. The kernel takes a by-value struct, as a\n// CUTLASS kernel takes its Params: a CUtensorMap as the CUDA driver encodes it,\n// a pointer, and the address of a second CUtensorMap in global memory.\n" + ptxHeader + tmaStruct),
		"launch.json": []byte(tmaStructLaunch),
	}
	for _, f := range []string{"params.bin", "map.bin"} {
		b, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil {
			t.Fatal(err)
		}
		want[f] = b
	}
	for name, data := range want {
		path := filepath.Join(tmaStructDir, name)
		if *update {
			os.MkdirAll(tmaStructDir, 0o755)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s differs from what the test generates (go test ./sim -run TestTMAStructFiles -update): %v", path, err)
		}
	}
	l, err := launch.ReadLaunch(filepath.Join(tmaStructDir, "launch.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(l.PTX)
	m, err := Prepare(l.PTX, src, l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
}

// TestDriverTensorMapsAnywhere runs a kernel that takes a driver-encoded
// tensor map inside a by-value struct (from a blob) and finds another in
// global memory, with every buffer at the device address the struct's
// pointers name.
func TestDriverTensorMapsAnywhere(t *testing.T) {
	l := structLaunch(t, t.TempDir(), nil)
	m, err := Prepare("t.ptx", []byte(ptxHeader+tmaStruct), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	want := make([]byte, 2048)
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint16(want[2*i:], uint16(i))
	}
	for _, name := range []string{"T", "out", "O2"} {
		b, err := m.Buffer(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Data, want) {
			t.Errorf("buffer %s at %#x: % x..., want % x...", name, b.Base, b.Data[:16], want[:16])
		}
	}
	if b, _ := m.Buffer("out"); b.Base != addrOut {
		t.Errorf("out placed at %#x, want %#x", b.Base, addrOut)
	}
}

func TestDriverTensorMapErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(blob, gmap []byte)
		want string
	}{
		{"unknown bits", func(blob, _ []byte) { blob[127] = 0xff },
			"the 128 bytes at 0x300000000000 (param P): these are not the bytes of a CUtensorMap as the CUDA driver writes it: w15: 0xff00000000000000"},
		{"private format", func(blob, _ []byte) { copy(blob, "tcsimTMP") },
			"(param P): these are not the bytes of a CUtensorMap as the CUDA driver writes it"},
		{"map points nowhere", func(blob, _ []byte) { binary.LittleEndian.PutUint64(blob[0:], 0x7fa0_0000_0000) },
			"cp.async.bulk.tensor through tensor map in param P, box at [0 0]: element 0 of the box is at 0x7fa000000000, "},
		{"global map garbage", func(_, gmap []byte) { gmap[8] |= 0x0e },
			"(M): these are not the bytes of a CUtensorMap as the CUDA driver writes it: w1: bits 1,2,3 set"},
	} {
		l := structLaunch(t, t.TempDir(), c.edit)
		m, err := Prepare("t.ptx", []byte(ptxHeader+tmaStruct), l, Options{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		err = m.Run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
	// prefetch.tensormap of garbage is a warning, not a fault.
	l := structLaunch(t, t.TempDir(), func(blob, _ []byte) { blob[127] = 0xff })
	m, _ := Prepare("t.ptx", []byte(ptxHeader+tmaStruct), l, Options{Check: true})
	m.Run()
	found := false
	for _, h := range m.Hazards() {
		found = found || h.Kind == HzTensorMap && strings.Contains(h.Msg, "prefetch.tensormap of param P")
	}
	if !found {
		t.Errorf("no tensormap hazard for the prefetch: %v", m.Hazards())
	}
}

func TestPlacementErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		specs []string
		want  string
	}{
		{[]string{"A=buf:size=4096,addr=0x7fa000000000", "B=buf:size=16,addr=0x7fa000000ff0"},
			"A (buffer) at [0x7fa000000000, 0x7fa000001000) and B (buffer) at [0x7fa000000ff0, 0x7fa000001000) overlap"},
		{[]string{"A=buf:size=16,addr=0x100000000010"}, "where the simulator keeps generic addresses of shared memory"},
	} {
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1}}
		l.Params = []launch.Param{launch.BufferData("out", make([]byte, 4))}
		for _, s := range c.specs {
			p, err := launch.ParseParam(s)
			if err != nil {
				t.Fatal(err)
			}
			l.Buffers = append(l.Buffers, p)
		}
		_, err := Prepare("t.ptx", []byte(ptxHeader+".visible .entry k(.param .u64 out) { ret; }"), l, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %s", c.specs, err, c.want)
		}
	}
	_ = dir
}

// TestNullPointer: a null pointer parameter dereferenced faults naming it.
func TestNullPointer(t *testing.T) {
	src := `.visible .entry k(.param .u64 out, .param .u64 scratch) {
	.reg .b64 %rd<4>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [scratch];
	ld.global.u32 %r1, [%rd1+64];
	ret;
}`
	_, err := func() (*Machine, error) {
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1}}
		null, _ := launch.ParseParam("null")
		l.Params = []launch.Param{launch.BufferData("out", make([]byte, 4)), null}
		m, err := Prepare("t.ptx", []byte(ptxHeader+src), l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m, m.Run()
	}()
	if err == nil || !strings.Contains(err.Error(), "out-of-bounds global memory access: 4 bytes at 0x40, a null pointer dereference: the address comes from param scratch (param 1), which is null (loaded at t.ptx:7:2)") {
		t.Errorf("got %v", err)
	}
}

// TestTritonNullScratch launches a kernel with Triton 3.6's signature: two
// trailing pointer parameters (global and profile scratch) passed as null.
func TestTritonNullScratch(t *testing.T) {
	l, err := launch.ReadLaunch("testdata/triton/add_kernel.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(l.PTX)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Prepare(l.PTX, src, l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	z, _ := m.Buffer("z")
	for i := 0; i < 400; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(z.Data[4*i:])); got != float32(i)+0.5 {
			t.Fatalf("z[%d] = %v, want %v", i, got, float32(i)+0.5)
		}
	}
	// The same kernel with the scratch pointer dereferenced: the fault
	// names the null parameter.
	bad := strings.Replace(string(src), "ld.param.u64 \t%rd4, [add_kernel_param_0];", "ld.param.u64 \t%rd4, [add_kernel_param_4];", 1)
	m, err = Prepare(l.PTX, []byte(bad), l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err == nil || !strings.Contains(err.Error(), "a null pointer dereference: the address comes from param global_scratch (param 4), which is null (loaded at testdata/triton/add_kernel.ptx:32:2)") {
		t.Errorf("dereferencing the null scratch pointer: %v", err)
	}
	// A null pointer for a parameter that is not 64 bits is refused.
	l.Params[3], _ = launch.ParseParam("null")
	if _, err := Prepare(l.PTX, src, l, Options{}); err == nil || !strings.Contains(err.Error(), "null is a 64-bit pointer, but the kernel declares .param .u32") {
		t.Errorf("null for a u32: %v", err)
	}
}
