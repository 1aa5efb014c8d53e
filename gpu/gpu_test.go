package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// These tests need an NVIDIA GPU and driver; without one they skip with
// the reason. On a GPU machine:
//
//	CGO_ENABLED=0 go test -c -o .dev/gpu.test ./gpu && (cd gpu && ../.dev/gpu.test -test.v)

var testDevice *Device

func openOrSkip(t *testing.T) *Device {
	t.Helper()
	if testDevice != nil {
		return testDevice
	}
	d, err := Open(0)
	switch {
	case errors.Is(err, ErrNoDriver):
		t.Skip("no NVIDIA driver found (libcuda.so.1)")
	case errors.Is(err, ErrNoDevice):
		t.Skipf("no NVIDIA GPU: %v", err)
	case err != nil:
		t.Fatalf("Open: %v", err)
	}
	testDevice = d
	return d
}

func needArch(t *testing.T, d *Device, major, minor int) {
	t.Helper()
	if d.Info.Major < major || (d.Info.Major == major && d.Info.Minor < minor) {
		t.Skipf("needs sm_%d%d, the GPU is %s", major, minor, d.Info.Arch())
	}
}

func readPTX(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mkLaunch builds a launch from flag-style specs.
func mkLaunch(t *testing.T, kernel, grid, block string, params ...string) *launch.Launch {
	t.Helper()
	lf := launch.LaunchFlags{Params: params}
	lf.Kernel.Set(kernel)
	lf.Grid.Set(grid)
	lf.Block.Set(block)
	l, err := lf.Launch("")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestInfo(t *testing.T) {
	d := openOrSkip(t)
	i := d.Info
	t.Logf("%s (%s), CUDA %s, driver %q, %d SMs, smem/block %d (opt-in %d), smem/SM %d, cluster launch %v, bus %s",
		i.Name, i.Arch(), i.CUDA(), i.DriverVersion, i.SMCount, i.SharedPerBlock, i.SharedPerBlockOptin, i.SharedPerSM, i.ClusterLaunch, i.PCIBusID)
	if i.Name == "" || i.Major < 5 || i.SMCount <= 0 || i.TotalMemory == 0 || i.CUDAVersion < 11000 {
		t.Errorf("implausible info %+v", i)
	}
	if i.SharedPerBlock != 48*1024 || i.SharedPerBlockOptin < i.SharedPerBlock || i.SharedPerSM < i.SharedPerBlockOptin {
		t.Errorf("shared memory limits: per block %d, opt-in %d, per SM %d", i.SharedPerBlock, i.SharedPerBlockOptin, i.SharedPerSM)
	}
	if i.MaxThreadsPerBlock != 1024 || i.WarpSize != 32 {
		t.Errorf("max threads %d, warp size %d", i.MaxThreadsPerBlock, i.WarpSize)
	}
	for _, b := range d.Bindings() {
		t.Log(b)
	}
}

func TestMemory(t *testing.T) {
	d := openOrSkip(t)
	b, err := d.Alloc(1000)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if b.Ptr%256 != 0 {
		t.Errorf("allocation at %#x is not 256-byte aligned", b.Ptr)
	}
	if err := b.Memset(0xab); err != nil {
		t.Fatal(err)
	}
	in := []byte("tensor cores")
	if err := b.Write(in); err != nil {
		t.Fatal(err)
	}
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if string(out[:len(in)]) != string(in) || out[len(in)] != 0xab || out[999] != 0xab {
		t.Errorf("round trip: % x ...", out[:16])
	}
	if err := b.Write(make([]byte, 1001)); err == nil {
		t.Error("writing past the end succeeded")
	}
}

func TestSaxpy(t *testing.T) {
	d := openOrSkip(t)
	const n = 1000 // not a multiple of the block: the bounds check matters
	l := mkLaunch(t, "saxpy", "8", "128",
		"n=u32:1000", "a=f32:2.5", "x=buf:size=4096,fill=iota:f32:0:0.25", "y=buf:size=4096,fill=const:f32:-1")
	l.Outputs = []launch.Output{{Param: "y"}}
	res, err := d.Run("saxpy.ptx", readPTX(t, "saxpy.ptx"), l, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registers %d, elapsed %v, JIT %.2f ms\n%s", res.Attrs.Registers, res.Elapsed, res.JITMS, res.JITLog)
	if res.Elapsed <= 0 {
		t.Errorf("elapsed %v", res.Elapsed)
	}
	if res.JITLog == "" {
		t.Error("the verbose JIT info log is empty")
	}
	y, err := res.Output("y")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1024; i++ {
		got := math.Float32frombits(binary.LittleEndian.Uint32(y.Data[4*i:]))
		want := float32(-1)
		if i < n {
			want = float32(math.FMA(2.5, float64(i)*0.25, -1))
		}
		if got != want {
			t.Fatalf("y[%d] = %v, want %v", i, got, want)
		}
	}
}

func TestParamPacking(t *testing.T) {
	d := openOrSkip(t)
	l := mkLaunch(t, "params", "1", "1",
		"u8:0xa5", "u16:0xbeef", "u32:0xdeadbeef", "u64:0x0123456789abcdef", "f32:-1.5", "f64:3.25",
		"bytes:0102030405060708090a0b0c", "out=buf:size=72")
	res, err := d.Run("params.ptx", readPTX(t, "params.ptx"), l, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.drv.cuFuncGetParamInfo != nil {
		if !res.ParamSizesChecked {
			t.Error("the driver's parameter sizes were not compared")
		}
		for i, p := range res.Binding.Params {
			if res.DriverParamOffsets[i] != p.Offset {
				t.Errorf("param %d: the driver's offset %d, the packed layout's %d", i, res.DriverParamOffsets[i], p.Offset)
			}
		}
	}
	want := []uint64{0xa5, 0xbeef, 0xdeadbeef, 0x0123456789abcdef, uint64(math.Float32bits(-1.5)), math.Float64bits(3.25),
		0x04030201, 0x08070605, 0x0c0b0a09}
	out := res.Outputs[0].Data
	for i, w := range want {
		if got := binary.LittleEndian.Uint64(out[8*i:]); got != w {
			t.Errorf("slot %d = %#x, want %#x", i, got, w)
		}
	}
	if offs := []int{0, 2, 4, 8, 16, 24, 32, 48}; res.Binding.Size != 56 {
		t.Errorf("param space %d bytes", res.Binding.Size)
	} else {
		for i, p := range res.Binding.Params {
			if p.Offset != offs[i] {
				t.Errorf("param %d at %d, want %d", i, p.Offset, offs[i])
			}
		}
	}
}

func TestDynamicSharedMemoryOptIn(t *testing.T) {
	d := openOrSkip(t)
	const smem = 100000 // above the 48 KB default
	if d.Info.SharedPerBlockOptin < smem {
		t.Skipf("the GPU allows %d bytes per block", d.Info.SharedPerBlockOptin)
	}
	l := mkLaunch(t, "dsmem", "1", "256", "out=buf:size=1024", "nbytes=u32:100000")
	l.SharedMem = smem
	res, err := d.Run("dsmem.ptx", readPTX(t, "dsmem.ptx"), l, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 256; i++ {
		if got, want := binary.LittleEndian.Uint32(res.Outputs[0].Data[4*i:]), uint32(3*(255-i)+1); got != want {
			t.Fatalf("out[%d] = %d, want %d", i, got, want)
		}
	}
	// More than the opt-in limit is refused before launching.
	l.SharedMem = d.Info.SharedPerBlockOptin + 1
	if _, err := d.Run("dsmem.ptx", readPTX(t, "dsmem.ptx"), l, RunOptions{}); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("too much shared memory: %v", err)
	}
}

func TestClusterLaunch(t *testing.T) {
	d := openOrSkip(t)
	needArch(t, d, 9, 0)
	if !d.Info.ClusterLaunch {
		t.Skip("the GPU does not support cluster launch")
	}
	l := mkLaunch(t, "cluster_ids", "4,2", "32", "out=buf:size=128")
	l.Cluster = launch.Dim3{2, 1, 1}
	res, err := d.Run("cluster.ptx", readPTX(t, "cluster.ptx"), l, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Outputs[0].Data
	for y := 0; y < 2; y++ {
		for x := 0; x < 4; x++ {
			i := 16 * (x + 4*y)
			got := [4]uint32{binary.LittleEndian.Uint32(out[i:]), binary.LittleEndian.Uint32(out[i+4:]), binary.LittleEndian.Uint32(out[i+8:]), binary.LittleEndian.Uint32(out[i+12:])}
			want := [4]uint32{uint32(x % 2), 2, uint32(x / 2), uint32(y)}
			if got != want {
				t.Errorf("CTA (%d,%d): rank, size, cluster x, y = %v, want %v", x, y, got, want)
			}
		}
	}
}

// TestTMA loads 64x64 bf16 boxes of a 128x96 tensor whose elements hold
// their own linear index, and checks where each element lands in shared
// memory: with no swizzle, and with the 128-byte swizzle (16-byte chunk c
// of row r stored at chunk c^(r%8)); and out of bounds, where TMA fills
// zeros.
func TestTMA(t *testing.T) {
	d := openOrSkip(t)
	needArch(t, d, 9, 0)
	ptx := readPTX(t, "tma.ptx")
	for _, c := range []struct {
		swizzle string
		x0, y0  int
	}{{"none", 64, 32}, {"128B", 64, 32}, {"128B", 96, 48}} {
		t.Run(c.swizzle, func(t *testing.T) {
			l := mkLaunch(t, "tma_tile", "1", "128",
				"tmap:buf=src,dtype=bf16,dims=128x96,box=64x64,swizzle="+c.swizzle,
				"out=buf:size=8192",
				"x0=u32:"+strconv.Itoa(c.x0), "y0=u32:"+strconv.Itoa(c.y0), "nbytes=u32:8192")
			src, err := launch.ParseParam("src=buf:size=24576,fill=iota:u16")
			if err != nil {
				t.Fatal(err)
			}
			l.Buffers = []launch.Param{src}
			l.Outputs = []launch.Output{{Param: "out"}}
			res, err := d.Run("tma.ptx", ptx, l, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("parameter offsets: packed %v, driver %v", []int{res.Binding.Params[0].Offset, res.Binding.Params[1].Offset, res.Binding.Params[4].Offset}, res.DriverParamOffsets)
			out := res.Outputs[0].Data
			for r := 0; r < 64; r++ {
				for col := 0; col < 64; col++ {
					chunk := col / 8
					if c.swizzle == "128B" {
						chunk ^= r % 8
					}
					off := r*128 + chunk*16 + (col%8)*2
					got := binary.LittleEndian.Uint16(out[off:])
					gx, gy := c.x0+col, c.y0+r
					want := uint16(gy*128 + gx)
					if gx >= 128 || gy >= 96 {
						want = 0
					}
					if got != want {
						t.Fatalf("box element (row %d, col %d) at smem byte %d = %d, want %d", r, col, off, got, want)
					}
				}
			}
		})
	}
}

func TestWGMMA(t *testing.T) {
	d := openOrSkip(t)
	if d.Info.Major != 9 || d.Info.Minor != 0 {
		t.Skipf("sm_90a code runs only on sm_90; the GPU is %s", d.Info.Arch())
	}
	ptx := readPTX(t, "wgmma.ptx")
	for _, k := range []string{"wgmma_ones", "wgmma_nowait"} {
		l := mkLaunch(t, k, "1", "128", "out=buf:size=2048,fill=const:f32:-7")
		res, err := d.Run("wgmma.ptx", ptx, l, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := res.Outputs[0].Data
		for i := 0; i < 512; i++ {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); v != 16 {
				t.Fatalf("%s: D element %d = %v, want 16", k, i, v)
			}
		}
		adv := Advisories(res.JITLog)
		t.Logf("%s advisories: %+v", k, adv)
		found := false
		for _, a := range adv {
			found = found || (a.Code == "C7517" && strings.Contains(a.Text, "wgmma_nowait"))
		}
		if !found {
			t.Errorf("the JIT log does not carry C7517 for wgmma_nowait:\n%s", res.JITLog)
		}
	}
}

func TestJITError(t *testing.T) {
	d := openOrSkip(t)
	_, err := d.LoadPTX("bad.ptx", readPTX(t, "bad.ptx"), JITOptions{})
	var je *JITError
	if !errors.As(err, &je) {
		t.Fatalf("want a *JITError, got %v", err)
	}
	t.Logf("%v\nraw log:\n%s", err, je.Log)
	ms := je.Messages()
	if len(ms) == 0 || ms[0].Line != 9 || ms[0].Severity != "error" {
		t.Errorf("messages %+v", ms)
	}
	if !strings.Contains(err.Error(), "bad.ptx:9: error:") || !strings.Contains(err.Error(), "%nosuch") {
		t.Errorf("error text:\n%v", err)
	}
	if je.Err.Name != "CUDA_ERROR_INVALID_PTX" {
		t.Errorf("result %s", je.Err.Name)
	}
}

// TestLaunchFault runs a kernel that stores through a null pointer in a
// child process (a fault makes CUDA unusable for the rest of a process)
// and checks the error the child reports.
func TestLaunchFault(t *testing.T) {
	if os.Getenv("TCSIM_GPU_FAULT_CHILD") == "1" {
		d := openOrSkip(t)
		l := mkLaunch(t, "fault", "1", "1", "u64:0")
		_, err := d.Run("fault.ptx", readPTX(t, "fault.ptx"), l, RunOptions{})
		var ce *Error
		if !errors.As(err, &ce) || !ce.Sticky() || ce.Kernel != "fault" {
			t.Fatalf("fault: %#v", err)
		}
		fmt.Println("FAULT:", err)
		_, err = d.Alloc(16)
		fmt.Println("AFTER:", err)
		return
	}
	openOrSkip(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLaunchFault$", "-test.v")
	cmd.Env = append(os.Environ(), "TCSIM_GPU_FAULT_CHILD=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	for _, want := range []string{
		"FAULT: kernel fault: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered",
		"AFTER: the GPU context is unusable after an earlier fault",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q", want)
		}
	}
}
