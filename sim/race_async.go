package sim

import (
	"fmt"
	"sort"
)

// Happens-before checking of asynchronous reads and writes of shared
// memory (race.go has the model): operands of wgmma and tcgen05.mma, TMA
// store sources, copies in flight, proxy fences.

// pendingWrite is an asynchronous write no access is ordered after yet.
type pendingWrite struct {
	op       *asyncOp
	lo, hi   uint32
	mb       *mbarrier // the barrier its completion is observed through, or nil
	armPhase uint64    // the phase of mb it was issued for
}

// asyncRead is shared memory read by an asynchronous operation: the reads
// are done once any of releases is ordered before an access.
type asyncRead struct {
	regs     spans
	pc       int32
	what     string
	releases []epoch
	cta      *CTA
	// a wgmma's operands: the op and its warpgroup (wgmma_wait.go)
	wgop *wgmmaOp
	wg   *warpgroup
}

// asynchronous reads ------------------------------------------------------------

// asyncReadRegions checks an async-proxy read (the operands of a wgmma or
// tcgen05.mma, the source of a TMA store or bulk copy) of the 16-byte
// chunks at offsets chunks (or [off, off+n) when chunks is nil), issued at
// the point with clock vector v, and records it. The returned record is
// released by the caller's release point.
func (r *raceState) asyncReadRegions(v []uint32, in *Inst, c *CTA, warp int, lanes uint32, chunks []uint32, off uint32, n int, what string, reader *Warp) *asyncRead {
	a := &asyncRead{pc: int32(in.PC), what: what, cta: c}
	if chunks == nil {
		a.regs.add(off, off+uint32(n))
	} else {
		for _, ch := range chunks {
			a.regs.add(ch, ch+16)
		}
	}
	var fs findings
	for _, s := range a.regs {
		if reader != nil {
			r.checkPending(reader, c, s.lo, s.hi, false, &fs)
		}
		r.checkAsyncSource(v, c, s.lo, s.hi, what, reader, &fs)
	}
	if len(fs) > 0 {
		span := 0
		if warp < 0 && reader != nil {
			// a wgmma: the warpgroup's four warps read together
			warp, span, lanes = reader.ID&^3, min(4, len(reader.cta.Warps)-reader.ID&^3), 0
		}
		r.reportBy(fs, in.PC, c, warp, span, lanes, v)
	}
	r.addAsyncRead(c, a)
	return a
}

// checkAsyncSource checks the writes of bytes an async-proxy read reads:
// ordered before the read, and (generic writes) made visible to the async
// proxy by fence.proxy.async.
func (r *raceState) checkAsyncSource(v []uint32, c *CTA, lo, hi uint32, what string, reader *Warp, fs *findings) {
	cells := r.shadow[c]
	for o := lo; o < hi; o++ {
		e := cells[o].w
		if e.slot < 0 {
			continue
		}
		if !orderedVC(e, v) {
			if reader != nil && e.kind == ekCopy {
				if mb := r.mbarSlot[e.slot]; mb != nil && r.wrongParity(reader, mb, uint64(e.clock)-1, e.pc, o, fs) {
					return
				}
			}
			if e.kind == ekCopy || e.kind == ekCpAsync {
				fs.add(HzAsyncEarlyRead, e.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s reads shared bytes from %#x that an asynchronous copy wrote, before the issuing warps observed the copy's completion", what, lo)
				}, "the mbarrier wait (or cp.async.wait_group and barrier) that should order the copy before this read is missing or waits on the wrong phase")
				if r.taintedSlot(e.slot) {
					fs.link(HzAsyncEarlyRead, e.pc, r.mbarSlot[e.slot])
				} else if reader != nil {
					fs.rootAt(HzAsyncEarlyRead, e.pc, r.mbarSlot[e.slot], r.pointOf(reader))
				}
			} else {
				fs.add(HzRace, e.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s reads shared bytes from %#x that %s wrote, with no synchronization ordering the write before the read", what, lo, r.slotName(e.slot))
				}, "the writes must be ordered before the issuing thread (fence.proxy.async, then a barrier) before the asynchronous read")
			}
			continue
		}
		if e.kind == ekCopy || r.fenced(e, v) {
			continue
		}
		if e.kind == ekCpAsync && what == "wgmma.mma_async" {
			f := finding{kind: HzProxyCpAsync, related: e.pc, cause: -1, lo: o, hi: o + 1, group: "cp.async→wgmma",
				msg: func(lo uint32) string {
					return fmt.Sprintf("wgmma.mma_async reads shared bytes (from %#x) that cp.async wrote, with no fence.proxy.async between: the ISA asks for an async-proxy fence; Triton and CUTLASS omit it and the H100 computes correctly", lo)
				},
				detail: "portability: correct on the H100 (Triton 3.6 and CUTLASS emit this pattern), undefined by the ISA; add fence.proxy.async.shared::cta after the wait for strict conformance (tcsim run --rules proxy/cp-async-to-wgmma)"}
			merged := false
			for i := range *fs {
				if (*fs)[i].kind == HzProxyCpAsync && (*fs)[i].related == e.pc {
					(*fs)[i].lo, (*fs)[i].hi = min((*fs)[i].lo, o), max((*fs)[i].hi, o+1)
					merged = true
				}
			}
			if !merged {
				*fs = append(*fs, f)
			}
			continue
		}
		rel := r.releaseOf(e.slot, e.clock)
		found := false
		for i := range *fs {
			if f := &(*fs)[i]; f.kind == HzProxyFence && f.related == e.pc {
				f.lo, f.hi = min(f.lo, o), max(f.hi, o+1)
				found = true
			}
		}
		if !found {
			f := finding{kind: HzProxyFence, related: e.pc, cause: rel, lo: o, hi: o + 1,
				msg: func(lo uint32) string {
					return fmt.Sprintf("%s reads shared bytes (from %#x) written in the generic proxy, with no fence.proxy.async between the write and this async-proxy read", what, lo)
				},
				detail: "generic-proxy stores (st.shared, stmatrix, cp.async) are not visible to the async proxy (wgmma, TMA, tcgen05) until fence.proxy.async: by the writing thread before it synchronizes with the issuing thread (before the barrier at the fix line), or by the issuing thread after it"}
			*fs = append(*fs, f)
		}
	}
}

// fenced reports whether a generic write e is made visible to an
// async-proxy read at clock vector v: a fence.proxy.async by the writer
// after the write that is ordered before the read, or one by a warp that
// had acquired the write before its fence and is ordered before the read.
func (r *raceState) fenced(e epoch, v []uint32) bool {
	u := int(e.slot)
	if u < r.nWarps {
		fs := r.fences[u]
		j := sort.Search(len(fs), func(j int) bool { return fs[j] >= e.clock })
		if j < len(fs) && fs[j] <= get(v, int32(u)) {
			return true
		}
	}
	for i := 0; i < r.nWarps; i++ {
		fv := r.fenceVC[i]
		if fv == nil || get(fv, e.slot) < e.clock {
			continue
		}
		// warp i fenced after acquiring the write; is that fence ordered
		// before the read?
		if fc := fv[i]; fc <= get(v, int32(i)) {
			return true
		}
	}
	return false
}

func (r *raceState) addAsyncRead(c *CTA, a *asyncRead) {
	l := r.areads[c]
	if len(l) >= 64 {
		l = r.gcAsyncReads(l)
	}
	r.areads[c] = append(l, a)
}

// gcAsyncReads drops reads that every warp is ordered after.
func (r *raceState) gcAsyncReads(l []*asyncRead) []*asyncRead {
	out := l[:0]
	for _, a := range l {
		done := len(a.releases) > 0
		for i, w := range r.u.warps {
			if !done {
				break
			}
			if w.state == warpDone {
				continue
			}
			done = a.released(r.vc[i])
		}
		if !done {
			out = append(out, a)
		}
	}
	for k := len(out); k < len(l); k++ {
		l[k] = nil
	}
	return out
}

// release marks an asynchronous read as done from the point e on.
func (a *asyncRead) release(e epoch) {
	if a != nil {
		a.releases = append(a.releases, e)
	}
}

// releaseByWarp is a release at warp w's current point (a wait).
func (r *raceState) releaseByWarp(a *asyncRead, w *Warp) {
	a.release(epoch{slot: int32(w.uid), clock: r.vc[w.uid][w.uid], lane: -1})
}

// tcgen05 reads wait for a commit by the issuing thread.
func (r *raceState) tcRead(c *CTA, tid int, a *asyncRead) {
	m := r.tcReads[c]
	if m == nil {
		m = map[int][]*asyncRead{}
		r.tcReads[c] = m
	}
	m[tid] = append(m[tid], a)
}

// tcCommit hands the thread's uncommitted tcgen05 reads to a commit.
func (r *raceState) tcCommit(c *CTA, tid int) []*asyncRead {
	m := r.tcReads[c]
	if m == nil {
		return nil
	}
	l := m[tid]
	delete(m, tid)
	return l
}

// asynchronous writes ---------------------------------------------------------------

// asyncWriteIssue checks an asynchronous write of [off, off+n) in c issued
// at clock vector v (a refill must be ordered after the earlier accesses
// of the bytes) and records it in flight.
func (r *raceState) asyncWriteIssue(op *asyncOp, c *CTA, off uint32, n int, v []uint32, mb *mbarrier, armPhase uint64) {
	hi := off + uint32(n)
	var fs findings
	for _, p := range r.pend[c] {
		if p.hi > off && p.lo < hi && p.op != op {
			o := max(off, p.lo)
			fs.add(HzAsyncOverlap, int32(p.op.in.PC), o, func(lo uint32) string {
				return fmt.Sprintf("%s writes shared bytes (from %#x) that another asynchronous copy in flight also writes", op.kind, lo)
			}, "the two copies are not ordered: which one lands last is undefined")
			if p.mb != nil && p.mb.tainted {
				fs.link(HzAsyncOverlap, int32(p.op.in.PC), p.mb)
			} else if op.w != nil {
				// a producer that refills a buffer whose previous copy
				// it was not ordered after runs ahead of the pipeline:
				// what follows on the barrier (extra arrivals, waiters
				// passing early or lapped) and after this point is out
				// of step
				fs.rootAt(HzAsyncOverlap, int32(p.op.in.PC), p.mb, r.pointOf(op.w))
			}
			break
		}
	}
	r.checkAsyncReads(c, off, hi, v, int32(op.in.PC), HzAsyncRefill, op.w, &fs)
	cells := r.shadow[c]
	for o := off; o < hi; o++ {
		cell := &cells[o]
		if e := cell.r; e.slot >= 0 && !orderedVC(e, v) {
			r.refilled[[2]int32{int32(op.in.PC), e.pc}] = true
			fs.add(HzAsyncRefill, e.pc, o, func(lo uint32) string {
				return fmt.Sprintf("%s refills shared bytes (from %#x) that %s read, with nothing ordering that read before the refill was issued", op.kind, lo, r.slotName(e.slot))
			}, "the readers of a stage must release it (bar.sync, or an mbarrier arrive the producer waits on) before the producer refills it; otherwise the copy can land while they still read")
		} else if e.slot == -2 {
			for _, e := range r.readers[readerKey{c, o}] {
				if !orderedVC(e, v) {
					r.refilled[[2]int32{int32(op.in.PC), e.pc}] = true
					fs.add(HzAsyncRefill, e.pc, o, func(lo uint32) string {
						return fmt.Sprintf("%s refills shared bytes (from %#x) that %s read, with nothing ordering that read before the refill was issued", op.kind, lo, r.slotName(e.slot))
					}, "the readers of a stage must release it (bar.sync, or an mbarrier arrive the producer waits on) before the producer refills it; otherwise the copy can land while they still read")
					break
				}
			}
		}
		if e := cell.w; e.slot >= 0 && !orderedVC(e, v) {
			kind := HzRace
			if e.kind == ekCopy || e.kind == ekCpAsync {
				kind = HzAsyncOverlap
			}
			fs.add(kind, e.pc, o, func(lo uint32) string {
				return fmt.Sprintf("%s overwrites shared bytes (from %#x) that %s wrote, with nothing ordering that write before the copy", op.kind, lo, r.slotName(e.slot))
			}, "the earlier write must be ordered before the copy is issued")
			if r.taintedSlot(e.slot) {
				fs.link(kind, e.pc, r.mbarSlot[e.slot])
			} else if kind == HzAsyncOverlap && op.w != nil {
				// the copy landed, but nothing ordered the refill after
				// it: the producer runs ahead, as above
				fs.rootAt(kind, e.pc, r.mbarSlot[e.slot], r.pointOf(op.w))
			}
		}
	}
	if len(fs) > 0 {
		warp := -1
		if op.w != nil {
			warp = op.w.ID
		}
		r.report(fs, op.in.PC, op.cta, warp, 1<<op.lane)
	}
	r.pend[c] = append(r.pend[c], &pendingWrite{op: op, lo: off, hi: hi, mb: mb, armPhase: armPhase})
}

// asyncWriteDone records that op's write of c's bytes is complete from the
// point e on.
func (r *raceState) asyncWriteDone(op *asyncOp, c *CTA, e epoch) {
	l := r.pend[c]
	for i := 0; i < len(l); i++ {
		p := l[i]
		if p.op != op {
			continue
		}
		cells := r.shadow[c]
		for o := p.lo; o < p.hi; o++ {
			cell := &cells[o]
			cell.w = e
			if cell.r.slot == -2 {
				delete(r.readers, readerKey{c, o})
			}
			cell.r = noEpoch
		}
		l = append(l[:i], l[i+1:]...)
		i--
	}
	r.pend[c] = l
}

// pendingOf reports whether op still has a write in flight in c.
func (r *raceState) pendingOf(op *asyncOp) bool {
	for _, l := range r.pend {
		for _, p := range l {
			if p.op == op {
				return true
			}
		}
	}
	return false
}
