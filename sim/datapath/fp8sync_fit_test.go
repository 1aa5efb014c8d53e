package datapath

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var fp8Fit = flag.Bool("fp8.fit", false, "score split-K (two k16 steps) structures for mma.sync FP8 against the recorded discovery outputs")

// readDiscovery returns the recorded H100 output of variant v.
func readDiscovery(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "fixtures", "numerics", "discovery", name+".D.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// splitSpec is one hypothesis of how the emulated FP8 mma.sync splits K=32
// into two fused k16 steps and where C joins.
type splitSpec struct {
	name   string
	first  []int // k indices of the first step
	second []int
	cMode  string // "c-first": C is the first step's accumulator; "fadd": steps from +0, then C added (RN); "c-second"; "sep": both steps from 0, then (s1+s2)+c
	cRound Rounding
	inner  Rounding // rounding of each step into the accumulator format
	frac   int
}

func partitions() map[string][2][]int {
	out := map[string][2][]int{}
	mk := func(name string, in func(k int) bool) {
		var a, b []int
		for k := 0; k < 32; k++ {
			if in(k) {
				a = append(a, k)
			} else {
				b = append(b, k)
			}
		}
		out[name] = [2][]int{a, b}
		out[name+"/rev"] = [2][]int{b, a}
	}
	mk("halves", func(k int) bool { return k < 16 })
	mk("mod4<2", func(k int) bool { return k%4 < 2 })
	mk("xor", func(k int) bool { return (k/16)^(k%4/2) == 0 })
	mk("mod8<4", func(k int) bool { return k%8 < 4 })
	mk("even", func(k int) bool { return k%2 == 0 })
	return out
}

func (s splitSpec) eval(v Variant) Evaluator {
	nan, _ := v.C.CanonicalNaN()
	m := &Model{A: v.A, B: v.B, C: v.C, FracBits: s.frac, ZeroExp: -126, Out: s.inner, NaN: nan, CAddRound: s.cRound}
	pick := func(x []uint64, ks []int) []uint64 {
		o := make([]uint64, len(ks))
		for i, k := range ks {
			o[i] = x[k]
		}
		return o
	}
	return evalFunc(func(a, b []uint64, c uint64) uint64 {
		a1, b1 := pick(a, s.first), pick(b, s.first)
		a2, b2 := pick(a, s.second), pick(b, s.second)
		switch s.cMode {
		case "c-first":
			return m.fused(a2, b2, m.fused(a1, b1, c, nil), nil)
		case "fadd":
			return m.addIEEE(m.fused(a2, b2, m.fused(a1, b1, 0, nil), nil), c)
		case "c-second":
			return m.fused(a2, b2, m.addIEEE(m.fused(a1, b1, 0, nil), c), nil)
		case "sep":
			return m.addIEEE(m.addIEEE(m.fused(a1, b1, 0, nil), m.fused(a2, b2, 0, nil)), c)
		case "sep-c1":
			return m.addIEEE(m.addIEEE(m.fused(a1, b1, 0, nil), c), m.fused(a2, b2, 0, nil))
		}
		panic(s.cMode)
	})
}

func TestFP8SplitFit(t *testing.T) {
	if !*fp8Fit {
		t.Skip("set -fp8.fit")
	}
	for _, v := range MMAProbeVariants() {
		if v.A.Bits != 8 || !v.A.IsFloat() {
			continue
		}
		hw := readDiscovery(t, v.Name)
		b := DiscoveryBatch(v, 64)
		var names []string
		for _, p := range TargetedProblems(v) {
			names = append(names, p.Name)
		}
		type res struct {
			s   splitSpec
			n   int
			bad []string
		}
		var rs []res
		parts := partitions()
		var pn []string
		for k := range parts {
			pn = append(pn, k)
		}
		sort.Strings(pn)
		for _, p := range pn {
			for _, cm := range []string{"c-first", "fadd", "c-second", "sep", "sep-c1"} {
				for _, inner := range []Rounding{RoundTowardZero, RoundNearestEven} {
					for _, cr := range []Rounding{RoundTowardZero, RoundNearestEven} {
						for _, fr := range []int{25} {
							s := splitSpec{name: p, first: parts[p][0], second: parts[p][1], cMode: cm, cRound: cr, inner: inner, frac: fr}
							n, bad := mismatches(b, hw, s.eval(v), names)
							rs = append(rs, res{s, n, bad})
						}
					}
				}
			}
		}
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].n < rs[j].n })
		var buf bytes.Buffer
		for _, r := range rs[:12] {
			fmt.Fprintf(&buf, "  %5d  %-12s %-9s inner=%v cadd=%v frac=%d %v\n", r.n, r.s.name, r.s.cMode, r.s.inner, r.s.cRound, r.s.frac, r.bad[:min(3, len(r.bad))])
		}
		t.Logf("%s (%d outputs):\n%s", v.Name, b.T*b.M*b.N, buf.String())
	}
}

var fp8Explain = flag.Bool("fp8.explain", false, "with -fp8.hw: explain the mismatches of the mma.sync FP8 random sets step by step")

// TestFP8ExplainMismatches prints, for every random-set output where
// MMASyncFP8 and the H100 differ, both steps' terms, the model's step
// results and the exact sums.
func TestFP8ExplainMismatches(t *testing.T) {
	if *fp8HW == "" || !*fp8Explain {
		t.Skip("set -fp8.hw DIR -fp8.explain")
	}
	for _, in := range fp8Instances() {
		if in.Dir != "rand" || in.K16 {
			continue
		}
		hw, err := os.ReadFile(filepath.Join(*fp8HW, "rand", in.Tag+".D"))
		if err != nil {
			continue
		}
		b := in.batch()
		m := MMASyncFP8(in.V.A, in.V.B, in.V.C)
		inner := *m
		inner.HoldC, inner.PairSteps = false, false
		ord := m.stepOrder(32)
		for p := 0; p < b.T; p++ {
			for i := 0; i < b.M; i++ {
				for j := 0; j < b.N; j++ {
					a, bb := b.Operands(p, i, j)
					c := b.CElem(b.C, p, i, j)
					got := b.CElem(hw, p, i, j)
					if m.Dot(a, bb, c) == got {
						continue
					}
					pa, pbb := permute(a, ord), permute(bb, ord)
					s1 := inner.fused(pa[:16], pbb[:16], 0, nil)
					tr := &Trace{Model: &inner}
					s2 := inner.fused(pa[16:], pbb[16:], s1, tr)
					var lines []string
					exact := func(ks []int) *big.Rat {
						r := new(big.Rat)
						for _, k := range ks {
							x := decode(in.V.A, a[k], -126, false)
							y := decode(in.V.B, bb[k], -126, false)
							r.Add(r, ratOf(term{neg: x.neg != y.neg, sig: x.sig * y.sig, exp: x.exp + y.exp, frac: x.frac + y.frac}))
						}
						return r
					}
					e1, e2 := exact(ord[:16]), exact(ord[16:])
					f1, _ := e1.Float64()
					f2, _ := e2.Float64()
					lines = append(lines, fmt.Sprintf("exact step sums %.17g %.17g; model S1 %#x S2 %#x c %#x -> model %#x hw %#x", f1, f2, s1, s2, c, m.Dot(a, bb, c), got))
					t.Logf("%s problem %d (%d,%d) fill %d:\n%s\n%s", in.Tag, p, i, j, p%numFills, strings.Join(lines, "\n"), tr)
				}
			}
		}
	}
}

var fp8Hyp = flag.Bool("fp8.hyp", false, "score the mma.sync FP8 hypotheses on the recorded family (fixtures/numerics/mmafp8; with -fp8.hw also 1024 problems of every random and holdout set)")

// fp8Hypotheses are the candidate datapaths for emulated FP8 mma.sync,
// each as an evaluator of a K-vector dot product.
func fp8Hypotheses(v Variant) []struct {
	name string
	ev   Evaluator
} {
	final := MMASyncFP8(v.A, v.B, v.C)
	old := Hopper(v.A, v.B, v.C) // the approximate model before: one fused step, then C
	old.FracBits, old.OutMantBits, old.CAfter, old.CAddRound = 25, 0, CRounded, RoundNearestEven
	halves := *final
	halves.PairSteps = false // Group 0 with HoldC: set per K below
	cFirst := *final
	cFirst.HoldC = false
	noWiden := *final
	noWiden.Widen = nil
	hiFirst := evalFunc(func(a, b []uint64, c uint64) uint64 {
		ord := final.stepOrder(len(a))
		n := pairStepSize(len(a))
		ord = append(append([]int{}, ord[n:]...), ord[:n]...)
		x := *final
		x.PairSteps = false
		x.Group = len(a) - n
		return x.Dot(permute(a, ord), permute(b, ord), c)
	})
	halvesEv := evalFunc(func(a, b []uint64, c uint64) uint64 {
		x := halves
		x.Group = len(a) / 2
		return x.Dot(a, b, c)
	})
	cSecond := evalFunc(func(a, b []uint64, c uint64) uint64 {
		ord := final.stepOrder(len(a))
		n := pairStepSize(len(a))
		inner := *final
		inner.HoldC, inner.PairSteps = false, false
		pa, pb := permute(a, ord), permute(b, ord)
		s1 := inner.fused(pa[:n], pb[:n], 0, nil)
		return inner.fused(pa[n:], pb[n:], final.addIEEE(s1, c), nil)
	})
	return []struct {
		name string
		ev   Evaluator
	}{
		{"wgmma FP8 datapath (C fused, 13 fraction bits, e8m13 result)", Hopper(v.A, v.B, v.C)},
		{"one fused step of all K products (25 bits), rounded, then C (the former approximate model)", old},
		{"two steps of contiguous halves (k < K/2 first), then C", halvesEv},
		{"two steps by byte pair, high pair (k mod 4 in {2,3}) first, then C", hiFirst},
		{"two steps by byte pair, C as the first step's accumulator", &cFirst},
		{"two steps by byte pair, C added between the steps", cSecond},
		{"two steps by byte pair, then C, FP8 subnormals at the FP8 minimum exponent (no f16 widening)", &noWiden},
		{"MMASyncFP8: two steps by byte pair (low pair first, from +0), f16 widening, then C with RN", final},
	}
}

// TestFP8Hypotheses scores every hypothesis on the recorded family and
// prints the table the README quotes.
func TestFP8Hypotheses(t *testing.T) {
	if !*fp8Hyp {
		t.Skip("set -fp8.hyp")
	}
	dir := filepath.Join("..", "..", "fixtures", "numerics", "mmafp8")
	type score struct{ bad, total int }
	var names []string
	scores := map[string]*score{}
	perVariant := map[string][]int{}
	for _, in := range fp8Instances() {
		var hw []byte
		var err error
		if in.Dir == "probe" {
			hw, err = readGz(filepath.Join(dir, in.Tag+".D.gz"))
		} else if *fp8HW != "" {
			hw, err = os.ReadFile(filepath.Join(*fp8HW, in.Dir, in.Tag+".D"))
		} else {
			continue
		}
		if err != nil {
			t.Logf("%s/%s: %v", in.Dir, in.Tag, err)
			continue
		}
		b := in.batch()
		T := b.T
		if in.Dir != "probe" {
			T = min(T, 1024)
		}
		K := 32
		if in.K16 {
			K = 16
		}
		hyps := fp8Hypotheses(in.V)
		for hi, h := range hyps {
			if _, ok := scores[h.name]; !ok {
				scores[h.name] = &score{}
				names = append(names, h.name)
			}
			s := scores[h.name]
			bad := 0
			for p := 0; p < T; p++ {
				a, bb, c := b.Matrices(p)
				a, bb = trimK(a, 32, K), trimK(bb, 32, K)
				var out []uint64
				if m, ok := h.ev.(*Model); ok {
					out = m.MatMul(b.M, b.N, K, a, bb, c)
				} else {
					out = make([]uint64, b.M*b.N)
					for i := 0; i < b.M; i++ {
						for j := 0; j < b.N; j++ {
							out[i*b.N+j] = h.ev.Dot(a[i*K:(i+1)*K], bb[j*K:(j+1)*K], c[i*b.N+j])
						}
					}
				}
				for i, o := range out {
					if o != b.CElem(hw, p, i/b.N, i%b.N) {
						bad++
					}
				}
			}
			s.bad += bad
			s.total += T * b.M * b.N
			key := in.Dir + " " + in.Tag
			if len(perVariant[key]) == 0 {
				perVariant[key] = make([]int, len(hyps))
			}
			perVariant[key][hi] = bad
		}
	}
	var sb strings.Builder
	for i, n := range names {
		s := scores[n]
		fmt.Fprintf(&sb, "| H%d | %s | %d of %d |\n", i, n, s.bad, s.total)
	}
	var keys []string
	for k := range perVariant {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, "  %-30s %v\n", k, perVariant[k])
	}
	t.Logf("mismatches with the H100 per hypothesis:\n%s", sb.String())
}
