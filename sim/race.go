package sim

import (
	"fmt"

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

type raceState struct {
	u      *unit
	id     uint64 // the unit's identity in clock stamps (findings_roots.go)
	exited int    // warps that exited
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
	// tcgen05 work and fences for the fence rules (tcgen05_fence_hb.go)
	tcf *tcFenceHB
	// uses of uninitialized mbarriers (reported, and remembered in case an
	// init they are not ordered before follows: mbar_uninit.go)
	uninit map[mbarKey][]uninitUse
	// tcgen05.st and wait::st for tcgen05/st-before-wait (tcgen05_st_wait.go)
	tcst *tcStHB
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
	u.m.registerUnit(r)
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
	// via: the mbarrier whose tainted protocol the observation concerns
	// (a consequence of its root cause); root: the observation is a root
	// cause on via from phase rootFrom on, with the taint point point
	via      *mbarrier
	root     bool
	rootFrom int64
	point    taintPoint
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

// link marks the findings of kind with related as consequences of mb's
// root cause.
func (fs findings) link(kind HazardKind, related int32, mb *mbarrier) {
	for i := range fs {
		if f := &fs[i]; f.kind == kind && f.related == related && f.via == nil {
			f.via = mb
		}
	}
}

// rootAt marks the findings of kind with related as a root cause on mb
// (nil: none) whose observer is at point: an early read makes what the
// reader does next out of step with the copies.
func (fs findings) rootAt(kind HazardKind, related int32, mb *mbarrier, point taintPoint) {
	for i := range fs {
		if f := &fs[i]; f.kind == kind && f.related == related && f.via == nil && !f.root {
			f.root, f.via, f.rootFrom, f.point = true, mb, 1<<62, point
		}
	}
}

// pointOf is warp w's current point, as a taint point.
func (r *raceState) pointOf(w *Warp) taintPoint {
	return taintPoint{unit: r.id, slot: int32(w.uid), clock: r.vc[w.uid][w.uid]}
}

func (r *raceState) report(fs findings, pc int, c *CTA, warp int, lanes uint32) {
	r.reportBy(fs, pc, c, warp, 0, lanes, nil)
}

// reportBy reports findings observed by warps warp..warp+span-1 (span 0:
// warp alone) whose clock is stamp (nil: the warp's).
func (r *raceState) reportBy(fs findings, pc int, c *CTA, warp, span int, lanes uint32, stamp []uint32) {
	for _, f := range fs {
		h := Hazard{Kind: f.kind, PC: pc, CTA: c.ID, Warp: warp, Lanes: lanes, Msg: f.msg(f.lo), Detail: f.detail,
			Related: r.pcPos(f.related), Off: f.lo, Bytes: int(f.hi - f.lo), Group: f.group, span: span}
		if f.cause >= 0 {
			h.Cause = r.pcPos(f.cause)
		}
		if stamp != nil {
			h.stamp = &hbStamp{unit: r.id, v: stamp[:min(len(stamp), r.nWarps)]}
		}
		if f.via != nil {
			k := keyOf(f.via)
			h.via = &k
		}
		if f.root {
			var mbs []*mbarrier
			if f.via != nil {
				mbs = append(mbs, f.via)
			}
			r.root(h, f.rootFrom, mbs, f.point)
			continue
		}
		r.u.m.hazard(h)
	}
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

func (r *raceState) warpExit(w *Warp) {
	if r.exited++; r.exited == r.nWarps {
		r.u.m.unregisterUnit(r)
	}
}
