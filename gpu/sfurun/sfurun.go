// Package sfurun runs the special function unit's probe kernels on a GPU:
// the chunk-hash kernels of the verification campaigns and the kernels
// that compute an instruction on explicit operands. The kernels come from
// package sim/sfu (through the tcsim command, since gpu packages do not
// import sim); this package only moves memory and launches them.
package sfurun

import (
	"encoding/binary"
	"fmt"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/launch"
)

// Runner keeps one device and the modules it loaded.
type Runner struct {
	Dev  *gpu.Device
	mods map[string]*gpu.Function
}

// New returns a runner on dev.
func New(dev *gpu.Device) *Runner {
	return &Runner{Dev: dev, mods: map[string]*gpu.Function{}}
}

func (r *Runner) fn(name, ptx, entry string) (*gpu.Function, error) {
	if f := r.mods[name]; f != nil {
		return f, nil
	}
	m, err := r.Dev.LoadPTX(name, []byte(ptx), gpu.JITOptions{})
	if err != nil {
		return nil, err
	}
	f, err := m.Function(entry)
	if err != nil {
		return nil, err
	}
	r.mods[name] = f
	return f, nil
}

func ptrArg(b *gpu.Buffer) []byte { return binary.LittleEndian.AppendUint64(nil, b.Ptr) }

// HashKernel is a chunk-hash kernel: .entry sfu_hash(u64 hashes, u32 base,
// u64 edges), CTAs of 256 threads.
type HashKernel struct {
	Name   string // module name, for messages and caching
	PTX    string
	CTAs   int      // CTAs of the launch
	Chunks int      // chunk hashes it adds into
	Edges  []uint32 // the table behind the edges parameter
}

// Hashes runs a hash kernel once and returns the chunk hashes.
func (r *Runner) Hashes(k HashKernel) ([]uint64, error) {
	fn, err := r.fn(k.Name, k.PTX, "sfu_hash")
	if err != nil {
		return nil, err
	}
	hb, err := r.Dev.Alloc(8 * k.Chunks)
	if err != nil {
		return nil, err
	}
	defer hb.Free()
	if err := hb.Memset(0); err != nil {
		return nil, err
	}
	raw := make([]byte, 4*max(len(k.Edges), 1))
	for i, v := range k.Edges {
		binary.LittleEndian.PutUint32(raw[4*i:], v)
	}
	eb, err := r.Dev.Alloc(len(raw))
	if err != nil {
		return nil, err
	}
	defer eb.Free()
	if err := eb.Write(raw); err != nil {
		return nil, err
	}
	args := [][]byte{ptrArg(hb), binary.LittleEndian.AppendUint32(nil, 0), ptrArg(eb)}
	if err := fn.Launch(gpu.LaunchConfig{Grid: launch.Dim3{uint32(k.CTAs), 1, 1}, Block: launch.Dim3{256, 1, 1}, Args: args}); err != nil {
		return nil, err
	}
	if err := r.Dev.Synchronize(); err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	out := make([]byte, 8*k.Chunks)
	if err := hb.Read(out); err != nil {
		return nil, err
	}
	h := make([]uint64, k.Chunks)
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(out[8*i:])
	}
	return h, nil
}

// Run launches a kernel .entry sfu_dump(out, a, b, n) on explicit
// operands of width bytes (2, 4 or 8; b may be nil) and returns the
// results (of the same width).
func (r *Runner) Run(name, ptx string, width int, a, b []uint64) ([]uint64, error) {
	n := len(a)
	if n == 0 {
		return nil, nil
	}
	fn, err := r.fn(name, ptx, "sfu_dump")
	if err != nil {
		return nil, err
	}
	pack := func(v []uint64) []byte {
		p := make([]byte, width*n)
		for i := range n {
			var x uint64
			if v != nil {
				x = v[i]
			}
			switch width {
			case 2:
				binary.LittleEndian.PutUint16(p[2*i:], uint16(x))
			case 4:
				binary.LittleEndian.PutUint32(p[4*i:], uint32(x))
			default:
				binary.LittleEndian.PutUint64(p[8*i:], x)
			}
		}
		return p
	}
	var bufs []*gpu.Buffer
	defer func() {
		for _, x := range bufs {
			x.Free()
		}
	}()
	alloc := func(data []byte) (*gpu.Buffer, error) {
		x, err := r.Dev.Alloc(len(data))
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, x)
		return x, x.Write(data)
	}
	ob, err := alloc(make([]byte, width*n))
	if err != nil {
		return nil, err
	}
	if err := ob.Memset(0xA5); err != nil {
		return nil, err
	}
	ab, err := alloc(pack(a))
	if err != nil {
		return nil, err
	}
	bb, err := alloc(pack(b))
	if err != nil {
		return nil, err
	}
	ctas := uint32((n + 255) / 256)
	args := [][]byte{ptrArg(ob), ptrArg(ab), ptrArg(bb), binary.LittleEndian.AppendUint32(nil, uint32(n))}
	if err := fn.Launch(gpu.LaunchConfig{Grid: launch.Dim3{ctas, 1, 1}, Block: launch.Dim3{256, 1, 1}, Args: args}); err != nil {
		return nil, err
	}
	if err := r.Dev.Synchronize(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	raw := make([]byte, width*n)
	if err := ob.Read(raw); err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	for i := range out {
		switch width {
		case 2:
			out[i] = uint64(binary.LittleEndian.Uint16(raw[2*i:]))
		case 4:
			out[i] = uint64(binary.LittleEndian.Uint32(raw[4*i:]))
		default:
			out[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
	}
	return out, nil
}
