package sim

import (
	"fmt"
	"sort"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Shared-memory race detection with vector clocks.
//
// The unit of synchronization is the warp (the simulator executes a warp's
// lanes together, so accesses by lanes of one warp are ordered). Every warp
// and every CTA's async proxy (TMA copies landing in shared memory) has a
// slot in the vector clocks. Release operations (barrier arrival,
// mbarrier.arrive, fence.proxy.async, issuing a TMA copy) publish a warp's
// clock; acquires (leaving a barrier, a successful mbarrier wait) join it.
// Each shared byte remembers its last write and its reads; an access that
// is not ordered after a conflicting one is a race.
//
// Async-proxy reads (wgmma and tcgen05.mma operands, TMA store sources) of
// bytes written in the generic proxy also need a fence.proxy.async by the
// writer, ordered before the read: without it they are reported as
// async-proxy-fence hazards.

type epoch struct {
	slot  int32 // -1: none
	clock uint32
	async bool // written by the async proxy
	atom  bool // an atomic read-modify-write
	pc    int32
}

var noEpoch = epoch{slot: -1}

type shadowCell struct {
	w epoch
	r epoch // slot -2: several unordered readers, see raceState.readers
}

type readerKey struct {
	cta *CTA
	off uint32
}

type raceState struct {
	u          *unit
	n          int        // slots
	vc         [][]uint32 // per warp slot
	fences     [][]uint32 // per warp: clocks of fence.proxy.async, increasing
	agentClock []uint32
	shadow     map[*CTA][]shadowCell
	readers    map[readerKey][]epoch
	bars       map[*CTA]*[16][]uint32
	cluster    []uint32
	clusterArr map[*Warp][]uint32
	mbarVC     map[*mbarrier][]uint32
	phaseVC    map[*mbarrier][]uint32
}

func newRaceState(u *unit) *raceState {
	n := len(u.warps) + u.agents
	r := &raceState{u: u, n: n, shadow: map[*CTA][]shadowCell{}, readers: map[readerKey][]epoch{},
		bars: map[*CTA]*[16][]uint32{}, mbarVC: map[*mbarrier][]uint32{}, phaseVC: map[*mbarrier][]uint32{},
		clusterArr: map[*Warp][]uint32{}}
	r.vc = make([][]uint32, len(u.warps))
	r.fences = make([][]uint32, len(u.warps))
	for i := range r.vc {
		r.vc[i] = make([]uint32, n)
		r.vc[i][i] = 1
	}
	r.agentClock = make([]uint32, n)
	for _, c := range u.ctas {
		cells := make([]shadowCell, len(c.Smem))
		for i := range cells {
			cells[i] = shadowCell{w: noEpoch, r: noEpoch}
		}
		r.shadow[c] = cells
		r.bars[c] = &[16][]uint32{}
	}
	return r
}

func join(dst, src []uint32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

func (r *raceState) tick(w *Warp) { r.vc[w.uid][w.uid]++ }

// ordered reports whether epoch e happens before the current point of warp
// slot i.
func (r *raceState) ordered(e epoch, i int) bool {
	if e.slot < 0 || int(e.slot) == i {
		return true
	}
	return e.clock <= r.vc[i][e.slot]
}

func (r *raceState) slotName(s int32) string {
	if int(s) < len(r.u.warps) {
		w := r.u.warps[s]
		return fmt.Sprintf("warp %d of CTA %s", w.ID, fmtID(w.cta.ID))
	}
	for _, c := range r.u.ctas {
		if c.agent == int(s) {
			return fmt.Sprintf("the async proxy (a TMA/bulk copy) of CTA %s", fmtID(c.ID))
		}
	}
	return "?"
}

func (r *raceState) pcPos(pc int32) ptx.Position {
	if pc < 0 || int(pc) >= len(r.u.m.Prog.Insts) {
		return ptx.Position{}
	}
	return r.u.m.Prog.pos(&r.u.m.Prog.Insts[pc])
}

// access checks a generic-proxy access of n bytes at off in c's shared
// memory by lane of warp w.
func (r *raceState) access(w *Warp, in *Inst, lane int, c *CTA, off uint32, n int, write bool) {
	cells := r.shadow[c]
	i := w.uid
	atomic := w.atomicAccess
	now := epoch{slot: int32(i), clock: r.vc[i][i], pc: int32(in.PC), atom: atomic}
	for k := 0; k < n; k++ {
		cell := &cells[int(off)+k]
		if atomic && cell.w.atom {
			// atomics do not race with each other
			cell.w = now
			continue
		}
		if !r.ordered(cell.w, i) {
			kind := HzRace
			msg := fmt.Sprintf("%s of shared byte %#x races with a write by %s", rw(write), int(off)+k, r.slotName(cell.w.slot))
			detail := "the two accesses are not ordered by a barrier, an mbarrier or any other synchronization"
			if cell.w.async {
				kind = HzAsyncEarlyRead
				msg = fmt.Sprintf("%s of shared byte %#x, which a TMA/bulk copy wrote, before this warp observed the copy's completion", rw(write), int(off)+k)
				detail = "wait on the copy's mbarrier phase (mbarrier.try_wait.parity) before touching its destination"
			}
			r.u.m.hazard(Hazard{Kind: kind, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
				Msg: msg, Detail: detail, Related: r.pcPos(cell.w.pc)})
			cell.w = now // report once
		}
		if write {
			if cell.r.slot == -2 {
				for _, e := range r.readers[readerKey{c, off + uint32(k)}] {
					if !r.ordered(e, i) {
						r.u.m.hazard(Hazard{Kind: HzRace, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
							Msg:     fmt.Sprintf("write of shared byte %#x races with a read by %s", int(off)+k, r.slotName(e.slot)),
							Detail:  "the read and the write are not ordered by a barrier or other synchronization",
							Related: r.pcPos(e.pc)})
						break
					}
				}
				delete(r.readers, readerKey{c, off + uint32(k)})
			} else if !r.ordered(cell.r, i) {
				r.u.m.hazard(Hazard{Kind: HzRace, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:     fmt.Sprintf("write of shared byte %#x races with a read by %s", int(off)+k, r.slotName(cell.r.slot)),
					Detail:  "the read and the write are not ordered by a barrier or other synchronization",
					Related: r.pcPos(cell.r.pc)})
			}
			cell.w = now
			cell.r = noEpoch
			continue
		}
		switch {
		case cell.r.slot == -2:
			key := readerKey{c, off + uint32(k)}
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
			r.readers[readerKey{c, off + uint32(k)}] = []epoch{cell.r, now}
			cell.r.slot = -2
		}
	}
}

func rw(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// asyncRead checks an async-proxy read (issued by warp w) of n bytes.
func (r *raceState) asyncRead(w *Warp, in *Inst, c *CTA, off uint32, n int, what string) {
	cells := r.shadow[c]
	i := w.uid
	for k := 0; k < n; k++ {
		cell := &cells[int(off)+k]
		e := cell.w
		if e.slot < 0 {
			continue
		}
		if e.async {
			if !r.ordered(e, i) {
				r.u.m.hazard(Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
					Msg:     fmt.Sprintf("%s reads shared bytes from %#x that a TMA/bulk copy wrote, before this warp observed the copy's completion", what, int(off)+k),
					Detail:  "the mbarrier wait that should order the copy before this read is missing or waits on the wrong phase",
					Related: r.pcPos(e.pc)})
				return
			}
			continue
		}
		u := int(e.slot)
		fenced := false
		fs := r.fences[u]
		j := sort.Search(len(fs), func(j int) bool { return fs[j] >= e.clock })
		if j < len(fs) {
			f := fs[j]
			fenced = u == i || f <= r.vc[i][u]
		}
		if fenced {
			continue
		}
		msg := fmt.Sprintf("%s reads shared byte %#x, written in the generic proxy by %s, with no fence.proxy.async between the write and this async-proxy read", what, int(off)+k, r.slotName(e.slot))
		detail := "generic-proxy stores (st.shared, stmatrix) are not visible to the async proxy (wgmma, TMA, tcgen05) until the writing thread executes fence.proxy.async and then synchronizes with the issuing thread"
		if !r.ordered(e, i) {
			detail += "; here the write is not even ordered before the read by a barrier"
		}
		r.u.m.hazard(Hazard{Kind: HzProxyFence, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
			Msg: msg, Detail: detail, Related: r.pcPos(e.pc)})
		return
	}
}

// asyncWrite records bytes written by c's async proxy for an operation
// issued with the issuer's vector clock issueVC; clock is the operation's
// agent clock.
func (r *raceState) asyncWrite(c *CTA, off uint32, n int, issueVC []uint32, clock uint32, pc int) {
	cells := r.shadow[c]
	reported := false
	for k := 0; k < n; k++ {
		cell := &cells[int(off)+k]
		if !reported {
			var bad epoch = noEpoch
			if cell.w.slot >= 0 && !cell.w.async && cell.w.clock > issueVC[cell.w.slot] {
				bad = cell.w
			}
			if cell.r.slot >= 0 && cell.r.clock > issueVC[cell.r.slot] {
				bad = cell.r
			}
			if cell.r.slot == -2 {
				for _, e := range r.readers[readerKey{c, off + uint32(k)}] {
					if e.clock > issueVC[e.slot] {
						bad = e
					}
				}
			}
			if bad.slot >= 0 {
				reported = true
				r.u.m.hazard(Hazard{Kind: HzRace, Severity: SevError, PC: pc, CTA: c.ID, Warp: -1,
					Msg:     fmt.Sprintf("a TMA/bulk copy overwrites shared byte %#x while %s may still access it", int(off)+k, r.slotName(bad.slot)),
					Detail:  "the access is not ordered before the copy was issued: the consumer must release the buffer (barrier or mbarrier arrive) before the producer refills it",
					Related: r.pcPos(bad.pc)})
			}
		}
		cell.w = epoch{slot: int32(c.agent), clock: clock, async: true, pc: int32(pc)}
		if cell.r.slot == -2 {
			delete(r.readers, readerKey{c, off + uint32(k)})
		}
		cell.r = noEpoch
	}
}

func (r *raceState) proxyFence(w *Warp) {
	i := w.uid
	r.fences[i] = append(r.fences[i], r.vc[i][i])
	r.tick(w)
}

// issueVC snapshots the issuing warp's clock for an async operation.
func (r *raceState) issueVC(w *Warp) []uint32 {
	v := append([]uint32(nil), r.vc[w.uid]...)
	r.tick(w)
	return v
}

// nextAgentClock gives a new clock value for c's async proxy.
func (r *raceState) nextAgentClock(c *CTA) uint32 {
	r.agentClock[c.agent]++
	return r.agentClock[c.agent]
}

// barriers

func (r *raceState) barArrive(w *Warp, id int) {
	b := r.bars[w.cta]
	if b[id] == nil {
		b[id] = make([]uint32, r.n)
	}
	join(b[id], r.vc[w.uid])
	r.tick(w)
}

func (r *raceState) barRelease(c *CTA, id int, waiters []barWaiter) {
	b := r.bars[c]
	v := b[id]
	if v == nil {
		return
	}
	for _, bw := range waiters {
		join(r.vc[bw.w.uid], v)
	}
	b[id] = nil
}

func (r *raceState) clusterArrive(w *Warp) {
	if r.cluster == nil {
		r.cluster = make([]uint32, r.n)
	}
	join(r.cluster, r.vc[w.uid])
	r.tick(w)
}

func (r *raceState) clusterRelease() {
	for w := range r.clusterArr {
		delete(r.clusterArr, w)
	}
	if r.cluster != nil {
		done := append([]uint32(nil), r.cluster...)
		for _, w := range r.u.warps {
			r.clusterArr[w] = done
		}
	}
	r.cluster = nil
}

func (r *raceState) clusterAcquire(w *Warp) {
	if v := r.clusterArr[w]; v != nil {
		join(r.vc[w.uid], v)
	}
}

// mbarriers: arrivals release into the current phase; completing the phase
// publishes it; successful waits acquire it.

func (r *raceState) mbarArrive(w *Warp, mb *mbarrier) {
	v := r.mbarVC[mb]
	if v == nil {
		v = make([]uint32, r.n)
		r.mbarVC[mb] = v
	}
	join(v, r.vc[w.uid])
	r.tick(w)
}

func (r *raceState) mbarAsyncArrive(mb *mbarrier, vc []uint32) {
	v := r.mbarVC[mb]
	if v == nil {
		v = make([]uint32, r.n)
		r.mbarVC[mb] = v
	}
	join(v, vc)
}

func (r *raceState) mbarPhaseDone(mb *mbarrier) {
	v := r.mbarVC[mb]
	if v == nil {
		v = make([]uint32, r.n)
	}
	if old := r.phaseVC[mb]; old != nil {
		join(v, old)
	}
	r.phaseVC[mb] = v
	r.mbarVC[mb] = nil
}

func (r *raceState) mbarAcquire(w *Warp, mb *mbarrier) {
	if v := r.phaseVC[mb]; v != nil {
		join(r.vc[w.uid], v)
	}
}

// agentVC is the vector clock of an async operation: its issuer's clock
// plus its own agent clock.
func (r *raceState) agentVC(c *CTA, issue []uint32, clock uint32) []uint32 {
	v := append([]uint32(nil), issue...)
	if clock > v[c.agent] {
		v[c.agent] = clock
	}
	return v
}

func (r *raceState) warpExit(w *Warp) {}
