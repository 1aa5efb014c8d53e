package datapath

import (
	"fmt"
	"math"
	"strings"
)

// Trace records how one output element was computed, for `tcsim mma --explain`.
type Trace struct {
	Model  *Model
	Groups []GroupTrace
}

// GroupTrace is one fused step: the accumulator and a group of products.
type GroupTrace struct {
	Terms   []term        // index 0 is the accumulator, then the products
	Aligned []AlignedTerm // the same terms after alignment
	MaxExp  int           // the anchor: the largest alignment exponent
	Sum     int64         // the exact sum of the aligned terms, in units of 2^(MaxExp-FracBits)
	Special string        // set when NaN or Inf decided the result
	Out     uint64        // the normalised result of the step
	K       []int         // k index of each product when the steps take them out of order (Model.PairSteps)
}

// label names term i of the group: c (or acc, the running sum, when C
// joins after the steps), or p<k> for the product of index k.
func (g *GroupTrace) label(i int) string {
	switch {
	case i == 0 && g.K != nil:
		return "acc" // the running sum of the steps (C joins after them)
	case i == 0:
		return "c"
	case i-1 < len(g.K):
		return fmt.Sprintf("p%d", g.K[i-1])
	}
	return fmt.Sprintf("p%d", i-1)
}

// AlignedTerm is one term after alignment to MaxExp.
type AlignedTerm struct {
	Index    int   // 0 for the accumulator, k+1 for product k
	Shift    int   // left shift applied to the significand (negative: right)
	Value    int64 // the aligned, truncated value in units of 2^(MaxExp-FracBits)
	LostBits int   // how many significant bits the right shift dropped
	Lost     bool  // whether any dropped bit was nonzero
}

// String renders the trace as a readable explanation.
func (t *Trace) String() string {
	var b strings.Builder
	m := t.Model
	fmt.Fprintf(&b, "datapath: %s×%s products, %s accumulator; terms aligned to the largest exponent keep %d fraction bits (%s), result normalised with %s\n",
		m.A, m.B, m.C, m.FracBits, map[bool]string{false: "truncated toward zero", true: "truncated toward -inf"}[m.Floor], m.Out)
	for gi, g := range t.Groups {
		if len(t.Groups) > 1 {
			fmt.Fprintf(&b, "step %d:\n", gi+1)
		}
		for i := 0; i < len(g.Terms); i++ {
			x := g.Terms[i]
			name := g.label(i)
			if x.sig == 0 && !x.nan && !x.inf {
				// Collapse a run of zero terms into one line.
				j := i
				for j+1 < len(g.Terms) && g.Terms[j+1].sig == 0 && !g.Terms[j+1].nan && !g.Terms[j+1].inf {
					j++
				}
				if j > i && g.K == nil {
					name = fmt.Sprintf("%s..%s", name, g.label(j))
				} else if j > i {
					name = fmt.Sprintf("%d terms", j-i+1)
				}
				fmt.Fprintf(&b, "  %-8s 0  (zero: takes no part in choosing the anchor)\n", name)
				i = j
				continue
			}
			switch {
			case x.nan:
				fmt.Fprintf(&b, "  %-8s NaN\n", name)
				continue
			case x.inf:
				fmt.Fprintf(&b, "  %-8s %sInf\n", name, signStr(x.neg))
				continue
			}
			fmt.Fprintf(&b, "  %-8s %s  (exponent %d)", name, x.valueString(), x.exp)
			g.writeAligned(&b, i)
		}
		if g.Special != "" {
			fmt.Fprintf(&b, "  %s: result %#x\n", g.Special, g.Out)
			continue
		}
		g.writeSum(&b, m.FracBits)
		fmt.Fprintf(&b, "  normalised (%s) to %s: %#x\n", m.Out, m.C, g.Out)
	}
	return b.String()
}

// valueString writes a finite term as its exact value: ±sig × 2^e = ±v.
func (x term) valueString() string {
	return fmt.Sprintf("%s%#x × 2^%d = %s%g", signStr(x.neg), x.sig, x.exp-x.frac,
		signStr(x.neg), math.Ldexp(float64(x.sig), x.exp-x.frac))
}

// writeAligned ends term i's line of a rendered trace with its aligned value
// and the bits its truncation dropped.
func (g *GroupTrace) writeAligned(b *strings.Builder, i int) {
	if i < len(g.Aligned) {
		a := g.Aligned[i]
		fmt.Fprintf(b, "  → aligned %d", a.Value)
		if a.Lost {
			fmt.Fprintf(b, "  (truncated: %d low bits dropped)", a.LostBits)
		}
	}
	b.WriteByte('\n')
}

// writeSum writes the anchor exponent and the exact sum of the aligned terms
// (in units of 2^(MaxExp-fracBits)) of a rendered trace.
func (g *GroupTrace) writeSum(b *strings.Builder, fracBits int) {
	fmt.Fprintf(b, "  anchor exponent %d; exact sum of the aligned terms %d × 2^%d = %g\n",
		g.MaxExp, g.Sum, g.MaxExp-fracBits, math.Ldexp(float64(g.Sum), g.MaxExp-fracBits))
}

func signStr(neg bool) string {
	if neg {
		return "-"
	}
	return "+"
}
