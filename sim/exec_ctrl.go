package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

type brxInfo struct{ targets []int }

type callInfo struct {
	name   string
	callee *Function
	rets   []Opnd
	args   []Opnd
}

func decBra(d *decoder) error {
	x := d.x
	id, ok := x.Operands[0].(*ptx.Ident)
	if !ok {
		return fmt.Errorf("bra: the target must be a label")
	}
	d.c.fixes = append(d.c.fixes, fix{pc: d.in.PC, label: id.Name, sc: d.sc, pos: id.Pos})
	d.in.class = clsBranch
	d.in.fn = func(w *Warp, in *Inst, m uint32) { w.branch(in, m, in.target) }
	return nil
}

func decExit(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		w.exitLanes(m)
		w.popDeadFrames()
	}
	return nil
}

func decRet(d *decoder) error {
	if d.c.f.Entry {
		return decExit(d)
	}
	d.in.fn = execRet
	return nil
}

func decCall(d *decoder) error {
	x := d.x
	ops := x.Operands
	ci := &callInfo{}
	i := 0
	if l, ok := ops[0].(*ptx.List); ok {
		for _, e := range l.Elems {
			o, err := d.callOperand(e)
			if err != nil {
				return err
			}
			ci.rets = append(ci.rets, o)
		}
		i++
	}
	if i >= len(ops) {
		return fmt.Errorf("call: no function")
	}
	id, ok := ops[i].(*ptx.Ident)
	if !ok {
		return refIndirectCall.errorf("call through a register (an indirect call)")
	}
	if _, isReg := d.sc.lookupReg(id.Name); isReg {
		return refIndirectCall.errorf("an indirect call through %s", id.Name)
	}
	ci.name = id.Name
	i++
	if i < len(ops) {
		if l, ok := ops[i].(*ptx.List); ok {
			for _, e := range l.Elems {
				o, err := d.callOperand(e)
				if err != nil {
					return err
				}
				ci.args = append(ci.args, o)
			}
		}
	}
	d.in.ext = ci
	d.in.fn = execCall
	return nil
}

// callOperand is a call argument: a .param variable (frame-relative), a
// register or an immediate.
func (d *decoder) callOperand(e ptx.Expr) (Opnd, error) {
	if id, ok := e.(*ptx.Ident); ok {
		if s, ok := d.sc.lookupSym(id.Name); ok && s.Space == ptx.SpaceLocal {
			return Opnd{K: oFrame, Imm: uint64(s.Off), Name: id.Name}, nil
		}
	}
	return d.val(e, ptx.B64)
}

func execCall(w *Warp, in *Inst, m uint32) {
	ci := in.ext.(*callInfo)
	f := ci.callee
	if f == nil {
		w.fault(in, firstLane(m), "call to %s, which has no body", ci.name)
		return
	}
	if len(w.frames) > 256 {
		w.fault(in, firstLane(m), "call depth exceeds 256 (unbounded recursion?)")
		return
	}
	if len(ci.args) != len(f.Params) {
		w.fault(in, firstLane(m), "call passes %d arguments to %s, which takes %d", len(ci.args), f.Name, len(f.Params))
		return
	}
	cur := &w.frames[len(w.frames)-1]
	base := cur.frameBase + alignUp(cur.fn.FrameSize, 16)
	callerR, callerP := w.r, w.p
	callerFn := w.fn
	// New frame: copy the arguments.
	w.enterFrame(f)
	for k, p := range f.Params {
		a := &ci.args[k]
		forLanes(m, func(l int) {
			switch {
			case p.Space == ptx.SpaceReg:
				var v uint64
				switch a.K {
				case oReg:
					v = callerR[int(a.R)*32+l]
				case oImm:
					v = a.Imm
				case oShared:
					v = a.Imm + w.cta.sharedBase
				case oFrame:
					src := w.mem(in, ptx.SpaceLocal, uint64(cur.frameBase)+a.Imm, p.Size, l, false)
					if src != nil {
						v = le(src)
					}
				}
				w.r[int(p.Off)*32+l] = v
			default:
				dst := w.mem(in, ptx.SpaceLocal, uint64(base)+uint64(p.Off), p.Size, l, true)
				if dst == nil {
					return
				}
				switch a.K {
				case oFrame:
					src := w.mem(in, ptx.SpaceLocal, uint64(cur.frameBase)+a.Imm, p.Size, l, false)
					if src != nil {
						copy(dst, src)
					}
				case oReg:
					putLE(dst, callerR[int(a.R)*32+l])
				case oImm:
					putLE(dst, a.Imm)
				case oShared:
					putLE(dst, a.Imm+w.cta.sharedBase)
				}
			}
		})
	}
	_ = callerP
	_ = callerFn
	// The caller resumes after the call; the callee runs with lanes m.
	top := &w.stack[len(w.stack)-1]
	top.pc = in.PC + 1
	w.frames[len(w.frames)-1].r, w.frames[len(w.frames)-1].p = callerR, callerP
	w.frames = append(w.frames, frame{fn: f, r: w.r, p: w.p, retPC: in.PC + 1, stackBase: len(w.stack), frameBase: base, call: in})
	w.stack = append(w.stack, simtEntry{pc: f.Start, rpc: -1, mask: m})
	w.jumped = true
}

func execRet(w *Warp, in *Inst, m uint32) {
	if len(w.frames) <= 1 {
		w.exitLanes(m)
		return
	}
	fr := &w.frames[len(w.frames)-1]
	fr.returned |= m
	for i := fr.stackBase; i < len(w.stack); i++ {
		w.stack[i].mask &^= m
	}
	for len(w.stack) > fr.stackBase && w.stack[len(w.stack)-1].mask == 0 {
		w.stack = w.stack[:len(w.stack)-1]
	}
	w.jumped = true
	if len(w.stack) == fr.stackBase {
		w.returnFrame()
	}
}

// returnFrame pops a finished frame and copies its return values.
func (w *Warp) returnFrame() {
	fr := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	caller := &w.frames[len(w.frames)-1]
	ci := fr.call.ext.(*callInfo)
	lanes := fr.returned &^ w.exited
	for k, rs := range fr.fn.Returns {
		if k >= len(ci.rets) {
			break
		}
		dst := ci.rets[k]
		forLanes(lanes, func(l int) {
			var v []byte
			var rv uint64
			if rs.Space == ptx.SpaceReg {
				rv = fr.r[int(rs.Off)*32+l]
			} else {
				v = w.mem(fr.call, ptx.SpaceLocal, uint64(fr.frameBase)+uint64(rs.Off), rs.Size, l, false)
				if v == nil {
					return
				}
				rv = le(v)
			}
			switch dst.K {
			case oFrame:
				b := w.mem(fr.call, ptx.SpaceLocal, uint64(caller.frameBase)+dst.Imm, rs.Size, l, true)
				if b != nil {
					if v != nil {
						copy(b, v)
					} else {
						putLE(b, rv)
					}
				}
			case oReg:
				caller.r[int(dst.R)*32+l] = rv
			}
		})
	}
	w.fn, w.r, w.p = caller.fn, caller.r, caller.p
}

// popDeadFrames unwinds frames whose lanes all exited.
func (w *Warp) popDeadFrames() {
	for len(w.frames) > 1 && len(w.stack) <= w.frames[len(w.frames)-1].stackBase {
		w.returnFrame()
	}
}

// barriers -------------------------------------------------------------------

type ctaBarrier struct {
	gen     uint64
	arrived int
	count   int // expected threads; 0 means every live thread
	waiters []barWaiter
	popc    uint32
	andv    bool
	orv     bool
}

type barWaiter struct {
	w    *Warp
	in   *Inst
	mask uint32
}

func (b *ctaBarrier) expected(c *CTA) int {
	if b.count > 0 {
		return b.count
	}
	return c.live
}

type barInfo struct {
	arrive bool
	red    string // "popc", "and", "or"
	hasCnt bool
	align  bool
}

func decBar(d *decoder) error {
	x := d.x
	bi := &barInfo{arrive: x.Has("arrive"), align: x.Opcode == "bar" || x.Has("aligned")}
	ops := x.Operands
	if x.Has("red") {
		switch {
		case x.Has("popc"):
			bi.red = "popc"
		case x.Has("and"):
			bi.red = "and"
		case x.Has("or"):
			bi.red = "or"
		}
		dst, err := d.dstReg(ops[0])
		if err != nil {
			return err
		}
		d.in.dst = []Opnd{dst}
		ops = ops[1:]
	}
	for i, e := range ops {
		t := ptx.U32
		if bi.red != "" && i == len(ops)-1 {
			t = ptx.Pred
		}
		o, err := d.val(e, t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	bi.hasCnt = len(d.in.src) >= 2 && (bi.red == "" || len(d.in.src) == 3)
	d.in.ext = bi
	d.in.fn = execBar
	return nil
}

func execBar(w *Warp, in *Inst, m uint32) {
	bi := in.ext.(*barInfo)
	c := w.cta
	id := int(w.src(&in.src[0], 0)[firstLane(m)])
	if id < 0 || id > 15 {
		w.fault(in, firstLane(m), "barrier id %d is outside 0..15", id)
		return
	}
	b := &c.bars[id]
	count := 0
	if bi.hasCnt {
		count = int(w.src(&in.src[1], 1)[firstLane(m)])
		if count%32 != 0 || count <= 0 {
			w.fault(in, firstLane(m), "barrier thread count %d must be a positive multiple of 32", count)
			return
		}
	}
	if b.arrived == 0 {
		b.count = count
		b.popc, b.andv, b.orv = 0, true, false
	} else if b.count != count {
		w.cta.u.m.hazard(Hazard{Kind: HzBarrierCount, Severity: SevError, Pos: w.cta.u.m.Prog.pos(in), PC: in.PC,
			CTA: c.ID, Warp: w.ID, Lanes: m,
			Msg: fmt.Sprintf("barrier %d: this arrival expects %d threads, an earlier one in the same phase expected %d", id, count, b.count)})
	}
	n := bits.OnesCount32(m)
	if bi.align {
		n = bits.OnesCount32(w.valid &^ w.exited)
	}
	b.arrived += n
	if bi.red != "" {
		p := w.predVal(&in.src[len(in.src)-1]) & m
		b.popc += uint32(bits.OnesCount32(p))
		b.andv = b.andv && p == m
		b.orv = b.orv || p != 0
	}
	if u := c.u; u.race != nil {
		u.race.barArrive(w, id)
	}
	if w.retryPC != in.PC {
		w.tcArrive(in)
	}
	if !bi.arrive {
		b.waiters = append(b.waiters, barWaiter{w: w, in: in, mask: m})
	}
	if b.arrived >= b.expected(c) {
		c.releaseBarrier(id)
		return
	}
	if !bi.arrive {
		w.block(waitInfo{kind: waitBar, bar: id, gen: b.gen})
		w.stalled = true
	}
}

// releaseBarrier completes barrier id: every waiter continues after it.
func (c *CTA) releaseBarrier(id int) {
	b := &c.bars[id]
	if c.u.race != nil {
		c.u.race.barRelease(c, id, b.waiters)
	}
	for _, bw := range b.waiters {
		if bi := bw.in.ext.(*barInfo); bi.red != "" && len(bw.in.dst) > 0 {
			o := &bw.in.dst[0]
			switch bi.red {
			case "popc":
				forLanes(bw.mask, func(l int) { bw.w.reg(o.R)[l] = uint64(b.popc) })
			case "and":
				bw.w.setPred(o, boolAll(b.andv), bw.mask)
			case "or":
				bw.w.setPred(o, boolAll(b.orv), bw.mask)
			}
		}
		bw.w.tcSynced(false)
		if bw.w.state == warpBlocked && bw.w.wait.kind == waitBar && bw.w.wait.bar == id {
			// the waiter resumes after the barrier
			bw.w.stack[len(bw.w.stack)-1].pc = bw.in.PC + 1
			bw.w.state = warpReady
			bw.w.wait.kind = waitNone
		}
	}
	b.waiters = b.waiters[:0]
	b.arrived = 0
	b.count = 0
	b.gen++
	c.u.progress++
}

func boolAll(b bool) uint32 {
	if b {
		return ^uint32(0)
	}
	return 0
}

// threadsExited re-checks barriers: exited threads count as arrived.
func (c *CTA) threadsExited(w *Warp, lanes uint32) {
	for id := range c.bars {
		b := &c.bars[id]
		if b.arrived > 0 && b.count == 0 && b.arrived >= c.live {
			c.releaseBarrier(id)
		}
	}
	c.u.progress++
	if cb := c.u.cluster; cb != nil {
		cb.threadsExited(c, w, lanes)
	}
}

func (c *CTA) warpExited(w *Warp) {
	c.u.progress++
	if c.u.race != nil {
		c.u.race.warpExit(w)
	}
	for _, wg := range c.wgs {
		wg.warpExited(w)
	}
}

func decWarpSync(d *decoder) error {
	o, err := d.val(d.x.Operands[0], ptx.B32)
	if err != nil {
		return err
	}
	d.in.src = []Opnd{o}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		mm := uint32(w.src(&in.src[0], 0)[firstLane(m)])
		if missing := mm &^ m &^ w.exited & w.valid; missing != 0 {
			w.cta.u.m.hazard(Hazard{Kind: HzWarpSyncDiverged, Severity: SevWarning, Pos: w.cta.u.m.Prog.pos(in), PC: in.PC,
				CTA: w.cta.ID, Warp: w.ID, Lanes: m,
				Msg: fmt.Sprintf("bar.warp.sync membermask %#08x names lanes %#08x that are not executing it here (divergent)", mm, missing)})
		}
		if r := w.cta.u.race; r != nil {
			r.warpSync(w)
		}
	}
	return nil
}

// cluster barrier --------------------------------------------------------------

type clusterBarrier struct {
	phase    uint64
	arrived  int
	arrivals map[*Warp]uint64 // the phase each warp's arrival belongs to
}

func (u *unit) clusterLive() int {
	n := 0
	for _, c := range u.ctas {
		n += c.live
	}
	return n
}

func (cb *clusterBarrier) threadsExited(c *CTA, w *Warp, lanes uint32) {
	if cb.arrived > 0 && cb.arrived >= c.u.clusterLive() {
		cb.complete(c.u)
	}
}

func (cb *clusterBarrier) complete(u *unit) {
	cb.phase++
	cb.arrived = 0
	u.progress++
	if u.race != nil {
		u.race.clusterRelease()
	}
}

func decClusterBar(d *decoder) error {
	arrive := d.x.Has("arrive")
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		if u.cluster == nil {
			u.cluster = &clusterBarrier{arrivals: map[*Warp]uint64{}}
		}
		cb := u.cluster
		if arrive {
			if _, dup := cb.arrivals[w]; dup {
				u.m.hazard(Hazard{Kind: HzClusterBarrier, Severity: SevError, Pos: u.m.Prog.pos(in), PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
					Msg: "barrier.cluster.arrive twice without a barrier.cluster.wait in between"})
			}
			cb.arrivals[w] = cb.phase
			if u.race != nil {
				u.race.clusterArrive(w)
			}
			cb.arrived += bits.OnesCount32(w.valid &^ w.exited)
			if cb.arrived >= u.clusterLive() {
				cb.complete(u)
			}
			return
		}
		ph, ok := cb.arrivals[w]
		if !ok {
			u.m.hazard(Hazard{Kind: HzClusterBarrier, Severity: SevError, Pos: u.m.Prog.pos(in), PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
				Msg: "barrier.cluster.wait without a preceding barrier.cluster.arrive: it would wait forever"})
			return
		}
		if cb.phase > ph {
			delete(cb.arrivals, w)
			if u.race != nil {
				u.race.clusterAcquire(w)
			}
			return
		}
		w.block(waitInfo{kind: waitSpin, spinAt: u.progress})
	}
	return nil
}
