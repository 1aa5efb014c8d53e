package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/tcsim/tcsim/launch"
)

// Output is the contents of one buffer after a run.
type Output struct {
	Index int    // the parameter's index (extra buffers follow the parameters)
	Name  string // its name (the launch's, else the declared one)
	Data  []byte
}

// Result is what Run reports.
type Result struct {
	Kernel  string
	Binding *launch.Binding
	Attrs   FuncAttrs
	JITLog  string        // the JIT's info log, as ptxas wrote it
	JITMS   float32       // the JIT's wall time
	Elapsed time.Duration // the kernel's time between CUDA events
	Outputs []Output      // the launch's outputs, or every buffer when it lists none
	// ParamSizesChecked says that the driver's parameter sizes
	// (cuFuncGetParamInfo, CUDA 12.4+) were compared with the PTX
	// declarations and agreed.
	ParamSizesChecked bool
	// DriverParamOffsets are the driver's offsets of the parameters, where
	// it reports them. They match Binding's packed offsets except for
	// parameters aligned to more than 16 bytes: on sm_90 the parameter
	// area starts at constant-bank offset 0x210, so a 64-byte aligned
	// tensor map declared first lands at offset 48.
	DriverParamOffsets []int
}

// Output returns the output named ref (a name or an index).
func (r *Result) Output(ref string) (*Output, error) {
	i, err := r.Binding.Resolve(ref)
	if err != nil {
		return nil, err
	}
	for k := range r.Outputs {
		if r.Outputs[k].Index == i {
			return &r.Outputs[k], nil
		}
	}
	return nil, fmt.Errorf("parameter %s was not read back", ref)
}

// RunOptions tune Run.
type RunOptions struct {
	JIT JITOptions
	// AllBuffers reads back every buffer, whatever the launch lists.
	AllBuffers bool
}

// Run JIT-compiles ptx (name is its file name, for messages), launches the
// kernel the launch describes once, waits for it, and reads back the
// output buffers. It is the whole of `tcsim gpu run` and what probe
// generators call: hand it a PTX module and a launch whose buffers carry
// their inputs (in Data, in files, or as generators) and get the outputs.
//
// Buffers are allocated and initialized (those with addr= at their
// address, see AllocPlaced), tensor maps are encoded against their
// buffer's address, the dynamic shared memory limit is raised when
// the launch asks for more than 48 KB, and clusters of more than 8 CTAs
// are allowed. Everything is freed before Run returns. A fault in the
// kernel returns an *Error naming the kernel; such an error is sticky (see
// Error.Sticky) and the device is unusable for the rest of the process.
func (d *Device) Run(name string, ptx []byte, l *launch.Launch, opt RunOptions) (*Result, error) {
	kernel, err := launch.ParseKernel(name, ptx, l.Kernel)
	if err != nil {
		return nil, err
	}
	b, err := l.Bind(kernel)
	if err != nil {
		return nil, err
	}
	res := &Result{Kernel: kernel.Name, Binding: b}
	// Host-side contents first: bad input files fail before the GPU works.
	contents, placements, err := hostContents(b)
	if err != nil {
		return nil, err
	}

	mod, err := d.LoadPTX(name, ptx, opt.JIT)
	if err != nil {
		return nil, err
	}
	defer mod.Unload()
	res.JITLog, res.JITMS = mod.InfoLog, mod.WallMS
	fn, err := mod.Function(kernel.Name)
	if err != nil {
		return nil, err
	}
	res.Attrs = fn.Attrs
	if res.DriverParamOffsets, res.ParamSizesChecked, err = d.checkParamSizes(fn, b); err != nil {
		return nil, err
	}
	if err := d.configure(fn, kernel.Name, l); err != nil {
		return nil, err
	}

	bufs := make([]*Buffer, len(b.Slots()))
	defer func() {
		for _, buf := range bufs {
			if buf != nil {
				buf.Free()
			}
		}
	}()
	args, err := d.upload(b, contents, placements, bufs)
	if err != nil {
		return nil, err
	}
	cfg := LaunchConfig{Grid: l.Grid, Block: l.Block, Cluster: l.Cluster, SharedMem: l.SharedMem, Args: args}
	if res.Elapsed, err = d.timedLaunch(fn, cfg, kernel.Name); err != nil {
		return nil, err
	}

	slots := b.Slots()
	idx := b.OutputIndices()
	if opt.AllBuffers {
		idx = b.BufferIndices()
	}
	for _, i := range idx {
		data, err := bufs[i].Bytes()
		if err != nil {
			return nil, fmt.Errorf("reading back %s: %w", slots[i].Label(), err)
		}
		res.Outputs = append(res.Outputs, Output{Index: i, Name: slots[i].Name, Data: data})
	}
	return res, nil
}

// hostContents reads every buffer's contents (slots are the kernel's
// parameters followed by the extra buffers) and the placed buffers, and
// checks that each tensor map lies inside its buffer.
func hostContents(b *launch.Binding) (contents [][]byte, placements []launch.Placement, err error) {
	slots := b.Slots()
	contents = make([][]byte, len(slots))
	for i, p := range slots {
		if p.Param.Kind == launch.BufferParam {
			if contents[i], err = p.Param.Contents(); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p.Label(), err)
			}
		}
	}
	if placements, err = b.Placements(); err != nil {
		return nil, nil, err
	}
	for _, p := range b.Params {
		if m := p.Param.TMap; m != nil {
			j, _ := b.Resolve(m.Buffer)
			if end := m.End(); end > uint64(len(contents[j])) {
				return nil, nil, fmt.Errorf("param %s: the tensor map spans bytes [%d, %d) of buffer %s, which has %d bytes",
					p.Label(), m.Offset, end, slots[j].Label(), len(contents[j]))
			}
		}
	}
	return contents, placements, nil
}

// configure raises the function's dynamic shared memory limit when the
// launch asks for more than 48 KB, and allows clusters of more than 8
// CTAs.
func (d *Device) configure(fn *Function, kernel string, l *launch.Launch) error {
	if need := l.SharedMem + fn.Attrs.StaticShared; l.SharedMem > 0 && need > defaultDynamicSharedLimit {
		if limit := d.Info.SharedPerBlockOptin; need > limit {
			return fmt.Errorf("kernel %s: %d bytes of dynamic shared memory + %d static = %d exceed the device's %d per block",
				kernel, l.SharedMem, fn.Attrs.StaticShared, need, limit)
		}
		if err := fn.SetMaxDynamicSharedMemory(l.SharedMem); err != nil {
			return err
		}
	}
	if l.Cluster.Count() > 8 {
		if err := fn.AllowNonPortableClusterSize(); err != nil {
			return err
		}
	}
	return nil
}

// upload allocates the buffers into bufs (placed buffers first, so that
// no ordinary allocation takes their addresses), writes their contents,
// and returns the kernel's arguments, tensor maps encoded against their
// buffer's address.
func (d *Device) upload(b *launch.Binding, contents [][]byte, placements []launch.Placement, bufs []*Buffer) ([][]byte, error) {
	if len(placements) > 0 {
		req := make([]Placement, len(placements))
		for k, pl := range placements {
			req[k] = Placement{Addr: pl.Addr, Size: pl.Size}
		}
		placed, err := d.AllocPlaced(req)
		if err != nil {
			return nil, fmt.Errorf("placing the buffers at their addr=: %w", err)
		}
		for k, pl := range placements {
			bufs[pl.Slot] = placed[k]
		}
	}
	args := make([][]byte, len(b.Params))
	for i, p := range b.Slots() {
		switch p.Param.Kind {
		case launch.BufferParam:
			if bufs[i] == nil {
				var err error
				if bufs[i], err = d.Alloc(len(contents[i])); err != nil {
					return nil, fmt.Errorf("%s: %w", p.Label(), err)
				}
			}
			if err := bufs[i].Write(contents[i]); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Label(), err)
			}
			if !p.Extra {
				args[i] = binary.LittleEndian.AppendUint64(nil, bufs[i].Ptr)
			}
		case launch.ScalarParam, launch.BytesParam, launch.NullParam:
			args[i] = p.Param.ScalarBytes()
		}
	}
	for i, p := range b.Params {
		if m := p.Param.TMap; m != nil {
			j, _ := b.Resolve(m.Buffer)
			tm, err := d.EncodeTiled(m, bufs[j].Ptr)
			if err != nil {
				return nil, fmt.Errorf("param %s: %w", p.Label(), err)
			}
			args[i] = tm[:]
		}
	}
	return args, nil
}

// timedLaunch launches fn between two events, waits for it and returns
// the time between the events. A fault is an *Error naming the kernel.
func (d *Device) timedLaunch(fn *Function, cfg LaunchConfig, kernel string) (time.Duration, error) {
	start, err := d.NewEvent()
	if err != nil {
		return 0, err
	}
	defer start.Destroy()
	stop, err := d.NewEvent()
	if err != nil {
		return 0, err
	}
	defer stop.Destroy()
	if err := start.Record(); err != nil {
		return 0, err
	}
	if err := fn.Launch(cfg); err != nil {
		return 0, err
	}
	if err := stop.Record(); err != nil {
		return 0, err
	}
	if err := d.Synchronize(); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Kernel = kernel
		}
		return 0, err
	}
	return stop.Since(start)
}

// checkParamSizes compares the driver's parameter sizes with the PTX
// declarations, where the driver can report them, and returns the driver's
// offsets.
func (d *Device) checkParamSizes(fn *Function, b *launch.Binding) ([]int, bool, error) {
	offs, sizes, ok, err := fn.ParamLayout(len(b.Params))
	if err != nil || !ok {
		return nil, false, err
	}
	for i, p := range b.Params {
		if sizes[i] != p.Decl.Size {
			return nil, false, fmt.Errorf("kernel %s, param %s: the driver says %d bytes, the PTX declaration %s %d",
				fn.Name, p.Label(), sizes[i], p.Decl.Decl(), p.Decl.Size)
		}
	}
	return offs, true, nil
}
