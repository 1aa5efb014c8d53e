package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Comparison and selection: setp, selp, set, slct.

// cmpFn returns a comparison for a setp/set modifier on type t.
func cmpFn(op string, t ptx.Type) (func(a, b uint64) bool, error) {
	n := t.Bits()
	if isFloat(t) {
		var dec func(uint64) float64
		switch t {
		case ptx.F32:
			dec = func(v uint64) float64 { return float64(f32frombits(uint32(v))) }
		case ptx.F64:
			dec = f64frombits
		case ptx.F16:
			dec = func(v uint64) float64 { return f16ToF64(uint16(v)) }
		case ptx.BF16:
			dec = func(v uint64) float64 { return bf16ToF64(uint16(v)) }
		default:
			return nil, refSetpPacked.errorf("a comparison of .%s values", t)
		}
		var c func(x, y float64) bool
		unordered := false
		switch op {
		case "eq":
			c = func(x, y float64) bool { return x == y }
		case "ne":
			c = func(x, y float64) bool { return x != y && x == x && y == y }
		case "lt":
			c = func(x, y float64) bool { return x < y }
		case "le":
			c = func(x, y float64) bool { return x <= y }
		case "gt":
			c = func(x, y float64) bool { return x > y }
		case "ge":
			c = func(x, y float64) bool { return x >= y }
		case "equ":
			c, unordered = func(x, y float64) bool { return x == y }, true
		case "neu":
			c, unordered = func(x, y float64) bool { return x != y }, true
		case "ltu":
			c, unordered = func(x, y float64) bool { return x < y }, true
		case "leu":
			c, unordered = func(x, y float64) bool { return x <= y }, true
		case "gtu":
			c, unordered = func(x, y float64) bool { return x > y }, true
		case "geu":
			c, unordered = func(x, y float64) bool { return x >= y }, true
		case "num":
			c = func(x, y float64) bool { return x == x && y == y }
		case "nan":
			c = func(x, y float64) bool { return x != x || y != y }
		default:
			return nil, fmt.Errorf("unknown comparison .%s", op)
		}
		return func(a, b uint64) bool {
			x, y := dec(a), dec(b)
			if unordered && (x != x || y != y) {
				return true
			}
			return c(x, y)
		}, nil
	}
	mask := typeMask(t)
	signed := isSigned(t)
	switch op {
	case "eq":
		return func(a, b uint64) bool { return a&mask == b&mask }, nil
	case "ne":
		return func(a, b uint64) bool { return a&mask != b&mask }, nil
	case "lt", "lo":
		if signed && op == "lt" {
			return func(a, b uint64) bool { return sext(a, n) < sext(b, n) }, nil
		}
		return func(a, b uint64) bool { return a&mask < b&mask }, nil
	case "le", "ls":
		if signed && op == "le" {
			return func(a, b uint64) bool { return sext(a, n) <= sext(b, n) }, nil
		}
		return func(a, b uint64) bool { return a&mask <= b&mask }, nil
	case "gt", "hi":
		if signed && op == "gt" {
			return func(a, b uint64) bool { return sext(a, n) > sext(b, n) }, nil
		}
		return func(a, b uint64) bool { return a&mask > b&mask }, nil
	case "ge", "hs":
		if signed && op == "ge" {
			return func(a, b uint64) bool { return sext(a, n) >= sext(b, n) }, nil
		}
		return func(a, b uint64) bool { return a&mask >= b&mask }, nil
	}
	return nil, fmt.Errorf("unknown comparison .%s", op)
}

type setpInfo struct {
	cmp func(a, b uint64) bool
	bop string // and, or, xor, ""
	ftz bool
}

func (d *decoder) cmpOp() string {
	for _, m := range d.x.Mods {
		switch m.Name {
		case "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan":
			return m.Name
		}
	}
	return ""
}

func (d *decoder) boolOp() string {
	for _, m := range d.x.Mods {
		switch m.Name {
		case "and", "or", "xor":
			return m.Name
		}
	}
	return ""
}

// cmpSrcs decodes the sources of setp and set: the two compared operands of
// type t, then the optional predicate c of "op.cmp.bop d, a, b, c".
func (d *decoder) cmpSrcs(t ptx.Type) error {
	ops, n := d.x.Operands, 2
	if len(ops) > 3 {
		n = 3
	}
	for i := 1; i <= n; i++ {
		tt := t
		if i == 3 {
			tt = ptx.Pred
		}
		o, err := d.val(ops[i], tt)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	return nil
}

func decSetp(d *decoder) error {
	x := d.x
	t := d.in.typ
	if t == ptx.F16x2 || t == ptx.BF16x2 {
		return refSetpPacked.errorf("setp.%s", t)
	}
	cmp, err := cmpFn(d.cmpOp(), t)
	if err != nil {
		return err
	}
	si := &setpInfo{cmp: cmp, bop: d.boolOp(), ftz: d.has("ftz") && t == ptx.F32}
	p, q, err := d.dstPair(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{p, q}
	if err := d.cmpSrcs(t); err != nil {
		return err
	}
	d.in.ext = si
	d.in.fn = execSetp
	return nil
}

func execSetp(w *Warp, in *Inst, m uint32) {
	si := in.ext.(*setpInfo)
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	var r uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		x, y := a[l], b[l]
		if si.ftz {
			x, y = uint64(ftz32(uint32(x))), uint64(ftz32(uint32(y)))
		}
		if si.cmp(x, y) {
			r |= 1 << l
		}
	}
	rq := ^r
	if si.bop != "" {
		c := w.predVal(&in.src[2])
		switch si.bop {
		case "and":
			r, rq = r&c, rq&c
		case "or":
			r, rq = r|c, rq|c
		case "xor":
			r, rq = r^c, rq^c
		}
	}
	w.setPred(&in.dst[0], r, m)
	if in.dst[1].K == oPred {
		w.setPred(&in.dst[1], rq, m)
	}
}

func decSelp(d *decoder) error {
	t := d.in.typ
	x := d.x
	if len(x.Operands) != 4 {
		return fmt.Errorf("selp: want 4 operands")
	}
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst}
	for i := 1; i <= 3; i++ {
		tt := t
		if i == 3 {
			tt = ptx.Pred
		}
		o, err := d.val(x.Operands[i], tt)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	mask := typeMask(t)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
		p := w.predVal(&in.src[2])
		dd := w.reg(in.dst[0].R)
		for ; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if p>>l&1 == 1 {
				dd[l] = a[l] & mask
			} else {
				dd[l] = b[l] & mask
			}
		}
	}
	return nil
}

func decSet(d *decoder) error {
	x := d.x
	if len(x.Types) < 2 {
		return fmt.Errorf("set needs a destination and a source type")
	}
	dt, st := x.Types[0], x.Types[1]
	cmp, err := cmpFn(d.cmpOp(), st)
	if err != nil {
		return err
	}
	bop := d.boolOp()
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst}
	if err := d.cmpSrcs(st); err != nil {
		return err
	}
	var tv uint64 = 0xFFFFFFFF
	if dt == ptx.F32 {
		tv = 0x3F800000
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
		var c uint32
		if bop != "" {
			c = w.predVal(&in.src[2])
		}
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			r := cmp(a[l], b[l])
			cl := c>>l&1 == 1
			switch bop {
			case "and":
				r = r && cl
			case "or":
				r = r || cl
			case "xor":
				r = r != cl
			}
			if r {
				dd[l] = tv
			} else {
				dd[l] = 0
			}
		})
	}
	return nil
}

func decSlct(d *decoder) error {
	x := d.x
	t, ct := x.Types[0], x.Types[len(x.Types)-1]
	if err := d.alu(3, t); err != nil {
		return err
	}
	d.in.src[2], _ = d.val(x.Operands[3], ct)
	ftz := d.has("ftz")
	mask := typeMask(t)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			var ge bool
			if ct == ptx.F32 {
				cv := uint32(c[l])
				if ftz {
					cv = ftz32(cv)
				}
				ge = f32frombits(cv) >= 0 || cv == 0x80000000
			} else {
				ge = int32(c[l]) >= 0
			}
			if ge {
				dd[l] = a[l] & mask
			} else {
				dd[l] = b[l] & mask
			}
		})
	}
	return nil
}
