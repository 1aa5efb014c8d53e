package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
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
			mach.mbarHazard(w, in, 1<<l, HzMbarUninit, "%s on the mbarrier at shared address %#x before mbarrier.init (or after mbarrier.inval)", in.PTX.Opcode, off)
			if mb == nil {
				continue
			}
		}
		switch mi.op {
		case "init":
			count := arg(1)
			if mb.live && (mb.pending != mb.expected || mb.tx != 0) {
				mach.hazard(Hazard{Kind: HzMbarReinit, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg:     fmt.Sprintf("mbarrier.init on the live mbarrier at %#x (phase %d, %d arrivals and tx-count %d pending) without mbarrier.inval first", off, mb.phase, mb.pending, mb.tx),
					Related: mach.Prog.pos(&mach.Prog.Insts[mb.initPC])})
			}
			if count < 1 || count > mbarMaxCount {
				mach.mbarHazard(w, in, 1<<l, HzMbarCount, "mbarrier.init count %d is outside 1..%d", count, mbarMaxCount)
				count = max(1, min(count, mbarMaxCount))
			}
			*mb = mbarrier{cta: c, addr: off, live: true, expected: count, pending: count, initPC: in.PC, lastPC: in.PC}
			// the object's bytes: the ISA leaves them opaque
			putLE(c.Smem[off:off+8], uint64(count))
			if u.race != nil {
				u.race.access(w, in, l, c, off, 8, true)
			}
		case "inval":
			mb.live = false
		case "expect_tx":
			mb.expectTx(w, in, l, arg(1))
		case "complete_tx":
			mb.completeTx(in, arg(1))
		case "arrive", "arrive_drop":
			count := int64(1)
			if mi.expectTx {
				mb.expectTx(w, in, l, arg(1))
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
				u.race.mbarArrive(w, mb)
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

func (mb *mbarrier) expectTx(w *Warp, in *Inst, l int, n int64) {
	mb.tx += n
	if n < 0 || mb.tx > mbarMaxCount || mb.tx < -mbarMaxCount {
		m := mb.cta.u.m
		m.mbarHazard(w, in, 1<<l, HzMbarTx, "tx-count of the mbarrier at %#x is %d after expect_tx %d: it must stay within ±(2^20-1)", mb.addr, mb.tx, n)
	}
}

// arrive counts arrivals and completes the phase when nothing is pending.
func (mb *mbarrier) arrive(w *Warp, in *Inst, l int, count int64, canComplete bool) {
	mb.pending -= count
	if mb.pending < 0 {
		m := mb.cta.u.m
		m.hazard(Hazard{Kind: HzMbarUnderflow, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
			Msg:    fmt.Sprintf("mbarrier at %#x: %d more arrivals than its expected count %d in phase %d", mb.addr, -mb.pending, mb.expected, mb.phase),
			Detail: "an arrival underflow is undefined behavior: the phase completed early and the extra arrival leaks into the next phase"})
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
	if mb.pending < 0 {
		mb.cta.u.m.hazard(Hazard{Kind: HzMbarUnderflow, Severity: SevError, PC: pc, CTA: mb.cta.ID, Warp: -1,
			Msg: fmt.Sprintf("mbarrier at %#x: an asynchronous arrival exceeds its expected count %d in phase %d", mb.addr, mb.expected, mb.phase)})
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
		mb.phase++
		mb.pending = mb.expected
		u := mb.cta.u
		u.progress++
		if u.race != nil {
			u.race.mbarPhaseDone(mb)
		}
		if u.m.trace != nil {
			u.m.trace.event(map[string]any{"event": "mbarrier.phase", "cta": mb.cta.ID, "addr": mb.addr, "phase": mb.phase})
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
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mb, c, off, ok := w.mbarAt(in, l, false)
		if !ok {
			return
		}
		if mb == nil || !mb.live {
			u.m.mbarHazard(w, in, 1<<l, HzMbarUninit, "%s on the mbarrier at shared address %#x before mbarrier.init", in.PTX.Opcode, off)
			if mb == nil {
				mb = &mbarrier{cta: c, addr: off}
				c.mbars[off] = mb
			}
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
	if res != 0 {
		w.tcSynced()
	}
	if u.race != nil {
		for mm := res; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			mb, _, _, _ := w.mbarAt(in, l, false)
			if mb != nil {
				u.race.mbarAcquire(w, mb)
			}
		}
	}
	if len(in.dst) > 0 && in.dst[0].K == oPred {
		w.setPred(&in.dst[0], res, m)
	}
}

func decPendingCount(d *decoder) error {
	return d.set1(ptx.B64, func(a uint64) uint64 { return a & 0xFFFFFFFF })
}
