package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/isa/tensormap"
)

// Bulk reductions and bulk initialisation (PTX ISA 9.7.9.25.4,
// 9.7.9.25.5; sm_90 and sm_100a):
//
//	cp.reduce.async.bulk.global.shared::cta.bulk_group.redOp.type [dst], [src], size
//	cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.redOp.type [dst], [src], size, [mbar]
//	cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp.tile.bulk_group [tmap, {coords}], [src]
//	st.bulk{.weak}{.shared::cta} [a], size, 0
//
// The reductions combine each element of the source with the destination
// element the way red does (atomically per element, in an unspecified
// order; tcsim applies them in address order). They complete like the
// copies they extend: a bulk group (cp.async.bulk.wait_group) or an
// mbarrier's tx-count.

var redOps = []string{"add", "min", "max", "inc", "dec", "and", "or", "xor"}

func redOpOf(x *ptx.Instruction) string {
	for _, o := range redOps {
		if x.Has(o) {
			return o
		}
	}
	return ""
}

// decBulkReduce decodes cp.reduce.async.bulk.
func decBulkReduce(d *decoder) error {
	x := d.x
	sp := x.Spaces()
	if len(sp) < 2 {
		return fmt.Errorf("cp.reduce.async.bulk: want destination and source spaces")
	}
	ai := &atomInfo{op: redOpOf(x), t: d.in.typ, red: true}
	if ai.op == "" {
		return fmt.Errorf("cp.reduce.async.bulk: no reduction operation")
	}
	ai.esize = elemBytes(ai.t)
	if ai.esize == 0 {
		return fmt.Errorf("cp.reduce.async.bulk: no element type")
	}
	toShared := sp[0].Base() == ptx.SpaceShared
	for _, e := range x.Operands {
		var o Opnd
		var err error
		if _, isAddr := e.(*ptx.Address); isAddr {
			o, err = d.addr(e)
		} else {
			o, err = d.val(e, ptx.U32)
		}
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	if toShared && len(d.in.src) < 4 {
		return fmt.Errorf("cp.reduce.async.bulk to shared::cluster needs an mbarrier operand")
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst := w.addrOf(&in.src[0], l, 0)
			src := w.addrOf(&in.src[1], l, 1)
			size := int(uint32(w.src(&in.src[2], 2)[l]))
			tid := 32*w.ID + l
			if dst%16 != 0 || src%16 != 0 || size%16 != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("cp.reduce.async.bulk: addresses %#x, %#x and size %d must be multiples of 16", dst, src, size)})
			}
			sc, soff, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, src, size, l)
			if !ok {
				return
			}
			w.asyncReadCheck(in, sc, soff, size, "cp.reduce.async.bulk")
			reduce := func(dstBytes []byte) {
				for k := 0; k+ai.esize <= size; k += ai.esize {
					old := le(dstBytes[k : k+ai.esize])
					v := le(sc.Smem[int(soff)+k : int(soff)+k+ai.esize])
					putLE(dstBytes[k:k+ai.esize], atomOp(ai, old, v, 0))
				}
			}
			if toShared {
				dc, doff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dst, size, l)
				if !ok {
					return
				}
				mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, w.addrOf(&in.src[3], l, 0), 8, l)
				if !ok {
					return
				}
				op := &asyncOp{kind: akBulkLoad, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{sc, soff, size}}, wr: []region{{dc, doff, size}},
					desc: fmt.Sprintf("reduce.%s shared %#x → shared %#x of CTA %s (%d bytes), mbarrier %#x", ai.op, soff, doff, fmtID(dc.ID), size, moff)}
				mb := mc.mbars[moff]
				var phase uint64
				if u.race != nil {
					op.issueVC = u.race.issueVC(w)
					op.hbRead = u.race.asyncReadRegions(op.issueVC, in, sc, w.ID, 1<<l, nil, soff, size, "cp.reduce.async.bulk", w)
				}
				if mb != nil && mb.live {
					phase = mb.copyIssued(w, in, tid, int64(size), mb.cta == w.cta)
					if u.race != nil {
						u.race.mbarInitCheck(w, in, mb, op.issueVC)
						u.race.asyncWriteIssue(op, dc, doff, size, op.issueVC, mb, phase)
					}
				}
				op.run = func(op *asyncOp) {
					reduce(dc.Smem[doff : doff+uint32(size)])
					if mb == nil || !mb.live {
						u.m.mbarUninit(mc, moff, mb, u.race.issuePoint(op), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: mc.ID, Warp: -1,
							Msg: fmt.Sprintf("a bulk reduction completes on the mbarrier at %#x, which is not initialized", moff)}, false)
						return
					}
					if u.race != nil {
						e := u.race.mbarEpoch(mb, in.PC, ekCopy)
						u.race.asyncWriteDone(op, dc, e)
						op.hbRead.release(e)
						u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
					}
					mb.copyLanded(in.PC, phase)
					mb.completeTx(in, int64(size))
				}
				u.issue(op)
				continue
			}
			g := w.mem(in, ptx.SpaceGlobal, dst, size, l, true)
			if g == nil {
				return
			}
			op := &asyncOp{kind: akBulkStore, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{sc, soff, size}},
				desc: fmt.Sprintf("reduce.%s shared %#x → global %#x (%d bytes)", ai.op, soff, dst, size)}
			if u.race != nil {
				op.issueVC = u.race.issueVC(w)
				op.hbRead = u.race.asyncReadRegions(op.issueVC, in, sc, w.ID, 1<<l, nil, soff, size, "cp.reduce.async.bulk", w)
			}
			op.run = func(op *asyncOp) { reduce(g) }
			w.cta.bulkGroups(tid).add(op)
			u.issue(op)
		}
	}
	return nil
}

// tmapElemType is the element type a reduction through a tensor map
// combines.
func tmapElemType(t *tensorMap) (ptx.Type, error) {
	switch t.dtype {
	case tensormap.U8:
		return ptx.U8, nil
	case tensormap.U16:
		return ptx.U16, nil
	case tensormap.U32:
		return ptx.U32, nil
	case tensormap.S32:
		return ptx.S32, nil
	case tensormap.U64:
		return ptx.U64, nil
	case tensormap.S64:
		return ptx.S64, nil
	case tensormap.F16:
		return ptx.F16, nil
	case tensormap.BF16:
		return ptx.BF16, nil
	case tensormap.F32, tensormap.F32FTZ:
		return ptx.F32, nil
	case tensormap.F64:
		return ptx.F64, nil
	}
	return ptx.TypeNone, refReduceTmapType.errorf("a reduction through a tensor map of %s elements", t.dtype)
}

// decBulkTensorReduce decodes cp.reduce.async.bulk.tensor (tile mode).
func decBulkTensorReduce(d *decoder) error {
	x := d.x
	op := redOpOf(x)
	if op == "" {
		return fmt.Errorf("cp.reduce.async.bulk.tensor: no reduction operation")
	}
	if x.Has("im2col_no_offs") {
		return refReduceIm2col.errorf("cp.reduce.async.bulk.tensor .im2col_no_offs (tile mode runs)")
	}
	dim := 0
	for _, m := range x.Mods {
		if len(m.Name) == 2 && m.Name[1] == 'd' && m.Name[0] >= '1' && m.Name[0] <= '5' {
			dim = int(m.Name[0] - '0')
		}
	}
	ta, ok := x.Operands[0].(*ptx.Address)
	if !ok || ta.Coords == nil || len(ta.Coords.Elems) != dim {
		return fmt.Errorf("cp.reduce.async.bulk.tensor.%dd: want [tensorMap, {%d coordinates}]", dim, dim)
	}
	mapOp, err := d.val(ta.Base, ptx.U64)
	if err != nil {
		return err
	}
	mapOp.Off = ta.Offset
	d.in.src = append(d.in.src, mapOp)
	for _, e := range ta.Coords.Elems {
		o, err := d.val(e, ptx.S32)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	src, err := d.addr(x.Operands[1])
	if err != nil {
		return err
	}
	d.in.src = append(d.in.src, src)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			tm := w.tensorMapAt(in, l, w.addrOf(&in.src[0], l, 0))
			if tm == nil {
				return
			}
			if tm.rank != dim {
				w.fault(in, l, "cp.reduce.async.bulk.tensor.%dd with tensor map %s of rank %d", dim, tm.name, tm.rank)
				return
			}
			et, err := tmapElemType(tm)
			if err != nil || tm.packed4 {
				w.fault(in, l, "cp.reduce.async.bulk.tensor: %v", err)
				return
			}
			ai := &atomInfo{op: op, t: et, esize: tm.esize, red: true}
			coords := make([]int64, dim)
			for k := 0; k < dim; k++ {
				coords[k] = int64(int32(w.src(&in.src[1+k], 1)[l]))
			}
			nb := tm.boxBytes()
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, w.addrOf(&in.src[1+dim], l, 2), nb, l)
			if !ok {
				return
			}
			if off%128 != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("TMA reduction source %#x is not 128-byte aligned", off)})
			}
			w.asyncReadCheck(in, c, off, nb, "a TMA reduction")
			tid := 32*w.ID + l
			aop := &asyncOp{kind: akTMAStore, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{c, off, nb}},
				desc: fmt.Sprintf("reduce.%s shared %#x (%d bytes) → %s box at %v", op, off, nb, tm.name, coords)}
			if u.race != nil {
				aop.issueVC = u.race.issueVC(w)
				aop.hbRead = u.race.asyncReadRegions(aop.issueVC, in, c, w.ID, 1<<l, nil, off, nb, "TMA reduction", w)
			}
			aop.run = func(*asyncOp) {
				es := tm.esize
				var cache *Buffer
				tm.forBox(coords, func(i int, addr uint64, inb bool) {
					if !inb {
						return
					}
					if _, ok := u.m.Global.Find(addr, es); !ok {
						return
					}
					phys := tm.swz.Apply(off + uint32(i*es))
					g := u.m.elem(&cache, addr, es)
					putLE(g, atomOp(ai, le(g), le(c.Smem[phys:phys+uint32(es)]), 0))
				})
			}
			w.cta.bulkGroups(tid).add(aop)
			u.issue(aop)
		}
	}
	return nil
}

// decStBulk decodes st.bulk{.weak}{.shared::cta} [a], size, initval: it
// sets size bytes at a (8-byte aligned, a multiple of 8) to initval, which
// must be 0.
func decStBulk(d *decoder) error {
	x := d.x
	a, err := d.addr(x.Operands[0])
	if err != nil {
		return err
	}
	n, err := d.val(x.Operands[1], ptx.U64)
	if err != nil {
		return err
	}
	if im, ok := x.Operands[2].(*ptx.Imm); !ok || im.Int() != 0 {
		return fmt.Errorf("st.bulk: initval must be the immediate 0")
	}
	space := ptx.SpaceSharedCTA
	if sp := x.Space(); sp == ptx.SpaceNone {
		space = ptx.SpaceNone
	}
	d.in.src = []Opnd{a, n}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			addr := w.addrOf(&in.src[0], l, 0)
			size := int(w.src(&in.src[1], 1)[l])
			if addr%8 != 0 || size%8 != 0 {
				w.fault(in, l, "st.bulk: address %#x and size %d must be multiples of 8", addr, size)
				return
			}
			if size == 0 {
				continue
			}
			b := w.mem(in, space, addr, size, l, true)
			if b == nil {
				return
			}
			for k := range b {
				b[k] = 0
			}
			w.smemHook(in, l, space, addr, size, true)
		}
	}
	return nil
}
