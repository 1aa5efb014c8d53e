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

// MMASyncFP8 is the best model found so far for sm_90 mma.sync with FP8
// inputs (m16n8k32 e4m3/e5m2). Unlike wgmma, the accumulator is not part of
// the aligned sum: the products are summed with 25 fraction bits, the sum is
// rounded toward zero into the accumulator format, and C is added with an
// IEEE round-to-nearest-even addition. It reproduces every targeted probe but
// differs from the H100 on about 3% of random inputs by one or two ulps, so
// it is Approximate.
func MMASyncFP8(a, b, c *numfmt.Format) *Model {
	m := Hopper(a, b, c)
	m.FracBits, m.OutMantBits, m.CAfter, m.CAddRound = 25, 0, CRounded, RoundNearestEven
	return m
}

// MMASync returns the sm_90 mma.sync datapath and how far it is verified:
// f16, bf16, tf32 and integer inputs share the wgmma datapath (bit-exact on
// the H100 campaign); FP8 inputs use MMASyncFP8 (approximate).
func MMASync(a, b, c *numfmt.Format, satfinite bool) (Evaluator, Source) {
	switch {
	case !a.IsFloat():
		return HopperInt(a, b, satfinite), HardwareVerified
	case a.Bits == 8:
		return MMASyncFP8(a, b, c), Approximate
	}
	return Hopper(a, b, c), HardwareVerified
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
