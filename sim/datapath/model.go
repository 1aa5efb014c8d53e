// Package datapath models the tensor-core arithmetic of one MMA instruction
// bit for bit: D = A·B + C for every output element, with the products,
// alignment, truncation, normalisation and output rounding that the
// hardware uses.
//
// A Model is a set of parameters, each one a hypothesis about the hardware
// (how many fraction bits survive alignment, whether aligned terms are
// truncated toward zero, how the accumulator joins the sum, how the result is
// rounded, what happens to subnormals and overflow). Profiles (profiles.go)
// pin the parameters that the H100 confirmed for each instruction variant.
package datapath

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// Rounding is a rounding mode for the final normalisation.
type Rounding uint8

// The rounding modes the datapath may use when it normalises the sum.
const (
	RoundTowardZero Rounding = iota // truncate the magnitude
	RoundNearestEven
)

func (r Rounding) String() string {
	if r == RoundNearestEven {
		return "round-to-nearest-even"
	}
	return "round-toward-zero"
}

// Model is the parametric datapath of one floating-point MMA variant.
type Model struct {
	A, B *numfmt.Format // input formats (f16, bf16, tf32, e4m3, e5m2, ...)
	C    *numfmt.Format // accumulator format: f32 or f16 (D has the same format)

	// FracBits is the number of fraction bits each term keeps after it is
	// aligned to the largest exponent of the group (MMA-Sim's
	// n_fractional_bits: 25 for Hopper f16/bf16/tf32, 13 for FP8).
	FracBits int
	// Floor truncates aligned negative terms toward minus infinity (two's
	// complement shift) instead of toward zero (sign-magnitude).
	Floor bool
	// Group is the number of products summed in one fused step; 0 means all
	// K products at once. With groups, the accumulator enters the first
	// group and each later group adds its products to the running sum,
	// which is first normalised to the accumulator format.
	Group int
	// ZeroExp is the alignment exponent given to zero inputs (and so to
	// zero products). MMA-Sim uses -126.
	ZeroExp int
	// ZeroInAnchor lets zero terms take part in the search for the largest
	// exponent (MMA-Sim's model). On the H100 they do not: a zero product
	// such as 0 × 2^120 never becomes the anchor.
	ZeroInAnchor bool
	// Out is how the exact sum is normalised into the accumulator format,
	// and OutMantBits how many mantissa bits it keeps (23 for f32; 13 when
	// FP8 products make the result an e8m13 value held in an f32).
	Out         Rounding
	OutMantBits int
	// FlushInputs flushes subnormal A/B inputs to zero; FlushOutput flushes
	// subnormal results to zero (keeping the sign).
	FlushInputs, FlushOutput bool
	// Saturate makes an overflowing result the largest finite value instead
	// of infinity.
	Saturate bool
	// NaN is the bit pattern of every NaN result.
	NaN uint64
	// CAfter says how the accumulator joins: CFused (0) aligns it with the
	// products in one step; CExact sums the products (aligned among
	// themselves) and adds C exactly before the one rounding; CRounded
	// rounds the product sum into the accumulator format first (with Out)
	// and then adds C as an IEEE addition rounded with CAddRound.
	CAfter    CJoin
	CAddRound Rounding
	// HoldC keeps the accumulator out of the product steps: the groups of
	// products are accumulated from +0 with the fused datapath, and C is
	// added to the result at the end as an IEEE addition (CAddRound).
	HoldC bool
	// PairSteps takes the products in two fused steps, first those with
	// k mod 4 in {0, 1}, then those with k mod 4 in {2, 3} (Group is then
	// ignored). This is emulated FP8 mma.sync on sm_90: every 32-bit
	// register of four FP8 values is unpacked into two f16 pairs, the low
	// pair feeding the first f16 MMA and the high pair the second.
	PairSteps bool
	// Widen, when set, is a wider format the A and B elements are first
	// converted to (exactly), as emulated FP8 mma.sync converts FP8 to f16:
	// an element that is subnormal in its own format but normal in Widen
	// then aligns by its true exponent instead of the format's minimum.
	Widen *numfmt.Format
}

// CJoin is how the accumulator enters the sum (see Model.CAfter).
type CJoin uint8

// The ways C can join.
const (
	CFused CJoin = iota
	CExact
	CRounded
)

// term is one addend: (-1)^neg * sig * 2^(exp - frac). exp is the alignment
// exponent: the exponent of the leading significand position.
type term struct {
	neg  bool
	sig  uint64
	exp  int
	frac int
	inf  bool
	nan  bool
}

// decode turns one element into an exact term in the MMA-Sim convention:
// normals have sig in [2^m, 2^(m+1)), subnormals sit at the minimum
// exponent with a smaller sig, and zeros take zeroExp.
func decode(f *numfmt.Format, raw uint64, zeroExp int, flush bool) term {
	x := (raw >> f.Shift) & (1<<f.Bits - 1)
	var t term
	if f.Signed {
		t.neg = x>>(f.Bits-1)&1 == 1
	}
	e := int(x >> f.MantBits & (1<<f.ExpBits - 1))
	m := x & (1<<f.MantBits - 1)
	emax := 1<<f.ExpBits - 1
	switch {
	case f.NaN == numfmt.IEEENaN && e == emax && m != 0,
		f.NaN == numfmt.AllOnesNaN && e == emax && m == 1<<f.MantBits-1:
		t.nan = true
		return t
	case f.HasInf && e == emax && m == 0:
		t.inf = true
		return t
	}
	t.frac = f.MantBits
	if e == 0 {
		if m == 0 || flush {
			t.exp = zeroExp
			return t
		}
		t.sig, t.exp = m, 1-f.Bias
		return t
	}
	t.sig, t.exp = m|1<<f.MantBits, e-f.Bias
	return t
}

// decodeIn decodes an A or B element, converted to m.Widen when set.
func (m *Model) decodeIn(f *numfmt.Format, raw uint64) term {
	t := decode(f, raw, m.ZeroExp, m.FlushInputs)
	if m.Widen == nil || t.sig == 0 || t.nan || t.inf || t.sig >= 1<<t.frac {
		return t
	}
	// A subnormal of f: its leading bit is at 2^(exp-frac+lead). In the
	// wider format it is normal (or a subnormal at that format's minimum
	// exponent): move the alignment exponent down, keep the value.
	lead := bits.Len64(t.sig) - 1
	e := max(t.exp-t.frac+lead, 1-m.Widen.Bias)
	if s := t.exp - e; s > 0 {
		t.sig <<= s
		t.exp = e
	}
	return t
}

// Result is the outcome of one dot product, with what the explanation of
// the datapath needs.
type Result struct {
	Bits  uint64 // the D element
	Trace *Trace // nil unless requested
}

// Dot computes one output element: sum_k a[k]*b[k] + c, all given as raw
// bit patterns of their formats.
func (m *Model) Dot(a, b []uint64, c uint64) uint64 {
	return m.dot(a, b, c, nil)
}

// Explain is Dot with a datapath trace for teaching.
func (m *Model) Explain(a, b []uint64, c uint64) Result {
	tr := &Trace{Model: m}
	return Result{Bits: m.dot(a, b, c, tr), Trace: tr}
}

func (m *Model) dot(a, b []uint64, c uint64, tr *Trace) uint64 {
	k := len(a)
	g := m.Group
	if g <= 0 || g > k {
		g = k
	}
	ord := m.stepOrder(k)
	if ord != nil {
		a, b = permute(a, ord), permute(b, ord)
		g = pairStepSize(k)
	}
	if m.HoldC {
		inner := *m
		inner.HoldC, inner.CAfter = false, CFused
		var acc uint64 // +0
		for start := 0; start < k; start += g {
			end := min(start+g, k)
			acc = inner.fused(a[start:end], b[start:end], acc, tr)
			if tr != nil && ord != nil {
				tr.Groups[len(tr.Groups)-1].K = ord[start:end]
			}
		}
		out := m.addIEEE(acc, c)
		if tr != nil {
			tr.Groups = append(tr.Groups, GroupTrace{Out: out, Special: fmt.Sprintf(
				"the accumulator c = %#x joins last, as an IEEE addition (%v) to the product sum %#x", c, m.CAddRound, acc)})
		}
		return out
	}
	acc := c
	for start := 0; start < k; start += g {
		end := min(start+g, k)
		acc = m.fused(a[start:end], b[start:end], acc, tr)
	}
	return acc
}

// stepOrder is the order in which the steps take the K products, or nil
// for k order (see PairSteps).
func (m *Model) stepOrder(k int) []int {
	if !m.PairSteps {
		return nil
	}
	var lo, hi []int
	for i := 0; i < k; i++ {
		if i%4 < 2 {
			lo = append(lo, i)
		} else {
			hi = append(hi, i)
		}
	}
	return append(lo, hi...)
}

// pairStepSize is the number of products in the first PairSteps step.
func pairStepSize(k int) int { return k/4*2 + min(k%4, 2) }

// permute returns x in the order ord.
func permute(x []uint64, ord []int) []uint64 {
	out := make([]uint64, len(ord))
	for i, k := range ord {
		out[i] = x[k]
	}
	return out
}

// align is term t aligned to the anchor exponent emax with m.FracBits
// fraction bits: its value (truncated toward zero, or toward minus
// infinity with m.Floor), the shift applied, and the bits shifted out.
func (m *Model) align(t term, emax int) (v int64, shift int, lost uint64) {
	shift = m.FracBits - t.frac + t.exp - emax
	switch {
	case shift >= 0:
		v = int64(t.sig << shift)
	case -shift >= 64:
		v, lost = 0, t.sig
	default:
		v = int64(t.sig >> -shift)
		lost = t.sig & (1<<-shift - 1)
	}
	if t.neg {
		v = -v
		if m.Floor && lost != 0 {
			v--
		}
	}
	return v, shift, lost
}

// fused sums one group of products and the accumulator in one step.
func (m *Model) fused(a, b []uint64, c uint64, tr *Trace) uint64 {
	ct := decode(m.C, c, m.ZeroExp, false)
	terms := make([]term, 0, len(a)+1)
	terms = append(terms, ct)
	for i := range a {
		terms = append(terms, product(m.decodeIn(m.A, a[i]), m.decodeIn(m.B, b[i])))
	}
	var gt *GroupTrace
	if tr != nil {
		tr.Groups = append(tr.Groups, GroupTrace{Terms: terms})
		gt = &tr.Groups[len(tr.Groups)-1]
	}
	if m.CAfter != CFused {
		if bits, why, ok := m.specialTerms(terms); ok {
			return m.noteSpecial(tr, bits, why)
		}
		return m.joinAfter(terms, tr)
	}
	return m.fuseTerms(terms, gt)
}

func (m *Model) noteSpecial(tr *Trace, bits uint64, why string) uint64 {
	if tr != nil {
		gt := &tr.Groups[len(tr.Groups)-1]
		gt.Special, gt.Out = why, bits
	}
	return bits
}

// normalize rounds sum*2^scale into the accumulator format.
func (m *Model) normalize(sum int64, scale int, c term) uint64 {
	return m.normalizeWith(sum, scale, m.Out)
}

// normalizeWith is normalize with the rounding mode r instead of m.Out.
func (m *Model) normalizeWith(sum int64, scale int, r Rounding) uint64 {
	f := m.C
	neg := sum < 0
	mag := uint64(sum)
	if neg {
		mag = uint64(-sum)
	}
	sign := uint64(0)
	if neg {
		sign = 1 << (f.Bits - 1)
	}
	if mag == 0 {
		return 0 // an exact zero sum is +0 (hypothesis: see the probes)
	}
	mb := m.OutMantBits
	if mb == 0 {
		mb = f.MantBits
	}
	// value = mag * 2^scale; leading bit position:
	lead := bits.Len64(mag) - 1
	e := lead + scale // unbiased exponent of the leading bit
	emin := 1 - f.Bias
	// Number of bits to keep below the leading bit.
	keep := mb
	if e < emin {
		if m.FlushOutput {
			return 0
		}
		keep = mb - (emin - e) // subnormal: fewer bits
	}
	drop := lead - keep
	var q uint64
	if drop <= 0 {
		q = mag << -drop
	} else if drop >= 64 {
		q = 0
		if r == RoundNearestEven && drop == 64 && mag > 1<<63 {
			q = 1
		}
	} else {
		q = mag >> drop
		rem := mag & (1<<drop - 1)
		if r == RoundNearestEven {
			half := uint64(1) << (drop - 1)
			if rem > half || (rem == half && q&1 == 1) {
				q++
			}
		}
	}
	// q now holds the significand with keep fraction bits (plus a possible
	// carry); rebuild the exponent from it.
	if e < emin {
		// subnormal (or rounded up into the smallest normal)
		if q >= 1<<mb { // rounded up into the smallest normal
			return sign | 1<<f.MantBits
		}
		if q == 0 {
			return 0 // underflow to zero gives +0 (H100: see the subnormal-out probes)
		}
		return sign | q<<(f.MantBits-mb)
	}
	if q >= 1<<(keep+1) { // rounding carried into a new binade
		q >>= 1
		e++
	}
	be := e + f.Bias
	if be >= 1<<f.ExpBits-1 {
		if m.Saturate || !f.HasInf {
			return sign | f.MaxFinite(false)
		}
		inf, _ := f.Inf(neg)
		return inf
	}
	mant := (q & (1<<keep - 1)) << (f.MantBits - keep)
	return sign | uint64(be)<<f.MantBits | mant
}

// Validate reports a model that cannot be evaluated.
func (m *Model) Validate() error {
	switch {
	case m.A == nil || m.B == nil || m.C == nil:
		return fmt.Errorf("datapath model: A, B and C formats are required")
	case !m.A.IsFloat() || !m.B.IsFloat() || !m.C.IsFloat():
		return fmt.Errorf("datapath model: %s×%s+%s is not a floating-point MMA", m.A, m.B, m.C)
	case m.FracBits < 0 || m.FracBits > 40:
		return fmt.Errorf("datapath model: FracBits %d must be in [0, 40]", m.FracBits)
	}
	return nil
}
