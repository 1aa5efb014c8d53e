package gpu

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

func TestNoDriver(t *testing.T) {
	check := func(t *testing.T, err error, lib string) {
		t.Helper()
		if err == nil {
			t.Fatal("opening a missing library succeeded")
		}
		if err.Error() != "no NVIDIA driver found (libcuda.so.1)" {
			t.Errorf("message %q", err.Error())
		}
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("errors.Is(err, ErrNoDriver) is false for %#v", err)
		}
		var nd *NoDriverError
		if !errors.As(err, &nd) || !strings.Contains(nd.Detail(), lib) {
			t.Errorf("detail does not name %s: %#v", lib, err)
		}
	}
	t.Run("name", func(t *testing.T) {
		_, err := OpenLibrary("libcuda-tcsim-test-missing.so.1", 0)
		check(t, err, "libcuda-tcsim-test-missing.so.1")
	})
	t.Run("package variable", func(t *testing.T) {
		old := LibraryName
		LibraryName = "libcuda-tcsim-bogus.so.7"
		defer func() { LibraryName = old }()
		t.Setenv(LibraryEnv, "")
		_, err := Open(0)
		check(t, err, "libcuda-tcsim-bogus.so.7")
	})
	t.Run("env", func(t *testing.T) {
		t.Setenv(LibraryEnv, "/nonexistent/tcsim/libcuda.so.1")
		_, err := Open(0)
		check(t, err, "/nonexistent/tcsim/libcuda.so.1")
	})
}

// TestSignatures binds every entry point's Go signature to some C function
// without calling it: purego checks the argument types when it registers,
// so an unsupported type would panic here rather than on a GPU machine.
func TestSignatures(t *testing.T) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Skipf("no libc.so.6 to bind against: %v", err)
	}
	addr, err := purego.Dlsym(h, "abs")
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{}
	syms := d.symbols()
	if len(syms) < 30 {
		t.Fatalf("only %d symbols", len(syms))
	}
	seen := map[string]bool{}
	for _, s := range syms {
		if seen[s.baseName()] {
			t.Errorf("%s listed twice", s.baseName())
		}
		seen[s.baseName()] = true
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: purego rejects the signature %v: %v", s.names[0], reflect.TypeOf(s.fn).Elem(), r)
				}
			}()
			purego.RegisterFunc(s.fn, addr)
		}()
	}
	purego.RegisterFunc(&d.cuGetProcAddress, addr)
	for name, fn := range map[string]any{"cuInit": d.cuInit, "cuLaunchKernel": d.cuLaunchKernel, "cuTensorMapEncodeTiled": d.cuTensorMapEncodeTiled} {
		if reflect.ValueOf(fn).IsNil() {
			t.Errorf("%s was not bound", name)
		}
	}
}

func TestABISizes(t *testing.T) {
	if got := unsafe.Sizeof(launchConfig{}); got != sizeofLaunchConfig {
		t.Errorf("launchConfig is %d bytes, CUlaunchConfig %d", got, sizeofLaunchConfig)
	}
	if got := unsafe.Sizeof(launchAttribute{}); got != sizeofLaunchAttribute {
		t.Errorf("launchAttribute is %d bytes, CUlaunchAttribute %d", got, sizeofLaunchAttribute)
	}
	if off := unsafe.Offsetof(launchConfig{}.stream); off != 32 {
		t.Errorf("hStream at %d, want 32", off)
	}
	if off := unsafe.Offsetof(launchConfig{}.numAttrs); off != 48 {
		t.Errorf("numAttrs at %d, want 48", off)
	}
	if off := unsafe.Offsetof(launchAttribute{}.value); off != 8 {
		t.Errorf("value at %d, want 8", off)
	}
	var a launchAttribute
	a.setDim3(2, 0x0102, 0x01000000)
	if want := []byte{2, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 1}; string(a.value[:12]) != string(want) {
		t.Errorf("clusterDim bytes % x", a.value[:12])
	}
}

func TestAlignedBytes(t *testing.T) {
	for _, n := range []int{1, 8, 128, 1000} {
		for _, al := range []int{1, 16, 64, 256} {
			b := alignedBytes(n, al)
			if len(b) != n || cap(b) != n {
				t.Errorf("alignedBytes(%d, %d): len %d cap %d", n, al, len(b), cap(b))
			}
			if p := uintptr(unsafe.Pointer(&b[0])); p%uintptr(al) != 0 {
				t.Errorf("alignedBytes(%d, %d) at %#x", n, al, p)
			}
		}
	}
}

func TestGoString(t *testing.T) {
	b := []byte("CUDA_ERROR_INVALID_PTX\x00junk")
	if s := goString(&b[0]); s != "CUDA_ERROR_INVALID_PTX" {
		t.Errorf("goString = %q", s)
	}
	if goString(nil) != "" {
		t.Error("goString(nil) not empty")
	}
}

func TestParseNVRMVersion(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Oct 30 2025\nGCC version:  gcc version 12.3.0\n", "580.159.04"},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023\n", "535.54.03"},
		{"NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.90 Fri\n", "550.90"},
		{"garbage", ""},
	} {
		if got := parseNVRMVersion(c.in); got != c.want {
			t.Errorf("parseNVRMVersion(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Func: "cuCtxSynchronize", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS", Desc: "an illegal memory access was encountered", Kernel: "fault"}
	want := "kernel fault: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered"
	if e.Error() != want || !e.Sticky() {
		t.Errorf("got %q sticky=%v", e.Error(), e.Sticky())
	}
	if (&Error{Code: 1}).Sticky() {
		t.Error("CUDA_ERROR_INVALID_VALUE is not sticky")
	}
}

func TestSymbolTableNames(t *testing.T) {
	// Entry points whose API name the CUDA headers map to a versioned ABI
	// symbol must be bound by that versioned name.
	want := map[string]string{
		"cuMemAlloc": "cuMemAlloc_v2", "cuMemFree": "cuMemFree_v2", "cuMemcpyHtoD": "cuMemcpyHtoD_v2",
		"cuMemcpyDtoH": "cuMemcpyDtoH_v2", "cuMemsetD8": "cuMemsetD8_v2", "cuDeviceTotalMem": "cuDeviceTotalMem_v2",
		"cuDevicePrimaryCtxRelease": "cuDevicePrimaryCtxRelease_v2", "cuEventDestroy": "cuEventDestroy_v2",
		"cuEventElapsedTime": "cuEventElapsedTime_v2",
	}
	for _, s := range (&driver{}).symbols() {
		if v, ok := want[s.baseName()]; ok {
			if s.names[0] != v {
				t.Errorf("%s bound as %s, want %s", s.baseName(), s.names[0], v)
			}
			delete(want, s.baseName())
		}
	}
	for k := range want {
		t.Errorf("%s missing from the symbol table", k)
	}
}

func TestVMMABISizes(t *testing.T) {
	if got := unsafe.Sizeof(memAllocationProp{}); got != sizeofMemAllocationProp {
		t.Errorf("memAllocationProp is %d bytes, CUmemAllocationProp %d", got, sizeofMemAllocationProp)
	}
	if got := unsafe.Sizeof(memAccessDesc{}); got != sizeofMemAccessDesc {
		t.Errorf("memAccessDesc is %d bytes, CUmemAccessDesc %d", got, sizeofMemAccessDesc)
	}
	if off := unsafe.Offsetof(memAllocationProp{}.win32); off != 16 {
		t.Errorf("win32HandleMetaData at %d, want 16", off)
	}
}
