package datapath

import (
	"os"
	"path/filepath"
	"testing"
)

// evalFunc adapts a closure to Evaluator.
type evalFunc func(a, b []uint64, c uint64) uint64

func (f evalFunc) Dot(a, b []uint64, c uint64) uint64 { return f(a, b, c) }

// TestFitSplitStructures scores explicit split-K structures for mma.sync FP8.
func TestFitSplitStructures(t *testing.T) {
	if *fitDir == "" {
		t.Skip("set -fit DIR")
	}
	for _, v := range MMAProbeVariants() {
		if v.A.Bits != 8 || !v.A.IsFloat() {
			continue
		}
		d, err := os.ReadFile(filepath.Join(*fitDir, v.Name+".D"))
		if err != nil {
			continue
		}
		b := DiscoveryBatch(v, *probesRandom)
		var names []string
		for _, p := range TargetedProblems(v) {
			names = append(names, p.Name)
		}
		out := RoundTowardZero
		if v.C.Bits == 16 {
			out = RoundNearestEven
		}
		for _, g := range []int{8, 16} {
			for _, inner := range []Rounding{RoundTowardZero, RoundNearestEven} {
				for _, comb := range []Rounding{RoundTowardZero, RoundNearestEven} {
					for _, shape := range []string{"chain", "halves-then-c", "exact-halves+c"} {
						m := &Model{A: v.A, B: v.B, C: v.C, FracBits: 25, ZeroExp: -126, Out: inner, NaN: Hopper(v.A, v.B, v.C).NaN, CAddRound: comb}
						_ = out
						ev := evalFunc(func(a, bb []uint64, c uint64) uint64 {
							var parts []uint64
							for s := 0; s < len(a); s += g {
								parts = append(parts, m.fused(a[s:s+g], bb[s:s+g], 0, nil))
							}
							switch shape {
							case "chain": // c joins first, then each part in order
								acc := c
								for _, p := range parts {
									acc = m.addIEEE(p, acc)
								}
								return acc
							case "halves-then-c":
								acc := parts[0]
								for _, p := range parts[1:] {
									acc = m.addIEEE(acc, p)
								}
								return m.addIEEE(acc, c)
							default: // every part and c added exactly, one rounding
								x := decode(m.C, c, m.ZeroExp, false)
								if x.nan || x.inf {
									acc := c
									for _, p := range parts {
										acc = m.addIEEE(p, acc)
									}
									return acc
								}
								v0, sc := termInt(x)
								e := addExact(v0, sc, term{})
								for _, p := range parts {
									pt := decode(m.C, p, m.ZeroExp, false)
									if pt.nan || pt.inf {
										return m.addIEEE(p, c)
									}
									pv, ps := termInt(pt)
									e = addExactVal(e, pv, ps)
								}
								return m.roundExact(e, comb)
							}
						})
						n, bad := mismatches(b, d, ev, names)
						t.Logf("%-20s group=%2d inner=%v combine=%v %-15s: %5d mismatches %v", v.Name, g, inner, comb, shape, n, bad[:min(2, len(bad))])
					}
				}
			}
		}
	}
}
