package sim

import "fmt"

// An mbarrier used before its mbarrier.init.
//
// When a thread initializes an mbarrier while another thread (or a copy
// it issued) uses it with nothing ordering the two, the schedule decides
// which comes first: the init (then the use is reported as
// mbarrier/init-unordered at the init: mbarInitCheck, mbarUseCheck) or the
// use (the barrier is not initialized yet). Both are one bug, the missing
// order, and its line to fix is the init. So with the checker a use of an
// uninitialized mbarrier is reported as mbarrier/uninitialized at once (a
// stepper stops there), and remembered: if an mbarrier.init of the same
// barrier follows that the use is not ordered before (a copy issued by
// another warp, a wait or arrival of a warp that did not synchronize with
// the initializing one), the observation becomes mbarrier/init-unordered
// at the init, a root cause on the barrier (the lost arrivals, bytes and
// phases and the hang that follow are its consequences), and the
// uninitialized finding is no finding. A use ordered before the init (the
// same thread issuing a copy and only then initializing the barrier), or
// one that no init follows, stays mbarrier/uninitialized.

// uninitUse is a use of an uninitialized mbarrier that a later init may
// turn into mbarrier/init-unordered.
type uninitUse struct {
	s *site // its mbarrier/uninitialized observation
	h Hazard
	e epoch // the using (or issuing) warp's point; slot -1: unknown
}

// mbarUninit reports h, a use of the uninitialized mbarrier at addr of c
// by the warp whose point is e (the issuing warp's, for an asynchronous
// completion; noEpoch: unknown), mb its object when there is one. root:
// the use is a root cause on mb (a wait that then waits for phases of a
// barrier nobody set up).
func (m *Machine) mbarUninit(c *CTA, addr uint32, mb *mbarrier, e epoch, h Hazard, root bool) {
	r := c.u.race
	if r == nil {
		if root && mb != nil {
			m.rootHazard(h, mb, 0)
			return
		}
		m.hazard(h)
		return
	}
	var s *site
	if root && mb != nil {
		mb.tainted = true
		s = r.root(h, 0, []*mbarrier{mb})
	} else {
		s = m.record(h, nil)
	}
	if s == nil {
		return // an allowed rule
	}
	k := mbarKey{cta: c.ID, addr: addr}
	if r.uninit == nil {
		r.uninit = map[mbarKey][]uninitUse{}
	}
	r.uninit[k] = append(r.uninit[k], uninitUse{s: s, h: h, e: e})
}

// warpPoint is warp w's current point as an epoch (noEpoch for nil).
func (r *raceState) warpPoint(w *Warp, pc int) epoch {
	if r == nil || w == nil {
		return noEpoch
	}
	return epoch{slot: int32(w.uid), clock: r.vc[w.uid][w.uid], pc: int32(pc)}
}

// issuePoint is the point at which op was issued (noEpoch: unknown).
func (r *raceState) issuePoint(op *asyncOp) epoch {
	if r == nil || op.w == nil || op.w.uid >= len(op.issueVC) {
		return noEpoch
	}
	return epoch{slot: int32(op.w.uid), clock: op.issueVC[op.w.uid], pc: int32(op.in.PC)}
}

// initAfterUses resolves the remembered uses of mb when warp w initializes
// it at in (called once the new life of mb is set up).
func (r *raceState) initAfterUses(w *Warp, in *Inst, mb *mbarrier) {
	k := keyOf(mb)
	uses := r.uninit[k]
	if len(uses) == 0 {
		return
	}
	delete(r.uninit, k)
	m := r.u.m
	for _, use := range uses {
		if use.e.slot >= 0 && (int(use.e.slot) == w.uid || orderedVC(use.e, r.vc[w.uid])) {
			continue // before the init in every order: uninitialized it stays
		}
		m.mu.Lock()
		use.s.converted++
		m.mu.Unlock()
		op := m.Prog.Insts[use.h.PC].PTX.Opcode
		h := Hazard{Kind: HzMbarInitOrder, PC: use.h.PC, CTA: use.h.CTA, Warp: use.h.Warp, Lanes: use.h.Lanes,
			Cause: m.Prog.pos(in),
			Msg: fmt.Sprintf("%s reached the mbarrier at %#x before its mbarrier.init (by %s), and nothing orders the init before it: in this run the barrier was not initialized yet, in another the init comes first; either way the arrival, bytes or phase can be lost",
				op, mb.addr, r.slotName(int32(w.uid))),
			Detail: "after mbarrier.init: fence.mbarrier_init.release.cluster (or fence.proxy.async.shared::cta) by the initializing thread, then bar.sync (barrier.cluster for other CTAs), then the first use"}
		ns := r.initRoot(h, mb)
		m.mu.Lock()
		if rec := m.hazards.roots.byMbar[k]; ns != nil && rec != nil && rec.site == use.s {
			m.hazards.roots.byMbar[k] = ns.links.root // the barrier's root cause is the init's now
		}
		m.mu.Unlock()
	}
}

// initRoot reports h, an mbarrier/init-unordered finding on mb, as a root
// cause on mb, unless an earlier root cause on mb explains it (a
// re-initialization of a live barrier makes its users unordered with the
// new init).
func (r *raceState) initRoot(h Hazard, mb *mbarrier) *site {
	k := keyOf(mb)
	h.via = &k
	return r.root(h, 0, []*mbarrier{mb})
}
