package sim

import (
	"fmt"
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
}

type tcldPending struct {
	regs []int32
	vals [][32]uint64
	mask uint32
	in   *Inst
}

func decTcLdSt(load bool) decodeFn {
	return func(d *decoder) error {
		d.c.p.hasTcgen05 = true
		x := d.x
		if x.Has("red") || x.Has("pack::16b") || x.Has("unpack::16b") {
			return fmt.Errorf("%s with .red, .pack::16b or .unpack::16b is not supported by the simulator", x.Opcode)
		}
		li := &tcLdInfo{load: load}
		li.key = tcLdStFragKey(x)
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
		regOp, addrOp := ops[0], ops[1]
		if !load {
			addrOp, regOp = ops[0], ops[len(ops)-1]
		}
		if li.li16x2() {
			im, ok := ops[2].(*ptx.Imm)
			if !load {
				im, ok = ops[1].(*ptx.Imm)
			}
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
		if len(li.regs) != atom.TV.Values() {
			return fmt.Errorf("%s .%s.x%d needs %d registers, has %d", x.Opcode, li.shape, li.num, atom.TV.Values(), len(li.regs))
		}
		d.in.src = []Opnd{li.addr}
		if load {
			d.in.dst = li.regs
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
	w.tcIssue(in, m)
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
				mach.hazard(Hazard{Kind: HzTmemLane, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
					Msg: fmt.Sprintf("warp %d (warp %d of its warpgroup) accesses TMEM lane %d; a warp can only reach lanes %d-%d (its lane quarter)", w.ID, q, lane, quarter, quarter+31)})
			}
		}
		if lane < 0 || lane >= tmemLanes || col < 0 || col >= tmemCols {
			return 0, false
		}
		if !t.used[col] && !reported {
			reported = true
			mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
				Msg: fmt.Sprintf("%s touches TMEM column %d, which is not allocated", in.PTX.Opcode, col)})
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
		p.vals = make([][32]uint64, len(li.regs))
		inflightReported := false
		cells(func(l int, f fragCell, idx int) {
			if t.pendingW[idx] > 0 && !inflightReported {
				inflightReported = true
				mach.hazard(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: m,
					Msg:    "tcgen05.ld reads TMEM that an in-flight tcgen05.mma still writes",
					Detail: "wait for the tcgen05.commit's mbarrier phase (then tcgen05.fence::after_thread_sync) before reading the accumulator"})
			}
			p.vals[f.reg][l] = uint64(t.cells[idx])
		})
		if mach.Opts.Schedule == Eager {
			// the values land now, but the registers stay undefined for
			// the checker until tcgen05.wait::ld
			w.applyTcld(p)
		}
		w.tcld = append(w.tcld, p)
		w.markTcld()
		return
	}
	cells(func(l int, f fragCell, idx int) {
		t.cells[idx] = uint32(w.src(&li.regs[f.reg], 1)[l])
		t.written[idx] = true
	})
}

// applyTcld writes a tcgen05.ld's results into the registers.
func (w *Warp) applyTcld(p tcldPending) {
	for k, r := range p.regs {
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
			}
		}
		return nil
	}
}

// checkTcld reports registers of a tcgen05.ld used before tcgen05.wait::ld.
func (w *Warp) checkTcld(in *Inst, m uint32) bool {
	if in.PTX.Opcode == "tcgen05.wait::ld" {
		return true
	}
	hit := int32(-1)
	for i := range in.src {
		if o := &in.src[i]; o.K == oReg && int(o.R) < len(w.tcldPending) && w.tcldPending[o.R] > 0 {
			hit = o.R
		}
	}
	write := false
	if hit < 0 {
		for i := range in.dst {
			if o := &in.dst[i]; o.K == oReg && int(o.R) < len(w.tcldPending) && w.tcldPending[o.R] > 0 {
				hit, write = o.R, true
			}
		}
	}
	if hit < 0 {
		return true
	}
	var by *Inst
	for _, p := range w.tcld {
		for _, r := range p.regs {
			if r == hit {
				by = p.in
			}
		}
	}
	mach := w.cta.u.m
	verb := "reads"
	if write {
		verb = "overwrites"
	}
	h := Hazard{Kind: HzTcgenWaitLd, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
		Msg:    fmt.Sprintf("%s %s, a destination of a tcgen05.ld, before tcgen05.wait::ld", verb, w.regName(hit)),
		Detail: "tcgen05.ld is asynchronous: its destination registers are undefined until tcgen05.wait::ld; the simulator keeps their old values until then"}
	if by != nil {
		h.Related = mach.Prog.pos(by)
	}
	mach.hazard(h)
	// Report once per load: forget the pending registers' marks.
	for i := range w.tcld {
		for _, r := range w.tcld[i].regs {
			if r == hit {
				w.applyTcld(w.tcld[i])
				w.tcld = append(w.tcld[:i], w.tcld[i+1:]...)
				w.markTcld()
				return true
			}
		}
	}
	return true
}

// cp / shift ------------------------------------------------------------------------

func decTcCp(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	var rows, bytesPerRow int
	switch {
	case x.Has("128x256b"):
		rows, bytesPerRow = 128, 32
	case x.Has("128x128b"):
		rows, bytesPerRow = 128, 16
	case x.Has("4x256b"):
		rows, bytesPerRow = 4, 32
	default:
		return fmt.Errorf("tcgen05.cp: only the 128x256b, 128x128b and 4x256b shapes are supported by the simulator")
	}
	if x.ModPrefix("warpx") != "" || x.Has("b8x16") {
		return fmt.Errorf("tcgen05.cp with .warpx or decompression is not supported by the simulator")
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
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		c := w.cta
		u := c.u
		t := c.tmemState()
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			w.tcIssue(in, 1<<l)
			lane, col := tmemAddr(w.src(&in.src[0], 0)[l] + uint64(in.src[0].Off))
			sd := w.src(&in.src[1], 1)[l]
			rl := rows
			if rows < 8 {
				rl = 8
			}
			tab := smemOperand(sd, rl, bytesPerRow, 8, false, true)
			if tab.err != nil {
				w.fault(in, l, "tcgen05.cp: source descriptor %#x: %v", sd, tab.err)
				return
			}
			var rd []region
			for _, ch := range tab.chunks {
				if int(ch)+16 > len(c.Smem) {
					w.fault(in, l, "tcgen05.cp reads shared bytes beyond the CTA's shared memory")
					return
				}
				w.asyncReadCheck(in, c, ch, 16, "tcgen05.cp")
				rd = append(rd, region{c, ch, 16})
			}
			op := &asyncOp{kind: akTcgenCp, cta: c, w: w, lane: l, tid: 32*w.ID + l, in: in, rd: rd,
				desc: fmt.Sprintf("%d rows × %d bytes → TMEM lane %d column %d", rows, bytesPerRow, lane, col)}
			if u := c.u; u.race != nil {
				op.issueVC = u.race.issueVC(w)
				chunks := make([]uint32, 0, len(rd))
				for _, r := range rd {
					chunks = append(chunks, r.off)
				}
				op.hbRead = u.race.asyncReadRegions(op.issueVC, in, c, w.ID, 1<<l, chunks, 0, 0, "tcgen05.cp", w)
				u.race.tcRead(c, op.tid, op.hbRead)
			}
			for r := 0; r < rows && lane+r < tmemLanes; r++ {
				for cc := 0; cc < bytesPerRow/4 && col+cc < tmemCols; cc++ {
					t.written[(lane+r)*tmemCols+col+cc] = true
				}
			}
			op.run = func(op *asyncOp) {
				for r := 0; r < rows; r++ {
					for cc := 0; cc < bytesPerRow/4; cc++ {
						var v uint32
						for b := 0; b < 4; b++ {
							ba := tab.addrs[r*bytesPerRow+4*cc+b]
							v |= uint32(c.Smem[ba/8]) << (8 * b)
						}
						if lane+r < tmemLanes && col+cc < tmemCols {
							t.cells[(lane+r)*tmemCols+col+cc] = v
						}
					}
				}
			}
			u.issue(op)
		}
	}
	return nil
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
			w.tcIssue(in, 1<<l)
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
