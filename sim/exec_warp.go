package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Fences, register reallocation and the warp-level operations: elect,
// activemask, vote, shfl, match, redux.

// fences -------------------------------------------------------------------------

func decFence(d *decoder) error {
	x := d.x
	if x.Has("proxy") && x.Has("async") || x.Has("proxy") && x.ModPrefix("async") != "" {
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			if r := w.cta.u.race; r != nil {
				r.proxyFence(w)
			}
			w.cta.u.proxyFence(w)
		}
		return nil
	}
	if x.Has("mbarrier_init") {
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			if r := w.cta.u.race; r != nil {
				r.mbarInitFence(w)
			}
		}
		return nil
	}
	return decNop(d)
}

// setmaxnreg ----------------------------------------------------------------------

func decSetmaxnreg(d *decoder) error {
	im, ok := d.x.Operands[0].(*ptx.Imm)
	if !ok {
		return fmt.Errorf("setmaxnreg: the count must be an immediate")
	}
	n := int(im.Int())
	inc := d.x.Has("inc")
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		wg := w.cta.wgs[w.ID/4]
		mach := w.cta.u.m
		if n < 24 || n > 256 || n%8 != 0 {
			mach.hazard(Hazard{Kind: HzSetmaxnreg, Severity: SevError, Pos: mach.Prog.pos(in), PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
				Msg: fmt.Sprintf("setmaxnreg %d: the count must be a multiple of 8 from 24 to 256", n)})
		}
		cur := wg.maxnreg
		if cur == 0 {
			cur = n
		}
		if inc && n < cur || !inc && n > cur {
			dir := "inc"
			if !inc {
				dir = "dec"
			}
			mach.hazard(Hazard{Kind: HzSetmaxnreg, Severity: SevError, Pos: mach.Prog.pos(in), PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
				Msg: fmt.Sprintf("setmaxnreg.%s %d: the warpgroup holds %d registers per thread; .inc must not lower it and .dec must not raise it", dir, n, cur)})
		}
		wg.maxnregBy[w.ID%4] = n
		if wg.allSet() {
			wg.maxnreg = n
		}
	}
	return nil
}

// warp-level data exchange ------------------------------------------------------

func decElect(d *decoder) error {
	x := d.x
	dst, p, err := d.dstPair(x.Operands[0])
	if err != nil {
		return err
	}
	if _, pair := x.Operands[0].(*ptx.Pair); !pair && dst.K == oPred {
		dst, p = Opnd{K: oSink}, dst // elect.sync %p, mask: the predicate alone
	}
	mm, err := d.val(x.Operands[1], ptx.B32)
	if err != nil {
		return err
	}
	d.in.dst, d.in.src = []Opnd{dst, p}, []Opnd{mm}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		mask := uint32(w.src(&in.src[0], 0)[firstLane(m)])
		cand := m & mask
		leader := -1
		if cand != 0 {
			leader = bits.TrailingZeros32(cand)
		}
		if in.dst[0].K == oReg {
			dd := w.reg(in.dst[0].R)
			forLanes(m, func(l int) { dd[l] = uint64(uint32(leader)) })
		}
		var pv uint32
		if leader >= 0 {
			pv = 1 << leader
		}
		w.setPred(&in.dst[1], pv, m)
	}
	return nil
}

// decLaneValue decodes an instruction "op d, ..." that writes v(m), one
// value for every executing lane of the mask m, to d (activemask, and
// createpolicy, whose policy is opaque).
func decLaneValue(v func(m uint32) uint64) decodeFn {
	return func(d *decoder) error {
		dst, err := d.dstReg(d.x.Operands[0])
		if err != nil {
			return err
		}
		d.in.dst = []Opnd{dst}
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			dd, x := w.reg(in.dst[0].R), v(m)
			forLanes(m, func(l int) { dd[l] = x })
		}
		return nil
	}
}

// memberCheck reports lanes named in membermask that do not execute a
// .sync instruction.
func (w *Warp) memberCheck(in *Inst, m uint32, o *Opnd) uint32 {
	if o == nil {
		return m
	}
	mask := uint32(w.src(o, 2)[firstLane(m)])
	if missing := mask &^ m & w.valid &^ w.exited; missing != 0 {
		w.cta.u.m.hazard(Hazard{Kind: HzWarpSync, Severity: SevError, Pos: w.cta.u.m.Prog.pos(in), PC: in.PC,
			CTA: w.cta.ID, Warp: w.ID, Lanes: m,
			Msg: fmt.Sprintf("%s: membermask %#08x names lanes %#08x that do not execute this instruction here; the result is undefined", in.PTX.Opcode, mask, missing)})
	}
	return mask
}

func decVote(d *decoder) error {
	x := d.x
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	a, err := d.val(x.Operands[1], ptx.Pred)
	if err != nil {
		return err
	}
	d.in.dst, d.in.src = []Opnd{dst}, []Opnd{a}
	var mm *Opnd
	if len(x.Operands) > 2 {
		o, err := d.val(x.Operands[2], ptx.B32)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
		mm = &d.in.src[1]
	}
	_ = mm
	var mode string
	for _, m := range []string{"all", "any", "uni", "ballot"} {
		if x.Has(m) {
			mode = m
		}
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		var mo *Opnd
		if len(in.src) > 1 {
			mo = &in.src[1]
		}
		mask := w.memberCheck(in, m, mo) & m
		p := w.predVal(&in.src[0]) & mask
		switch mode {
		case "ballot":
			dd := w.reg(in.dst[0].R)
			forLanes(m, func(l int) { dd[l] = uint64(p) })
		case "all":
			w.setPred(&in.dst[0], boolAll(p == mask), m)
		case "any":
			w.setPred(&in.dst[0], boolAll(p != 0), m)
		case "uni":
			w.setPred(&in.dst[0], boolAll(p == 0 || p == mask), m)
		}
	}
	return nil
}

func decShfl(d *decoder) error {
	x := d.x
	dst, p, err := d.dstPair(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst, p}
	for _, e := range x.Operands[1:] {
		o, err := d.val(e, ptx.B32)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	var mode int
	switch {
	case x.Has("up"):
		mode = 0
	case x.Has("down"):
		mode = 1
	case x.Has("bfly"):
		mode = 2
	case x.Has("idx"):
		mode = 3
	}
	d.in.aux = mode
	d.in.fn = execShfl
	return nil
}

func execShfl(w *Warp, in *Inst, m uint32) {
	a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
	var mo *Opnd
	if len(in.src) > 3 {
		mo = &in.src[3]
	}
	w.memberCheck(in, m, mo)
	var out [32]uint64
	var pv uint32
	var badSrc uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		bval, cval := int(b[l]&31), int(c[l]&31)
		seg := int(c[l] >> 8 & 31)
		maxLane := (l & seg) | (cval &^ seg)
		minLane := l & seg
		var j int
		var ok bool
		switch in.aux {
		case 0:
			j = l - bval
			ok = j >= maxLane
		case 1:
			j = l + bval
			ok = j <= maxLane
		case 2:
			j = l ^ bval
			ok = j <= maxLane
		case 3:
			j = minLane | (bval &^ seg)
			ok = j <= maxLane
		}
		if !ok {
			j = l
		} else {
			pv |= 1 << l
		}
		if m>>j&1 == 0 {
			badSrc |= 1 << l
		}
		out[l] = a[j]
	}
	if badSrc != 0 {
		w.cta.u.m.hazard(Hazard{Kind: HzWarpSync, Severity: SevError, Pos: w.cta.u.m.Prog.pos(in), PC: in.PC,
			CTA: w.cta.ID, Warp: w.ID, Lanes: badSrc,
			Msg: fmt.Sprintf("shfl.sync: lanes %#08x read from lanes that do not execute the shuffle; their values are undefined", badSrc)})
	}
	if in.dst[0].K == oReg {
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) { dd[l] = out[l] & 0xFFFFFFFF })
	}
	w.setPred(&in.dst[1], pv, m)
}

func decMatch(d *decoder) error {
	x := d.x
	dst, p, err := d.dstPair(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst, p}
	t := d.in.typ
	for _, e := range x.Operands[1:] {
		o, err := d.val(e, t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	all := x.Has("all")
	mask := typeMask(t)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		mm := w.memberCheck(in, m, &in.src[1]) & m
		a := w.src(&in.src[0], 0)
		dd := w.reg(in.dst[0].R)
		if all {
			same := true
			first := a[firstLane(mm)] & mask
			forLanes(mm, func(l int) { same = same && a[l]&mask == first })
			r := uint64(0)
			if same {
				r = uint64(mm)
			}
			forLanes(m, func(l int) { dd[l] = r })
			w.setPred(&in.dst[1], boolAll(same), m)
			return
		}
		forLanes(m, func(l int) {
			var r uint32
			forLanes(mm, func(k int) {
				if a[k]&mask == a[l]&mask {
					r |= 1 << k
				}
			})
			dd[l] = uint64(r)
		})
	}
	return nil
}

func decRedux(d *decoder) error {
	x := d.x
	t := d.in.typ
	if err := d.alu(2, t); err != nil {
		return err
	}
	var op string
	for _, m := range []string{"add", "min", "max", "and", "or", "xor"} {
		if x.Has(m) {
			op = m
		}
	}
	nan, abs := x.Has("NaN"), x.Has("abs")
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		mm := w.memberCheck(in, m, &in.src[1]) & m
		a := w.src(&in.src[0], 0)
		var acc uint64
		first := true
		forLanes(mm, func(l int) {
			v := a[l] & 0xFFFFFFFF
			if t == ptx.F32 && abs {
				v &^= 0x80000000
			}
			if first {
				acc, first = v, false
				return
			}
			switch op {
			case "add":
				acc = (acc + v) & 0xFFFFFFFF
			case "and":
				acc &= v
			case "or":
				acc |= v
			case "xor":
				acc ^= v
			case "min", "max":
				switch t {
				case ptx.F32:
					if op == "min" {
						acc = uint64(minF32(uint32(acc), uint32(v), nan))
					} else {
						acc = uint64(maxF32(uint32(acc), uint32(v), nan))
					}
				case ptx.S32:
					x, y := int32(acc), int32(v)
					if op == "min" {
						acc = uint64(uint32(min(x, y)))
					} else {
						acc = uint64(uint32(max(x, y)))
					}
				default:
					if op == "min" {
						acc = min(acc, v)
					} else {
						acc = max(acc, v)
					}
				}
			}
		})
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) { dd[l] = acc })
	}
	return nil
}
