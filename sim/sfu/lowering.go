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

func ex2F32(x uint32, t *tracer) uint32 {
	// FSETP.GEU P0, x, -126: scale when x < -126
	if !isNaN32(x) && f32(x) < -126 {
		t.note("FSETP", "x < -126: halve x, square the result")
		h := t.fmul(x, 0x3F000000, false, false)
		r := t.mufu("MUFU.EX2", MufuEX2, h)
		return t.fmul(r, r, false, false)
	}
	return t.mufu("MUFU.EX2", MufuEX2, x)
}

func lg2F32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		t.note("FSETP", "|x| < 2^-126: scale x by 2^24, subtract 24")
		r := t.mufu("MUFU.LG2", MufuLG2, t.fmul(x, two24, false, false))
		return t.fadd(r, 0xC1C00000) // -24
	}
	return t.mufu("MUFU.LG2", MufuLG2, x)
}

func rcpF32(x uint32, t *tracer) uint32 {
	s := uint32(0x3F800000)
	switch {
	case absGreater(x, f32Big):
		s = 0x3E800000 // 0.25
	case !isNaN32(x) && absLess(x, f32Min):
		s = two24
	}
	if t != nil {
		t.notef("FSEL", "scale s = %g (0.25 if |x| > 2^126, 2^24 if |x| < 2^-126, else 1)", f32(s))
	}
	return t.fmul(s, t.mufu("MUFU.RCP", MufuRCP, t.fmul(x, s, false, false)), false, false)
}

func rsqrtF32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		t.note("FSETP", "|x| < 2^-126: scale x by 2^24, the result by 2^12")
		return t.fmul(t.mufu("MUFU.RSQ", MufuRSQ, t.fmul(x, two24, false, false)), 0x45800000, false, false) // 4096
	}
	return t.mufu("MUFU.RSQ", MufuRSQ, x)
}

func sqrtF32(x uint32, t *tracer) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		t.note("FSETP", "|x| < 2^-126: scale x by 2^24, the result by 2^-12")
		return t.fmul(t.mufu("MUFU.SQRT", MufuSQRT, t.fmul(x, two24, false, false)), 0x39800000, false, false) // 2^-12
	}
	return t.mufu("MUFU.SQRT", MufuSQRT, x)
}

func divApprox(a, b uint32, ftz bool, t *tracer) uint32 {
	if ftz {
		return t.fmul(a, t.mufu("MUFU.RCP", MufuRCP, b), true, false)
	}
	if !isNaN32(b) && absLess(b, f32Min) {
		t.note("FSETP", "|b| < 2^-126: scale a and b by 2^24")
		b, a = t.fmul(b, two24, false, false), t.fmul(a, two24, false, false)
	}
	return t.fmul(t.mufu("MUFU.RCP", MufuRCP, b), a, false, false)
}

func divFull(a, b uint32, ftz bool, t *tracer) uint32 {
	if ftz {
		if absGreater(ftz32(b), f32Big) {
			t.note("FSETP", "|b| > 2^126: scale a and b by 1/4")
			b, a = t.fmul(b, 0x3E800000, true, false), t.fmul(a, 0x3E800000, true, false)
		}
		return t.fmul(t.mufu("MUFU.RCP", MufuRCP, b), a, true, false)
	}
	big := absGreater(b, f32Big)
	small := !isNaN32(b) && absLess(b, f32Min)
	if big {
		t.note("FSETP", "|b| > 2^126: scale a and b by 1/4")
		b, a = t.fmul(b, 0x3E800000, false, false), t.fmul(a, 0x3E800000, false, false)
	}
	if small {
		t.note("FSETP", "|b| < 2^-126: scale a and b by 2^24")
		b, a = t.fmul(b, two24, false, false), t.fmul(a, two24, false, false)
	}
	return t.fmul(t.mufu("MUFU.RCP", MufuRCP, b), a, false, false)
}

// hi64 runs a MUFU.*64H operation: the result's low word is zero.
func hi64(unit string, f func(uint32) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 {
		return uint64(t.mufu64(unit, f, uint32(a>>32))) << 32
	}
}

// rsqrtF64 is rsqrt.approx.f64: MUFU.RSQ64H and one refinement in f64
// (y += y·e·(0.5 + 0.375·e), e = 1 - x·y²), with operands that are not
// normal positive numbers taken apart first.
func rsqrtF64(a, _ uint64, t *tracer) uint64 {
	x := f64(a)
	hi := uint32(a >> 32)
	if hi-0x00100000 < 0x7FE00000 { // normal, positive
		return bits64(rsqrtRefine(x, t))
	}
	t.note("slow path", "x is zero, NaN, negative, infinite or subnormal")
	switch {
	case x == 0:
		return uint64(hi&signMask|0x7FF00000) << 32
	case x != x:
		return bits64(x + x) // quiet the NaN
	case hi&signMask != 0:
		return 0xFFF8000000000000
	case math.IsInf(x, 1):
		return 0
	}
	t.note("DMUL", "subnormal x: scale x by 2^54, the result by 2^27")
	return bits64(rsqrtRefine(x*0x1p54, t) * 0x1p27) // subnormal
}

// rsqrtRefine is MUFU.RSQ64H and the DMUL/DFMA refinement of
// rsqrt.approx.f64 for a normal positive x.
func rsqrtRefine(x float64, t *tracer) float64 {
	y := f64(uint64(t.mufu64("MUFU.RSQ64H", MufuRSQ64H, uint32(bits64(x)>>32))) << 32)
	yy := y * y
	e := math.FMA(x, -yy, 1)
	c := math.FMA(e, 0.375, 0.5)
	m := y * e
	r := math.FMA(c, m, y)
	if t != nil {
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
	return func(a, _ uint64, t *tracer) uint64 { return uint64(t.mufu(unit, op, uint32(a))) }
}

func un32(f func(uint32, *tracer) uint32) runFn {
	return func(a, _ uint64, t *tracer) uint64 { return uint64(f(uint32(a), t)) }
}

func bin32(f func(a, b uint32, ftz bool, t *tracer) uint32, ftz bool) runFn {
	return func(a, b uint64, t *tracer) uint64 { return uint64(f(uint32(a), uint32(b), ftz, t)) }
}

func init() {
	set := func(op, lowering string, run runFn) {
		f := MustLookup(op)
		f.run, f.Lowering = run, lowering
		f.Eval = func(a, b uint64) uint64 { return run(a, b, nil) }
	}
	set("ex2.approx.ftz.f32", "MUFU.EX2", mufu32("MUFU.EX2", MufuEX2))
	set("ex2.approx.f32", "x < -126: MUFU.EX2(x·0.5)² (FMUL); else MUFU.EX2", un32(ex2F32))
	set("lg2.approx.ftz.f32", "MUFU.LG2", mufu32("MUFU.LG2", MufuLG2))
	set("lg2.approx.f32", "|x| < 2^-126: MUFU.LG2(x·2^24) - 24 (FADD); else MUFU.LG2", un32(lg2F32))
	set("rcp.approx.ftz.f32", "MUFU.RCP", mufu32("MUFU.RCP", MufuRCP))
	set("rcp.approx.f32", "s = 0.25 if |x| > 2^126, 2^24 if |x| < 2^-126, else 1: s·MUFU.RCP(x·s)", un32(rcpF32))
	set("rsqrt.approx.ftz.f32", "MUFU.RSQ", mufu32("MUFU.RSQ", MufuRSQ))
	set("rsqrt.approx.f32", "|x| < 2^-126: MUFU.RSQ(x·2^24)·4096; else MUFU.RSQ", un32(rsqrtF32))
	set("sqrt.approx.ftz.f32", "MUFU.SQRT", mufu32("MUFU.SQRT", MufuSQRT))
	set("sqrt.approx.f32", "|x| < 2^-126: MUFU.SQRT(x·2^24)·2^-12; else MUFU.SQRT", un32(sqrtF32))
	set("ex2.approx.f16", "MUFU.EX2.F16: MUFU.EX2 of the widened operand, truncated to f16", un16("MUFU.EX2", MufuEX2, false))
	set("ex2.approx.f16x2", "MUFU.EX2.F16 on each half, PRMT", x2("MUFU.EX2", MufuEX2, false))
	set("ex2.approx.ftz.bf16", "MUFU.EX2.BF16: MUFU.EX2 of the widened operand, truncated to bf16", un16("MUFU.EX2", MufuEX2, true))
	set("ex2.approx.ftz.bf16x2", "MUFU.EX2.BF16 on each half, PRMT", x2("MUFU.EX2", MufuEX2, true))
	sinLow := func(unit string, mufu func(uint32) uint32) runFn {
		return func(a, _ uint64, t *tracer) uint64 {
			return uint64(t.mufu(unit, mufu, t.fmul(uint32(a), invTwoPi32, false, true)))
		}
	}
	for _, op := range []string{"sin.approx.f32", "sin.approx.ftz.f32"} {
		set(op, "MUFU.SIN(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow("MUFU.SIN", MufuSIN))
	}
	for _, op := range []string{"cos.approx.f32", "cos.approx.ftz.f32"} {
		set(op, "MUFU.COS(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow("MUFU.COS", MufuCOS))
	}
	set("tanh.approx.f32", "MUFU.TANH", mufu32("MUFU.TANH", MufuTANH))
	set("tanh.approx.f16", "MUFU.TANH.F16: MUFU.TANH of the widened operand, truncated to f16", un16("MUFU.TANH", MufuTANH, false))
	set("tanh.approx.f16x2", "MUFU.TANH.F16 on each half, PRMT", x2("MUFU.TANH", MufuTANH, false))
	set("tanh.approx.bf16", "MUFU.TANH.BF16: MUFU.TANH of the widened operand, truncated to bf16", un16("MUFU.TANH", MufuTANH, true))
	set("tanh.approx.bf16x2", "MUFU.TANH.BF16 on each half, PRMT", x2("MUFU.TANH", MufuTANH, true))
	set("rcp.approx.ftz.f64", "MUFU.RCP64H on the high word; low word 0", hi64("MUFU.RCP64H", MufuRCP64H))
	set("rsqrt.approx.ftz.f64", "MUFU.RSQ64H on the high word; low word 0", hi64("MUFU.RSQ64H", MufuRSQ64H))
	set("rsqrt.approx.f64", "MUFU.RSQ64H, then one DFMA refinement; zero, NaN, negative, infinity and subnormal operands on a slow path", rsqrtF64)
	set("div.approx.ftz.f32", "FMUL.FTZ(a, MUFU.RCP(b))", bin32(divApprox, true))
	set("div.approx.f32", "|b| < 2^-126: a, b scaled by 2^24; MUFU.RCP(b)·a", bin32(divApprox, false))
	set("div.full.ftz.f32", "|b| > 2^126: a, b scaled by 1/4 (FMUL.FTZ); FMUL.FTZ(MUFU.RCP(b), a)", bin32(divFull, true))
	set("div.full.f32", "|b| > 2^126: a, b scaled by 1/4; |b| < 2^-126: by 2^24; MUFU.RCP(b)·a", bin32(divFull, false))
}
