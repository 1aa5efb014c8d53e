package sim

import (
	"math"
	"math/big"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/sfu"
)

// Floating-point helpers and instructions: the f32 flush/saturate
// wrappers, fma, f16/bf16 (and x2) arithmetic, copysign, testp and the
// approximate functions (sqrt, rcp, rsqrt, ex2, lg2, sin, cos, tanh).

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
			return refFmaHalfSat.errorf("fma.%s with .sat/.relu/.oob", t)
		}
		return d.setHalf3(t)
	case ptx.F32x2:
		mode := d.mode()
		return d.set3(t, f32x2Op3(d.has("ftz"), func(x, y, z uint32) uint32 { return fmaF32(x, y, z, mode) }))
	}
	return refFloatArith.errorf("fma.%s", t)
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

// sfuForm returns the special function unit's model of an approximate
// instruction (.approx, or div.full), or nil.
func sfuForm(d *decoder, op string) *sfu.Form {
	name := op
	switch {
	case d.has("approx"):
		name += ".approx"
	case op == "div" && d.has("full"):
		name += ".full"
	default:
		return nil
	}
	if d.has("ftz") {
		name += ".ftz"
	}
	return sfu.Lookup(name + "." + d.in.typ.String())
}

// Approximate math runs the special function unit's model (package
// sim/sfu): bit-exact where the model is verified on the H100 (Form.Exact),
// otherwise computed as well as known and marked not bit-exact. Forms
// without a model are computed in float64 and rounded, also marked.
func decMath(op string) decodeFn {
	return func(d *decoder) error {
		t := d.in.typ
		if f := sfuForm(d, op); f != nil {
			d.in.approx = !f.Exact
			eval := f.Eval
			return d.set1(t, func(a uint64) uint64 { return eval(a, 0) })
		}
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
		return refFloatArith.errorf("%s.%s", op, t)
	}
}
