package sfu

import (
	"fmt"
	"math"
)

// A Step is one stage of an instruction's evaluation, for explanations
// (tcsim num OPCODE VALUE --explain).
type Step struct {
	Unit string // the SASS instruction or the unit's stage: FMUL.RZ, MUFU.EX2, table, ...
	Text string // what it did, in words and numbers
}

// Explain evaluates the form on operands a, b and returns the result with
// the steps that produced it: the instructions ptxas emits and, inside
// each MUFU, the fixed-point operand, the table interval and coefficients,
// the exact sum and its truncation.
func (f *Form) Explain(a, b uint64) (uint64, []Step) {
	t := &tracer{}
	if f.run == nil {
		t.note("float64", "no model of the unit: computed in float64 and rounded (not bit-exact)")
		return f.Eval(a, b), t.steps
	}
	r := f.run(a, b, t)
	return r, t.steps
}

// tracer records steps; a nil tracer records nothing (the fast path).
type tracer struct{ steps []Step }

func (t *tracer) note(unit, text string) {
	if t != nil {
		t.steps = append(t.steps, Step{unit, text})
	}
}

func (t *tracer) notef(unit, format string, args ...any) {
	if t != nil {
		t.steps = append(t.steps, Step{unit, fmt.Sprintf(format, args...)})
	}
}

func f32Text(b uint32) string { return fmt.Sprintf("%#08x (%s)", b, fmtFloat(float64(f32(b)))) }

func fmtFloat(v float64) string {
	if v != v {
		return "NaN"
	}
	return fmt.Sprintf("%.9g", v)
}

// The steps of the instructions, recorded by the lowering (lowering.go)
// after it computed them, only when it is traced (t != nil): the fast
// path, Eval, calls the units directly.

// fmulStep records FMUL a·b = r.
func (t *tracer) fmulStep(a, b, r uint32, ftz, rz bool) {
	unit := "FMUL"
	if rz {
		unit += ".RZ"
	}
	if ftz {
		unit += ".FTZ"
	}
	t.note(unit, fmt.Sprintf("%s · %s = %s", f32Text(a), f32Text(b), f32Text(r)))
}

// faddStep records FADD a+b = r.
func (t *tracer) faddStep(a, b, r uint32) {
	t.notef("FADD", "%s + %s = %s", f32Text(a), f32Text(b), f32Text(r))
}

// mufuStep records a MUFU operation on an f32 operand: what the unit does
// inside, and its result.
func (t *tracer) mufuStep(unit string, x, r uint32) {
	t.core(unit, x)
	t.note(unit, fmt.Sprintf("%s → %s", f32Text(x), f32Text(r)))
}

// mufu16 is a MUFU operation's .F16/.BF16 form: the operand widened to
// f32, the f32 operation, the result truncated.
func (t *tracer) mufu16(unit string, op func(uint32) uint32, bf bool, h uint16) uint16 {
	w := halfToF32(h, bf)
	r := op(w)
	out := f32ToHalfTrunc(r, bf)
	if t != nil {
		name := "f16"
		if bf {
			name = "bf16"
		}
		t.note("widen", fmt.Sprintf("%s %#04x → f32 %s", name, h, f32Text(w)))
		t.core(unit, w)
		t.note(unit, fmt.Sprintf("%s → %s", f32Text(w), f32Text(r)))
		t.note("truncate", fmt.Sprintf("to %s toward zero: %#04x (%s)", name, out, fmtFloat(float64(f32(halfToF32(out, bf))))))
	}
	return out
}

// mufu64Step records a MUFU.*64H operation on the high word hi.
func (t *tracer) mufu64Step(unit string, hi, r uint32) {
	t.core64(unit, hi)
	t.note(unit, fmt.Sprintf("high word %#08x → %#08x (low word 0: %.17g)", hi, r, f64(uint64(r)<<32)))
}

// table describes one interpolation.
func (t *tracer) table(name string, q *Quad, i int, xl uint32, unit string) {
	sq := truncSquare(uint(q.L), xl)
	S := float64(q.Sum(i, xl)) / float64(int64(1)<<(q.L+3))
	t.note("table", fmt.Sprintf("%s interval %d, Xl = %#x (t = %.9f, %d bits): S = C0 + C1·t + C2·sq(t) + Δ = %.3f %+.1f·t %+.1f·%d/2^15 + %.7f = %.6f %s",
		name, i, xl, float64(xl)/float64(int64(1)<<q.L), q.L, float64(q.C0[i])/8, float64(q.C1[i])/2, float64(q.C2[i])/2, sq, float64(q.Delta)/float64(int64(1)<<(q.L+3)), S, unit))
}

// core describes what a MUFU does with an f32 operand.
func (t *tracer) core(unit string, x uint32) {
	a := x &^ signMask
	if isNaN32(x) || a&expMask == 0 || a == posInf {
		t.note("special", fmt.Sprintf("%s: zero, subnormal (read as zero), infinity or NaN", f32Text(x)))
		return
	}
	e := int(a>>23) - 127
	m := a & manMask
	switch unit {
	case "MUFU.EX2":
		if a >= 0x43000000 {
			t.note("special", "|x| >= 128: overflow or underflow")
			return
		}
		n, F := ex2Fixed(x)
		t.note("fixed point", fmt.Sprintf("x·2^23 toward zero, split as n = %d and F = %#x (2^x = 2^n · 2^(F/2^23))", n, F))
		t.table("2^f", quadEX2, int(F>>17), F&(1<<17-1), "units of 2^-23; the significand is floor(S)")
	case "MUFU.RCP":
		t.table("1/m", quadRCP, int(m>>16), m&0xFFFF, "units of 2^-24; the significand is floor(S)")
	case "MUFU.RSQ", "MUFU.SQRT":
		if x&signMask != 0 {
			t.note("special", "negative operand: NaN")
			return
		}
		q, name, units := quadRSQ, "1/sqrt(m)", "units of 2^-24"
		if unit == "MUFU.SQRT" {
			q, name, units = quadSQRT, "sqrt(m)", "units of 2^-23"
		}
		t.note("exponent", fmt.Sprintf("x = 4^%d · m, m in [%d, %d): table %d", e>>1, 1+e&1, 2+2*(e&1), e&1))
		if unit == "MUFU.RSQ" && m == 0 && e&1 == 0 {
			t.note("exact", "a power of 4: the result is exact")
			return
		}
		t.table(name, q[e&1], int(m>>17), m&(1<<17-1), units+"; the significand is floor(S)")
	case "MUFU.LG2":
		if x&signMask != 0 {
			t.note("special", "negative operand: NaN")
			return
		}
		if a == 0x3F800000 {
			t.note("exact", "log2(1) = 0")
			return
		}
		t.table("log2(m)", quadLG2, int(m>>17), m&(1<<17-1), "units of 2^-24")
		t.note("fixed point", fmt.Sprintf("%d + S·2^-24, S truncated to 2^-%d; a negative sum is the one's complement; truncated toward zero to 24 bits", e, 24+lg2Frac))
	case "MUFU.SIN", "MUFU.COS":
		q, f, _ := sinArg(x, unit == "MUFU.COS")
		t.note("fixed point", fmt.Sprintf("|r|·2^25 mod 2^25 (turns; cos adds a quarter): quadrant %d, position %#x%s", q, f, map[bool]string{true: " (odd quadrant: one's complement)"}[q&1 == 1]))
		t.table("sin(π/2·f)", quadSIN, int(f>>17), f&(1<<17-1), "units of 2^-24, truncated toward zero to 24 bits")
	case "MUFU.TANH":
		switch {
		case e < tanhMinExp:
			t.note("small", "|x| < 2^-8: tanh(x) = x")
		case e > tanhMaxExp:
			t.note("saturate", "|x| >= 8: ±1")
		default:
			k, i, xl := tanhSplit(e, m)
			t.table(fmt.Sprintf("tanh on [2^%d, 2^%d)", e, e+1), quadTANH[k], i, xl, fmt.Sprintf("units of 2^%d, truncated toward zero to 24 bits", e-24))
		}
	}
}

// core64 describes MUFU.RCP64H and RSQ64H.
func (t *tracer) core64(unit string, hi uint32) {
	a := hi &^ signMask
	if a >= 0x7FF00000 || a&0x7FF00000 == 0 {
		t.note("special", "zero, subnormal (read as zero), infinity or NaN")
		return
	}
	e := int(a>>20) - 1023
	m := (a & 0xFFFFF) << 3
	switch unit {
	case "MUFU.RCP64H":
		t.table("1/m", quadRCP, int(m>>16), m&0xFFFF, "units of 2^-24; the significand is floor(S), truncated to 20 fraction bits")
	case "MUFU.RSQ64H":
		if hi&signMask != 0 {
			t.note("special", "negative operand: NaN")
			return
		}
		t.note("exponent", fmt.Sprintf("x = 4^%d · m, table %d", e>>1, e&1))
		if m == 0 && e&1 == 0 {
			t.note("exact", "a power of 4: the result is exact")
			return
		}
		t.table("1/sqrt(m)", quadRSQ[e&1], int(m>>17), m&(1<<17-1), "units of 2^-24; the significand is floor(S), truncated to 20 fraction bits")
	}
}

var _ = math.Inf
