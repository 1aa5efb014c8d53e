package sfu

import "math"

// What ptxas 13.0 emits for each form on sm_90a (read from cuobjdump
// -sass), built from MUFU and exact FMUL/FADD steps.

// fmul32 is FMUL: a·b rounded once (to nearest even, or toward zero with
// rz); with ftz, subnormal operands and results are zero.
func fmul32(a, b uint32, ftz, rz bool) uint32 {
	if ftz {
		a, b = ftz32(a), ftz32(b)
	}
	p := float64(f32(a)) * float64(f32(b)) // exact
	if !rz && math.Abs(p) >= 0x1p-126 {
		return bits32(float32(p)) // a normal result or an infinity: nothing to flush
	}
	if p != p {
		return nan32
	}
	if ftz && p != 0 && math.Abs(p) < 0x1p-126 {
		// tininess after rounding: round to 24 bits with an unbounded
		// exponent; still below 2^-126 flushes, else it is the smallest normal
		if math.Abs(float64(float32(p*0x1p64))*0x1p-64) < 0x1p-126 {
			return (a ^ b) & signMask
		}
		return (a^b)&signMask | f32Min
	}
	r := float32(p)
	if rz && math.Abs(float64(r)) > math.Abs(p) {
		r = math.Float32frombits(math.Float32bits(r) - 1)
	}
	out := bits32(r)
	if ftz {
		out = ftz32(out)
	}
	return out
}

// fmulRN is fmul32(a, b, false, false), FMUL without .FTZ and .RZ: the
// exact product rounded once to nearest even (small enough to inline).
func fmulRN(a, b uint32) uint32 {
	p := float64(f32(a)) * float64(f32(b)) // exact
	if p != p {
		return nan32
	}
	return bits32(float32(p))
}

// fadd32 is FADD (round to nearest even, no ftz).
func fadd32(a, b uint32) uint32 {
	s := float64(f32(a)) + float64(f32(b)) // exact for these operands' use
	if s != s {
		return nan32
	}
	return bits32(float32(s))
}

const (
	f32Min     = 0x00800000 // 2^-126
	f32Big     = 0x7E800000 // 2^126
	two24      = 0x4B800000
	invTwoPi32 = 0x3E22F983 // 0.15915493667125701904, the FMUL.RZ constant before MUFU.SIN/COS
)

func absLess(x, lim uint32) bool    { a := x &^ signMask; return a < lim }                // |x| < lim (x not NaN)
func absGreater(x, lim uint32) bool { a := x &^ signMask; return a > lim && !isNaN32(x) } // |x| > lim, ordered

// The lowerings compute with the units directly and, when traced
// (t != nil), record each instruction's step after computing it: Eval
// runs them with t = nil, Explain with a tracer.

func ex2F32(x uint32, t *tracer) uint32 {
	// FSETP.GEU P0, x, -126: scale when x < -126
	if !isNaN32(x) && f32(x) < -126 {
		h := fmulRN(x, 0x3F000000)
		r := MufuEX2(h)
		out := fmulRN(r, r)
		if t != nil {
			t.note("FSETP", "x < -126: halve x, square the result")
			t.fmulStep(x, 0x3F000000, h, false, false)
			t.mufuStep("MUFU.EX2", h, r)
			t.fmulStep(r, r, out, false, false)
		}
		return out
	}
	r := MufuEX2(x)
	if t != nil {
		t.mufuStep("MUFU.EX2", x, r)
	}
	return r
}

func lg2F32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		s := fmulRN(x, two24)
		r := MufuLG2(s)
		out := fadd32(r, 0xC1C00000) // -24
		if t != nil {
			t.note("FSETP", "|x| < 2^-126: scale x by 2^24, subtract 24")
			t.fmulStep(x, two24, s, false, false)
			t.mufuStep("MUFU.LG2", s, r)
			t.faddStep(r, 0xC1C00000, out)
		}
		return out
	}
	r := MufuLG2(x)
	if t != nil {
		t.mufuStep("MUFU.LG2", x, r)
	}
	return r
}

func rcpF32(x uint32, t *tracer) uint32 {
	s := uint32(0x3F800000)
	switch {
	case absGreater(x, f32Big):
		s = 0x3E800000 // 0.25
	case !isNaN32(x) && absLess(x, f32Min):
		s = two24
	}
	xs := fmulRN(x, s)
	r := MufuRCP(xs)
	out := fmulRN(s, r)
	if t != nil {
		t.notef("FSEL", "scale s = %g (0.25 if |x| > 2^126, 2^24 if |x| < 2^-126, else 1)", f32(s))
		t.fmulStep(x, s, xs, false, false)
		t.mufuStep("MUFU.RCP", xs, r)
		t.fmulStep(s, r, out, false, false)
	}
	return out
}

// scaledMufu is MUFU op of x·2^24, times k (the lowering of rsqrt and
// sqrt for |x| < 2^-126).
func scaledMufu(unit string, op func(uint32) uint32, x, k uint32, t *tracer) uint32 {
	xs := fmulRN(x, two24)
	r := op(xs)
	out := fmulRN(r, k)
	if t != nil {
		t.fmulStep(x, two24, xs, false, false)
		t.mufuStep(unit, xs, r)
		t.fmulStep(r, k, out, false, false)
	}
	return out
}

func rsqrtF32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		t.note("FSETP", "|x| < 2^-126: scale x by 2^24, the result by 2^12")
		return scaledMufu("MUFU.RSQ", MufuRSQ, x, 0x45800000, t) // 4096
	}
	r := MufuRSQ(x)
	if t != nil {
		t.mufuStep("MUFU.RSQ", x, r)
	}
	return r
}

func sqrtF32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		t.note("FSETP", "|x| < 2^-126: scale x by 2^24, the result by 2^-12")
		return scaledMufu("MUFU.SQRT", MufuSQRT, x, 0x39800000, t) // 2^-12
	}
	r := MufuSQRT(x)
	if t != nil {
		t.mufuStep("MUFU.SQRT", x, r)
	}
	return r
}

// scaleBoth is b·s, a·s (FMUL, in that order): the divisions' scaling of
// both operands.
func scaleBoth(b, a, s uint32, ftz bool, t *tracer) (uint32, uint32) {
	bs, as := fmul32(b, s, ftz, false), fmul32(a, s, ftz, false)
	if t != nil {
		t.fmulStep(b, s, bs, ftz, false)
		t.fmulStep(a, s, as, ftz, false)
	}
	return bs, as
}

func divApprox(a, b uint32, ftz bool, t *tracer) uint32 {
	if ftz {
		r := MufuRCP(b)
		out := fmul32(a, r, true, false)
		if t != nil {
			t.mufuStep("MUFU.RCP", b, r)
			t.fmulStep(a, r, out, true, false)
		}
		return out
	}
	if !isNaN32(b) && absLess(b, f32Min) {
		t.note("FSETP", "|b| < 2^-126: scale a and b by 2^24")
		b, a = scaleBoth(b, a, two24, false, t)
	}
	r := MufuRCP(b)
	out := fmulRN(r, a)
	if t != nil {
		t.rcpTimesSteps(b, r, a, out, false)
	}
	return out
}

func divFull(a, b uint32, ftz bool, t *tracer) uint32 {
	switch {
	case ftz && absGreater(ftz32(b), f32Big), !ftz && absGreater(b, f32Big):
		t.note("FSETP", "|b| > 2^126: scale a and b by 1/4")
		b, a = scaleBoth(b, a, 0x3E800000, ftz, t)
	case !ftz && !isNaN32(b) && absLess(b, f32Min):
		t.note("FSETP", "|b| < 2^-126: scale a and b by 2^24")
		b, a = scaleBoth(b, a, two24, false, t)
	}
	r := MufuRCP(b)
	var out uint32
	if ftz {
		out = fmul32(r, a, true, false)
	} else {
		out = fmulRN(r, a)
	}
	if t != nil {
		t.rcpTimesSteps(b, r, a, out, ftz)
	}
	return out
}

// rcpTimesSteps records the divisions' last two instructions: r =
// MUFU.RCP(b), out = FMUL(r, a).
func (t *tracer) rcpTimesSteps(b, r, a, out uint32, ftz bool) {
	t.mufuStep("MUFU.RCP", b, r)
	t.fmulStep(r, a, out, ftz, false)
}

// hi64 runs a MUFU.*64H operation: the result's low word is zero.
func hi64(unit string, f func(uint32) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 {
		r := f(uint32(a >> 32))
		if t != nil {
			t.mufu64Step(unit, uint32(a>>32), r)
		}
		return uint64(r) << 32
	}
}

// rsqrtF64 is rsqrt.approx.f64: MUFU.RSQ64H and one refinement in f64
// (y += y·e·(0.5 + 0.375·e), e = 1 - x·y²), with operands that are not
// normal positive numbers taken apart first.
func rsqrtF64(a, _ uint64, t *tracer) uint64 {
	hi := uint32(a >> 32)
	if hi-0x00100000 < 0x7FE00000 { // normal, positive
		return bits64(rsqrtRefine(f64(a), t))
	}
	return rsqrtF64Slow(a, t)
}

// rsqrtF64Slow is rsqrt.approx.f64 of zero, NaN, negative, infinite and
// subnormal operands, told apart by their bits (arithmetic on a subnormal
// is slow on many CPUs).
func rsqrtF64Slow(a uint64, t *tracer) uint64 {
	hi := uint32(a >> 32)
	t.note("slow path", "x is zero, NaN, negative, infinite or subnormal")
	switch {
	case a<<1 == 0: // ±0
		return uint64(hi&signMask|0x7FF00000) << 32
	case a<<1 > 0x7FF0000000000000<<1: // NaN
		x := f64(a)
		return bits64(x + x) // quiet the NaN
	case hi&signMask != 0:
		return 0xFFF8000000000000
	case a == 0x7FF0000000000000: // +inf
		return 0
	}
	// x = a·2^-1074, so x·2^54 = a·2^-1020 exactly (a normal number)
	t.note("DMUL", "subnormal x: scale x by 2^54, the result by 2^27")
	return bits64(rsqrtRefine(float64(int64(a))*0x1p-1020, t) * 0x1p27)
}

// rsqrtRefine is MUFU.RSQ64H and the DMUL/DFMA refinement of
// rsqrt.approx.f64 for a normal positive x.
func rsqrtRefine(x float64, t *tracer) float64 {
	hi := uint32(bits64(x) >> 32)
	yh := MufuRSQ64H(hi)
	y := f64(uint64(yh) << 32)
	yy := y * y
	e := math.FMA(x, -yy, 1)
	c := math.FMA(e, 0.375, 0.5)
	m := y * e
	r := math.FMA(c, m, y)
	if t != nil {
		t.mufu64Step("MUFU.RSQ64H", hi, yh)
		t.notef("DFMA", "e = 1 - x·y² = %g; y + y·e·(0.5 + 0.375·e) = %#x (%.17g)", e, bits64(r), r)
	}
	return r
}

// runFn is a form's evaluation; with a tracer it records its steps.
type runFn = func(a, b uint64, t *tracer) uint64

func un16(unit string, op func(uint32) uint32, bf bool) runFn {
	return func(a, _ uint64, t *tracer) uint64 { return uint64(t.mufu16(unit, op, bf, uint16(a))) }
}

func x2(unit string, op func(uint32) uint32, bf bool) runFn {
	return func(a, _ uint64, t *tracer) uint64 {
		lo := t.mufu16(unit, op, bf, uint16(a))
		hi := t.mufu16(unit, op, bf, uint16(a>>16))
		return uint64(lo) | uint64(hi)<<16
	}
}

// mufu32 is a form that is one MUFU operation.
func mufu32(unit string, op func(uint32) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 {
		x := uint32(a)
		r := op(x)
		if t != nil {
			t.mufuStep(unit, x, r)
		}
		return uint64(r)
	}
}

func un32(f func(uint32, *tracer) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 { return uint64(f(uint32(a), t)) }
}

func bin32(f func(a, b uint32, ftz bool, t *tracer) uint32, ftz bool) runFn {
	return func(a, b uint64, t *tracer) uint64 { return uint64(f(uint32(a), uint32(b), ftz, t)) }
}

// sinLow is sin/cos.approx: MUFU.SIN or MUFU.COS of x·(1/2π), FMUL.RZ.
func sinLow(unit string, mufu func(uint32) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 {
		x := uint32(a)
		r := fmul32(x, invTwoPi32, false, true)
		out := mufu(r)
		if t != nil {
			t.fmulStep(x, invTwoPi32, r, false, true)
			t.mufuStep(unit, r, out)
		}
		return uint64(out)
	}
}

// evalFn is a form's Eval.
type evalFn = func(a, b uint64) uint64

func init() {
	// set gives a form its lowering, its traced evaluation and Eval: the
	// same code called directly (eval), or without one run with no tracer
	set := func(op, lowering string, run runFn, eval evalFn) {
		f := MustLookup(op)
		f.run, f.Lowering = run, lowering
		if eval == nil {
			eval = func(a, b uint64) uint64 { return run(a, b, nil) }
		}
		f.Eval = eval
	}
	set("ex2.approx.ftz.f32", "MUFU.EX2", mufu32("MUFU.EX2", MufuEX2), func(a, _ uint64) uint64 { return uint64(MufuEX2(uint32(a))) })
	set("ex2.approx.f32", "x < -126: MUFU.EX2(x·0.5)² (FMUL); else MUFU.EX2", un32(ex2F32), func(a, _ uint64) uint64 { return uint64(ex2F32(uint32(a), nil)) })
	set("lg2.approx.ftz.f32", "MUFU.LG2", mufu32("MUFU.LG2", MufuLG2), func(a, _ uint64) uint64 { return uint64(MufuLG2(uint32(a))) })
	set("lg2.approx.f32", "|x| < 2^-126: MUFU.LG2(x·2^24) - 24 (FADD); else MUFU.LG2", un32(lg2F32), func(a, _ uint64) uint64 { return uint64(lg2F32(uint32(a), nil)) })
	set("rcp.approx.ftz.f32", "MUFU.RCP", mufu32("MUFU.RCP", MufuRCP), func(a, _ uint64) uint64 { return uint64(MufuRCP(uint32(a))) })
	set("rcp.approx.f32", "s = 0.25 if |x| > 2^126, 2^24 if |x| < 2^-126, else 1: s·MUFU.RCP(x·s)", un32(rcpF32), func(a, _ uint64) uint64 { return uint64(rcpF32(uint32(a), nil)) })
	set("rsqrt.approx.ftz.f32", "MUFU.RSQ", mufu32("MUFU.RSQ", MufuRSQ), func(a, _ uint64) uint64 { return uint64(MufuRSQ(uint32(a))) })
	set("rsqrt.approx.f32", "|x| < 2^-126: MUFU.RSQ(x·2^24)·4096; else MUFU.RSQ", un32(rsqrtF32), func(a, _ uint64) uint64 { return uint64(rsqrtF32(uint32(a), nil)) })
	set("sqrt.approx.ftz.f32", "MUFU.SQRT", mufu32("MUFU.SQRT", MufuSQRT), func(a, _ uint64) uint64 { return uint64(MufuSQRT(uint32(a))) })
	set("sqrt.approx.f32", "|x| < 2^-126: MUFU.SQRT(x·2^24)·2^-12; else MUFU.SQRT", un32(sqrtF32), func(a, _ uint64) uint64 { return uint64(sqrtF32(uint32(a), nil)) })
	set("ex2.approx.f16", "MUFU.EX2.F16: MUFU.EX2 of the widened operand, truncated to f16", un16("MUFU.EX2", MufuEX2, false), nil)
	set("ex2.approx.f16x2", "MUFU.EX2.F16 on each half, PRMT", x2("MUFU.EX2", MufuEX2, false), nil)
	set("ex2.approx.ftz.bf16", "MUFU.EX2.BF16: MUFU.EX2 of the widened operand, truncated to bf16", un16("MUFU.EX2", MufuEX2, true), nil)
	set("ex2.approx.ftz.bf16x2", "MUFU.EX2.BF16 on each half, PRMT", x2("MUFU.EX2", MufuEX2, true), nil)
	for _, op := range []string{"sin.approx.f32", "sin.approx.ftz.f32"} {
		set(op, "MUFU.SIN(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow("MUFU.SIN", MufuSIN),
			func(a, _ uint64) uint64 { return uint64(MufuSIN(fmul32(uint32(a), invTwoPi32, false, true))) })
	}
	for _, op := range []string{"cos.approx.f32", "cos.approx.ftz.f32"} {
		set(op, "MUFU.COS(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow("MUFU.COS", MufuCOS),
			func(a, _ uint64) uint64 { return uint64(MufuCOS(fmul32(uint32(a), invTwoPi32, false, true))) })
	}
	set("tanh.approx.f32", "MUFU.TANH", mufu32("MUFU.TANH", MufuTANH), func(a, _ uint64) uint64 { return uint64(MufuTANH(uint32(a))) })
	set("tanh.approx.f16", "MUFU.TANH.F16: MUFU.TANH of the widened operand, truncated to f16", un16("MUFU.TANH", MufuTANH, false), nil)
	set("tanh.approx.f16x2", "MUFU.TANH.F16 on each half, PRMT", x2("MUFU.TANH", MufuTANH, false), nil)
	set("tanh.approx.bf16", "MUFU.TANH.BF16: MUFU.TANH of the widened operand, truncated to bf16", un16("MUFU.TANH", MufuTANH, true), nil)
	set("tanh.approx.bf16x2", "MUFU.TANH.BF16 on each half, PRMT", x2("MUFU.TANH", MufuTANH, true), nil)
	set("rcp.approx.ftz.f64", "MUFU.RCP64H on the high word; low word 0", hi64("MUFU.RCP64H", MufuRCP64H), func(a, _ uint64) uint64 { return uint64(MufuRCP64H(uint32(a>>32))) << 32 })
	set("rsqrt.approx.ftz.f64", "MUFU.RSQ64H on the high word; low word 0", hi64("MUFU.RSQ64H", MufuRSQ64H), func(a, _ uint64) uint64 { return uint64(MufuRSQ64H(uint32(a>>32))) << 32 })
	set("rsqrt.approx.f64", "MUFU.RSQ64H, then one DFMA refinement; zero, NaN, negative, infinity and subnormal operands on a slow path", rsqrtF64,
		func(a, _ uint64) uint64 {
			if uint32(a>>32)-0x00100000 < 0x7FE00000 { // normal, positive: rsqrtF64's fast path
				return bits64(rsqrtRefine(f64(a), nil))
			}
			return rsqrtF64Slow(a, nil)
		})
	set("div.approx.ftz.f32", "FMUL.FTZ(a, MUFU.RCP(b))", bin32(divApprox, true), func(a, b uint64) uint64 { return uint64(divApprox(uint32(a), uint32(b), true, nil)) })
	set("div.approx.f32", "|b| < 2^-126: a, b scaled by 2^24; MUFU.RCP(b)·a", bin32(divApprox, false), func(a, b uint64) uint64 { return uint64(divApprox(uint32(a), uint32(b), false, nil)) })
	set("div.full.ftz.f32", "|b| > 2^126: a, b scaled by 1/4 (FMUL.FTZ); FMUL.FTZ(MUFU.RCP(b), a)", bin32(divFull, true), func(a, b uint64) uint64 { return uint64(divFull(uint32(a), uint32(b), true, nil)) })
	set("div.full.f32", "|b| > 2^126: a, b scaled by 1/4; |b| < 2^-126: by 2^24; MUFU.RCP(b)·a", bin32(divFull, false), func(a, b uint64) uint64 { return uint64(divFull(uint32(a), uint32(b), false, nil)) })
}
