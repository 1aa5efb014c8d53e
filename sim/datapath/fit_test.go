package datapath

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var fitDir = flag.String("fit", "", "directory with hardware outputs V.D of the discovery batches: score candidate models")
var fitOnly = flag.String("fit.only", "", "with -fit: only variants whose name contains this")
var fitJoins = flag.Bool("fit.joins", false, "with -fit: also try the accumulator joining after the products")

// candidates spans the hypotheses for a float variant.
func candidates(v Variant) []Model {
	var out []Model
	nan, _ := v.C.CanonicalNaN()
	fracs := []int{22, 23, 24, 25, 26, 27}
	if v.A.Bits == 8 {
		fracs = []int{10, 11, 12, 13, 14, 15, 25}
	}
	groups := []int{0}
	joins := []CJoin{CFused}
	if *fitJoins {
		joins = []CJoin{CFused, CExact, CRounded}
		groups = []int{0, v.K / 2, v.K / 4}
		fracs = []int{13, 23, 24, 25, 26}
	}
	for _, fb := range fracs {
		for _, floor := range []bool{false} {
			for _, g := range groups {
				for _, out2 := range []Rounding{RoundTowardZero, RoundNearestEven} {
					for _, omb := range []int{0, 13} {
						if omb == 13 && (v.C.Bits != 32 || v.A.Bits != 8) {
							continue
						}
						for _, flushIn := range []bool{false} {
							for _, flushOut := range []bool{false} {
								for _, sat := range []bool{false, true} {
									for _, join := range joins {
										for _, cr := range []Rounding{RoundTowardZero, RoundNearestEven} {
											if join != CRounded && cr == RoundNearestEven {
												continue
											}
											base := Model{A: v.A, B: v.B, C: v.C, FracBits: fb, Floor: floor, Group: g,
												ZeroExp: -126, Out: out2, OutMantBits: omb, FlushInputs: flushIn, FlushOutput: flushOut, Saturate: sat, NaN: nan,
												CAfter: join, CAddRound: cr}
											out = append(out, base)
											if *fitJoins && join == CFused {
												for _, cr2 := range []Rounding{RoundTowardZero, RoundNearestEven} {
													h := base
													h.HoldC, h.CAddRound = true, cr2
													out = append(out, h)
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

func describe(m Model) string {
	return fmt.Sprintf("frac=%d group=%d out=%v outMant=%d sat=%v join=%d holdC=%v cadd=%v",
		m.FracBits, m.Group, m.Out, m.OutMantBits, m.Saturate, m.CAfter, m.HoldC, m.CAddRound)
}

// mismatches counts differing outputs and names the targeted probes among them.
func mismatches(b *Batch, d []byte, ev Evaluator, names []string) (int, []string) {
	n := 0
	var bad []string
	for p := 0; p < b.T; p++ {
		for m := 0; m < b.M; m++ {
			for j := 0; j < b.N; j++ {
				a, bb := b.Operands(p, m, j)
				got := b.CElem(d, p, m, j)
				want := ev.Dot(a, bb, b.CElem(b.C, p, m, j))
				if got != want {
					n++
					if m == j && m < 8 && p*8+m < len(names) {
						bad = append(bad, fmt.Sprintf("%s: hw %#x model %#x", names[p*8+m], got, want))
					}
				}
			}
		}
	}
	return n, bad
}

// TestFitDiscovery scores the hypotheses against recorded hardware outputs:
//
//	go test ./sim/datapath -run TestFitDiscovery -fit DIR -v
func TestFitDiscovery(t *testing.T) {
	if *fitDir == "" {
		t.Skip("set -fit DIR (hardware outputs of the discovery batches)")
	}
	for _, v := range append(ProbeVariants(), MMAProbeVariants()...) {
		if !strings.Contains(v.Name, *fitOnly) {
			continue
		}
		d, err := os.ReadFile(filepath.Join(*fitDir, v.Name+".D"))
		if err != nil {
			t.Logf("%s: no hardware output", v.Name)
			continue
		}
		b := DiscoveryBatch(v, *probesRandom)
		var names []string
		for _, p := range TargetedProblems(v) {
			names = append(names, p.Name)
		}
		total := b.T * b.M * b.N
		if !v.A.IsFloat() {
			ev := &IntModel{A: v.A, B: v.B, Saturate: v.Sat, B1: v.B1}
			n, bad := mismatches(b, d, ev, names)
			t.Logf("%-22s integer model: %d/%d mismatches %v", v.Name, n, total, bad)
			continue
		}
		type scored struct {
			m Model
			n int
		}
		var res []scored
		for _, m := range candidates(v) {
			mm := m
			n, _ := mismatches(b, d, &mm, nil)
			res = append(res, scored{m, n})
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].n < res[j].n })
		var lines []string
		for i := 0; i < 5 && i < len(res); i++ {
			lines = append(lines, fmt.Sprintf("    %7d  %s", res[i].n, describe(res[i].m)))
		}
		best := res[0].m
		_, bad := mismatches(b, d, &best, names)
		if len(bad) > 25 {
			bad = append(bad[:25], fmt.Sprintf("... %d more", len(bad)-25))
		}
		t.Logf("%-22s %d outputs; best models:\n%s\n  targeted probes the best model misses:\n    %s", v.Name, total, strings.Join(lines, "\n"), strings.Join(bad, "\n    "))
	}
}

var diagVariant = flag.String("diag", "", "with -fit: print the mismatches of this variant under the Hopper profile")

// TestDiagnose prints mismatching outputs with their terms.
func TestDiagnose(t *testing.T) {
	if *fitDir == "" || *diagVariant == "" {
		t.Skip("set -fit DIR -diag VARIANT")
	}
	for _, v := range append(ProbeVariants(), MMAProbeVariants()...) {
		if v.Name != *diagVariant {
			continue
		}
		d, b, m := diagInputs(t, v)
		shown := 0
		for p := 0; p < b.T && shown < 6; p++ {
			for i := 0; i < b.M && shown < 6; i++ {
				for j := 0; j < 8 && shown < 6; j++ {
					a, bb := b.Operands(p, i, j)
					c := b.CElem(b.C, p, i, j)
					got := b.CElem(d, p, i, j)
					r := m.Explain(a, bb, c)
					if r.Bits != got {
						shown++
						t.Logf("problem %d (%d,%d) fill %s: hw %#x model %#x\n%s", p, i, j, FillNames[(p)%numFills], got, r.Bits, r.Trace)
					}
				}
			}
		}
	}
}

func diagModel(v Variant) *Model { return ForVariant(v).(*Model) }

// diagInputs loads what the diagnostics of variant v look at: the hardware's
// D from -fit DIR, the discovery batch it was computed from and the model.
func diagInputs(t *testing.T, v Variant) ([]byte, *Batch, *Model) {
	t.Helper()
	d, err := os.ReadFile(filepath.Join(*fitDir, v.Name+".D"))
	if err != nil {
		t.Fatal(err)
	}
	return d, DiscoveryBatch(v, *probesRandom), diagModel(v)
}
