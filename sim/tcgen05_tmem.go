package sim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// Moving data in and out of Tensor Memory: tcgen05.ld / tcgen05.st and
// their waits, tcgen05.cp (shared memory to TMEM) and tcgen05.shift.

// ld / st ------------------------------------------------------------------------------

type tcLdInfo struct {
	load    bool
	shape   catalog.TMEMShape
	num     int
	key     catalog.Key // the fragment atom
	lanes   [128][]fragCell
	regs    []Opnd
	addr    Opnd
	split   int // immHalfSplitoff for 16x32bx2
	lanes16 bool
	values  int  // fragment values per thread (the atom's)
	pack    bool // .pack::16b / .unpack::16b: two 16-bit cells a register
	// .red: the min or max of each thread's loaded values into redDst
	red            string
	redAbs, redNaN bool
	redType        string
	redDst         Opnd
}

type tcldPending struct {
	regs  []int32
	vals  [][32]uint64
	done  []bool // destinations already delivered by a read
	left  int
	noted bool // the portability note for reading before wait::ld was given
	mask  uint32
	in    *Inst
}

func decTcLdSt(load bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		x := d.x
		li := &tcLdInfo{load: load, pack: x.Has("pack::16b") || x.Has("unpack::16b")}
		if x.Has("red") {
			li.red = "max"
			if x.Has("min") {
				li.red = "min"
			}
			li.redAbs, li.redNaN = x.Has("abs"), x.Has("NaN")
			for _, ty := range []string{"f32", "u32", "s32"} {
				if x.Has(ty) {
					li.redType = ty
				}
			}
		}
		li.key = tcLdStFragKey(x)
		if li.pack {
			// .pack::16b / .unpack::16b: each register holds the low 16
			// bits of two adjacent columns, so twice the columns move.
			li.key.Num *= 2
		}
		li.shape, li.num = li.key.Shape, li.key.Num
		li.lanes16 = li.shape != catalog.Shape32x32b
		atom, err := catalog.Find(li.key)
		if err != nil {
			return err
		}
		for t := 0; t < 128; t++ {
			for v := 0; v < atom.TV.Values(); v++ {
				r, c := atom.TV.Coord(t, v)
				li.lanes[t] = append(li.lanes[t], fragCell{reg: int32(v), row: int32(r), col: int32(c)})
			}
		}
		ops := x.Operands
		regOp, addrOp, immOp := ops[0], ops[1], 2
		switch {
		case !load:
			addrOp, regOp, immOp = ops[0], ops[len(ops)-1], 1
		case li.red != "":
			addrOp, immOp = ops[2], 3
		}
		if li.li16x2() {
			if immOp >= len(ops) {
				return fmt.Errorf("%s .16x32bx2 needs an immediate immHalfSplitoff", x.Opcode)
			}
			im, ok := ops[immOp].(*ptx.Imm)
			if !ok {
				return fmt.Errorf("%s .16x32bx2 needs an immediate immHalfSplitoff", x.Opcode)
			}
			li.split = int(im.Int())
		}
		if li.addr, err = d.memAddr(addrOp); err != nil {
			return err
		}
		if li.regs, err = d.fragRegs(regOp, load); err != nil {
			return err
		}
		li.values = atom.TV.Values()
		want := li.values
		if li.pack {
			want /= 2
		}
		if len(li.regs) != want {
			return fmt.Errorf("%s .%s needs %d registers, has %d", x.Opcode, li.shape, want, len(li.regs))
		}
		d.in.src = []Opnd{li.addr}
		if li.red != "" {
			if li.redDst, err = d.dstReg(ops[1]); err != nil {
				return err
			}
		}
		if load {
			d.in.dst = li.regs
			if li.red != "" {
				d.in.dst = append(append([]Opnd(nil), li.regs...), li.redDst)
			}
		} else {
			d.in.src = append(d.in.src, li.regs...)
		}
		d.in.ext = li
		d.in.fn = execTcLdSt
		return nil
	}
}

func (li *tcLdInfo) li16x2() bool { return li.shape == catalog.Shape16x32bx2 }

func execTcLdSt(w *Warp, in *Inst, m uint32) {
	li := in.ext.(*tcLdInfo)
	c := w.cta
	mach := c.u.m
	t := c.tmemState()
	w.alignedCheck(in, m)
	w.tcIssue(in, m, false)
	if !li.load {
		w.tcStPending = true
	}
	q := w.ID % 4
	l0 := firstLane(m)
	lane0, col0 := tmemAddr(w.src(&li.addr, 0)[l0] + uint64(li.addr.Off))
	quarter := 32 * q
	reported := false
	cell := func(th int, f fragCell) (int, bool) {
		col := int(f.col)
		if li.li16x2() && col >= li.num {
			col = col - li.num + li.split
		}
		lane := lane0 + int(f.row) - quarter
		col += col0
		if lane < quarter || lane >= quarter+32 {
			if !reported {
				reported = true
				h := Hazard{Kind: HzTmemLane, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
					Msg: fmt.Sprintf("warp %d (warp %d of its warpgroup) accesses TMEM lane %d; a warp can only reach lanes %d-%d (its lane quarter)", w.ID, q, lane, quarter, quarter+31)}
				if d := w.laneCause(in, li.addr); d != nil {
					h.Cause = mach.Prog.pos(d)
					h.Detail = "the lane field (bits 16 and up) of the TMEM address is computed at the fix line: warp w of a warpgroup must use lane base 32·(w%4), (32·(w%4)) << 16 in the address"
				}
				mach.hazard(h)
			}
		}
		if lane < 0 || lane >= tmemLanes || col < 0 || col >= tmemCols {
			return 0, false
		}
		if !t.used[col] && !reported {
			reported = true
			h := Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
				Msg: fmt.Sprintf("%s touches TMEM column %d, which is not allocated", in.PTX.Opcode, col)}
			mach.freedCause(t, col, 1, &h)
			mach.hazard(h)
		}
		return lane*tmemCols + col, true
	}
	// cells visits every TMEM cell that an executing lane reads or writes.
	cells := func(visit func(l int, f fragCell, idx int)) {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			th := quarter + l
			for _, f := range li.lanes[th] {
				if idx, ok := cell(th, f); ok {
					visit(l, f, idx)
				}
			}
		}
	}
	if li.load {
		p := tcldPending{mask: m, in: in}
		for _, o := range li.regs {
			p.regs = append(p.regs, o.R)
		}
		if li.red != "" && li.redDst.K == oReg {
			p.regs = append(p.regs, li.redDst.R)
		}
		p.done = make([]bool, len(p.regs))
		p.left = len(p.regs)
		w.tcldFenced = false
		vals := make([][32]uint64, li.values)
		inflightReported, stReported := false, false
		cells(func(l int, f fragCell, idx int) {
			early := false
			if c.u.race != nil {
				early = t.ldCheck(w, in, m, idx, &inflightReported)
				t.stCheck(w, in, idx, &stReported)
			} else if t.pendingW[idx] > 0 && !inflightReported {
				inflightReported = true
				mach.hazard(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
					Msg:    "tcgen05.ld reads TMEM that an in-flight tcgen05.mma still writes",
					Detail: "wait for the tcgen05.commit's mbarrier phase before reading the accumulator"})
			}
			vals[f.reg][l] = uint64(t.cells[idx])
			t.ldMark(w, in, idx, early)
		})
		p.vals = li.registerValues(vals, m)
		if mach.Opts.Schedule == Eager {
			// the values land now, but the registers stay pending for the
			// checker until they are read or tcgen05.wait::ld
			w.applyTcld(p)
		}
		w.tcld = append(w.tcld, p)
		w.markTcld()
		return
	}
	inflightReported := false
	var seq uint32
	if c.u.race != nil {
		seq = c.u.race.tcStore(w)
	}
	cells(func(l int, f fragCell, idx int) {
		if c.u.race != nil {
			if cs := t.writeCheck(w, -1, idx, "tcgen05.st"); len(cs) > 0 && !inflightReported {
				inflightReported = true
				h := cs[0].h
				h.PC, h.CTA, h.Warp, h.Lanes = in.PC, c.ID, w.ID, m
				if t := cs[0].op.wrongWait(w, in, m); t != nil {
					c.u.race.reportRoot(t)
				} else {
					mach.hazard(*h)
				}
			}
			t.setAsyncWrite(idx, nil)
			t.prevW[idx] = nil
		} else if (t.pendingR[idx] > 0 || t.pendingW[idx] > 0) && !inflightReported {
			inflightReported = true
			mach.hazard(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
				Msg:    "tcgen05.st overwrites TMEM that an in-flight tcgen05.mma still reads or writes",
				Detail: "wait for the MMA's tcgen05.commit mbarrier phase before reusing its TMEM"})
		}
		if li.pack {
			t.cells[idx] = uint32(w.src(&li.regs[f.reg/2], 1)[l]>>(16*uint(f.reg%2))) & 0xFFFF
		} else {
			t.cells[idx] = uint32(w.src(&li.regs[f.reg], 1)[l])
		}
		t.written[idx] = true
		if t.writtenBy != nil {
			t.prevWrittenBy[idx] = t.writtenBy[idx]
			t.writtenBy[idx] = epoch{slot: int32(w.uid), clock: c.u.race.vc[w.uid][w.uid], pc: int32(in.PC)}
			t.noteStore(idx, seq)
		}
	})
}

// registerValues turns the loaded cells (one per fragment value) into the
// destination registers: two 16-bit cells a register with .pack::16b (the
// lower-numbered value in the low half), and the .red reduction last.
func (li *tcLdInfo) registerValues(vals [][32]uint64, m uint32) [][32]uint64 {
	out := vals
	if li.pack {
		out = make([][32]uint64, len(vals)/2)
		for j := range out {
			for l := 0; l < 32; l++ {
				out[j][l] = vals[2*j][l]&0xFFFF | (vals[2*j+1][l]&0xFFFF)<<16
			}
		}
	}
	if li.red == "" {
		return out
	}
	var red [32]uint64
	forLanes(m, func(l int) {
		var acc uint64
		for v := range vals {
			x := vals[v][l] & 0xFFFFFFFF
			if v == 0 {
				acc = li.reduce(x, x)
				continue
			}
			acc = li.reduce(acc, x)
		}
		red[l] = acc
	})
	return append(out, red)
}

// reduce is one step of a tcgen05.ld .red reduction (a is the running
// value, already reduced). .abs takes magnitudes; for f32 without .NaN a
// NaN operand is ignored (IEEE minNum/maxNum), with .NaN it wins as the
// canonical NaN.
func (li *tcLdInfo) reduce(a, x uint64) uint64 {
	switch li.redType {
	case "f32":
		fa, fx := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(x))
		if li.redAbs {
			fx = float32(math.Abs(float64(fx)))
			fa = float32(math.Abs(float64(fa)))
		}
		na, nx := fa != fa, fx != fx
		switch {
		case li.redNaN && (na || nx):
			return 0x7FFFFFFF
		case nx:
			return uint64(math.Float32bits(fa))
		case na:
			return uint64(math.Float32bits(fx))
		}
		if (li.red == "min") == (fx < fa) || (fx == fa && li.red == "min" && math.Signbit(float64(fx))) || (fx == fa && li.red == "max" && !math.Signbit(float64(fx))) {
			return uint64(math.Float32bits(fx))
		}
		return uint64(math.Float32bits(fa))
	case "s32":
		va, vx := int64(int32(uint32(a))), int64(int32(uint32(x)))
		if li.redAbs {
			va, vx = abs64(va), abs64(vx)
		}
		if (li.red == "min") == (vx < va) {
			return uint64(uint32(int32(vx)))
		}
		return uint64(uint32(int32(va)))
	}
	if (li.red == "min") == (x < a) {
		return x
	}
	return a
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// applyTcld writes a tcgen05.ld's results into the registers.
func (w *Warp) applyTcld(p tcldPending) {
	for k, r := range p.regs {
		if p.done != nil && p.done[k] {
			continue
		}
		dst := w.reg(r)
		forLanes(p.mask, func(l int) { dst[l] = p.vals[k][l] })
	}
	if tr := w.cta.u.m.trace; tr != nil {
		tr.regs(w, p.regs, w.r)
	}
}

func (w *Warp) markTcld() {
	w.tcldAny = len(w.tcld) > 0
	if w.tcldPending == nil || len(w.tcldPending) < w.fn.NumRegs {
		w.tcldPending = make([]int32, w.fn.NumRegs)
	}
	for i := range w.tcldPending {
		w.tcldPending[i] = 0
	}
	for _, p := range w.tcld {
		for _, r := range p.regs {
			w.tcldPending[r]++
		}
	}
}

func decTcWait(ld bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			w.alignedCheck(in, m)
			if ld {
				for _, p := range w.tcld {
					w.applyTcld(p)
				}
				w.tcld = nil
				w.markTcld()
			} else {
				w.tcStPending = false
				if r := w.cta.u.race; r != nil {
					r.tcWaitSt(w)
				}
			}
		}
		return nil
	}
}

// checkTcld completes the pending tcgen05.ld destinations an instruction
// reads or writes before tcgen05.wait::ld. A read of a destination
// register is a data dependence that ptxas honours (it waits for that
// register; CUTLASS's sm100 epilogues read tcgen05.ld results with no
// tcgen05.wait::ld and ptxas 13.0 says nothing), so the register gets the
// loaded value there. A load is complete once every destination has been
// read this way or tcgen05.wait::ld ran; what wait::ld guards is the
// TMEM: see tcArrive.
func (w *Warp) checkTcld(in *Inst, m uint32) bool {
	if in.PTX.Opcode == "tcgen05.wait::ld" {
		return true
	}
	for i := range in.src {
		if o := &in.src[i]; o.K == oReg && int(o.R) < len(w.tcldPending) && w.tcldPending[o.R] > 0 {
			if p := w.tcldOf(o.R); p != nil && !p.noted {
				p.noted = true
				mach := w.cta.u.m
				mach.hazard(Hazard{Kind: HzTcgenLdRead, Severity: SevNote, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
					Msg:     fmt.Sprintf("reads %s, a destination of a tcgen05.ld, before tcgen05.wait::ld", w.regName(o.R)),
					Detail:  "the ISA makes the destinations defined at tcgen05.wait::ld; ptxas waits for each register at its first use, and CUTLASS's sm100 epilogues read the values this way (wait::ld only before releasing the TMEM). The simulator delivers the loaded value here",
					Related: mach.Prog.pos(p.in)})
			}
			w.consumeTcld(o.R)
		}
	}
	for i := range in.dst {
		if o := &in.dst[i]; o.K == oReg && int(o.R) < len(w.tcldPending) && w.tcldPending[o.R] > 0 {
			w.consumeTcld(o.R)
		}
	}
	return true
}

// tcldOf returns the oldest pending load that writes register r.
func (w *Warp) tcldOf(r int32) *tcldPending {
	for i := range w.tcld {
		for k, pr := range w.tcld[i].regs {
			if pr == r && !w.tcld[i].done[k] {
				return &w.tcld[i]
			}
		}
	}
	return nil
}

// consumeTcld delivers the loaded value of register r (from every pending
// load that writes it, oldest first) and drops loads with nothing left.
func (w *Warp) consumeTcld(r int32) {
	out := w.tcld[:0]
	for _, p := range w.tcld {
		for k, pr := range p.regs {
			if pr == r && !p.done[k] {
				dst := w.reg(r)
				forLanes(p.mask, func(l int) { dst[l] = p.vals[k][l] })
				p.done[k] = true
				p.left--
				if tr := w.cta.u.m.trace; tr != nil {
					tr.regs(w, []int32{r}, w.r)
				}
			}
		}
		if p.left > 0 {
			out = append(out, p)
		}
	}
	w.tcld = out
	w.markTcld()
}

// cp / shift ------------------------------------------------------------------------

// tcgen05.cp copies a matrix from shared memory (described by a
// shared-memory descriptor, K-major, no transpose) into TMEM at taddr.
// Shapes (PTX ISA 9.7.16.8.x), rows × bits per row:
//
//	.128x256b, .128x128b   row r → lane r
//	.4x256b                row r → lane r
//	.64x128b.warpx2::02_13 rows 0-31 → lane quarters 0 and 2, rows 32-63 → 1 and 3
//	.64x128b.warpx2::01_23 rows 0-31 → lane quarters 0 and 1, rows 32-63 → 2 and 3
//	.32x128b.warpx4        row r → lane r of every quarter (32q + r)
//
// With .cta_group::2 each CTA of the pair copies from its own shared
// memory (the same descriptor address) into its own TMEM.
// Decompression (.b8x16.b6x16_p32, .b8x16.b4x16_p64) widens 6- and 4-bit
// source elements into bytes: the source is in the padded formats the
// names give (and TMA's 16U6_ALIGN16B and 16U4_ALIGN16B write), every 16
// bytes holding 16 elements packed from bit 0 (12 bytes of 6-bit ones, then
// 4 bytes of padding; 8 bytes of 4-bit ones, then 8), so a row takes as
// many bytes in shared memory as in TMEM; each element lands in the low
// bits of its byte. Not hardware-verified.
type tcCpShape struct {
	rows, bytesPerRow int
	dest              func(r int) []int // the TMEM lanes (relative to taddr) row r goes to
}

func tcCpShapeOf(x *ptx.Instruction) (tcCpShape, error) {
	one := func(r int) []int { return []int{r} }
	switch {
	case x.Has("128x256b"):
		return tcCpShape{128, 32, one}, nil
	case x.Has("128x128b"):
		return tcCpShape{128, 16, one}, nil
	case x.Has("4x256b"):
		return tcCpShape{4, 32, one}, nil
	case x.Has("64x128b") && x.Has("warpx2::02_13"):
		return tcCpShape{64, 16, func(r int) []int { q := r / 32; return []int{32*q + r%32, 32*(q+2) + r%32} }}, nil
	case x.Has("64x128b") && x.Has("warpx2::01_23"):
		return tcCpShape{64, 16, func(r int) []int { q := 2 * (r / 32); return []int{32*q + r%32, 32*(q+1) + r%32} }}, nil
	case x.Has("32x128b") && x.Has("warpx4"):
		return tcCpShape{32, 16, func(r int) []int { return []int{r, 32 + r, 64 + r, 96 + r} }}, nil
	}
	return tcCpShape{}, fmt.Errorf("tcgen05.cp: unknown shape (want .128x256b, .128x128b, .4x256b, .64x128b.warpx2::02_13, .64x128b.warpx2::01_23 or .32x128b.warpx4)")
}

// tcCpInfo is a decoded tcgen05.cp.
type tcCpInfo struct {
	shape   tcCpShape
	srcBits int // the source elements' width: 8, or 6 and 4 with decompression
	pair    bool
}

// tcCp is one issued tcgen05.cp: the lane that issued it, the CTAs whose
// TMEM it writes and its source table.
type tcCp struct {
	ci        *tcCpInfo
	w         *Warp
	in        *Inst
	l         int
	lane, col int // the TMEM address
	ctas      []*CTA
	tab       *smemTable
	rd        []region
	op        *tmemOp // its TMEM writes for the happens-before checks (nil without --check)
}

func decTcCp(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	sh, err := tcCpShapeOf(x)
	if err != nil {
		return err
	}
	ci := &tcCpInfo{shape: sh, srcBits: 8, pair: x.ModPrefix("cta_group::") == "cta_group::2"}
	// Decompression: source elements of srcBits widened into bytes.
	switch {
	case x.Has("b6x16_p32"):
		ci.srcBits = 6
	case x.Has("b4x16_p64"):
		ci.srcBits = 4
	}
	a, err := d.memAddr(x.Operands[0])
	if err != nil {
		return err
	}
	s, err := d.val(x.Operands[1], ptx.B64)
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a, s}
	d.in.ext = ci
	d.in.fn = execTcCp
	return nil
}

func execTcCp(w *Warp, in *Inst, m uint32) {
	ci := in.ext.(*tcCpInfo)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.tcIssue(in, 1<<l, true)
		x := ci.start(w, in, l)
		if x == nil {
			return
		}
		x.op = w.newTmemOp(in, l, "tcgen05.cp")
		x.checkAlloc()
		if w.cta.u.race != nil {
			x.raceWrites()
		} else {
			x.checkReuse()
		}
		w.cta.u.issue(x.asyncOp())
	}
}

// start reads lane l's operands and resolves the source descriptor (nil
// on a fault).
func (ci *tcCpInfo) start(w *Warp, in *Inst, l int) *tcCp {
	c := w.cta
	sh := ci.shape
	x := &tcCp{ci: ci, w: w, in: in, l: l}
	x.lane, x.col = tmemAddr(w.src(&in.src[0], 0)[l] + uint64(in.src[0].Off))
	sd := w.src(&in.src[1], 1)[l]
	x.ctas = []*CTA{c}
	if ci.pair {
		p := c.peer()
		if p == nil {
			w.fault(in, l, "tcgen05.cp.cta_group::2: CTA %s has no peer CTA", fmtID(c.ID))
			return nil
		}
		x.ctas = append(x.ctas, p)
	}
	// The source: rows × bytesPerRow bytes (the decompressed formats are
	// padded to the same size).
	rl := max(sh.rows, 8)
	x.tab = smemOperand(sd, rl, sh.bytesPerRow, 8, false, true)
	if x.tab.err != nil {
		w.fault(in, l, "tcgen05.cp: source descriptor %#x: %v", sd, x.tab.err)
		return nil
	}
	for _, cc := range x.ctas {
		for _, ch := range x.tab.chunks {
			if int(ch)+16 > len(cc.Smem) {
				w.fault(in, l, "tcgen05.cp reads shared bytes beyond the CTA's shared memory")
				return nil
			}
			w.asyncReadCheck(in, cc, ch, 16, "tcgen05.cp")
			x.rd = append(x.rd, region{cc, ch, 16})
		}
	}
	return x
}

// cells visits every TMEM cell the copy writes in t, in order.
func (x *tcCp) cells(visit func(idx int) bool) {
	sh := x.ci.shape
	for r := 0; r < sh.rows; r++ {
		for _, dl := range sh.dest(r) {
			for k := 0; k < sh.bytesPerRow/4; k++ {
				if x.lane+dl >= tmemLanes || x.col+k >= tmemCols {
					continue
				}
				if !visit((x.lane+dl)*tmemCols + x.col + k) {
					return
				}
			}
		}
	}
}

// checkAlloc reports a destination that is not allocated.
func (x *tcCp) checkAlloc() {
	n := x.ci.shape.bytesPerRow / 4
	for _, cc := range x.ctas {
		if t := cc.tmemState(); !t.allocated(x.col, n) {
			h := Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: x.in.PC, CTA: cc.ID, Warp: x.w.ID, Lanes: 1 << x.l,
				Msg: fmt.Sprintf("tcgen05.cp writes TMEM columns [%d, %d), which are not allocated", x.col, x.col+n)}
			x.w.cta.u.m.freedCause(t, x.col, n, &h)
			x.w.cta.u.m.hazard(h)
		}
	}
}

// checkReuse reports TMEM that an in-flight MMA of another thread still
// reads (its scale factors or A operand), as the schedule exposes it
// (without --check; raceWrites decides from the order).
func (x *tcCp) checkReuse() {
	c, w, l := x.w.cta, x.w, x.l
	key := int32(c.Linear*1024 + 32*w.ID + l)
	for _, cc := range x.ctas {
		t := cc.tmemState()
		x.cells(func(idx int) bool {
			if t.pendingR[idx] > 0 && t.pendingRBy[idx] != key {
				c.u.m.hazard(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: x.in.PC, CTA: cc.ID, Warp: w.ID, Lanes: 1 << l,
					Msg:    fmt.Sprintf("tcgen05.cp overwrites TMEM (lane %d, column %d) that an in-flight tcgen05.mma still reads (its scale factors or A operand)", idx/tmemCols, idx%tmemCols),
					Detail: "tcgen05.cp and tcgen05.mma issued by one thread run in order, but an MMA issued by another thread is only done once its tcgen05.commit mbarrier phase completes: wait for it before refilling the MMA's TMEM operands"})
				return false
			}
			return true
		})
	}
}

// raceWrites checks the copy against the operations that access the same
// TMEM and records it as the cells' last writer: another thread's MMA or
// copy of the cells must be complete for this thread (its commit's phase),
// a tcgen05.st ordered before it.
func (x *tcCp) raceWrites() {
	u := x.w.cta.u
	w := x.w
	e := epoch{slot: int32(w.uid), clock: u.race.vc[w.uid][w.uid], pc: int32(x.in.PC)}
	key := x.op.key
	reported := false
	for _, cc := range x.ctas {
		t := cc.tmemState()
		x.cells(func(idx int) bool {
			if cs := t.writeCheck(w, key, idx, "tcgen05.cp"); len(cs) > 0 && !reported {
				// a copy over another copy's data that an MMA reads is
				// one conflict: the refill is not ordered after the
				// thread whose copy and MMA it overwrites
				reported = true
				x.reportConflict(cc, idx, cs[len(cs)-1].h, cs[len(cs)-1].op)
			}
			if !reported {
				if o := t.writtenBy[idx]; t.asyncW[idx] == nil && o.slot >= 0 && !u.race.ordered(o, w.uid) {
					reported = true
					u.m.hazard(Hazard{Kind: HzTmemRace, Severity: SevError, PC: x.in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << x.l,
						Msg: fmt.Sprintf("tcgen05.cp writes TMEM of CTA %s (lane %d, column %d) that %s also wrote with tcgen05.st, with no synchronization between the two writes",
							fmtID(cc.ID), idx/tmemCols, idx%tmemCols, u.race.slotName(o.slot)),
						Detail:  "which write lands last is undefined: order the copy after the store (tcgen05.wait::st, a barrier)",
						Related: u.m.Prog.pos(&u.m.Prog.Insts[o.pc])})
				}
			}
			t.prevWrittenBy[idx] = t.writtenBy[idx]
			t.writtenBy[idx] = e
			t.noteStore(idx, 0)
			t.setAsyncWrite(idx, x.op)
			return true
		})
	}
}

// reportConflict reports the copy's conflict h with operation o over
// cell idx of cc. Two copies of different threads into the same TMEM that
// nothing orders are one race whichever runs first; it is reported at the
// copy later in the program (the refill of an operand the earlier one
// filled), so that the report does not depend on the schedule.
func (x *tcCp) reportConflict(cc *CTA, idx int, h *Hazard, o *tmemOp) {
	mach := x.w.cta.u.m
	if t := o.wrongWait(x.w, x.in, 1<<x.l); t != nil {
		x.w.cta.u.race.reportRoot(t)
		return
	}
	h.Kind = HzTcgenInFlight
	if o.what == "tcgen05.cp" {
		h.Kind = HzTmemRace
		h.Msg = fmt.Sprintf("two tcgen05.cp of different threads write TMEM of CTA %s (lane %d, column %d), and nothing orders one after the other's completion", fmtID(cc.ID), idx/tmemCols, idx%tmemCols)
		h.Detail = "which copy lands last is undefined: the refill must wait for the phase of the mbarrier that the first copy's consumer (the MMA that reads it) commits to"
	}
	h.PC, h.CTA, h.Warp, h.Lanes = x.in.PC, x.w.cta.ID, x.w.ID, 1<<x.l
	if o.what == "tcgen05.cp" && int(o.pc) > x.in.PC {
		h.PC, h.CTA, h.Warp, h.Lanes = int(o.pc), o.cta.ID, o.warp, 0
		h.Related = mach.Prog.pos(x.in)
		// the refill ran before this copy: a wait of its warp that
		// passed at once is the line to fix
		if ow := o.issuer(); ow != nil {
			if t := ow.earlyWait(int(o.pc), "tcgen05.cp", "tcgen05.cp", x.in.PC); t != nil {
				x.w.cta.u.race.reportRoot(t)
				return
			}
		}
	}
	mach.hazard(*h)
}

// asyncOp makes the operation the unit completes by schedule.
func (x *tcCp) asyncOp() *asyncOp {
	c, w, u := x.w.cta, x.w, x.w.cta.u
	sh := x.ci.shape
	op := &asyncOp{kind: akTcgenCp, cta: c, w: w, lane: x.l, tid: 32*w.ID + x.l, in: x.in, rd: x.rd,
		desc: fmt.Sprintf("%d rows × %d bytes → TMEM lane %d column %d", sh.rows, sh.bytesPerRow, x.lane, x.col)}
	if u.race != nil {
		op.issueVC = u.race.issueVC(w)
		chunks := make([]uint32, 0, len(x.tab.chunks))
		chunks = append(chunks, x.tab.chunks...)
		op.hbRead = u.race.asyncReadRegions(op.issueVC, x.in, c, w.ID, 1<<x.l, chunks, 0, 0, "tcgen05.cp", w)
		u.race.tcRead(c, op.tid, op.hbRead)
	}
	op.run = x.complete
	return op
}

// complete copies the rows (widening decompressed elements into bytes)
// into every CTA's TMEM.
func (x *tcCp) complete(op *asyncOp) {
	sh, srcBits, tab := x.ci.shape, x.ci.srcBits, x.tab
	n := sh.bytesPerRow
	for _, cc := range x.ctas {
		t := cc.tmemState()
		for r := 0; r < sh.rows; r++ {
			row := make([]byte, n)
			for e := 0; e < n; e++ {
				if srcBits == 8 {
					row[e] = cc.Smem[tab.addrs[r*n+e]/8]
					continue
				}
				// element e%16 of the 16-byte chunk e/16, srcBits bits from
				// bit (e%16)·srcBits, little-endian bit order
				var v byte
				for b := 0; b < srcBits; b++ {
					bit := (e%16)*srcBits + b
					ba := tab.addrs[r*n+16*(e/16)+bit/8] + uint32(bit%8)
					v |= (cc.Smem[ba/8] >> (ba % 8) & 1) << b
				}
				row[e] = v
			}
			for _, dl := range sh.dest(r) {
				for k := 0; k < sh.bytesPerRow/4; k++ {
					if x.lane+dl < tmemLanes && x.col+k < tmemCols {
						idx := (x.lane+dl)*tmemCols + x.col + k
						t.cells[idx] = uint32(row[4*k]) | uint32(row[4*k+1])<<8 | uint32(row[4*k+2])<<16 | uint32(row[4*k+3])<<24
						t.written[idx] = true
					}
				}
			}
		}
	}
}

func decTcShift(d *decoder) error {
	d.c.p.hasTcgen05 = true
	a, err := d.memAddr(d.x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		c := w.cta
		t := c.tmemState()
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			w.tcIssue(in, 1<<l, true)
			lane, col := tmemAddr(w.src(&in.src[0], 0)[l] + uint64(in.src[0].Off))
			op := &asyncOp{kind: akTcgenCp, cta: c, w: w, lane: l, tid: 32*w.ID + l, in: in, desc: "tcgen05.shift.down"}
			op.run = func(op *asyncOp) {
				// 32-byte rows (8 columns) move down one lane; the last is lost.
				for ln := tmemLanes - 1; ln > lane; ln-- {
					for cc := 0; cc < 8 && col+cc < tmemCols; cc++ {
						t.cells[ln*tmemCols+col+cc] = t.cells[(ln-1)*tmemCols+col+cc]
					}
				}
			}
			c.u.issue(op)
		}
	}
	return nil
}
