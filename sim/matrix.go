package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// ldmatrix / stmatrix / movmatrix, with the fragment layouts of the atom
// catalog (PTX ISA 9.7.14.5.15-17).

type matrixInfo struct {
	load     bool
	num      int
	key      catalog.Key    // the fragment atom
	lanes    [32][]fragCell // per lane: (register, half, tile row, tile col)
	addrRows []int          // lane → tile row whose address it supplies
	regs     []Opnd
}

func decLdStMatrix(load bool) decodeFn {
	return func(d *decoder) error {
		x := d.x
		if !x.Has("m8n8") || !x.Has("b16") {
			return refMatrixShape.errorf("%s with a shape other than .m8n8 .b16", x.Opcode)
		}
		num := 1
		switch {
		case x.Has("x2"):
			num = 2
		case x.Has("x4"):
			num = 4
		}
		key := matrixFragKey(x)
		atom, err := catalog.Find(key)
		if err != nil {
			return err
		}
		mi := &matrixInfo{load: load, num: num, key: key, addrRows: atom.AddrRows}
		for t := 0; t < 32; t++ {
			for v := 0; v < atom.TV.Values(); v++ {
				r, c := atom.TV.Coord(t, v)
				mi.lanes[t] = append(mi.lanes[t], fragCell{reg: int32(v / 2), half: uint8(v % 2), row: int32(r), col: int32(c)})
			}
		}
		ai, ri := 1, 0
		if !load {
			ai, ri = 0, 1
		}
		a, err := d.memAddr(x.Operands[ai])
		if err != nil {
			return err
		}
		d.in.src = []Opnd{a}
		if mi.regs, err = d.fragRegs(x.Operands[ri], load); err != nil {
			return err
		}
		if load {
			d.in.dst = append(d.in.dst, mi.regs...)
		} else {
			d.in.src = append(d.in.src, mi.regs...)
		}
		if len(mi.regs) != num {
			return fmt.Errorf("%s .x%d needs %d registers, has %d", x.Opcode, num, num, len(mi.regs))
		}
		if d.in.space == ptx.SpaceNone {
			d.in.space = ptx.SpaceNone
		}
		d.in.ext = mi
		d.in.fn = execMatrix
		return nil
	}
}

// fragRegs decodes the register vector of a fragment load or store: for a
// load its elements are destinations, for a store b32 sources.
func (d *decoder) fragRegs(e ptx.Expr, load bool) ([]Opnd, error) {
	var regs []Opnd
	for _, e := range vecElems(e) {
		var o Opnd
		var err error
		if load {
			o, err = d.dstReg(e)
		} else {
			o, err = d.val(e, ptx.B32)
		}
		if err != nil {
			return nil, err
		}
		regs = append(regs, o)
	}
	return regs, nil
}

func execMatrix(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*matrixInfo)
	mach := w.cta.u.m
	if live := w.valid &^ w.exited; m != live {
		mach.hazard(Hazard{Kind: HzWarpAligned, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
			Msg: fmt.Sprintf("%s is .sync.aligned but only lanes %#08x execute it", in.PTX.Opcode, m)})
	}
	// Row addresses come from the lanes named by AddrRows.
	rows := 8 * mi.num
	rowAddr := make([]uint64, rows)
	a := w.src(&in.src[0], 0)
	var addrs [32]uint64
	for l, r := range mi.addrRows {
		if r < 0 {
			continue
		}
		if m>>l&1 == 0 {
			w.fault(in, l, "%s: lane %d supplies the address of row %d but does not execute the instruction", in.PTX.Opcode, l, r)
			return
		}
		rowAddr[r] = a[l] + uint64(in.src[0].Off)
		addrs[l] = rowAddr[r]
		if rowAddr[r]%16 != 0 {
			w.fault(in, l, "%s: row address %#x is not 16-byte aligned", in.PTX.Opcode, rowAddr[r])
			return
		}
	}
	rowMem := make([][]byte, rows)
	for r := 0; r < rows; r++ {
		l := 0
		for k, rr := range mi.addrRows {
			if rr == r {
				l = k
			}
		}
		b := w.mem(in, in.space, rowAddr[r], 16, l, !mi.load)
		if b == nil {
			return
		}
		rowMem[r] = b
		w.smemHook(in, l, in.space, rowAddr[r], 16, !mi.load)
	}
	if st := mach.stats; st != nil {
		var mask uint32
		for l, r := range mi.addrRows {
			if r >= 0 {
				mask |= 1 << l
			}
		}
		st.memAccess(w, in, mask, &addrs, 16)
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		for _, f := range mi.lanes[l] {
			b := rowMem[f.row][2*f.col : 2*f.col+2]
			o := &mi.regs[f.reg]
			sh := 16 * uint(f.half)
			if mi.load {
				if o.K != oReg {
					continue
				}
				r := w.reg(o.R)
				r[l] = r[l]&^(0xFFFF<<sh) | le(b)<<sh
			} else {
				putLE(b, w.src(o, 1)[l]>>sh&0xFFFF)
			}
		}
	}
}

func decMovmatrix(d *decoder) error {
	if err := d.alu(1, ptx.B32); err != nil {
		return err
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a := w.src(&in.src[0], 0)
		var mat [8][8]uint64
		for l := 0; l < 32; l++ {
			r, c := l/4, 2*(l%4)
			mat[r][c], mat[r][c+1] = a[l]&0xFFFF, a[l]>>16&0xFFFF
		}
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			r, c := l/4, 2*(l%4)
			dd[l] = mat[c][r] | mat[c+1][r]<<16
		})
	}
	return nil
}

// register-protocol checks ---------------------------------------------------------

// checkInflight reports an ordinary instruction that touches registers an
// in-flight wgmma owns (or tcgen05.ld destinations not yet waited for). It
// returns false when the warp must wait (the modelled ptxas repair).
func (w *Warp) checkInflight(in *Inst, m uint32) bool {
	if in.class == clsWgmma {
		return true
	}
	mach := w.cta.u.m
	if w.inflightAny {
		var reg int32 = -1
		write := false
		for i := range in.src {
			o := &in.src[i]
			if o.K == oReg && int(o.R) < len(w.inflight) && w.inflight[o.R] > 0 {
				reg = o.R
				break
			}
		}
		if reg < 0 {
			for i := range in.dst {
				o := &in.dst[i]
				if o.K == oReg && int(o.R) < len(w.inflight) && w.inflight[o.R] > 0 {
					reg, write = o.R, true
					break
				}
			}
		}
		if reg >= 0 {
			by := w.inflightBy[reg]
			wi := by.ext.(*wgmmaInfo)
			acc := false
			for _, r := range wi.dregs {
				if r == reg {
					acc = true
				}
			}
			h := Hazard{Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m, Related: mach.Prog.pos(by)}
			switch {
			case acc && !write:
				h.Kind, h.PTXAS = HzWgmmaAccRead, ptxasC7517
				h.Msg = fmt.Sprintf("reads %s, an accumulator of a wgmma.mma_async that no wgmma.wait_group has covered yet", w.regName(reg))
				wg := w.cta.wgs[w.ID/4]
				if cause, fix, ok := wg.uncoveredFix(wg.inflightOp(w, by), w, in.PC); ok {
					h.Cause = mach.Prog.pos(&mach.Prog.Insts[cause])
					h.Msg = fmt.Sprintf("reads %s, an accumulator of a wgmma.mma_async: %s", w.regName(reg), fix)
				}
			case acc:
				h.Kind, h.PTXAS = HzWgmmaAccWrite, ptxasC7515
				h.Msg = fmt.Sprintf("writes %s, an accumulator of a wgmma.mma_async that no wgmma.wait_group has covered yet", w.regName(reg))
			case write:
				h.Kind, h.PTXAS = HzWgmmaAWrite, ptxasC7513
				h.Msg = fmt.Sprintf("writes %s, an A-fragment register of an in-flight wgmma.mma_async", w.regName(reg))
			default:
				h.Kind, h.PTXAS = HzWgmmaAReadFlight, ptxasC7517
				h.Msg = fmt.Sprintf("reads %s, an A-fragment register of an in-flight wgmma.mma_async", w.regName(reg))
			}
			h.Detail = "until a wgmma.wait_group covers the wgmma, its accumulator and A registers belong to the tensor core; accessing them is undefined. The simulator then waits for the wgmma as ptxas's injected warpgroup.wait would"
			if w.retryPC != in.PC {
				mach.hazard(h)
			}
			wg := w.cta.wgs[w.ID/4]
			for _, op := range wg.allOps {
				if op != nil && op.in[w.ID%4] == by {
					op.reported = true
				}
			}
			if !wg.implicitWait(w) {
				w.block(waitInfo{kind: waitWgmma, wg: wg, n: -1})
				return false
			}
		}
	}
	if w.tcldAny {
		return w.checkTcld(in, m)
	}
	return true
}

// trackAccess records the last ordinary access of every register (for the
// missing-wgmma.fence check).
func (w *Warp) trackAccess(in *Inst) {
	n := w.fn.NumRegs
	if len(w.lastAccess) < n {
		la := make([]int64, n)
		for i := range la {
			la[i] = -1
		}
		copy(la, w.lastAccess)
		pc := make([]int32, n)
		copy(pc, w.lastAccessPC)
		w.lastAccess, w.lastAccessPC = la, pc
	}
	for i := range in.src {
		if o := &in.src[i]; o.K == oReg {
			w.lastAccess[o.R], w.lastAccessPC[o.R] = w.steps, int32(in.PC)
		}
	}
	for i := range in.dst {
		if o := &in.dst[i]; o.K == oReg {
			w.lastAccess[o.R], w.lastAccessPC[o.R] = w.steps, int32(in.PC)
		}
	}
}
