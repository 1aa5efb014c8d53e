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

func ex2F32(x uint32) uint32 {
	// FSETP.GEU P0, x, -126: scale when x < -126
	if !isNaN32(x) && f32(x) < -126 {
		r := MufuEX2(fmul32(x, 0x3F000000, false, false))
		return fmul32(r, r, false, false)
	}
	return MufuEX2(x)
}

func lg2F32(x uint32) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		return fadd32(MufuLG2(fmul32(x, two24, false, false)), 0xC1C00000) // -24
	}
	return MufuLG2(x)
}

func rcpF32(x uint32) uint32 {
	s := uint32(0x3F800000)
	switch {
	case absGreater(x, f32Big):
		s = 0x3E800000 // 0.25
	case !isNaN32(x) && absLess(x, f32Min):
		s = two24
	}
	return fmul32(s, MufuRCP(fmul32(x, s, false, false)), false, false)
}

func rsqrtF32(x uint32) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		return fmul32(MufuRSQ(fmul32(x, two24, false, false)), 0x45800000, false, false) // 4096
	}
	return MufuRSQ(x)
}

func sqrtF32(x uint32) uint32 {
	if !isNaN32(x) && absLess(x, f32Min) {
		return fmul32(MufuSQRT(fmul32(x, two24, false, false)), 0x39800000, false, false) // 2^-12
	}
	return MufuSQRT(x)
}

func divApprox(a, b uint32, ftz bool) uint32 {
	if ftz {
		return fmul32(a, MufuRCP(b), true, false)
	}
	if !isNaN32(b) && absLess(b, f32Min) {
		b, a = fmul32(b, two24, false, false), fmul32(a, two24, false, false)
	}
	return fmul32(MufuRCP(b), a, false, false)
}

func divFull(a, b uint32, ftz bool) uint32 {
	if ftz {
		if absGreater(ftz32(b), f32Big) {
			b, a = fmul32(b, 0x3E800000, true, false), fmul32(a, 0x3E800000, true, false)
		}
		return fmul32(MufuRCP(b), a, true, false)
	}
	big := absGreater(b, f32Big)
	small := !isNaN32(b) && absLess(b, f32Min)
	if big {
		b, a = fmul32(b, 0x3E800000, false, false), fmul32(a, 0x3E800000, false, false)
	}
	if small {
		b, a = fmul32(b, two24, false, false), fmul32(a, two24, false, false)
	}
	return fmul32(MufuRCP(b), a, false, false)
}

// hi64 runs a MUFU.*64H operation: the result's low word is zero.
func hi64(f func(uint32) uint32) func(a, b uint64) uint64 {
	return func(a, _ uint64) uint64 { return uint64(f(uint32(a>>32))) << 32 }
}

// rsqrtF64 is rsqrt.approx.f64: MUFU.RSQ64H and one refinement in f64
// (y += y·e·(0.5 + 0.375·e), e = 1 - x·y²), with operands that are not
// normal positive numbers taken apart first.
func rsqrtF64(a, _ uint64) uint64 {
	x := f64(a)
	hi := uint32(a >> 32)
	refine := func(x float64) float64 {
		y := f64(uint64(MufuRSQ64H(uint32(bits64(x)>>32))) << 32)
		t := y * y
		e := math.FMA(x, -t, 1)
		c := math.FMA(e, 0.375, 0.5)
		m := y * e
		return math.FMA(c, m, y)
	}
	if hi-0x00100000 < 0x7FE00000 { // normal, positive
		return bits64(refine(x))
	}
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
	return bits64(refine(x*0x1p54) * 0x1p27) // subnormal
}

func un16(f func(uint16) uint16) func(a, b uint64) uint64 {
	return func(a, _ uint64) uint64 { return uint64(f(uint16(a))) }
}

func x2(f func(uint16) uint16) func(a, b uint64) uint64 {
	return func(a, _ uint64) uint64 { return uint64(f(uint16(a))) | uint64(f(uint16(a>>16)))<<16 }
}

func un32(f func(uint32) uint32) func(a, b uint64) uint64 {
	return func(a, _ uint64) uint64 { return uint64(f(uint32(a))) }
}

func init() {
	set := func(op, lowering string, eval func(a, b uint64) uint64) {
		f := MustLookup(op)
		f.Eval, f.Lowering = eval, lowering
	}
	set("ex2.approx.ftz.f32", "MUFU.EX2", un32(MufuEX2))
	set("ex2.approx.f32", "x < -126: MUFU.EX2(x·0.5)² (FMUL); else MUFU.EX2", un32(ex2F32))
	set("lg2.approx.ftz.f32", "MUFU.LG2", un32(MufuLG2))
	set("lg2.approx.f32", "|x| < 2^-126: MUFU.LG2(x·2^24) - 24 (FADD); else MUFU.LG2", un32(lg2F32))
	set("rcp.approx.ftz.f32", "MUFU.RCP", un32(MufuRCP))
	set("rcp.approx.f32", "s = 0.25 if |x| > 2^126, 2^24 if |x| < 2^-126, else 1: s·MUFU.RCP(x·s)", un32(rcpF32))
	set("rsqrt.approx.ftz.f32", "MUFU.RSQ", un32(MufuRSQ))
	set("rsqrt.approx.f32", "|x| < 2^-126: MUFU.RSQ(x·2^24)·4096; else MUFU.RSQ", un32(rsqrtF32))
	set("sqrt.approx.ftz.f32", "MUFU.SQRT", un32(MufuSQRT))
	set("sqrt.approx.f32", "|x| < 2^-126: MUFU.SQRT(x·2^24)·2^-12; else MUFU.SQRT", un32(sqrtF32))
	set("ex2.approx.f16", "MUFU.EX2.F16: MUFU.EX2 of the widened operand, truncated to f16", un16(half16(MufuEX2, false)))
	set("ex2.approx.f16x2", "MUFU.EX2.F16 on each half, PRMT", x2(half16(MufuEX2, false)))
	set("ex2.approx.ftz.bf16", "MUFU.EX2.BF16: MUFU.EX2 of the widened operand, truncated to bf16", un16(half16(MufuEX2, true)))
	set("ex2.approx.ftz.bf16x2", "MUFU.EX2.BF16 on each half, PRMT", x2(half16(MufuEX2, true)))
	sinLow := func(mufu func(uint32) uint32) func(a, b uint64) uint64 {
		return func(a, _ uint64) uint64 { return uint64(mufu(fmul32(uint32(a), invTwoPi32, false, true))) }
	}
	for _, op := range []string{"sin.approx.f32", "sin.approx.ftz.f32"} {
		set(op, "MUFU.SIN(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow(MufuSIN))
	}
	for _, op := range []string{"cos.approx.f32", "cos.approx.ftz.f32"} {
		set(op, "MUFU.COS(FMUL.RZ(x, 0.15915494)) (the same code with and without .ftz)", sinLow(MufuCOS))
	}
	set("tanh.approx.f32", "MUFU.TANH", un32(MufuTANH))
	set("tanh.approx.f16", "MUFU.TANH.F16: MUFU.TANH of the widened operand, truncated to f16", un16(half16(MufuTANH, false)))
	set("tanh.approx.f16x2", "MUFU.TANH.F16 on each half, PRMT", x2(half16(MufuTANH, false)))
	set("tanh.approx.bf16", "MUFU.TANH.BF16: MUFU.TANH of the widened operand, truncated to bf16", un16(half16(MufuTANH, true)))
	set("tanh.approx.bf16x2", "MUFU.TANH.BF16 on each half, PRMT", x2(half16(MufuTANH, true)))
	set("rcp.approx.ftz.f64", "MUFU.RCP64H on the high word; low word 0", hi64(MufuRCP64H))
	set("rsqrt.approx.ftz.f64", "MUFU.RSQ64H on the high word; low word 0", hi64(MufuRSQ64H))
	set("rsqrt.approx.f64", "MUFU.RSQ64H, then one DFMA refinement; zero, NaN, negative, infinity and subnormal operands on a slow path", rsqrtF64)
	set("div.approx.ftz.f32", "FMUL.FTZ(a, MUFU.RCP(b))", func(a, b uint64) uint64 { return uint64(divApprox(uint32(a), uint32(b), true)) })
	set("div.approx.f32", "|b| < 2^-126: a, b scaled by 2^24; MUFU.RCP(b)·a", func(a, b uint64) uint64 { return uint64(divApprox(uint32(a), uint32(b), false)) })
	set("div.full.ftz.f32", "|b| > 2^126: a, b scaled by 1/4 (FMUL.FTZ); FMUL.FTZ(MUFU.RCP(b), a)", func(a, b uint64) uint64 { return uint64(divFull(uint32(a), uint32(b), true)) })
	set("div.full.f32", "|b| > 2^126: a, b scaled by 1/4; |b| < 2^-126: by 2^24; MUFU.RCP(b)·a", func(a, b uint64) uint64 { return uint64(divFull(uint32(a), uint32(b), false)) })
}
