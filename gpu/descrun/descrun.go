// Package descrun runs the descriptor probe of package desc on a GPU: it is
// the only part of the descriptor work that needs one. desc builds the
// probe and checks the output without a GPU.
package descrun

import (
	"encoding/binary"
	"fmt"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/launch"
)

// Run JIT-compiles the probe, runs every case and returns the output
// buffer for desc.Probe.Check. After an error it returns the output of the
// cases that ran (the rest poisoned) with the error.
func Run(dev *gpu.Device, p *desc.Probe) ([]byte, error) {
	if dev.Info.Major != 9 {
		return nil, fmt.Errorf("the descriptor probe needs an sm_90 GPU (wgmma); this is %s (%s)", dev.Info.Name, dev.Info.Arch())
	}
	mod, err := dev.LoadPTX("desc_probe.ptx", []byte(p.PTX), gpu.JITOptions{})
	if err != nil {
		return nil, err
	}
	defer mod.Unload()
	var bufs []*gpu.Buffer
	defer func() {
		for _, b := range bufs {
			b.Free()
		}
	}()
	alloc := func(data []byte, n int) (*gpu.Buffer, error) {
		b, err := dev.Alloc(max(n, 256))
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, b)
		if data != nil {
			err = b.Write(data)
		} else {
			// Poison: an element the kernel never writes cannot pass.
			err = b.Memset(0xa5)
		}
		return b, err
	}
	images, err := alloc(p.Images, len(p.Images))
	if err != nil {
		return nil, err
	}
	descs, err := alloc(p.Descs, len(p.Descs))
	if err != nil {
		return nil, err
	}
	out, err := alloc(nil, p.OutputBytes())
	if err != nil {
		return nil, err
	}
	// One launch per case, in order, reading the results back after each:
	// a case the hardware traps on (a descriptor outside the ISA's rules
	// may) kills the context, and the cases before it are kept.
	got := make([]byte, p.OutputBytes())
	copy(got, poison(p.OutputBytes()))
	rec := p.OutputBytes() / p.Jobs()
	for i, c := range p.Cases {
		trans := 0
		if c.Major == desc.MajorMN {
			trans = 1
		}
		fn, err := mod.Function(p.Kernel[trans])
		if err != nil {
			return got, err
		}
		ids := make([]byte, 8)
		binary.LittleEndian.PutUint32(ids, uint32(2*i))
		binary.LittleEndian.PutUint32(ids[4:], uint32(2*i+1))
		jb, err := alloc(ids, len(ids))
		if err != nil {
			return got, err
		}
		err = fn.Launch(gpu.LaunchConfig{
			Grid: launch.Dim3{2, 1, 1}, Block: launch.Dim3{128, 1, 1},
			Args: [][]byte{addr(images), addr(descs), addr(out), addr(jb)},
		})
		if err == nil {
			err = dev.Synchronize()
		}
		if err != nil {
			return got, fmt.Errorf("case %s: %w (the cases after it did not run)", c.Name, err)
		}
		all := make([]byte, p.OutputBytes())
		if err := out.Read(all); err != nil {
			return got, err
		}
		copy(got[2*i*rec:(2*i+2)*rec], all[2*i*rec:(2*i+2)*rec])
	}
	return got, nil
}

func poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xa5
	}
	return b
}

func addr(b *gpu.Buffer) []byte {
	a := make([]byte, 8)
	binary.LittleEndian.PutUint64(a, b.Ptr)
	return a
}
