package sim

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim/datapath"
)

// wgmma (PTX ISA 9.7.15): the four warps of a warpgroup each issue the same
// wgmma.mma_async; the operation runs when all four have issued it and
// completes when its commit group does. Until a wgmma.wait_group covers it,
// its accumulator and register-A operands belong to the tensor core: the
// simulator writes the accumulators only when the group completes, and the
// checker reports any access to them before the covering wait.

type fragCell struct {
	reg  int32 // index into the operand's register list
	half uint8 // value position inside the register (low first)
	row  int32
	col  int32
}

type wgmmaInfo struct {
	dp             datapath.Inst
	model          *datapath.Model
	M, N, K        int
	rs             bool
	dregs          []int32
	aregs          []int32
	descA, descB   Opnd
	scaleD         Opnd
	negA, negB     bool
	transA, transB bool
	accBits        int
	accKey, aKey   catalog.Key     // the fragment atoms (aKey: register A only)
	accMap         [128][]fragCell // per thread of the warpgroup
	aMap           [128][]fragCell
	aBits, bBits   int
	aPerReg        int
}

var fragCache sync.Map // catalog.Key -> fragEntry

// fragTable is the per-thread cell list of the fragment atom k, and the
// number of values per register.
func fragTable(k catalog.Key) ([128][]fragCell, int, error) {
	if v, ok := fragCache.Load(k); ok {
		e := v.(fragEntry)
		return e.t, e.perReg, nil
	}
	a, err := catalog.Find(k)
	if err != nil {
		return [128][]fragCell{}, 0, err
	}
	var t [128][]fragCell
	per := max(a.ValsPerReg, 1)
	for th := 0; th < a.TV.Threads() && th < 128; th++ {
		for v := 0; v < a.TV.Values(); v++ {
			r, c := a.TV.Coord(th, v)
			t[th] = append(t[th], fragCell{reg: int32(v / per), half: uint8(v % per), row: int32(r), col: int32(c)})
		}
	}
	fragCache.Store(k, fragEntry{t, per})
	return t, per, nil
}

type fragEntry struct {
	t      [128][]fragCell
	perReg int
}

// wgmmaKey is the datapath key of a wgmma.mma_async instruction.
func wgmmaKey(x *ptx.Instruction) datapath.Key {
	sh := x.Shape
	return datapath.Key{Family: datapath.FamilyWGMMA, M: sh.M, N: sh.N, K: sh.K,
		D: x.Types[0].NumFormat(), A: x.Types[1].NumFormat(), B: x.Types[2].NumFormat(),
		Satfinite: x.Has("satfinite"), AndPopc: x.Has("and") && x.Has("popc")}
}

func decWgmma(d *decoder) error {
	x := d.x
	sh := x.Shape
	if len(x.Types) != 3 {
		return fmt.Errorf("wgmma.mma_async: want .dtype.atype.btype")
	}
	dt := x.Types[0]
	key := wgmmaKey(x)
	dp, err := datapath.Lookup(key, datapath.TCOptions{})
	if err != nil {
		return err
	}
	wi := &wgmmaInfo{dp: dp, M: dp.M, N: dp.N, K: dp.K}
	if m, ok := dp.Eval.(*datapath.Model); ok {
		wi.model = m
	}
	ops := x.Operands
	dv, ok := ops[0].(*ptx.Vector)
	if !ok {
		return fmt.Errorf("wgmma.mma_async: the accumulator must be a vector")
	}
	for _, e := range dv.Elems {
		r, ok := d.reg(e)
		if !ok || r.pred {
			return fmt.Errorf("wgmma.mma_async: accumulator %s is not a register", exprString(e))
		}
		wi.dregs = append(wi.dregs, r.idx)
	}
	wi.accBits = 32
	if dt == ptx.F16 {
		wi.accBits = 16
	}
	wi.accKey, wi.aKey, _ = wgmmaFragKeys(x)
	tab, per, err := fragTable(wi.accKey)
	if err != nil {
		return err
	}
	wi.accMap = tab
	if want := sh.N / 2 / per; len(wi.dregs) != want {
		return fmt.Errorf("wgmma m64n%d .%s accumulator: want %d registers, have %d", sh.N, dt, want, len(wi.dregs))
	}
	wi.aBits, wi.bBits = dp.A.Container, dp.B.Container
	if av, ok := ops[1].(*ptx.Vector); ok {
		wi.rs = true
		for _, e := range av.Elems {
			r, ok := d.reg(e)
			if !ok || r.pred {
				return fmt.Errorf("wgmma.mma_async: A fragment %s is not a register", exprString(e))
			}
			wi.aregs = append(wi.aregs, r.idx)
		}
		if wi.aBits == 1 {
			return refWgmmaB1.errorf("wgmma.mma_async with .b1 A in registers")
		}
		tab, per, err := fragTable(wi.aKey)
		if err != nil {
			return err
		}
		wi.aMap, wi.aPerReg = tab, per
		if len(wi.aregs) != 4 {
			return fmt.Errorf("wgmma register A: want 4 registers, have %d", len(wi.aregs))
		}
	} else {
		if wi.descA, err = d.val(ops[1], ptx.B64); err != nil {
			return err
		}
	}
	if wi.descB, err = d.val(ops[2], ptx.B64); err != nil {
		return err
	}
	if wi.scaleD, err = d.val(ops[3], ptx.Pred); err != nil {
		return err
	}
	imms := ops[4:]
	imm := func(i int) int64 {
		if i < len(imms) {
			if im, ok := imms[i].(*ptx.Imm); ok {
				return im.Int()
			}
		}
		return -2
	}
	if dp.A.IsFloat() {
		wi.negA = imm(0) == -1
		wi.negB = imm(1) == -1
		if wi.rs {
			wi.transB = imm(2) == 1
		} else {
			wi.transA = imm(2) == 1
			wi.transB = imm(3) == 1
		}
	}
	d.in.ext = wi
	d.in.class = clsWgmma
	// Operands for inspection and the trace.
	for _, r := range wi.dregs {
		d.in.dst = append(d.in.dst, Opnd{K: oReg, R: r})
	}
	d.in.fn = execWgmma
	d.c.p.hasWgmma = true
	return nil
}

// warpgroup is the wgmma state of four warps.
// MaxWgmmaInFlight bounds the wgmma.mma_async operations of one warpgroup
// that are issued and not completed (or not committed): a loop that never
// commits or waits faults with a clear message instead of growing until
// the process runs out of memory. Real kernels keep a few dozen in flight.
const MaxWgmmaInFlight = 1024

type warpgroup struct {
	cta       *CTA
	idx       int
	warps     [4]*Warp
	ops       []*wgmmaOp // issued and not yet completed, in order
	nextOp    [4]int     // per warp: ops issued so far
	committed [4]int     // per warp: commit_group count
	groups    []*wgGroup
	open      [4][]*wgmmaOp // per warp: issued since the last commit
	seq       []int         // pcs of .aligned wgmma instructions, in order
	seqPos    [4]int
	lastFence [4]int64
	lastWait  [4]int64
	waits     [4]waitMark // per warp: its last wgmma.wait_group (wgmma_wait.go)
	fenced    [4]bool
	maxnreg   int
	maxnregBy [4]int
	allOps    []*wgmmaOp // every op by index (completed ones stay as nil)
	baseIdx   int
}

type wgGroup struct {
	ops         []*wgmmaOp
	commitPC    [4]int32 // per warp: its wgmma.commit_group of the group
	committedBy uint8
	done        bool
	waited      [4]bool
}

type wgmmaOp struct {
	idx      int
	in       [4]*Inst
	regs     [4][]uint64 // register files of the issuing frames
	descA    [4]uint64
	descB    [4]uint64
	scaleD   [4]bool
	issuedBy uint8
	done     bool
	cleared  [4]bool
	reported bool
	group    int
	rd       []region
	async    *asyncOp
	// happens-before: the join of the issuing warps' clocks, and the
	// record of the shared memory the op reads
	issueJoin []uint32
	hb        *asyncRead
}

func newWarpgroup(c *CTA, idx int) *warpgroup {
	wg := &warpgroup{cta: c, idx: idx}
	for k := 0; k < 4; k++ {
		if i := 4*idx + k; i < len(c.Warps) {
			wg.warps[k] = c.Warps[i]
		}
	}
	for k := range wg.lastFence {
		wg.lastFence[k] = -1
	}
	return wg
}

func (wg *warpgroup) full() uint8 {
	var m uint8
	for k, w := range wg.warps {
		if w != nil {
			m |= 1 << k
		}
	}
	return m
}

func (wg *warpgroup) warpsPresent() int { return bits.OnesCount8(wg.full()) }

// aligned checks that the four warps run the same sequence of .aligned
// wgmma instructions, each with every thread of the warp.
func (wg *warpgroup) aligned(w *Warp, in *Inst, m uint32) {
	k := w.ID % 4
	mach := wg.cta.u.m
	if live := w.valid &^ w.exited; m != live {
		mach.hazard(Hazard{Kind: HzWgmmaAligned, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
			Msg:   fmt.Sprintf("%s is .sync.aligned but only lanes %#08x of the warp execute it (divergent or predicated)", in.PTX.Opcode, m),
			PTXAS: ptxasC7516})
	}
	p := wg.seqPos[k]
	wg.seqPos[k]++
	if p < len(wg.seq) {
		if wg.seq[p] != in.PC {
			other := &mach.Prog.Insts[wg.seq[p]]
			mach.hazard(Hazard{Kind: HzWgmmaAligned, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
				Msg:     fmt.Sprintf("warps of warpgroup %d disagree: this warp's wgmma instruction #%d is %s, another warp's is %s", wg.idx, p+1, in.PTX.Opcode, other.PTX),
				Related: mach.Prog.pos(other), PTXAS: ptxasC7516})
		}
		return
	}
	wg.seq = append(wg.seq, in.PC)
}

func decWgmmaSync(kind string) decodeFn {
	return func(d *decoder) error {
		n := 0
		if kind == "wait" {
			im, ok := d.x.Operands[0].(*ptx.Imm)
			if !ok {
				return fmt.Errorf("wgmma.wait_group: N must be an immediate")
			}
			n = int(im.Int())
		}
		d.in.class = clsWgmma
		d.in.aux = n
		d.c.p.hasWgmma = true
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			wg := w.cta.wgs[w.ID/4]
			k := w.ID % 4
			switch kind {
			case "fence":
				wg.aligned(w, in, m)
				wg.lastFence[k] = w.steps
				wg.fenced[k] = true
			case "commit":
				wg.aligned(w, in, m)
				wg.commit(w)
			case "wait":
				if w.retryPC != in.PC {
					wg.aligned(w, in, m)
				}
				if !wg.waitReady(w, n) {
					w.block(waitInfo{kind: waitWgmma, wg: wg, n: n})
					return
				}
				wg.finishWait(w, n)
				wg.lastWait[k] = w.steps
				wg.noteWait(k, int32(in.PC), n)
			}
		}
		return nil
	}
}

func execWgmma(w *Warp, in *Inst, m uint32) {
	wi := in.ext.(*wgmmaInfo)
	c := w.cta
	mach := c.u.m
	wg := c.wgs[w.ID/4]
	k := w.ID % 4
	if wg.warpsPresent() != 4 {
		w.fault(in, firstLane(m), "wgmma.mma_async needs a warpgroup of 4 warps; warpgroup %d of this CTA has %d (the block has %d threads)", wg.idx, wg.warpsPresent(), mach.threadsPerCTA)
		return
	}
	wg.aligned(w, in, m)
	l0 := firstLane(m)
	// Operands: lane-uniform descriptors and scale-d.
	var da uint64
	if !wi.rs {
		da = w.src(&wi.descA, 0)[l0]
	}
	db := w.src(&wi.descB, 1)[l0]
	sd := w.predVal(&wi.scaleD)>>l0&1 == 1
	forLanes(m, func(l int) {
		if (!wi.rs && w.src(&wi.descA, 0)[l] != da) || w.src(&wi.descB, 1)[l] != db || (w.predVal(&wi.scaleD)>>l&1 == 1) != sd {
			mach.hazard(Hazard{Kind: HzWgmmaAligned, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: "threads of the warp pass different descriptors or scale-d to one wgmma.mma_async; they must be uniform across the warpgroup"})
		}
	})
	// Missing wgmma.fence: registers accessed since the last fence.
	wg.checkFence(w, in, wi)
	// Committed groups may complete at any time: complete the oldest when
	// too many are in flight (a loop that waits only at the end).
	for len(wg.ops) >= MaxWgmmaInFlight && wg.completeCommitted() {
	}
	if len(wg.open[k]) >= MaxWgmmaInFlight || len(wg.ops) >= MaxWgmmaInFlight {
		what := "without a wgmma.commit_group"
		if len(wg.open[k]) < MaxWgmmaInFlight {
			what = "not committed by every warp of the warpgroup"
		}
		w.fault(in, firstLane(m), "warpgroup %d has %d wgmma.mma_async operations in flight (%s); the simulator holds at most %d: is a wgmma.commit_group missing from a loop?",
			wg.idx, max(len(wg.open[k]), len(wg.ops)), what, MaxWgmmaInFlight)
		return
	}
	idx := wg.nextOp[k]
	wg.nextOp[k]++
	var op *wgmmaOp
	if idx-wg.baseIdx < len(wg.allOps) {
		op = wg.allOps[idx-wg.baseIdx]
	}
	if op == nil {
		op = &wgmmaOp{idx: idx, group: -1}
		wg.allOps = append(wg.allOps, op)
		wg.ops = append(wg.ops, op)
	}
	op.in[k], op.regs[k] = in, w.r
	op.descA[k], op.descB[k], op.scaleD[k] = da, db, sd
	op.issuedBy |= 1 << k
	wg.open[k] = append(wg.open[k], op)
	// The registers now belong to the tensor core.
	w.markInflight(in, wi.dregs, true)
	if wi.rs {
		w.markInflight(in, wi.aregs, true)
	}
	// Shared-memory operands: checked at issue, read at completion.
	wg.smemOperands(w, in, wi, op, da, db, true)
	if r := c.u.race; r != nil {
		join(&op.issueJoin, r.vc[w.uid])
		// What the warp does after its issue is not ordered before the
		// op's completion (see observeIssue).
		r.tick(w)
	}
	if op.issuedBy == wg.full() {
		if r := c.u.race; r != nil && len(op.rd) > 0 {
			chunks := make([]uint32, 0, len(op.rd))
			for _, x := range op.rd {
				chunks = append(chunks, x.off)
			}
			op.hb = r.asyncReadRegions(op.issueJoin, in, c, -1, 0, chunks, 0, 0, "wgmma.mma_async", w)
			op.hb.wgop, op.hb.wg = op, wg
		}
		// every warp issued it: check agreement
		for j := 1; j < 4; j++ {
			if op.in[j] != op.in[0] || op.descA[j] != op.descA[0] || op.descB[j] != op.descB[0] || op.scaleD[j] != op.scaleD[0] {
				mach.hazard(Hazard{Kind: HzWgmmaAligned, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
					Msg:     fmt.Sprintf("the warps of warpgroup %d issue wgmma #%d with different instructions or operands (warp %d: descriptors %#x/%#x; warp %d: %#x/%#x)", wg.idx, idx+1, 4*wg.idx, op.descA[0], op.descB[0], 4*wg.idx+j, op.descA[j], op.descB[j]),
					Related: mach.Prog.pos(op.in[0])})
				break
			}
		}
		if mach.Opts.Schedule == Eager {
			wg.execute(op)
		}
	}
}

// checkFence reports wgmma operands accessed by ordinary instructions since
// the warp's last wgmma.fence.
func (wg *warpgroup) checkFence(w *Warp, in *Inst, wi *wgmmaInfo) {
	k := w.ID % 4
	mach := wg.cta.u.m
	if !wg.fenced[k] {
		mach.hazard(Hazard{Kind: HzWgmmaNoFence, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
			Msg:    "wgmma.mma_async without a wgmma.fence before the warpgroup's first wgmma",
			Detail: "the ISA requires wgmma.fence before the first wgmma.mma_async and between any register access and a wgmma that uses the same registers",
			PTXAS:  ptxasC7519})
		// ptxas injects the warpgroup.arrive: model it
		wg.fenced[k] = true
		wg.lastFence[k] = w.steps
		return
	}
	if w.lastAccess == nil || wg.lastWait[k] < wg.lastFence[k] {
		// Accesses between the fence and this wgmma with no pipeline stage
		// in between: ptxas schedules them before its warpgroup.arrive
		// (nvcc itself sinks accumulator initialization past wgmma.fence).
		return
	}
	check := func(regs []int32, what string) bool {
		for _, r := range regs {
			if int(r) < len(w.lastAccess) && w.lastAccess[r] > wg.lastWait[k] {
				pc := w.lastAccessPC[r]
				mach.hazard(Hazard{Kind: HzWgmmaNoFence, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
					Msg:     fmt.Sprintf("%s register %s was accessed by an ordinary instruction after the last wgmma.wait_group, with no wgmma.fence before this wgmma.mma_async", what, w.regName(r)),
					Detail:  "wgmma.fence must separate register accesses from a wgmma.mma_async that reads or writes the same registers; the last fence came before the previous pipeline stage",
					Related: mach.Prog.pos(&mach.Prog.Insts[pc]), PTXAS: ptxasC7519})
				wg.lastFence[k] = w.steps // the injected warpgroup.arrive
				return true
			}
		}
		return false
	}
	if !check(wi.dregs, "accumulator") && wi.rs {
		check(wi.aregs, "A-fragment")
	}
}

// markInflight counts a wgmma's registers as owned by the tensor core.
func (w *Warp) markInflight(in *Inst, regs []int32, on bool) {
	if w.inflight == nil || len(w.inflight) < w.fn.NumRegs {
		w.inflight = make([]int32, w.fn.NumRegs)
		w.inflightBy = make([]*Inst, w.fn.NumRegs)
	}
	for _, r := range regs {
		if on {
			w.inflight[r]++
			w.inflightBy[r] = in
		} else if w.inflight[r] > 0 {
			w.inflight[r]--
		}
	}
	w.inflightAny = false
	for _, v := range w.inflight {
		if v > 0 {
			w.inflightAny = true
			break
		}
	}
}

// commit closes the warp's open wgmma operations into its next group.
func (wg *warpgroup) commit(w *Warp) {
	k := w.ID % 4
	g := wg.committed[k]
	wg.committed[k]++
	for len(wg.groups) <= g {
		wg.groups = append(wg.groups, &wgGroup{commitPC: [4]int32{-1, -1, -1, -1}})
	}
	grp := wg.groups[g]
	grp.commitPC[k] = int32(w.PC())
	if grp.committedBy == 0 {
		grp.ops = wg.open[k]
	} else if len(grp.ops) != len(wg.open[k]) {
		mach := wg.cta.u.m
		mach.hazard(Hazard{Kind: HzWgmmaAligned, Severity: SevError, PC: w.PC(), CTA: w.cta.ID, Warp: w.ID,
			Msg: fmt.Sprintf("warps of warpgroup %d commit different numbers of wgmma operations into group %d (%d and %d)", wg.idx, g, len(grp.ops), len(wg.open[k]))})
	}
	for _, op := range wg.open[k] {
		op.group = g
	}
	grp.committedBy |= 1 << k
	wg.open[k] = nil
}

// groupsToWait lists the warp's groups that wait_group n must complete.
func (wg *warpgroup) groupsToWait(w *Warp, n int) []*wgGroup {
	k := w.ID % 4
	var out []*wgGroup
	for g := 0; g < wg.committed[k]-n; g++ {
		if !wg.groups[g].waited[k] {
			out = append(out, wg.groups[g])
		}
	}
	return out
}

// waitReady reports whether wait_group n of warp w can complete: every
// group it covers has been committed by the whole warpgroup.
func (wg *warpgroup) waitReady(w *Warp, n int) bool {
	full := wg.full()
	for _, g := range wg.groupsToWait(w, n) {
		if g.committedBy != full {
			return false
		}
		for _, op := range g.ops {
			if op.issuedBy != full {
				return false
			}
		}
	}
	return true
}

// finishWait completes the covered groups and gives the registers back.
func (wg *warpgroup) finishWait(w *Warp, n int) {
	k := w.ID % 4
	for _, g := range wg.groupsToWait(w, n) {
		if !g.done {
			for _, op := range g.ops {
				wg.execute(op)
			}
			g.done = true
		}
		g.waited[k] = true
		for _, op := range g.ops {
			wg.release(w, op)
			wg.observeIssue(w, op)
			if r := wg.cta.u.race; r != nil && op.hb != nil {
				r.releaseByWarp(op.hb, w)
			}
		}
		if g.done && g.committedBy == wg.full() && wg.allWaited(g) {
			g.ops = nil // every warp has its registers back: a long loop keeps no old ops
		}
	}
	if len(wg.open[k]) > 0 && n == 0 {
		mach := wg.cta.u.m
		mach.warpRoot(w, Hazard{Kind: HzWgmmaCommit, Severity: SevError, PC: w.PC(), CTA: w.cta.ID, Warp: w.ID,
			Msg:     fmt.Sprintf("wgmma.wait_group 0 with %d wgmma.mma_async not committed: wait_group only waits for committed groups", len(wg.open[k])),
			Related: mach.Prog.pos(wg.open[k][0].in[k]), PTXAS: ptxasC7516})
	}
}

// observeIssue orders the issue of op by every warp of the warpgroup
// before warp w's completed wait for it. A wgmma.mma_async is one operation
// of the whole warpgroup: it starts only once all four warps have issued
// it, so a wait that sees it complete comes after each warp's issue, and
// after what each warp did before (its mbarrier wait for the operands, for
// one). A warpgroup that releases a pipeline stage from one thread after
// wgmma.wait_group relies on this.
func (wg *warpgroup) observeIssue(w *Warp, op *wgmmaOp) {
	if r := wg.cta.u.race; r != nil && op.issuedBy == wg.full() {
		join(&r.vc[w.uid], op.issueJoin)
	}
}

// release returns an op's registers to warp w.
func (wg *warpgroup) release(w *Warp, op *wgmmaOp) {
	k := w.ID % 4
	if op.cleared[k] || op.in[k] == nil {
		return
	}
	op.cleared[k] = true
	wi := op.in[k].ext.(*wgmmaInfo)
	w.markInflight(op.in[k], wi.dregs, false)
	if wi.rs {
		w.markInflight(op.in[k], wi.aregs, false)
	}
}

// implicitWait models the warpgroup.wait ptxas injects (C7517) when a
// thread touches registers of an in-flight wgmma: every op this warp
// issued completes and its registers come back. It reports false when the
// other warps have not issued them yet (the warp then waits).
func (wg *warpgroup) implicitWait(w *Warp) bool {
	k := w.ID % 4
	full := wg.full()
	var pending []*wgmmaOp
	for _, op := range wg.allOps {
		if op != nil && op.in[k] != nil && !op.cleared[k] {
			if op.issuedBy != full {
				return false
			}
			pending = append(pending, op)
		}
	}
	for _, op := range pending {
		wg.execute(op)
		wg.release(w, op)
		wg.observeIssue(w, op)
		if r := wg.cta.u.race; r != nil && op.hb != nil {
			r.releaseByWarp(op.hb, w)
		}
	}
	return true
}

// implicitReady reports whether every op warp w issued has been issued by
// the whole warpgroup (so that an implicit wait can complete them).
func (wg *warpgroup) implicitReady(w *Warp) bool {
	k := w.ID % 4
	full := wg.full()
	for _, op := range wg.allOps {
		if op != nil && op.in[k] != nil && !op.cleared[k] && op.issuedBy != full {
			return false
		}
	}
	return true
}

// allWaited reports whether every warp of the warpgroup waited for g.
func (wg *warpgroup) allWaited(g *wgGroup) bool {
	for k, w := range wg.warps {
		if w != nil && !g.waited[k] {
			return false
		}
	}
	return true
}

// completeCommitted completes one group that every warp committed (used
// when no warp can run).
func (wg *warpgroup) completeCommitted() bool {
	full := wg.full()
	for _, g := range wg.groups {
		if g.done || g.committedBy != full {
			continue
		}
		ok := true
		for _, op := range g.ops {
			if op.issuedBy != full {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, op := range g.ops {
			wg.execute(op)
		}
		g.done = true
		return true
	}
	return false
}

func (wg *warpgroup) pendingDesc() string {
	var parts []string
	full := wg.full()
	for g, grp := range wg.groups {
		if grp.done {
			continue
		}
		if grp.committedBy != full {
			var missing []string
			for k := 0; k < 4; k++ {
				if full>>k&1 == 1 && grp.committedBy>>k&1 == 0 {
					missing = append(missing, fmt.Sprint(4*wg.idx+k))
				}
			}
			parts = append(parts, fmt.Sprintf("group %d is not committed by warp(s) %s", g, strings.Join(missing, ", ")))
		}
	}
	if len(parts) == 0 {
		return "waiting for the other warps of the warpgroup"
	}
	return strings.Join(parts, "; ")
}

func (wg *warpgroup) warpExited(w *Warp) {}

// checkExit reports wgmma operations nobody waited for.
func (wg *warpgroup) checkExit() {
	mach := wg.cta.u.m
	for _, op := range wg.allOps {
		if op == nil || allCleared(op, op.issuedBy) || op.reported {
			continue
		}
		for k := 0; k < 4; k++ {
			if op.in[k] != nil && !op.cleared[k] {
				mach.hazard(Hazard{Kind: HzWgmmaExit, Severity: SevError, PC: op.in[k].PC, CTA: wg.cta.ID, Warp: 4*wg.idx + k,
					Msg:    "the warp exits with this wgmma.mma_async in flight: no wgmma.wait_group covers it",
					Detail: "the accumulators are undefined until a wait_group covers the operation",
					PTXAS:  ptxasC7517})
				break
			}
		}
	}
}

func allCleared(op *wgmmaOp, full uint8) bool {
	for k := 0; k < 4; k++ {
		if full>>k&1 == 1 && !op.cleared[k] {
			return false
		}
	}
	return true
}
