package sfu

import "math"

// Reference is the float64 evaluation of an operation (the approximation
// tcsim used before the unit was modelled), rounded to the result format:
// the yardstick the dumps are encoded against and the baseline of the
// benchmarks.
func Reference(f *Form, a, b uint64) uint64 { return f.ref(a, b) }

// makeRef builds Reference's evaluation of f, with the form's format and
// modifiers decided once.
func makeRef(f *Form) func(a, b uint64) uint64 {
	fn := refFunc(f.Base())
	ftz := f.FTZ()
	bf := f.Half() == "bf16"
	switch f.Kind {
	case Unary32:
		return func(a, _ uint64) uint64 {
			x := uint32(a)
			if ftz {
				x = ftz32(x)
			}
			r := bits32(float32(fn(float64(f32(x)))))
			if isNaN32(r) {
				r = nan32
			}
			if ftz {
				r = ftz32(r)
			}
			return uint64(r)
		}
	case Binary32:
		return func(a, b uint64) uint64 {
			x, y := uint32(a), uint32(b)
			if ftz {
				x, y = ftz32(x), ftz32(y)
			}
			r := bits32(float32(float64(f32(x)) / float64(f32(y))))
			if isNaN32(r) {
				r = nan32
			}
			if ftz {
				r = ftz32(r)
			}
			return uint64(r)
		}
	case Unary64:
		return func(a, _ uint64) uint64 {
			r := fn(f64(a))
			if r != r {
				return nan64
			}
			return bits64(r)
		}
	case Unary16:
		return func(a, _ uint64) uint64 {
			x := float64(f32(halfToF32(uint16(a), bf)))
			return uint64(f32ToHalf(bits32(float32(fn(x))), bf))
		}
	case Unary16x2:
		return func(a, _ uint64) uint64 {
			var out uint64
			for k := 0; k < 2; k++ {
				x := float64(f32(halfToF32(uint16(a>>(16*k)), bf)))
				out |= uint64(f32ToHalf(bits32(float32(fn(x))), bf)) << (16 * k)
			}
			return out
		}
	}
	return func(uint64, uint64) uint64 { return 0 }
}

func refFunc(op string) func(float64) float64 {
	switch op {
	case "ex2":
		return math.Exp2
	case "lg2":
		return math.Log2
	case "rcp":
		return func(x float64) float64 { return 1 / x }
	case "rsqrt":
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case "sqrt":
		return math.Sqrt
	case "sin":
		return math.Sin
	case "cos":
		return math.Cos
	case "tanh":
		return math.Tanh
	}
	return func(x float64) float64 { return x }
}

// makeForms registers every form with the Reference as its Eval; the
// model files replace it.
func makeForms() map[string]*Form {
	m := map[string]*Form{}
	add := func(k Kind, ops ...string) {
		for _, op := range ops {
			f := &Form{Op: op, Kind: k}
			f.ref = makeRef(f)
			f.Eval = f.ref
			m[op] = f
		}
	}
	add(Unary32, "ex2.approx.f32", "ex2.approx.ftz.f32",
		"lg2.approx.f32", "lg2.approx.ftz.f32",
		"rcp.approx.f32", "rcp.approx.ftz.f32",
		"rsqrt.approx.f32", "rsqrt.approx.ftz.f32",
		"sqrt.approx.f32", "sqrt.approx.ftz.f32",
		"sin.approx.f32", "sin.approx.ftz.f32",
		"cos.approx.f32", "cos.approx.ftz.f32",
		"tanh.approx.f32")
	add(Unary16, "ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16")
	add(Unary16x2, "ex2.approx.f16x2", "ex2.approx.ftz.bf16x2", "tanh.approx.f16x2", "tanh.approx.bf16x2")
	add(Unary64, "rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64")
	add(Binary32, "div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32")
	return m
}
