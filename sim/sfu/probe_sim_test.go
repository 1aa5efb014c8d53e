package sfu_test

import (
	"encoding/binary"
	"testing"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/sim/sfu"
)

// simulate runs a probe kernel in tcsim's simulator and returns the first
// buffer.
func simulate(t *testing.T, name, ptx string, l *launch.Launch) []byte {
	t.Helper()
	m, err := sim.Prepare(name, []byte(ptx), l, sim.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := m.Run(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := m.Buffer("0")
	if err != nil {
		t.Fatal(err)
	}
	return b.Data
}

// TestHashKernelInSimulator runs one CTA of every campaign's hash kernel
// in the simulator and checks that it generates the domain's operands and
// hashes the results as the CPU side does: the simulator's result of each
// input (from the dump kernel) hashed in Go equals what the kernel added
// into chunk 0.
func TestHashKernelInSimulator(t *testing.T) {
	edges := make([]byte, 4096)
	for i, v := range sfu.EdgeValues() {
		binary.LittleEndian.PutUint32(edges[4*i:], v)
	}
	for _, f := range sfu.Forms() {
		for _, d := range f.Domains() {
			if testing.Short() && f.Op != "div.full.f32" && f.Op != "rcp.approx.ftz.f64" && f.Op != "tanh.approx.f16x2" {
				continue
			}
			l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{256, 1, 1}, Params: []launch.Param{
				launch.Buffer("", 8*d.Chunks(), launch.Fill{}),
				launch.Scalar("", launch.U32, 0),
				launch.BufferData("", edges),
			}}
			got := binary.LittleEndian.Uint64(simulate(t, f.Op+".hash.ptx", f.HashPTX(d), l))

			n := sfu.HashPerCTA
			in := f.Kind.InBytes()
			a, b := make([]byte, in*n), make([]byte, in*n)
			for i := range n {
				x, y := d.Input(uint32(i))
				switch in {
				case 2:
					binary.LittleEndian.PutUint16(a[2*i:], uint16(x))
				case 4:
					binary.LittleEndian.PutUint32(a[4*i:], uint32(x))
					binary.LittleEndian.PutUint32(b[4*i:], uint32(y))
				case 8:
					binary.LittleEndian.PutUint64(a[8*i:], x)
				}
			}
			l = &launch.Launch{Grid: launch.Dim3{uint32(n / 256), 1, 1}, Block: launch.Dim3{256, 1, 1}, Params: []launch.Param{
				launch.Buffer("", in*n, launch.Fill{}),
				launch.BufferData("", a),
				launch.BufferData("", b),
				launch.Scalar("", launch.U32, uint64(n)),
			}}
			out := simulate(t, f.Op+".dump.ptx", f.DumpPTX(), l)
			var want uint64
			for i := range n {
				var r uint64
				switch in {
				case 2:
					r = uint64(binary.LittleEndian.Uint16(out[2*i:]))
				case 4:
					r = uint64(binary.LittleEndian.Uint32(out[4*i:]))
				case 8:
					r = binary.LittleEndian.Uint64(out[8*i:])
				}
				want += sfu.Elem(uint32(i), r)
			}
			if got != want {
				t.Errorf("%s on %s: the hash kernel added %#x, the dump kernel's results hash to %#x", f.Op, d.Name, got, want)
			}
		}
	}
}
