package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Happens-before state of mbarriers (race.go has the model): phases,
// their completion clocks, the phase-lapping check and the initialization
// checks.

// obsRec is a wait for a phase: the next phase's arrivals must be ordered
// after the waiter's clock at the wait.
type obsRec struct {
	warp  int
	clock uint32
	pc    int32
}

// waitRec is a warp's last wait on a barrier.
type waitRec struct {
	pc       int32
	intended int64
	parity   int
	clock    uint32 // the warp's clock right after the wait
}

// acqRec is a successful wait: the warp slot and its clock right after.
type acqRec struct {
	slot  int32
	clock uint32
}

// arrRec is the arrivals of one warp in a phase: its clock at the first,
// and whether that arrival was ordered after an arrival of the phase
// before.
type arrRec struct {
	slot  int32
	clock uint32
	after bool
}

// arrivals are a phase's arrivals by warp; async: an asynchronous agent
// (a commit, a copy's arrive) arrived too.
type arrivals struct {
	warps []arrRec
	async bool
	count int64
}

// mbarHB is an mbarrier's happens-before state.
type mbarHB struct {
	slot     int32
	progress []uint32            // join of the current phase's arrivals
	hist     map[uint64][]uint32 // completion VC of recent phases
	oldest   uint64
	obs      map[uint64][]obsRec // waits of phase k, checked when k+1 completes
	init     epoch
	checked  map[int]bool // warps whose first async use was checked
	used     map[int]bool // warps whose first own use (wait, arrive) was checked
	lastWait map[int]waitRec
	lastArr  int32 // pc of the last arrival
	// acq: the successful waits of recent phases (for the taint points of
	// a root cause); arr, prevArr: the arrivals of the current phase and
	// of the one before (the init-count check)
	acq          map[uint64][]acqRec
	arr, prevArr arrivals
	countChecked bool
}

const mbarHistory = 16

// mbarriers ----------------------------------------------------------------------

func (r *raceState) mbarState(mb *mbarrier) *mbarHB {
	if mb.hb == nil {
		mb.hb = &mbarHB{slot: r.newSlot(), hist: map[uint64][]uint32{}, obs: map[uint64][]obsRec{},
			checked: map[int]bool{}, lastWait: map[int]waitRec{}, init: noEpoch, lastArr: -1}
		r.mbarSlot[mb.hb.slot] = mb
	}
	return mb.hb
}

// mbarInit starts a new life of mb (a new slot: phases restart at 0).
func (r *raceState) mbarInit(w *Warp, in *Inst, lane int, mb *mbarrier) {
	mb.hb = nil
	hb := r.mbarState(mb)
	hb.init = epoch{slot: int32(w.uid), clock: r.vc[w.uid][w.uid], pc: int32(in.PC), lane: int8(lane)}
	r.initAfterUses(w, in, mb)
}

func (r *raceState) mbarArrive(w *Warp, mb *mbarrier, pc int) {
	hb := r.mbarState(mb)
	join(&hb.progress, r.vc[w.uid])
	hb.lastArr = int32(pc)
	hb.arr.count++
	if !slices.ContainsFunc(hb.arr.warps, func(a arrRec) bool { return a.slot == int32(w.uid) }) {
		v := r.vc[w.uid]
		after := slices.ContainsFunc(hb.prevArr.warps, func(b arrRec) bool { return get(v, b.slot) >= b.clock })
		hb.arr.warps = append(hb.arr.warps, arrRec{slot: int32(w.uid), clock: v[w.uid], after: after})
	}
	r.tick(w)
}

func (r *raceState) mbarAsyncArrive(mb *mbarrier, vc []uint32, pc int) {
	hb := r.mbarState(mb)
	join(&hb.progress, vc)
	hb.lastArr = int32(pc)
	hb.arr.async = true
}

// mbarEpoch stamps asynchronous work completing in mb's current phase.
func (r *raceState) mbarEpoch(mb *mbarrier, pc int, kind epochKind) epoch {
	hb := r.mbarState(mb)
	return epoch{slot: hb.slot, clock: uint32(mb.phase + 1), pc: int32(pc), kind: kind, lane: -1}
}

// mbarPhaseDone records the completion of phase mb.phase-1 and checks the
// waits of the phase before it for lapping.
func (r *raceState) mbarPhaseDone(mb *mbarrier) {
	hb := r.mbarState(mb)
	done := mb.phase - 1 // mb.phase was already advanced
	v := clone(hb.progress)
	if done > 0 {
		if prev, ok := hb.hist[done-1]; ok {
			join(&v, prev)
		}
	}
	if int(hb.slot) >= len(v) {
		v = append(v, make([]uint32, int(hb.slot)+1-len(v))...)
	}
	v[hb.slot] = uint32(mb.phase)
	hb.hist[done] = v
	for len(hb.hist) > mbarHistory {
		delete(hb.hist, hb.oldest)
		hb.oldest++
	}
	hb.progress = nil
	for ph := range hb.acq {
		if ph+mbarHistory < done {
			delete(hb.acq, ph)
		}
	}
	if done > 0 {
		r.mbarCountCheck(mb, done)
		for _, o := range hb.obs[done-1] {
			if get(v, int32(o.warp)) < o.clock {
				r.lapped(mb, o, done-1, hb.lastArr, v)
			}
		}
		delete(hb.obs, done-1)
	}
	hb.prevArr, hb.arr = hb.arr, arrivals{}
}

// mbarCountCheck reports an mbarrier whose phases done-1 and done were
// completed by one round of arrivals: a warp that did not arrive in phase
// done-1 arrives in phase done with nothing ordering its arrival after
// those of phase done-1. That arrival belonged to phase done-1's round;
// the init count is smaller than one round, a waiter released by phase
// done-1 goes on before every arrival it waited for, and the barrier's
// waiters get lapped. The finding is at the mbarrier.init (the line to
// fix) and is a root cause: the lapping, the producer running ahead, its
// race with the late warps and the deadlock that follow are its
// consequences. (A correct barrier's rounds are either made by the same
// warps, in program order, or ordered by the waits between them.)
func (r *raceState) mbarCountCheck(mb *mbarrier, done uint64) {
	hb := mb.hb
	cur, prev := hb.arr, hb.prevArr
	if hb.countChecked || cur.async || prev.async || len(cur.warps) == 0 || len(prev.warps) == 0 || hb.init.slot < 0 {
		return
	}
	var late []arrRec
	for _, a := range cur.warps {
		if !a.after && !slices.ContainsFunc(prev.warps, func(b arrRec) bool { return b.slot == a.slot }) {
			late = append(late, a)
		}
	}
	if len(late) == 0 {
		return
	}
	hb.countChecked = true
	var names []string
	for _, a := range append(append([]arrRec(nil), prev.warps...), late...) {
		names = append(names, r.slotName(a.slot))
	}
	n := prev.count + int64(len(late))
	h := Hazard{Kind: HzMbarUnderflow, PC: int(hb.lastArr), CTA: mb.cta.ID, Warp: -1,
		Msg: fmt.Sprintf("mbarrier.init set %d arrivals per phase, but one round of at least %d arrivals that nothing orders apart completes phases %d and %d of the mbarrier at %#x: a waiter released by phase %d goes on before every arrival it waited for, and the waiters get lapped",
			mb.expected, n, done-1, done, mb.addr, done-1),
		Detail: fmt.Sprintf("the arrivals of %s are one round (nothing orders the late ones after phase %d's); make the init count the number of arrivals per round, or have fewer threads arrive", strings.Join(names, ", "), done-1),
		Cause:  r.pcPos(hb.init.pc)}
	// an earlier root cause on the barrier (a producer running ahead)
	// explains the extra round
	via := keyOf(mb)
	h.via = &via
	r.root(h, int64(done-1), []*mbarrier{mb})
}

// lapped reports a waiter of phase k lapped by the arrivals of phase k+1,
// whose completion clock is v (the stamp: a consequence of a root cause
// those arrivals are ordered after).
func (r *raceState) lapped(mb *mbarrier, o obsRec, k uint64, arrPC int32, v []uint32) {
	w := r.u.warps[o.warp]
	via := keyOf(mb)
	st := &hbStamp{unit: r.id, v: clone(v[:min(len(v), r.nWarps)])}
	join(&st.v, r.vc[o.warp][:r.nWarps])
	h := Hazard{Kind: HzMbarLapped, PC: int(o.pc), CTA: w.cta.ID, Warp: w.ID, via: &via, stamp: st,
		Msg: fmt.Sprintf("phase lapping: warp %d waited for phase %d of the mbarrier at %#x, and nothing orders the arrivals that complete phase %d after that wait: a fast producer can complete phases %d and %d before the warp looks, and its parity wait then hangs or passes on the wrong phase",
			w.ID, k, mb.addr, k+1, k, k+1),
		Detail: "bound the producer: the waiters should release the stage (mbarrier arrive on an 'empty' barrier the producer waits on, or a barrier) before the next phase can complete, or only the threads that track every phase should wait on this barrier",
		Group:  fmt.Sprintf("lapping mbarrier %#x", mb.addr)}
	if arrPC >= 0 {
		h.Related = r.pcPos(arrPC)
	}
	r.u.m.hazard(h)
}

// mbarAcquire is a successful wait of warp w on mb (parity, or a token's
// phase when token is true): it names the phase the warp intends, acquires
// that phase's arrivals and records the wait for the lapping check.
func (r *raceState) mbarAcquire(w *Warp, in *Inst, mb *mbarrier, parity int, token bool, tokenPhase uint64) {
	hb := r.mbarState(mb)
	i := w.uid
	var intended int64
	if token {
		intended = int64(tokenPhase)
	} else {
		known := int64(get(r.vc[i], hb.slot)) // phases 0..known-1 are known complete
		k := known - 1
		if int(k&1) != parity {
			k++
		}
		intended = k
	}
	last := int64(mb.phase) - 1
	if !token && last > intended {
		via := keyOf(mb)
		// the waiter is lapped by the arrivals of the phase it passes on:
		// its stamp is its clock once it has acquired them
		st := &hbStamp{unit: r.id, v: clone(r.vc[i][:r.nWarps])}
		if v, ok := hb.hist[uint64(last)]; ok {
			join(&st.v, v[:min(len(v), r.nWarps)])
		}
		r.u.m.hazard(Hazard{Kind: HzMbarLapped, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, via: &via, stamp: st,
			Msg: fmt.Sprintf("phase lapping: warp %d waits for phase %d (parity %d) of the mbarrier at %#x, but the barrier has already completed phase %d: the parity wait cannot tell them apart and passes on the wrong phase",
				w.ID, intended, parity, mb.addr, last),
			Detail: "nothing bounds the producer of this barrier relative to this waiter: the waiter must release each phase (an 'empty' barrier, a barrier) before the producer can complete the next",
			Group:  fmt.Sprintf("lapping mbarrier %#x", mb.addr), Related: r.pcPos(hb.lastArr)})
		intended = last
	}
	if intended >= 0 {
		if v, ok := hb.hist[uint64(intended)]; ok {
			join(&r.vc[i], v)
		} else if v, ok := hb.hist[uint64(last)]; ok && last >= 0 {
			join(&r.vc[i], v)
		}
		if uint64(intended+1) >= mb.phase {
			hb.obs[uint64(intended)] = append(hb.obs[uint64(intended)], obsRec{warp: i, clock: r.vc[i][i], pc: int32(in.PC)})
		}
	}
	r.warpSync(w)
	clock := r.vc[i][i]
	hb.lastWait[i] = waitRec{pc: int32(in.PC), intended: intended, parity: parity, clock: clock}
	if intended >= 0 {
		if hb.acq == nil {
			hb.acq = map[uint64][]acqRec{}
		}
		hb.acq[uint64(intended)] = append(hb.acq[uint64(intended)], acqRec{slot: int32(i), clock: clock})
	}
	if mb.tainted {
		r.taintAcquire(mb, i, clock)
	}
}

// mbarUseCheck checks, at warp w's first wait or arrival on mb, that mb's
// mbarrier.init is ordered before it (by the warp's clock before the wait
// acquires anything: a wait reads the barrier before it passes). A use
// that nothing orders after the init could, in another interleaving, find
// the barrier uninitialized: mbarrier/init-unordered at the init, a root
// cause on the barrier, as when it does (mbar_uninit.go).
func (r *raceState) mbarUseCheck(w *Warp, in *Inst, mb *mbarrier) {
	hb := r.mbarState(mb)
	if hb.init.slot < 0 || hb.used[w.uid] {
		return
	}
	if hb.used == nil {
		hb.used = map[int]bool{}
	}
	hb.used[w.uid] = true
	if int(hb.init.slot) == w.uid || r.ordered(hb.init, w.uid) {
		return
	}
	h := Hazard{Kind: HzMbarInitOrder, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Cause: r.pcPos(hb.init.pc),
		Msg:    fmt.Sprintf("%s on the mbarrier at %#x, whose mbarrier.init (by %s) is not ordered before it by any synchronization", in.PTX.Opcode, mb.addr, r.slotName(hb.init.slot)),
		Detail: "after mbarrier.init: fence.mbarrier_init.release.cluster by the initializing thread, then bar.sync (barrier.cluster for other CTAs), then the first use"}
	r.initRoot(h, mb)
}

// mbarInitCheck checks, at the first asynchronous completion on mb issued
// by warp w, that mb's initialization is visible to the async proxy.
func (r *raceState) mbarInitCheck(w *Warp, in *Inst, mb *mbarrier, v []uint32) {
	hb := r.mbarState(mb)
	if hb.checked[w.uid] || hb.init.slot < 0 {
		return
	}
	hb.checked[w.uid] = true
	e := hb.init
	ordered := orderedVC(e, v) || int(e.slot) == w.uid
	fenced := false
	if u := int(e.slot); u < r.nWarps {
		fs := r.initFences[u]
		j := sort.Search(len(fs), func(j int) bool { return fs[j] >= e.clock })
		if j < len(fs) && (u == w.uid || fs[j] <= get(v, int32(u))) {
			fenced = true
		}
	}
	if ordered && fenced {
		return
	}
	h := Hazard{Kind: HzMbarInitFence, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
		Msg:    fmt.Sprintf("%s completes on the mbarrier at %#x, whose mbarrier.init no fence.mbarrier_init (or fence.proxy.async) made visible to the async proxy", in.PTX.Opcode, mb.addr),
		Cause:  r.pcPos(e.pc),
		Group:  "mbarrier.init not fenced",
		Detail: "after mbarrier.init: fence.mbarrier_init.release.cluster (or fence.proxy.async.shared::cta) by the initializing thread, then bar.sync (barrier.cluster for other CTAs), then the first copy"}
	if !ordered {
		h.Kind, h.Group = HzMbarInitOrder, ""
		h.Msg = fmt.Sprintf("%s completes on the mbarrier at %#x, whose mbarrier.init (by %s) is not ordered before this copy by any synchronization", in.PTX.Opcode, mb.addr, r.slotName(e.slot))
		// a root cause on the barrier, as when the copy lands first
		// (mbar_uninit.go)
		r.initRoot(h, mb)
		return
	}
	r.u.m.hazard(h)
}
