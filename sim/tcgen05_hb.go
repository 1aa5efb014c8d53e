package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Happens-before order of Tensor Memory (Options.Check). A tcgen05.mma or
// tcgen05.cp reads and writes TMEM asynchronously: it is complete for
// another thread only once that thread is ordered after the mbarrier phase
// of a tcgen05.commit the issuing thread made after it (the commit
// "releases" it, as it releases the MMA's shared-memory operands), and for
// the issuing thread's own later MMAs and copies, which run in order. So
// the checks below do not ask whether the simulated MMA happens to be
// pending under the chosen schedule, but whether the access is ordered
// after the completion it needs:
//
//   - a tcgen05.ld (or tcgen05.st, or another thread's tcgen05.cp or MMA)
//     of cells an MMA or copy writes must be ordered after that operation's
//     commit; a load that waited for the previous writer of the cells (the
//     last tile's MMA) is the victim of the new writer, which overwrote the
//     accumulator before the load was ordered before it (tcgen05/tmem-race
//     at the MMA); a load that waited for nothing is early
//     (tcgen05/read-in-flight at the load);
//   - a tcgen05.st or another thread's tcgen05.cp over cells an MMA reads
//     (scale factors, A in TMEM) must be ordered after that MMA's commit;
//   - a tcgen05.ld that ran before an MMA wrote cells that nothing had
//     written yet (freshly allocated TMEM), or whose last writer the load
//     had not waited for (a partial accumulator), read too early: it is
//     reported at the load, not as the MMA's overwrite.
//
// Without --check the simulator reports what the schedule exposes (the
// in-flight counts of tmemState).

// tmemOp is one asynchronous tcgen05 operation's access of TMEM.
type tmemOp struct {
	chain *commitChain // the issuing thread's commits
	seq   int          // the first of them that releases this operation
	what  string       // "tcgen05.mma", "tcgen05.cp"
	pc    int32
	key   int32 // the issuing thread: CTA linear·1024 + tid
	warp  int
	cta   *CTA
}

// commitChain is one thread's tcgen05.commits in issue order: a commit
// completes once all of the thread's earlier asynchronous tcgen05
// operations have, so it releases every one of them. done[j] holds the
// release points of commit j (one per mbarrier it arrives on), nil until
// it completes.
type commitChain struct {
	done    [][]epoch
	targets [][]*mbarrier // the mbarriers commit j arrives on
}

// chain returns thread tid's commit chain (the CTA's TMEM state keeps the
// chains of the threads that issue tcgen05 work in it).
func (t *tmemState) chain(tid int) *commitChain {
	if t.chains == nil {
		t.chains = map[int]*commitChain{}
	}
	ch := t.chains[tid]
	if ch == nil {
		ch = &commitChain{}
		t.chains[tid] = ch
	}
	return ch
}

// newTmemOp records an asynchronous TMEM access by lane l of w, released
// by the thread's next tcgen05.commit (nil without --check).
func (w *Warp) newTmemOp(in *Inst, l int, what string) *tmemOp {
	if w.cta.u.race == nil {
		return nil
	}
	ch := w.cta.tmemState().chain(32*w.ID + l)
	return &tmemOp{chain: ch, seq: len(ch.done), what: what, pc: int32(in.PC),
		key: int32(w.cta.Linear*1024 + 32*w.ID + l), warp: w.ID, cta: w.cta}
}

// doneFor reports whether o is complete for the thread key at warp w's
// current point: w is ordered after the completion of a commit the issuing
// thread made after o, or key issued o (a thread's MMAs and copies run in
// order; key -1 for a warp's tcgen05.ld/st, which do not).
func (o *tmemOp) doneFor(w *Warp, key int32) bool {
	if o == nil || o.key == key && key >= 0 {
		return true
	}
	v := w.cta.u.race.vc[w.uid]
	for _, es := range o.chain.done[min(o.seq, len(o.chain.done)):] {
		for _, e := range es {
			if orderedVC(e, v) {
				return true
			}
		}
	}
	return false
}

// commitIssued starts commit j of thread tid's chain; commitDone records
// one of its release points when it completes.
func (t *tmemState) commitIssued(tid int, targets []*mbarrier) (ch *commitChain, j int) {
	ch = t.chain(tid)
	ch.done = append(ch.done, nil)
	ch.targets = append(ch.targets, targets)
	return ch, len(ch.done) - 1
}

func (ch *commitChain) commitDone(j int, e epoch) { ch.done[j] = append(ch.done[j], e) }

// hbCells allocates the happens-before records of t's cells.
func (t *tmemState) hbCells() {
	n := len(t.cells)
	t.asyncW = make([]*tmemOp, n)
	t.prevW = make([]*tmemOp, n)
	t.asyncR = make([]*tmemOp, n)
	t.readEarly = make([]bool, n)
	t.prevWrittenBy = make([]epoch, n)
	for i := range t.prevWrittenBy {
		t.prevWrittenBy[i] = noEpoch
	}
}

// setAsyncWrite makes op the last asynchronous writer of cell idx.
func (t *tmemState) setAsyncWrite(idx int, op *tmemOp) {
	if t.asyncW == nil {
		return
	}
	t.prevW[idx] = t.asyncW[idx]
	t.asyncW[idx] = op
	if op != nil && t.stSeq != nil {
		t.stSeq[idx] = 0
	}
}

// clearHB forgets the asynchronous accesses of cell idx (a new allocation).
func (t *tmemState) clearHB(idx int) {
	if t.asyncW == nil {
		return
	}
	t.asyncW[idx], t.prevW[idx], t.asyncR[idx] = nil, nil, nil
	if t.stSeq != nil {
		t.stSeq[idx] = 0
	}
	t.readEarly[idx] = false
	t.prevWrittenBy[idx] = noEpoch
}

// ldCheck checks a tcgen05.ld by warp w of cell idx against the
// asynchronous writes of the cell; it reports at most once per load
// (*reported). It returns whether the load is early: the cell's last
// asynchronous writer is not complete for the warp.
func (t *tmemState) ldCheck(w *Warp, in *Inst, m uint32, idx int, reported *bool) bool {
	if t.asyncW == nil {
		return false
	}
	cur := t.asyncW[idx]
	if cur.doneFor(w, -1) {
		return false
	}
	prev := t.prevW[idx]
	victim := prev != nil && prev.doneFor(w, -1)
	if *reported {
		return !victim
	}
	*reported = true
	mach := w.cta.u.m
	if victim {
		// the load waited for the previous writer: the new one overwrote
		// the accumulator before the load was ordered before it
		mach.hazard(Hazard{Kind: HzTmemRace, Severity: SevError, PC: int(cur.pc), CTA: cur.cta.ID, Warp: cur.warp,
			Msg: fmt.Sprintf("%s overwrites TMEM of CTA %s (lane %d, column %d) that warp %d of CTA %s reads with tcgen05.ld, after waiting for the %s that wrote it before: nothing orders that read before this %s was issued",
				cur.what, fmtID(w.cta.ID), idx/tmemCols, idx%tmemCols, w.ID, fmtID(w.cta.ID), prev.what, cur.what),
			Detail:  "the accumulator is reused before every warp that reads it has released it: the MMA's wait must cover an arrival from each reading warp (of both CTAs of a pair: count them in the mbarrier's expected arrivals)",
			Related: mach.Prog.pos(in)})
		return false
	}
	r := w.cta.u.race
	if t := cur.wrongWait(w, in, m); t != nil {
		r.reportRoot(t)
		return true
	}
	r.inflightRoot(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
		Msg: fmt.Sprintf("tcgen05.ld reads TMEM (lane %d, column %d) that a %s writes, and no completion of that %s is ordered before this load",
			idx/tmemCols, idx%tmemCols, cur.what, cur.what),
		Detail:  "wait for the phase of the mbarrier that the issuing thread's tcgen05.commit arrives on (mbarrier.try_wait.parity) before reading the accumulator",
		Related: mach.Prog.pos(&mach.Prog.Insts[cur.pc])}, int32(w.uid), r.vc[w.uid][w.uid])
	return true
}

// ldMark records warp w's tcgen05.ld of cell idx for the MMAs that write
// the cell later; early says the load did not wait for the cell's last
// writer (ldCheck), or the cell holds nothing yet.
func (t *tmemState) ldMark(w *Warp, in *Inst, idx int, early bool) {
	if t.readBy == nil {
		return
	}
	t.readBy[idx] = epoch{slot: int32(w.uid), clock: w.cta.u.race.vc[w.uid][w.uid], pc: int32(in.PC)}
	t.readEarly[idx] = early || !t.written[idx]
}

// tmemConflict is a write's conflict with an asynchronous operation that
// is not complete for the writer: one that reads the cell (read) or writes
// it.
type tmemConflict struct {
	h    *Hazard
	op   *tmemOp
	read bool
}

// writeCheck checks a write of cell idx (what: a tcgen05.st by warp w,
// key -1, or a tcgen05.cp or MMA by thread key) against the asynchronous
// operations that read or write the cell: each must be complete for the
// writer. It returns the conflicts (at most one of each kind) without
// reporting them.
func (t *tmemState) writeCheck(w *Warp, key int32, idx int, what string) []tmemConflict {
	if t.asyncW == nil {
		return nil
	}
	var out []tmemConflict
	prog := w.cta.u.m.Prog
	if r := t.asyncR[idx]; !r.doneFor(w, key) {
		out = append(out, tmemConflict{&Hazard{Kind: HzTcgenInFlight, Severity: SevError,
			Msg: fmt.Sprintf("%s overwrites TMEM (lane %d, column %d) that a tcgen05.mma of warp %d reads (its scale factors or A operand), and no completion of that MMA is ordered before this write",
				what, idx/tmemCols, idx%tmemCols, r.warp),
			Detail:  "tcgen05.cp and tcgen05.mma issued by one thread run in order, but another thread's MMA is only done once its tcgen05.commit's mbarrier phase completes: wait for that phase before refilling the MMA's TMEM operands",
			Related: prog.pos(&prog.Insts[r.pc])}, r, true})
	}
	if cur := t.asyncW[idx]; !cur.doneFor(w, key) {
		out = append(out, tmemConflict{&Hazard{Kind: HzTcgenInFlight, Severity: SevError,
			Msg: fmt.Sprintf("%s overwrites TMEM (lane %d, column %d) that a %s of warp %d writes, and no completion of that %s is ordered before this write",
				what, idx/tmemCols, idx%tmemCols, cur.what, cur.warp, cur.what),
			Detail:  "which write lands last is undefined: wait for the phase of the mbarrier that the issuing thread's tcgen05.commit arrives on before overwriting its TMEM",
			Related: prog.pos(&prog.Insts[cur.pc])}, cur, false})
	}
	return out
}

// tcRoot is a finding of the TMEM checks that is a root cause (what the
// warps do after it is out of step): the mbarrier whose protocol it broke
// (nil: none) and the point of the warp that made it (a wait that passed
// on the wrong phase, a load that waited for nothing).
type tcRoot struct {
	h     Hazard
	mb    *mbarrier
	point taintPoint
}

// reportRoot records a TMEM root cause: the later observations of its
// mbarrier, and those ordered after its point, are its consequences.
func (r *raceState) reportRoot(t *tcRoot) {
	var mbs []*mbarrier
	if t.mb != nil {
		mbs = append(mbs, t.mb)
	}
	r.root(t.h, 0, mbs, t.point)
}

// inflightRoot reports h, a tcgen05.ld by warp slot slot at clock that no
// completion of the MMA it needs is ordered before, as a root cause: the
// warp goes on out of step with the MMAs (it releases the accumulator,
// takes the next tile early), and what is ordered after the load is its
// consequence.
func (r *raceState) inflightRoot(h Hazard, slot int32, clock uint32) {
	r.rootOnly(h, 1<<62, nil, outOfStep, taintPoint{unit: r.id, slot: slot, clock: clock})
}

// outOfStep are the rules whose observations a warp that runs ahead of
// the pipeline makes happen: the barriers it arrives on complete early
// (lapped waiters, extra arrivals, waits that pass on the wrong phase or
// never complete), and its own later loads of the accumulator.
var outOfStep = []HazardKind{HzMbarLapped, HzMbarUnderflow, HzMbarPhase, HzDeadlock, HzTcgenInFlight}

// wrongWait finds the cause of an access by warp w that o is not complete
// for when w did wait on one of the mbarriers o's commits arrive on, but
// for an earlier phase (a parity that a fresh barrier passes at once, a
// phase behind): that wait's parity is the line to fix, a root cause on
// the mbarrier. It returns the finding, or nil.
func (o *tmemOp) wrongWait(w *Warp, in *Inst, m uint32) *tcRoot {
	r := w.cta.u.race
	for j := min(o.seq, len(o.chain.done)); j < len(o.chain.done); j++ {
		for k, mb := range o.chain.targets[j] {
			if mb == nil || mb.hb == nil {
				continue
			}
			lw, ok := mb.hb.lastWait[w.uid]
			// the phase the commit completes (or, still in flight, the
			// earliest it can)
			phase := int64(mb.phase)
			if k < len(o.chain.done[j]) {
				phase = int64(o.chain.done[j][k].clock) - 1
			}
			if !ok || lw.intended >= phase {
				continue
			}
			return &tcRoot{h: Hazard{Kind: HzMbarPhase, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
				Msg: fmt.Sprintf("the mbarrier wait passed for phase %d (parity %d) of the mbarrier at %#x, but the tcgen05.commit of the %s this %s needs completes phase %d: the wait names the wrong phase parity, so the %s runs before the %s is complete",
					lw.intended, lw.parity, mb.addr, o.what, in.PTX.Opcode, phase, in.PTX.Opcode, o.what),
				Detail:  "try_wait.parity p passes once the latest completed phase has parity p (a fresh barrier: phase -1, parity 1): wait on the parity of the phase the commit completes",
				Cause:   r.pcPos(lw.pc),
				Related: w.cta.u.m.Prog.pos(&w.cta.u.m.Prog.Insts[o.pc])},
				mb: mb, point: taintPoint{unit: r.id, slot: int32(w.uid), clock: lw.clock}}
		}
	}
	return nil
}

// passedAtOnce finds, for an access of warp w that turned out to be early
// relative to an operation committed only later, a wait of w that passed
// at once because it named the phase before a fresh mbarrier's first
// (parity 1 at phase 0): the line to fix when the access was meant to
// wait for that barrier's first phase. The latest such wait in the
// program wins (deterministic whatever the map order).
func (w *Warp) passedAtOnce() (waitRec, *mbarrier, bool) {
	var best waitRec
	var bmb *mbarrier
	for _, mb := range w.cta.mbars {
		if mb == nil || mb.hb == nil {
			continue
		}
		if lw, ok := mb.hb.lastWait[w.uid]; ok && lw.intended == -1 && (bmb == nil || lw.pc > best.pc) {
			best, bmb = lw, mb
		}
	}
	return best, bmb, bmb != nil
}

// earlyWait is the finding for an access (at pc, by warp w) that ran
// before the operation (what, at opPC) it needed was issued, when w's
// wait passed at once (passedAtOnce); nil otherwise.
func (w *Warp) earlyWait(pc int, opcode, what string, opPC int) *tcRoot {
	lw, mb, ok := w.passedAtOnce()
	if !ok {
		return nil
	}
	r := w.cta.u.race
	return &tcRoot{h: Hazard{Kind: HzMbarPhase, Severity: SevError, PC: pc, CTA: w.cta.ID, Warp: w.ID,
		Msg: fmt.Sprintf("the mbarrier wait passed for phase -1 (parity %d) of the mbarrier at %#x, the phase before a fresh barrier's first, so this %s ran before the %s it needs was even issued: the wait names the wrong phase parity",
			lw.parity, mb.addr, opcode, what),
		Detail:  "try_wait.parity p passes once the latest completed phase has parity p (a fresh barrier: phase -1, parity 1): wait on the parity of the phase the commit completes",
		Cause:   r.pcPos(lw.pc),
		Related: r.pcPos(int32(opPC))},
		mb: mb, point: taintPoint{unit: r.id, slot: int32(w.uid), clock: lw.clock}}
}

// issuer is the warp that issued o.
func (o *tmemOp) issuer() *Warp {
	for _, w := range o.cta.u.warps {
		if w.cta == o.cta && w.ID == o.warp {
			return w
		}
	}
	return nil
}

// laneCause finds the instruction that computed the lane field of a TMEM
// address: starting from the address register of in (a tcgen05.ld/st),
// it follows the definitions of the offset added to the allocation's base
// (the source that is not itself loaded from memory) through add, or,
// and, xor, sub, mov and cvt to the instruction that makes the lane
// offset (a shift or multiply of the warp index): the line to fix of a
// lane-quarter error. A register defined several times in the function
// (besides steps of the column in a loop) or a sum of two computed
// offsets ends the search at what was found so far (nil: nothing).
func (w *Warp) laneCause(in *Inst, addr Opnd) *Inst {
	if addr.K != oReg {
		return nil
	}
	prog := w.cta.u.m.Prog
	// defOf is r's one definition, not counting updates of r from itself
	// and immediates (a loop stepping the column)
	defOf := func(r int32) *Inst {
		var d *Inst
		for i := range prog.Insts {
			x := &prog.Insts[i]
			if x.Func != in.Func || !slices.ContainsFunc(x.dst, func(o Opnd) bool { return o.K == oReg && o.R == r }) {
				continue
			}
			self, other := false, false
			for _, o := range x.src {
				self = self || o.K == oReg && o.R == r
				other = other || o.K == oReg && o.R != r
			}
			if self && !other {
				continue
			}
			if d != nil {
				return nil
			}
			d = x
		}
		return d
	}
	isLoad := func(o Opnd) bool {
		d := defOf(o.R)
		return d != nil && d.PTX != nil && strings.HasPrefix(d.PTX.Opcode, "ld")
	}
	r := addr.R
	var cause *Inst
	for step := 0; step < 8; step++ {
		d := defOf(r)
		if d == nil || d.PTX == nil || strings.HasPrefix(d.PTX.Opcode, "ld") {
			return cause
		}
		cause = d
		switch d.PTX.Opcode {
		case "add", "sub", "or", "and", "xor", "mov", "cvt":
		default:
			return cause // the shift or multiply that made the offset
		}
		var next []Opnd
		for _, o := range d.src {
			if o.K == oReg && !isLoad(o) {
				next = append(next, o)
			}
		}
		if len(next) != 1 {
			return cause
		}
		r = next[0].R
	}
	return cause
}
