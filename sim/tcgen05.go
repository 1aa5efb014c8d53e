package sim

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/tcsim/tcsim/isa/ptx"
)

// tcgen05 (sm_100a, PTX ISA 9.7.16): Tensor Memory (128 lanes × 512
// columns × 32 bits per CTA) and the fifth-generation tensor core. None of
// it is hardware-verified (tcsim's lab has no Blackwell GPU): the
// semantics follow the ISA, the TMEM layouts come from the atom catalog,
// and the arithmetic from sim/datapath's modelled tcgen05 datapath.

const (
	tmemLanes = 128
	tmemCols  = 512
)

// tmemState is one CTA's Tensor Memory and its allocator.
type tmemState struct {
	cells      []uint32 // lane*512 + column
	allocs     map[uint32]tmemAlloc
	used       [tmemCols]bool
	relinquish bool
	ctaGroup   string
	pairQ      []tmemAlloc // allocations the peer's tcgen05.alloc.cta_group::2 made here, not yet claimed by this CTA's warp
	pendingW   []uint16    // per cell: in-flight MMAs writing it
	pendingR   []uint16    // per cell: in-flight MMAs reading it (A in TMEM, scale factors)
	pendingRBy []int32     // per cell: the thread (CTA linear·1024 + tid) that issued the last of them
	written    []bool      // per cell: written by tcgen05.cp, st or mma since the kernel began
	readBy     []epoch     // per cell: the last tcgen05.ld (race detection; nil without --check)
	writtenBy  []epoch     // per cell: the last tcgen05.cp or st (race detection; nil without --check)
	// the happens-before records of tcgen05_hb.go (nil without --check):
	// per cell the last asynchronous writer (MMA, cp) and the one before
	// it, the last MMA that reads it, and whether the last tcgen05.ld read
	// it early (before anything wrote it, or before its writer completed)
	asyncW, prevW, asyncR []*tmemOp
	readEarly             []bool
	prevWrittenBy         []epoch // the write before writtenBy's
	// per cell: the number of the tcgen05.st (of the writtenBy warp) that
	// wrote it last, 0 when its last write was no st (tcgen05_st_wait.go)
	stSeq []uint32

	chains map[int]*commitChain // per thread of this CTA: its tcgen05.commits
	// freedAt: per column, the tcgen05.dealloc that freed it (until the
	// next tcgen05.alloc of it)
	freedAt map[int]int
}

// freedCause names the line to fix of an access of columns [col, col+n)
// that are not allocated because a tcgen05.dealloc freed them: the
// dealloc, which nothing ordered after the access (h's Cause and a
// sentence added to its message).
func (m *Machine) freedCause(t *tmemState, col, n int, h *Hazard) {
	for k := max(col, 0); k < min(col+n, tmemCols); k++ {
		if pc, ok := t.freedAt[k]; ok {
			h.Cause = m.Prog.pos(&m.Prog.Insts[pc])
			h.Msg += fmt.Sprintf(": the tcgen05.dealloc at line %d freed them before this access, and nothing orders the dealloc after it (a barrier, barrier.cluster across a CTA pair, after the last use of the TMEM)", h.Cause.Line)
			return
		}
	}
}

type tmemAlloc struct {
	col, n int
	pc     int
	warp   int
}

func (c *CTA) tmemState() *tmemState {
	if c.tmem == nil {
		n := tmemLanes * tmemCols
		c.tmem = &tmemState{cells: make([]uint32, n), allocs: map[uint32]tmemAlloc{}, pendingW: make([]uint16, n),
			pendingR: make([]uint16, n), pendingRBy: make([]int32, n), written: make([]bool, n)}
		if c.u.race != nil {
			c.tmem.readBy = make([]epoch, n)
			c.tmem.writtenBy = make([]epoch, n)
			for i := range c.tmem.readBy {
				c.tmem.readBy[i] = noEpoch
				c.tmem.writtenBy[i] = noEpoch
			}
			c.tmem.hbCells()
		}
	}
	return c.tmem
}

func (t *tmemState) checkExit(c *CTA) {
	m := c.u.m
	var cols []int
	for col := range t.allocs {
		cols = append(cols, int(col))
	}
	sort.Ints(cols)
	for _, a := range t.pairQ {
		m.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: a.pc, CTA: c.ID, Warp: -1,
			Msg: fmt.Sprintf("the peer CTA's tcgen05.alloc.cta_group::2 allocated TMEM columns [%d, %d) for the pair, but no warp of CTA %s executed its half of the collective alloc", a.col, a.col+a.n, fmtID(c.ID))})
	}
	for _, col := range cols {
		a := t.allocs[uint32(col)]
		if a.warp < 0 {
			continue // reported above
		}
		m.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: a.pc, CTA: c.ID, Warp: a.warp,
			Msg: fmt.Sprintf("the CTA exits with TMEM columns [%d, %d) still allocated: every tcgen05.alloc needs a tcgen05.dealloc before the kernel exits", a.col, a.col+a.n)})
	}
}

// TMEM reads a cell (lane, column) of a CTA's Tensor Memory.
func (c *CTA) TMEM(lane, col int) (uint32, bool) {
	if c.tmem == nil || lane < 0 || lane >= tmemLanes || col < 0 || col >= tmemCols {
		return 0, false
	}
	return c.tmem.cells[lane*tmemCols+col], true
}

func tmemAddr(a uint64) (lane, col int) { return int(a >> 16 & 0xFFFF), int(a & 0xFFFF) }

// clearColumn forgets what was written to column k (a new allocation's
// contents are undefined).
func (t *tmemState) clearColumn(k int) {
	delete(t.freedAt, k)
	for lane := 0; lane < tmemLanes; lane++ {
		t.written[lane*tmemCols+k] = false
		if t.writtenBy != nil {
			t.writtenBy[lane*tmemCols+k] = noEpoch
		}
		if t.readBy != nil {
			t.readBy[lane*tmemCols+k] = noEpoch
		}
		t.clearHB(lane*tmemCols + k)
	}
}

// free reports whether columns [col, col+n) are all free.
func (t *tmemState) free(col, n int) bool {
	for k := col; k < col+n; k++ {
		if t.used[k] {
			return false
		}
	}
	return true
}

// peer returns the other CTA of c's pair for .cta_group::2 (the CTA of the
// cluster whose rank differs from c's in bit 0), or nil.
func (c *CTA) peer() *CTA {
	r := c.Rank ^ 1
	if !c.u.m.Clustered || r >= len(c.u.ctas) {
		return nil
	}
	return c.u.ctas[r]
}

// allocated reports whether columns [col, col+n) are allocated.
func (t *tmemState) allocated(col, n int) bool {
	for c := col; c < col+n; c++ {
		if c < 0 || c >= tmemCols || !t.used[c] {
			return false
		}
	}
	return true
}

// ctaGroup checks that one kernel does not mix .cta_group::1 and ::2.
func (w *Warp) ctaGroup(in *Inst) {
	g := in.PTX.ModPrefix("cta_group::")
	if g == "" {
		return
	}
	t := w.cta.tmemState()
	if t.ctaGroup == "" {
		t.ctaGroup = g
		return
	}
	if t.ctaGroup != g {
		w.cta.u.m.hazard(Hazard{Kind: HzCtaGroup, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
			Msg: fmt.Sprintf("tcgen05 instructions with .%s and .%s in one kernel: all of a kernel's tcgen05 instructions must use the same .cta_group", t.ctaGroup, g)})
	}
}

// The fence rules. tcgen05 operations of different threads are ordered
// through a thread synchronization (bar, barrier.cluster, an mbarrier
// phase completed by thread arrivals) only with tcgen05.fence::
// before_thread_sync before it in the thread that issued them and
// tcgen05.fence::after_thread_sync after it in the thread that goes on
// (PTX ISA 9.7.16.6). Two completion mechanisms make the fences
// unnecessary, and the checker does not ask for them there: an mbarrier
// phase completed by tcgen05.commit (the tensor core's own arrival once the
// committed operations are done) and tcgen05.wait::ld / wait::st, after
// which the thread's loads and stores are complete. tcgen05.alloc,
// dealloc and relinquish_alloc_permit complete when they return. This is
// how CUTLASS's sm100 kernels synchronize: they contain no tcgen05.fence.
//
//   - A warp that reaches a thread synchronization with asynchronous
//     tcgen05 work of its own still pending (an mma, cp or shift not
//     followed by a commit, an ld without wait::ld, an st without wait::st)
//     and no fence::before_thread_sync is reported there.
//   - A warp that passes a synchronization after another thread published
//     tcgen05 work with fence::before_thread_sync must issue
//     fence::after_thread_sync before its next tcgen05 operation.

// tcIssue notes a tcgen05 operation for the fence checks; async is true
// for the operations that complete later (mma, cp, shift).
func (w *Warp) tcIssue(in *Inst, m uint32, async bool) {
	w.ctaGroup(in)
	c := w.cta
	c.tcgenIssued++
	w.tcOwn++
	w.tcAny = true
	if r := c.u.race; r != nil {
		r.tcWork(w)
	}
	if async {
		w.tcSinceBefore = true
	}
	switch {
	case w.tcNeedAfter:
		c.u.m.hazard(Hazard{Kind: HzTcgenFence, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
			Msg:    "tcgen05 operation after a thread synchronization with no tcgen05.fence::after_thread_sync in between",
			Detail: "another thread published tcgen05 work with tcgen05.fence::before_thread_sync and a thread synchronization; this thread's tcgen05 operations are only ordered after that work with tcgen05.fence::after_thread_sync after the barrier or mbarrier wait"})
	case w.tcNoteAfter:
		c.u.m.hazard(Hazard{Kind: HzTcgenFenceNote, Severity: SevNote, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
			Msg:    "tcgen05 operation after a synchronization that follows other threads' tcgen05 work, with no tcgen05.fence::after_thread_sync",
			Detail: "the ISA's ordering rules put tcgen05.fence::after_thread_sync here; the work was complete before the synchronization (a tcgen05.commit's mbarrier phase, a returned tcgen05.alloc), and CUTLASS's sm100 kernels, which contain no tcgen05.fence, rely on that"})
	}
	w.tcNeedAfter, w.tcNoteAfter = false, false
}

// tcSynced is called when warp w passes a thread synchronization point;
// commitWait says the point was an mbarrier phase that a tcgen05.commit
// completed.
// With the checker, which other threads' work the point orders w after
// is decided from happens-before order (tcgen05_fence_hb.go); without it,
// from what ran before under the schedule.
func (w *Warp) tcSynced(commitWait bool) {
	c := w.cta
	if r := c.u.race; r != nil {
		need, note := r.tcSync(w)
		w.tcNeedAfter = w.tcNeedAfter || need
		w.tcNoteAfter = w.tcNoteAfter || note || commitWait
		w.tcAny = false
		return
	}
	if c.tcgenFenced > w.tcSeenFenced {
		w.tcNeedAfter = true
	}
	others := c.tcgenIssued - w.tcOwn
	if others > w.tcSeenIssued || commitWait {
		w.tcNoteAfter = true
	}
	w.tcSeenFenced = c.tcgenFenced
	w.tcSeenIssued = others
	w.tcAny = false
}

// tcArrive is called when warp w reaches a thread synchronization point.
func (w *Warp) tcArrive(in *Inst) {
	if !w.cta.u.m.Prog.hasTcgen05 {
		return
	}
	ldPending := len(w.tcld) > 0 && !w.tcldFenced
	if !w.tcSinceBefore && !w.tcStPending && !ldPending {
		return
	}
	h := Hazard{Kind: HzTcgenFence, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
		Msg:    "thread synchronization while this warp's tcgen05 operations are pending, with no tcgen05.fence::before_thread_sync before it",
		Detail: "pending asynchronous tcgen05 work (an mma, cp or shift not yet committed with tcgen05.commit, an st without tcgen05.wait::st) is only ordered before a barrier or mbarrier arrival, and so before other threads' tcgen05 work, with tcgen05.fence::before_thread_sync"}
	if ldPending && !w.tcSinceBefore && !w.tcStPending {
		p := w.tcld[0]
		h.Kind = HzTcgenWaitLd
		h.Msg = "thread synchronization while a tcgen05.ld of this warp is incomplete (no tcgen05.wait::ld, and not every destination register read yet): the TMEM it reads may be handed to other threads and overwritten before the load has read it"
		h.Detail = "issue tcgen05.wait::ld before releasing the accumulator (an mbarrier arrival, a barrier, a dealloc by another warp)"
		h.Related = w.cta.u.m.Prog.pos(p.in)
	}
	w.tcSinceBefore, w.tcStPending, w.tcldFenced = false, false, true
	w.cta.u.m.hazard(h)
}

func decTcFence(before bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			if before {
				if w.tcAny || w.tcSinceBefore {
					w.cta.tcgenFenced++
					if r := w.cta.u.race; r != nil {
						r.tcBefore(w)
					}
				}
				w.tcSinceBefore, w.tcStPending, w.tcldFenced = false, false, true
			} else {
				w.tcNeedAfter, w.tcNoteAfter = false, false
				if r := w.cta.u.race; r != nil {
					r.tcAfter(w)
				}
				w.tcSeenFenced = w.cta.tcgenFenced
				w.tcSeenIssued = w.cta.tcgenIssued - w.tcOwn
			}
		}
		return nil
	}
}

// alloc / dealloc --------------------------------------------------------------

func decTcAlloc(alloc bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		x := d.x
		if alloc {
			a, err := d.memAddr(x.Operands[0])
			if err != nil {
				return err
			}
			d.in.src = []Opnd{a}
		} else {
			a, err := d.val(x.Operands[0], ptx.B32)
			if err != nil {
				return err
			}
			d.in.src = []Opnd{a}
		}
		n, err := d.val(x.Operands[1], ptx.B32)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, n)
		if alloc {
			d.in.fn = execTcAlloc
		} else {
			d.in.fn = execTcDealloc
		}
		return nil
	}
}

func (w *Warp) alignedCheck(in *Inst, m uint32) {
	if live := w.valid &^ w.exited; m != live {
		w.cta.u.m.hazard(Hazard{Kind: HzWarpAligned, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
			Msg: fmt.Sprintf("%s is .sync.aligned but only lanes %#08x of the warp execute it", in.PTX.Opcode, m)})
	}
}

func execTcAlloc(w *Warp, in *Inst, m uint32) {
	c := w.cta
	mach := c.u.m
	t := c.tmemState()
	l := firstLane(m)
	if w.retryPC != in.PC {
		w.alignedCheck(in, m)
		w.tcIssue(in, m, false)
	}
	pair := in.PTX.ModPrefix("cta_group::") == "cta_group::2"
	var peer *CTA
	if pair {
		if peer = c.peer(); peer == nil {
			mach.hazard(Hazard{Kind: HzCtaGroup, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
				Msg: "tcgen05.alloc.cta_group::2 in a CTA without a peer: the CTA pair is two CTAs of one cluster whose ranks differ in bit 0"})
			w.fault(in, l, "tcgen05.alloc.cta_group::2: CTA %s has no peer CTA in its cluster", fmtID(c.ID))
			return
		}
	}
	n := int(uint32(w.src(&in.src[1], 1)[l]))
	if n < 32 || n > 512 || n&(n-1) != 0 {
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg: fmt.Sprintf("tcgen05.alloc of %d columns: nCols must be a power of 2 from 32 to 512", n)})
		w.fault(in, l, "tcgen05.alloc: nCols %d is invalid", n)
		return
	}
	if t.relinquish && w.retryPC != in.PC {
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg: "tcgen05.alloc after tcgen05.relinquish_alloc_permit: the CTA gave up its right to allocate"})
	}
	if !w.smPermit(in) {
		// a co-resident CTA holds the SM's allocation permit
		w.block(waitInfo{kind: waitSpin, spinAt: c.u.progress})
		return
	}
	col := -1
	if pair && len(t.pairQ) > 0 {
		// The peer's warp allocated the columns in both CTAs' TMEM; this
		// warp's alloc is the other half of the collective operation.
		col = t.pairQ[0].col
		t.pairQ = t.pairQ[1:]
		if a := t.allocs[uint32(col)]; a.n != n {
			mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
				Msg: fmt.Sprintf("tcgen05.alloc.cta_group::2 of %d columns, while the peer CTA's warp asked for %d: both warps of the pair must allocate the same number of columns", n, a.n)})
		}
		t.allocs[uint32(col)] = tmemAlloc{col: col, n: n, pc: in.PC, warp: w.ID}
	} else {
		for s := 0; s+n <= tmemCols; s += n {
			if t.free(s, n) && (peer == nil || peer.tmemState().free(s, n)) && c.smFree(s, n) {
				col = s
				break
			}
		}
		if col < 0 {
			// tcgen05.alloc blocks until columns are free.
			if w.smLeaked(in, n) {
				w.fault(in, l, "tcgen05.alloc of %d columns can never complete: a co-resident CTA exited holding the SM's TMEM columns", n)
				return
			}
			w.block(waitInfo{kind: waitSpin, spinAt: c.u.progress})
			return
		}
		for k := col; k < col+n; k++ {
			t.used[k] = true
			t.clearColumn(k)
		}
		t.allocs[uint32(col)] = tmemAlloc{col: col, n: n, pc: in.PC, warp: w.ID}
		if peer != nil {
			pt := peer.tmemState()
			for k := col; k < col+n; k++ {
				pt.used[k] = true
				pt.clearColumn(k)
			}
			pt.allocs[uint32(col)] = tmemAlloc{col: col, n: n, pc: in.PC, warp: -1}
			pt.pairQ = append(pt.pairQ, tmemAlloc{col: col, n: n, pc: in.PC, warp: -1})
		}
	}
	dst := w.addrOf(&in.src[0], l, 0)
	b := w.mem(in, ptx.SpaceShared, dst, 4, l, true)
	if b == nil {
		return
	}
	putLE(b, uint64(col))
	w.smemHook(in, l, ptx.SpaceShared, dst, 4, true)
	c.u.progress++
}

func execTcDealloc(w *Warp, in *Inst, m uint32) {
	c := w.cta
	mach := c.u.m
	t := c.tmemState()
	l := firstLane(m)
	w.alignedCheck(in, m)
	w.tcIssue(in, m, false)
	lane, col := tmemAddr(w.src(&in.src[0], 0)[l])
	n := int(uint32(w.src(&in.src[1], 1)[l]))
	a, ok := t.allocs[uint32(col)]
	switch {
	case !ok || lane != 0:
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg: fmt.Sprintf("tcgen05.dealloc of TMEM address %#x, which no tcgen05.alloc returned", uint32(lane<<16|col))})
		return
	case a.n != n:
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg:     fmt.Sprintf("tcgen05.dealloc of %d columns at column %d, which was allocated with %d columns", n, col, a.n),
			Related: mach.Prog.pos(&mach.Prog.Insts[a.pc])})
	}
	if t.freedAt == nil {
		t.freedAt = map[int]int{}
	}
	for k := col; k < col+a.n; k++ {
		t.used[k] = false
		t.freedAt[k] = in.PC
	}
	delete(t.allocs, uint32(col))
	c.u.progress++
}

func decTcRelinquish(d *decoder) error {
	d.c.p.hasTcgen05 = true
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		w.alignedCheck(in, m)
		w.ctaGroup(in)
		w.cta.tmemState().relinquish = true
		w.cta.smRelinquish()
	}
	return nil
}

// commit: an mbarrier arrival once the thread's earlier tcgen05 async
// operations complete.
func decTcCommit(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	multicast := x.Has("multicast::cluster")
	pairCommit := x.ModPrefix("cta_group::") == "cta_group::2"
	a, err := d.memAddr(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	if multicast {
		if len(x.Operands) < 2 {
			return fmt.Errorf("tcgen05.commit .multicast::cluster needs a ctaMask operand")
		}
		cm, err := d.val(x.Operands[1], ptx.B16)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, cm)
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			w.ctaGroup(in)
			mb, mc, off, ok := w.mbarAt(in, l, false)
			if !ok {
				return
			}
			var targets []*mbarrier
			if multicast {
				mask := uint32(w.src(&in.src[1], 1)[l]) & 0xFFFF
				cl := w.cta.clusterCTAs()
				if mask == 0 || mask>>len(cl) != 0 {
					u.m.mbarHazard(w, in, 1<<l, HzMulticastMask, "tcgen05.commit .multicast::cluster with ctaMask %#x: the cluster has %d CTAs (ranks 0-%d); a mask bit names a CTA that does not exist, or no CTA at all", mask, len(cl), len(cl)-1)
				} else if pairCommit {
					if p := w.cta.peer(); p != nil && (mask>>p.Rank&1 == 0 || mask>>w.cta.Rank&1 == 0) {
						out := w.cta
						if mask>>p.Rank&1 == 0 {
							out = p
						}
						h := Hazard{Kind: HzMulticastMask, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
							Msg: fmt.Sprintf("tcgen05.commit.cta_group::2 with ctaMask %#x leaves out CTA rank %d of the pair (ranks %d and %d): the pair's MMAs write both CTAs' TMEM, and a CTA whose mbarrier is not signalled cannot know when its accumulator is ready", mask, out.Rank, w.cta.Rank&^1, w.cta.Rank|1)}
						// a root cause on the left-out CTA's barrier: its
						// waiters hang, and what waits for them
						if omb := out.mbars[off]; omb != nil {
							u.m.rootHazard(h, omb, 0)
						} else {
							u.m.hazard(h)
						}
					}
				}
				for r := 0; r < len(cl); r++ {
					if mask>>r&1 == 0 {
						continue
					}
					t := cl[r].mbars[off]
					if t == nil || !t.live {
						u.m.mbarUninit(cl[r], off, t, w.cta.u.race.warpPoint(w, in.PC), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
							Msg: fmt.Sprintf("tcgen05.commit multicasts to the mbarrier at %#x of CTA rank %d, which is not initialized", off, r)}, false)
						continue
					}
					targets = append(targets, t)
				}
			} else {
				if mb == nil || !mb.live {
					u.m.mbarUninit(mc, off, mb, w.cta.u.race.warpPoint(w, in.PC), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
						Msg: fmt.Sprintf("tcgen05.commit arrives on the mbarrier at %#x, which is not initialized", off)}, false)
					continue
				}
				targets = []*mbarrier{mb}
			}
			w.tcSinceBefore = false // the commit is the synchronization of the async work
			tid := 32*w.ID + l
			op := &asyncOp{kind: akTcgenCommit, cta: w.cta, w: w, lane: l, tid: tid, in: in, desc: fmt.Sprintf("arrive on mbarrier %#x (%d CTAs)", off, len(targets))}
			// the shared-memory reads of the thread's tcgen05 operations are
			// released by this arrival
			var reads []*asyncRead
			var chain *commitChain
			var seq int
			if u.race != nil {
				reads = u.race.tcCommit(w.cta, tid)
				// and so are its TMEM accesses (tcgen05_hb.go)
				chain, seq = w.cta.tmemState().commitIssued(tid, targets)
			}
			op.run = func(op *asyncOp) {
				for _, t := range targets {
					if u.race != nil {
						e := u.race.mbarEpoch(t, in.PC, ekGeneric)
						for _, a := range reads {
							a.release(e)
						}
						chain.commitDone(seq, e)
						u.race.mbarAsyncArrive(t, op.issueVC, in.PC)
					}
					t.tcCommitted = true
					t.asyncArrive(in.PC, 1)
				}
			}
			u.issue(op)
		}
	}
	return nil
}
