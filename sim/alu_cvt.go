package sim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
)

// Moves and conversions: mov (including packing and .b128), cvt,
// cvt.pack.

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
