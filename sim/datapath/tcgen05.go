package datapath

// The sm_100a tcgen05.mma datapaths. There is no Blackwell GPU behind these
// models: every one of them is "not hardware-verified".
//
// Sources, and where they disagree:
//
//   - The fused datapath of kind::f16, kind::tf32 and kind::f8f6f4 is the
//     one the H100 confirmed for wgmma (fixtures/numerics): all K products
//     and the accumulator in one step, terms aligned to the largest exponent
//     and truncated toward zero, an f32 result truncated, an f16 result
//     rounded to nearest even, +0 for an exact or underflowed zero,
//     canonical NaN.
//   - Fraction bits: MMA-Sim (arXiv 2511.10909, mmasim/simulator/nv_ptx.py,
//     class tcgen05mma) keeps 25 fraction bits for every kind, FP8 included,
//     and rounds FP8 results to all 23 mantissa bits of an f32 (no 13-bit
//     e8m13 result as on the H100). Khattak & Mikaitis (arXiv 2512.07004,
//     north-numerical-computing/MATLAB-tensor-core, models/B200TC.m) agree
//     for the B200: 2 extra alignment bits over the 23 of f32 for FP8 too.
//     Their B200 tests ran mma.sync/wmma, not tcgen05.
//   - Zero products and the anchor: MMA-Sim lets a zero product take part
//     in choosing the alignment exponent (with exponent -126 + the other
//     factor's), in its Hopper and Blackwell models alike. The H100 refuted
//     that for wgmma (782 of 60,928 bf16 outputs), so Blackwell follows the
//     H100 here; Model.ZeroInAnchor = true is MMA-Sim's alternative.
//   - FP8 with an f16 accumulator: MMA-Sim rounds to f16 to nearest even,
//     as the H100 does; Khattak & Mikaitis's B200 script routes FP8 inputs
//     through its f32 output path whatever the output format. tcsim follows
//     MMA-Sim and the H100.
//   - scale-input-d (kind::f16 and kind::tf32 only, 0..15): the ISA says
//     D = A·B + D·2^-scale-input-d. No public source measured how the
//     scaled accumulator joins; tcsim lowers the accumulator's exponent
//     exactly (no rounding of D·2^-s on its own) and fuses it like any
//     other term.
//   - Negation (instruction descriptor bits 13 and 14) flips the sign of
//     every element of A or B before the products. CUTLASS documents it as
//     valid for kind::f16, tf32, f8f6f4 and mxf8f6f4 only; the ISA forbids
//     it for kind::i8.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// Blackwell returns the modelled sm_100a datapath of tcgen05.mma
// kind::f16, kind::tf32 and kind::f8f6f4 for a×b+c: the H100's fused
// datapath (see Hopper) with 25 fraction bits for every input type and all
// 23 mantissa bits of an f32 result. Not hardware-verified.
func Blackwell(a, b, c *numfmt.Format) *Model {
	m := Hopper(a, b, c)
	m.FracBits, m.OutMantBits = 25, 0
	return m
}

// TCFloat is a tcgen05.mma datapath for the floating-point kinds without
// block scaling: the fused Model plus the instruction's own operations on
// the operands, the negation of A and B (descriptor bits 13 and 14) and
// scale-input-d.
type TCFloat struct {
	Model      *Model
	NegA, NegB bool
	// ScaleD is scale-input-d: D = A·B + C·2^-ScaleD (0..15).
	ScaleD int
}

// Dot computes one output element from raw bit patterns.
func (t *TCFloat) Dot(a, b []uint64, c uint64) uint64 { return t.dot(a, b, c, nil) }

// Explain is Dot with a datapath trace.
func (t *TCFloat) Explain(a, b []uint64, c uint64) Result {
	tr := &Trace{Model: t.Model}
	return Result{Bits: t.dot(a, b, c, tr), Trace: tr}
}

// MatMul computes D = A·B + C for an M×N×K problem (the layouts of
// Model.MatMul). Without scale-input-d it runs the Model's fast path on
// sign-flipped operands; with it, Dot per element.
func (t *TCFloat) MatMul(M, N, K int, a, b, c []uint64) []uint64 {
	if t.ScaleD == 0 && t.Model.Group <= 0 {
		return t.Model.MatMul(M, N, K, negated(t.Model.A, a, t.NegA), negated(t.Model.B, b, t.NegB), c)
	}
	d := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			d[i*N+j] = t.dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[i*N+j], nil)
		}
	}
	return d
}

// negated returns x with every element's sign flipped when neg is set.
func negated(f *numfmt.Format, x []uint64, neg bool) []uint64 {
	if !neg {
		return x
	}
	s := signBit(f)
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = v ^ s
	}
	return out
}

func (t *TCFloat) dot(a, b []uint64, c uint64, tr *Trace) uint64 {
	m := t.Model
	ct := decode(m.C, c, m.ZeroExp, false)
	if ct.sig != 0 {
		ct.exp -= t.ScaleD // exact: the accumulator's exponent is lowered
	}
	terms := make([]term, 0, len(a)+1)
	terms = append(terms, ct)
	for i := range a {
		x := decode(m.A, a[i], m.ZeroExp, m.FlushInputs)
		y := decode(m.B, b[i], m.ZeroExp, m.FlushInputs)
		x.neg = x.neg != t.NegA
		y.neg = y.neg != t.NegB
		terms = append(terms, product(x, y))
	}
	var gt *GroupTrace
	if tr != nil {
		tr.Groups = append(tr.Groups, GroupTrace{})
		gt = &tr.Groups[len(tr.Groups)-1]
	}
	return m.fuseTerms(terms, gt)
}

// product is the exact product of two decoded elements, with the IEEE
// rules for NaN, infinity and Inf×0.
func product(x, y term) term {
	p := term{neg: x.neg != y.neg, sig: x.sig * y.sig, exp: x.exp + y.exp, frac: x.frac + y.frac}
	switch {
	case x.nan || y.nan:
		p.nan = true
	case x.inf || y.inf:
		if (x.inf && !y.inf && y.sig == 0) || (y.inf && !x.inf && x.sig == 0) {
			p.nan = true
		} else {
			p.inf = true
		}
	}
	return p
}

// fuseTerms is the fused step of Model.fused on terms built elsewhere
// (terms[0] is the accumulator): special values first, then every term is
// aligned to the largest exponent and truncated to FracBits fraction bits,
// the aligned terms are summed exactly, and the sum is normalised into C.
// The tcgen05 datapaths use it because they build their terms differently
// (a scaled accumulator, negated operands, block-scaled products); with
// neither, it gives the bits of Model.fused.
func (m *Model) fuseTerms(terms []term, gt *GroupTrace) uint64 {
	if gt != nil {
		gt.Terms = terms
	}
	special := func(bits uint64, why string) uint64 {
		if gt != nil {
			gt.Special, gt.Out = why, bits
		}
		return bits
	}
	if bits, why, ok := m.specialTerms(terms); ok {
		return special(bits, why)
	}
	emax := math.MinInt
	for _, t := range terms {
		if t.sig != 0 || m.ZeroInAnchor {
			emax = max(emax, t.exp)
		}
	}
	if emax == math.MinInt {
		return special(0, "every term is zero: the result is +0")
	}
	var sum int64
	for i, t := range terms {
		v, shift, lost := m.align(t, emax)
		sum += v
		if gt != nil {
			gt.Aligned = append(gt.Aligned, AlignedTerm{Index: i, Shift: shift, Value: v, LostBits: bits.Len64(lost), Lost: lost != 0})
		}
	}
	out := m.normalize(sum, emax-m.FracBits, terms[0])
	if gt != nil {
		gt.MaxExp, gt.Sum, gt.Out = emax, sum, out
	}
	return out
}

// specialTerms applies the IEEE rules for special values to a group of
// terms: a NaN term (or Inf×0 product), or infinities of both signs, make the
// result NaN; otherwise an infinite term makes it infinite. ok is false when
// every term is finite.
func (m *Model) specialTerms(terms []term) (bits uint64, why string, ok bool) {
	var posInf, negInf bool
	for _, t := range terms {
		if t.nan {
			return m.NaN, "a NaN operand (or Inf×0) makes the result NaN", true
		}
		if t.inf {
			if t.neg {
				negInf = true
			} else {
				posInf = true
			}
		}
	}
	if posInf && negInf {
		return m.NaN, "+Inf and -Inf terms make the result NaN", true
	}
	if posInf || negInf {
		inf, _ := m.C.Inf(negInf)
		return inf, "an infinite term makes the result infinite", true
	}
	return 0, "", false
}

// fp4Kind reports the kinds whose A and B are e2m1 only.
func fp4Kind(k desc.Kind) bool { return k == desc.KindMXF4 || k == desc.KindMXF4NVF4 }

// tcVecs lists the scale vector sizes each block-scaled kind takes, its
// default first ("" when the ISA requires it spelled out).
var tcVecs = map[desc.Kind][]string{
	desc.KindMXF8F6F4: {"1X"},
	desc.KindMXF4:     {"2X"},
	desc.KindMXF4NVF4: {"", "2X", "4X"},
}

// parseTCName reads tcgen05.mma.cta_group::N.kind::K{.block_scale{.scale_vec::NX|.block16|.block32}}
// into a Key. It checks the spelling of each qualifier; resolveTcgen05
// checks that they go together.
func parseTCName(name string) (Key, error) {
	k := Key{Family: FamilyTcgen05}
	rest, ok := strings.CutPrefix(name, "tcgen05.mma")
	if !ok {
		return k, fmt.Errorf("not a tcgen05.mma instruction")
	}
	var parts []string
	if rest != "" {
		if rest[0] != '.' {
			return k, fmt.Errorf("expected '.' after tcgen05.mma")
		}
		parts = strings.Split(rest[1:], ".")
	}
	for _, p := range parts {
		switch {
		case p == "sp" || p == "ws":
			return k, fmt.Errorf(".%s (%s) is not modelled by tcsim mma; use the dense tcgen05.mma form", p, map[string]string{"sp": "sparse A", "ws": "weight-stationary"}[p])
		case strings.HasPrefix(p, "cta_group::"):
			n, err := strconv.Atoi(strings.TrimPrefix(p, "cta_group::"))
			if err != nil || (n != 1 && n != 2) {
				return k, fmt.Errorf(".%s: the CTA group is cta_group::1 or cta_group::2", p)
			}
			k.CTAGroup = n
		case strings.HasPrefix(p, "kind::"):
			kind, err := desc.ParseKind(p)
			if err != nil {
				return k, err
			}
			k.Kind = kind
		case p == "block_scale":
			k.BlockScale = true
		case strings.HasPrefix(p, "scale_vec::"):
			switch strings.TrimPrefix(p, "scale_vec::") {
			case "1X":
				k.ScaleVec = ScaleVec1X
			case "2X":
				k.ScaleVec = ScaleVec2X
			case "4X":
				k.ScaleVec = ScaleVec4X
			default:
				return k, fmt.Errorf(".%s: the scale vector size is .scale_vec::1X, 2X or 4X", p)
			}
		case p == "block16":
			k.ScaleVec = Block16
		case p == "block32":
			k.ScaleVec = Block32
		case strings.HasPrefix(p, "collector") || p == "ashift":
			return k, fmt.Errorf(".%s only changes where operands come from, not the arithmetic; drop it for tcsim mma", p)
		default:
			return k, fmt.Errorf("unknown qualifier .%s", p)
		}
	}
	return k, nil
}

// tcVec resolves the CTA group, kind and scale vector of a tcgen05.mma
// key: the scale vector size of a block-scaled kind (1X, 2X or 4X) and
// its K elements per scale factor (32 or 16); "" and 0 for the other
// kinds.
func tcVec(k Key) (vec string, block int, err error) {
	switch {
	case k.CTAGroup == 0:
		return "", 0, fmt.Errorf("missing .cta_group::1 or .cta_group::2")
	case k.CTAGroup != 1 && k.CTAGroup != 2:
		return "", 0, fmt.Errorf(".cta_group::%d: the CTA group is cta_group::1 or cta_group::2", k.CTAGroup)
	case k.Kind == desc.KindUnknown:
		return "", 0, fmt.Errorf("missing .kind:: (f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4)")
	case k.Kind.BlockScaled() && !k.BlockScale:
		return "", 0, fmt.Errorf(".kind::%s needs .block_scale", k.Kind)
	case !k.Kind.BlockScaled() && k.BlockScale:
		return "", 0, fmt.Errorf(".block_scale needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4")
	case !k.Kind.BlockScaled() && k.ScaleVec != NoScaleVec:
		return "", 0, fmt.Errorf("a scale vector size needs a block-scaled kind (.kind::mxf8f6f4, mxf4 or mxf4nvf4 with .block_scale)")
	case !k.Kind.BlockScaled():
		return "", 0, nil
	}
	vecs := tcVecs[k.Kind]
	v := k.ScaleVec.vecSize()
	switch k.ScaleVec {
	case NoScaleVec:
		v = vecs[0]
		if v == "" {
			return "", 0, fmt.Errorf(".kind::%s needs an explicit scale vector size: .scale_vec::2X (= .block32, ue8m0 scale factors) or .scale_vec::4X (= .block16, ue8m0 or ue4m3)", k.Kind)
		}
	case Block16:
		v = "4X"
	case Block32:
		v = "2X"
		if k.Kind == desc.KindMXF8F6F4 {
			v = "1X"
		}
	}
	legal := false
	for _, x := range vecs {
		legal = legal || (x == v && x != "")
	}
	if !legal {
		return "", 0, fmt.Errorf(".%s is not a scale vector size of .kind::%s (it takes %s)", k.ScaleVec, k.Kind, vecList(k.Kind))
	}
	return v, map[string]int{"1X": 32, "2X": 32, "4X": 16}[v], nil
}

func vecList(k desc.Kind) string {
	switch k {
	case desc.KindMXF8F6F4:
		return ".scale_vec::1X = .block32"
	case desc.KindMXF4:
		return ".scale_vec::2X = .block32"
	}
	return ".scale_vec::2X = .block32 or .scale_vec::4X = .block16"
}

// tcKOf is the K of one dense tcgen05.mma of kind k.
func tcKOf(k desc.Kind) int {
	switch k {
	case desc.KindF16:
		return 16
	case desc.KindTF32:
		return 8
	case desc.KindMXF4, desc.KindMXF4NVF4:
		return 64
	}
	return 32
}

var tcDTypes = map[uint8]string{0: "f16", 1: "f32", 2: "s32"}

// resolveTcgen05 resolves a tcgen05.mma instruction: its key and either
// the TCOptions fields or an instruction descriptor (tc.HasIDesc).
func resolveTcgen05(key Key, name string, tc TCOptions) (Inst, error) {
	in := Inst{Name: name, Family: FamilyTcgen05, Source: NotHardwareVerified}
	vec, block, err := tcVec(key)
	if err != nil {
		return in, fmt.Errorf("%s: %w", name, err)
	}
	nm := struct {
		cta, block int
		vec        string
	}{key.CTAGroup, block, vec}
	k := key.Kind
	in.Kind, in.CTAGroup = k.String(), nm.cta
	var d desc.IDesc
	from := ""
	if tc.HasIDesc {
		d = desc.DecodeIDesc(tc.IDesc, k)
		from = fmt.Sprintf("--idesc %#08x (read as kind::%s): ", tc.IDesc, k)
	} else {
		spec := desc.IDescSpec{Kind: k, A: tc.A, B: tc.B, D: tc.D, M: tc.M, N: tc.N,
			Saturate: tc.Saturate, NegateA: tc.NegateA, NegateB: tc.NegateB}
		if fp4Kind(k) {
			spec.A, spec.B = orDefault(spec.A, "e2m1"), orDefault(spec.B, "e2m1")
		}
		if k == desc.KindI8 {
			spec.D = orDefault(spec.D, "s32")
		}
		spec.D = orDefault(spec.D, "f32")
		if k.BlockScaled() {
			if spec.D != "f32" {
				return in, fmt.Errorf("%s: block-scaled kinds accumulate in f32, not .%s (drop --dtype)", name, spec.D)
			}
			spec.ScaleType = tc.ScaleType
			if tc.ScaleType == "" && nm.vec == "4X" && k == desc.KindMXF4NVF4 {
				return in, fmt.Errorf("%s: .scale_vec::4X takes ue8m0 (MXFP4 in 16-element blocks) or ue4m3 (NVFP4) scale factors: set --stype", name)
			}
		} else if tc.ScaleType != "" {
			return in, fmt.Errorf("%s: --stype is for the block-scaled kinds (kind::mxf8f6f4, mxf4, mxf4nvf4)", name)
		}
		if d, err = desc.NewIDesc(spec); err != nil {
			return in, fmt.Errorf("%s: %w", name, err)
		}
	}
	var errs []string
	for _, f := range d.Check(desc.IDescContext{CTAGroup: nm.cta, WS: desc.No}) {
		if f.Severity == desc.Error {
			errs = append(errs, f.Field+": "+f.Msg)
		} else {
			in.Notes = append(in.Notes, f.Msg)
		}
	}
	if len(errs) > 0 {
		return in, fmt.Errorf("%s: %s%s", name, from, strings.Join(errs, "; "))
	}
	switch {
	case d.Sparse:
		return in, fmt.Errorf("%s: %sthe sparsity bit is set; sparse tcgen05.mma is not modelled", name, from)
	case d.KSize != 0:
		return in, fmt.Errorf("%s: %sK = 96 (sm_103a) is not modelled", name, from)
	case (d.NegateA || d.NegateB) && fp4Kind(k):
		return in, fmt.Errorf("%s: %skind::%s cannot negate A or B (CUTLASS documents descriptor bits 13-14 as valid only for kind::f16, tf32, f8f6f4 and mxf8f6f4)", name, from, k)
	}
	in.M, in.N, in.K = d.M(), d.N(), tcKOf(k)
	f := func(s string) *numfmt.Format { x, _ := numfmt.Lookup(s); return x }
	in.A, in.B = f(desc.FormatName(k, d.AType)), f(desc.FormatName(k, d.BType))
	in.NegA, in.NegB, in.Sat = d.NegateA, d.NegateB, d.Saturate
	if k.BlockScaled() {
		in.C = numfmt.F32
	} else {
		in.C = f(tcDTypes[d.DType])
	}
	if tc.ScaleInputD != 0 {
		if k != desc.KindF16 && k != desc.KindTF32 {
			return in, fmt.Errorf("%s: scale-input-d exists only for kind::f16 and kind::tf32", name)
		}
		if tc.ScaleInputD < 0 || tc.ScaleInputD > 15 {
			return in, fmt.Errorf("%s: scale-input-d must be 0..15 (D is scaled by 2^-scale-input-d), not %d", name, tc.ScaleInputD)
		}
	}
	in.ScaleD = tc.ScaleInputD
	switch {
	case k.BlockScaled():
		in.Scale = numfmt.UE8M0
		if d.ScaleType == 0 {
			in.Scale = numfmt.UE4M3
		}
		if in.Scale == numfmt.UE4M3 && nm.block != 16 {
			return in, fmt.Errorf("%s: %sue4m3 scale factors need .scale_vec::4X (16-element blocks); .scale_vec::%s takes ue8m0", name, from, nm.vec)
		}
		in.BlockSize, in.ScaleVec = nm.block, nm.vec
		bs := NewBlockScaled(k, in.A, in.B, in.Scale, nm.block)
		bs.NegA, bs.NegB = d.NegateA, d.NegateB
		if err := bs.Validate(in.K); err != nil {
			return in, fmt.Errorf("%s: %w", name, err)
		}
		in.Block = bs
		in.Note = bs.Summary()
	case k == desc.KindI8:
		in.Eval = HopperInt(in.A, in.B, d.Saturate)
		in.Note = "sm_100a tcgen05.mma kind::i8: the exact integer sum of products plus C, wrapping at 32 bits (saturating with descriptor bit 3), as on the H100"
	default:
		in.Eval = &TCFloat{Model: Blackwell(in.A, in.B, in.C), NegA: d.NegateA, NegB: d.NegateB, ScaleD: tc.ScaleInputD}
		in.Note = fmt.Sprintf("sm_100a tcgen05.mma kind::%s: the H100's fused datapath (all %d products and C in one step, aligned terms truncated toward zero, zeros out of the anchor) with 25 fraction bits for every input type and a full 23-bit f32 result (MMA-Sim's and Khattak & Mikaitis's Blackwell models)", k, in.K)
	}
	if in.NegA || in.NegB {
		in.Notes = append(in.Notes, fmt.Sprintf("negated by the instruction descriptor: %s", negList(in.NegA, in.NegB)))
	}
	if in.ScaleD != 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("scale-input-d %d: D = A·B + C·2^-%d, the accumulator's exponent lowered exactly before it joins the sum (a hypothesis: no public measurement)", in.ScaleD, in.ScaleD))
	}
	return in, nil
}

func negList(a, b bool) string {
	switch {
	case a && b:
		return "A and B"
	case a:
		return "A"
	}
	return "B"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// CheckElems reports the first element of vals whose bits fall outside f's
// element: the two high bits of an FP6 (e2m3, e3m2) byte, the high bit of a
// ue4m3 byte, or the high nibble of an e2m1 read one per byte from .npy.
// what names the operand in the message.
func CheckElems(f *numfmt.Format, vals []uint64, what string) error {
	w := f.Shift + f.Bits
	if w >= 64 {
		return nil
	}
	for i, v := range vals {
		if v>>w != 0 {
			return fmt.Errorf("%s element %d is %#x: a .%s element has %d bits, and the bits above them must be 0", what, i, v, f.Name, f.Bits)
		}
	}
	return nil
}
