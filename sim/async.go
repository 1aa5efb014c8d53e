package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/trace"
)

// Asynchronous operations (TMA and bulk copies, cp.async, tcgen05.mma and
// commit) wait in the unit's queue until they complete: in Lazy mode when
// a wait needs them or no warp can run, in Eager mode at issue, in Random
// mode at random points. While an operation is in flight its shared-memory
// destination and source are marked, so that generic accesses to them are
// reported.

type asyncKind uint8

const (
	akTMALoad asyncKind = iota
	akTMAStore
	akBulkLoad
	akBulkStore
	akCpAsync
	akCpAsyncArrive
	akTcgenMMA
	akTcgenCommit
	akTcgenCp
	akStAsync
	akWgmma
	akCLC
)

var asyncKindNames = [...]string{"TMA load", "TMA store", "bulk copy", "bulk store", "cp.async", "cp.async.mbarrier.arrive",
	"tcgen05.mma", "tcgen05.commit", "tcgen05.cp", "st.async", "wgmma.mma_async", "clusterlaunchcontrol.try_cancel"}

func (k asyncKind) String() string { return asyncKindNames[k] }

type region struct {
	c   *CTA
	off uint32
	n   int
}

type asyncOp struct {
	kind    asyncKind
	cta     *CTA
	w       *Warp
	lane    int
	tid     int
	in      *Inst
	issueVC []uint32
	run     func(op *asyncOp)
	// the happens-before record of the shared memory it reads
	hbRead *asyncRead
	wr, rd []region
	done   bool
	desc   string
	seq    uint64
}

// AsyncOp describes an in-flight asynchronous operation (for inspection).
type AsyncOp struct {
	Kind   string
	CTA    [3]int
	Thread int
	Pos    ptx.Position
	Desc   string
	// Wgmma describes a wgmma.mma_async in flight (nil for the other
	// kinds), as typed fields: Desc says the same in words.
	Wgmma *WgmmaInFlight
}

// WgmmaInFlight is a wgmma.mma_async that has not completed.
type WgmmaInFlight struct {
	Warpgroup int   // the warpgroup of the CTA
	Op        int   // its index among the warpgroup's operations, from 0
	IssuedBy  uint8 // bit k: warp k of the warpgroup has issued it
	Group     int   // its commit group, -1 while not committed
}

// issue starts an async operation.
func (u *unit) issue(op *asyncOp) {
	u.seqNo++
	op.seq = u.seqNo
	if u.race != nil && op.w != nil && op.issueVC == nil {
		op.issueVC = u.race.issueVC(op.w)
	}
	if u.race == nil {
		// Without the happens-before checker, accesses to the regions of
		// operations in flight are reported as the schedule exposes them.
		for _, g := range groupByCTA(op.wr) {
			g[0].c.markInflight(g, true, op)
		}
		for _, g := range groupByCTA(op.rd) {
			g[0].c.markInflight(g, false, op)
		}
	}
	if u.m.trace != nil {
		u.m.trace.event(&trace.Event{Kind: trace.AsyncIssue, Op: op.kind.String(), CTA: op.cta.ID, Thread: op.tid, PC: op.in.PC, Desc: op.desc})
	}
	switch u.m.Opts.Schedule {
	case Eager:
		u.finishOp(op)
		return
	case Lazy:
		// Copies that complete on an mbarrier land at issue: their
		// completion is only observable through the mbarrier, and the
		// race detector reports reads that are not ordered after it.
		if op.kind == akTMALoad || op.kind == akBulkLoad || op.kind == akCLC {
			u.finishOp(op)
			return
		}
	}
	u.async = append(u.async, op)
}

// groupByCTA splits regions by the CTA that owns them.
func groupByCTA(rs []region) [][]region {
	if len(rs) == 0 {
		return nil
	}
	var out [][]region
	for _, r := range rs {
		found := false
		for i := range out {
			if out[i][0].c == r.c {
				out[i] = append(out[i], r)
				found = true
			}
		}
		if !found {
			out = append(out, []region{r})
		}
	}
	return out
}

// finishOp completes op now.
func (u *unit) finishOp(op *asyncOp) {
	if op.done {
		return
	}
	op.done = true
	if u.race == nil {
		for _, g := range groupByCTA(op.wr) {
			g[0].c.unmarkInflight(op, true)
		}
		for _, g := range groupByCTA(op.rd) {
			g[0].c.unmarkInflight(op, false)
		}
	}
	op.run(op)
	u.progress++
	if u.m.trace != nil {
		u.m.trace.event(&trace.Event{Kind: trace.AsyncComplete, Op: op.kind.String(), CTA: op.cta.ID, Thread: op.tid, PC: op.in.PC})
	}
}

// completeOne completes the i-th queued operation (or the first one it
// must wait for).
func (u *unit) completeOne(i int) {
	i = u.readyIndex(i)
	op := u.async[i]
	u.async = append(u.async[:i], u.async[i+1:]...)
	u.finishOp(op)
}

// readyIndex moves i back to an earlier operation of the same thread
// that must complete first (commits wait for the thread's earlier work).
//
// A thread's tcgen05.mma, cp and shift operations run in issue order (the
// ISA's pipelined instruction pairs): one of them waits for the thread's
// earlier tcgen05 operations.
func (u *unit) readyIndex(i int) int {
	op := u.async[i]
	tc := op.kind == akTcgenMMA || op.kind == akTcgenCp
	if op.kind != akTcgenCommit && op.kind != akCpAsyncArrive && !tc {
		return i
	}
	for j := 0; j < i; j++ {
		o := u.async[j]
		if o.tid != op.tid || o.cta != op.cta {
			continue
		}
		if !tc || o.kind == akTcgenMMA || o.kind == akTcgenCp {
			return j
		}
	}
	return i
}

// completeAsync completes the oldest queued operation; it reports false
// when there is none.
func (u *unit) completeAsync() bool {
	if len(u.async) > 0 {
		u.completeOne(0)
		return true
	}
	// wgmma groups committed by every warp of a warpgroup can complete
	for _, c := range u.ctas {
		for _, wg := range c.wgs {
			if wg.completeCommitted() {
				return true
			}
		}
	}
	return false
}

// completeWhere completes every queued operation for which f is true, in
// issue order.
func (u *unit) completeWhere(f func(op *asyncOp) bool) {
	for i := 0; i < len(u.async); {
		if f(u.async[i]) {
			op := u.async[i]
			u.async = append(u.async[:i], u.async[i+1:]...)
			u.finishOp(op)
			continue
		}
		i++
	}
}

// InFlight lists the queued asynchronous operations.
func (u *unit) inFlight() []AsyncOp {
	var out []AsyncOp
	for _, op := range u.async {
		out = append(out, AsyncOp{Kind: op.kind.String(), CTA: op.cta.ID, Thread: op.tid, Pos: u.m.Prog.pos(op.in), Desc: op.desc})
	}
	return out
}

// in-flight shared-memory regions -----------------------------------------
//
// Without Options.Check, the regions an asynchronous operation in flight
// writes or reads are kept as ranges (a few per operation), with a count
// per 1 KiB block of shared memory so that an access far from every
// operation costs one lookup (rangeIndex). What it buys over a count per
// shared byte (the former design, byteIndex in the benchmarks) is a
// bounded cost per operation and memory, not the speed of a GEMM: marking
// a 16 KiB TMA tile and an 8 KiB wgmma operand, checking 64 accesses and
// unmarking both is 36x cheaper (BenchmarkInflightOps), and a CTA keeps
// 458 bytes instead of 912 KiB; but on the 128x256-tile GEMM the in-flight
// checks are 2-3% of the run either way, and BenchmarkInflight measures
// per-byte/ranges at 1.05, within the shared machine's noise.

// inflightIndex finds the in-flight operations touching shared bytes.
type inflightIndex interface {
	// mark adds op's regions (ranges of [lo, hi)).
	mark(sp spans, write bool, op *asyncOp)
	// unmark removes op's regions of that direction.
	unmark(op *asyncOp, write bool)
	// at finds an operation writing (or reading) a byte of [lo, hi) and
	// the first such byte.
	at(lo, hi uint32, write bool) (*asyncOp, uint32, bool)
	// empty reports whether nothing is in flight.
	empty() bool
}

// newInflightIndex makes a CTA's index (a variable so that the benchmark
// can install its per-byte baseline).
var newInflightIndex = func(smem int) inflightIndex { return &rangeIndex{blk: make([]uint16, smem>>inflBlockShift+1)} }

type inflightRef struct {
	sp    spans
	write bool
	op    *asyncOp
}

const inflBlockShift = 10

// rangeIndex keeps the regions as ranges and a count of regions per
// 1 KiB block.
type rangeIndex struct {
	refs []inflightRef
	blk  []uint16
}

func (x *rangeIndex) mark(sp spans, write bool, op *asyncOp) {
	for _, r := range sp {
		for b := r.lo >> inflBlockShift; b <= (r.hi-1)>>inflBlockShift; b++ {
			x.blk[b]++
		}
	}
	x.refs = append(x.refs, inflightRef{sp: sp, write: write, op: op})
}

func (x *rangeIndex) unmark(op *asyncOp, write bool) {
	for i, ref := range x.refs {
		if ref.op != op || ref.write != write {
			continue
		}
		for _, r := range ref.sp {
			for b := r.lo >> inflBlockShift; b <= (r.hi-1)>>inflBlockShift; b++ {
				x.blk[b]--
			}
		}
		x.refs = append(x.refs[:i], x.refs[i+1:]...)
		return
	}
}

func (x *rangeIndex) empty() bool { return len(x.refs) == 0 }

func (x *rangeIndex) at(lo, hi uint32, write bool) (*asyncOp, uint32, bool) {
	if len(x.refs) == 0 || lo >= hi {
		return nil, 0, false
	}
	any := false
	for b := lo >> inflBlockShift; b <= (hi-1)>>inflBlockShift && int(b) < len(x.blk); b++ {
		any = any || x.blk[b] > 0
	}
	if !any {
		return nil, 0, false
	}
	for _, ref := range x.refs {
		if ref.write != write || !ref.sp.overlaps(lo, hi) {
			continue
		}
		first := lo
		for _, r := range ref.sp {
			if r.hi > lo && r.lo < hi {
				first = max(lo, r.lo)
				break
			}
		}
		return ref.op, first, true
	}
	return nil, 0, false
}

// markInflight marks regions of c's shared memory as written (or read) by
// the in-flight operation op.
func (c *CTA) markInflight(regs []region, write bool, op *asyncOp) {
	if len(regs) == 0 {
		return
	}
	if c.infl == nil {
		c.infl = newInflightIndex(len(c.Smem))
	}
	var sp spans
	for _, r := range regs {
		sp.add(r.off, r.off+uint32(r.n))
	}
	if write {
		for _, x := range sp {
			if other, lo, ok := c.inflightAt(x.lo, x.hi, false); ok {
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1, Off: lo, Bytes: 1,
					Msg:    fmt.Sprintf("%s overwrites shared bytes (from %#x) that an in-flight %s still reads", op.kind, lo, kindOf(other)),
					Detail: "the buffer is refilled before the operation reading it is known to be complete (a missing wait_group, or a consumer release that comes too early)"}
				h.Related = c.u.m.Prog.pos(other.in)
				c.u.m.hazard(h)
				break
			}
			if other, lo, ok := c.inflightAt(x.lo, x.hi, true); ok {
				h := Hazard{Kind: HzAsyncOverlap, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1, Off: lo, Bytes: 1,
					Msg:    fmt.Sprintf("%s writes shared bytes that another in-flight copy also writes (from %#x)", op.kind, lo),
					Detail: "the two copies are both in flight, so which one lands last is undefined"}
				h.Related = c.u.m.Prog.pos(other.in)
				c.u.m.hazard(h)
				break
			}
		}
	}
	c.infl.mark(sp, write, op)
}

// unmarkInflight ends op's marks.
func (c *CTA) unmarkInflight(op *asyncOp, write bool) {
	if c.infl != nil {
		c.infl.unmark(op, write)
	}
}

// inflightAt finds an in-flight operation writing (or reading) a byte of
// [lo, hi), and the first such byte.
func (c *CTA) inflightAt(lo, hi uint32, write bool) (*asyncOp, uint32, bool) {
	if c.infl == nil {
		return nil, 0, false
	}
	return c.infl.at(lo, hi, write)
}

// smemHook checks a generic-proxy shared-memory access.
func (w *Warp) smemHook(in *Inst, lane int, sp ptx.Space, addr uint64, n int, write bool) {
	ms, a := resolve(sp, addr)
	if ms != msShared {
		return
	}
	c, off64, ok := w.cta.clusterShared(a)
	if !ok {
		return
	}
	off := uint32(off64)
	u := w.cta.u
	if c.infl != nil && !c.infl.empty() {
		hi := off + uint32(n)
		if op, o, ok := c.inflightAt(off, hi, true); ok {
			h := Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane, Off: o, Bytes: 1,
				Msg:     fmt.Sprintf("%s of shared byte %#x while an in-flight %s is still writing it", rw(write), o, kindOf(op)),
				Detail:  "the copy's completion must be observed (mbarrier wait, or the group's wait) before its destination is touched",
				Related: u.m.Prog.pos(op.in)}
			u.m.hazard(h)
		} else if write {
			if op, o, ok := c.inflightAt(off, hi, false); ok {
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane, Off: o, Bytes: 1,
					Msg:     fmt.Sprintf("write of shared byte %#x while an in-flight %s still reads it", o, kindOf(op)),
					Detail:  "the source of an asynchronous read may only be reused after the operation is known to have read it",
					Related: u.m.Prog.pos(op.in)}
				u.m.hazard(h)
			}
		}
	}
	if write && c.srcTags != nil {
		c.clearSource(off, n)
	}
	if write && len(c.mbars) > 0 {
		for k := off &^ 7; k < off+uint32(n); k += 8 {
			if mb := c.mbars[k]; mb != nil && mb.live {
				u.m.hazard(Hazard{Kind: HzMbarGenericWrite, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:     fmt.Sprintf("generic store to shared address %#x overwrites the live mbarrier object at %#x", off, k),
					Related: u.m.Prog.pos(&u.m.Prog.Insts[mb.initPC])})
			}
		}
	}
	if u.race != nil {
		u.race.access(w, in, lane, c, off, n, write)
	}
}

func kindOf(op *asyncOp) string {
	if op == nil {
		return "asynchronous operation"
	}
	return op.kind.String()
}

// asyncReadCheck checks an async-proxy read of shared memory at issue
// without the happens-before checker: bytes still being written by an
// in-flight copy. (With Options.Check, raceState.asyncReadRegions decides
// from the order instead.)
func (w *Warp) asyncReadCheck(in *Inst, c *CTA, off uint32, n int, what string) {
	u := w.cta.u
	if u.race != nil || c.infl == nil || c.infl.empty() {
		return
	}
	if op, o, ok := c.inflightAt(off, off+uint32(n), true); ok {
		u.m.hazard(Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Off: o, Bytes: 1,
			Msg:     fmt.Sprintf("%s reads shared bytes from %#x that an in-flight %s has not finished writing", what, o, kindOf(op)),
			Detail:  "the mbarrier wait that should cover the copy is missing, or waits on the wrong phase parity",
			Related: u.m.Prog.pos(op.in)})
	}
}

// proxyFence is fence.proxy.async: nothing to do beyond the race detector.
func (u *unit) proxyFence(w *Warp) {}

// checkExit reports what a finished CTA left behind.
func (c *CTA) checkExit() {
	if c.exitedHazardsDone {
		return
	}
	c.exitedHazardsDone = true
	c.flushSwizzled()
	m := c.u.m
	for _, wg := range c.wgs {
		wg.checkExit()
	}
	for tid, bg := range c.bulk {
		if bg == nil {
			continue
		}
		var pending *asyncOp
		for _, g := range append([][]*asyncOp{bg.open}, bg.groups...) {
			for _, op := range g {
				// in flight, or (checking the order) never waited for
				unwaited := op.hbRead != nil && len(op.hbRead.releases) == 0
				if (!op.done || unwaited) && pending == nil {
					pending = op
				}
			}
		}
		if pending != nil {
			pc := pending.in.PC
			m.hazard(Hazard{Kind: HzAsyncExit, PC: pc, CTA: c.ID, Warp: tid / 32, Lanes: 1 << (tid % 32),
				Msg:    fmt.Sprintf("thread %d exits with bulk async copies that read shared memory not waited for (cp.async.bulk.wait_group.read missing)", tid),
				Detail: "portability: undefined by the ISA, emitted by CUTLASS's sm100 epilogue, correct on the H100 (65.5 M stores of exiting CTAs, none corrupted); add cp.async.bulk.wait_group.read 0 before exit for strict conformance (tcsim run --rules async/exit-in-flight)"})
		}
	}
	if c.tmem != nil {
		c.tmem.checkExit(c)
	}
}
