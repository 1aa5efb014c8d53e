package sfu

import (
	"bytes"
	"fmt"
	"go/format"
	"io"
	"math"
	"sort"
	"strings"
)

// QuadSpec says how one interpolator table is fitted: its formats and
// which recorded results constrain it.
type QuadSpec struct {
	Name    string // the Go variable, e.g. quadEX2
	Options FitOptions
	// Binades are the binades whose results constrain the table: every
	// recorded result of an operand in one of them is a sample.
	Binades []FitBinade
	// sample turns one result of one of the binades into a constraint
	// (false: the result does not come from the table).
	sample func(op string, a, out uint32) (Sample, bool)
}

// A FitBinade is every f32 operand of one form with one sign and biased
// exponent: 2^23 operands from Base.
type FitBinade struct {
	Op   string
	Base uint32 // sign and biased exponent, zero fraction
}

// Contains reports whether operand a of form op lies in the binade.
func (b FitBinade) Contains(op string, a uint64) bool {
	return op == b.Op && a>>32 == 0 && uint32(a)&^manMask == b.Base
}

// Samples turns a dump's results of the spec's binades into constraints.
func (s QuadSpec) Samples(d *Dump) []Sample {
	out, _ := s.indexedSamples(d)
	return out
}

// indexedSamples is Samples with, for each sample, the index of its result
// in the dump.
func (s QuadSpec) indexedSamples(d *Dump) ([]Sample, []int) {
	in := false
	for _, b := range s.Binades {
		in = in || b.Op == d.Op
	}
	if !in {
		return nil, nil
	}
	var out []Sample
	var idx []int
	for i, a := range d.A {
		for _, b := range s.Binades {
			if b.Contains(d.Op, a) {
				if x, ok := s.sample(d.Op, uint32(a), uint32(d.Out[i])); ok {
					out = append(out, x)
					idx = append(idx, i)
				}
				break
			}
		}
	}
	return out, idx
}

// intSample: interval = mantissa >> L, Xl = the rest, S in [M, M+1) with
// M = value/unit.
func intSample(L int, unit float64, a, res uint32) Sample {
	m := a & manMask
	v := float64(f32(res)) / unit
	return Sample{I: int(m >> L), Xl: m & (1<<L - 1), Lo: v, Hi: v + 1}
}

// truncBounds: S in [|out|, |out|+ulp) in units of unit (results truncated
// toward zero to 24 bits), where the sum was first truncated to a quantum.
func truncBounds(unit, quantum float64, res uint32) (lo, hi float64) {
	b := res &^ signMask
	v := float64(f32(b))
	u := float64(f32(b+1)) - v
	return v / unit, v/unit + max(u/unit, quantum)
}

var (
	optsL17 = FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}
	optsL16 = FitOptions{L: 16, Intervals: 128, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}
)

// QuadSpecs lists every table and how it is fitted.
func QuadSpecs() []QuadSpec {
	one := func(op string, e uint32) []FitBinade { return []FitBinade{{op, e << 23}} }
	ints := func(L int, unit float64) func(string, uint32, uint32) (Sample, bool) {
		return func(_ string, a, res uint32) (Sample, bool) { return intSample(L, unit, a, res), true }
	}
	// MUFU.RSQ of a power of four is exact, not read from the table
	rsq0 := func(_ string, a, res uint32) (Sample, bool) {
		return intSample(17, math.Ldexp(1, -24), a, res), a&manMask != 0
	}
	sqrtOpts := FitOptions{L: 17, Intervals: 64, C0Step: 1, C1Step: 2, C2Step: 1, Window: 6}
	specs := []QuadSpec{
		{"quadEX2", optsL17, one("ex2.approx.ftz.f32", 127), ints(17, math.Ldexp(1, -22))},
		{"quadRCP", optsL16, one("rcp.approx.ftz.f32", 127), ints(16, math.Ldexp(1, -24))},
		{"quadRSQ[0]", optsL17, one("rsqrt.approx.ftz.f32", 127), rsq0},
		{"quadRSQ[1]", optsL17, one("rsqrt.approx.ftz.f32", 128), ints(17, math.Ldexp(1, -24))},
		{"quadSQRT[0]", sqrtOpts, one("sqrt.approx.ftz.f32", 127), ints(17, math.Ldexp(1, -23))},
		{"quadSQRT[1]", sqrtOpts, one("sqrt.approx.ftz.f32", 128), ints(17, math.Ldexp(1, -23))},
		{"quadLG2", FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}, one("lg2.approx.ftz.f32", 127),
			func(_ string, a, res uint32) (Sample, bool) {
				m := a & manMask
				s := Sample{I: int(m >> 17), Xl: m & (1<<17 - 1)}
				s.Lo, s.Hi = truncBounds(math.Ldexp(1, -24), 1.0/(1<<lg2Frac), res)
				return s, m != 0 // log2(1) = 0 exactly, not read from the table
			}},
		{"quadSIN", FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 8},
			[]FitBinade{{"sin.approx.ftz.f32", 128 << 23}, {"sin.approx.ftz.f32", 129 << 23}, {"cos.approx.ftz.f32", 128 << 23}, {"cos.approx.ftz.f32", 129 << 23}},
			func(op string, a, res uint32) (Sample, bool) {
				_, f, _ := sinArg(fmul32(a, invTwoPi32, false, true), op == "cos.approx.ftz.f32")
				s := Sample{I: int(f >> 17), Xl: f & (1<<17 - 1)}
				s.Lo, s.Hi = truncBounds(math.Ldexp(1, -24), 1.0/(1<<sinFrac), res)
				return s, true
			}},
	}
	for e := tanhMinExp; e <= tanhMaxExp; e++ {
		specs = append(specs, QuadSpec{fmt.Sprintf("quadTANH[%d]", e-tanhMinExp),
			FitOptions{L: 17, Intervals: 1 << tanhIndexBits[e-tanhMinExp], C0Step: 2, C1Step: 4, C2Step: 2, Window: 10},
			one("tanh.approx.f32", uint32(e+127)),
			func(_ string, a, res uint32) (Sample, bool) {
				_, i, xl := tanhSplit(e, a&manMask)
				s := Sample{I: i, Xl: xl}
				s.Lo, s.Hi = truncBounds(math.Ldexp(1, e-24), 1.0/(1<<tanhFrac), res)
				return s, true
			}})
	}
	return specs
}

// FitQuads fits every table to the dumps. The report lists, per table,
// the sample count, ambiguous intervals and the Delta range.
func FitQuads(ds []*Dump, report io.Writer) (map[string]*Quad, error) {
	out := map[string]*Quad{}
	for _, s := range QuadSpecs() {
		var samples []Sample
		for _, d := range ds {
			samples = append(samples, s.Samples(d)...)
		}
		if len(samples) == 0 {
			return nil, fmt.Errorf("%s: no recorded data", s.Name)
		}
		q, rep, err := Fit(samples, s.Options)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Fprintf(report, "%s: %d samples, Delta in [%.7f, %.7f), ambiguous intervals %v\n", s.Name, len(samples), rep.DeltaRange[0], rep.DeltaRange[1], rep.Ambiguous)
		out[s.Name] = q
	}
	return out, nil
}

// TablesHeader names the generator in tables_gen.go's first line (the
// GPU and its provenance are in the record fitted, fixtures/approx).
const TablesHeader = "sim/sfu/internal/fitgen from recorded GPU results"

// GenerateTables fits every table to the dumps and returns tables_gen.go's
// source, formatted; report gets FitQuads's lines.
func GenerateTables(ds []*Dump, report io.Writer) ([]byte, error) {
	qs, err := FitQuads(ds, report)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	WriteTables(&b, qs, TablesHeader)
	return format.Source(b.Bytes())
}

// WriteTables writes the tables as Go source.
func WriteTables(w io.Writer, qs map[string]*Quad, header string) {
	fmt.Fprintf(w, "// Code generated by %s; DO NOT EDIT.\n\npackage sfu\n\n", header)
	names := make([]string, 0, len(qs))
	for n := range qs {
		names = append(names, n)
	}
	sort.Strings(names)
	list := func(v []int64) string {
		var b strings.Builder
		for i, x := range v {
			if i%8 == 0 {
				b.WriteString("\n\t\t")
			} else {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%d,", x)
		}
		return b.String()
	}
	fmt.Fprintln(w, "func init() {")
	for _, n := range names {
		q := qs[n]
		fmt.Fprintf(w, "\t%s = &Quad{L: %d, Delta: %d,\n\t\tC0: []int64{%s\n\t\t},\n\t\tC1: []int64{%s\n\t\t},\n\t\tC2: []int64{%s\n\t\t},\n\t}\n", n, q.L, q.Delta, list(q.C0), list(q.C1), list(q.C2))
	}
	fmt.Fprintln(w, "\tprepareTables()")
	fmt.Fprintln(w, "}")
}

// The tables (tables_gen.go).
var (
	quadEX2, quadRCP, quadLG2, quadSIN *Quad
	quadTANH                           [tanhMaxExp - tanhMinExp + 1]*Quad
	quadRSQ, quadSQRT                  [2]*Quad
)

// prepareTables prepares every table for Quad.Sum (tables_gen.go's init
// calls it once the tables are set).
func prepareTables() {
	for _, q := range tablesByName() {
		q.Prepare()
	}
}

// tablesByName maps each QuadSpec name to its table.
func tablesByName() map[string]*Quad {
	m := map[string]*Quad{"quadEX2": quadEX2, "quadRCP": quadRCP, "quadLG2": quadLG2, "quadSIN": quadSIN}
	for i := range 2 {
		m[fmt.Sprintf("quadRSQ[%d]", i)] = quadRSQ[i]
		m[fmt.Sprintf("quadSQRT[%d]", i)] = quadSQRT[i]
	}
	for i, q := range quadTANH {
		m[fmt.Sprintf("quadTANH[%d]", i)] = q
	}
	return m
}
