package sim

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/tcsim/tcsim/isa/ptx"
)

type warpState uint8

const (
	warpReady warpState = iota
	warpBlocked
	warpDone
)

type waitKind uint8

const (
	waitNone waitKind = iota
	waitBar
	waitMbar
	waitWgmma
	waitSpin
	waitTcgen05
)

// simtEntry is one entry of a warp's reconvergence stack.
type simtEntry struct {
	pc, rpc int
	mask    uint32
}

// frame is a function activation (the kernel itself is frame 0).
type frame struct {
	fn        *Function
	r         []uint64
	p         []uint32
	retPC     int
	stackBase int
	frameBase int
	call      *Inst
	returned  uint32
}

// Warp is 32 threads executing together.
type Warp struct {
	cta   *CTA
	ID    int // warp index in the CTA
	uid   int // index in the unit (vector-clock slot)
	valid uint32
	// exited lanes never run again.
	exited uint32

	r      []uint64 // data registers of the current frame: r[reg*32+lane]
	p      []uint32 // predicate registers: one lane mask each
	cc     uint32   // carry flags
	fn     *Function
	stack  []simtEntry
	frames []frame
	local  [32][]byte

	npc     int
	jumped  bool
	stalled bool
	stopReq bool
	state   warpState
	wait    waitInfo
	steps   int64

	// inflight registers of wgmma operations, per register index (counts).
	inflight    []int32
	inflightAny bool
	// tcgen05.ld destinations not yet waited for.
	tcldPending  []int32
	tcldAny      bool
	tcld         []tcldPending
	pendingFault *Fault
	retryPC      int // the instruction that blocked and will run again

	// tcgen05 fence bookkeeping
	tcSinceBefore bool // pending async tcgen05 work not covered by a fence::before_thread_sync, commit or wait
	tcNeedAfter   bool // synchronized since tcgen05 work of others, no fence::after_thread_sync yet
	tcSeenFenced  int
	tcSeenIssued  int      // others' tcgen05 operations seen at the last synchronization
	tcOwn         int      // this warp's tcgen05 operations
	tcNoteAfter   bool     // synchronized after others' completed tcgen05 work, no fence::after_thread_sync yet (a portability note)
	tcAny         bool     // tcgen05 operations since the last synchronization
	tcStPending   bool     // tcgen05.st since the last wait::st or fence::before_thread_sync
	tcldFenced    bool     // the pending tcgen05.ld are ordered by a fence::before_thread_sync
	collectorA    []uint64 // the A matrix a tcgen05.mma .collector::a::fill kept
	atomicAccess  bool     // the shared access being checked is atomic
	inflightBy    []*Inst
	lastAccess    []int64
	lastAccessPC  []int32
	scratch       [3][32]uint64
	clockBase     int64
	// prov: the global provenance of registers ld.global filled, per
	// reg*32+lane (Options.Check, kernels with matrix descriptors)
	prov []provTag
}

type waitInfo struct {
	kind   waitKind
	gen    uint64
	bar    int
	mbar   []mbarWait
	wg     *warpgroup
	n      int
	spinAt uint64
	pc     int
}

type mbarWait struct {
	addr   uint32
	cta    *CTA
	parity uint32
	token  bool
	phase  uint64
}

func newWarp(c *CTA, id int) *Warp {
	m := c.u.m
	w := &Warp{cta: c, ID: id, retryPC: -1}
	n := m.threadsPerCTA - 32*id
	if n >= 32 {
		w.valid = ^uint32(0)
	} else {
		w.valid = uint32(1)<<n - 1
	}
	f := m.Prog.Kernel
	w.enterFrame(f)
	w.stack = append(w.stack, simtEntry{pc: f.Start, rpc: -1, mask: w.valid})
	w.frames = append(w.frames, frame{fn: f, r: w.r, p: w.p, stackBase: 0})
	return w
}

// enterFrame allocates the registers of f and fills its special registers.
func (w *Warp) enterFrame(f *Function) {
	w.fn = f
	w.prov = nil
	w.r = make([]uint64, f.NumRegs*32)
	w.p = make([]uint32, f.NumPreds)
	for _, s := range f.sregs {
		v := w.sregValues(s.name)
		copy(w.r[int(s.reg)*32:int(s.reg)*32+32], v[:])
	}
}

// sregValues computes a per-thread constant special register.
func (w *Warp) sregValues(name string) [32]uint64 {
	var out [32]uint64
	m := w.cta.u.m
	c := w.cta
	bx, by := m.Block[0], m.Block[1]
	for l := 0; l < 32; l++ {
		t := 32*w.ID + l
		tx, ty, tz := t%bx, t/bx%by, t/(bx*by)
		var v uint64
		switch name {
		case "%tid.x":
			v = uint64(tx)
		case "%tid.y":
			v = uint64(ty)
		case "%tid.z":
			v = uint64(tz)
		case "%ntid.x":
			v = uint64(m.Block[0])
		case "%ntid.y":
			v = uint64(m.Block[1])
		case "%ntid.z":
			v = uint64(m.Block[2])
		case "%ctaid.x":
			v = uint64(c.ID[0])
		case "%ctaid.y":
			v = uint64(c.ID[1])
		case "%ctaid.z":
			v = uint64(c.ID[2])
		case "%nctaid.x":
			v = uint64(m.Grid[0])
		case "%nctaid.y":
			v = uint64(m.Grid[1])
		case "%nctaid.z":
			v = uint64(m.Grid[2])
		case "%laneid":
			v = uint64(l)
		case "%warpid":
			v = uint64(w.ID)
		case "%nwarpid":
			v = uint64(m.warpsPerCTA)
		case "%smid":
			v = uint64(c.Linear % 132)
		case "%nsmid":
			v = 132
		case "%gridid":
			v = 1
		case "%clusterid.x":
			v = uint64(c.ID[0] / m.Cluster[0])
		case "%clusterid.y":
			v = uint64(c.ID[1] / m.Cluster[1])
		case "%clusterid.z":
			v = uint64(c.ID[2] / m.Cluster[2])
		case "%nclusterid.x":
			v = uint64(m.Grid[0] / m.Cluster[0])
		case "%nclusterid.y":
			v = uint64(m.Grid[1] / m.Cluster[1])
		case "%nclusterid.z":
			v = uint64(m.Grid[2] / m.Cluster[2])
		case "%cluster_ctaid.x":
			v = uint64(c.ID[0] % m.Cluster[0])
		case "%cluster_ctaid.y":
			v = uint64(c.ID[1] % m.Cluster[1])
		case "%cluster_ctaid.z":
			v = uint64(c.ID[2] % m.Cluster[2])
		case "%cluster_nctaid.x":
			v = uint64(m.Cluster[0])
		case "%cluster_nctaid.y":
			v = uint64(m.Cluster[1])
		case "%cluster_nctaid.z":
			v = uint64(m.Cluster[2])
		case "%cluster_ctarank":
			v = uint64(c.Rank)
		case "%cluster_nctarank":
			v = uint64(m.Cluster[0] * m.Cluster[1] * m.Cluster[2])
		case "%is_explicit_cluster":
			if m.Clustered {
				v = 1
			}
		case "%lanemask_eq":
			v = 1 << l
		case "%lanemask_le":
			v = uint64(uint32(1)<<l | (uint32(1)<<l - 1))
		case "%lanemask_lt":
			v = uint64(uint32(1)<<l - 1)
		case "%lanemask_ge":
			v = uint64(^(uint32(1)<<l - 1))
		case "%lanemask_gt":
			v = uint64(^(uint32(1)<<l | (uint32(1)<<l - 1)))
		case "%dynamic_smem_size":
			v = uint64(m.DynSmem)
		case "%total_smem_size", "%aggr_smem_size":
			v = uint64(len(c.Smem))
		}
		out[l] = v
	}
	return out
}

// activeMask is the mask of the top of the reconvergence stack.
func (w *Warp) activeMask() uint32 {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1].mask
}

// PC is the warp's next instruction, or -1 when it is done.
func (w *Warp) PC() int {
	if len(w.stack) == 0 || w.state == warpDone {
		return -1
	}
	return w.stack[len(w.stack)-1].pc
}

func (w *Warp) currentInst() *Inst {
	pc := w.PC()
	if pc < 0 || pc >= len(w.cta.u.m.Prog.Insts) {
		return nil
	}
	return &w.cta.u.m.Prog.Insts[pc]
}

// ready reports whether the warp can run now.
func (w *Warp) ready() bool {
	switch w.state {
	case warpReady:
		return true
	case warpDone:
		return false
	}
	if w.checkWake() {
		w.state = warpReady
		w.wait.kind = waitNone
		return true
	}
	return false
}

// checkWake re-evaluates a blocked warp's wait condition.
func (w *Warp) checkWake() bool {
	c := w.cta
	switch w.wait.kind {
	case waitBar:
		return false // released by the barrier itself
	case waitMbar:
		for _, mw := range w.wait.mbar {
			mb := mw.cta.mbars[mw.addr]
			if mb == nil || !mb.waitDone(mw) {
				return false
			}
		}
		return true
	case waitWgmma:
		if w.wait.n < 0 {
			return w.wait.wg.implicitReady(w)
		}
		return w.wait.wg.waitReady(w, w.wait.n)
	case waitSpin:
		return c.u.progress != w.wait.spinAt
	case waitTcgen05:
		return true
	}
	return true
}

// block stops the warp at the current instruction until the wait
// condition holds; the instruction then runs again.
func (w *Warp) block(wi waitInfo) {
	w.retryPC = w.PC()
	w.stalled = true
	w.state = warpBlocked
	wi.pc = w.PC()
	w.wait = wi
}

func (w *Warp) waitReason() string {
	switch w.wait.kind {
	case waitBar:
		b := &w.cta.bars[w.wait.bar]
		return fmt.Sprintf("waits at barrier %d (%d of %d threads arrived)", w.wait.bar, b.arrived, b.expected(w.cta))
	case waitMbar:
		var s string
		for i, mw := range w.wait.mbar {
			if i > 0 {
				s += "; "
			}
			mb := mw.cta.mbars[mw.addr]
			if mb == nil {
				s += fmt.Sprintf("waits on mbarrier %#x, which is not initialized", mw.addr)
				continue
			}
			if mw.token {
				s += fmt.Sprintf("waits on mbarrier %#x for the end of phase %d; it is in phase %d (%d arrivals pending, tx-count %d)", mw.addr, mw.phase, mb.phase, mb.pending, mb.tx)
			} else {
				s += fmt.Sprintf("waits on mbarrier %#x for a completed phase of parity %d; it is in phase %d (parity %d; %d arrivals pending, tx-count %d)", mw.addr, mw.parity, mb.phase, mb.phase&1, mb.pending, mb.tx)
			}
			if i > 2 {
				s += " ..."
				break
			}
		}
		return s
	case waitWgmma:
		return fmt.Sprintf("waits in wgmma.wait_group %d: %s", w.wait.n, w.wait.wg.pendingDesc())
	case waitSpin:
		return "spins on an mbarrier test_wait that never succeeds"
	}
	return "is runnable"
}

// runWarp executes up to budget instructions of w.
func (u *unit) runWarp(w *Warp, budget int, stop func(*Warp) bool) error {
	m := u.m
	insts := m.Prog.Insts
	tr := m.trace
	trackWG := m.Prog.hasWgmma
	for n := 0; n < budget; {
		if len(w.stack) == 0 {
			w.finishWarp()
			return nil
		}
		top := &w.stack[len(w.stack)-1]
		if top.mask == 0 {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		if top.pc == top.rpc {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		pc := top.pc
		if pc < w.fn.Start || pc >= w.fn.End {
			// Falling off the end of a function body is an implicit ret.
			execRet(w, nil, top.mask)
			w.jumped = false
			continue
		}
		n++
		if stop != nil && stop(w) {
			w.stopReq = true
			return nil
		}
		in := &insts[pc]
		mask := top.mask
		em := mask
		if in.guard >= 0 {
			g := w.p[in.guard]
			if in.gnot {
				g = ^g
			}
			em &= g
		}
		w.npc = pc + 1
		if em != 0 {
			if (w.inflightAny || w.tcldAny) && !w.checkInflight(in, em) {
				w.stalled = false
				return nil
			}
			in.fn(w, in, em)
			if w.stalled {
				w.stalled = false
				if w.pendingFault != nil {
					return w.pendingFault
				}
				return nil
			}
		}
		w.retryPC = -1
		if trackWG && in.class != clsWgmma {
			w.trackAccess(in)
		}
		if in.approx && em != 0 {
			m.noteApprox(in.PC)
		}
		w.steps++
		u.steps++
		if tr != nil {
			tr.inst(w, in, em)
		}
		if w.jumped {
			w.jumped = false
		} else if len(w.stack) > 0 {
			w.stack[len(w.stack)-1].pc = w.npc
		}
		if w.state != warpReady {
			return nil
		}
		if u.steps&1023 == 0 || m.Opts.MaxSteps > 0 {
			// Whole 1024s are added as the unit goes (runUnit adds the
			// rest); under a step limit every instruction, so that the
			// run stops exactly at it.
			total := m.steps.Add(u.steps - u.counted)
			u.counted = u.steps
			if total > m.maxSteps() {
				return &LimitError{Msg: fmt.Sprintf("stopped at the --max-steps limit of %d warp-instructions; CTA %s warp %d is at %s",
					m.maxSteps(), fmtID(w.cta.ID), w.ID, m.Prog.pos(in))}
			}
			if u.steps&1023 == 0 && !m.Opts.Deadline.IsZero() && time.Now().After(m.Opts.Deadline) {
				return &LimitError{Msg: fmt.Sprintf("stopped at the time limit (--timeout) after %d warp-instructions; CTA %s warp %d is at %s",
					total, fmtID(w.cta.ID), w.ID, m.Prog.pos(in))}
			}
		}
	}
	return nil
}

// LimitError is returned when a run stops at the step limit
// (Options.MaxSteps) or the time limit (Options.Deadline).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

func (m *Machine) maxSteps() int64 {
	if m.Opts.MaxSteps > 0 {
		return m.Opts.MaxSteps
	}
	return 1 << 32
}

// jump moves the top entry to pc.
func (w *Warp) jump(pc int) {
	w.stack[len(w.stack)-1].pc = pc
	w.jumped = true
}

// branch handles a (possibly divergent) branch to target: taken lanes go
// to target, the others fall through, and they reconverge at in.rpc.
func (w *Warp) branch(in *Inst, taken uint32, target int) {
	top := &w.stack[len(w.stack)-1]
	all := top.mask
	not := all &^ taken
	if not == 0 {
		w.jump(target)
		return
	}
	if taken == 0 {
		return // falls through
	}
	r := in.rpc
	fall := w.npc
	w.jumped = true
	if top.rpc == r && r >= 0 {
		// The top entry already waits for r: the not-taken lanes reach r
		// through the entry below (whose mask includes them).
		if fall == r {
			top.mask, top.pc = taken, target
			if target == r {
				w.stack = w.stack[:len(w.stack)-1]
			}
			return
		}
		if target == r {
			top.mask, top.pc = not, fall
			return
		}
	}
	top.pc = r
	if fall != r {
		w.stack = append(w.stack, simtEntry{pc: fall, rpc: r, mask: not})
	}
	if target != r {
		w.stack = append(w.stack, simtEntry{pc: target, rpc: r, mask: taken})
	}
	if r < 0 && top == &w.stack[0] && len(w.stack) == 1 {
		// both paths reach the reconvergence point: nothing pushed
		_ = top
	}
}

// exitLanes retires lanes (exit, or ret from the kernel).
func (w *Warp) exitLanes(lanes uint32) {
	lanes &^= w.exited
	if lanes == 0 {
		return
	}
	w.exited |= lanes
	for i := range w.stack {
		w.stack[i].mask &^= lanes
	}
	for len(w.stack) > 0 && w.stack[len(w.stack)-1].mask == 0 {
		w.stack = w.stack[:len(w.stack)-1]
	}
	w.jumped = true
	c := w.cta
	c.live -= bits.OnesCount32(lanes)
	c.threadsExited(w, lanes)
	if w.exited&w.valid == w.valid || len(w.stack) == 0 {
		w.finishWarp()
	}
}

func (w *Warp) finishWarp() {
	if w.state == warpDone {
		return
	}
	w.state = warpDone
	w.stack = w.stack[:0]
	w.cta.warpExited(w)
}

// reg returns the 32 lane values of a data register.
func (w *Warp) reg(r int32) *[32]uint64 {
	return (*[32]uint64)(w.r[int(r)*32 : int(r)*32+32])
}

// src returns the 32 lane values of a source operand.
func (w *Warp) src(o *Opnd, k int) *[32]uint64 {
	switch o.K {
	case oReg:
		return (*[32]uint64)(w.r[int(o.R)*32 : int(o.R)*32+32])
	case oImm:
		return o.lanes
	case oPred:
		s := &w.scratch[k]
		p := w.p[o.R]
		if o.Not {
			p = ^p
		}
		for l := 0; l < 32; l++ {
			s[l] = uint64(p >> l & 1)
		}
		return s
	case oFrame:
		s := &w.scratch[k]
		base := uint64(w.frames[len(w.frames)-1].frameBase) + o.Imm
		for l := 0; l < 32; l++ {
			s[l] = base
		}
		return s
	case oSreg:
		return w.dynSreg(o, k)
	case oShared:
		s := &w.scratch[k]
		v := o.Imm + w.cta.sharedBase
		for l := 0; l < 32; l++ {
			s[l] = v
		}
		return s
	}
	return &w.scratch[k]
}

func (w *Warp) dynSreg(o *Opnd, k int) *[32]uint64 {
	s := &w.scratch[k]
	t := uint64(w.steps*4 + w.clockBase)
	var v uint64
	switch o.Name {
	case "%clock":
		v = t & 0xFFFFFFFF
	case "%clock_hi":
		v = t >> 32
	case "%clock64":
		v = t
	case "%globaltimer":
		v = t * 1
	case "%globaltimer_lo":
		v = t & 0xFFFFFFFF
	case "%globaltimer_hi":
		v = t >> 32
	}
	for l := 0; l < 32; l++ {
		s[l] = v
	}
	return s
}

// predVal returns a predicate operand as a lane mask.
func (w *Warp) predVal(o *Opnd) uint32 {
	switch o.K {
	case oPred:
		p := w.p[o.R]
		if o.Not {
			p = ^p
		}
		return p
	case oImm:
		if o.Imm != 0 {
			return ^uint32(0)
		}
		return 0
	case oReg:
		var p uint32
		v := w.reg(o.R)
		for l := 0; l < 32; l++ {
			if v[l] != 0 {
				p |= 1 << l
			}
		}
		return p
	}
	return 0
}

// setPred writes lanes m of a predicate destination.
func (w *Warp) setPred(o *Opnd, v, m uint32) {
	if o.K != oPred {
		return
	}
	w.p[o.R] = w.p[o.R]&^m | v&m
}

// lanesOf iterates the set bits of m, calling f for each lane.
func forLanes(m uint32, f func(l int)) {
	for ; m != 0; m &= m - 1 {
		f(bits.TrailingZeros32(m))
	}
}

// fault stops the run with an error at the current instruction.
func (w *Warp) fault(in *Inst, lane int, format string, args ...any) {
	f := &Fault{Pos: w.cta.u.m.Prog.pos(in), Inst: in.PTX.String(), CTA: w.cta.ID, Warp: w.ID, Lane: lane, Msg: fmt.Sprintf(format, args...)}
	w.pendingFault = f
	w.stalled = true
	w.state = warpDone
}

// regName names register r of the current frame.
func (w *Warp) regName(r int32) string { return w.fn.RegNames[r] }

var _ = ptx.B32
