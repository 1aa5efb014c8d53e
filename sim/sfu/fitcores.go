package sfu

import (
	"fmt"
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
	// Samples turns a dump's datasets into constraints (nil to skip a dataset).
	Samples func(d *Dump) []Sample
}

// binadeOf reports whether a dump covers the binade of op that starts at
// base (every operand, or every Step-th).
func binadeOf(d *Dump, op string, base uint64) bool {
	return d.Op == op && d.Gen == "range" && d.Base == base && d.Count*int(max(d.Step, 1)) == 1<<23
}

// intSamples: for a whole binade, interval = mantissa >> L, Xl = the rest,
// S in [M, M+1) with M = value/unit.
func intSamples(d *Dump, L int, unit float64, skip func(m uint32) bool) []Sample {
	var out []Sample
	for i, a := range d.A {
		m := uint32(a) & manMask
		if skip != nil && skip(m) {
			continue
		}
		v := float64(f32(uint32(d.Out[i]))) / unit
		out = append(out, Sample{I: int(m >> L), Xl: m & (1<<L - 1), Lo: v, Hi: v + 1})
	}
	return out
}

// truncSamples: S in [|out|, |out|+ulp) in units of unit (results truncated
// toward zero to 24 bits), where the sum was first truncated to a quantum.
func truncSamples(d *Dump, L int, unit, quantum float64, skip func(m uint32) bool) []Sample {
	var out []Sample
	for i, a := range d.A {
		m := uint32(a) & manMask
		if skip != nil && skip(m) {
			continue
		}
		b := uint32(d.Out[i]) &^ signMask
		v := float64(f32(b))
		u := float64(f32(b+1)) - v
		out = append(out, Sample{I: int(m >> L), Xl: m & (1<<L - 1), Lo: v / unit, Hi: v/unit + max(u/unit, quantum)})
	}
	return out
}

var (
	optsL17 = FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}
	optsL16 = FitOptions{L: 16, Intervals: 128, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}
)

// QuadSpecs lists every table and how it is fitted.
func QuadSpecs() []QuadSpec {
	zero := func(m uint32) bool { return m == 0 }
	specs := []QuadSpec{
		{"quadEX2", optsL17, func(d *Dump) []Sample {
			if !binadeOf(d, "ex2.approx.ftz.f32", 0x3F800000) {
				return nil
			}
			return intSamples(d, 17, math.Ldexp(1, -22), nil)
		}},
		{"quadRCP", optsL16, func(d *Dump) []Sample {
			if !binadeOf(d, "rcp.approx.ftz.f32", 0x3F800000) {
				return nil
			}
			return intSamples(d, 16, math.Ldexp(1, -24), nil)
		}},
		{"quadRSQ[0]", optsL17, func(d *Dump) []Sample {
			if !binadeOf(d, "rsqrt.approx.ftz.f32", 0x3F800000) {
				return nil
			}
			return intSamples(d, 17, math.Ldexp(1, -24), zero)
		}},
		{"quadRSQ[1]", optsL17, func(d *Dump) []Sample {
			if !binadeOf(d, "rsqrt.approx.ftz.f32", 0x40000000) {
				return nil
			}
			return intSamples(d, 17, math.Ldexp(1, -24), nil)
		}},
		{"quadSQRT[0]", FitOptions{L: 17, Intervals: 64, C0Step: 1, C1Step: 2, C2Step: 1, Window: 6}, func(d *Dump) []Sample {
			if !binadeOf(d, "sqrt.approx.ftz.f32", 0x3F800000) {
				return nil
			}
			return intSamples(d, 17, math.Ldexp(1, -23), nil)
		}},
		{"quadSQRT[1]", FitOptions{L: 17, Intervals: 64, C0Step: 1, C1Step: 2, C2Step: 1, Window: 6}, func(d *Dump) []Sample {
			if !binadeOf(d, "sqrt.approx.ftz.f32", 0x40000000) {
				return nil
			}
			return intSamples(d, 17, math.Ldexp(1, -23), nil)
		}},
		{"quadLG2", FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 6}, func(d *Dump) []Sample {
			if !binadeOf(d, "lg2.approx.ftz.f32", 0x3F800000) {
				return nil
			}
			return truncSamples(d, 17, math.Ldexp(1, -24), 1.0/(1<<lg2Frac), zero)
		}},
		{"quadSIN", FitOptions{L: 17, Intervals: 64, C0Step: 2, C1Step: 4, C2Step: 2, Window: 8}, func(d *Dump) []Sample {
			cos := d.Op == "cos.approx.ftz.f32"
			if !binadeOf(d, "sin.approx.ftz.f32", 0x40000000) && !binadeOf(d, "sin.approx.ftz.f32", 0x40800000) &&
				!binadeOf(d, "cos.approx.ftz.f32", 0x40000000) && !binadeOf(d, "cos.approx.ftz.f32", 0x40800000) {
				return nil
			}
			var out []Sample
			for i, a := range d.A {
				_, f, _ := sinArg(fmul32(uint32(a), invTwoPi32, false, true), cos)
				b := uint32(d.Out[i]) &^ signMask
				v := float64(f32(b))
				u := float64(f32(b+1)) - v
				unit := math.Ldexp(1, -24)
				out = append(out, Sample{I: int(f >> 17), Xl: f & (1<<17 - 1), Lo: v / unit, Hi: v/unit + max(u/unit, 1.0/(1<<sinFrac))})
			}
			return out
		}},
	}
	for e := tanhMinExp; e <= tanhMaxExp; e++ {
		base := uint64(e+127) << 23
		specs = append(specs, QuadSpec{fmt.Sprintf("quadTANH[%d]", e-tanhMinExp),
			FitOptions{L: 17, Intervals: 1 << tanhIndexBits[e-tanhMinExp], C0Step: 2, C1Step: 4, C2Step: 2, Window: 10},
			func(d *Dump) []Sample {
				if d.Op != "tanh.approx.f32" || !(d.Gen == "range" || d.Gen == "sample") || d.Base != base || d.Gen == "sample" && d.Span != 1<<23 {
					return nil
				}
				var out []Sample
				unit := math.Ldexp(1, e-24)
				for k, a := range d.A {
					_, i, xl := tanhSplit(e, uint32(a)&manMask)
					b := uint32(d.Out[k]) &^ signMask
					v := float64(f32(b))
					u := float64(f32(b+1)) - v
					out = append(out, Sample{I: i, Xl: xl, Lo: v / unit, Hi: v/unit + max(u/unit, 1.0/(1<<tanhFrac))})
				}
				return out
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
	fmt.Fprintln(w, "}")
}

// The tables (tables_gen.go).
var (
	quadEX2, quadRCP, quadLG2, quadSIN *Quad
	quadTANH                           [tanhMaxExp - tanhMinExp + 1]*Quad
	quadRSQ, quadSQRT                  [2]*Quad
)

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
