package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/ptx"
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
)

var asyncKindNames = [...]string{"TMA load", "TMA store", "bulk copy", "bulk store", "cp.async", "cp.async.mbarrier.arrive",
	"tcgen05.mma", "tcgen05.commit", "tcgen05.cp", "st.async", "wgmma.mma_async"}

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
	clock   uint32
	run     func(op *asyncOp)
	wr, rd  []region
	done    bool
	desc    string
	seq     uint64
}

// AsyncOp describes an in-flight asynchronous operation (for inspection).
type AsyncOp struct {
	Kind   string
	CTA    [3]int
	Thread int
	Pos    ptx.Position
	Desc   string
}

// issue starts an async operation.
func (u *unit) issue(op *asyncOp) {
	u.seqNo++
	op.seq = u.seqNo
	if u.race != nil && op.w != nil {
		op.issueVC = u.race.issueVC(op.w)
		op.clock = u.race.nextAgentClock(op.cta)
	}
	for _, g := range groupByCTA(op.wr) {
		g[0].c.markInflight(g, true, op)
	}
	for _, g := range groupByCTA(op.rd) {
		g[0].c.markInflight(g, false, op)
	}
	if u.m.trace != nil {
		u.m.trace.event(map[string]any{"event": "async.issue", "kind": op.kind.String(), "cta": op.cta.ID, "thread": op.tid, "pc": op.in.PC, "desc": op.desc})
	}
	switch u.m.Opts.Schedule {
	case Eager:
		u.finishOp(op)
		return
	case Lazy:
		// Copies that complete on an mbarrier land at issue: their
		// completion is only observable through the mbarrier, and the
		// race detector reports reads that are not ordered after it.
		if op.kind == akTMALoad || op.kind == akBulkLoad {
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
	for _, g := range groupByCTA(op.wr) {
		g[0].c.unmarkInflight(op, true)
	}
	for _, g := range groupByCTA(op.rd) {
		g[0].c.unmarkInflight(op, false)
	}
	op.run(op)
	u.progress++
	if u.m.trace != nil {
		u.m.trace.event(map[string]any{"event": "async.complete", "kind": op.kind.String(), "cta": op.cta.ID, "thread": op.tid, "pc": op.in.PC})
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
func (u *unit) readyIndex(i int) int {
	op := u.async[i]
	if op.kind != akTcgenCommit && op.kind != akCpAsyncArrive {
		return i
	}
	for j := 0; j < i; j++ {
		if u.async[j].tid == op.tid && u.async[j].cta == op.cta {
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

type inflightRef struct {
	regs  []region
	write bool
	op    *asyncOp
}

// markInflight marks regions of c's shared memory as written (or read) by
// the in-flight operation op.
func (c *CTA) markInflight(regs []region, write bool, op *asyncOp) {
	if len(regs) == 0 {
		return
	}
	if c.inflW == nil {
		c.inflW = make([]uint16, len(c.Smem))
		c.inflR = make([]uint16, len(c.Smem))
	}
	arr := c.inflR
	if write {
		arr = c.inflW
	}
	reported := false
	for _, r := range regs {
		for k := 0; k < r.n; k++ {
			if write && !reported && c.inflR[int(r.off)+k] > 0 {
				reported = true
				other := c.inflightOp(r.off+uint32(k), false)
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1,
					Msg:    fmt.Sprintf("%s overwrites shared bytes (from %#x) that an in-flight %s still reads", op.kind, int(r.off)+k, kindOf(other)),
					Detail: "the buffer is refilled before the operation reading it is known to be complete (a missing wait_group, or a consumer release that comes too early)"}
				if other != nil {
					h.Related = c.u.m.Prog.pos(other.in)
				}
				c.u.m.hazard(h)
			}
			if write && !reported && arr[int(r.off)+k] > 0 {
				reported = true
				other := c.inflightOp(r.off+uint32(k), true)
				h := Hazard{Kind: HzAsyncOverlap, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1,
					Msg:    fmt.Sprintf("%s writes shared bytes that another in-flight copy also writes (from %#x)", op.kind, int(r.off)+k),
					Detail: "the two copies are both in flight, so which one lands last is undefined"}
				if other != nil {
					h.Related = c.u.m.Prog.pos(other.in)
				}
				c.u.m.hazard(h)
			}
			arr[int(r.off)+k]++
		}
	}
	c.inflight = append(c.inflight, inflightRef{regs: regs, write: write, op: op})
	c.inflightN++
}

// unmarkInflight ends op's marks.
func (c *CTA) unmarkInflight(op *asyncOp, write bool) {
	for i, ref := range c.inflight {
		if ref.op != op || ref.write != write {
			continue
		}
		arr := c.inflR
		if write {
			arr = c.inflW
		}
		for _, r := range ref.regs {
			for k := 0; k < r.n; k++ {
				arr[int(r.off)+k]--
			}
		}
		c.inflight = append(c.inflight[:i], c.inflight[i+1:]...)
		c.inflightN--
		return
	}
}

// inflightOp finds an in-flight operation touching byte off.
func (c *CTA) inflightOp(off uint32, write bool) *asyncOp {
	for _, ref := range c.inflight {
		if ref.write != write {
			continue
		}
		for _, r := range ref.regs {
			if off >= r.off && int(off) < int(r.off)+r.n {
				return ref.op
			}
		}
	}
	return nil
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
	if c.inflightN > 0 {
		for k := 0; k < n; k++ {
			if c.inflW[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), true)
				h := Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:    fmt.Sprintf("%s of shared byte %#x while an in-flight %s is still writing it", rw(write), int(off)+k, kindOf(op)),
					Detail: "the copy's completion must be observed (mbarrier wait, or the group's wait) before its destination is touched"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				break
			}
			if write && c.inflR[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), false)
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:    fmt.Sprintf("write of shared byte %#x while an in-flight %s still reads it", int(off)+k, kindOf(op)),
					Detail: "the source of an asynchronous read may only be reused after the operation is known to have read it"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				break
			}
		}
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
// (wgmma, TMA store, tcgen05.mma operands): bytes still being written by an
// in-flight copy, and (with the race detector) generic writes without
// fence.proxy.async.
func (w *Warp) asyncReadCheck(in *Inst, c *CTA, off uint32, n int, what string) {
	u := w.cta.u
	if c.inflightN > 0 {
		for k := 0; k < n; k++ {
			if c.inflW[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), true)
				h := Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
					Msg:    fmt.Sprintf("%s reads shared bytes from %#x that an in-flight %s has not finished writing", what, int(off)+k, kindOf(op)),
					Detail: "the mbarrier wait that should cover the copy is missing, or waits on the wrong phase parity"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				return
			}
		}
	}
	if u.race != nil {
		u.race.asyncRead(w, in, c, off, n, what)
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
				if !op.done && pending == nil {
					pending = op
				}
			}
		}
		if pending != nil {
			pc := pending.in.PC
			m.hazard(Hazard{Kind: HzAsyncExit, Severity: SevError, PC: pc, CTA: c.ID, Warp: tid / 32, Lanes: 1 << (tid % 32),
				Msg:    fmt.Sprintf("thread %d exits with bulk async copies that read shared memory not waited for (cp.async.bulk.wait_group.read missing)", tid),
				Detail: "shared memory is released when the CTA exits; an outstanding copy may read freed memory"})
		}
	}
	if c.tmem != nil {
		c.tmem.checkExit(c)
	}
}
