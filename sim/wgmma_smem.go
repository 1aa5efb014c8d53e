package sim

import (
	"fmt"
	"sync"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/sim/trace"
)

// wgmma's operands in shared memory: the element-to-address tables of a
// descriptor (shared with tcgen05.mma), gathering A and B, running the
// datapath, and checking that the data was laid out as the descriptor says.

// smemTable maps each element (mn, k) of a shared-memory operand to its bit
// address (byte*8 + bit).
type smemTable struct {
	ebits  int      // element width of the operand
	addrs  []uint32 // bit address of each element
	chunks []uint32 // 16-byte rows read, for the async-read checks
	err    error
	fs     desc.Findings
}

var smemTables sync.Map

type smemKey struct {
	d       uint64
	mn, k   int
	bits    int
	mnMajor bool
	tcgen05 bool
}

func smemOperand(d uint64, mn, k, ebits int, mnMajor, tcgen bool) *smemTable {
	key := smemKey{d, mn, k, ebits, mnMajor, tcgen}
	if v, ok := smemTables.Load(key); ok {
		return v.(*smemTable)
	}
	t := &smemTable{ebits: ebits}
	var lay desc.SmemLayout
	ctx := desc.Context{TileMN: mn, TileK: k, Major: desc.MajorK}
	if mnMajor {
		ctx.Major = desc.MajorMN
	}
	switch ebits {
	case 16:
		ctx.DType = "bf16"
	case 32:
		ctx.DType = "tf32"
	case 8:
		ctx.DType = "e4m3"
	}
	if tcgen {
		dd := desc.DecodeTCGen05Smem(d)
		lay = dd.Layout()
		if ebits != 1 {
			t.fs = dd.Check(ctx)
		}
	} else {
		dd := desc.DecodeWGMMA(d)
		lay = dd.Layout()
		if ebits != 1 {
			t.fs = dd.Check(ctx)
		}
	}
	op := desc.Operand{Major: desc.MajorK, ElemBits: ebits, MN: mn, K: k}
	if mnMajor {
		op.Major = desc.MajorMN
	}
	reads, err := desc.Footprint(lay, op)
	if err != nil {
		t.err = err
		smemTables.Store(key, t)
		return t
	}
	t.addrs = make([]uint32, mn*k)
	for _, r := range reads {
		t.chunks = append(t.chunks, r.Addr)
		for m := r.MN0; m < r.MN1; m++ {
			for kk := r.K0; kk < r.K1; kk++ {
				var bit int
				if mnMajor {
					bit = (m - r.MN0) * ebits
				} else {
					bit = (kk - r.K0) * ebits
				}
				t.addrs[m*k+kk] = r.Addr*8 + uint32(bit)
			}
		}
	}
	smemTables.Store(key, t)
	return t
}

// smemOperands checks (at issue) the descriptor-described operands and
// records the regions the op will read.
func (wg *warpgroup) smemOperands(w *Warp, in *Inst, wi *wgmmaInfo, op *wgmmaOp, da, db uint64, first bool) {
	c := wg.cta
	mach := c.u.m
	check := func(d uint64, mn, k, ebits int, mnMajor bool, what string) {
		t := smemOperand(d, mn, k, ebits, mnMajor, false)
		if t.err != nil {
			mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
				Msg: fmt.Sprintf("the %s descriptor %#x cannot be used: %v", what, d, t.err)})
			return
		}
		for _, f := range t.fs {
			if f.Severity == desc.Error {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
					Msg: fmt.Sprintf("%s descriptor %#x: %s", what, d, f.Msg)})
			}
		}
		for _, a := range t.chunks {
			if int(a)+16 > len(c.Smem) {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
					Msg: fmt.Sprintf("the %s descriptor %#x reads shared bytes [%#x, %#x), beyond the CTA's %d bytes of shared memory (the H100 faults with an illegal memory access)", what, d, a, a+16, len(c.Smem))})
				return
			}
		}
		for _, a := range t.chunks {
			w.asyncReadCheck(in, c, a, 16, "wgmma.mma_async")
		}
		if op.issuedBy&^(1<<(w.ID%4)) == 0 {
			for _, a := range t.chunks {
				op.rd = append(op.rd, region{c, a, 16})
			}
		}
	}
	if !wi.rs {
		check(da, 64, wi.K, wi.aBits, wi.transA, "A")
	}
	check(db, wi.N, wi.K, wi.bBits, wi.transB, "B")
	if op.issuedBy&^(1<<(w.ID%4)) == 0 && len(op.rd) > 0 && c.u.race == nil {
		op.async = &asyncOp{kind: akWgmma, in: in, cta: c}
		c.markInflight(op.rd, false, op.async)
	}
}

// execute computes D for every warp of the warpgroup.
func (wg *warpgroup) execute(op *wgmmaOp) {
	if op.done {
		return
	}
	op.done = true
	c := wg.cta
	if op.async != nil {
		c.unmarkInflight(op.async, false)
	}
	op.rd = nil
	in := op.in[0]
	wi := in.ext.(*wgmmaInfo)
	M, N, K := 64, wi.N, wi.K
	a := make([]uint64, M*K)
	b := make([]uint64, N*K)
	cc := make([]uint64, M*N)
	if wi.rs {
		for k := 0; k < 4; k++ {
			regs := op.regs[k]
			awi := op.in[k].ext.(*wgmmaInfo)
			for lane := 0; lane < 32; lane++ {
				t := 32*k + lane
				for _, f := range wi.aMap[t] {
					v := regs[int(awi.aregs[f.reg])*32+lane]
					v = v >> (uint(f.half) * uint(wi.aBits)) & (uint64(1)<<wi.aBits - 1)
					a[int(f.row)*K+int(f.col)] = v
				}
			}
		}
	} else {
		wg.gather(op.descA[0], M, K, wi.aBits, wi.transA, a, in, "A")
	}
	wg.gather(op.descB[0], N, K, wi.bBits, wi.transB, b, in, "B")
	if wi.negA {
		neg(a, wi.dp.A)
	}
	if wi.negB {
		neg(b, wi.dp.B)
	}
	if op.scaleD[0] {
		for k := 0; k < 4; k++ {
			regs := op.regs[k]
			for lane := 0; lane < 32; lane++ {
				t := 32*k + lane
				for _, f := range wi.accMap[t] {
					v := regs[int(wi.dregs[f.reg])*32+lane]
					if wi.accBits == 16 {
						v = v >> (16 * uint(f.half)) & 0xFFFF
					} else {
						v &= 0xFFFFFFFF
					}
					cc[int(f.row)*N+int(f.col)] = v
				}
			}
		}
	}
	var d []uint64
	if mm, ok := wi.dp.Eval.(matMuler); ok {
		d = mm.MatMul(M, N, K, a, b, cc)
	} else {
		d = make([]uint64, M*N)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				d[i*N+j] = wi.dp.Eval.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], cc[i*N+j]) & 0xFFFFFFFF
			}
		}
	}
	for k := 0; k < 4; k++ {
		regs := op.regs[k]
		for lane := 0; lane < 32; lane++ {
			t := 32*k + lane
			for _, f := range wi.accMap[t] {
				p := int(wi.dregs[f.reg])*32 + lane
				v := d[int(f.row)*N+int(f.col)]
				if wi.accBits == 16 {
					sh := 16 * uint(f.half)
					regs[p] = regs[p]&^(0xFFFF<<sh) | (v&0xFFFF)<<sh
				} else {
					regs[p] = v & 0xFFFFFFFF
				}
			}
		}
	}
	if tr := c.u.m.trace; tr != nil {
		for k := 0; k < 4; k++ {
			if w := wg.warps[k]; w != nil {
				tr.regs(w, wi.dregs, op.regs[k])
			}
		}
	}
	// Drop the op from the live list.
	for i, x := range wg.ops {
		if x == op {
			wg.ops = append(wg.ops[:i], wg.ops[i+1:]...)
			break
		}
	}
	c.u.progress++
	if c.u.m.trace != nil {
		c.u.m.trace.event(&trace.Event{Kind: trace.WgmmaComplete, CTA: c.ID, Warpgroup: wg.idx, WgmmaOp: op.idx, PC: in.PC})
	}
}

// gather reads a shared-memory operand through its descriptor.
func (wg *warpgroup) gather(d uint64, mn, k, ebits int, mnMajor bool, out []uint64, in *Inst, what string) {
	c := wg.cta
	t := smemOperand(d, mn, k, ebits, mnMajor, false)
	if t.err != nil {
		return
	}
	smem := c.Smem
	n := uint32(len(smem)) * 8
	for i, ba := range t.addrs {
		if ba+uint32(ebits) > n {
			continue
		}
		out[i] = readBits(smem, ba, ebits)
	}
	c.layoutCheck(t, mn, k, mnMajor, in, what, desc.DecodeWGMMA(d).Swizzle())
	c.provenanceCheck(t, mn, k, ebits, in, what)
}

func readBits(smem []byte, bitAddr uint32, ebits int) uint64 {
	by := bitAddr / 8
	switch ebits {
	case 8:
		return uint64(smem[by])
	case 16:
		return uint64(smem[by]) | uint64(smem[by+1])<<8
	case 32:
		return uint64(smem[by]) | uint64(smem[by+1])<<8 | uint64(smem[by+2])<<16 | uint64(smem[by+3])<<24
	}
	// sub-byte: little-endian bit order within bytes
	var v uint64
	for i := 0; i < ebits; i++ {
		ba := bitAddr + uint32(i)
		v |= uint64(smem[ba/8]>>(ba%8)&1) << i
	}
	return v
}

// neg flips the sign of every element (imm-scale = -1).
func neg(x []uint64, f *numfmt.Format) {
	sign := uint64(1) << (f.Shift + f.Bits - 1)
	for i := range x {
		x[i] ^= sign
	}
}

// layoutCheck compares a descriptor-described operand with the tensor
// elements TMA copies wrote there: a correct descriptor reads a contiguous
// tile of the tensor, so (tensor coordinate - operand coordinate) is the
// same for every element. A swizzle or LBO/SBO that disagrees with the
// tensor map scrambles it.
func (c *CTA) layoutCheck(t *smemTable, mn, k int, mnMajor bool, in *Inst, what string, dsw desc.Swizzle) {
	if c.tags == nil {
		return
	}
	var ref elemTag
	var refM, refK int
	have := false
	for i, ba := range t.addrs {
		by := ba / 8
		if int(by) >= len(c.tags) {
			continue
		}
		tg := c.tags[by]
		if tg.tmap == 0 {
			continue
		}
		switch tm := c.u.m.tmaps[tg.tmap-1]; {
		case tm.packed4:
			// two 4-bit elements a byte: the tag names the byte
			tg.c0 = 2*tg.c0 + int32(ba%8)/4
		case tm.esize == 1 && t.ebits < 8:
			// sub-byte elements packed into a byte map (a UINT8 map of
			// packed FP4 data): the tag names the byte, coordinates along
			// dimension 0 count bytes
			tg.c0 = int32(8/t.ebits)*tg.c0 + int32(ba%8)/int32(t.ebits)
		}
		m, kk := i/k, i%k
		var d0, d1 int32
		if mnMajor {
			d0, d1 = tg.c0-int32(m), tg.c1-int32(kk)
		} else {
			d0, d1 = tg.c0-int32(kk), tg.c1-int32(m)
		}
		if !have {
			ref, refM, refK, have = elemTag{tmap: tg.tmap, c0: d0, c1: d1}, m, kk, true
			continue
		}
		if tg.tmap != ref.tmap || d0 != ref.c0 || d1 != ref.c1 {
			mach := c.u.m
			tm := mach.tmapAt(int(tg.tmap - 1))
			ax := "(k, row)"
			if mnMajor {
				ax = "(col, k)"
			}
			mach.hazard(Hazard{Kind: HzDescLayout, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: -1, Cause: mach.descCause(in, what),
				Group: fmt.Sprintf("descriptor swizzle %s, tensor map swizzle %s", dsw, tm.swz),
				Msg:   fmt.Sprintf("the %s operand's descriptor (swizzle %s) does not match the layout the TMA copy wrote (tensor map %s, swizzle %s): the operand is not a contiguous tile of the tensor", what, dsw, tm.name, tm.swz),
				Detail: fmt.Sprintf("%s element (mn=%d, k=%d) holds tensor element %s = (%d, %d), but element (mn=%d, k=%d) holds (%d, %d): check the descriptor's swizzle mode, LBO and SBO against the tensor map",
					what, refM, refK, ax, ref.c0+int32(refK), ref.c1+int32(refM), m, kk, tg.c0, tg.c1)})
			return
		}
	}
}

// allSet reports whether every warp of the warpgroup has executed
// setmaxnreg with the same count.
func (wg *warpgroup) allSet() bool {
	for k, w := range wg.warps {
		if w != nil && wg.maxnregBy[k] == 0 {
			return false
		}
	}
	return true
}
