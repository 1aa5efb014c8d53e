package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Provenance of shared-memory tiles (Options.Check): every shared byte a
// cp.async copied, or an st.shared stored from a register that an
// ld.global filled, remembers the global address it came from. A matrix
// descriptor that reads such a tile must see it as an affine image of the
// source tensor (each operand row from one row of the tensor); a swizzle,
// LBO or SBO that disagrees with the layout the stores used scrambles it.
//
// A register's provenance is the address and the value its ld.global
// loaded; it still holds when the register holds that value at the store
// (a register rewritten with another value loses it).

type provTag struct {
	addr uint64
	val  uint64
	size uint8
}

// noteLoad records the provenance of the registers a global load filled.
func (w *Warp) noteLoad(in *Inst, l int, addr uint64, mi *memInfo) {
	if mi.esize > 8 {
		return
	}
	for k := 0; k < mi.n; k++ {
		dst := &in.dst[k]
		if dst.K != oReg {
			continue
		}
		i := int(dst.R)*32 + l
		if w.prov == nil {
			w.prov = make([]provTag, w.fn.NumRegs*32)
		}
		if i >= len(w.prov) {
			continue
		}
		w.prov[i] = provTag{addr: addr + uint64(k*mi.esize), val: w.reg(dst.R)[l], size: uint8(mi.esize)}
	}
}

// noteStore tags the shared bytes a store wrote from registers with a
// known provenance (smemHook cleared them first).
func (w *Warp) noteStore(in *Inst, l int, c *CTA, off uint32, mi *memInfo) {
	if w.prov == nil || c.srcTags == nil || mi.esize > 8 {
		return
	}
	for k := 0; k < mi.n; k++ {
		o := &in.src[1+k]
		if o.K != oReg {
			continue
		}
		i := int(o.R)*32 + l
		if i >= len(w.prov) {
			continue
		}
		p := w.prov[i]
		if p.addr == 0 || int(p.size) != mi.esize || p.val != w.reg(o.R)[l] {
			continue
		}
		base := off + uint32(k*mi.esize)
		for j := 0; j < mi.esize && int(base)+j < len(c.srcTags); j++ {
			c.srcTags[int(base)+j] = p.addr + uint64(j)
		}
	}
}

// tagSource tags n bytes at off as copied from src, and the rest of size
// (zero fill) as of no source.
func (c *CTA) tagSource(off uint32, size int, src uint64, n int) {
	for k := 0; k < size; k++ {
		if k < n {
			c.srcTags[int(off)+k] = src + uint64(k)
		} else {
			c.srcTags[int(off)+k] = 0
		}
	}
}

func (c *CTA) clearSource(off uint32, n int) {
	if c.srcTags == nil {
		return
	}
	for k := 0; k < n && int(off)+k < len(c.srcTags); k++ {
		c.srcTags[int(off)+k] = 0
	}
}

// sharedOffset resolves a generic or shared address to c's offset, for
// provenance (ok false elsewhere).
func (w *Warp) sharedOffset(sp ptx.Space, addr uint64) (*CTA, uint32, bool) {
	ms, a := resolve(sp, addr)
	if ms != msShared {
		return nil, 0, false
	}
	c, off, ok := w.cta.clusterShared(a)
	return c, uint32(off), ok
}

// provenanceCheck compares a descriptor-described operand with the global
// addresses its bytes were loaded from: the element at (mn, k) must come
// from g0 + mn·Smn + k·Sk for strides the tile itself shows.
func (c *CTA) provenanceCheck(t *smemTable, mn, k, ebits int, in *Inst, what string) {
	if c.srcTags == nil || ebits < 8 {
		return
	}
	type el struct {
		m, k int
		g    uint64
	}
	var els []el
	for i, ba := range t.addrs {
		by := int(ba / 8)
		if ba%8 != 0 || by >= len(c.srcTags) || c.srcTags[by] == 0 {
			continue
		}
		els = append(els, el{i / k, i % k, c.srcTags[by]})
	}
	if len(els) < 3 {
		return
	}
	ref := els[0]
	var sk, sm int64
	haveK, haveM := false, false
	for _, e := range els[1:] {
		d := int64(e.g) - int64(ref.g)
		if !haveK && e.m == ref.m && e.k != ref.k && d%int64(e.k-ref.k) == 0 {
			sk, haveK = d/int64(e.k-ref.k), true
		}
		if !haveM && e.k == ref.k && e.m != ref.m && d%int64(e.m-ref.m) == 0 {
			sm, haveM = d/int64(e.m-ref.m), true
		}
		if haveK && haveM {
			break
		}
	}
	if !haveK || !haveM {
		return
	}
	for _, e := range els[1:] {
		want := int64(ref.g) + int64(e.m-ref.m)*sm + int64(e.k-ref.k)*sk
		if int64(e.g) == want {
			continue
		}
		mach := c.u.m
		mach.hazard(Hazard{Kind: HzDescLayout, PC: in.PC, CTA: c.ID, Warp: -1, Cause: mach.descCause(in, what),
			Group: "descriptor vs the layout the stores wrote",
			Msg:   fmt.Sprintf("the %s operand's descriptor does not match the layout the tile was written in (by st.shared or cp.async): element (mn=%d, k=%d) was loaded from global address %#x, but the tile's own strides say %#x", what, e.m, e.k, e.g, want),
			Detail: fmt.Sprintf("element (mn=%d, k=%d) comes from %#x; along k the tile advances %d bytes, along mn %d bytes; element (mn=%d, k=%d) breaks that: check the descriptor's LBO, SBO and swizzle mode against the offsets the stores used",
				ref.m, ref.k, ref.g, sk, sm, e.m, e.k)})
		return
	}
}
