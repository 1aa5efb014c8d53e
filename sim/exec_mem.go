package sim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

func decNop(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {}
	return nil
}

// memInfo describes a load or store.
type memInfo struct {
	esize int      // bytes per element
	n     int      // elements (vector width)
	ext   []extend // per destination: how to widen into the register
}

type extend struct {
	signed bool
	bits   int // element bits
	reg    int // register bits
	mask   uint64
}

// addrOpnd fixes up the space of an address that names a frame symbol.
func (d *decoder) memAddr(e ptx.Expr) (Opnd, error) {
	a, err := d.addr(e)
	if err != nil {
		return a, err
	}
	if a.K == oFrame && (d.in.space.Base() == ptx.SpaceParam || d.in.space == ptx.SpaceNone) {
		d.in.space = ptx.SpaceLocal
	}
	return a, nil
}

// dstAddr decodes the leading operands of a memory instruction: with dst a
// destination register first, then the address, which becomes src[0]. It
// returns the operands that follow the address.
func (d *decoder) dstAddr(ops []ptx.Expr, dst bool) ([]ptx.Expr, error) {
	if dst {
		o, err := d.dstReg(ops[0])
		if err != nil {
			return nil, err
		}
		d.in.dst = []Opnd{o}
		ops = ops[1:]
	}
	a, err := d.memAddr(ops[0])
	if err != nil {
		return nil, err
	}
	d.in.src = []Opnd{a}
	return ops, nil
}

func elemBytes(t ptx.Type) int {
	b := t.Bits() / 8
	if b == 0 {
		b = 1
	}
	return b
}

func decLd(d *decoder) error {
	x := d.x
	t := d.in.typ
	if len(x.Operands) < 2 {
		return fmt.Errorf("ld: want 2 operands")
	}
	a, err := d.memAddr(x.Operands[1])
	if err != nil {
		return err
	}
	mi := &memInfo{esize: elemBytes(t), n: max(d.in.vec, 1)}
	elems := vecElems(x.Operands[0])
	if len(elems) != mi.n {
		return fmt.Errorf("ld: %d destinations for .v%d", len(elems), mi.n)
	}
	for _, e := range elems {
		o, err := d.dstReg(e)
		if err != nil {
			return err
		}
		d.in.dst = append(d.in.dst, o)
		rb := d.regType(o).Bits()
		if o.K == oPred {
			rb = 1
		}
		ex := extend{signed: isSigned(t), bits: t.Bits(), reg: rb, mask: typeMask(d.regType(o))}
		if t.Bits() >= 64 || rb == 0 {
			ex.mask = ^uint64(0)
		}
		mi.ext = append(mi.ext, ex)
	}
	d.in.src = []Opnd{a}
	d.in.ext = mi
	d.in.fn = execLd
	if x.Has("volatile") {
		d.in.flags |= fVolatile
	}
	return nil
}

func (ex extend) apply(v uint64) uint64 {
	if ex.signed && ex.bits < 64 && ex.reg > ex.bits {
		v = uint64(sext(v, ex.bits))
	}
	return v & ex.mask
}

// memLanes is the lane loop of ld and st: for each lane of m it resolves the
// address (src[0] plus its offset) to total bytes of in.space, tells the
// shared-memory hooks and the statistics, and hands the bytes to body. It
// stops at the first lane whose access faults.
func (w *Warp) memLanes(in *Inst, m uint32, total int, write bool, body func(l int, b []byte)) {
	a := w.src(&in.src[0], 0)
	off := uint64(in.src[0].Off)
	st := w.cta.u.m.stats
	var addrs *[32]uint64
	if st != nil {
		addrs = &w.scratch[1]
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		addr := a[l] + off
		if addrs != nil {
			addrs[l] = addr
		}
		b := w.mem(in, in.space, addr, total, l, write)
		if b == nil {
			return
		}
		if w.cta.u.shadow {
			w.smemHook(in, l, in.space, addr, total, write)
		}
		body(l, b)
	}
	if st != nil {
		st.memAccess(w, in, m, addrs, total)
	}
}

func execLd(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*memInfo)
	prov := w.cta.u.race != nil && w.cta.u.m.Prog.hasWgmma || w.cta.u.race != nil && w.cta.u.m.Prog.hasTcgen05
	w.memLanes(in, m, mi.esize*mi.n, false, func(l int, b []byte) {
		if prov {
			defer func() {
				addr := w.src(&in.src[0], 0)[l] + uint64(in.src[0].Off)
				if ms, a := resolve(in.space, addr); ms == msGlobal {
					w.noteLoad(in, l, a, mi)
				}
			}()
		}
		for k := 0; k < mi.n; k++ {
			dst := &in.dst[k]
			if dst.K == oSink {
				continue
			}
			eb := b[k*mi.esize : (k+1)*mi.esize]
			if mi.esize == 16 {
				w.reg(dst.R)[l] = le(eb[:8])
				w.reg(dst.R + 1)[l] = le(eb[8:])
				continue
			}
			v := le(eb)
			if dst.K == oPred {
				w.setPred(dst, boolMask(v != 0, l), 1<<l)
				continue
			}
			w.reg(dst.R)[l] = mi.ext[k].apply(v)
		}
	})
}

func boolMask(b bool, l int) uint32 {
	if b {
		return 1 << l
	}
	return 0
}

func decSt(d *decoder) error {
	x := d.x
	t := d.in.typ
	if len(x.Operands) < 2 {
		return fmt.Errorf("st: want 2 operands")
	}
	a, err := d.memAddr(x.Operands[0])
	if err != nil {
		return err
	}
	mi := &memInfo{esize: elemBytes(t), n: max(d.in.vec, 1)}
	elems := vecElems(x.Operands[1])
	if len(elems) != mi.n {
		return fmt.Errorf("st: %d sources for .v%d", len(elems), mi.n)
	}
	d.in.src = []Opnd{a}
	for _, e := range elems {
		o, err := d.val(e, t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	d.in.ext = mi
	d.in.fn = execSt
	return nil
}

func execSt(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*memInfo)
	prov := w.prov != nil
	w.memLanes(in, m, mi.esize*mi.n, true, func(l int, b []byte) {
		if prov {
			if c, off, ok := w.sharedOffset(in.space, w.src(&in.src[0], 0)[l]+uint64(in.src[0].Off)); ok {
				w.noteStore(in, l, c, off, mi)
			}
		}
		for k := 0; k < mi.n; k++ {
			o := &in.src[1+k]
			eb := b[k*mi.esize : (k+1)*mi.esize]
			if mi.esize == 16 {
				putLE(eb[:8], w.reg(o.R)[l])
				putLE(eb[8:], w.reg(o.R + 1)[l])
				continue
			}
			putLE(eb, w.src(o, 2)[l])
		}
	})
}

// atomics -------------------------------------------------------------------

type atomInfo struct {
	op    string
	t     ptx.Type
	esize int
	red   bool
}

func decAtom(red bool) decodeFn {
	return func(d *decoder) error {
		x := d.x
		t := d.in.typ
		if d.in.vec > 0 {
			return refVectorAtomic.errorf("%s.v%d (a vector atomic)", x.Opcode, d.in.vec)
		}
		ai := &atomInfo{t: t, esize: elemBytes(t), red: red}
		for _, m := range x.Mods {
			switch m.Name {
			case "and", "or", "xor", "exch", "add", "inc", "dec", "min", "max", "cas":
				ai.op = m.Name
			}
		}
		if ai.op == "" {
			return fmt.Errorf("%s: no operation", x.Opcode)
		}
		if t == ptx.B128 {
			return refAtomic128.errorf("%s.b128 (a 128-bit atomic)", x.Opcode)
		}
		ops, err := d.dstAddr(x.Operands, !red)
		if err != nil {
			return err
		}
		n := 1
		if ai.op == "cas" {
			n = 2
		}
		for i := 1; i <= n && i < len(ops); i++ {
			o, err := d.val(ops[i], t)
			if err != nil {
				return err
			}
			d.in.src = append(d.in.src, o)
		}
		d.in.ext = ai
		d.in.fn = execAtom
		return nil
	}
}

func execAtom(w *Warp, in *Inst, m uint32) {
	ai := in.ext.(*atomInfo)
	mach := w.cta.u.m
	a := w.src(&in.src[0], 0)
	off := uint64(in.src[0].Off)
	b := w.src(&in.src[1], 1)
	var c *[32]uint64
	if len(in.src) > 2 {
		c = w.src(&in.src[2], 2)
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		addr := a[l] + off
		ms, _ := resolve(in.space, addr)
		locked := mach.parallel && ms == msGlobal
		if locked {
			mach.atomicMu.Lock()
		}
		mem := w.mem(in, in.space, addr, ai.esize, l, true)
		if mem == nil {
			if locked {
				mach.atomicMu.Unlock()
			}
			return
		}
		if w.cta.u.shadow {
			w.atomicAccess = true
			w.smemHook(in, l, in.space, addr, ai.esize, true)
			w.atomicAccess = false
		}
		old := le(mem)
		var cv uint64
		if c != nil {
			cv = c[l]
		}
		nv := atomOp(ai, old, b[l], cv)
		putLE(mem, nv)
		if locked {
			mach.atomicMu.Unlock()
		}
		if !ai.red && in.dst[0].K == oReg {
			w.reg(in.dst[0].R)[l] = old
		}
	}
}

func atomOp(ai *atomInfo, old, b, c uint64) uint64 {
	t := ai.t
	mask := typeMask(t)
	n := t.Bits()
	switch ai.op {
	case "and":
		return old & b & mask
	case "or":
		return (old | b) & mask
	case "xor":
		return (old ^ b) & mask
	case "exch":
		return b & mask
	case "cas":
		if old&mask == b&mask {
			return c & mask
		}
		return old
	case "inc":
		if old&mask >= b&mask {
			return 0
		}
		return (old + 1) & mask
	case "dec":
		if old&mask == 0 || old&mask > b&mask {
			return b & mask
		}
		return (old - 1) & mask
	case "add":
		switch t {
		case ptx.F32:
			return uint64(addF32(uint32(old), uint32(b), 1))
		case ptx.F64:
			return f64bits(f64frombits(old) + f64frombits(b))
		case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
			e, mb, lanes := halfInfo(t)
			var out uint64
			for k := 0; k < lanes; k++ {
				x := halfToF64(old>>(16*k)&0xFFFF, e, mb)
				y := halfToF64(b>>(16*k)&0xFFFF, e, mb)
				out |= f64ToHalf(x+y, e, mb) << (16 * k)
			}
			return out
		}
		return (old + b) & mask
	case "min", "max":
		isMin := ai.op == "min"
		switch {
		case t == ptx.F32:
			if isMin {
				return uint64(minF32(uint32(old), uint32(b), false))
			}
			return uint64(maxF32(uint32(old), uint32(b), false))
		case t == ptx.F64:
			x, y := f64frombits(old), f64frombits(b)
			if isMin {
				return f64bits(math.Min(x, y))
			}
			return f64bits(math.Max(x, y))
		case isSigned(t):
			x, y := sext(old, n), sext(b, n)
			if isMin {
				return uint64(min(x, y)) & mask
			}
			return uint64(max(x, y)) & mask
		}
		if isMin {
			return min(old&mask, b&mask)
		}
		return max(old&mask, b&mask)
	}
	return old
}

// address conversions -------------------------------------------------------

func spaceWindow(sp ptx.Space) (uint64, bool) {
	switch sp.Base() {
	case ptx.SpaceShared:
		return SharedWindow, true
	case ptx.SpaceLocal:
		return LocalWindow, true
	case ptx.SpaceGlobal:
		return 0, true
	case ptx.SpaceParam:
		return 0, true // param-space addresses are already in the window
	case ptx.SpaceConst:
		return 0, true
	}
	return 0, false
}

func decCvta(d *decoder) error {
	x := d.x
	to := x.Has("to")
	sp := x.Space()
	win, ok := spaceWindow(sp)
	if !ok {
		return fmt.Errorf("cvta: unknown state space")
	}
	t := d.in.typ
	mask := typeMask(t)
	if to {
		return d.set1(t, func(a uint64) uint64 {
			if win != 0 && a >= win && a < win+windowSize {
				return (a - win) & mask
			}
			if win == 0 {
				return a & mask
			}
			// not in the window: the result is undefined; keep the bits
			return (a - win) & mask
		})
	}
	return d.set1(t, func(a uint64) uint64 { return (a + win) & mask })
}

func decIsspacep(d *decoder) error {
	x := d.x
	sp := x.Space()
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	a, err := d.val(x.Operands[1], ptx.U64)
	if err != nil {
		return err
	}
	d.in.dst, d.in.src = []Opnd{dst}, []Opnd{a}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		v := w.src(&in.src[0], 0)
		var r uint32
		forLanes(m, func(l int) {
			ms, _ := resolve(ptx.SpaceNone, v[l])
			var ok bool
			switch sp.Base() {
			case ptx.SpaceGlobal:
				ok = ms == msGlobal
			case ptx.SpaceShared:
				ok = ms == msShared
			case ptx.SpaceLocal:
				ok = ms == msLocal
			case ptx.SpaceParam:
				ok = ms == msParam
			case ptx.SpaceConst:
				ok = ms == msConst
			}
			if ok {
				r |= 1 << l
			}
		})
		w.setPred(&in.dst[0], r, m)
	}
	return nil
}

func decMapa(d *decoder) error {
	x := d.x
	t := d.in.typ
	generic := x.Space() == ptx.SpaceNone
	if err := d.alu(2, t); err != nil {
		return err
	}
	mask := typeMask(t)
	d.in.ext = &aluOps{dmask: mask}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
		dd := w.reg(in.dst[0].R)
		n := uint64(len(w.cta.clusterCTAs()))
		forLanes(m, func(l int) {
			addr := a[l]
			if generic {
				addr -= SharedWindow
			}
			off := addr & 0xFFFFFF
			r := b[l] & 0xFFFFFFFF
			if r >= n {
				w.fault(in, l, "mapa: CTA rank %d is outside the cluster of %d CTAs", r, n)
				return
			}
			v := r<<24 | off
			if generic {
				v += SharedWindow
			}
			dd[l] = v & mask
		})
	}
	return nil
}

func decGetctarank(d *decoder) error {
	x := d.x
	generic := x.Space() == ptx.SpaceNone
	if err := d.alu(1, d.in.typ); err != nil {
		return err
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a := w.src(&in.src[0], 0)
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			addr := a[l]
			if generic {
				addr -= SharedWindow
			}
			dd[l] = addr >> 24
		})
	}
	return nil
}
