package sim

import "fmt"

// Happens-before checking of generic shared-memory accesses (race.go has
// the model): races, intra-warp exchanges, early reads of asynchronous
// copies, and wrong parities behind them.

// generic accesses ---------------------------------------------------------------

// access checks a generic-proxy access of n bytes at off in c's shared
// memory by lane of warp w.
func (r *raceState) access(w *Warp, in *Inst, lane int, c *CTA, off uint32, n int, write bool) {
	cells := r.shadow[c]
	i := w.uid
	kind := ekGeneric
	if w.atomicAccess {
		kind = ekAtomic
	}
	now := epoch{slot: int32(i), clock: r.vc[i][i], pc: int32(in.PC), kind: kind, lane: int8(lane)}
	var fs findings
	var rev []epoch // earlier reads this write races with (reported at the read)
	hi := off + uint32(n)
	r.checkPending(w, c, off, hi, write, &fs)
	if write {
		r.checkAsyncReads(c, off, hi, r.vc[i], int32(in.PC), HzAsyncSourceReuse, w, &fs)
	}
	sync := r.lastSync[i]
	for k := 0; k < n; k++ {
		o := off + uint32(k)
		cell := &cells[o]
		we := cell.w
		switch {
		case kind == ekAtomic && we.kind == ekAtomic:
			// atomics do not race with each other
		case int(we.slot) == i:
			if we.lane >= 0 && int(we.lane) != lane && we.clock >= sync && we.kind != ekAtomic {
				fs.add(HzWarpExchange, we.pc, o, func(lo uint32) string {
					return fmt.Sprintf("lane %d %s shared byte %#x that lane %d of the same warp wrote, with no bar.warp.sync (or barrier) between", lane, rwVerb(write), lo, we.lane)
				}, "the lanes of a warp are not implicitly synchronized: without __syncwarp() the write need not be visible to, nor ordered before, the other lane's access")
			}
		case !r.ordered(we, i):
			cell.w.clock = 0 // report once: later accesses count it as ordered
			if mb := r.mbarSlot[we.slot]; we.kind == ekCopy && !write && mb != nil && r.wrongParity(w, mb, uint64(we.clock)-1, we.pc, o, &fs) {
				continue
			}
			if r.refilled[[2]int32{we.pc, int32(in.PC)}] {
				continue
			}
			if we.kind == ekCopy || we.kind == ekCpAsync {
				fs.add(HzAsyncEarlyRead, we.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s of shared byte %#x, which an asynchronous copy wrote, before this warp observed the copy's completion", rw(write), lo)
				}, "wait on the copy's mbarrier phase (mbarrier.try_wait.parity), or cp.async.wait_group and a barrier, before touching its destination")
				if r.taintedSlot(we.slot) {
					fs.link(HzAsyncEarlyRead, we.pc, r.mbarSlot[we.slot])
				} else {
					fs.rootAt(HzAsyncEarlyRead, we.pc, r.mbarSlot[we.slot], r.pointOf(w))
				}
			} else {
				fs.add(HzRace, we.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s of shared byte %#x races with a write by %s", rw(write), lo, r.slotName(we.slot))
				}, "the two accesses are not ordered by a barrier, an mbarrier or any other synchronization")
			}
		}
		if write {
			if cell.r.slot == -2 {
				for _, e := range r.readers[readerKey{c, o}] {
					if !r.ordered(e, i) && !(kind == ekAtomic && e.kind == ekAtomic) {
						rev = addRev(rev, e, o)
						break
					}
				}
				delete(r.readers, readerKey{c, o})
			} else if e := cell.r; int(e.slot) == i {
				if e.lane >= 0 && int(e.lane) != lane && e.clock >= sync {
					fs.add(HzWarpExchange, e.pc, o, func(lo uint32) string {
						return fmt.Sprintf("lane %d writes shared byte %#x that lane %d of the same warp read, with no bar.warp.sync (or barrier) between", lane, lo, e.lane)
					}, "the lanes of a warp are not implicitly synchronized: without __syncwarp() the read may see the new value")
				}
			} else if !r.ordered(e, i) && !(kind == ekAtomic && e.kind == ekAtomic) {
				rev = addRev(rev, e, o)
			}
			cell.w = now
			cell.r = noEpoch
			continue
		}
		switch {
		case cell.r.slot == -2:
			key := readerKey{c, o}
			rs := r.readers[key]
			found := false
			for j := range rs {
				if rs[j].slot == now.slot {
					rs[j] = now
					found = true
				}
			}
			if !found {
				r.readers[key] = append(rs, now)
			}
		case cell.r.slot < 0 || cell.r.slot == now.slot || r.ordered(cell.r, i):
			cell.r = now
		default:
			r.readers[readerKey{c, o}] = []epoch{cell.r, now}
			cell.r.slot = -2
		}
	}
	if len(fs) > 0 {
		r.report(fs, in.PC, w.cta, w.ID, 1<<lane)
	}
	r.reportRev(rev, w, in)
}

// addRev notes an earlier read e of byte o that a write races with (once
// per reading instruction and warp; off is the first byte).
func addRev(rev []epoch, e epoch, o uint32) []epoch {
	for _, x := range rev {
		if x.pc == e.pc && x.slot == e.slot {
			return rev
		}
	}
	e.clock = o // (the byte, for the message)
	return append(rev, e)
}

// reportRev reports the reads that warp w's write at in races with as
// observed at the read, as when the read comes second: the same race is
// one finding whichever access the schedule ran first.
func (r *raceState) reportRev(rev []epoch, w *Warp, in *Inst) {
	for _, e := range rev {
		rw := r.u.warps[e.slot]
		o := e.clock
		fs := findings{{kind: HzRace, related: int32(in.PC), cause: -1, lo: o, hi: o + 1,
			msg: func(lo uint32) string {
				return fmt.Sprintf("read of shared byte %#x races with a write by %s", lo, r.slotName(int32(w.uid)))
			}, detail: "the two accesses are not ordered by a barrier, an mbarrier or any other synchronization"}}
		lanes := uint32(0)
		if e.lane >= 0 {
			lanes = 1 << e.lane
		}
		r.report(fs, int(e.pc), rw.cta, rw.ID, lanes)
	}
}

func rw(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

func rwVerb(write bool) string {
	if write {
		return "writes"
	}
	return "reads"
}

// checkPending reports an access to bytes an asynchronous write still
// writes (no access is ordered after a write in flight).
func (r *raceState) checkPending(w *Warp, c *CTA, lo, hi uint32, write bool, fs *findings) {
	for _, p := range r.pend[c] {
		if p.hi <= lo || p.lo >= hi {
			continue
		}
		o := max(lo, p.lo)
		if !write {
			if r.wrongParity(w, p.mb, p.armPhase, int32(p.op.in.PC), o, fs) {
				return
			}
		}
		if in := w.currentInst(); in != nil && r.refilled[[2]int32{int32(p.op.in.PC), int32(in.PC)}] {
			return
		}
		what := p.op.kind.String()
		fs.add(HzAsyncEarlyRead, int32(p.op.in.PC), o, func(lo uint32) string {
			return fmt.Sprintf("%s of shared byte %#x while the %s writing it is in flight: no completion of the copy is ordered before this access", rw(write), lo, what)
		}, "wait for the copy (its mbarrier phase, or cp.async.wait_group and a barrier) before touching its destination")
		if p.mb != nil && p.mb.tainted {
			fs.link(HzAsyncEarlyRead, int32(p.op.in.PC), p.mb)
		} else {
			fs.rootAt(HzAsyncEarlyRead, int32(p.op.in.PC), p.mb, r.pointOf(w))
		}
		return
	}
}

// wrongParity attributes an early read of a copy that completes phase
// phase of mb to the reader's last wait on mb when that wait passed for an
// earlier phase: the wait's parity is the line to fix.
func (r *raceState) wrongParity(w *Warp, mb *mbarrier, phase uint64, copyPC int32, off uint32, fs *findings) bool {
	if mb == nil || mb.hb == nil {
		return false
	}
	lw, ok := mb.hb.lastWait[w.uid]
	// A wait that passed for phase -1 (the one before the first, complete
	// on a fresh barrier) followed by a read of copied data: the parity
	// is wrong. (A wait for a real phase followed by a read of a later
	// phase's copy is a refill race, reported from the refill's side.)
	if !ok || lw.intended != -1 || int64(phase) <= lw.intended {
		return false
	}
	intended := lw.intended
	// The wrong parity is a root cause: what the early waiter (and every
	// later waiter of the barrier) does next is out of step.
	f := finding{kind: HzMbarPhase, related: copyPC, cause: lw.pc, lo: off, hi: off + 1,
		via: mb, root: true, point: taintPoint{unit: r.id, slot: int32(w.uid), clock: lw.clock},
		msg: func(lo uint32) string {
			return fmt.Sprintf("the mbarrier wait passed for phase %d (parity %d), but the copy of this data completes phase %d: the wait names the wrong phase parity, so shared byte %#x is read before it lands", intended, lw.parity, phase, lo)
		},
		detail: "try_wait.parity p passes once the latest completed phase has parity p; the consumer must wait on the parity of the phase the producer fills next ((iteration / stages) & 1)"}
	*fs = append(*fs, f)
	return true
}

// checkAsyncReads reports a write to bytes an asynchronous read may still
// read: none of its releases is ordered before the writer (clock v; warp
// w, nil for none). A wgmma's operands that no wait released name the
// missing wait as the line to fix (wgmma_wait.go).
func (r *raceState) checkAsyncReads(c *CTA, lo, hi uint32, v []uint32, pc int32, kind HazardKind, w *Warp, fs *findings) {
	for _, a := range r.areads[c] {
		if !a.regs.overlaps(lo, hi) || a.released(v) {
			continue
		}
		o, end := hi, lo
		for _, x := range a.regs {
			if x.hi > lo && x.lo < hi {
				o, end = min(o, max(lo, x.lo)), max(end, min(hi, x.hi))
			}
		}
		what := a.what
		pending := len(a.releases) == 0
		msg := func(lo uint32) string {
			s := fmt.Sprintf("overwrites shared bytes (from %#x) that the %s may still read", lo, what)
			if pending {
				return s + ": nothing has released them yet"
			}
			return s + ": the point that releases them is not ordered before this write"
		}
		detail := "the operand is read asynchronously until the operation is waited for (wgmma.wait_group, the tcgen05.commit's mbarrier phase, cp.async.bulk.wait_group.read); the readers must release the buffer (wait, then a barrier or an mbarrier arrive the producer waits on) before it is overwritten"
		fs.addRange(kind, a.pc, o, end, msg, detail)
		r.uncoveredRead(a, kind, w, pc, *fs)
	}
}

func (a *asyncRead) released(v []uint32) bool {
	for _, e := range a.releases {
		if orderedVC(e, v) {
			return true
		}
	}
	return false
}
