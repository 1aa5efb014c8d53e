package sim

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/datapath"
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
	pendingW   []uint16 // per cell: in-flight MMAs writing it
	written    []bool   // per cell: written (mma, st, cp) since its allocation
}

type tmemAlloc struct {
	col, n int
	pc     int
	warp   int
}

func (c *CTA) tmemState() *tmemState {
	if c.tmem == nil {
		c.tmem = &tmemState{cells: make([]uint32, tmemLanes*tmemCols), allocs: map[uint32]tmemAlloc{}, pendingW: make([]uint16, tmemLanes*tmemCols),
			written: make([]bool, tmemLanes*tmemCols)}
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
	for _, col := range cols {
		a := t.allocs[uint32(col)]
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

// tcIssue notes a tcgen05 operation for the fence checks.
func (w *Warp) tcIssue(in *Inst, m uint32) {
	w.ctaGroup(in)
	c := w.cta
	c.tcgenIssued++
	w.tcSinceBefore = true
	if w.tcNeedAfter {
		c.u.m.hazard(Hazard{Kind: HzTcgenFence, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
			Msg:    "tcgen05 operation after a thread synchronization with no tcgen05.fence::after_thread_sync in between",
			Detail: "tcgen05 operations of other threads ordered before the synchronization (alloc, mma, ld, st) are only ordered before this one with tcgen05.fence::after_thread_sync after the barrier or mbarrier wait"})
		w.tcNeedAfter = false
	}
}

// tcSynced is called when warp w passes a thread synchronization point.
func (w *Warp) tcSynced() {
	c := w.cta
	if c.tcgenIssued > w.tcSeenIssued {
		w.tcNeedAfter = true
	}
	w.tcSeenIssued = c.tcgenIssued
}

// tcArrive is called when warp w reaches a thread synchronization point.
func (w *Warp) tcArrive(in *Inst) {
	if !w.tcSinceBefore || !w.cta.u.m.Prog.hasTcgen05 {
		return
	}
	w.tcSinceBefore = false
	w.cta.u.m.hazard(Hazard{Kind: HzTcgenFence, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
		Msg:    "thread synchronization after tcgen05 operations with no tcgen05.fence::before_thread_sync before it",
		Detail: "tcgen05 operations are only ordered before a barrier or mbarrier arrival (and so before other threads' tcgen05 work) with tcgen05.fence::before_thread_sync"})
}

func decTcFence(before bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			if before {
				w.tcSinceBefore = false
			} else {
				w.tcNeedAfter = false
				w.tcSeenIssued = w.cta.tcgenIssued
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
		if x.ModPrefix("cta_group::") == "cta_group::2" {
			return fmt.Errorf("tcgen05 .cta_group::2 is not supported by the simulator")
		}
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
		w.tcIssue(in, m)
	}
	n := int(uint32(w.src(&in.src[1], 1)[l]))
	if n < 32 || n > 512 || n&(n-1) != 0 {
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg: fmt.Sprintf("tcgen05.alloc of %d columns: nCols must be a power of 2 from 32 to 512", n)})
		w.fault(in, l, "tcgen05.alloc: nCols %d is invalid", n)
		return
	}
	if t.relinquish {
		mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
			Msg: "tcgen05.alloc after tcgen05.relinquish_alloc_permit: the CTA gave up its right to allocate"})
	}
	col := -1
	for s := 0; s+n <= tmemCols; s += n {
		free := true
		for k := s; k < s+n; k++ {
			if t.used[k] {
				free = false
				break
			}
		}
		if free {
			col = s
			break
		}
	}
	if col < 0 {
		// tcgen05.alloc blocks until columns are free.
		w.block(waitInfo{kind: waitSpin, spinAt: c.u.progress})
		return
	}
	for k := col; k < col+n; k++ {
		t.used[k] = true
		for lane := 0; lane < tmemLanes; lane++ {
			t.written[lane*tmemCols+k] = false
		}
	}
	t.allocs[uint32(col)] = tmemAlloc{col: col, n: n, pc: in.PC, warp: w.ID}
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
	w.tcIssue(in, m)
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
	for k := col; k < col+a.n; k++ {
		t.used[k] = false
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
	}
	return nil
}

// mma ----------------------------------------------------------------------------

type tcMmaInfo struct {
	key     datapath.Key // the family, CTA group and kind; the descriptor gives the rest
	kind    desc.Kind
	aTmem   bool
	d, a, b Opnd
	idesc   Opnd
	enable  Opnd
	scaleD  int
}

func decTcMma(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	mi := &tcMmaInfo{}
	group := x.ModPrefix("cta_group::")
	if group == "cta_group::2" {
		return fmt.Errorf("tcgen05.mma .cta_group::2 is not supported by the simulator")
	}
	kn := x.ModPrefix("kind::")
	switch kn {
	case "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8":
	default:
		return fmt.Errorf("tcgen05.mma .%s is not supported by the simulator (f16, tf32, f8f6f4 and i8 are)", kn)
	}
	if x.Has("block_scale") || x.ModPrefix("collector::") != "" || x.Has("ashift") {
		return fmt.Errorf("tcgen05.mma with block scaling, collector usage or .ashift is not supported by the simulator")
	}
	k, err := desc.ParseKind(kn[len("kind::"):])
	if err != nil {
		return err
	}
	mi.kind = k
	mi.key = datapath.Key{Family: datapath.FamilyTcgen05, Kind: k}
	if group == "cta_group::1" {
		mi.key.CTAGroup = 1
	}
	ops := x.Operands
	if mi.d, err = d.memAddr(ops[0]); err != nil {
		return err
	}
	if a, ok := ops[1].(*ptx.Address); ok {
		mi.aTmem = true
		if mi.a, err = d.addr(a); err != nil {
			return err
		}
	} else if mi.a, err = d.val(ops[1], ptx.B64); err != nil {
		return err
	}
	if mi.b, err = d.val(ops[2], ptx.B64); err != nil {
		return err
	}
	if mi.idesc, err = d.val(ops[3], ptx.B32); err != nil {
		return err
	}
	rest := ops[4:]
	if len(rest) > 0 {
		if _, ok := rest[0].(*ptx.Vector); ok {
			return fmt.Errorf("tcgen05.mma with disable-output-lane is not supported by the simulator")
		}
	}
	if len(rest) == 0 {
		return fmt.Errorf("tcgen05.mma: missing enable-input-d")
	}
	if mi.enable, err = d.val(rest[0], ptx.Pred); err != nil {
		return err
	}
	if len(rest) > 1 {
		if im, ok := rest[1].(*ptx.Imm); ok {
			mi.scaleD = int(im.Int())
		}
	}
	d.in.src = []Opnd{mi.d, mi.a, mi.b, mi.idesc, mi.enable}
	d.in.ext = mi
	d.in.fn = execTcMma
	return nil
}

// matMuler is a datapath with a whole-matrix fast path.
type matMuler interface {
	MatMul(M, N, K int, a, b, c []uint64) []uint64
}

func execTcMma(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*tcMmaInfo)
	c := w.cta
	u := c.u
	mach := u.m
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.tcIssue(in, 1<<l)
		dAddr := w.src(&mi.d, 0)[l] + uint64(mi.d.Off)
		aVal := w.src(&mi.a, 1)[l] + uint64(mi.a.Off)
		bDesc := w.src(&mi.b, 2)[l]
		idv := uint32(w.src(&mi.idesc, 0)[l])
		enable := w.predVal(&mi.enable)>>l&1 == 1
		id := desc.DecodeIDesc(idv, mi.kind)
		for _, f := range id.Check(desc.IDescContext{}) {
			if f.Severity == desc.Error {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("tcgen05.mma instruction descriptor %#x: %s", idv, f.Msg)})
			}
		}
		dp, err := datapath.Lookup(mi.key, datapath.TCOptions{IDesc: idv, HasIDesc: true, ScaleInputD: mi.scaleD})
		M, N := dp.M, dp.N
		if err == nil && dp.Eval == nil {
			err = fmt.Errorf("no datapath for this kind")
		}
		if err != nil {
			w.fault(in, l, "tcgen05.mma: %v (instruction descriptor %#x)", err, idv)
			return
		}
		if M != 128 && M != 64 {
			w.fault(in, l, "tcgen05.mma with M=%d: only M=64 and M=128 (cta_group::1) are supported", M)
			return
		}
		dLane, dCol := tmemAddr(dAddr)
		t := c.tmemState()
		if !t.allocated(dCol, N) || dLane != 0 {
			mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: fmt.Sprintf("tcgen05.mma writes TMEM columns [%d, %d) at lane %d, which are not allocated (or the lane field is not 0)", dCol, dCol+N, dLane)})
			if dCol+N > tmemCols || dLane != 0 {
				w.fault(in, l, "tcgen05.mma: the accumulator [lane %d, columns %d..%d) is outside TMEM", dLane, dCol, dCol+N)
				return
			}
		}
		K := dp.K
		ab, bb := dp.A.Container, dp.B.Container
		if ab < 8 {
			ab = 8 // FP4 in kind::f8f6f4 sits unpacked in bytes
		}
		if bb < 8 {
			bb = 8
		}
		var aTab *smemTable
		if !mi.aTmem {
			aTab = smemOperand(aVal, M, K, ab, id.TransposeA, true)
			if aTab.err != nil {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma A descriptor %#x: %v", aVal, aTab.err)})
				return
			}
		}
		bTab := smemOperand(bDesc, N, K, bb, id.TransposeB, true)
		if bTab.err != nil {
			mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma B descriptor %#x: %v", bDesc, bTab.err)})
			return
		}
		var rd []region
		for _, tab := range []*smemTable{aTab, bTab} {
			if tab == nil {
				continue
			}
			for _, ch := range tab.chunks {
				if int(ch)+16 > len(c.Smem) {
					w.fault(in, l, "tcgen05.mma: a descriptor reads shared bytes [%#x, %#x), beyond the CTA's %d bytes", ch, ch+16, len(c.Smem))
					return
				}
				w.asyncReadCheck(in, c, ch, 16, "tcgen05.mma")
				rd = append(rd, region{c, ch, 16})
			}
		}
		lanes := func(row int) int {
			if M == 64 {
				return 32*(row/16) + row%16
			}
			return row
		}
		op := &asyncOp{kind: akTcgenMMA, cta: c, w: w, lane: l, tid: 32*w.ID + l, in: in, rd: rd}
		if u.race != nil {
			op.issueVC = u.race.issueVC(w)
			chunks := make([]uint32, 0, len(rd))
			for _, r := range rd {
				chunks = append(chunks, r.off)
			}
			op.hbRead = u.race.asyncReadRegions(op.issueVC, in, c, w.ID, 1<<l, chunks, 0, 0, "tcgen05.mma", w)
			u.race.tcRead(c, op.tid, op.hbRead)
		}
		uninit := 0
		for r := 0; r < M; r++ {
			base := lanes(r)*tmemCols + dCol
			for n := 0; n < N; n++ {
				t.pendingW[base+n]++
				if enable && !t.written[base+n] {
					uninit++
				}
				t.written[base+n] = true
			}
		}
		if uninit > 0 {
			mach.hazard(Hazard{Kind: HzTmemUninit, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
				Msg:    fmt.Sprintf("tcgen05.mma accumulates (enable-input-d true) into %d TMEM cells of columns [%d, %d) that nothing wrote since tcgen05.alloc: the product is added to garbage", uninit, dCol, dCol+N),
				Detail: "freshly allocated Tensor Memory is not zeroed: run the first MMA of the tile with enable-input-d false, or write the accumulator (tcgen05.st, tcgen05.cp) first"})
		}
		an, bn, dn := dp.A.Name, dp.B.Name, dp.C.Name
		op.desc = fmt.Sprintf("M=%d N=%d K=%d %s×%s→%s into TMEM column %d", M, N, K, an, bn, dn, dCol)
		op.run = func(op *asyncOp) {
			for r := 0; r < M; r++ {
				base := lanes(r)*tmemCols + dCol
				for n := 0; n < N; n++ {
					t.pendingW[base+n]--
				}
			}
			a := make([]uint64, M*K)
			b := make([]uint64, N*K)
			cc := make([]uint64, M*N)
			if mi.aTmem {
				aLane, aCol := tmemAddr(aVal)
				per := 32 / ab
				for r := 0; r < M; r++ {
					for k := 0; k < K; k++ {
						cell := t.cells[(aLane+lanes(r))*tmemCols+aCol+k/per]
						a[r*K+k] = uint64(cell) >> (uint(k%per) * uint(ab)) & (uint64(1)<<ab - 1)
					}
				}
			} else {
				for i, ba := range aTab.addrs {
					a[i] = readBits(c.Smem, ba, ab)
				}
				c.layoutCheck(aTab, M, K, id.TransposeA, in, "A", desc.DecodeTCGen05Smem(aVal).Swizzle())
				c.provenanceCheck(aTab, M, K, ab, in, "A")
			}
			for i, ba := range bTab.addrs {
				b[i] = readBits(c.Smem, ba, bb)
			}
			c.layoutCheck(bTab, N, K, id.TransposeB, in, "B", desc.DecodeTCGen05Smem(bDesc).Swizzle())
			c.provenanceCheck(bTab, N, K, bb, in, "B")
			if enable {
				for r := 0; r < M; r++ {
					base := lanes(r)*tmemCols + dCol
					for n := 0; n < N; n++ {
						v := uint64(t.cells[base+n])
						if dp.C.Bits == 16 {
							v &= 0xFFFF
						}
						cc[r*N+n] = v
					}
				}
			}
			var d []uint64
			if mod, ok := dp.Eval.(matMuler); ok {
				d = mod.MatMul(M, N, K, a, b, cc)
			} else {
				d = make([]uint64, M*N)
				for i := 0; i < M; i++ {
					for j := 0; j < N; j++ {
						d[i*N+j] = dp.Eval.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], cc[i*N+j])
					}
				}
			}
			for r := 0; r < M; r++ {
				base := lanes(r)*tmemCols + dCol
				for n := 0; n < N; n++ {
					t.cells[base+n] = uint32(d[r*N+n])
				}
			}
		}
		u.issue(op)
	}
}

// commit: an mbarrier arrival once the thread's earlier tcgen05 async
// operations complete.
func decTcCommit(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	if x.Has("multicast::cluster") {
		return fmt.Errorf("tcgen05.commit .multicast::cluster is not supported by the simulator")
	}
	a, err := d.memAddr(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			w.ctaGroup(in)
			mb, _, off, ok := w.mbarAt(in, l, false)
			if !ok {
				return
			}
			if mb == nil || !mb.live {
				u.m.mbarHazard(w, in, 1<<l, HzMbarUninit, "tcgen05.commit arrives on the mbarrier at %#x, which is not initialized", off)
				continue
			}
			w.tcSinceBefore = false // the commit is the synchronization of the async work
			tid := 32*w.ID + l
			op := &asyncOp{kind: akTcgenCommit, cta: w.cta, w: w, lane: l, tid: tid, in: in, desc: fmt.Sprintf("arrive on mbarrier %#x", off)}
			// the shared-memory reads of the thread's tcgen05 operations are
			// released by this arrival
			var reads []*asyncRead
			if u.race != nil {
				reads = u.race.tcCommit(w.cta, tid)
			}
			op.run = func(op *asyncOp) {
				if u.race != nil {
					e := u.race.mbarEpoch(mb, in.PC, ekGeneric)
					for _, a := range reads {
						a.release(e)
					}
					u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
				}
				mb.asyncArrive(in.PC, 1)
			}
			u.issue(op)
		}
	}
	return nil
}
