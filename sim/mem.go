package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/ptx"
)

// memSpace is a concrete state space after generic addresses are resolved.
type memSpace uint8

const (
	msGlobal memSpace = iota
	msShared
	msLocal
	msParam
	msConst
)

func (s memSpace) String() string {
	return [...]string{"global", "shared", "local", "param", "const"}[s]
}

// resolve turns an address in state space sp into a concrete space and an
// address within it. Shared addresses come back as shared::cluster
// addresses (a CTA rank may be encoded above bit 24).
func resolve(sp ptx.Space, addr uint64) (memSpace, uint64) {
	switch sp.Base() {
	case ptx.SpaceGlobal:
		return msGlobal, addr
	case ptx.SpaceShared:
		return msShared, addr
	case ptx.SpaceLocal:
		return msLocal, addr
	case ptx.SpaceParam:
		if addr >= ParamWindow && addr < ParamWindow+windowSize {
			return msParam, addr - ParamWindow
		}
		return msParam, addr
	case ptx.SpaceConst:
		if addr >= ConstWindow && addr < ConstWindow+windowSize {
			return msConst, addr - ConstWindow
		}
		return msConst, addr
	}
	switch {
	case addr >= SharedWindow && addr < SharedWindow+windowSize:
		return msShared, addr - SharedWindow
	case addr >= LocalWindow && addr < LocalWindow+windowSize:
		return msLocal, addr - LocalWindow
	case addr >= ParamWindow && addr < ParamWindow+windowSize:
		return msParam, addr - ParamWindow
	case addr >= ConstWindow && addr < ConstWindow+windowSize:
		return msConst, addr - ConstWindow
	}
	return msGlobal, addr
}

// clusterShared decodes a shared::cluster address into the CTA that owns it
// and the offset in its shared memory. Addresses below 1<<24 are the
// issuing CTA's; mapa encodes rank r as (r+1)<<24.
func (c *CTA) clusterShared(addr uint64) (*CTA, uint64, bool) {
	r := int(addr >> 24)
	if !c.u.m.Clustered {
		return c, addr, r == 0
	}
	if r >= len(c.u.ctas) || addr>>32 != 0 {
		return nil, 0, false
	}
	return c.u.ctas[r], addr & 0xFFFFFF, true
}

// mem returns the n bytes at addr (in state space sp) seen by lane, or
// faults. write says whether the access writes (param and const are
// read-only).
func (w *Warp) mem(in *Inst, sp ptx.Space, addr uint64, n int, lane int, write bool) []byte {
	ms, a := resolve(sp, addr)
	if n > 1 && a%uint64(n) != 0 && n <= 16 && sp != ptx.SpaceParam {
		w.fault(in, lane, "misaligned %d-byte %s access at address %#x", n, ms, addr)
		return nil
	}
	switch ms {
	case msShared:
		c, off, ok := w.cta.clusterShared(a)
		if !ok || off+uint64(n) > uint64(len(c.Smem)) {
			w.fault(in, lane, "out-of-bounds shared memory access: %d bytes at shared address %#x; the CTA has %d bytes of shared memory (%d static + %d dynamic)",
				n, a, len(w.cta.Smem), w.cta.u.m.Prog.DynSharedOffset, w.cta.u.m.DynSmem)
			return nil
		}
		return c.Smem[off : off+uint64(n)]
	case msGlobal:
		b, ok := w.cta.u.m.Global.Find(a, n)
		if !ok {
			w.fault(in, lane, "out-of-bounds global memory access: %d bytes at %#x, %s", n, a, w.cta.u.m.describeGlobalAt(a, in))
			return nil
		}
		off := a - b.Base
		return b.Data[off : off+uint64(n)]
	case msLocal:
		end := a + uint64(n)
		if end > 8*maxLocal {
			w.fault(in, lane, "out-of-bounds local memory access: %d bytes at local address %#x", n, a)
			return nil
		}
		loc := w.local[lane]
		if uint64(len(loc)) < end {
			grown := make([]byte, max(end, uint64(2*len(loc)), 256))
			copy(grown, loc)
			w.local[lane] = grown
			loc = grown
		}
		return loc[a:end]
	case msParam:
		if write {
			w.fault(in, lane, "write to the kernel's parameter space at %#x (kernel parameters are read-only)", addr)
			return nil
		}
		p := w.cta.u.m.Param
		if a+uint64(n) > uint64(len(p)) {
			w.fault(in, lane, "out-of-bounds parameter access: %d bytes at param offset %d; the kernel has %d bytes of parameters", n, a, len(p))
			return nil
		}
		return p[a : a+uint64(n)]
	case msConst:
		if write {
			w.fault(in, lane, "write to constant memory at %#x", addr)
			return nil
		}
		p := w.cta.u.m.Const
		if a+uint64(n) > uint64(len(p)) {
			w.fault(in, lane, "out-of-bounds constant memory access: %d bytes at const offset %d; the constant bank has %d bytes", n, a, len(p))
			return nil
		}
		return p[a : a+uint64(n)]
	}
	w.fault(in, lane, "unknown state space for address %#x", addr)
	return nil
}

// sharedOff resolves an address in space sp to this CTA's (or a cluster
// peer's) shared memory, for instructions that require shared memory.
func (w *Warp) sharedAddr(in *Inst, sp ptx.Space, addr uint64, n int, lane int) (*CTA, uint32, bool) {
	ms, a := resolve(sp, addr)
	if ms != msShared {
		w.fault(in, lane, "address %#x is not in shared memory (it is %s)", addr, ms)
		return nil, 0, false
	}
	c, off, ok := w.cta.clusterShared(a)
	if !ok || off+uint64(n) > uint64(len(c.Smem)) {
		w.fault(in, lane, "out-of-bounds shared memory access: %d bytes at shared address %#x; the CTA has %d bytes of shared memory", n, a, len(w.cta.Smem))
		return nil, 0, false
	}
	return c, uint32(off), true
}

func le(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(b[0]) | uint64(b[1])<<8
	case 4:
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
	case 8:
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		b[0], b[1] = byte(v), byte(v>>8)
	case 4:
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	case 8:
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	default:
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// ReadShared returns a copy of n bytes of CTA cta's shared memory at off.
func (c *CTA) ReadShared(off, n int) ([]byte, error) {
	if off < 0 || n < 0 || off+n > len(c.Smem) {
		return nil, fmt.Errorf("shared bytes [%d, %d) are outside the CTA's %d bytes", off, off+n, len(c.Smem))
	}
	return append([]byte(nil), c.Smem[off:off+n]...), nil
}
