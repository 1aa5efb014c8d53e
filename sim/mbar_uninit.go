package sim

import "fmt"

// An mbarrier used before its mbarrier.init.
//
// When a thread initializes an mbarrier while another thread (or a copy
// it issued) uses it with nothing ordering the two, the schedule decides
// which comes first: the init (then the use is reported as
// mbarrier/init-unordered at the init, mbarInitCheck) or the use (the
// barrier is not initialized yet). Both are one bug, the missing order,
// and its line to fix is the init. So with the checker, a use of an
// uninitialized mbarrier is held back: if an mbarrier.init of the same
// barrier follows and the use is not ordered before it (a copy's
// completion never is), it is reported as mbarrier/init-unordered at the
// init, a root cause on the barrier (the lost arrivals, bytes and phases,
// the hang that follow are its consequences); a use ordered before the
// init, or one that no init follows, is mbarrier/uninitialized when the
// unit ends (or at that init).

// uninitUse is a held-back use of an uninitialized mbarrier.
type uninitUse struct {
	h     Hazard
	async bool  // the async proxy's completion: never ordered before an init
	e     epoch // the using warp's point (warp operations)
	root  bool  // a wait: a root cause on the barrier when reported
}

// mbarUninit reports h, a use of the uninitialized mbarrier at addr of c
// by warp w (nil: an asynchronous completion), mb its object when there is
// one. root: the use is a root cause on mb (a wait that then waits for
// phases of a barrier nobody set up).
func (m *Machine) mbarUninit(c *CTA, addr uint32, mb *mbarrier, w *Warp, h Hazard, root bool) {
	r := c.u.race
	if r == nil {
		if root && mb != nil {
			m.rootHazard(h, mb, 0)
			return
		}
		m.hazard(h)
		return
	}
	use := uninitUse{h: h, async: w == nil, e: noEpoch, root: root && mb != nil}
	if w != nil {
		use.e = epoch{slot: int32(w.uid), clock: r.vc[w.uid][w.uid], pc: int32(h.PC)}
	}
	k := mbarKey{cta: c.ID, addr: addr}
	if r.uninit == nil {
		r.uninit = map[mbarKey][]uninitUse{}
	}
	r.uninit[k] = append(r.uninit[k], use)
}

// initAfterUses resolves the held-back uses of mb when warp w initializes
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
		if !use.async && (int(use.e.slot) == w.uid || orderedVC(use.e, r.vc[w.uid])) {
			r.reportUninit(use, mb)
			continue
		}
		op := m.Prog.Insts[use.h.PC].PTX.Opcode
		h := Hazard{Kind: HzMbarInitOrder, PC: use.h.PC, CTA: use.h.CTA, Warp: use.h.Warp, Lanes: use.h.Lanes,
			Cause: m.Prog.pos(in),
			Msg: fmt.Sprintf("%s reached the mbarrier at %#x before its mbarrier.init (by %s), and nothing orders the init before it: in this run the barrier was not initialized yet, in another the init comes first; either way the arrival, bytes or phase can be lost",
				op, mb.addr, r.slotName(int32(w.uid))),
			Detail: "after mbarrier.init: fence.mbarrier_init.release.cluster (or fence.proxy.async.shared::cta) by the initializing thread, then bar.sync (barrier.cluster for other CTAs), then the first use"}
		r.initRoot(h, mb)
	}
}

// initRoot reports h, an mbarrier/init-unordered finding on mb, as a root
// cause on mb, unless an earlier root cause on mb explains it (a
// re-initialization of a live barrier makes its users unordered with the
// new init).
func (r *raceState) initRoot(h Hazard, mb *mbarrier) {
	k := keyOf(mb)
	h.via = &k
	r.root(h, 0, []*mbarrier{mb})
}

// reportUninit reports a held-back use as mbarrier/uninitialized.
func (r *raceState) reportUninit(use uninitUse, mb *mbarrier) {
	if use.root && mb != nil {
		r.root(use.h, 0, []*mbarrier{mb})
		return
	}
	r.u.m.hazard(use.h)
}

// flushUninit reports the uses that no init followed (the unit ended,
// hung or faulted).
func (r *raceState) flushUninit() {
	if len(r.uninit) == 0 {
		return
	}
	var ks []mbarKey
	for k := range r.uninit {
		ks = append(ks, k)
	}
	// a deterministic order (reports keep the first instance)
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && mbarKeyLess(ks[j], ks[j-1]); j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	for _, k := range ks {
		var mb *mbarrier
		for _, c := range r.u.ctas {
			if c.ID == k.cta {
				mb = c.mbars[k.addr]
			}
		}
		for _, use := range r.uninit[k] {
			r.reportUninit(use, mb)
		}
	}
	r.uninit = nil
}

func mbarKeyLess(a, b mbarKey) bool {
	if a.cta != b.cta {
		for i := 2; i >= 0; i-- {
			if a.cta[i] != b.cta[i] {
				return a.cta[i] < b.cta[i]
			}
		}
	}
	return a.addr < b.addr
}

// flushUninit reports the held-back uses of an uninitialized mbarrier
// (the unit is done, hung or faulted).
func (u *unit) flushUninit() {
	if u.race != nil {
		u.race.flushUninit()
	}
}
