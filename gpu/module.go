package gpu

import (
	"fmt"
	"math"
	"strings"
)

// CUjit_option values.
const (
	jitMaxRegisters      = 0
	jitWallTime          = 2
	jitInfoLogBuffer     = 3
	jitInfoLogBufferSize = 4
	jitErrorLogBuffer    = 5
	jitErrorLogSize      = 6
	jitLogVerbose        = 12
	jitGenerateLineInfo  = 13
	jitLogBytes          = 1 << 16
)

// JITOptions tune the PTX JIT.
type JITOptions struct {
	MaxRegisters int  // 0: the JIT's choice
	LineInfo     bool // generate line information (for profilers)
}

// Module is a loaded PTX module.
type Module struct {
	Name    string  // the PTX file's name, for messages
	InfoLog string  // the JIT's info log (ptxas -v output and advisories such as C7515)
	WallMS  float32 // the JIT's wall time in milliseconds

	dev *Device
	h   uintptr
	src []byte
}

// LoadPTX JIT-compiles PTX for the device (cuModuleLoadDataEx, with
// verbose info and error logs). name is used in messages. On failure the
// error is a *JITError whose text maps ptxas's line numbers to name:line.
func (d *Device) LoadPTX(name string, ptx []byte, opt JITOptions) (*Module, error) {
	m := &Module{Name: name, dev: d, src: ptx}
	image := append(append([]byte(nil), ptx...), 0)
	info := make([]byte, jitLogBytes)
	elog := make([]byte, jitLogBytes)
	var pn pinner
	defer pn.unpin()
	opts := []int32{jitInfoLogBuffer, jitInfoLogBufferSize, jitErrorLogBuffer, jitErrorLogSize, jitLogVerbose, jitWallTime}
	vals := []uintptr{pn.addr(info), uintptr(len(info)), pn.addr(elog), uintptr(len(elog)), 1, 0}
	if opt.MaxRegisters > 0 {
		opts = append(opts, jitMaxRegisters)
		vals = append(vals, uintptr(opt.MaxRegisters))
	}
	if opt.LineInfo {
		opts = append(opts, jitGenerateLineInfo)
		vals = append(vals, 1)
	}
	var r cuResult
	err := d.call(func(drv *driver) error {
		r = drv.cuModuleLoadDataEx(&m.h, &image[0], uint32(len(opts)), &opts[0], pn.ptrs(vals))
		return nil
	})
	if err != nil {
		return nil, err
	}
	logText := func(b []byte, n uintptr) string {
		n = min(n, uintptr(len(b)))
		s := string(b[:n])
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return strings.TrimRight(s, "\n")
	}
	m.InfoLog = logText(info, vals[1])
	m.WallMS = math.Float32frombits(uint32(vals[5]))
	if r != 0 {
		return nil, &JITError{Name: name, Err: d.drv.check(r, "cuModuleLoadDataEx").(*Error), Log: logText(elog, vals[3]), InfoLog: m.InfoLog, src: ptx}
	}
	return m, nil
}

// Unload unloads the module.
func (m *Module) Unload() error {
	if m.h == 0 {
		return nil
	}
	err := m.dev.call(func(drv *driver) error { return drv.check(drv.cuModuleUnload(m.h), "cuModuleUnload") })
	m.h = 0
	return err
}

// FormattedInfoLog is the info log with PTX line numbers mapped to
// Name:line.
func (m *Module) FormattedInfoLog() string { return FormatJITLog(m.Name, m.src, m.InfoLog) }

// CUfunction_attribute values.
const (
	funcAttrMaxThreads    = 0
	funcAttrSharedSize    = 1
	funcAttrConstSize     = 2
	funcAttrLocalSize     = 3
	funcAttrNumRegs       = 4
	funcAttrPTXVersion    = 5
	funcAttrBinaryVersion = 6
)

// FuncAttrs are what the driver reports about a compiled kernel.
type FuncAttrs struct {
	Registers          int // per thread
	StaticShared       int // bytes of statically declared shared memory
	Local              int // bytes of local memory per thread (spills, stack)
	Const              int // bytes of user constant memory
	MaxThreadsPerBlock int
	PTXVersion         int // the virtual architecture of the PTX, e.g. 90 for .target sm_90a
	BinaryVersion      int // the architecture of the machine code, e.g. 90 for sm_90
}

// Map returns the attributes by name, for provenance records.
func (a FuncAttrs) Map() map[string]int {
	return map[string]int{"registers": a.Registers, "static_shared_bytes": a.StaticShared, "local_bytes": a.Local,
		"const_bytes": a.Const, "max_threads_per_block": a.MaxThreadsPerBlock, "ptx_version": a.PTXVersion, "binary_version": a.BinaryVersion}
}

// Function is a kernel of a loaded module.
type Function struct {
	Name  string
	Attrs FuncAttrs
	mod   *Module
	h     uintptr
}

// Function looks up a kernel by its .entry name.
func (m *Module) Function(name string) (*Function, error) {
	f := &Function{Name: name, mod: m}
	err := m.dev.call(func(drv *driver) error {
		if err := drv.check(drv.cuModuleGetFunction(&f.h, m.h, name), "cuModuleGetFunction"); err != nil {
			return fmt.Errorf("%s: kernel %q: %w", m.Name, name, err)
		}
		for _, a := range []struct {
			attr int32
			dst  *int
		}{{funcAttrNumRegs, &f.Attrs.Registers}, {funcAttrSharedSize, &f.Attrs.StaticShared}, {funcAttrLocalSize, &f.Attrs.Local},
			{funcAttrConstSize, &f.Attrs.Const}, {funcAttrMaxThreads, &f.Attrs.MaxThreadsPerBlock},
			{funcAttrPTXVersion, &f.Attrs.PTXVersion}, {funcAttrBinaryVersion, &f.Attrs.BinaryVersion}} {
			var v int32
			if err := drv.check(drv.cuFuncGetAttribute(&v, a.attr, f.h), "cuFuncGetAttribute"); err != nil {
				return fmt.Errorf("kernel %s: %w", name, err)
			}
			*a.dst = int(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// SetMaxDynamicSharedMemory raises (or lowers) the dynamic shared memory a
// launch may request; above 48 KB the kernel must opt in this way.
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	return f.mod.dev.call(func(drv *driver) error {
		if err := drv.check(drv.cuFuncSetAttribute(f.h, cuFuncAttrMaxDynamicShared, int32(bytes)), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"); err != nil {
			err.(*Error).Kernel = f.Name
			return err
		}
		return nil
	})
}

// AllowNonPortableClusterSize lets the kernel launch with clusters of more
// than 8 CTAs.
func (f *Function) AllowNonPortableClusterSize() error {
	return f.mod.dev.call(func(drv *driver) error {
		if err := drv.check(drv.cuFuncSetAttribute(f.h, cuFuncAttrNonPortableClster, 1), "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)"); err != nil {
			err.(*Error).Kernel = f.Name
			return err
		}
		return nil
	})
}

// ParamLayout returns the driver's offset and size of each parameter
// (cuFuncGetParamInfo, CUDA 12.4+). ok is false where the driver lacks it.
func (f *Function) ParamLayout(n int) (offsets, sizes []int, ok bool, err error) {
	if f.mod.dev.drv.cuFuncGetParamInfo == nil {
		return nil, nil, false, nil
	}
	err = f.mod.dev.call(func(drv *driver) error {
		for i := 0; i < n; i++ {
			var off, size uint64
			if err := drv.check(drv.cuFuncGetParamInfo(f.h, uint64(i), &off, &size), "cuFuncGetParamInfo"); err != nil {
				return fmt.Errorf("kernel %s, param %d: %w", f.Name, i, err)
			}
			offsets, sizes = append(offsets, int(off)), append(sizes, int(size))
		}
		return nil
	})
	return offsets, sizes, err == nil, err
}
