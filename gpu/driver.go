package gpu

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/ebitengine/purego"
)

// LibraryName is the CUDA driver library that Open loads, by name (found
// through the dynamic loader's search path) or by path. The environment
// variable TCSIM_LIBCUDA overrides it.
var LibraryName = "libcuda.so.1"

// LibraryEnv is the environment variable that overrides LibraryName.
const LibraryEnv = "TCSIM_LIBCUDA"

// ErrNoDriver is returned (wrapped, with the loader's reason) when the
// driver library cannot be loaded. Its message is exactly the one users
// see.
var ErrNoDriver = errors.New("no NVIDIA driver found (libcuda.so.1)")

// ErrNoDevice is returned when the driver loads but reports no GPU.
var ErrNoDevice = errors.New("no NVIDIA GPU found")

// NoDriverError is the error of a failed dlopen. Its message is ErrNoDriver's;
// Detail says what the loader reported.
type NoDriverError struct {
	Library string // the name or path that was tried
	Reason  string // the loader's message
}

// Error returns ErrNoDriver's message.
func (e *NoDriverError) Error() string { return ErrNoDriver.Error() }

// Unwrap makes errors.Is(err, ErrNoDriver) hold.
func (e *NoDriverError) Unwrap() error { return ErrNoDriver }

// Detail returns the library tried and the loader's reason.
func (e *NoDriverError) Detail() string { return fmt.Sprintf("dlopen %s: %s", e.Library, e.Reason) }

// cuResult is CUresult.
type cuResult int32

// driver is the table of driver entry points, bound with purego.
type driver struct {
	library string
	handle  uintptr
	// bound records, for each entry point, the symbol that was bound and
	// how: "dlsym" or "cuGetProcAddress".
	bound map[string]string

	cuGetProcAddress              func(symbol string, pfn *uintptr, cudaVersion int32, flags uint64, status *int32) cuResult
	cuInit                        func(flags uint32) cuResult
	cuDriverGetVersion            func(v *int32) cuResult
	cuGetErrorName                func(code cuResult, s **byte) cuResult
	cuGetErrorString              func(code cuResult, s **byte) cuResult
	cuDeviceGetCount              func(n *int32) cuResult
	cuDeviceGet                   func(dev *int32, ordinal int32) cuResult
	cuDeviceGetName               func(name *byte, n int32, dev int32) cuResult
	cuDeviceGetAttribute          func(v *int32, attr int32, dev int32) cuResult
	cuDeviceTotalMem              func(bytes *uint64, dev int32) cuResult
	cuDevicePrimaryCtxRetain      func(ctx *uintptr, dev int32) cuResult
	cuDevicePrimaryCtxRelease     func(dev int32) cuResult
	cuCtxSetCurrent               func(ctx uintptr) cuResult
	cuCtxSynchronize              func() cuResult
	cuModuleLoadDataEx            func(mod *uintptr, image *byte, n uint32, opts *int32, vals *uintptr) cuResult
	cuModuleUnload                func(mod uintptr) cuResult
	cuModuleGetFunction           func(fn *uintptr, mod uintptr, name string) cuResult
	cuFuncGetAttribute            func(v *int32, attr int32, fn uintptr) cuResult
	cuFuncSetAttribute            func(fn uintptr, attr int32, v int32) cuResult
	cuFuncGetParamInfo            func(fn uintptr, index uint64, offset *uint64, size *uint64) cuResult
	cuMemAlloc                    func(p *uint64, n uint64) cuResult
	cuMemFree                     func(p uint64) cuResult
	cuMemcpyHtoD                  func(dst uint64, src *byte, n uint64) cuResult
	cuMemcpyDtoH                  func(dst *byte, src uint64, n uint64) cuResult
	cuMemsetD8                    func(dst uint64, v uint8, n uint64) cuResult
	cuLaunchKernel                func(f uintptr, gx, gy, gz, bx, by, bz, smem uint32, stream uintptr, params *uintptr, extra *uintptr) cuResult
	cuLaunchKernelEx              func(cfg *launchConfig, f uintptr, params *uintptr, extra *uintptr) cuResult
	cuTensorMapEncodeTiled        func(tm *byte, dtype uint32, rank uint32, addr uint64, dims *uint64, strides *uint64, box *uint32, estrides *uint32, interleave, swizzle, l2, oob uint32) cuResult
	cuTensorMapEncodeIm2col       func(tm *byte, dtype uint32, rank uint32, addr uint64, dims *uint64, strides *uint64, lower *int32, upper *int32, channels, pixels uint32, estrides *uint32, interleave, swizzle, l2, oob uint32) cuResult
	cuTensorMapEncodeIm2colW      func(tm *byte, dtype uint32, rank uint32, addr uint64, dims *uint64, strides *uint64, lowerW, upperW int32, channels, pixels uint32, estrides *uint32, interleave, mode, swizzle, l2, oob uint32) cuResult
	cuEventCreate                 func(ev *uintptr, flags uint32) cuResult
	cuMemGetAllocationGranularity func(g *uint64, prop *memAllocationProp, option uint32) cuResult
	cuMemAddressReserve           func(p *uint64, size, align, addr uint64, flags uint64) cuResult
	cuMemAddressFree              func(p uint64, size uint64) cuResult
	cuMemCreate                   func(h *uint64, size uint64, prop *memAllocationProp, flags uint64) cuResult
	cuMemRelease                  func(h uint64) cuResult
	cuMemMap                      func(p uint64, size, offset uint64, h uint64, flags uint64) cuResult
	cuMemUnmap                    func(p uint64, size uint64) cuResult
	cuMemSetAccess                func(p uint64, size uint64, desc *memAccessDesc, count uint64) cuResult
	cuEventRecord                 func(ev uintptr, stream uintptr) cuResult
	cuEventSynchronize            func(ev uintptr) cuResult
	cuEventElapsedTime            func(ms *float32, start, end uintptr) cuResult
	cuEventDestroy                func(ev uintptr) cuResult
}

// symbol is one entry point: the Go function variable, the exported
// names to try in order (the versioned ABI names that libcuda exports),
// the base name for cuGetProcAddress, and the CUDA version that introduced
// it (for cuGetProcAddress and for messages).
type symbol struct {
	fn       any
	names    []string
	base     string
	since    int32 // CUDA version, e.g. 12000
	optional bool
}

// symbols lists every entry point tcsim uses.
//
// The CUDA headers map API names to versioned ABI symbols by macro (e.g.
// cuMemAlloc → cuMemAlloc_v2; in CUDA 13, cuCtxCreate → cuCtxCreate_v4 and
// cuEventElapsedTime → cuEventElapsedTime_v2), and libcuda keeps exporting
// every older version for old binaries. tcsim binds the exact exported
// symbol of the ABI it was written against, so a newer driver can never
// change a signature under it; where the newest header names a newer
// symbol with the same signature it is tried first. A symbol that dlsym
// does not find is looked up through cuGetProcAddress with the base name
// and the ABI version. tcsim uses the device's primary context
// (cuDevicePrimaryCtxRetain + cuCtxSetCurrent), so cuCtxCreate, whose
// signature CUDA 13 changed, is not needed at all.
func (d *driver) symbols() []symbol {
	return []symbol{
		{fn: &d.cuInit, names: []string{"cuInit"}, since: 2000},
		{fn: &d.cuDriverGetVersion, names: []string{"cuDriverGetVersion"}, since: 2020},
		{fn: &d.cuGetErrorName, names: []string{"cuGetErrorName"}, since: 6000},
		{fn: &d.cuGetErrorString, names: []string{"cuGetErrorString"}, since: 6000},
		{fn: &d.cuDeviceGetCount, names: []string{"cuDeviceGetCount"}, since: 2000},
		{fn: &d.cuDeviceGet, names: []string{"cuDeviceGet"}, since: 2000},
		{fn: &d.cuDeviceGetName, names: []string{"cuDeviceGetName"}, since: 2000},
		{fn: &d.cuDeviceGetAttribute, names: []string{"cuDeviceGetAttribute"}, since: 2000},
		{fn: &d.cuDeviceTotalMem, names: []string{"cuDeviceTotalMem_v2"}, base: "cuDeviceTotalMem", since: 3020},
		{fn: &d.cuDevicePrimaryCtxRetain, names: []string{"cuDevicePrimaryCtxRetain"}, since: 7000},
		{fn: &d.cuDevicePrimaryCtxRelease, names: []string{"cuDevicePrimaryCtxRelease_v2"}, base: "cuDevicePrimaryCtxRelease", since: 11000},
		{fn: &d.cuCtxSetCurrent, names: []string{"cuCtxSetCurrent"}, since: 4000},
		{fn: &d.cuCtxSynchronize, names: []string{"cuCtxSynchronize"}, since: 2000},
		{fn: &d.cuModuleLoadDataEx, names: []string{"cuModuleLoadDataEx"}, since: 2010},
		{fn: &d.cuModuleUnload, names: []string{"cuModuleUnload"}, since: 2000},
		{fn: &d.cuModuleGetFunction, names: []string{"cuModuleGetFunction"}, since: 2000},
		{fn: &d.cuFuncGetAttribute, names: []string{"cuFuncGetAttribute"}, since: 2020},
		{fn: &d.cuFuncSetAttribute, names: []string{"cuFuncSetAttribute"}, since: 9000},
		{fn: &d.cuFuncGetParamInfo, names: []string{"cuFuncGetParamInfo"}, since: 12040, optional: true},
		{fn: &d.cuMemAlloc, names: []string{"cuMemAlloc_v2"}, base: "cuMemAlloc", since: 3020},
		{fn: &d.cuMemFree, names: []string{"cuMemFree_v2"}, base: "cuMemFree", since: 3020},
		{fn: &d.cuMemcpyHtoD, names: []string{"cuMemcpyHtoD_v2"}, base: "cuMemcpyHtoD", since: 3020},
		{fn: &d.cuMemcpyDtoH, names: []string{"cuMemcpyDtoH_v2"}, base: "cuMemcpyDtoH", since: 3020},
		{fn: &d.cuMemsetD8, names: []string{"cuMemsetD8_v2"}, base: "cuMemsetD8", since: 3020},
		{fn: &d.cuLaunchKernel, names: []string{"cuLaunchKernel"}, since: 4000},
		{fn: &d.cuLaunchKernelEx, names: []string{"cuLaunchKernelEx"}, since: 11060, optional: true},
		{fn: &d.cuTensorMapEncodeTiled, names: []string{"cuTensorMapEncodeTiled"}, since: 12000, optional: true},
		{fn: &d.cuTensorMapEncodeIm2col, names: []string{"cuTensorMapEncodeIm2col"}, since: 12000, optional: true},
		{fn: &d.cuTensorMapEncodeIm2colW, names: []string{"cuTensorMapEncodeIm2colWide"}, since: 12080, optional: true},
		{fn: &d.cuEventCreate, names: []string{"cuEventCreate"}, since: 2000},
		{fn: &d.cuMemGetAllocationGranularity, names: []string{"cuMemGetAllocationGranularity"}, since: 10020, optional: true},
		{fn: &d.cuMemAddressReserve, names: []string{"cuMemAddressReserve"}, since: 10020, optional: true},
		{fn: &d.cuMemAddressFree, names: []string{"cuMemAddressFree"}, since: 10020, optional: true},
		{fn: &d.cuMemCreate, names: []string{"cuMemCreate"}, since: 10020, optional: true},
		{fn: &d.cuMemRelease, names: []string{"cuMemRelease"}, since: 10020, optional: true},
		{fn: &d.cuMemMap, names: []string{"cuMemMap"}, since: 10020, optional: true},
		{fn: &d.cuMemUnmap, names: []string{"cuMemUnmap"}, since: 10020, optional: true},
		{fn: &d.cuMemSetAccess, names: []string{"cuMemSetAccess"}, since: 10020, optional: true},
		{fn: &d.cuEventRecord, names: []string{"cuEventRecord"}, since: 2000},
		{fn: &d.cuEventSynchronize, names: []string{"cuEventSynchronize"}, since: 2000},
		{fn: &d.cuEventElapsedTime, names: []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}, base: "cuEventElapsedTime", since: 2000},
		{fn: &d.cuEventDestroy, names: []string{"cuEventDestroy_v2"}, base: "cuEventDestroy", since: 4000},
	}
}

func (s symbol) baseName() string {
	if s.base != "" {
		return s.base
	}
	return s.names[0]
}

var (
	driversMu sync.Mutex
	drivers   = map[string]*driver{}
)

// libraryName returns the library to load: $TCSIM_LIBCUDA, else LibraryName.
func libraryName() string {
	if v := os.Getenv(LibraryEnv); v != "" {
		return v
	}
	return LibraryName
}

// loadDriver dlopens the library (once per name) and binds every entry
// point. A library that loads is kept for the life of the process.
func loadDriver(lib string) (*driver, error) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if d, ok := drivers[lib]; ok {
		return d, nil
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, &NoDriverError{Library: lib, Reason: err.Error()}
	}
	d := &driver{library: lib, handle: h, bound: map[string]string{}}
	if err := d.bind(); err != nil {
		purego.Dlclose(h)
		return nil, err
	}
	drivers[lib] = d
	return d, nil
}

// bind resolves every symbol: first by its exported versioned name, then
// through cuGetProcAddress.
func (d *driver) bind() error {
	for _, name := range []string{"cuGetProcAddress_v2", "cuGetProcAddress"} {
		if addr, err := purego.Dlsym(d.handle, name); err == nil && addr != 0 {
			purego.RegisterFunc(&d.cuGetProcAddress, addr)
			d.bound["cuGetProcAddress"] = name + " (dlsym)"
			break
		}
	}
	for _, s := range d.symbols() {
		addr, how := uintptr(0), ""
		for _, n := range s.names {
			if a, err := purego.Dlsym(d.handle, n); err == nil && a != 0 {
				addr, how = a, n+" (dlsym)"
				break
			}
		}
		if addr == 0 && d.cuGetProcAddress != nil {
			var p uintptr
			var status int32
			if r := d.cuGetProcAddress(s.baseName(), &p, s.since, 0, &status); r == 0 && status == 0 && p != 0 {
				addr, how = p, fmt.Sprintf("%s (cuGetProcAddress, CUDA %d)", s.baseName(), s.since)
			}
		}
		if addr == 0 {
			if s.optional {
				d.bound[s.baseName()] = "absent"
				continue
			}
			return fmt.Errorf("%s: the CUDA driver lacks %s (it appeared in CUDA %d.%d; update the NVIDIA driver)",
				d.library, s.names[0], s.since/1000, s.since%1000/10)
		}
		purego.RegisterFunc(s.fn, addr)
		d.bound[s.baseName()] = how
	}
	return nil
}

// errorName returns CUDA_ERROR_… for a result code.
func (d *driver) errorName(r cuResult) string {
	var p *byte
	if d.cuGetErrorName == nil || d.cuGetErrorName(r, &p) != 0 || p == nil {
		return fmt.Sprintf("CUDA error %d", int(r))
	}
	return goString(p)
}

func (d *driver) errorString(r cuResult) string {
	var p *byte
	if d.cuGetErrorString == nil || d.cuGetErrorString(r, &p) != 0 || p == nil {
		return ""
	}
	return goString(p)
}

// Error is a failed CUDA driver call.
type Error struct {
	Func   string // the driver function, e.g. "cuLaunchKernel"
	Code   int    // the CUresult
	Name   string // e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"
	Desc   string // the driver's description
	Kernel string // the kernel concerned, if any
}

// Error returns "cuFunc: CUDA_ERROR_NAME (code)" and the driver's description.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Func, e.Name, e.Code)
	if e.Desc != "" {
		s += ": " + e.Desc
	}
	if e.Kernel != "" {
		s = "kernel " + e.Kernel + ": " + s
	}
	return s
}

// Sticky reports whether the error leaves the context unusable: an
// exception in a kernel (illegal address, illegal instruction, misaligned
// address, …). CUDA then fails every later call of the process with the
// same error; only a new process can use the GPU again. Run work that may
// fault in a child process.
func (e *Error) Sticky() bool {
	switch e.Code {
	case 700, 702, 714, 715, 716, 717, 718, 719, 720:
		return true
	}
	return false
}

// check turns a result into an error (nil for CUDA_SUCCESS).
func (d *driver) check(r cuResult, fn string) error {
	if r == 0 {
		return nil
	}
	return &Error{Func: fn, Code: int(r), Name: d.errorName(r), Desc: d.errorString(r)}
}
