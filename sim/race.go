package sim

import (
	"fmt"
	"sort"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Happens-before checking of shared memory (Options.Check).
//
// The checker decides whether an access is safe from the order the kernel
// establishes, never from when the chosen schedule happened to complete
// the asynchronous work, so that a finding does not depend on --schedule.
//
// Vector clocks. Every warp has a slot (the simulator runs a warp's lanes
// together; intra-warp order is checked separately, per lane, against the
// warp's last bar.warp.sync). Every mbarrier has a slot too: asynchronous
// work that completes on an mbarrier (TMA and bulk copies, tcgen05.commit,
// cp.async.mbarrier.arrive) is stamped with (the barrier's slot, its phase
// + 1), and only a thread that acquired that phase (a successful wait on
// it, or a synchronization with such a thread) is ordered after it.
// Releases (barrier arrivals, mbarrier arrivals, fences, issuing an async
// operation) publish a warp's clock; acquires (leaving a barrier, a
// successful mbarrier wait on the phase it intends) join it.
//
// Shared memory. Each shared byte remembers its last write and its reads
// (epochs) once they are known to be complete. Asynchronous writes in
// flight (a TMA copy not yet landed, a cp.async not yet covered by a
// cp.async.wait_group) are ranges that no access is ordered after.
// Asynchronous reads (wgmma and tcgen05.mma operands, TMA store sources)
// are ranges with the points that release them (wgmma.wait_group, the
// commit's mbarrier phase, cp.async.bulk.wait_group.read); a write is safe
// only once ordered after one of those points.
//
// mbarrier phases. A parity wait names the first phase of that parity the
// warp does not know to be complete (from its clock of the barrier's
// slot); the wait acquires that phase's arrivals. Phase k+1's arrivals must
// be ordered after every wait for phase k, or a fast producer can complete
// two phases before a slow waiter looks (phase lapping).

type epochKind uint8

const (
	ekGeneric epochKind = iota // st.shared, ld.shared, stmatrix, atomics, mbarrier.init
	ekAtomic                   // an atomic read-modify-write
	ekCopy                     // written by a TMA or bulk copy (async proxy)
	ekCpAsync                  // written by cp.async (generic proxy, asynchronously)
)

type epoch struct {
	slot  int32 // -1: none; -2 (reads only): several unordered readers
	clock uint32
	pc    int32
	kind  epochKind
	lane  int8 // the lane of a warp's access, -1 when not lane-specific
}

var noEpoch = epoch{slot: -1, lane: -1}

type shadowCell struct {
	w epoch
	r epoch
}

type readerKey struct {
	cta *CTA
	off uint32
}

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
}

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
	lastWait map[int]waitRec
	lastArr  int32 // pc of the last arrival
}

const mbarHistory = 16

type raceState struct {
	u      *unit
	nWarps int
	nSlots int32
	vc     [][]uint32 // per warp
	// fences: per warp, the clocks of its fence.proxy.async, increasing;
	// fenceVC: its clock vector at the last one; initFences: the clocks of
	// fence.mbarrier_init (and proxy fences).
	fences     [][]uint32
	fenceVC    [][]uint32
	initFences [][]uint32
	lastSync   []uint32 // per warp: its own clock after its last warp synchronization
	shadow     map[*CTA][]shadowCell
	readers    map[readerKey][]epoch
	bars       map[*CTA]*[16][]uint32
	cluster    []uint32
	clusterArr map[*Warp][]uint32
	pend       map[*CTA][]*pendingWrite
	areads     map[*CTA][]*asyncRead
	tcReads    map[*CTA]map[int][]*asyncRead // per thread: tcgen05 reads not yet committed
	// relPC: per warp, the instruction whose release published each of
	// its clock values (relPC[w][c]: the release that ended clock c)
	relPC    [][]int32
	mbarSlot map[int32]*mbarrier
	// refills reported from the writer's side: (copy pc, reader pc), so
	// that the reader's side of the same race is not reported again
	refilled map[[2]int32]bool
}

func newRaceState(u *unit) *raceState {
	r := &raceState{u: u, nWarps: len(u.warps), nSlots: int32(len(u.warps)), shadow: map[*CTA][]shadowCell{}, readers: map[readerKey][]epoch{},
		bars: map[*CTA]*[16][]uint32{}, clusterArr: map[*Warp][]uint32{}, pend: map[*CTA][]*pendingWrite{},
		areads: map[*CTA][]*asyncRead{}, tcReads: map[*CTA]map[int][]*asyncRead{}, mbarSlot: map[int32]*mbarrier{},
		refilled: map[[2]int32]bool{}}
	n := len(u.warps)
	r.vc = make([][]uint32, n)
	r.fences = make([][]uint32, n)
	r.fenceVC = make([][]uint32, n)
	r.initFences = make([][]uint32, n)
	r.lastSync = make([]uint32, n)
	r.relPC = make([][]int32, n)
	for i := range r.vc {
		r.vc[i] = make([]uint32, n)
		r.vc[i][i] = 1
		r.lastSync[i] = 1
	}
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

func get(v []uint32, i int32) uint32 {
	if i < 0 || int(i) >= len(v) {
		return 0
	}
	return v[i]
}

func join(dst *[]uint32, src []uint32) {
	d := *dst
	if len(d) < len(src) {
		d = append(d, make([]uint32, len(src)-len(d))...)
	}
	for i, v := range src {
		if v > d[i] {
			d[i] = v
		}
	}
	*dst = d
}

func clone(v []uint32) []uint32 { return append([]uint32(nil), v...) }

func (r *raceState) tick(w *Warp) {
	i := w.uid
	c := r.vc[i][i]
	// (the release points of the first 4M clock values of a warp are kept:
	// they only name the line to fix)
	if rp := r.relPC[i]; c < 1<<22 {
		for len(rp) <= int(c) {
			rp = append(rp, -1)
		}
		rp[c] = int32(w.PC())
		r.relPC[i] = rp
	}
	r.vc[i][i]++
}

// releaseOf is the instruction at which warp slot s published clock c
// (the barrier, arrive or copy after its write), or -1.
func (r *raceState) releaseOf(s int32, c uint32) int32 {
	if s < 0 || int(s) >= r.nWarps || int(c) >= len(r.relPC[s]) {
		return -1
	}
	return r.relPC[s][c]
}

// ordered reports whether epoch e happens before the current point of
// warp i (accesses of warp i itself are ordered by program order; the
// caller checks lanes).
func (r *raceState) ordered(e epoch, i int) bool {
	if e.slot < 0 || int(e.slot) == i {
		return true
	}
	return e.clock <= get(r.vc[i], e.slot)
}

// orderedVC reports whether e happens before a point with clock vector v.
func orderedVC(e epoch, v []uint32) bool {
	return e.slot < 0 || e.clock <= get(v, e.slot)
}

// taintedSlot reports whether slot is an mbarrier whose tx mismatch was
// reported (the late copies' consequences are the same finding).
func (r *raceState) taintedSlot(s int32) bool {
	mb := r.mbarSlot[s]
	return mb != nil && mb.tainted
}

func (r *raceState) newSlot() int32 {
	s := r.nSlots
	r.nSlots++
	return s
}

func (r *raceState) slotName(s int32) string {
	if s >= 0 && int(s) < r.nWarps {
		w := r.u.warps[s]
		return fmt.Sprintf("warp %d of CTA %s", w.ID, fmtID(w.cta.ID))
	}
	return "an asynchronous copy"
}

func (r *raceState) pcPos(pc int32) ptx.Position {
	if pc < 0 || int(pc) >= len(r.u.m.Prog.Insts) {
		return ptx.Position{}
	}
	return r.u.m.Prog.pos(&r.u.m.Prog.Insts[pc])
}

// finding accumulates one report over a byte range.
type finding struct {
	kind    HazardKind
	related int32
	cause   int32
	lo, hi  uint32
	msg     func(lo uint32) string
	detail  string
	group   string
}

type findings []finding

func (fs *findings) add(kind HazardKind, related int32, off uint32, msg func(lo uint32) string, detail string) {
	fs.addRange(kind, related, off, off+1, msg, detail)
}

func (fs *findings) addRange(kind HazardKind, related int32, lo, hi uint32, msg func(lo uint32) string, detail string) {
	for i := range *fs {
		f := &(*fs)[i]
		if f.kind == kind && f.related == related {
			f.lo, f.hi = min(f.lo, lo), max(f.hi, hi)
			return
		}
	}
	*fs = append(*fs, finding{kind: kind, related: related, cause: -1, lo: lo, hi: hi, msg: msg, detail: detail})
}

func (r *raceState) report(fs findings, pc int, c *CTA, warp int, lanes uint32) {
	for _, f := range fs {
		h := Hazard{Kind: f.kind, PC: pc, CTA: c.ID, Warp: warp, Lanes: lanes, Msg: f.msg(f.lo), Detail: f.detail,
			Related: r.pcPos(f.related), Off: f.lo, Bytes: int(f.hi - f.lo), Group: f.group}
		if f.cause >= 0 {
			h.Cause = r.pcPos(f.cause)
		}
		r.u.m.hazard(h)
	}
}

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
	hi := off + uint32(n)
	r.checkPending(w, c, off, hi, write, &fs)
	if write {
		r.checkAsyncReads(c, off, hi, r.vc[i], int32(in.PC), HzAsyncSourceReuse, &fs)
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
			if r.refilled[[2]int32{we.pc, int32(in.PC)}] || r.taintedSlot(we.slot) {
				continue
			}
			if we.kind == ekCopy || we.kind == ekCpAsync {
				fs.add(HzAsyncEarlyRead, we.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s of shared byte %#x, which an asynchronous copy wrote, before this warp observed the copy's completion", rw(write), lo)
				}, "wait on the copy's mbarrier phase (mbarrier.try_wait.parity), or cp.async.wait_group and a barrier, before touching its destination")
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
						fs.add(HzRace, e.pc, o, func(lo uint32) string {
							return fmt.Sprintf("write of shared byte %#x races with a read by %s", lo, r.slotName(e.slot))
						}, "the read and the write are not ordered by a barrier or other synchronization")
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
				fs.add(HzRace, e.pc, o, func(lo uint32) string {
					return fmt.Sprintf("write of shared byte %#x races with a read by %s", lo, r.slotName(e.slot))
				}, "the read and the write are not ordered by a barrier or other synchronization")
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
		if in := w.currentInst(); in != nil && r.refilled[[2]int32{int32(p.op.in.PC), int32(in.PC)}] || p.mb != nil && p.mb.tainted {
			return
		}
		what := p.op.kind.String()
		fs.add(HzAsyncEarlyRead, int32(p.op.in.PC), o, func(lo uint32) string {
			return fmt.Sprintf("%s of shared byte %#x while the %s writing it is in flight: no completion of the copy is ordered before this access", rw(write), lo, what)
		}, "wait for the copy (its mbarrier phase, or cp.async.wait_group and a barrier) before touching its destination")
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
	f := finding{kind: HzMbarPhase, related: copyPC, cause: lw.pc, lo: off, hi: off + 1,
		msg: func(lo uint32) string {
			return fmt.Sprintf("the mbarrier wait passed for phase %d (parity %d), but the copy of this data completes phase %d: the wait names the wrong phase parity, so shared byte %#x is read before it lands", intended, lw.parity, phase, lo)
		},
		detail: "try_wait.parity p passes once the latest completed phase has parity p; the consumer must wait on the parity of the phase the producer fills next ((iteration / stages) & 1)"}
	*fs = append(*fs, f)
	return true
}

// checkAsyncReads reports a write to bytes an asynchronous read may still
// read: none of its releases is ordered before the writer (clock v).
func (r *raceState) checkAsyncReads(c *CTA, lo, hi uint32, v []uint32, pc int32, kind HazardKind, fs *findings) {
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
		r.report(fs, in.PC, c, warp, lanes)
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
			if r.taintedSlot(e.slot) {
				continue
			}
			if e.kind == ekCopy || e.kind == ekCpAsync {
				fs.add(HzAsyncEarlyRead, e.pc, o, func(lo uint32) string {
					return fmt.Sprintf("%s reads shared bytes from %#x that an asynchronous copy wrote, before the issuing warps observed the copy's completion", what, lo)
				}, "the mbarrier wait (or cp.async.wait_group and barrier) that should order the copy before this read is missing or waits on the wrong phase")
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
			break
		}
	}
	r.checkAsyncReads(c, off, hi, v, int32(op.in.PC), HzAsyncRefill, &fs)
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
		if e := cell.w; e.slot >= 0 && !orderedVC(e, v) && !r.taintedSlot(e.slot) {
			kind := HzRace
			if e.kind == ekCopy || e.kind == ekCpAsync {
				kind = HzAsyncOverlap
			}
			fs.add(kind, e.pc, o, func(lo uint32) string {
				return fmt.Sprintf("%s overwrites shared bytes (from %#x) that %s wrote, with nothing ordering that write before the copy", op.kind, lo, r.slotName(e.slot))
			}, "the earlier write must be ordered before the copy is issued")
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

// fences ----------------------------------------------------------------------------

func (r *raceState) proxyFence(w *Warp) {
	i := w.uid
	r.fences[i] = append(r.fences[i], r.vc[i][i])
	r.initFences[i] = append(r.initFences[i], r.vc[i][i])
	r.fenceVC[i] = clone(r.vc[i])
	r.tick(w)
}

func (r *raceState) mbarInitFence(w *Warp) {
	i := w.uid
	r.initFences[i] = append(r.initFences[i], r.vc[i][i])
	r.tick(w)
}

// issueVC snapshots the issuing warp's clock for an async operation.
func (r *raceState) issueVC(w *Warp) []uint32 {
	v := clone(r.vc[w.uid])
	r.tick(w)
	return v
}

// warpSync marks a point where the lanes of w synchronize.
func (r *raceState) warpSync(w *Warp) {
	r.tick(w)
	r.lastSync[w.uid] = r.vc[w.uid][w.uid]
}

// barriers --------------------------------------------------------------------------

func (r *raceState) barArrive(w *Warp, id int) {
	b := r.bars[w.cta]
	join(&b[id], r.vc[w.uid])
	r.tick(w)
}

func (r *raceState) barRelease(c *CTA, id int, waiters []barWaiter) {
	b := r.bars[c]
	v := b[id]
	if v == nil {
		return
	}
	for _, bw := range waiters {
		join(&r.vc[bw.w.uid], v)
		r.warpSync(bw.w)
	}
	b[id] = nil
}

func (r *raceState) clusterArrive(w *Warp) {
	join(&r.cluster, r.vc[w.uid])
	r.tick(w)
}

func (r *raceState) clusterRelease() {
	for w := range r.clusterArr {
		delete(r.clusterArr, w)
	}
	if r.cluster != nil {
		done := clone(r.cluster)
		for _, w := range r.u.warps {
			r.clusterArr[w] = done
		}
	}
	r.cluster = nil
}

func (r *raceState) clusterAcquire(w *Warp) {
	if v := r.clusterArr[w]; v != nil {
		join(&r.vc[w.uid], v)
	}
	r.warpSync(w)
}

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
}

func (r *raceState) mbarArrive(w *Warp, mb *mbarrier, pc int) {
	hb := r.mbarState(mb)
	join(&hb.progress, r.vc[w.uid])
	hb.lastArr = int32(pc)
	r.tick(w)
}

func (r *raceState) mbarAsyncArrive(mb *mbarrier, vc []uint32, pc int) {
	hb := r.mbarState(mb)
	join(&hb.progress, vc)
	hb.lastArr = int32(pc)
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
	if done > 0 {
		for _, o := range hb.obs[done-1] {
			if get(v, int32(o.warp)) < o.clock {
				r.lapped(mb, o, done-1, hb.lastArr)
			}
		}
		delete(hb.obs, done-1)
	}
}

func (r *raceState) lapped(mb *mbarrier, o obsRec, k uint64, arrPC int32) {
	w := r.u.warps[o.warp]
	h := Hazard{Kind: HzMbarLapped, PC: int(o.pc), CTA: w.cta.ID, Warp: w.ID,
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
		r.u.m.hazard(Hazard{Kind: HzMbarLapped, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
			Msg: fmt.Sprintf("phase lapping: warp %d waits for phase %d (parity %d) of the mbarrier at %#x, but the barrier has already completed phase %d: the parity wait cannot tell them apart and passes on the wrong phase",
				w.ID, intended, parity, mb.addr, last),
			Detail: "nothing bounds the producer of this barrier relative to this waiter: the waiter must release each phase (an 'empty' barrier, a barrier) before the producer can complete the next",
			Group:  fmt.Sprintf("lapping mbarrier %#x", mb.addr), Related: r.pcPos(hb.lastArr)})
		intended = last
	}
	hb.lastWait[i] = waitRec{pc: int32(in.PC), intended: intended, parity: parity}
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
	}
	r.u.m.hazard(h)
}

func (r *raceState) warpExit(w *Warp) {}
