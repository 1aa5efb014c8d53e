package datapath

import (
	"fmt"
	"math"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// probeBuilder collects targeted problems for one float variant, skipping
// any whose values the formats cannot represent exactly.
type probeBuilder struct {
	v   Variant
	out []Problem
}

// term is a product a*b given as float64 values.
type pair struct{ a, b float64 }

func (pb *probeBuilder) add(name string, c float64, terms ...pair) {
	pb.addBits(name, c, false, terms...)
}

// addBits plants a problem; products beyond len(terms) are +0 * +0.
func (pb *probeBuilder) addBits(name string, c float64, cIsBits bool, terms ...pair) {
	v := pb.v
	if len(terms) > v.K {
		return
	}
	pr := Problem{Name: name, A: make([]uint64, v.K), B: make([]uint64, v.K)}
	var ok bool
	if cIsBits {
		pr.C = math.Float64bits(c) // caller passed raw bits through the float64 carrier
	} else if pr.C, ok = exact(v.C, c); !ok {
		return
	}
	for i, t := range terms {
		if pr.A[i], ok = exactOrSpecial(v.A, t.a); !ok {
			return
		}
		if pr.B[i], ok = exactOrSpecial(v.B, t.b); !ok {
			return
		}
	}
	pb.out = append(pb.out, pr)
}

// exactOrSpecial is exact, plus NaN and ±Inf where the format has them.
func exactOrSpecial(f *numfmt.Format, x float64) (uint64, bool) {
	switch {
	case math.IsNaN(x):
		return f.CanonicalNaN()
	case math.IsInf(x, 0):
		return f.Inf(x < 0)
	}
	return exact(f, x)
}

// split finds a product a*b = 2^-k with both factors representable.
func (pb *probeBuilder) split(k int, sign float64) (pair, bool) {
	for ka := 0; ka <= k; ka++ {
		a, b := sign*math.Ldexp(1, -ka), math.Ldexp(1, -(k-ka))
		if _, ok := exact(pb.v.A, a); !ok {
			continue
		}
		if _, ok := exact(pb.v.B, b); ok {
			return pair{a, b}, true
		}
	}
	return pair{}, false
}

func one() pair    { return pair{1, 1} }
func negOne() pair { return pair{-1, 1} }

// TargetedProblems returns the hypothesis-separating probes of a float
// variant. Their names say what each isolates. The sections run in a
// fixed order: the recorded campaigns name problems by index.
func TargetedProblems(v Variant) []Problem {
	pb := &probeBuilder{v: v}
	if !v.A.IsFloat() {
		return intProblems(v)
	}
	pb.alignment()
	pb.groups()
	pb.rounding()
	pb.zerosAndSubnormalInputs()
	pb.resultRange()
	pb.specials()
	return pb.out
}

// alignment: the alignment width (1 - 1 + 2^-k leaves only the aligned
// small term), the truncation of an aligned term's low bits, and whether
// C joins the alignment.
func (pb *probeBuilder) alignment() {
	// 1. Alignment width: 1 - 1 + 2^-k leaves only the aligned small term.
	for k := 4; k <= 40; k++ {
		for _, s := range []float64{1, -1} {
			if p, ok := pb.split(k, s); ok {
				pb.add(fmt.Sprintf("align/k=%d/sign=%+g", k, s), 0, one(), negOne(), p)
			}
		}
	}
	// 2. Truncation of low bits of an aligned term: (1+2^-j) * 2^-k.
	for k := 8; k <= 30; k++ {
		for j := 1; j <= 3; j++ {
			for _, s := range []float64{1, -1} {
				a := s * (1 + math.Ldexp(1, -j)) * math.Ldexp(1, -k/2)
				b := math.Ldexp(1, -(k - k/2))
				pb.add(fmt.Sprintf("trunc/k=%d/j=%d/sign=%+g", k, j, s), 0, one(), negOne(), pair{a, b})
			}
		}
	}
	// 3. Does C join the alignment? c = ±2^-k with 1 - 1.
	for k := 4; k <= 40; k++ {
		for _, s := range []float64{1, -1} {
			pb.add(fmt.Sprintf("c-align/k=%d/sign=%+g", k, s), s*math.Ldexp(1, -k), one(), negOne())
		}
	}
}

// groups: the group size (±1 at positions i and j, 2^-30 at s: in one
// fused group the small term is truncated away; in a group of its own it
// survives).
func (pb *probeBuilder) groups() {
	v := pb.v
	// 4. Group size: ±1 at positions (i, j), 2^-30 at position s. In one
	// fused group the small term is truncated away; in a group of its own
	// it survives.
	if sm, ok := pb.split(30, 1); ok {
		for _, pos := range [][3]int{{0, 1, 2}, {0, 1, v.K - 1}, {v.K - 2, v.K - 1, 0}, {0, v.K / 2, v.K - 1}, {0, 1, v.K / 2}, {v.K / 2, v.K/2 + 1, 0}, {0, 1, v.K / 4}, {0, 1, 3 * v.K / 4}} {
			terms := make([]pair, v.K)
			for i := range terms {
				terms[i] = pair{0, 0}
			}
			terms[pos[0]], terms[pos[1]], terms[pos[2]] = one(), negOne(), sm
			pb.add(fmt.Sprintf("group/big=%d,%d/small=%d", pos[0], pos[1], pos[2]), 0, terms...)
		}
	}
}

// rounding: the final rounding (c = 1 + 2^-23·n, product 2^-24·f), and
// f16 accumulators' rounding at 2^-11 and 2^-12 below 1.
func (pb *probeBuilder) rounding() {
	// 5. Final rounding: c = 1 + 2^-23·n, product 2^-24·f.
	for _, cs := range []float64{1, -1} {
		for _, n := range []float64{0, 1} {
			for _, k := range []int{24, 25} {
				for _, ps := range []float64{1, -1} {
					if p, ok := pb.split(k, ps); ok {
						c := cs * (1 + n*math.Ldexp(1, -23))
						pb.add(fmt.Sprintf("round/c=%g/p=%+g*2^-%d", c, ps, k), c, p)
						if p2, ok := pb.split(k+1, ps); ok {
							pb.add(fmt.Sprintf("round/c=%g/p=%+g*(2^-%d+2^-%d)", c, ps, k, k+1), c, p, p2)
						}
					}
				}
			}
		}
	}
	// f16 accumulators: rounding at 2^-11 and 2^-12 below 1.
	for _, k := range []int{11, 12} {
		for _, s := range []float64{1, -1} {
			if p, ok := pb.split(k, s); ok {
				pb.add(fmt.Sprintf("round16/1%+g*2^-%d", s, k), 1, p)
				pb.add(fmt.Sprintf("round16/(1+2^-10)%+g*2^-%d", s, k), 1+math.Ldexp(1, -10), p)
				if p2, ok := pb.split(k+1, s); ok {
					pb.add(fmt.Sprintf("round16/1%+g*(2^-%d+2^-%d)", s, k, k+1), 1, p, p2)
				}
			}
		}
	}
}

// zerosAndSubnormalInputs: signed zeros, and subnormal inputs.
func (pb *probeBuilder) zerosAndSubnormalInputs() {
	v := pb.v
	// 6. Signed zeros.
	negZero := math.Copysign(0, -1)
	pb.add("zero/c=-0,p=+0", negZero)
	pb.add("zero/c=-0,p=-0*1", negZero, pair{negZero, 1})
	pb.add("zero/c=+0,p=-0*1", 0, pair{negZero, 1})
	pb.add("zero/c=-0,p=-1*1e-0,+1", negZero, negOne(), one())
	pb.add("zero/c=1,p=-1", 1, negOne())
	pb.add("zero/c=-1,p=+1", -1, one())
	pb.add("zero/c=-0,p=tiny-tiny", negZero, pair{math.Ldexp(1, -3), math.Ldexp(1, -3)}, pair{-math.Ldexp(1, -3), math.Ldexp(1, -3)})
	// 7. Subnormal inputs.
	for _, f := range []*numfmt.Format{v.A, v.B} {
		emin := 1 - f.Bias
		sub := math.Ldexp(1, emin-1)            // largest power of two below the normal range
		small := math.Ldexp(1, emin-f.MantBits) // the smallest subnormal
		for _, x := range []float64{sub, small, 3 * small, -sub} {
			for _, y := range []float64{1, math.Ldexp(1, f.MantBits), 2} {
				if f == v.A {
					pb.add(fmt.Sprintf("subnormal-in/a=%g,b=%g", x, y), 0, pair{x, y})
				} else {
					pb.add(fmt.Sprintf("subnormal-in/a=%g,b=%g", y, x), 0, pair{y, x})
				}
			}
		}
	}
}

// resultRange: subnormal and underflowing results, and overflow.
func (pb *probeBuilder) resultRange() {
	v := pb.v
	// 8. Subnormal and underflowing results.
	cf := v.C
	cemin := 1 - cf.Bias
	for _, k := range []int{-cemin + 1, -cemin + 2, -cemin + 5, -cemin + cf.MantBits - 1, -cemin + cf.MantBits, -cemin + cf.MantBits + 1, -cemin + cf.MantBits + 3} {
		for _, s := range []float64{1, -1} {
			if p, ok := pb.split(k, s); ok {
				pb.add(fmt.Sprintf("subnormal-out/2^-%d/sign=%+g", k, s), 0, p)
				if p3, ok := pb.split(k, s); ok {
					pb.add(fmt.Sprintf("subnormal-out/3*2^-%d/sign=%+g", k, s), 0, p, p3, p3)
				}
			}
		}
	}
	// 9. Overflow.
	big := func(f *numfmt.Format) float64 {
		e := 1<<f.ExpBits - 2 - f.Bias
		if !f.HasInf {
			e++
		}
		return math.Ldexp(1, e)
	}
	ba, bb := big(v.A), big(v.B)
	pb.add("overflow/max*max", 0, pair{ba, bb})
	pb.add("overflow/-max*max", 0, pair{-ba, bb})
	pb.add("overflow/max*max-max*max", 0, pair{ba, bb}, pair{-ba, bb})
	cmax := math.Ldexp(2-math.Ldexp(1, -cf.MantBits), 1<<cf.ExpBits-2-cf.Bias)
	pb.add("overflow/cmax+1", cmax, one())
	pb.add("overflow/cmax+cmax/2", cmax, pair{math.Ldexp(1, 1<<cf.ExpBits-3-cf.Bias), 1})
	pb.add("overflow/cmax+2^(emax-24)", cmax, pair{math.Ldexp(1, 1<<cf.ExpBits-2-cf.Bias-cf.MantBits), 1})
}

// specials: NaN and Inf, zero exponents (tiny products with zeros around
// them) and the exactness of mixed magnitudes.
func (pb *probeBuilder) specials() {
	v := pb.v
	// 10. NaN and Inf.
	nan, inf := math.NaN(), math.Inf(1)
	pb.add("special/a=NaN", 0, pair{nan, 1})
	pb.add("special/a=Inf", 0, pair{inf, 1})
	pb.add("special/a=-Inf", 0, pair{-inf, 1})
	pb.add("special/a=Inf,b=0", 0, pair{inf, 0})
	pb.add("special/Inf-Inf", 0, pair{inf, 1}, pair{-inf, 1})
	pb.add("special/c=Inf", inf, one())
	pb.add("special/c=-Inf+Inf", -inf, pair{inf, 1})
	pb.add("special/c=NaN", nan, one())
	if nanBits, ok := v.C.CanonicalNaN(); ok {
		payload := nanBits ^ 0x1
		if v.C.Bits == 32 {
			pb.addBits("special/c=NaN-payload", math.Float64frombits(payload), true, one())
			pb.addBits("special/c=-NaN", math.Float64frombits(nanBits|1<<31), true, one())
		}
	}
	// 11. Zero exponents: tiny products with zeros around them.
	for _, k := range []int{60, 100, 120, 130} {
		if p, ok := pb.split(k, 1); ok {
			pb.add(fmt.Sprintf("zero-exp/2^-%d", k), 0, p)
		}
	}
	// 12. Exactness of mixed magnitudes: 2^e1 + 2^e2 with distance d.
	for d := 20; d <= 30; d++ {
		if p, ok := pb.split(d, 1); ok {
			pb.add(fmt.Sprintf("distance/1+2^-%d", d), 0, one(), p)
			pb.add(fmt.Sprintf("distance/1-2^-%d", d), 0, one(), pair{-p.a, p.b})
		}
	}
}

func intProblems(v Variant) []Problem {
	mk := func(name string, c int64, a, b []int64) Problem {
		pr := Problem{Name: name, A: make([]uint64, v.K), B: make([]uint64, v.K), C: uint64(uint32(c))}
		for i := range a {
			pr.A[i] = uint64(a[i]) & (1<<v.A.Bits - 1)
			pr.B[i] = uint64(b[i]) & (1<<v.B.Bits - 1)
		}
		return pr
	}
	var out []Problem
	lo := func(f *numfmt.Format) int64 {
		if f.Signed {
			return -(1 << (f.Bits - 1))
		}
		return 0
	}
	hi := func(f *numfmt.Format) int64 {
		if f.Signed {
			return 1<<(f.Bits-1) - 1
		}
		return 1<<f.Bits - 1
	}
	all := func(x int64) []int64 {
		s := make([]int64, v.K)
		for i := range s {
			s[i] = x
		}
		return s
	}
	out = append(out,
		mk("int/max*max", 0, all(hi(v.A)), all(hi(v.B))),
		mk("int/min*min", 0, all(lo(v.A)), all(lo(v.B))),
		mk("int/min*max", 0, all(lo(v.A)), all(hi(v.B))),
		mk("int/c=MAX+1", math.MaxInt32, all(1), all(1)),
		mk("int/c=MIN-1", math.MinInt32, all(-1&(1<<v.A.Bits-1)), all(1)),
		mk("int/c=MAX+max*max", math.MaxInt32, all(hi(v.A)), all(hi(v.B))),
		mk("int/c=MIN+min*max", math.MinInt32, all(lo(v.A)), all(hi(v.B))),
	)
	return out
}
