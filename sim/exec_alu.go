package sim

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
)

type execFn func(w *Warp, in *Inst, m uint32)
type decodeFn func(d *decoder) error

func unsupported(msg string) execFn {
	return func(w *Warp, in *Inst, m uint32) {
		w.fault(in, firstLane(m), "%s", msg)
	}
}

func firstLane(m uint32) int { return bits.TrailingZeros32(m) % 32 }

const fullMask = ^uint32(0)

// ALU operations over raw bits, chosen at decode time.
type fn1 func(a uint64) uint64
type fn2 func(a, b uint64) uint64
type fn3 func(a, b, c uint64) uint64

type aluOps struct {
	f1    fn1
	f2    fn2
	f3    fn3
	dmask uint64
}

func typeMask(t ptx.Type) uint64 {
	b := t.Bits()
	if b >= 64 || b == 0 {
		return ^uint64(0)
	}
	return uint64(1)<<b - 1
}

func sext(v uint64, bits int) int64 {
	s := 64 - uint(bits)
	return int64(v<<s) >> s
}

func exec1(w *Warp, in *Inst, m uint32) {
	ops := in.ext.(*aluOps)
	f, mask := ops.f1, ops.dmask
	a := w.src(&in.src[0], 0)
	d := w.reg(in.dst[0].R)
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = f(a[l]) & mask
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = f(a[l]) & mask
	}
}

func exec2(w *Warp, in *Inst, m uint32) {
	ops := in.ext.(*aluOps)
	f, mask := ops.f2, ops.dmask
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	d := w.reg(in.dst[0].R)
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = f(a[l], b[l]) & mask
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = f(a[l], b[l]) & mask
	}
}

func exec3(w *Warp, in *Inst, m uint32) {
	ops := in.ext.(*aluOps)
	f, mask := ops.f3, ops.dmask
	a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
	d := w.reg(in.dst[0].R)
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = f(a[l], b[l], c[l]) & mask
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = f(a[l], b[l], c[l]) & mask
	}
}

// Fast paths for the most common integer operations.
func execAdd32(w *Warp, in *Inst, m uint32) {
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	d := w.reg(in.dst[0].R)
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = uint64(uint32(a[l] + b[l]))
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = uint64(uint32(a[l] + b[l]))
	}
}

func execAdd64(w *Warp, in *Inst, m uint32) {
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	d := w.reg(in.dst[0].R)
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = a[l] + b[l]
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = a[l] + b[l]
	}
}

func execMov(w *Warp, in *Inst, m uint32) {
	a := w.src(&in.src[0], 0)
	d := w.reg(in.dst[0].R)
	mask := in.ext.(*aluOps).dmask
	if m == fullMask {
		for l := 0; l < 32; l++ {
			d[l] = a[l] & mask
		}
		return
	}
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = a[l] & mask
	}
}

// decode helpers -----------------------------------------------------------

// alu decodes "op d, a[, b[, c]]" with n sources of type t.
func (d *decoder) alu(n int, t ptx.Type) error {
	x := d.x
	if len(x.Operands) != n+1 {
		return fmt.Errorf("%s: want %d operands, have %d", x.Opcode, n+1, len(x.Operands))
	}
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	if dst.K != oReg {
		return fmt.Errorf("%s: the destination must be a data register", x.Opcode)
	}
	d.in.dst = []Opnd{dst}
	for i := 1; i <= n; i++ {
		o, err := d.val(x.Operands[i], t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	return nil
}

func (d *decoder) set1(t ptx.Type, f fn1) error {
	if err := d.alu(1, t); err != nil {
		return err
	}
	d.in.ext, d.in.fn = &aluOps{f1: f, dmask: typeMask(t)}, exec1
	return nil
}

func (d *decoder) set2(t ptx.Type, f fn2) error {
	if err := d.alu(2, t); err != nil {
		return err
	}
	d.in.ext, d.in.fn = &aluOps{f2: f, dmask: typeMask(t)}, exec2
	return nil
}

func (d *decoder) set3(t ptx.Type, f fn3) error {
	if err := d.alu(3, t); err != nil {
		return err
	}
	d.in.ext, d.in.fn = &aluOps{f3: f, dmask: typeMask(t)}, exec3
	return nil
}

// f32Op2 lifts a two-operand f32 operation to a register function: with
// ftz the inputs and the result have their subnormals flushed to zero, with
// sat the result is clamped to [0, 1].
func f32Op2(ftz, sat bool, op func(x, y uint32) uint32) fn2 {
	return func(a, b uint64) uint64 {
		x, y := uint32(a), uint32(b)
		if ftz {
			x, y = ftz32(x), ftz32(y)
		}
		r := op(x, y)
		if ftz {
			r = ftz32(r)
		}
		if sat {
			r = sat01(r)
		}
		return uint64(r)
	}
}

// f32Op3 is f32Op2 for three operands (fma).
func f32Op3(ftz, sat bool, op func(x, y, z uint32) uint32) fn3 {
	return func(a, b, c uint64) uint64 {
		x, y, z := uint32(a), uint32(b), uint32(c)
		if ftz {
			x, y, z = ftz32(x), ftz32(y), ftz32(z)
		}
		r := op(x, y, z)
		if ftz {
			r = ftz32(r)
		}
		if sat {
			r = sat01(r)
		}
		return uint64(r)
	}
}

// f32x2Op2 applies a two-operand f32 operation to both halves of packed
// .f32x2 registers, flushing inputs and results under ftz.
func f32x2Op2(ftz bool, op func(x, y uint32) uint32) fn2 {
	one := f32Op2(ftz, false, op)
	return func(a, b uint64) uint64 {
		return one(a, b) | one(a>>32, b>>32)<<32
	}
}

// f32x2Op3 is f32x2Op2 for three operands (fma).
func f32x2Op3(ftz bool, op func(x, y, z uint32) uint32) fn3 {
	one := f32Op3(ftz, false, op)
	return func(a, b, c uint64) uint64 {
		return one(a, b, c) | one(a>>32, b>>32, c>>32)<<32
	}
}

// mode returns the rounding modifier (RN when absent).
func (d *decoder) mode() numfmt.Mode {
	for _, m := range d.x.Mods {
		switch m.Name {
		case "rn":
			return numfmt.RN
		case "rz":
			return numfmt.RZ
		case "rm":
			return numfmt.RM
		case "rp":
			return numfmt.RP
		}
	}
	return numfmt.RN
}

func isFloat(t ptx.Type) bool  { return t.Kind() == ptx.KindFloat }
func isSigned(t ptx.Type) bool { return t.Kind() == ptx.KindSigned }

// Integer add/sub with .cc, .sat; float add/sub of every type.
func decAddSub(sub bool) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		switch t {
		case ptx.F32:
			mode := d.mode()
			return d.set2(t, f32Op2(d.has("ftz"), d.has("sat"), func(x, y uint32) uint32 {
				if sub && !isNaN32(y) { // a NaN subtrahend keeps its sign
					y ^= 0x80000000
				}
				return addF32(x, y, mode)
			}))
		case ptx.F64:
			mode := d.mode()
			return d.set2(t, func(a, b uint64) uint64 {
				if sub {
					b ^= 1 << 63
				}
				return fmaF64(a, 0x3FF0000000000000, b, mode)
			})
		case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
			return d.setHalf2(t, func(x, y float64) float64 {
				if sub {
					return x - y
				}
				return x + y
			})
		case ptx.F32x2:
			mode := d.mode()
			return d.set2(t, f32x2Op2(d.has("ftz"), func(x, y uint32) uint32 {
				if sub {
					y ^= 0x80000000
				}
				return addF32(x, y, mode)
			}))
		case ptx.U16x2, ptx.S16x2:
			return d.set2(t, func(a, b uint64) uint64 {
				lo, hi := uint16(a), uint16(a>>16)
				if sub {
					lo -= uint16(b)
					hi -= uint16(b >> 16)
				} else {
					lo += uint16(b)
					hi += uint16(b >> 16)
				}
				return uint64(lo) | uint64(hi)<<16
			})
		}
		if isFloat(t) {
			return fmt.Errorf("%s.%s is not supported", d.x.Opcode, t)
		}
		bitsN := t.Bits()
		if d.has("sat") {
			return d.set2(t, func(a, b uint64) uint64 {
				x, y := int64(int32(a)), int64(int32(b))
				var r int64
				if sub {
					r = x - y
				} else {
					r = x + y
				}
				r = min(max(r, math.MinInt32), math.MaxInt32)
				return uint64(uint32(r))
			})
		}
		if d.has("cc") {
			if err := d.alu(2, t); err != nil {
				return err
			}
			d.in.ext = &aluOps{dmask: typeMask(t)}
			d.in.aux = bitsN
			if sub {
				d.in.fn = execSubCC
			} else {
				d.in.fn = execAddCC
			}
			return nil
		}
		if sub {
			return d.set2(t, func(a, b uint64) uint64 { return a - b })
		}
		if err := d.alu(2, t); err != nil {
			return err
		}
		d.in.ext = &aluOps{f2: func(a, b uint64) uint64 { return a + b }, dmask: typeMask(t)}
		switch bitsN {
		case 32:
			d.in.fn = execAdd32
		case 64:
			d.in.fn = execAdd64
		default:
			d.in.fn = exec2
		}
		return nil
	}
}

func execAddCC(w *Warp, in *Inst, m uint32) {
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	d := w.reg(in.dst[0].R)
	mask := in.ext.(*aluOps).dmask
	forLanes(m, func(l int) {
		var s, c uint64
		if in.aux == 64 {
			s, c = bits.Add64(a[l], b[l], 0)
		} else {
			t := (a[l] & mask) + (b[l] & mask)
			s, c = t&mask, t>>32&1
		}
		d[l] = s & mask
		w.cc = w.cc&^(1<<l) | uint32(c)<<l
	})
}

func execSubCC(w *Warp, in *Inst, m uint32) {
	a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
	d := w.reg(in.dst[0].R)
	mask := in.ext.(*aluOps).dmask
	forLanes(m, func(l int) {
		var s, c uint64
		if in.aux == 64 {
			s, c = bits.Sub64(a[l], b[l], 0)
		} else {
			x, y := a[l]&mask, b[l]&mask
			s = (x - y) & mask
			if y > x {
				c = 1
			}
		}
		d[l] = s & mask
		w.cc = w.cc&^(1<<l) | uint32(c)<<l
	})
}

// addc/subc: add with the carry-in, optionally writing the carry-out.
func decAddc(sub bool) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		if err := d.alu(2, t); err != nil {
			return err
		}
		cc := d.has("cc")
		d.in.ext = &aluOps{dmask: typeMask(t)}
		n := t.Bits()
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
			dd := w.reg(in.dst[0].R)
			forLanes(m, func(l int) {
				cin := uint64(w.cc >> l & 1)
				var s, c uint64
				if n == 64 {
					if sub {
						s, c = bits.Sub64(a[l], b[l], cin)
					} else {
						s, c = bits.Add64(a[l], b[l], cin)
					}
				} else {
					x, y := a[l]&0xFFFFFFFF, b[l]&0xFFFFFFFF
					if sub {
						s = (x - y - cin) & 0xFFFFFFFF
						if y+cin > x {
							c = 1
						}
					} else {
						t := x + y + cin
						s, c = t&0xFFFFFFFF, t>>32&1
					}
				}
				dd[l] = s
				if cc {
					w.cc = w.cc&^(1<<l) | uint32(c)<<l
				}
			})
		}
		return nil
	}
}

func mulHi(a, b uint64, t ptx.Type) uint64 {
	n := t.Bits()
	if isSigned(t) {
		x, y := sext(a, n), sext(b, n)
		if n == 64 {
			hi, _ := bits.Mul64(uint64(x), uint64(y))
			// signed correction
			if x < 0 {
				hi -= uint64(y)
			}
			if y < 0 {
				hi -= uint64(x)
			}
			return hi
		}
		return uint64(x*y) >> n
	}
	x, y := a&typeMask(t), b&typeMask(t)
	if n == 64 {
		hi, _ := bits.Mul64(x, y)
		return hi
	}
	return x * y >> n
}

func mulWide(a, b uint64, t ptx.Type) uint64 {
	n := t.Bits()
	if isSigned(t) {
		return uint64(sext(a, n) * sext(b, n))
	}
	return (a & typeMask(t)) * (b & typeMask(t))
}

func decMul(d *decoder) error {
	t := d.in.typ
	switch t {
	case ptx.F32:
		mode := d.mode()
		return d.set2(t, f32Op2(d.has("ftz"), d.has("sat"), func(x, y uint32) uint32 { return mulF32(x, y, mode) }))
	case ptx.F64:
		mode := d.mode()
		return d.set2(t, func(a, b uint64) uint64 { return fmaF64(a, b, 0x8000000000000000, mode) })
	case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
		return d.setHalf2(t, func(x, y float64) float64 { return x * y })
	case ptx.F32x2:
		mode := d.mode()
		return d.set2(t, f32x2Op2(d.has("ftz"), func(x, y uint32) uint32 { return mulF32(x, y, mode) }))
	}
	switch {
	case d.has("wide"):
		if err := d.set2(t, func(a, b uint64) uint64 { return mulWide(a, b, t) }); err != nil {
			return err
		}
		d.in.ext.(*aluOps).dmask = ^uint64(0) >> (64 - 2*uint(t.Bits()))
		return nil
	case d.has("hi"):
		return d.set2(t, func(a, b uint64) uint64 { return mulHi(a, b, t) })
	}
	return d.set2(t, func(a, b uint64) uint64 { return a * b })
}

func decMad(d *decoder) error {
	t := d.in.typ
	if isFloat(t) {
		return decFma(d)
	}
	switch {
	case d.has("wide"):
		if err := d.set3(t, func(a, b, c uint64) uint64 { return mulWide(a, b, t) + c }); err != nil {
			return err
		}
		d.in.ext.(*aluOps).dmask = ^uint64(0) >> (64 - 2*uint(t.Bits()))
		return nil
	case d.has("hi") && d.has("sat"):
		return d.set3(t, func(a, b, c uint64) uint64 {
			r := int64(int32(mulHi(a, b, t))) + int64(int32(c))
			return uint64(uint32(min(max(r, math.MinInt32), math.MaxInt32)))
		})
	case d.has("hi"):
		return d.set3(t, func(a, b, c uint64) uint64 { return mulHi(a, b, t) + c })
	}
	if d.has("cc") {
		if err := d.alu(3, t); err != nil {
			return err
		}
		n := t.Bits()
		d.in.ext = &aluOps{dmask: typeMask(t)}
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
			dd := w.reg(in.dst[0].R)
			forLanes(m, func(l int) {
				p := a[l] * b[l]
				var s, cy uint64
				if n == 64 {
					s, cy = bits.Add64(p, c[l], 0)
				} else {
					x := (p & 0xFFFFFFFF) + (c[l] & 0xFFFFFFFF)
					s, cy = x&0xFFFFFFFF, x>>32
				}
				dd[l] = s
				w.cc = w.cc&^(1<<l) | uint32(cy&1)<<l
			})
		}
		return nil
	}
	return d.set3(t, func(a, b, c uint64) uint64 { return a*b + c })
}

func decMadc(d *decoder) error {
	t := d.in.typ
	if err := d.alu(3, t); err != nil {
		return err
	}
	hi, cc, n := d.has("hi"), d.has("cc"), t.Bits()
	d.in.ext = &aluOps{dmask: typeMask(t)}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			var p uint64
			if hi {
				p = mulHi(a[l], b[l], t)
			} else {
				p = a[l] * b[l]
			}
			cin := uint64(w.cc >> l & 1)
			var s, cy uint64
			if n == 64 {
				s, cy = bits.Add64(p, c[l], cin)
			} else {
				x := (p & 0xFFFFFFFF) + (c[l] & 0xFFFFFFFF) + cin
				s, cy = x&0xFFFFFFFF, x>>32
			}
			dd[l] = s
			if cc {
				w.cc = w.cc&^(1<<l) | uint32(cy&1)<<l
			}
		})
	}
	return nil
}

func decFma(d *decoder) error {
	t := d.in.typ
	switch t {
	case ptx.F32:
		mode := d.mode()
		return d.set3(t, f32Op3(d.has("ftz"), d.has("sat"), func(x, y, z uint32) uint32 { return fmaF32(x, y, z, mode) }))
	case ptx.F64:
		mode := d.mode()
		return d.set3(t, func(a, b, c uint64) uint64 { return fmaF64(a, b, c, mode) })
	case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
		if d.has("sat") || d.has("relu") || d.has("oob") {
			return fmt.Errorf("fma.%s with .sat/.relu/.oob is not supported", t)
		}
		return d.setHalf3(t)
	case ptx.F32x2:
		mode := d.mode()
		return d.set3(t, f32x2Op3(d.has("ftz"), func(x, y, z uint32) uint32 { return fmaF32(x, y, z, mode) }))
	}
	return fmt.Errorf("fma.%s is not supported", t)
}

// half-precision element-wise ops (f16, bf16 and their x2 packs).
func halfInfo(t ptx.Type) (ebits, mbits uint, lanes int) {
	switch t {
	case ptx.F16:
		return 5, 10, 1
	case ptx.F16x2:
		return 5, 10, 2
	case ptx.BF16:
		return 8, 7, 1
	}
	return 8, 7, 2
}

func (d *decoder) setHalf2(t ptx.Type, op func(x, y float64) float64) error {
	e, mb, lanes := halfInfo(t)
	ftz := d.has("ftz")
	return d.set2(t, func(a, b uint64) uint64 {
		var out uint64
		for k := 0; k < lanes; k++ {
			x := halfToF64(a>>(16*k)&0xFFFF, e, mb)
			y := halfToF64(b>>(16*k)&0xFFFF, e, mb)
			if ftz {
				x, y = ftzHalf(x, e), ftzHalf(y, e)
			}
			r := f64ToHalf(op(x, y), e, mb)
			if ftz {
				r = ftzHalfBits(r, e, mb)
			}
			out |= r << (16 * k)
		}
		return out
	})
}

func (d *decoder) setHalf3(t ptx.Type) error {
	e, mb, lanes := halfInfo(t)
	ftz := d.has("ftz")
	return d.set3(t, func(a, b, c uint64) uint64 {
		var out uint64
		for k := 0; k < lanes; k++ {
			x := halfToF64(a>>(16*k)&0xFFFF, e, mb)
			y := halfToF64(b>>(16*k)&0xFFFF, e, mb)
			z := halfToF64(c>>(16*k)&0xFFFF, e, mb)
			if ftz {
				x, y, z = ftzHalf(x, e), ftzHalf(y, e), ftzHalf(z, e)
			}
			r := f64ToHalf(roundOdd64(x*y, z), e, mb)
			if ftz {
				r = ftzHalfBits(r, e, mb)
			}
			out |= r << (16 * k)
		}
		return out
	})
}

func ftzHalf(x float64, e uint) float64 {
	min := math.Ldexp(1, 2-(1<<(e-1)))
	if math.Abs(x) < min {
		return math.Copysign(0, x)
	}
	return x
}

func ftzHalfBits(r uint64, e, mb uint) uint64 {
	if r>>mb&(1<<e-1) == 0 {
		return r & (1 << (e + mb))
	}
	return r
}

func decDiv(d *decoder) error {
	t := d.in.typ
	switch t {
	case ptx.F32:
		mode := d.mode()
		d.in.approx = d.has("approx") || d.has("full")
		return d.set2(t, f32Op2(d.has("ftz"), false, func(x, y uint32) uint32 { return divF32(x, y, mode) }))
	case ptx.F64:
		mode := d.mode()
		return d.set2(t, func(a, b uint64) uint64 {
			x, y := f64frombits(a), f64frombits(b)
			if mode == numfmt.RN {
				r := x / y
				if r != r {
					return nanF64
				}
				return f64bits(r)
			}
			if y == 0 || x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) {
				return f64bits(x / y)
			}
			bx, by := new(big.Float).SetPrec(2200).SetFloat64(x), new(big.Float).SetPrec(2200).SetFloat64(y)
			q := new(big.Float).SetPrec(53).SetMode(bigMode(mode)).Quo(bx, by)
			r, _ := q.Float64()
			return f64bits(r)
		})
	}
	if isFloat(t) {
		return fmt.Errorf("div.%s is not supported", t)
	}
	n := t.Bits()
	if isSigned(t) {
		return d.set2(t, func(a, b uint64) uint64 {
			x, y := sext(a, n), sext(b, n)
			if y == 0 {
				return ^uint64(0)
			}
			if y == -1 {
				return uint64(-x)
			}
			return uint64(x / y)
		})
	}
	mask := typeMask(t)
	return d.set2(t, func(a, b uint64) uint64 {
		if b&mask == 0 {
			return ^uint64(0)
		}
		return (a & mask) / (b & mask)
	})
}

func decRem(d *decoder) error {
	t := d.in.typ
	n := t.Bits()
	if isSigned(t) {
		return d.set2(t, func(a, b uint64) uint64 {
			x, y := sext(a, n), sext(b, n)
			if y == 0 {
				return uint64(x)
			}
			if y == -1 {
				return 0
			}
			return uint64(x % y)
		})
	}
	mask := typeMask(t)
	return d.set2(t, func(a, b uint64) uint64 {
		if b&mask == 0 {
			return a
		}
		return (a & mask) % (b & mask)
	})
}

func decAbsNeg(abs bool) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		switch t {
		case ptx.F32:
			ftz := d.has("ftz")
			return d.set1(t, func(a uint64) uint64 {
				x := uint32(a)
				if ftz {
					x = ftz32(x)
				}
				if abs {
					return uint64(x &^ 0x80000000)
				}
				return uint64(x ^ 0x80000000)
			})
		case ptx.F64:
			return d.set1(t, func(a uint64) uint64 {
				if abs {
					return a &^ (1 << 63)
				}
				return a ^ 1<<63
			})
		case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
			_, _, lanes := halfInfo(t)
			var sign uint64 = 0x8000
			if lanes == 2 {
				sign = 0x80008000
			}
			return d.set1(t, func(a uint64) uint64 {
				if abs {
					return a &^ sign
				}
				return a ^ sign
			})
		}
		n := t.Bits()
		return d.set1(t, func(a uint64) uint64 {
			x := sext(a, n)
			if abs && x < 0 || !abs {
				return uint64(-x)
			}
			return uint64(x)
		})
	}
}

func decMinMax(isMin bool) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		switch t {
		case ptx.F32:
			nan, ftz, abs := d.has("NaN"), d.has("ftz"), d.has("abs")
			if d.has("xorsign") {
				return fmt.Errorf("min/max .xorsign is not supported")
			}
			if len(d.x.Operands) == 4 {
				return d.set3(t, func(a, b, c uint64) uint64 {
					f := maxF32
					if isMin {
						f = minF32
					}
					x, y, z := uint32(a), uint32(b), uint32(c)
					if ftz {
						x, y, z = ftz32(x), ftz32(y), ftz32(z)
					}
					if abs {
						x, y, z = x&^0x80000000, y&^0x80000000, z&^0x80000000
					}
					return uint64(f(f(x, y, nan), z, nan))
				})
			}
			return d.set2(t, func(a, b uint64) uint64 {
				x, y := uint32(a), uint32(b)
				if ftz {
					x, y = ftz32(x), ftz32(y)
				}
				if abs {
					x, y = x&^0x80000000, y&^0x80000000
				}
				if isMin {
					return uint64(minF32(x, y, nan))
				}
				return uint64(maxF32(x, y, nan))
			})
		case ptx.F64:
			return d.set2(t, func(a, b uint64) uint64 {
				x, y := f64frombits(a), f64frombits(b)
				switch {
				case x != x && y != y:
					return nanF64
				case x != x:
					return b
				case y != y:
					return a
				}
				if isMin {
					if x < y || x == y && math.Signbit(x) {
						return a
					}
					return b
				}
				if x > y || x == y && !math.Signbit(x) {
					return a
				}
				return b
			})
		case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
			e, mb, lanes := halfInfo(t)
			nan := d.has("NaN")
			return d.set2(t, func(a, b uint64) uint64 {
				var out uint64
				for k := 0; k < lanes; k++ {
					ha, hb := a>>(16*k)&0xFFFF, b>>(16*k)&0xFFFF
					x, y := halfToF64(ha, e, mb), halfToF64(hb, e, mb)
					var r uint64
					switch {
					case x != x && y != y, nan && (x != x || y != y):
						r = 0x7FFF
					case x != x:
						r = hb
					case y != y:
						r = ha
					case isMin && (x < y || x == y && math.Signbit(x)), !isMin && (x > y || x == y && !math.Signbit(x)):
						r = ha
					default:
						r = hb
					}
					out |= r << (16 * k)
				}
				return out
			})
		case ptx.U16x2, ptx.S16x2:
			s := t == ptx.S16x2
			return d.set2(t, func(a, b uint64) uint64 {
				var out uint64
				for k := 0; k < 2; k++ {
					x, y := a>>(16*k)&0xFFFF, b>>(16*k)&0xFFFF
					lt := x < y
					if s {
						lt = int16(x) < int16(y)
					}
					r := y
					if lt == isMin {
						r = x
					}
					out |= r << (16 * k)
				}
				return out
			})
		}
		n := t.Bits()
		relu := d.has("relu")
		if isSigned(t) {
			return d.set2(t, func(a, b uint64) uint64 {
				x, y := sext(a, n), sext(b, n)
				r := max(x, y)
				if isMin {
					r = min(x, y)
				}
				if relu && r < 0 {
					r = 0
				}
				return uint64(r)
			})
		}
		mask := typeMask(t)
		return d.set2(t, func(a, b uint64) uint64 {
			if isMin {
				return min(a&mask, b&mask)
			}
			return max(a&mask, b&mask)
		})
	}
}

func decBitop(op string) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		if t == ptx.Pred {
			return d.predLogic(op)
		}
		switch op {
		case "and":
			return d.set2(t, func(a, b uint64) uint64 { return a & b })
		case "or":
			return d.set2(t, func(a, b uint64) uint64 { return a | b })
		}
		return d.set2(t, func(a, b uint64) uint64 { return a ^ b })
	}
}

// predLogic is and/or/xor/not on .pred registers.
func (d *decoder) predLogic(op string) error {
	x := d.x
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst}
	for _, e := range x.Operands[1:] {
		o, err := d.val(e, ptx.Pred)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a := w.predVal(&in.src[0])
		var r uint32
		switch op {
		case "mov":
			r = a
		case "not":
			r = ^a
		case "and":
			r = a & w.predVal(&in.src[1])
		case "or":
			r = a | w.predVal(&in.src[1])
		case "xor":
			r = a ^ w.predVal(&in.src[1])
		}
		w.setPred(&in.dst[0], r, m)
	}
	return nil
}

func decNot(d *decoder) error {
	if d.in.typ == ptx.Pred {
		return d.predLogic("not")
	}
	return d.set1(d.in.typ, func(a uint64) uint64 { return ^a })
}

func decCnot(d *decoder) error {
	mask := typeMask(d.in.typ)
	return d.set1(d.in.typ, func(a uint64) uint64 {
		if a&mask == 0 {
			return 1
		}
		return 0
	})
}

func decShift(left bool) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		n := uint64(t.Bits())
		mask := typeMask(t)
		if left {
			return d.set2(t, func(a, b uint64) uint64 {
				s := b & 0xFFFFFFFF
				if s >= n {
					return 0
				}
				return a << s
			})
		}
		if isSigned(t) {
			return d.set2(t, func(a, b uint64) uint64 {
				s := b & 0xFFFFFFFF
				if s >= n {
					s = n - 1
				}
				return uint64(sext(a, int(n)) >> s)
			})
		}
		return d.set2(t, func(a, b uint64) uint64 {
			s := b & 0xFFFFFFFF
			if s >= n {
				return 0
			}
			return (a & mask) >> s
		})
	}
}

func decShf(d *decoder) error {
	left, clamp := d.has("l"), d.has("clamp")
	return d.set3(ptx.B32, func(a, b, c uint64) uint64 {
		n := c & 0xFFFFFFFF
		if clamp {
			n = min(n, 32)
		} else {
			n &= 31
		}
		v := (b&0xFFFFFFFF)<<32 | a&0xFFFFFFFF
		if left {
			return (v << n) >> 32
		}
		return v >> n
	})
}

func decLop3(d *decoder) error {
	x := d.x
	if len(x.Operands) != 5 {
		return fmt.Errorf("lop3 with a predicate output is not supported")
	}
	lut, ok := x.Operands[4].(*ptx.Imm)
	if !ok {
		return fmt.Errorf("lop3: the LUT must be an immediate")
	}
	d.x = &ptx.Instruction{Opcode: x.Opcode, Mods: x.Mods, Operands: x.Operands[:4], Types: x.Types, Pos: x.Pos}
	defer func() { d.x = x }()
	L := lut.Bits & 0xFF
	return d.set3(ptx.B32, func(a, b, c uint64) uint64 {
		var r uint64
		for i := 0; i < 8; i++ {
			if L>>i&1 == 0 {
				continue
			}
			// minterm i: a bit = i>>2, b = i>>1, c = i&1
			ta, tb, tc := a, b, c
			if i>>2&1 == 0 {
				ta = ^a
			}
			if i>>1&1 == 0 {
				tb = ^b
			}
			if i&1 == 0 {
				tc = ^c
			}
			r |= ta & tb & tc
		}
		return r
	})
}

func decPrmt(d *decoder) error {
	mode := ""
	for _, m := range []string{"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"} {
		if d.has(m) {
			mode = m
		}
	}
	return d.set3(ptx.B32, func(a, b, c uint64) uint64 {
		bytes := uint64(b&0xFFFFFFFF)<<32 | a&0xFFFFFFFF
		byteAt := func(i uint64) uint64 { return bytes >> (8 * (i & 7)) & 0xFF }
		sel := c & 0xFFFF
		var r uint64
		switch mode {
		case "":
			for k := 0; k < 4; k++ {
				s := sel >> (4 * k) & 0xF
				v := byteAt(s & 7)
				if s&8 != 0 { // replicate the sign bit
					v = 0
					if byteAt(s&7)&0x80 != 0 {
						v = 0xFF
					}
				}
				r |= v << (8 * k)
			}
		case "f4e":
			s := sel & 3
			for k := uint64(0); k < 4; k++ {
				r |= byteAt(s+k) << (8 * k)
			}
		case "b4e":
			s := sel & 3
			for k := uint64(0); k < 4; k++ {
				r |= byteAt(s+8-k) << (8 * k)
			}
		case "rc8":
			v := byteAt(sel & 3)
			r = v | v<<8 | v<<16 | v<<24
		case "ecl":
			s := sel & 3
			for k := uint64(0); k < 4; k++ {
				r |= byteAt(max(k, s)) << (8 * k)
			}
		case "ecr":
			s := sel & 3
			for k := uint64(0); k < 4; k++ {
				r |= byteAt(min(k, s)) << (8 * k)
			}
		case "rc16":
			s := sel & 1
			v := byteAt(2*s) | byteAt(2*s+1)<<8
			r = v | v<<16
		}
		return r
	})
}

func decBitCount(op string) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		n := t.Bits()
		mask := typeMask(t)
		if err := d.alu(1, t); err != nil {
			return err
		}
		var f fn1
		dmask := uint64(0xFFFFFFFF)
		switch op {
		case "popc":
			f = func(a uint64) uint64 { return uint64(bits.OnesCount64(a & mask)) }
		case "clz":
			f = func(a uint64) uint64 { return uint64(bits.LeadingZeros64(a&mask) - (64 - n)) }
		case "brev":
			dmask = mask
			f = func(a uint64) uint64 { return bits.Reverse64(a) >> (64 - n) }
		case "bfind":
			shiftamt := d.has("shiftamt")
			signed := isSigned(t)
			f = func(a uint64) uint64 {
				x := a & mask
				if signed && sext(a, n) < 0 {
					x = ^x & mask
				}
				if x == 0 {
					return 0xFFFFFFFF
				}
				p := uint64(bits.Len64(x) - 1)
				if shiftamt {
					return uint64(n-1) - p
				}
				return p
			}
		}
		d.in.ext, d.in.fn = &aluOps{f1: f, dmask: dmask}, exec1
		return nil
	}
}

func decBfe(d *decoder) error {
	t := d.in.typ
	n := uint64(t.Bits())
	signed := isSigned(t)
	return d.set3(t, func(a, b, c uint64) uint64 {
		pos, ln := b&0xFF, c&0xFF
		if ln == 0 {
			return 0
		}
		var sbit uint64
		if signed {
			p := min(pos+ln-1, n-1)
			sbit = a >> p & 1
		}
		var r uint64
		for i := uint64(0); i < n; i++ {
			var bit uint64
			if i < ln && pos+i < n {
				bit = a >> (pos + i) & 1
			} else {
				bit = sbit
			}
			r |= bit << i
		}
		return r
	})
}

func decBfi(d *decoder) error {
	t := d.in.typ
	n := uint64(t.Bits())
	if err := d.alu(4, t); err != nil {
		return err
	}
	d.in.ext = &aluOps{dmask: typeMask(t)}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b, c := w.src(&in.src[0], 0), w.src(&in.src[1], 1), w.src(&in.src[2], 2)
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			pos, ln := c[l]&0xFF, w.src(&in.src[3], 2)[l]&0xFF
			r := b[l]
			for i := uint64(0); i < ln && pos+i < n; i++ {
				r = r&^(1<<(pos+i)) | (a[l]>>i&1)<<(pos+i)
			}
			dd[l] = r & typeMask(t)
		})
	}
	return nil
}

func decMul24(d *decoder) error {
	t := d.in.typ
	hi := d.has("hi")
	signed := isSigned(t)
	return d.set2(t, func(a, b uint64) uint64 { return mul24(a, b, signed, hi) })
}

// mul24 multiplies the low 24 bits of a and b (sign-extended when signed)
// and returns the product's low 32 bits, or with hi its bits 16..47.
func mul24(a, b uint64, signed, hi bool) uint64 {
	var p int64
	if signed {
		p = sext(a, 24) * sext(b, 24)
	} else {
		p = int64((a & 0xFFFFFF) * (b & 0xFFFFFF))
	}
	if hi {
		return uint64(p) >> 16
	}
	return uint64(p)
}

func decMad24(d *decoder) error {
	t := d.in.typ
	hi := d.has("hi")
	signed := isSigned(t)
	return d.set3(t, func(a, b, c uint64) uint64 { return mul24(a, b, signed, hi) + c })
}

func decSad(d *decoder) error {
	t := d.in.typ
	n := t.Bits()
	return d.set3(t, func(a, b, c uint64) uint64 {
		if isSigned(t) {
			x, y := sext(a, n), sext(b, n)
			if x > y {
				return uint64(x-y) + c
			}
			return uint64(y-x) + c
		}
		x, y := a&typeMask(t), b&typeMask(t)
		if x > y {
			return x - y + c
		}
		return y - x + c
	})
}

func decDp(n int) decodeFn {
	return func(d *decoder) error {
		ta, tb := d.in.typ, d.in.typ2
		if len(d.x.Types) < 2 {
			return fmt.Errorf("dp%da needs two types", n)
		}
		hi := d.has("hi")
		return d.set3(ptx.U32, func(a, b, c uint64) uint64 {
			acc := int64(int32(c))
			if !isSigned(ta) && !isSigned(tb) {
				acc = int64(uint32(c))
			}
			for i := 0; i < 4 && (n == 4 || i < 2); i++ {
				var x, y int64
				if n == 4 {
					x, y = int64(a>>(8*i)&0xFF), int64(b>>(8*i)&0xFF)
					if isSigned(ta) {
						x = int64(int8(x))
					}
					if isSigned(tb) {
						y = int64(int8(y))
					}
				} else {
					x = int64(a >> (16 * i) & 0xFFFF)
					if isSigned(ta) {
						x = int64(int16(x))
					}
					k := i
					if hi {
						k += 2
					}
					y = int64(b >> (8 * k) & 0xFF)
					if isSigned(tb) {
						y = int64(int8(y))
					}
				}
				acc += x * y
			}
			return uint64(acc)
		})
	}
}

func decBmsk(d *decoder) error {
	clamp := d.has("clamp")
	return d.set2(ptx.B32, func(a, b uint64) uint64 {
		pos, w := a&0xFFFFFFFF, b&0xFFFFFFFF
		if !clamp {
			pos, w = pos&31, w&31
		}
		if pos >= 32 {
			return 0
		}
		end := min(pos+w, 32)
		return (uint64(1)<<end - 1) &^ (uint64(1)<<pos - 1)
	})
}

func decSzext(d *decoder) error {
	signed, clamp := d.in.typ == ptx.S32, d.has("clamp")
	return d.set2(ptx.B32, func(a, b uint64) uint64 {
		n := b & 0xFFFFFFFF
		if clamp {
			n = min(n, 32)
		} else {
			n &= 31
		}
		if n == 0 {
			return 0
		}
		if n >= 32 {
			return a
		}
		v := a & (1<<n - 1)
		if signed && v>>(n-1)&1 == 1 {
			v |= ^uint64(0) << n
		}
		return v
	})
}

func decCopysign(d *decoder) error {
	t := d.in.typ
	sign := uint64(1) << (t.Bits() - 1)
	return d.set2(t, func(a, b uint64) uint64 { return b&^sign | a&sign })
}

func decTestp(d *decoder) error {
	t := d.in.typ
	x := d.x
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	a, err := d.val(x.Operands[1], t)
	if err != nil {
		return err
	}
	d.in.dst, d.in.src = []Opnd{dst}, []Opnd{a}
	var op string
	for _, m := range []string{"finite", "infinite", "number", "notanumber", "normal", "subnormal"} {
		if d.has(m) {
			op = m
		}
	}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		v := w.src(&in.src[0], 0)
		var r uint32
		forLanes(m, func(l int) {
			var f float64
			var sub bool
			if t == ptx.F32 {
				f = float64(f32frombits(uint32(v[l])))
				sub = uint32(v[l])&0x7F800000 == 0 && uint32(v[l])&0x7FFFFF != 0
			} else {
				f = f64frombits(v[l])
				sub = v[l]&0x7FF0000000000000 == 0 && v[l]&0xFFFFFFFFFFFFF != 0
			}
			var ok bool
			switch op {
			case "finite":
				ok = !math.IsInf(f, 0) && f == f
			case "infinite":
				ok = math.IsInf(f, 0)
			case "number":
				ok = f == f
			case "notanumber":
				ok = f != f
			case "normal":
				ok = f == f && !math.IsInf(f, 0) && f != 0 && !sub
			case "subnormal":
				ok = sub
			}
			if ok {
				r |= 1 << l
			}
		})
		w.setPred(&in.dst[0], r, m)
	}
	return nil
}

// Approximate math: computed in float64 and rounded; the hardware's
// approximations differ in the last bits, so results are marked not
// bit-exact (except the correctly rounded .rn forms).
func decMath(op string) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		approx := d.has("approx") || op == "ex2" || op == "lg2" || op == "sin" || op == "cos" || op == "tanh" || op == "rsqrt"
		d.in.approx = approx
		ftz := d.has("ftz")
		mode := d.mode()
		f := func(x float64) float64 {
			switch op {
			case "sqrt":
				return math.Sqrt(x)
			case "rcp":
				return 1 / x
			case "rsqrt":
				return 1 / math.Sqrt(x)
			case "ex2":
				return math.Exp2(x)
			case "lg2":
				return math.Log2(x)
			case "sin":
				return math.Sin(x)
			case "cos":
				return math.Cos(x)
			case "tanh":
				return math.Tanh(x)
			}
			return x
		}
		switch t {
		case ptx.F32:
			return d.set1(t, func(a uint64) uint64 {
				x := uint32(a)
				if ftz {
					x = ftz32(x)
				}
				var r uint32
				switch {
				case op == "rcp" && !approx:
					r = divF32(0x3F800000, x, mode)
				case op == "sqrt" && !approx:
					r = f64ToF32(math.Sqrt(float64(f32frombits(x))), mode)
				default:
					r = f32bits(float32(f(float64(f32frombits(x)))))
				}
				if isNaN32(r) {
					r = nanF32
				}
				if ftz {
					r = ftz32(r)
				}
				return uint64(r)
			})
		case ptx.F64:
			return d.set1(t, func(a uint64) uint64 {
				x := f64frombits(a)
				if op == "rcp" && !approx && mode != numfmt.RN {
					bx := new(big.Float).SetPrec(2200).SetFloat64(x)
					q := new(big.Float).SetPrec(53).SetMode(bigMode(mode)).Quo(big.NewFloat(1), bx)
					r, _ := q.Float64()
					return f64bits(r)
				}
				r := f(x)
				if r != r {
					return nanF64
				}
				return f64bits(r)
			})
		case ptx.F16, ptx.BF16, ptx.F16x2, ptx.BF16x2:
			e, mb, lanes := halfInfo(t)
			return d.set1(t, func(a uint64) uint64 {
				var out uint64
				for k := 0; k < lanes; k++ {
					x := halfToF64(a>>(16*k)&0xFFFF, e, mb)
					out |= f64ToHalf(f(x), e, mb) << (16 * k)
				}
				return out
			})
		}
		return fmt.Errorf("%s.%s is not supported", op, t)
	}
}

// compare and select ----------------------------------------------------------

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
			return nil, fmt.Errorf("setp on .%s is not supported", t)
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
	cmp  func(a, b uint64) bool
	bop  string // and, or, xor, ""
	ftz  bool
	half int // 2 for x2 packed compares
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
		return fmt.Errorf("setp.%s is not supported", t)
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

// mov -----------------------------------------------------------------------

func decMov(d *decoder) error {
	x := d.x
	t := d.in.typ
	if len(x.Operands) != 2 {
		return fmt.Errorf("mov: want 2 operands")
	}
	if t == ptx.Pred {
		return d.predLogic("mov")
	}
	dv, dIsVec := x.Operands[0].(*ptx.Vector)
	sv, sIsVec := x.Operands[1].(*ptx.Vector)
	switch {
	case dIsVec:
		// unpack: mov.b64 {lo, hi}, %rd
		src, err := d.val(x.Operands[1], t)
		if err != nil {
			return err
		}
		d.in.src = []Opnd{src}
		for _, e := range dv.Elems {
			o, err := d.dstReg(e)
			if err != nil {
				return err
			}
			d.in.dst = append(d.in.dst, o)
		}
		n := len(dv.Elems)
		if t == ptx.B128 {
			return d.movB128(true)
		}
		w := uint(t.Bits() / n)
		d.in.fn = func(wp *Warp, in *Inst, m uint32) {
			s := *wp.src(&in.src[0], 0)
			for k := range in.dst {
				if in.dst[k].K != oReg {
					continue
				}
				dd := wp.reg(in.dst[k].R)
				forLanes(m, func(l int) { dd[l] = s[l] >> (w * uint(k)) & (uint64(1)<<w - 1) })
			}
		}
		return nil
	case sIsVec:
		dst, err := d.dstReg(x.Operands[0])
		if err != nil {
			return err
		}
		d.in.dst = []Opnd{dst}
		for _, e := range sv.Elems {
			o, err := d.val(e, t)
			if err != nil {
				return err
			}
			d.in.src = append(d.in.src, o)
		}
		if t == ptx.B128 {
			return d.movB128(false)
		}
		n := len(sv.Elems)
		w := uint(t.Bits() / n)
		d.in.fn = func(wp *Warp, in *Inst, m uint32) {
			dd := wp.reg(in.dst[0].R)
			var acc [32]uint64
			for k := range in.src {
				s := wp.src(&in.src[k], 0)
				forLanes(m, func(l int) { acc[l] |= (s[l] & (uint64(1)<<w - 1)) << (w * uint(k)) })
			}
			forLanes(m, func(l int) { dd[l] = acc[l] })
		}
		return nil
	}
	if err := d.alu(1, t); err != nil {
		return err
	}
	if t == ptx.B128 {
		d.in.fn = func(wp *Warp, in *Inst, m uint32) {
			lo, hi := wp.reg(in.src[0].R), wp.reg(in.src[0].R+1)
			dlo, dhi := wp.reg(in.dst[0].R), wp.reg(in.dst[0].R+1)
			forLanes(m, func(l int) { dlo[l], dhi[l] = lo[l], hi[l] })
		}
		return nil
	}
	d.in.ext, d.in.fn = &aluOps{dmask: typeMask(t)}, execMov
	return nil
}

func (d *decoder) movB128(unpack bool) error {
	d.in.fn = func(wp *Warp, in *Inst, m uint32) {
		if unpack {
			lo, hi := wp.reg(in.src[0].R), wp.reg(in.src[0].R+1)
			n := len(in.dst)
			forLanes(m, func(l int) {
				for k := 0; k < n; k++ {
					if in.dst[k].K != oReg {
						continue
					}
					var v uint64
					if n == 2 {
						v = lo[l]
						if k == 1 {
							v = hi[l]
						}
					} else { // 4 x b32
						v = lo[l] >> (32 * (k & 1))
						if k >= 2 {
							v = hi[l] >> (32 * (k & 1))
						}
						v &= 0xFFFFFFFF
					}
					wp.reg(in.dst[k].R)[l] = v
				}
			})
			return
		}
		dlo, dhi := wp.reg(in.dst[0].R), wp.reg(in.dst[0].R+1)
		n := len(in.src)
		forLanes(m, func(l int) {
			var lo, hi uint64
			if n == 2 {
				lo, hi = wp.src(&in.src[0], 0)[l], wp.src(&in.src[1], 1)[l]
			} else {
				v := func(k int) uint64 { return wp.src(&in.src[k], 0)[l] & 0xFFFFFFFF }
				lo, hi = v(0)|v(1)<<32, v(2)|v(3)<<32
			}
			dlo[l], dhi[l] = lo, hi
		})
	}
	return nil
}

// cvt -----------------------------------------------------------------------

func decCvt(d *decoder) error {
	x := d.x
	if len(x.Types) != 2 {
		return fmt.Errorf("cvt needs two types")
	}
	dt, st := x.Types[0], x.Types[1]
	dst, err := d.dstReg(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.dst = []Opnd{dst}
	for _, e := range x.Operands[1:] {
		o, err := d.val(e, st)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	dreg := d.regType(dst)
	dmask := typeMask(dt)
	if dreg != ptx.TypeNone && dreg.Bits() > dt.Bits() && dt.Bits() < 64 {
		dmask = typeMask(dreg)
	}
	// integer <-> integer
	if !isFloat(dt) && !isFloat(st) && d.mode() == numfmt.RN && !hasIntRound(x) {
		sat := d.has("sat")
		dn, sn := dt.Bits(), st.Bits()
		ds, ss := isSigned(dt), isSigned(st)
		regSigned := ds
		return d.setCvt(dmask, func(a uint64) uint64 {
			var v int64
			var u uint64
			if ss {
				v = sext(a, sn)
			} else {
				u = a & typeMask(st)
				v = int64(u)
			}
			if sat {
				lo, hi := intRange(dn, ds)
				switch {
				case ss && v < lo:
					v = lo
				case !ss && u > uint64(hi):
					v = hi
				case ss && v > hi:
					v = hi
				}
			}
			r := uint64(v) & typeMask(dt)
			if regSigned && dn < 64 {
				r = uint64(sext(r, dn))
			}
			return r
		})
	}
	// Fast paths that numfmt agrees with (see floats_test.go).
	name := x.Name()
	spec, err := numfmt.ParseSpec(name)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	ins := spec.Inputs()
	if len(ins) != len(d.in.src) {
		return fmt.Errorf("%s takes %d source operands, has %d", name, len(ins), len(d.in.src))
	}
	widths := make([]uint64, len(ins))
	for i, o := range ins {
		widths[i] = uint64(1)<<o.Bits - 1
		if o.Bits >= 64 {
			widths[i] = ^uint64(0)
		}
	}
	if fast := cvtFast(spec); fast != nil && len(ins) <= 2 {
		d.in.ext = &cvtInfo{spec: spec, widths: widths, dmask: dmask, fast: fast, signExt: isSigned(dt) && dt.Bits() < dreg.Bits(), dbits: dt.Bits()}
		d.in.fn = execCvt
		return nil
	}
	d.in.ext = &cvtInfo{spec: spec, widths: widths, dmask: dmask, signExt: isSigned(dt) && dt.Bits() < dreg.Bits(), dbits: dt.Bits()}
	d.in.fn = execCvt
	return nil
}

func hasIntRound(x *ptx.Instruction) bool {
	for _, m := range x.Mods {
		switch m.Name {
		case "rni", "rzi", "rmi", "rpi", "rn", "rz", "rm", "rp":
			return true
		}
	}
	return false
}

func intRange(n int, signed bool) (int64, int64) {
	if signed {
		if n == 64 {
			return math.MinInt64, math.MaxInt64
		}
		return -(1 << (n - 1)), 1<<(n-1) - 1
	}
	if n == 64 {
		return 0, math.MaxInt64
	}
	return 0, 1<<n - 1
}

func (d *decoder) setCvt(dmask uint64, f fn1) error {
	d.in.ext, d.in.fn = &aluOps{f1: f, dmask: dmask}, exec1
	return nil
}

type cvtInfo struct {
	spec    *numfmt.Spec
	widths  []uint64
	dmask   uint64
	fast    func(in []uint64) uint64
	signExt bool
	dbits   int
}

func execCvt(w *Warp, in *Inst, m uint32) {
	ci := in.ext.(*cvtInfo)
	dd := w.reg(in.dst[0].R)
	var srcs [4]*[32]uint64
	for i := range in.src {
		srcs[i] = w.src(&in.src[i], i%3)
	}
	var args [4]uint64
	n := len(in.src)
	for ; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		for i := 0; i < n; i++ {
			args[i] = srcs[i][l] & ci.widths[i]
		}
		var r uint64
		if ci.fast != nil {
			r = ci.fast(args[:n])
		} else {
			var err error
			r, err = numfmt.Cvt(ci.spec, args[:n]...)
			if err != nil {
				w.fault(in, l, "%v", err)
				return
			}
		}
		if ci.signExt {
			r = uint64(sext(r, ci.dbits))
		}
		dd[l] = r & ci.dmask
	}
}

// cvtFast returns a hand-written conversion for the spec when one exists;
// the tests check each against numfmt.Cvt.
func cvtFast(s *numfmt.Spec) func(in []uint64) uint64 {
	if s.Sat || s.Relu || s.Satfinite || s.Scaled || s.FTZ {
		return nil
	}
	d, a := s.Dst.Name, s.Src.Name
	switch {
	case d == "bf16x2" && a == "f32" && s.Mode == numfmt.RN:
		return func(in []uint64) uint64 {
			return uint64(f64ToBF16(float64(f32frombits(uint32(in[0])))))<<16 | uint64(f64ToBF16(float64(f32frombits(uint32(in[1])))))
		}
	case d == "f16x2" && a == "f32" && s.Mode == numfmt.RN:
		return func(in []uint64) uint64 {
			return uint64(f64ToF16(float64(f32frombits(uint32(in[0])))))<<16 | uint64(f64ToF16(float64(f32frombits(uint32(in[1])))))
		}
	case d == "bf16" && a == "f32" && s.Mode == numfmt.RN:
		return func(in []uint64) uint64 { return uint64(f64ToBF16(float64(f32frombits(uint32(in[0]))))) }
	case d == "f16" && a == "f32" && s.Mode == numfmt.RN:
		return func(in []uint64) uint64 { return uint64(f64ToF16(float64(f32frombits(uint32(in[0]))))) }
	case d == "f32" && a == "f32" && s.Mode.IsInteger():
		mode := s.Mode
		return func(in []uint64) uint64 {
			x := f32frombits(uint32(in[0]))
			if x != x {
				return nanF32
			}
			var r float64
			switch mode {
			case numfmt.RNI:
				r = math.RoundToEven(float64(x))
			case numfmt.RZI:
				r = math.Trunc(float64(x))
			case numfmt.RMI:
				r = math.Floor(float64(x))
			case numfmt.RPI:
				r = math.Ceil(float64(x))
			}
			return uint64(f32bits(float32(r)))
		}
	case d == "s32" && a == "f32" && s.Mode.IsInteger():
		mode := s.Mode
		return func(in []uint64) uint64 {
			x := float64(f32frombits(uint32(in[0])))
			if x != x {
				return 0
			}
			var r float64
			switch mode {
			case numfmt.RNI:
				r = math.RoundToEven(x)
			case numfmt.RZI:
				r = math.Trunc(x)
			case numfmt.RMI:
				r = math.Floor(x)
			case numfmt.RPI:
				r = math.Ceil(x)
			}
			switch {
			case r >= 2147483647:
				return 0x7FFFFFFF
			case r <= -2147483648:
				return 0x80000000
			}
			return uint64(uint32(int32(r)))
		}
	case d == "f32" && (a == "s32" || a == "u32") && s.Mode == numfmt.RN:
		signed := a == "s32"
		return func(in []uint64) uint64 {
			if signed {
				return uint64(f32bits(float32(int32(in[0]))))
			}
			return uint64(f32bits(float32(uint32(in[0]))))
		}
	case d == "f32" && (a == "f16" || a == "bf16") && s.Mode == numfmt.NoRound:
		bf := a == "bf16"
		return func(in []uint64) uint64 {
			if bf {
				return in[0] << 16 & 0xFFFFFFFF
			}
			h := uint16(in[0])
			if h&0x7C00 == 0x7C00 && h&0x3FF != 0 {
				return nanF32 // the H100 returns the canonical NaN (numfmt)
			}
			return uint64(f32bits(float32(f16ToF64(h))))
		}
	case d == "f64" && a == "f32" && s.Mode == numfmt.NoRound:
		return nil
	}
	return nil
}

func decCvtPack(d *decoder) error {
	x := d.x
	if err := d.alu(len(x.Operands)-1, ptx.S32); err != nil {
		return err
	}
	dt := x.Types[0]
	lo, hi := intRange(dt.Bits(), isSigned(dt))
	n := dt.Bits()
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		a, b := w.src(&in.src[0], 0), w.src(&in.src[1], 1)
		var c *[32]uint64
		if len(in.src) > 2 {
			c = w.src(&in.src[2], 2)
		}
		dd := w.reg(in.dst[0].R)
		forLanes(m, func(l int) {
			clamp := func(v uint64) uint64 {
				x := int64(int32(v))
				return uint64(min(max(x, lo), hi)) & (1<<n - 1)
			}
			if c == nil {
				dd[l] = clamp(a[l])<<16 | clamp(b[l])
				return
			}
			dd[l] = (c[l]<<(2*n) | clamp(a[l])<<n | clamp(b[l])) & 0xFFFFFFFF
		})
	}
	return nil
}
