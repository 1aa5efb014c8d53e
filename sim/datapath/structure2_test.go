package datapath

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

// ratOf is the exact value of a term.
func ratOf(t term) *big.Rat {
	r := new(big.Rat).SetInt64(int64(t.sig))
	e := t.exp - t.frac
	if e >= 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e))))
	} else {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(-e))))
	}
	if t.neg {
		r.Neg(r)
	}
	return r
}

// TestExplainMismatches prints, for the mma FP8 mismatches of the best model,
// the exact sums of product blocks, to guess the structure.
func TestExplainMismatches(t *testing.T) {
	if *fitDir == "" || *diagVariant == "" {
		t.Skip("set -fit DIR -diag VARIANT")
	}
	var v Variant
	for _, x := range MMAProbeVariants() {
		if x.Name == *diagVariant {
			v = x
		}
	}
	d, b, m := diagInputs(t, v)
	shown := 0
	for p := 0; p < b.T && shown < 12; p++ {
		for i := 0; i < b.M && shown < 12; i++ {
			for j := 0; j < b.N && shown < 12; j++ {
				a, bb := b.Operands(p, i, j)
				c := b.CElem(b.C, p, i, j)
				hw := b.CElem(d, p, i, j)
				if got := m.Dot(a, bb, c); got == hw {
					continue
				}
				shown++
				var blocks [4]*big.Rat
				for q := range blocks {
					blocks[q] = new(big.Rat)
				}
				maxe := -1000
				for k := range a {
					x := decode(v.A, a[k], -126, false)
					y := decode(v.B, bb[k], -126, false)
					if x.nan || x.inf || y.nan || y.inf {
						maxe = 9999
						break
					}
					pr := term{neg: x.neg != y.neg, sig: x.sig * y.sig, exp: x.exp + y.exp, frac: x.frac + y.frac}
					if pr.sig != 0 {
						maxe = max(maxe, pr.exp)
					}
					blocks[k/8].Add(blocks[k/8], ratOf(pr))
				}
				if maxe == 9999 {
					shown--
					continue
				}
				tot := new(big.Rat)
				s := ""
				for q := range blocks {
					tot.Add(tot, blocks[q])
					f, _ := blocks[q].Float64()
					s += fmt.Sprintf(" q%d=%.10g", q, f)
				}
				tf, _ := tot.Float64()
				ct := decode(v.C, c, -126, false)
				cf, _ := ratOf(ct).Float64()
				hf := math.Float32frombits(uint32(hw))
				mf := math.Float32frombits(uint32(m.Dot(a, bb, c)))
				t.Logf("p%d (%d,%d): hw %.10g model %.10g | exact products %.12g c %.6g maxexp %d |%s", p, i, j, hf, mf, tf, cf, maxe, s)
			}
		}
	}
}
