package numfmt

import (
	"fmt"
)

// LaneTrace records how one element of a cvt was converted.
type LaneTrace struct {
	Lane     int     // 0 is the most significant lane (PTX's "a")
	Src, Dst *Format // element formats
	In       uint64  // the source element's bits
	InValue  Value   // its exact value
	// FlushedInput is set when .ftz flushed a subnormal f32 input to zero.
	FlushedInput bool
	// ScaleExp is the power of two applied by .scaled::n2::ue8m0 (0 if none).
	ScaleExp int
	Out      uint64 // the destination element's bits
	OutValue Value  // its value
	Info     Info   // how it was rounded
}

// Cvt computes cvt for the spec on the source operands in PTX order (see
// Spec.Inputs: a, then b, e, f for forms that take several scalars, then
// rbits for .rs and the scale factor for .scaled), each given as its raw
// bits. It returns the destination's bits.
func Cvt(s *Spec, in ...uint64) (uint64, error) {
	out, _, err := s.eval(in, false)
	return out, err
}

// CvtTrace is Cvt with an explanation of every lane.
func CvtTrace(s *Spec, in ...uint64) (uint64, []LaneTrace, error) {
	return s.eval(in, true)
}

func (s *Spec) eval(in []uint64, trace bool) (uint64, []LaneTrace, error) {
	if s.Form == nil {
		if err := s.match(); err != nil {
			return 0, nil, &SpecError{Text: s.String(), Msg: err.Error()}
		}
	}
	if s.ops == nil {
		s.ops = s.Inputs()
	}
	ops := s.ops
	if len(in) != len(ops) {
		names := ""
		for i, o := range ops {
			if i > 0 {
				names += ", "
			}
			names += o.Name
		}
		return 0, nil, fmt.Errorf("%s takes %d source operand(s) (%s), got %d", s, len(ops), names, len(in))
	}
	for i, o := range ops {
		if o.Bits < 64 && in[i]>>o.Bits != 0 {
			return 0, nil, fmt.Errorf("%s: operand %s = %#x does not fit in %d bits", s, o.Name, in[i], o.Bits)
		}
	}
	var rbits, scale uint64
	for i, o := range ops {
		switch o.Name {
		case "rbits":
			rbits = in[i]
		case "scale-factor":
			scale = in[i]
		}
	}
	lanes := s.Dst.Lanes
	var outs [4]uint64
	var traces []LaneTrace
	for k := 0; k < lanes; k++ {
		var x uint64
		switch {
		case s.Src.Lanes == 1 && lanes > 1:
			x = in[k]
		case s.Src.Lanes == lanes:
			x = s.Src.Lane(in[0], k)
		default:
			x = in[0]
		}
		tr := s.convert(x, k, rbits, scale)
		outs[k] = tr.Out
		if trace {
			traces = append(traces, tr)
		}
	}
	if lanes == 1 {
		return outs[0], traces, nil
	}
	return s.Dst.Pack(outs[:lanes]), traces, nil
}

// convert converts lane k's element x.
func (s *Spec) convert(x uint64, k int, rbits, scale uint64) LaneTrace {
	src, dst := s.Src.Elem, s.Dst.Elem
	v := src.Decode(x)
	tr := LaneTrace{Lane: k, Src: src, Dst: dst, In: x, InValue: v}
	done := func(b uint64, info Info) LaneTrace {
		tr.Out, tr.Info = b, info
		tr.OutValue = dst.Decode(b)
		return tr
	}
	// .ftz flushes subnormal f32 inputs, except toward f16: the H100 keeps
	// them there (cvt.rm.ftz.f16.f32 of -2^-149 gives -2^-24).
	if s.FTZ && src == F32 && v.Class == Subnormal && dst != F16 {
		v = Value{Class: Zero, Neg: v.Neg}
		tr.FlushedInput = true
	}
	if v.IsNaN() && s.FTZ && src == F32 {
		// With .ftz the H100 first makes an f32 NaN canonical (0x7fffffff):
		// cvt.ftz.f64.f32 gives 0x7fffffffe0000000 for every NaN.
		v = F32.Decode(0x7fffffff)
	}
	if v.IsNaN() {
		b, why := s.nanOut(v)
		return done(b, Info{note: why})
	}
	if src.Kind == IntKind && dst.Kind == IntKind {
		return done(s.intToInt(x))
	}
	if s.Scaled {
		sf := (scale >> (8 * (s.Dst.Lanes - 1 - k))) & 0xff
		if sf == 0xff {
			b, why := s.nanOut(Value{Class: NaN})
			return done(b, Info{note: "scale factor is NaN (0xff): " + why})
		}
		e := int(sf) - 127
		if dst.Kind == FixedKind { // down-conversion divides by the scale
			e = -e
		}
		tr.ScaleExp = e
		if v.IsFinite() && !v.IsZero() {
			v.Exp += e
		}
	}
	if src == dst && src.Kind == FloatKind && s.Mode.IsInteger() {
		b, info := src.RoundToIntegral(x, s.Mode, Opts{FTZ: s.FTZ && src == F32, Sat: s.Sat})
		return done(b, info)
	}
	if dst == UE8M0 {
		// Hypothesis (not hardware-verified): the scale is computed from the
		// magnitude; the sign is dropped.
		v.Neg = false
	}
	o := Opts{Satfinite: s.Satfinite, Relu: s.Relu, Sat: s.Sat && dst.Kind == FloatKind, FTZ: s.FTZ && dst == F32}
	if s.Mode == RS {
		o.Random, o.RandomBits = s.laneRandom(rbits, k)
	}
	return done(dst.Encode(v, s.Mode, o))
}

// laneRandom picks lane k's random bits for .rs. The f16x2 and bf16x2
// layouts follow the ISA text; the four-lane layouts are a hypothesis (the
// ISA gives them only as figures): 8 bits per lane, a in bits 31..24, b in
// 23..16, e in 15..8 and f in 7..0 for fp8/fp6, and a in 31..24, b in
// 15..8, e in 23..16 and f in 7..0 for e2m1x4. Not hardware-verified.
func (s *Spec) laneRandom(rbits uint64, k int) (uint64, int) {
	switch s.Dst.Name {
	case "f16x2":
		return (rbits >> (16 * (1 - k))) & 0x1fff, 13
	case "bf16x2":
		return (rbits >> (16 * (1 - k))) & 0xffff, 16
	case "e2m1x4":
		shifts := [4]int{24, 8, 16, 0}
		return (rbits >> shifts[k]) & 0xff, 8
	}
	return (rbits >> (8 * (3 - k))) & 0xff, 8
}

// intToInt converts between integer types: wrap by default, clamp with .sat.
func (s *Spec) intToInt(x uint64) (uint64, Info) {
	src, dst := s.Src.Elem, s.Dst.Elem
	if s.Sat {
		return dst.encodeInt(src.Decode(x), RZ, Opts{})
	}
	raw := x & lowMask(src.Bits)
	if src.Signed && src.Bits < 64 && raw>>(src.Bits-1) != 0 {
		raw |= ^lowMask(src.Bits)
	}
	out := raw & lowMask(dst.Bits)
	info := Info{note: "exact"}
	if Cmp(src.Decode(x), dst.Decode(out)) != 0 {
		info.Inexact, info.Overflow = true, true
		info.note = "out of range: the low bits are kept (add .sat to clamp)"
	}
	return out, info
}

// nanOut is the result for a NaN input (or a NaN scale factor).
func (s *Spec) nanOut(v Value) (uint64, string) {
	src, dst := s.Src.Elem, s.Dst.Elem
	switch {
	case dst.Kind == IntKind:
		if src == F64 || dst.Bits == 64 {
			return 1 << (dst.Bits - 1), "NaN input gives 1<<(width-1) (f64 source or 64-bit destination)"
		}
		return 0, "NaN input gives 0"
	case s.Sat && dst.Kind == FloatKind:
		return 0, ".sat: NaN gives +0"
	case dst.Kind == FixedKind || dst.NaN == NoNaN:
		return dst.MaxFinite(false), "NaN input: the format has no NaN, so .satfinite gives +MAX_NORM"
	}
	switch s.NaNRule() {
	case NaNPropagate:
		return propagateNaN(src, dst, v, true), "NaN input: sign and payload kept, quiet bit set"
	case NaNRaw:
		b := propagateNaN(src, dst, v, false)
		if s.Satfinite && (b>>dst.Shift>>dst.MantBits)&dst.expMax() == dst.expMax() {
			// cvt.rna.satfinite.tf32.f32 on the H100: a result with an
			// all-ones exponent loses one unit in the last place.
			b -= 1 << dst.Shift
			return b, "NaN input: bits kept without quieting, then .satfinite takes one ulp off the all-ones exponent"
		}
		return b, "NaN input: sign and payload bits kept as they are (no quieting)"
	}
	b, _ := dst.CanonicalNaN()
	return b, "NaN input gives the canonical NaN"
}

// NaNRule says how the spec converts a NaN input between float formats, as
// measured on an H100 (driver 580, sm_90a): .relu and most conversions give
// the canonical NaN; conversions to or from f64 keep the sign and payload
// and set the quiet bit; cvt.f32.f32 and cvt.f64.f64 without modifiers,
// cvt.f32.bf16 and cvt.rna.tf32.f32 copy the bits without quieting.
func (s *Spec) NaNRule() NaNRule {
	src, dst := s.Src.Elem, s.Dst.Elem
	switch {
	case s.Form != nil && s.Form.NaN != NaNCanonical:
		return s.Form.NaN
	case s.Relu:
		return NaNCanonical // the ISA: .relu converts NaN results to the canonical NaN
	case src == dst && s.Mode == NoRound && !s.FTZ && (src == F32 || src == F64):
		return NaNRaw
	case src.Kind != FloatKind || dst.Kind != FloatKind:
		return NaNCanonical
	case src == F64 || dst == F64:
		return NaNPropagate
	case src == BF16 && dst == F32 && !s.FTZ, dst == TF32 && s.Mode == RNA:
		return NaNRaw
	}
	return NaNCanonical
}

// propagateNaN keeps the sign and the top payload bits, and sets the quiet
// bit if quiet is set.
func propagateNaN(src, dst *Format, v Value, quiet bool) uint64 {
	if dst.NaN == AllOnesNaN {
		b, _ := dst.CanonicalNaN()
		if v.Neg && dst.Signed {
			b |= dst.signBit() << dst.Shift
		}
		return b
	}
	p := v.Sig
	if d := dst.MantBits - src.MantBits; d >= 0 {
		p <<= d
	} else {
		p >>= -d
	}
	if dst.MantBits > 0 && quiet {
		p |= 1 << (dst.MantBits - 1)
	}
	b := dst.expMax()<<dst.MantBits | p&lowMask(dst.MantBits)
	if v.Neg && dst.Signed {
		b |= dst.signBit()
	}
	return b << dst.Shift
}
