package datapath

// The block-scaled tcgen05.mma kinds (kind::mxf8f6f4, kind::mxf4 and
// kind::mxf4nvf4 with .block_scale): D = (A·SFA)·(B·SFB) + C, where every
// run of BlockSize elements along K of a row of A (a column of B) shares
// one scale factor. Not hardware-verified.
//
// Where the scale factors enter the sum is the open question. The only
// published model that was compared with a Blackwell GPU is MMA-Sim's
// (mmasim/simulator/arithmetic.py, nv_fused_dot_add and
// nv_fused_dot_add_with_block_scale; nv_ptx.py, tcgen05mma_block_scale):
//
//   - kind::mxf8f6f4 (K = 32, one ue8m0 scale per row): each product
//     a·b·2^(sa+sb) is a term of its own, aligned with C to the largest
//     exponent keeping 25 fraction bits; the f32 result is truncated.
//   - kind::mxf4 and kind::mxf4nvf4 (K = 64): each run of 16 products is
//     summed exactly, the sum is multiplied by the two scale factors, and
//     it joins C in the alignment with the scale exponents as its exponent
//     (the magnitude of the sum does not move the anchor), keeping 35
//     fraction bits; the f32 result is truncated.
//
// tcsim takes those as its defaults (Group, FracBits). The one place it
// departs from MMA-Sim: for kind::mxf8f6f4, zero products do not choose the
// anchor (ZeroInAnchor false), which is what the H100 showed for the same
// per-product datapath of wgmma (MMA-Sim lets them, in every model, and was
// wrong about the H100). For the 16-product runs the anchor comes from the
// scale exponents alone in MMA-Sim, zero sums included, and tcsim keeps that
// (ZeroInAnchor true): nothing public measures either. Khattak & Mikaitis
// (arXiv 2512.07004) do not model the block-scaled kinds.

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// BlockScaled is the modelled datapath of a block-scaled tcgen05.mma kind.
// Scale factors are given per row of A and per column of B: K/BlockSize
// codes each, in K order.
type BlockScaled struct {
	Kind  desc.Kind      // mxf8f6f4, mxf4 or mxf4nvf4 (for descriptions)
	A, B  *numfmt.Format // element formats
	Scale *numfmt.Format // ue8m0 or ue4m3
	C     *numfmt.Format // the accumulator (f32)
	// BlockSize is the number of K elements that share a scale factor: 32
	// (.scale_vec::1X and 2X) or 16 (.scale_vec::4X).
	BlockSize int
	// Group is how the scale factors enter. 0 or 1: every product is
	// scaled and aligned on its own, its exponent that of a·b plus the two
	// scale exponents. G > 1 (it must divide BlockSize): every run of G
	// products is summed exactly, multiplied by its two scale factors, and
	// aligned with the scale exponents as its exponent.
	Group int
	// FracBits is the number of fraction bits every term keeps below the
	// anchor after alignment (truncated toward zero).
	FracBits int
	// ZeroInAnchor lets zero terms (zero products or runs that sum to zero,
	// and a zero C, at exponent -126) take part in choosing the anchor.
	ZeroInAnchor bool
	// NegA and NegB negate A and B (instruction descriptor bits 13, 14).
	NegA, NegB bool
	// NaN is the bit pattern of every NaN result.
	NaN uint64
}

// NewBlockScaled returns tcsim's model of a block-scaled kind with
// elements a×b, scale factors of format scale and the given block size:
// per-product scaling with 25 fraction bits for kind::mxf8f6f4, exact
// 16-product sums with 35 fraction bits for kind::mxf4 and mxf4nvf4 (see
// the package notes in blockscale.go).
func NewBlockScaled(kind desc.Kind, a, b, scale *numfmt.Format, block int) *BlockScaled {
	m := &BlockScaled{Kind: kind, A: a, B: b, Scale: scale, C: numfmt.F32, BlockSize: block,
		Group: 1, FracBits: 25, NaN: 0x7fffffff}
	if fp4Kind(kind) {
		m.Group, m.FracBits, m.ZeroInAnchor = 16, 35, true
	}
	return m
}

// Validate reports a model that cannot compute a K-element dot product
// exactly in 64-bit arithmetic.
func (m *BlockScaled) Validate(K int) error {
	switch {
	case m.A == nil || m.B == nil || m.Scale == nil || m.C == nil:
		return fmt.Errorf("block-scaled datapath: A, B, scale and C formats are required")
	case !m.A.IsFloat() || !m.B.IsFloat():
		return fmt.Errorf("block-scaled datapath: .%s×.%s are not floating-point elements", m.A.Name, m.B.Name)
	case m.Scale != numfmt.UE8M0 && m.Scale != numfmt.UE4M3:
		return fmt.Errorf("block-scaled datapath: scale factors are ue8m0 or ue4m3, not .%s", m.Scale.Name)
	case m.C != numfmt.F32:
		return fmt.Errorf("block-scaled datapath: the accumulator is f32, not .%s", m.C.Name)
	case m.BlockSize <= 0 || K <= 0 || K%m.BlockSize != 0:
		return fmt.Errorf("block-scaled datapath: K = %d is not a whole number of %d-element blocks", K, m.BlockSize)
	case m.Group > 1 && m.BlockSize%m.Group != 0:
		return fmt.Errorf("block-scaled datapath: groups of %d products do not divide blocks of %d", m.Group, m.BlockSize)
	case m.FracBits < 0 || m.FracBits > 40:
		return fmt.Errorf("block-scaled datapath: FracBits %d must be in [0, 40]", m.FracBits)
	}
	sBits, sFrac := 1, 0
	if m.Scale == numfmt.UE4M3 {
		sBits, sFrac = 4, 3
	}
	var sig, frac, terms int
	if m.Group > 1 {
		sig = intBits(m.A) + intBits(m.B) + ceilLog2(m.Group) + 2*sBits
		frac = m.unitFrac() + 2*sFrac
		terms = K / m.Group
	} else {
		sig = m.A.MantBits + 1 + m.B.MantBits + 1 + 2*sBits
		frac = m.A.MantBits + m.B.MantBits + 2*sFrac
		terms = K
	}
	need := max(sig+max(0, m.FracBits-frac), 24+max(0, m.FracBits-23)) + ceilLog2(terms+1)
	if need > 62 {
		return fmt.Errorf("block-scaled datapath: .%s×.%s with Group %d and %d fraction bits needs %d-bit sums; tcsim's exact path holds 62", m.A.Name, m.B.Name, m.Group, m.FracBits, need)
	}
	return nil
}

// intBits is the width of the largest element of f as an integer in units
// of its smallest subnormal step.
func intBits(f *numfmt.Format) int {
	emaxN := 1<<f.ExpBits - 1 - f.Bias
	return f.MantBits + 1 + emaxN - (1 - f.Bias)
}

func ceilLog2(x int) int { return bits.Len(uint(max(x, 1) - 1)) }

// unitFrac is the fraction-bit count of the product unit 2^(eminA-mA) ·
// 2^(eminB-mB) in which runs of products are summed.
func (m *BlockScaled) unitFrac() int {
	return m.A.MantBits - (1 - m.A.Bias) + m.B.MantBits - (1 - m.B.Bias)
}

// Summary describes the datapath in one line.
func (m *BlockScaled) Summary() string {
	z := "zero products take no part in choosing the anchor, as on the H100"
	if m.ZeroInAnchor {
		z = "zero terms take part in choosing the anchor"
	}
	how := fmt.Sprintf("each .%s×.%s product is multiplied by its block's two .%s scale factors (one per %d elements of K) and aligned with C to the largest exponent",
		m.A.Name, m.B.Name, m.Scale.Name, m.BlockSize)
	if m.Group > 1 {
		how = fmt.Sprintf("each run of %d .%s×.%s products is summed exactly, multiplied by its A and B .%s scale factors (one per %d elements of K) and aligned with C on the scale exponents",
			m.Group, m.A.Name, m.B.Name, m.Scale.Name, m.BlockSize)
		z = "the anchor comes from the scale exponents, zero sums included"
		if !m.ZeroInAnchor {
			z = "runs that sum to zero take no part in choosing the anchor"
		}
	}
	return fmt.Sprintf("sm_100a tcgen05.mma kind::%s: %s, keeping %d fraction bits (truncated toward zero; %s); the f32 result is truncated (MMA-Sim's Blackwell model)",
		m.Kind, how, m.FracBits, z)
}

// bsElem is one element of A or B, decoded once.
type bsElem struct {
	t term
	u int64 // the element as a signed integer in units of 2^(emin-mant), for Group > 1
}

// scaleVal is one decoded scale factor: sig·2^(exp-frac).
type scaleVal struct {
	raw       uint64
	sig       uint64
	exp, frac int
	nan       bool
}

func (m *BlockScaled) elems(f *numfmt.Format, raw []uint64, neg bool) []bsElem {
	out := make([]bsElem, len(raw))
	emin := 1 - f.Bias
	for i, r := range raw {
		t := decode(f, r, -126, false)
		t.neg = t.neg != neg
		e := bsElem{t: t}
		if t.sig != 0 && !t.nan && !t.inf {
			e.u = int64(t.sig << (t.exp - emin))
			if t.neg {
				e.u = -e.u
			}
		}
		out[i] = e
	}
	return out
}

func (m *BlockScaled) scales(raw []uint64) []scaleVal {
	out := make([]scaleVal, len(raw))
	for i, r := range raw {
		out[i] = decodeScale(m.Scale, r)
	}
	return out
}

// decodeScale reads a ue8m0 or ue4m3 scale factor. ue8m0 code e is
// 2^(e-127) (0 is 2^-127, not zero) and 0xff is NaN; ue4m3 is e4m3 without
// a sign (0x7f is NaN, 0 is zero, subnormals sit at exponent -6).
func decodeScale(f *numfmt.Format, raw uint64) scaleVal {
	if f.NoSubnormal { // ue8m0
		x := raw & 0xff
		return scaleVal{raw: raw, sig: 1, exp: int(x) - 127, nan: x == 0xff}
	}
	t := decode(f, raw, -126, false)
	return scaleVal{raw: raw, sig: t.sig, exp: t.exp, frac: t.frac, nan: t.nan}
}

func (s scaleVal) value() float64 { return math.Ldexp(float64(s.sig), s.exp-s.frac) }

// fused is the Model whose alignment and normalisation the terms go through.
func (m *BlockScaled) fused() *Model {
	return &Model{A: m.A, B: m.B, C: m.C, FracBits: m.FracBits, ZeroExp: -126, ZeroInAnchor: m.ZeroInAnchor,
		Out: RoundTowardZero, NaN: m.NaN}
}

// Dot computes one output element: a and b are K elements of a row of A
// and a column of B, sfa and sfb their K/BlockSize scale factors, c the
// accumulator; all raw bit patterns.
func (m *BlockScaled) Dot(a, b, sfa, sfb []uint64, c uint64) uint64 {
	return m.dot(m.fused(), m.elems(m.A, a, m.NegA), m.elems(m.B, b, m.NegB), m.scales(sfa), m.scales(sfb), c, nil)
}

// Explain is Dot with a trace of the datapath.
func (m *BlockScaled) Explain(a, b, sfa, sfb []uint64, c uint64) (uint64, *BlockTrace) {
	tr := &BlockTrace{Model: m, SFA: sfa, SFB: sfb}
	d := m.dot(m.fused(), m.elems(m.A, a, m.NegA), m.elems(m.B, b, m.NegB), m.scales(sfa), m.scales(sfb), c, tr)
	return d, tr
}

// MatMul computes D = (A·SFA)(B·SFB) + C for an M×N×K problem: A is M×K
// row-major, B is N×K, SFA is M×(K/BlockSize), SFB is N×(K/BlockSize), C
// and D are M×N row-major. It gives the bits of Dot per element, decoding
// every operand once; rows and columns without NaN, Inf or NaN scale
// factors take a fast path that allocates nothing.
func (m *BlockScaled) MatMul(M, N, K int, a, b, sfa, sfb, c []uint64) []uint64 {
	nb := K / m.BlockSize
	ea, eb := m.elems(m.A, a, m.NegA), m.elems(m.B, b, m.NegB)
	sa, sb := m.scales(sfa), m.scales(sfb)
	rowOK := finiteRows(ea, sa, M, K, nb)
	colOK := finiteRows(eb, sb, N, K, nb)
	var fa, fb []term
	if m.Group <= 1 {
		fa, fb = m.fold(ea, sa, K, nb), m.fold(eb, sb, K, nb)
	}
	fm := m.fused()
	d := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			ar, br, sar, sbr := ea[i*K:(i+1)*K], eb[j*K:(j+1)*K], sa[i*nb:(i+1)*nb], sb[j*nb:(j+1)*nb]
			if rowOK[i] && colOK[j] {
				var fai, fbj []term
				if fa != nil {
					fai, fbj = fa[i*K:(i+1)*K], fb[j*K:(j+1)*K]
				}
				if v, ok := m.fastDot(fm, ar, br, sar, sbr, fai, fbj, c[i*N+j]); ok {
					d[i*N+j] = v
					continue
				}
			}
			d[i*N+j] = m.dot(fm, ar, br, sar, sbr, c[i*N+j], nil)
		}
	}
	return d
}

// fold multiplies every finite element by its scale factor, for the
// per-product datapath: sig·s.sig·2^(exp+s.exp - (frac+s.frac)).
func (m *BlockScaled) fold(e []bsElem, s []scaleVal, K, nb int) []term {
	out := make([]term, len(e))
	for i, x := range e {
		t := x.t
		sc := &s[i/K*nb+i%K/m.BlockSize]
		t.sig *= sc.sig
		t.exp += sc.exp
		t.frac += sc.frac
		out[i] = t
	}
	return out
}

// finiteRows reports, for each of n rows of K elements and nb scale
// factors, whether all are finite.
func finiteRows(e []bsElem, s []scaleVal, n, K, nb int) []bool {
	ok := make([]bool, n)
	for i := range ok {
		ok[i] = true
		for _, x := range e[i*K : (i+1)*K] {
			if x.t.nan || x.t.inf {
				ok[i] = false
				break
			}
		}
		for _, x := range s[i*nb : (i+1)*nb] {
			if x.nan {
				ok[i] = false
			}
		}
	}
	return ok
}

// fastDot is dot for finite elements and scale factors (the caller checks
// them); the per-product datapath takes the elements with their scale
// factors folded in (fa, fb). ok is false when it cannot decide (a special
// C, or too many groups).
func (m *BlockScaled) fastDot(fm *Model, a, b []bsElem, sa, sb []scaleVal, fa, fb []term, c uint64) (uint64, bool) {
	ct := decode(m.C, c, -126, false)
	if ct.nan || ct.inf {
		return 0, false
	}
	F, bs := m.FracBits, m.BlockSize
	emax := math.MinInt
	if ct.sig != 0 || m.ZeroInAnchor {
		emax = ct.exp
	}
	align := func(sig uint64, sh int, neg bool) int64 {
		var v int64
		switch {
		case sh >= 0:
			v = int64(sig << sh)
		case sh > -64:
			v = int64(sig >> -sh)
		}
		if neg {
			v = -v
		}
		return v
	}
	var sum int64
	if m.Group > 1 {
		g := m.Group
		ng := len(a) / g
		const maxG = 16
		if ng > maxG {
			return 0, false
		}
		var sums [maxG]int64
		var exps [maxG]int
		uf := m.unitFrac()
		for gi := 0; gi < ng; gi++ {
			var s int64
			ag, bg := a[gi*g:(gi+1)*g], b[gi*g:(gi+1)*g]
			for k := range ag {
				s += ag[k].u * bg[k].u
			}
			sA, sB := &sa[gi*g/bs], &sb[gi*g/bs]
			sums[gi], exps[gi] = s, sA.exp+sB.exp
			if (s != 0 && sA.sig != 0 && sB.sig != 0) || m.ZeroInAnchor {
				emax = max(emax, exps[gi])
			}
		}
		if emax == math.MinInt {
			return 0, true
		}
		for gi := 0; gi < ng; gi++ {
			sA, sB := &sa[gi*g/bs], &sb[gi*g/bs]
			s := sums[gi]
			sig := uint64(abs64(s)) * sA.sig * sB.sig
			sum += align(sig, F-(uf+sA.frac+sB.frac)+exps[gi]-emax, s < 0)
		}
	} else {
		for k := range fa {
			x, y := &fa[k], &fb[k]
			if (x.sig != 0 && y.sig != 0) || m.ZeroInAnchor {
				emax = max(emax, x.exp+y.exp)
			}
		}
		if emax == math.MinInt {
			return 0, true
		}
		for k := range fa {
			x, y := &fa[k], &fb[k]
			sig := x.sig * y.sig
			if sig == 0 {
				continue
			}
			sum += align(sig, F-(x.frac+y.frac)+x.exp+y.exp-emax, x.neg != y.neg)
		}
	}
	if ct.sig != 0 {
		sum += align(ct.sig, F-ct.frac+ct.exp-emax, ct.neg)
	}
	return fm.normalize(sum, emax-F, ct), true
}

func (m *BlockScaled) dot(fm *Model, a, b []bsElem, sa, sb []scaleVal, c uint64, tr *BlockTrace) uint64 {
	bs := m.BlockSize
	ct := decode(m.C, c, -126, false)
	terms := make([]term, 1, len(a)+1)
	terms[0] = ct
	var labels, details []string
	if tr != nil {
		labels, details = []string{"c"}, []string{""}
	}
	for j := range sa {
		if sa[j].nan || sb[j].nan {
			if tr != nil {
				tr.Step = GroupTrace{Terms: terms, Special: fmt.Sprintf("a NaN scale factor (block %d) makes the result NaN", j), Out: m.NaN}
			}
			return m.NaN
		}
	}
	if m.Group <= 1 {
		for k := range a {
			s, r := sa[k/bs], sb[k/bs]
			p := product(a[k].t, b[k].t)
			switch {
			case p.inf && (s.sig == 0 || r.sig == 0):
				p.inf, p.nan = false, true
			case !p.nan && !p.inf:
				p.sig *= s.sig * r.sig
				p.exp += s.exp + r.exp
				p.frac += s.frac + r.frac
			}
			terms = append(terms, p)
			if tr != nil {
				labels = append(labels, fmt.Sprintf("p%d", k))
				details = append(details, fmt.Sprintf("a %g × b %g × sfa %g × sfb %g", elemValue(a[k].t), elemValue(b[k].t), s.value(), r.value()))
			}
		}
	} else {
		g := m.Group
		uf := m.unitFrac()
		for k0 := 0; k0 < len(a); k0 += g {
			s, r := sa[k0/bs], sb[k0/bs]
			var sum int64
			var spec term
			special := false
			for k := k0; k < k0+g && k < len(a); k++ {
				p := product(a[k].t, b[k].t)
				if p.nan || p.inf {
					special = true
					switch {
					case p.nan || (p.inf && (s.sig == 0 || r.sig == 0)):
						spec.nan = true
					case spec.inf && spec.neg != p.neg:
						spec.nan = true
					default:
						spec.inf, spec.neg = true, p.neg
					}
					continue
				}
				sum += a[k].u * b[k].u
			}
			t := spec
			if !special {
				t = term{neg: sum < 0, sig: uint64(abs64(sum)) * s.sig * r.sig, exp: s.exp + r.exp, frac: uf + s.frac + r.frac}
			}
			terms = append(terms, t)
			if tr != nil {
				labels = append(labels, fmt.Sprintf("k%d-%d", k0, k0+g-1))
				details = append(details, fmt.Sprintf("Σ a·b = %g, × sfa %g × sfb %g", math.Ldexp(float64(sum), -uf), s.value(), r.value()))
			}
		}
	}
	if tr == nil {
		return fm.fuseTerms(terms, nil)
	}
	tr.Labels, tr.Details = labels, details
	return fm.fuseTerms(terms, &tr.Step)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func elemValue(t term) float64 {
	switch {
	case t.nan:
		return math.NaN()
	case t.inf:
		return math.Inf(map[bool]int{false: 1, true: -1}[t.neg])
	}
	v := math.Ldexp(float64(t.sig), t.exp-t.frac)
	if t.neg {
		v = -v
	}
	return v
}

// BlockTrace records how one output element of a block-scaled kind was
// computed, for `tcsim mma --explain`.
type BlockTrace struct {
	Model    *BlockScaled
	SFA, SFB []uint64   // the scale factors of the row of A and the column of B
	Labels   []string   // one per term: "c", then "p<k>" or "k<lo>-<hi>"
	Details  []string   // what each term is made of
	Step     GroupTrace // the fused step: the terms, their alignment, the sum
}

// String renders the trace.
func (t *BlockTrace) String() string {
	var b strings.Builder
	m := t.Model
	fmt.Fprintf(&b, "datapath (not hardware-verified): %s\n", m.Summary())
	fmt.Fprintf(&b, "scale factors (.%s): A row %s; B column %s\n", m.Scale.Name, scaleList(m.Scale, t.SFA), scaleList(m.Scale, t.SFB))
	g := &t.Step
	for i := 0; i < len(g.Terms); i++ {
		x := g.Terms[i]
		name := "c"
		if i < len(t.Labels) {
			name = t.Labels[i]
		}
		if x.sig == 0 && !x.nan && !x.inf && !m.ZeroInAnchor {
			// Collapse a run of zero products into one line.
			j := i
			for i > 0 && j+1 < len(g.Terms) && g.Terms[j+1].sig == 0 && !g.Terms[j+1].nan && !g.Terms[j+1].inf {
				j++
			}
			if j > i {
				name = fmt.Sprintf("%s..%s", name, t.Labels[j])
			}
			fmt.Fprintf(&b, "  %-10s 0  (zero: takes no part in choosing the anchor)\n", name)
			i = j
			continue
		}
		detail := ""
		if i < len(t.Details) && t.Details[i] != "" {
			detail = t.Details[i] + " → "
		}
		if x.sig == 0 && !x.nan && !x.inf {
			what := "exponent"
			if i > 0 && m.Group > 1 {
				what = "scale exponent"
			}
			fmt.Fprintf(&b, "  %-10s %s0  (zero at %s %d: takes part in choosing the anchor)\n", name, detail, what, x.exp)
			continue
		}
		switch {
		case x.nan:
			fmt.Fprintf(&b, "  %-10s %sNaN\n", name, detail)
			continue
		case x.inf:
			fmt.Fprintf(&b, "  %-10s %s%sInf\n", name, detail, signStr(x.neg))
			continue
		}
		expName := "exponent"
		if i > 0 && m.Group > 1 {
			expName = "scale exponent"
		}
		fmt.Fprintf(&b, "  %-10s %s%s  (%s %d)", name, detail, x.valueString(), expName, x.exp)
		g.writeAligned(&b, i)
	}
	if g.Special != "" {
		fmt.Fprintf(&b, "  %s: result %#x\n", g.Special, g.Out)
		return b.String()
	}
	g.writeSum(&b, m.FracBits)
	fmt.Fprintf(&b, "  normalised (%s) to %s: %#x = %s\n", RoundTowardZero, m.C, g.Out, m.C.Decode(g.Out))
	return b.String()
}

func scaleList(f *numfmt.Format, raw []uint64) string {
	parts := make([]string, len(raw))
	for i, r := range raw {
		s := decodeScale(f, r)
		if s.nan {
			parts[i] = fmt.Sprintf("%#02x = NaN", r)
			continue
		}
		parts[i] = fmt.Sprintf("%#02x = %g", r, s.value())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
