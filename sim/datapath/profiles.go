package datapath

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// Source says where a profile's parameters come from.
type Source string

const (
	// HardwareVerified profiles agree bit for bit with an H100 on the
	// recorded campaigns under fixtures/numerics.
	HardwareVerified Source = "hardware-verified (H100)"
	// NotHardwareVerified profiles are modelled from public evidence only.
	NotHardwareVerified Source = "not hardware-verified"
	// Approximate profiles were measured on the H100 and do not yet agree
	// bit for bit; the note says how often they differ.
	Approximate Source = "approximate (not bit-exact)"
)

// Hopper returns the sm_90a float datapath for a×b+c with the given
// formats, as the H100 computes it (see fixtures/numerics/README.md):
//
//   - every product and the accumulator are fused in one step (no split K);
//   - zero terms do not take part in choosing the anchor exponent;
//   - each term is aligned to the anchor and truncated toward zero to 25
//     fraction bits (13 when the inputs are FP8);
//   - an f32 result is truncated (round toward zero) to 23 mantissa bits,
//     or to 13 with FP8 inputs (an e8m13 value held in an f32); an f16
//     result is rounded to nearest even;
//   - a result that underflows to zero is +0; overflow gives Inf;
//   - NaN results are the canonical NaN of the accumulator format.
func Hopper(a, b, c *numfmt.Format) *Model {
	nan, _ := c.CanonicalNaN()
	m := &Model{A: a, B: b, C: c, FracBits: 25, ZeroExp: -126, Out: RoundTowardZero, NaN: nan}
	if c.Bits == 16 {
		m.Out = RoundNearestEven
	}
	if a.Bits == 8 {
		m.FracBits = 13
		if c.Bits == 32 {
			m.OutMantBits = 13
		}
	}
	return m
}

// HopperInt returns the sm_90a integer datapath (exact, 32-bit wrap, or
// saturation with .satfinite; b1 uses AND + popc).
func HopperInt(a, b *numfmt.Format, satfinite bool) *IntModel {
	return &IntModel{A: a, B: b, Saturate: satfinite, B1: a.Kind == numfmt.BitKind}
}

// MMASyncFP8 is the sm_90 mma.sync datapath for FP8 inputs (m16n8k32 and
// m16n8k16, e4m3/e5m2 in any mix), as the H100 computes it. sm_90 has no
// FP8 mma.sync: ptxas unpacks every 32-bit register of four FP8 values into
// two f16 pairs (F2FP.F16.E4M3/E5M2.UNPACK_B) and runs two f16 MMAs
// (HMMA.16816 for k32, HMMA.1688 for k16), then adds C (FADD, HADD2):
//
//   - the conversion to f16 is exact; an e4m3 subnormal becomes a normal
//     f16 and aligns by its true exponent (e5m2 subnormals stay subnormal);
//   - step 1 takes the products k mod 4 in {0, 1} and starts from +0, not
//     from C; step 2 takes k mod 4 in {2, 3} with step 1's result as its
//     accumulator;
//   - each step is the f16 tensor-core datapath: products and accumulator
//     aligned to the largest exponent, 25 fraction bits, truncated toward
//     zero, normalised toward zero into f32 (or to nearest even into f16);
//   - C is added last, as an IEEE addition rounded to nearest even.
//
// There is no 13-bit (e8m13) truncation as in wgmma's FP8 datapath.
func MMASyncFP8(a, b, c *numfmt.Format) *Model {
	m := Hopper(a, b, c)
	m.FracBits, m.OutMantBits = 25, 0
	m.PairSteps, m.HoldC, m.CAddRound, m.Widen = true, true, RoundNearestEven, mustFormat("f16")
	return m
}

// MMASync returns the sm_90 mma.sync datapath and how far it is verified:
// f16, bf16, tf32 and integer inputs share the wgmma datapath, FP8 inputs
// use MMASyncFP8 (two f16 k16 steps, then C); both are bit-exact on the
// H100 campaigns (fixtures/numerics).
func MMASync(a, b, c *numfmt.Format, satfinite bool) (Evaluator, Source) {
	switch {
	case !a.IsFloat():
		return HopperInt(a, b, satfinite), HardwareVerified
	case a.Bits == 8:
		return MMASyncFP8(a, b, c), HardwareVerified
	}
	return Hopper(a, b, c), HardwareVerified
}

// MMASyncNote says, for an sm_90 mma.sync with A elements of format a, which
// datapath the profile models and how it was verified.
func MMASyncNote(a *numfmt.Format) string {
	switch {
	case a.IsFloat() && a.Bits == 8:
		return "sm_90 mma.sync with FP8 inputs: emulated by ptxas as two f16 MMAs (products k mod 4 in {0,1}, then {2,3}, from +0) and then C added with round-to-nearest; bit-exact on 2^20 dot products per input mix, accumulator and shape on the H100 (fixtures/numerics)"
	case a.IsFloat():
		return "sm_90 mma.sync: the wgmma datapath (bit-exact on 2^20 dot products per type on the H100)"
	}
	return "sm_90 mma.sync: exact integer products, 32-bit wrap or .satfinite (bit-exact on 2^20 dot products per type on the H100)"
}

// ForVariant returns the H100 evaluator of a probe variant.
func ForVariant(v Variant) Evaluator {
	if v.Family == "mma" {
		ev, _ := MMASync(v.A, v.B, v.C, v.Sat)
		return ev
	}
	if !v.A.IsFloat() {
		return HopperInt(v.A, v.B, v.Sat)
	}
	return Hopper(v.A, v.B, v.C)
}

// VariantByName finds a probe variant by its harness name.
func VariantByName(name string) (Variant, error) {
	var names []string
	for _, v := range ProbeVariants() {
		if v.Name == name {
			return v, nil
		}
		names = append(names, v.Name)
	}
	return Variant{}, fmt.Errorf("unknown wgmma variant %q (known: %s)", name, strings.Join(names, ", "))
}
