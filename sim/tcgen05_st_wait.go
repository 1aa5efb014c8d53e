package sim

import "fmt"

// tcgen05/st-before-wait (Options.Check).
//
// tcgen05.st is asynchronous: the TMEM it writes holds the new values only
// once the storing thread's tcgen05.wait::st has returned (PTX ISA
// 9.7.16.6: ld and st are not pipelined with the other tcgen05 operations,
// and the ISA's pattern for handing stored TMEM to another thread is
// tcgen05.st, tcgen05.wait::st, tcgen05.fence::before_thread_sync, the
// synchronization, tcgen05.fence::after_thread_sync, the consumer's
// tcgen05.mma or tcgen05.ld). A fence::before_thread_sync orders the
// store's issue before the synchronization, not its completion. So a
// tcgen05.mma (TMEM A operand, scale factors) or tcgen05.ld of another warp
// that reads cells a tcgen05.st wrote, ordered after the store by a
// synchronization before which the storing warp did not wait::st, reads
// TMEM whose contents are undefined: reported at the store (the line
// after which the wait goes), with the reader. An unordered reader is a
// race (tcgen05/tmem-race); a store still pending at the synchronization
// with no fence::before_thread_sync is tcgen05/missing-fence.

// stWaitRec is one tcgen05.wait::st of a warp: its clock, and how many
// tcgen05.st of the warp it covers.
type stWaitRec struct{ clock, seq uint32 }

// tcStHB is the unit's record of tcgen05.st and wait::st per warp slot.
type tcStHB struct {
	stores []uint32      // per warp: its tcgen05.st so far
	waits  [][]stWaitRec // per warp: its wait::st, in order
}

func (r *raceState) tcSt() *tcStHB {
	if r.tcst == nil {
		r.tcst = &tcStHB{stores: make([]uint32, r.nWarps), waits: make([][]stWaitRec, r.nWarps)}
	}
	return r.tcst
}

// tcStore numbers warp w's tcgen05.st (1, 2, ...).
func (r *raceState) tcStore(w *Warp) uint32 {
	s := r.tcSt()
	s.stores[w.uid]++
	return s.stores[w.uid]
}

// tcWaitSt records w's tcgen05.wait::st: every store of w so far is done.
func (r *raceState) tcWaitSt(w *Warp) {
	s := r.tcSt()
	l := s.waits[w.uid]
	c := r.vc[w.uid][w.uid]
	if n := len(l); n > 0 && l[n-1].clock == c {
		l[n-1].seq = s.stores[w.uid]
		return
	}
	s.waits[w.uid] = append(l, stWaitRec{clock: c, seq: s.stores[w.uid]})
}

// stWaited reports whether store seq of warp slot was waited for at a
// clock of the warp no later than upto.
func (r *raceState) stWaited(slot int32, seq, upto uint32) bool {
	s := r.tcSt()
	l := s.waits[slot]
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].clock <= upto {
			return l[i].seq >= seq
		}
	}
	return false
}

// stCheck checks a read of TMEM cell idx of t by warp rw at in (a
// tcgen05.ld, or the tcgen05.mma rw issues) against the cell's last
// tcgen05.st; it reports at most once per reading instruction (*done).
func (t *tmemState) stCheck(rw *Warp, in *Inst, idx int, done *bool) {
	if *done || t.stSeq == nil || t.stSeq[idx] == 0 {
		return
	}
	r := rw.cta.u.race
	e := t.writtenBy[idx]
	v := r.vc[rw.uid]
	if e.slot < 0 || int(e.slot) == rw.uid || !orderedVC(e, v) || r.stWaited(e.slot, t.stSeq[idx], get(v, e.slot)) {
		return
	}
	*done = true
	sw := r.u.warps[e.slot]
	r.u.m.hazard(Hazard{Kind: HzTcgenWaitSt, Severity: SevError, PC: int(e.pc), CTA: sw.cta.ID, Warp: sw.ID,
		Msg: fmt.Sprintf("tcgen05.st writes TMEM (lane %d, column %d) that the %s of warp %d reads after a synchronization, but the storing warp did not wait for the store (tcgen05.wait::st) before it synchronized: the reader may see the old contents",
			idx/tmemCols, idx%tmemCols, in.PTX.Opcode, rw.ID),
		Detail:  "tcgen05.st completes at the storing thread's tcgen05.wait::st; hand the TMEM over with tcgen05.wait::st, tcgen05.fence::before_thread_sync, the barrier or arrival, and tcgen05.fence::after_thread_sync in the reader",
		Related: r.pcPos(int32(in.PC))})
}

// noteStore records that warp w's store seq wrote cell idx (seq 0: the
// cell's last write is not a tcgen05.st).
func (t *tmemState) noteStore(idx int, seq uint32) {
	if t.writtenBy == nil {
		return
	}
	if t.stSeq == nil {
		t.stSeq = make([]uint32, len(t.cells))
	}
	t.stSeq[idx] = seq
}
