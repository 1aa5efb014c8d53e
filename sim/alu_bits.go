package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Logic and bit manipulation: and/or/xor/not/cnot (also on predicates),
// shl/shr/shf, lop3, prmt, popc/clz/brev/bfind, bfe/bfi, bmsk, szext.

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
		return refLop3Pred.errorf("lop3 with a predicate output")
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
