package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Non-tensor asynchronous copies: cp.async.bulk and its per-thread bulk
// groups (commit_group, wait_group), cp.async (sm_80) with its groups and
// mbarrier arrive, and st.async.

// bulk groups (per thread) ------------------------------------------------------

type bulkGroups struct {
	open   []*asyncOp   // issued since the last commit
	groups [][]*asyncOp // committed, oldest first
}

func (c *CTA) bulkGroups(tid int) *bulkGroups {
	if c.bulk[tid] == nil {
		c.bulk[tid] = &bulkGroups{}
	}
	return c.bulk[tid]
}

func (b *bulkGroups) add(op *asyncOp) { b.open = append(b.open, op) }

func decBulkCommit(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		forLanes(m, func(l int) {
			b := w.cta.bulkGroups(32*w.ID + l)
			b.groups = append(b.groups, b.open)
			b.open = nil
		})
	}
	return nil
}

func decBulkWait(d *decoder) error {
	im, ok := d.x.Operands[0].(*ptx.Imm)
	if !ok {
		return fmt.Errorf("cp.async.bulk.wait_group: N must be an immediate")
	}
	n := int(im.Int())
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		forLanes(m, func(l int) {
			b := w.cta.bulkGroups(32*w.ID + l)
			for len(b.groups) > n {
				g := b.groups[0]
				b.groups = b.groups[1:]
				for _, op := range g {
					u.completeWhere(func(x *asyncOp) bool { return x == op })
					if u.race != nil && op.hbRead != nil {
						u.race.releaseByWarp(op.hbRead, w)
					}
				}
			}
		})
	}
	return nil
}

// decBulk: cp.async.bulk (non-tensor).
//
//	[dst], [src], size, [mbar]{, ctaMask}     shared <- global / shared::cta
//	[dst], [src], size                        global <- shared::cta (bulk_group)
func decBulk(d *decoder) error {
	x := d.x
	sp := x.Spaces()
	if len(sp) < 2 {
		return fmt.Errorf("cp.async.bulk: want destination and source spaces")
	}
	bi := &bulkInfo{load: sp[0].Base() == ptx.SpaceShared, multicast: x.Has("multicast::cluster")}
	if x.Has("cp_mask") {
		return refCpMask.errorf("cp.async.bulk .cp_mask")
	}
	for i, e := range x.Operands {
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
		_ = i
		d.in.src = append(d.in.src, o)
	}
	d.in.space, d.in.aux = sp[0], 0
	d.in.ext = bi
	srcSpace := sp[1]
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
					Msg: fmt.Sprintf("cp.async.bulk: addresses %#x, %#x and size %d must be multiples of 16", dst, src, size)})
			}
			if bi.load {
				c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dst, size, l)
				if !ok {
					return
				}
				var srcBytes []byte
				var sc *CTA
				var soff uint32
				var issueVC []uint32
				if u.race != nil {
					issueVC = u.race.issueVC(w)
				}
				var srcRead *asyncRead
				if srcSpace.Base() == ptx.SpaceShared {
					if sc, soff, ok = w.sharedAddr(in, ptx.SpaceSharedCTA, src, size, l); !ok {
						return
					}
					w.asyncReadCheck(in, sc, soff, size, "cp.async.bulk")
					if u.race != nil {
						srcRead = u.race.asyncReadRegions(issueVC, in, sc, w.ID, 1<<l, nil, soff, size, "cp.async.bulk", w)
					}
				} else if srcBytes = w.mem(in, ptx.SpaceGlobal, src, size, l, false); srcBytes == nil {
					return
				}
				mbAddr := w.addrOf(&in.src[3], l, 0)
				mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, mbAddr, 8, l)
				if !ok {
					return
				}
				targets := []*CTA{c}
				if bi.multicast && len(in.src) > 4 {
					mask := uint32(w.src(&in.src[4], 0)[l]) & 0xFFFF
					targets = nil
					for r, tc := range c.clusterCTAs() {
						if mask>>r&1 == 1 {
							targets = append(targets, tc)
						}
					}
				}
				op := &asyncOp{kind: akBulkLoad, cta: w.cta, w: w, lane: l, tid: tid, in: in, issueVC: issueVC, hbRead: srcRead,
					desc: fmt.Sprintf("%d bytes → shared %#x, mbarrier %#x", size, off, moff)}
				for _, tc := range targets {
					op.wr = append(op.wr, region{tc, off, size})
				}
				if sc != nil {
					op.rd = []region{{sc, soff, size}}
				}
				barrierOf := func(tc *CTA) *mbarrier {
					if bi.multicast {
						return tc.mbars[moff]
					}
					return mc.mbars[moff]
				}
				phases := make([]uint64, len(targets))
				for i, tc := range targets {
					if mb := barrierOf(tc); mb != nil && mb.live {
						phases[i] = mb.copyIssued(w, in, tid, int64(size), mb.cta == w.cta)
						if u.race != nil {
							u.race.mbarInitCheck(w, in, mb, issueVC)
							u.race.asyncWriteIssue(op, tc, off, size, issueVC, mb, phases[i])
						}
					}
				}
				op.run = func(op *asyncOp) {
					data := srcBytes
					if sc != nil {
						data = sc.Smem[soff : soff+uint32(size)]
					}
					for i, tc := range targets {
						copy(tc.Smem[off:off+uint32(size)], data)
						if mb := barrierOf(tc); mb != nil && mb.live {
							if u.race != nil {
								e := u.race.mbarEpoch(mb, in.PC, ekCopy)
								u.race.asyncWriteDone(op, tc, e)
								op.hbRead.release(e)
								u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
							}
							mb.copyLanded(in.PC, phases[i])
							mb.completeTx(in, int64(size))
						} else {
							u.m.mbarUninit(tc, moff, mb, u.race.issuePoint(op), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: tc.ID, Warp: -1,
								Msg: fmt.Sprintf("a bulk copy completes on the mbarrier at %#x, which is not initialized", moff)}, false)
						}
					}
				}
				u.issue(op)
				continue
			}
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, src, size, l)
			if !ok {
				return
			}
			g := w.mem(in, ptx.SpaceGlobal, dst, size, l, true)
			if g == nil {
				return
			}
			w.asyncReadCheck(in, c, off, size, "a bulk store")
			op := &asyncOp{kind: akBulkStore, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{c, off, size}},
				desc: fmt.Sprintf("shared %#x → global %#x (%d bytes)", off, dst, size)}
			if u.race != nil {
				op.issueVC = u.race.issueVC(w)
				op.hbRead = u.race.asyncReadRegions(op.issueVC, in, c, w.ID, 1<<l, nil, off, size, "bulk store", w)
			}
			op.run = func(op *asyncOp) { copy(g, c.Smem[off:off+uint32(size)]) }
			w.cta.bulkGroups(tid).add(op)
			u.issue(op)
		}
	}
	return nil
}

// cp.async (sm_80) --------------------------------------------------------------

type cpAsyncGroups struct {
	open   []*asyncOp
	groups [][]*asyncOp
}

func (c *CTA) cpGroups(tid int) *cpAsyncGroups {
	if c.cpasync[tid] == nil {
		c.cpasync[tid] = &cpAsyncGroups{}
	}
	return c.cpasync[tid]
}

func decCpAsync(d *decoder) error {
	x := d.x
	ops := x.Operands
	for i := 0; i < len(ops); i++ {
		var o Opnd
		var err error
		if _, isAddr := ops[i].(*ptx.Address); isAddr {
			o, err = d.addr(ops[i])
		} else {
			o, err = d.val(ops[i], ptx.U32)
		}
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	hasSrcSize := len(ops) >= 4 && !x.Has("L2::cache_hint") || len(ops) >= 5
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst, src := w.addrOf(&in.src[0], l, 0), w.addrOf(&in.src[1], l, 1)
			size := int(w.src(&in.src[2], 2)[l])
			srcSize := size
			if hasSrcSize {
				srcSize = int(uint32(w.src(&in.src[3], 2)[l]))
			}
			if size != 4 && size != 8 && size != 16 {
				w.fault(in, l, "cp.async: cp-size %d must be 4, 8 or 16", size)
				return
			}
			c, off, ok := w.sharedAddr(in, ptx.SpaceShared, dst, size, l)
			if !ok {
				return
			}
			if off%uint32(size) != 0 || src%uint64(size) != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("cp.async of %d bytes: addresses %#x and %#x must be %d-byte aligned", size, off, src, size)})
			}
			var g []byte
			if srcSize > 0 {
				if g = w.mem(in, ptx.SpaceGlobal, src, min(srcSize, size), l, false); g == nil {
					return
				}
			}
			tid := 32*w.ID + l
			op := &asyncOp{kind: akCpAsync, cta: w.cta, w: w, lane: l, tid: tid, in: in, wr: []region{{c, off, size}},
				desc: fmt.Sprintf("%d bytes → shared %#x", size, off)}
			op.run = func(op *asyncOp) {
				d := c.Smem[off : off+uint32(size)]
				n := copy(d, g)
				for k := n; k < size; k++ {
					d[k] = 0
				}
				if c.srcTags != nil {
					c.tagSource(off, size, src, n)
				}
			}
			w.cta.cpGroups(tid).open = append(w.cta.cpGroups(tid).open, op)
			if u.race != nil {
				op.issueVC = u.race.issueVC(w)
				u.race.asyncWriteIssue(op, c, off, size, op.issueVC, nil, 0)
			}
			u.issue(op)
		}
	}
	return nil
}

func decCpAsyncCommit(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		forLanes(m, func(l int) {
			g := w.cta.cpGroups(32*w.ID + l)
			g.groups = append(g.groups, g.open)
			g.open = nil
		})
	}
	return nil
}

func decCpAsyncWait(all bool) decodeFn {
	return func(d *decoder) error {
		n := 0
		if !all {
			im, ok := d.x.Operands[0].(*ptx.Imm)
			if !ok {
				return fmt.Errorf("cp.async.wait_group: N must be an immediate")
			}
			n = int(im.Int())
		}
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			u := w.cta.u
			forLanes(m, func(l int) {
				g := w.cta.cpGroups(32*w.ID + l)
				var done []*asyncOp
				if all {
					for _, gr := range g.groups {
						done = append(done, gr...)
					}
					done = append(done, g.open...)
					g.groups, g.open = nil, nil
				} else {
					for len(g.groups) > n {
						done = append(done, g.groups[0]...)
						g.groups = g.groups[1:]
					}
				}
				for _, op := range done {
					u.completeWhere(func(x *asyncOp) bool { return x == op })
					if u.race != nil {
						// the writes are complete, and visible to this thread, here
						e := epoch{slot: int32(w.uid), clock: u.race.vc[w.uid][w.uid], pc: int32(op.in.PC), kind: ekCpAsync, lane: int8(l)}
						u.race.asyncWriteDone(op, op.cta, e)
					}
				}
			})
		}
		return nil
	}
}

func decCpAsyncArrive(d *decoder) error {
	a, err := d.memAddr(d.x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	noinc := d.x.Has("noinc")
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			mb, mc, off, ok := w.mbarAt(in, l, false)
			if !ok {
				return
			}
			if mb == nil || !mb.live {
				u.m.mbarUninit(mc, off, mb, w.cta.u.race.warpPoint(w, in.PC), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("cp.async.mbarrier.arrive on the mbarrier at %#x before mbarrier.init", off)}, false)
				continue
			}
			if !noinc {
				mb.pending++
			}
			tid := 32*w.ID + l
			op := &asyncOp{kind: akCpAsyncArrive, cta: w.cta, w: w, lane: l, tid: tid, in: in, desc: fmt.Sprintf("arrive on mbarrier %#x", off)}
			// the thread's cp.async writes still in flight complete with
			// this arrival
			var writes []*asyncOp
			if u.race != nil {
				g := w.cta.cpGroups(tid)
				for _, gr := range append(g.groups, g.open) {
					for _, x := range gr {
						if u.race.pendingOf(x) {
							writes = append(writes, x)
						}
					}
				}
			}
			op.run = func(op *asyncOp) {
				if u.race != nil {
					e := u.race.mbarEpoch(mb, in.PC, ekCpAsync)
					for _, x := range writes {
						e.pc = int32(x.in.PC)
						u.race.asyncWriteDone(x, x.cta, e)
					}
					u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
				}
				mb.asyncArrive(in.PC, 1)
			}
			u.issue(op)
		}
	}
	return nil
}

// st.async: a store to (remote) shared memory that completes tx bytes on
// an mbarrier in the destination CTA.
func decStAsync(d *decoder) error {
	x := d.x
	if !x.Has("mbarrier::complete_tx::bytes") {
		return refStAsyncNoMbar.errorf("st.async without .mbarrier::complete_tx::bytes")
	}
	t := d.in.typ
	a, err := d.addr(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	vals := vecElems(x.Operands[1])
	for _, e := range vals {
		o, err := d.val(e, t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	mb, err := d.addr(x.Operands[2])
	if err != nil {
		return err
	}
	d.in.src = append(d.in.src, mb)
	es := elemBytes(t)
	n := len(vals)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst := w.addrOf(&in.src[0], l, 0)
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dst, es*n, l)
			if !ok {
				return
			}
			for k := 0; k < n; k++ {
				putLE(c.Smem[off+uint32(k*es):off+uint32((k+1)*es)], w.src(&in.src[1+k], 1)[l])
			}
			mbAddr := w.addrOf(&in.src[1+n], l, 2)
			mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, mbAddr, 8, l)
			if !ok {
				return
			}
			if mb := mc.mbars[moff]; mb != nil && mb.live {
				if u.race != nil {
					u.race.access(w, in, l, c, off, es*n, true)
					u.race.mbarArrive(w, mb, in.PC)
				}
				mb.completeTx(in, int64(es*n))
			} else {
				u.m.mbarHazard(w, in, 1<<l, HzMbarUninit, "st.async completes on the mbarrier at %#x, which is not initialized", moff)
			}
		}
	}
	return nil
}
