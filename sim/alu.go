package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
)

// The ALU core: instruction functions over 1, 2 or 3 lane values, the
// decoder helpers that set them up, and the rounding mode of a float
// instruction. The instruction families are in alu_arith.go (add ... dp4a),
// alu_float.go (fma, halves, sqrt/rcp/ex2 ...), alu_bits.go (logic, shifts,
// bit fields), alu_cmp.go (setp, selp, set, slct) and alu_cvt.go (mov, cvt).

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
