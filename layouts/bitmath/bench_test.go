package bitmath

import (
	"testing"
	"time"

	"github.com/tcsim/tcsim/layouts"
)

type benchCase struct {
	name string
	m    Map
	// tab is the baseline: evaluating the layout at every input with the
	// layouts package and storing the results, which is what any tool
	// must do at least once to know the layout.
	tab func() []int
}

func benchCases(b *testing.B) []benchCase {
	tv := accTV(b, 256)
	sw, err := layouts.ParseAnyLayout("Sw<3,3,3> o 0 o (8,64):(64,1)")
	if err != nil {
		b.Fatal(err)
	}
	swm, err := FromLayout("sw128", sw, true)
	if err != nil {
		b.Fatal(err)
	}
	return []benchCase{
		{"acc_m64n256", FromTV("acc", tv), func() []int {
			out := make([]int, 0, 2*tv.Threads()*tv.Values())
			for t := 0; t < tv.Threads(); t++ {
				for v := 0; v < tv.Values(); v++ {
					r, c := tv.Coord(t, v)
					out = append(out, r, c)
				}
			}
			return out
		}},
		{"sw128_8x64", swm, func() []int {
			out := make([]int, 0, 512)
			for c := 0; c < 64; c++ {
				for r := 0; r < 8; r++ {
					out = append(out, sw.Eval(r+8*c))
				}
			}
			return out
		}},
	}
}

// nsPerOp times f over enough runs to last about 100ms.
func nsPerOp(f func()) float64 {
	n := 1
	for {
		st := time.Now()
		for range n {
			f()
		}
		if d := time.Since(st); d > 100*time.Millisecond || n > 1<<20 {
			return float64(d.Nanoseconds()) / float64(n)
		}
		n *= 2
	}
}

// BenchmarkTabulate is the baseline: the layout evaluated at every input.
func BenchmarkTabulate(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.tab()
			}
		})
	}
}

// BenchmarkAnalyze builds and verifies the F2 matrix; x-tabulate is its
// cost as a multiple of the baseline, measured in the same run.
func BenchmarkAnalyze(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			base := nsPerOp(func() { c.tab() })
			b.ResetTimer()
			for b.Loop() {
				if _, err := Analyze(c.m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-tabulate")
		})
	}
}

// BenchmarkDerive is the whole derivation: tabulate, analyze, invert, derive
// both programs (every candidate form) and verify both on every input.
func BenchmarkDerive(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			base := nsPerOp(func() { c.tab() })
			b.ResetTimer()
			for b.Loop() {
				if _, err := Derive(c.m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-tabulate")
		})
	}
}

// BenchmarkCheck evaluates the seed formula for every (tid, v).
func BenchmarkCheck(b *testing.B) {
	m := accMap(b, 256)
	tv := accTV(b, 256)
	base := nsPerOp(func() {
		for t := 0; t < tv.Threads(); t++ {
			for v := 0; v < tv.Values(); v++ {
				tv.Coord(t, v)
			}
		}
	})
	b.ResetTimer()
	for b.Loop() {
		if r, err := Check(m, seedFormula, false); err != nil || !r.OK() {
			b.Fatal(r, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-tabulate")
}
