package sim

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
)

// Integer and floating-point arithmetic: add/sub (with carries), mul, mad,
// div, rem, abs, neg, min, max, mul24/mad24, sad, dp4a/dp2a.

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
			return refFloatArith.errorf("%s.%s", d.x.Opcode, t)
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

func decDiv(d *decoder) error {
	t := d.in.typ
	switch t {
	case ptx.F32:
		if f := sfuForm(d, "div"); f != nil {
			d.in.approx = !f.Exact
			eval := f.Eval
			return d.set2(t, func(a, b uint64) uint64 { return eval(a, b) })
		}
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
		return refFloatArith.errorf("div.%s", t)
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
				return refXorsign.errorf("%s .xorsign", d.x.Opcode)
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
