package gpu

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ebitengine/purego"
)

// CUdevice_attribute values used by Info.
const (
	attrMaxThreadsPerBlock      = 1
	attrMaxSharedPerBlock       = 8
	attrWarpSize                = 10
	attrMaxRegistersPerBlock    = 12
	attrClockRate               = 13
	attrMultiprocessorCount     = 16
	attrPCIBusID                = 33
	attrPCIDeviceID             = 34
	attrMemoryClockRate         = 36
	attrGlobalMemoryBusWidth    = 37
	attrL2CacheSize             = 38
	attrMaxThreadsPerSM         = 39
	attrPCIDomainID             = 50
	attrComputeCapabilityMajor  = 75
	attrComputeCapabilityMinor  = 76
	attrMaxSharedPerSM          = 81
	attrMaxRegistersPerSM       = 82
	attrMaxSharedPerBlockOptin  = 97
	attrReservedSharedPerBlock  = 111
	attrClusterLaunch           = 120
	defaultDynamicSharedLimit   = 48 * 1024
	cuEventDefault              = 0
	cuFuncAttrMaxDynamicShared  = 8
	cuFuncAttrNonPortableClster = 14
)

// Info describes a GPU and its driver.
type Info struct {
	Ordinal       int
	Name          string // e.g. "NVIDIA H100 80GB HBM3"
	Major, Minor  int    // compute capability
	CUDAVersion   int    // the driver's CUDA version, e.g. 13000
	DriverVersion string // the kernel driver's version, e.g. "580.159.04" ("" if unknown)
	Library       string // the driver library that was loaded

	SMCount              int
	ClockKHz             int // 0 where the driver no longer reports it
	MemoryClockKHz       int
	MemoryBusWidth       int // bits
	TotalMemory          uint64
	L2Bytes              int
	SharedPerBlock       int // bytes a block gets without opting in
	SharedPerBlockOptin  int // bytes a block may get with the opt-in attribute
	SharedPerSM          int
	ReservedSharedPerCTA int // shared memory the system reserves per block
	RegistersPerBlock    int
	RegistersPerSM       int
	MaxThreadsPerBlock   int
	MaxThreadsPerSM      int
	WarpSize             int
	ClusterLaunch        bool
	PCIBusID             string // "0000:01:00.0"
}

// Arch returns the target name of the compute capability, e.g. "sm_90".
// Architecture-specific targets (sm_90a) run on the same devices.
func (i Info) Arch() string { return fmt.Sprintf("sm_%d%d", i.Major, i.Minor) }

// CUDA returns the driver's CUDA version as "13.0".
func (i Info) CUDA() string { return fmt.Sprintf("%d.%d", i.CUDAVersion/1000, i.CUDAVersion%1000/10) }

// Device is an open GPU with its primary context. Its methods may be
// called from any goroutine: each call makes the context current on the
// calling OS thread, under a lock.
type Device struct {
	Info Info

	drv    *driver
	dev    int32
	ctx    uintptr
	mu     sync.Mutex
	closed bool
	broken error // the sticky error that made the context unusable
}

// Open loads the driver (LibraryName, or $TCSIM_LIBCUDA) and opens GPU
// ordinal with its primary context.
func Open(ordinal int) (*Device, error) {
	return OpenLibrary(libraryName(), ordinal)
}

// OpenLibrary is Open with an explicit driver library name or path.
//
// Unless CUDA_CACHE_DISABLE is already set, it sets it to 1 before the
// driver initializes: the driver's JIT cache (~/.nv/ComputeCache) would
// otherwise skip ptxas for a PTX module it has seen before, and with it
// the info log that carries ptxas's advisories.
func OpenLibrary(lib string, ordinal int) (*Device, error) {
	drv, err := loadDriver(lib)
	if err != nil {
		return nil, err
	}
	if _, set := os.LookupEnv("CUDA_CACHE_DISABLE"); !set {
		os.Setenv("CUDA_CACHE_DISABLE", "1")
	}
	if err := drv.check(drv.cuInit(0), "cuInit"); err != nil {
		var ce *Error
		if errors.As(err, &ce) && (ce.Code == 100 || ce.Code == 101) { // NO_DEVICE, INVALID_DEVICE
			return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
		}
		return nil, err
	}
	var n int32
	if err := drv.check(drv.cuDeviceGetCount(&n), "cuDeviceGetCount"); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNoDevice
	}
	if ordinal < 0 || ordinal >= int(n) {
		return nil, fmt.Errorf("GPU %d does not exist (the driver reports %d)", ordinal, n)
	}
	d := &Device{drv: drv}
	if err := drv.check(drv.cuDeviceGet(&d.dev, int32(ordinal)), "cuDeviceGet"); err != nil {
		return nil, err
	}
	if err := drv.check(drv.cuDevicePrimaryCtxRetain(&d.ctx, d.dev), "cuDevicePrimaryCtxRetain"); err != nil {
		return nil, err
	}
	if err := d.readInfo(ordinal); err != nil {
		drv.cuDevicePrimaryCtxRelease(d.dev)
		return nil, err
	}
	return d, nil
}

func (d *Device) readInfo(ordinal int) error {
	drv := d.drv
	i := &d.Info
	i.Ordinal, i.Library = ordinal, drv.library
	name := make([]byte, 256)
	if err := drv.check(drv.cuDeviceGetName(&name[0], int32(len(name)), d.dev), "cuDeviceGetName"); err != nil {
		return err
	}
	i.Name = strings.TrimRight(string(name[:max(0, strings.IndexByte(string(name), 0))]), " ")
	var v int32
	if err := drv.check(drv.cuDriverGetVersion(&v), "cuDriverGetVersion"); err != nil {
		return err
	}
	i.CUDAVersion = int(v)
	if err := drv.check(drv.cuDeviceTotalMem(&i.TotalMemory, d.dev), "cuDeviceTotalMem"); err != nil {
		return err
	}
	attrs := []struct {
		attr     int32
		dst      *int
		required bool
	}{
		{attrComputeCapabilityMajor, &i.Major, true},
		{attrComputeCapabilityMinor, &i.Minor, true},
		{attrMultiprocessorCount, &i.SMCount, true},
		{attrMaxSharedPerBlock, &i.SharedPerBlock, true},
		{attrMaxSharedPerBlockOptin, &i.SharedPerBlockOptin, true},
		{attrMaxSharedPerSM, &i.SharedPerSM, true},
		{attrReservedSharedPerBlock, &i.ReservedSharedPerCTA, false},
		{attrClockRate, &i.ClockKHz, false},
		{attrMemoryClockRate, &i.MemoryClockKHz, false},
		{attrGlobalMemoryBusWidth, &i.MemoryBusWidth, false},
		{attrL2CacheSize, &i.L2Bytes, false},
		{attrMaxRegistersPerBlock, &i.RegistersPerBlock, false},
		{attrMaxRegistersPerSM, &i.RegistersPerSM, false},
		{attrMaxThreadsPerBlock, &i.MaxThreadsPerBlock, true},
		{attrMaxThreadsPerSM, &i.MaxThreadsPerSM, false},
		{attrWarpSize, &i.WarpSize, false},
	}
	for _, a := range attrs {
		var x int32
		if err := drv.check(drv.cuDeviceGetAttribute(&x, a.attr, d.dev), "cuDeviceGetAttribute"); err != nil {
			if a.required {
				return fmt.Errorf("attribute %d: %w", a.attr, err)
			}
			continue
		}
		*a.dst = int(x)
	}
	var cl, dom, bus, dev int32
	if drv.cuDeviceGetAttribute(&cl, attrClusterLaunch, d.dev) == 0 {
		i.ClusterLaunch = cl != 0
	}
	if drv.cuDeviceGetAttribute(&dom, attrPCIDomainID, d.dev) == 0 &&
		drv.cuDeviceGetAttribute(&bus, attrPCIBusID, d.dev) == 0 &&
		drv.cuDeviceGetAttribute(&dev, attrPCIDeviceID, d.dev) == 0 {
		i.PCIBusID = fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, dev)
	}
	i.DriverVersion = kernelDriverVersion()
	return nil
}

// kernelDriverVersion reads the NVIDIA kernel module's version from
// /proc/driver/nvidia/version, else asks NVML.
func kernelDriverVersion() string {
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		if v := parseNVRMVersion(string(b)); v != "" {
			return v
		}
	}
	return nvmlDriverVersion()
}

var nvrmVersion = regexp.MustCompile(`(?m)^NVRM version:.*?\s(\d+\.\d+(?:\.\d+)?)\s`)

// parseNVRMVersion extracts "580.159.04" from /proc/driver/nvidia/version.
func parseNVRMVersion(s string) string {
	if m := nvrmVersion.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// nvmlDriverVersion asks libnvidia-ml for the driver version; "" if it
// cannot.
func nvmlDriverVersion() string {
	h, err := purego.Dlopen("libnvidia-ml.so.1", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return ""
	}
	var initFn func() int32
	var versionFn func(buf *byte, n uint32) int32
	var shutdownFn func() int32
	for _, s := range []struct {
		fn   any
		name string
	}{{&initFn, "nvmlInit_v2"}, {&versionFn, "nvmlSystemGetDriverVersion"}, {&shutdownFn, "nvmlShutdown"}} {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			return ""
		}
		purego.RegisterFunc(s.fn, addr)
	}
	if initFn() != 0 {
		return ""
	}
	defer shutdownFn()
	buf := make([]byte, 96)
	if versionFn(&buf[0], uint32(len(buf))) != 0 {
		return ""
	}
	return goString(&buf[0])
}

// call runs fn with the device's context current on a locked OS thread.
func (d *Device) call(fn func(drv *driver) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("gpu: device is closed")
	}
	if d.broken != nil {
		return fmt.Errorf("the GPU context is unusable after an earlier fault (%v); CUDA needs a new process", d.broken)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.drv.check(d.drv.cuCtxSetCurrent(d.ctx), "cuCtxSetCurrent"); err != nil {
		return err
	}
	err := fn(d.drv)
	var ce *Error
	if errors.As(err, &ce) && ce.Sticky() {
		d.broken = err
	}
	return err
}

// Broken returns the sticky error after which the device cannot be used
// in this process, or nil.
func (d *Device) Broken() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.broken
}

// Synchronize waits for all work on the device and returns the first
// error of an asynchronous operation (a kernel's fault, say).
func (d *Device) Synchronize() error {
	return d.call(func(drv *driver) error {
		return drv.check(drv.cuCtxSynchronize(), "cuCtxSynchronize")
	})
}

// Close releases the primary context.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	return d.drv.check(d.drv.cuDevicePrimaryCtxRelease(d.dev), "cuDevicePrimaryCtxRelease")
}

// Bindings lists how each driver entry point was bound: "cuMemAlloc:
// cuMemAlloc_v2 (dlsym)", sorted. Optional entry points the driver lacks
// are listed as absent.
func (d *Device) Bindings() []string {
	var out []string
	for k, v := range d.drv.bound {
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return out
}
