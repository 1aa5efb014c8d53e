package sim

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/trace"
)

// mbarrier is the state of one mbarrier object in shared memory (PTX ISA
// 9.7.13.15). The simulator keeps it beside the 8 bytes of shared memory
// the object occupies.
type mbarrier struct {
	cta      *CTA
	addr     uint32
	live     bool
	expected int64 // arrivals per phase
	pending  int64 // arrivals still expected in the current phase
	tx       int64 // tx-count
	phase    uint64
	initPC   int
	lastPC   int // last instruction that changed it
	// per-phase accounting, for naming the cause of a phase that never
	// completes or completes early: arrivals so far, and the tx bytes
	// armed by expect_tx and sent by copies, per phase (recent phases)
	arrived int64
	txAcct  map[uint64]*txAccount
	arms    map[int]armRec // per thread: its last expect_tx
	hb      *mbarHB        // happens-before state (Options.Check)
	// tainted: a tx mismatch was reported; its consequences (phases that
	// complete early again, reads of the late bytes) are not reported
	// again
	tainted bool
	// tcCommitted: a tcgen05.commit arrived in the current phase; tcLast:
	// in the phase that completed last (the tcgen05 fence rules)
	tcCommitted, tcLast bool
	// swz: the swizzled TMA writes of the open phases (tma_swizzle.go)
	swz []swzWrite
}

// txAccount is one phase's tx bytes: armed by expect_tx and sent by the
// copies issued for the phase.
type txAccount struct {
	armed, sent int64
	armPC       int
	copyPC      int
	reported    bool
}

// armRec is a thread's last expect_tx on a barrier.
type armRec struct {
	pc    int
	phase uint64
}

func (mb *mbarrier) account(phase uint64) *txAccount {
	if mb.txAcct == nil {
		mb.txAcct = map[uint64]*txAccount{}
	}
	a := mb.txAcct[phase]
	if a == nil {
		a = &txAccount{armPC: -1, copyPC: -1}
		mb.txAcct[phase] = a
		delete(mb.txAcct, phase-8)
	}
	return a
}

// armedPhase is the phase a copy issued by thread tid completes on: that
// of the thread's last expect_tx on the barrier, or the phase in progress.
func (mb *mbarrier) armedPhase(tid int, own bool) uint64 {
	if a, ok := mb.arms[tid]; ok && own && a.phase+1 >= mb.phase {
		return a.phase
	}
	return mb.phase
}

// copyIssued accounts the bytes of a copy issued by thread tid for its
// armed phase, and reports a copy issued for a phase that already
// completed: the expect_tx armed fewer bytes than the copies deliver.
func (mb *mbarrier) copyIssued(w *Warp, in *Inst, tid int, bytes int64, own bool) uint64 {
	ph := mb.armedPhase(tid, own)
	a := mb.account(ph)
	a.sent += bytes
	a.copyPC = in.PC
	if ph < mb.phase {
		mb.txEarly(in.PC, ph, w)
	}
	return ph
}

// copyLanded reports a copy that lands after the phase it was issued for
// completed.
func (mb *mbarrier) copyLanded(pc int, ph uint64) {
	if ph < mb.phase {
		mb.txEarly(pc, ph, nil)
	}
}

func (mb *mbarrier) txEarly(pc int, ph uint64, w *Warp) {
	a := mb.account(ph)
	if a.reported || a.armPC < 0 || mb.tainted {
		return
	}
	a.reported = true
	mb.tainted = true
	m := mb.cta.u.m
	h := Hazard{Kind: HzMbarTxMismatch, PC: pc, CTA: mb.cta.ID, Warp: -1,
		Msg:    fmt.Sprintf("expect_tx armed phase %d of the mbarrier at %#x with %d bytes, but the copies issued for that phase deliver %d bytes: the phase completes before every copy has landed", ph, mb.addr, a.armed, a.sent),
		Detail: "the consumers are released when the armed bytes have arrived and read the rest of the tile before it lands; the extra bytes complete on the next phase",
		Cause:  m.Prog.pos(&m.Prog.Insts[a.armPC])}
	if w != nil {
		h.CTA, h.Warp = w.cta.ID, w.ID
	}
	m.rootHazard(h, mb, int64(ph))
}

const mbarMaxCount = 1<<20 - 1

// waitDone says whether a wait condition holds.
func (mb *mbarrier) waitDone(mw mbarWait) bool {
	if mw.token {
		return mb.phase > mw.phase
	}
	return uint32(mb.phase&1) != mw.parity&1
}

type mbarInfo struct {
	op       string
	expectTx bool
	parity   bool
	noComp   bool
}

// decMbar decodes the mbarrier instructions. Operand layouts:
//
//	init [a], count          inval [a]
//	arrive{.expect_tx} st, [a]{, count|tx}
//	expect_tx/complete_tx [a], tx
//	test_wait/try_wait p, [a], state|parity{, hint}
func decMbar(op string) decodeFn {
	return func(d *decoder) error {
		x := d.x
		mi := &mbarInfo{op: op, expectTx: x.Has("expect_tx"), parity: x.Has("parity"), noComp: x.Has("noComplete")}
		hasDst := op == "arrive" || op == "arrive_drop" || op == "test_wait" || op == "try_wait"
		ops, err := d.dstAddr(x.Operands, hasDst)
		if err != nil {
			return err
		}
		for _, e := range ops[1:] {
			o, err := d.val(e, ptx.B64)
			if err != nil {
				return err
			}
			d.in.src = append(d.in.src, o)
		}
		d.in.ext = mi
		d.in.fn = execMbar
		return nil
	}
}

// mbarAt finds (or, for init, creates) the mbarrier at a lane's address.
func (w *Warp) mbarAt(in *Inst, l int, create bool) (*mbarrier, *CTA, uint32, bool) {
	a := w.src(&in.src[0], 0)[l] + uint64(in.src[0].Off)
	c, off, ok := w.sharedAddr(in, in.space, a, 8, l)
	if !ok {
		return nil, nil, 0, false
	}
	if off%8 != 0 {
		w.fault(in, l, "mbarrier object at shared address %#x is not 8-byte aligned", off)
		return nil, nil, 0, false
	}
	mb := c.mbars[off]
	if mb == nil && create {
		mb = &mbarrier{cta: c, addr: off}
		c.mbars[off] = mb
	}
	return mb, c, off, true
}

func (m *Machine) mbarHazard(w *Warp, in *Inst, lanes uint32, kind HazardKind, format string, args ...any) {
	m.hazard(Hazard{Kind: kind, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: lanes, Msg: fmt.Sprintf(format, args...)})
}

func execMbar(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*mbarInfo)
	u := w.cta.u
	mach := u.m
	switch mi.op {
	case "try_wait", "test_wait":
		execMbarWait(w, in, m, mi)
		return
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mb, c, off, ok := w.mbarAt(in, l, mi.op == "init")
		if !ok {
			return
		}
		arg := func(i int) int64 {
			if i < len(in.src) {
				return int64(int32(uint32(w.src(&in.src[i], 1)[l])))
			}
			return 1
		}
		if mi.op != "init" && (mb == nil || !mb.live) {
			mach.mbarUninit(c, off, mb, w.cta.u.race.warpPoint(w, in.PC), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: fmt.Sprintf("%s on the mbarrier at shared address %#x before mbarrier.init (or after mbarrier.inval)", in.PTX.Opcode, off)}, false)
			if mb == nil {
				continue
			}
		}
		if mi.op != "init" && mb.live && u.race != nil {
			u.race.mbarUseCheck(w, in, mb)
		}
		switch mi.op {
		case "init":
			count := arg(1)
			var reinit *Hazard
			if mb.live && (mb.pending != mb.expected || mb.tx != 0) {
				reinit = &Hazard{Kind: HzMbarReinit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg:     fmt.Sprintf("mbarrier.init on the live mbarrier at %#x (phase %d, %d arrivals and tx-count %d pending) without mbarrier.inval first", off, mb.phase, mb.pending, mb.tx),
					Related: mach.Prog.pos(&mach.Prog.Insts[mb.initPC])}
			}
			if count < 1 || count > mbarMaxCount {
				mach.mbarHazard(w, in, 1<<l, HzMbarCount, "mbarrier.init count %d is outside 1..%d", count, mbarMaxCount)
				count = max(1, min(count, mbarMaxCount))
			}
			mb.checkSwizzled(0, true)
			*mb = mbarrier{cta: c, addr: off, live: true, expected: count, pending: count, initPC: in.PC, lastPC: in.PC}
			// the object's bytes: the ISA leaves them opaque
			putLE(c.Smem[off:off+8], uint64(count))
			if u.race != nil {
				u.race.access(w, in, l, c, off, 8, true)
				u.race.mbarInit(w, in, l, mb)
			}
			if reinit != nil {
				// a root cause: the lost arrivals and bytes hang the waiters
				mach.rootHazard(*reinit, mb, 0)
			}
		case "inval":
			mb.live = false
		case "expect_tx":
			mb.expectTx(w, in, l, arg(1))
			mb.arm(w, in, l, arg(1))
		case "complete_tx":
			mb.completeTx(in, arg(1))
		case "arrive", "arrive_drop":
			count := int64(1)
			if mi.expectTx {
				mb.expectTx(w, in, l, arg(1))
				mb.arm(w, in, l, arg(1))
			} else if len(in.src) > 1 {
				count = arg(1)
			}
			if mi.op == "arrive_drop" {
				mb.expected -= count
			}
			if mm == m {
				w.tcArrive(in)
			}
			token := mb.phase<<32 | uint64(uint32(mb.pending-count))
			if u.race != nil {
				u.race.mbarArrive(w, mb, in.PC)
			}
			mb.arrive(w, in, l, count, !mi.noComp)
			if in.dst[0].K == oReg {
				w.reg(in.dst[0].R)[l] = token
			}
		}
		mb.lastPC = in.PC
	}
	if mi.op == "init" || mi.op == "arrive" {
		u.progress++
	}
}

// arm notes an expect_tx of n bytes by lane l of w for the phase in
// progress.
func (mb *mbarrier) arm(w *Warp, in *Inst, l int, n int64) {
	if mb.arms == nil {
		mb.arms = map[int]armRec{}
	}
	mb.arms[32*w.ID+l] = armRec{pc: in.PC, phase: mb.phase}
	a := mb.account(mb.phase)
	a.armed += n
	if a.armPC < 0 {
		a.armPC = in.PC
	}
}

func (mb *mbarrier) expectTx(w *Warp, in *Inst, l int, n int64) {
	mb.tx += n
	if n < 0 || mb.tx > mbarMaxCount || mb.tx < -mbarMaxCount {
		m := mb.cta.u.m
		m.mbarRoot(mb, w, in, 1<<l, HzMbarTx, "tx-count of the mbarrier at %#x is %d after expect_tx %d: it must stay within ±(2^20-1)", mb.addr, mb.tx, n)
	}
}

// arrive counts arrivals and completes the phase when nothing is pending.
func (mb *mbarrier) arrive(w *Warp, in *Inst, l int, count int64, canComplete bool) {
	mb.pending -= count
	mb.arrived += count
	if mb.pending < 0 {
		m := mb.cta.u.m
		m.hazard(Hazard{Kind: HzMbarUnderflow, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
			Msg:    fmt.Sprintf("mbarrier at %#x: mbarrier.init set %d arrivals per phase, but phase %d gets at least %d", mb.addr, mb.expected, mb.phase, mb.arrived),
			Detail: "an arrival underflow is undefined behavior: the phase completed early and the extra arrival leaks into the next phase",
			Cause:  m.Prog.pos(&m.Prog.Insts[mb.initPC])})
		mb.pending = 0
	}
	if canComplete {
		mb.tryComplete()
	}
}

// asyncArrive is an arrival by the async proxy (tcgen05.commit,
// cp.async.mbarrier.arrive).
func (mb *mbarrier) asyncArrive(pc int, count int64) {
	mb.pending -= count
	mb.arrived += count
	if mb.pending < 0 {
		m := mb.cta.u.m
		m.hazard(Hazard{Kind: HzMbarUnderflow, Severity: SevError, PC: pc, CTA: mb.cta.ID, Warp: -1,
			Msg:   fmt.Sprintf("mbarrier at %#x: an asynchronous arrival exceeds the %d arrivals per phase that mbarrier.init set (phase %d)", mb.addr, mb.expected, mb.phase),
			Cause: m.Prog.pos(&m.Prog.Insts[mb.initPC])})
		mb.pending = 0
	}
	mb.tryComplete()
}

// completeTx decrements the tx-count (complete_tx by a copy or a thread).
func (mb *mbarrier) completeTx(in *Inst, n int64) {
	mb.tx -= n
	if mb.tx < -mbarMaxCount {
		mb.cta.u.m.hazard(Hazard{Kind: HzMbarTx, Severity: SevError, PC: in.PC, CTA: mb.cta.ID, Warp: -1,
			Msg: fmt.Sprintf("tx-count of the mbarrier at %#x is %d: more bytes completed than expected beyond the 2^20-1 range", mb.addr, mb.tx)})
	}
	mb.tryComplete()
}

func (mb *mbarrier) tryComplete() {
	if mb.pending == 0 && mb.tx == 0 && mb.live {
		if a := mb.txAcct[mb.phase]; a != nil && a.sent > a.armed {
			// copies issued for this phase have not landed: they will
			// complete on the next one (reported now, whatever the schedule)
			mb.txEarly(a.copyPC, mb.phase, nil)
		}
		mb.checkSwizzled(mb.phase, false)
		mb.phase++
		mb.pending = mb.expected
		mb.arrived = 0
		mb.tcLast, mb.tcCommitted = mb.tcCommitted, false
		u := mb.cta.u
		u.progress++
		if u.race != nil {
			u.race.mbarPhaseDone(mb)
		}
		if u.m.trace != nil {
			u.m.trace.event(&trace.Event{Kind: trace.MbarrierPhase, CTA: mb.cta.ID, Addr: mb.addr, Phase: mb.phase})
		}
	}
}

// execMbarWait is test_wait and try_wait. try_wait suspends the warp until
// the phase completes (the ISA lets it return false after a time limit;
// the simulator's limit is "never", which a correct retry loop cannot
// tell apart). test_wait returns the current state; a warp whose test_wait
// fails everywhere yields until something changes.
func execMbarWait(w *Warp, in *Inst, m uint32, mi *mbarInfo) {
	u := w.cta.u
	var waits []mbarWait
	var res uint32
	commitWait := false
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mb, c, off, ok := w.mbarAt(in, l, false)
		if !ok {
			return
		}
		if mb == nil || !mb.live {
			if mb == nil {
				mb = &mbarrier{cta: c, addr: off}
				c.mbars[off] = mb
			}
			u.m.mbarUninit(c, off, mb, w.cta.u.race.warpPoint(w, in.PC), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: fmt.Sprintf("%s on the mbarrier at shared address %#x before mbarrier.init", in.PTX.Opcode, off)}, true)
		}
		if mb.live && u.race != nil {
			u.race.mbarUseCheck(w, in, mb)
		}
		v := w.src(&in.src[1], 1)[l]
		mw := mbarWait{addr: off, cta: c}
		if mi.parity {
			mw.parity = uint32(v) & 1
		} else {
			mw.token, mw.phase = true, v>>32
		}
		if mb.live && mb.waitDone(mw) {
			res |= 1 << l
			commitWait = commitWait || mb.tcLast
		} else {
			dup := false
			for _, x := range waits {
				dup = dup || x == mw
			}
			if !dup {
				waits = append(waits, mw)
			}
		}
	}
	if res != m && mi.op == "try_wait" {
		w.block(waitInfo{kind: waitMbar, mbar: waits})
		return
	}
	if res == 0 && mi.op == "test_wait" {
		// yield: nothing will change until another warp or an async
		// operation acts
		w.setPred(&in.dst[0], 0, m)
		w.npc = in.PC + 1
		w.state = warpBlocked
		w.wait = waitInfo{kind: waitSpin, spinAt: u.progress, pc: in.PC}
		return
	}
	if u.race != nil {
		var seen []*mbarrier
		for mm := res; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			mb, _, _, _ := w.mbarAt(in, l, false)
			if mb == nil || slices.Contains(seen, mb) {
				continue
			}
			seen = append(seen, mb)
			v := w.src(&in.src[1], 1)[l]
			if mi.parity {
				u.race.mbarAcquire(w, in, mb, int(v&1), false, 0)
			} else {
				u.race.mbarAcquire(w, in, mb, 0, true, v>>32)
			}
		}
	}
	if res != 0 {
		// after the acquires: the fence rules ask what the wait ordered
		// the warp after
		w.tcSynced(commitWait)
	}
	if len(in.dst) > 0 && in.dst[0].K == oPred {
		w.setPred(&in.dst[0], res, m)
	}
}

func decPendingCount(d *decoder) error {
	return d.set1(ptx.B64, func(a uint64) uint64 { return a & 0xFFFFFFFF })
}

// mbarStuck names the cause of a deadlock in which warp w waits on an
// mbarrier: the expect_tx whose bytes never arrive, the mbarrier.init
// whose count the arrivals never reach, a lapped waiter, or the wait's
// parity.
func (u *unit) mbarStuck(w *Warp, h *Hazard) {
	if len(w.wait.mbar) == 0 {
		return
	}
	mw := w.wait.mbar[0]
	mb := mw.cta.mbars[mw.addr]
	if mb == nil || !mb.live {
		return
	}
	m := u.m
	pos := func(pc int) ptx.Position {
		if pc < 0 || pc >= len(m.Prog.Insts) {
			return ptx.Position{}
		}
		return m.Prog.pos(&m.Prog.Insts[pc])
	}
	wantPhase := mb.phase // a parity wait of the current phase's parity waits for it
	if mw.token {
		wantPhase = mw.phase
	}
	switch {
	case mb.tx > 0:
		a := mb.account(mb.phase)
		h.Kind = HzMbarTxMismatch
		h.Msg = fmt.Sprintf("phase %d of the mbarrier at %#x never completes: expect_tx armed %d bytes, but the copies issued for it deliver %d (%d bytes never arrive)", mb.phase, mb.addr, a.armed, a.sent, mb.tx)
		h.Cause = pos(a.armPC)
		h.Related = pos(a.copyPC)
		h.Detail = "announce exactly the bytes the copies deliver (box bytes × copies); the waiters below hang\n" + h.Detail
	case mb.pending > 0 && mb.arrived > 0:
		h.Kind = HzMbarArrivals
		h.Msg = fmt.Sprintf("phase %d of the mbarrier at %#x never completes: mbarrier.init set %d arrivals per phase, and only %d arrived", mb.phase, mb.addr, mb.expected, mb.arrived)
		h.Cause = pos(mb.initPC)
		h.Related = pos(mb.lastPC)
		h.Detail = "make the init count equal the number of arriving threads per phase; the waiters below hang\n" + h.Detail
	default:
		intended := int64(-2)
		if r := u.race; r != nil && !mw.token {
			hb := r.mbarState(mb)
			known := int64(get(r.vc[w.uid], hb.slot))
			k := known - 1
			if uint32(k&1) != mw.parity&1 {
				k++
			}
			intended = k
		}
		if intended >= 0 && uint64(intended) < mb.phase {
			h.Kind = HzMbarLapped
			h.Msg = fmt.Sprintf("phase lapping: warp %d waits for phase %d of the mbarrier at %#x (parity %d), but the barrier has completed phases %d-%d since: the parity wait now waits for phase %d, which nothing will complete",
				w.ID, intended, mb.addr, mw.parity, intended, int64(mb.phase)-1, wantPhase)
			h.Detail = "nothing bounds the producer relative to this waiter: the waiter must release each phase before the next can complete\n" + h.Detail
		} else {
			done := "no phase has completed"
			switch mb.phase {
			case 0:
			case 1:
				done = "phase 0 completed"
			default:
				done = fmt.Sprintf("phases 0-%d completed", mb.phase-1)
			}
			h.Msg = fmt.Sprintf("mbarrier wait for phase %d (parity %d) of the mbarrier at %#x, which can never complete: %s and no thread or copy is left to arrive", wantPhase, mw.parity, mb.addr, done)
		}
		h.PC = w.wait.pc
		if h.PC <= 0 {
			if in := w.currentInst(); in != nil {
				h.PC = in.PC
			}
		}
	}
}
