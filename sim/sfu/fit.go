package sfu

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Fitting an interpolator to hardware results.
//
// Each hardware result bounds its interval's exact sum: Lo <= S < Hi
// (the result is S truncated). For a candidate (C1, C2) the samples of an
// interval then bound C0+Delta from both sides; the candidate is feasible
// when the bounds leave room. The candidates searched are those near the
// least-squares quadratic through the samples. Delta, common to all
// intervals, must put every interval's C0 on its grid.

// A Sample constrains one interval's sum: Lo <= S(I, Xl) < Hi.
type Sample struct {
	I      int
	Xl     uint32
	Lo, Hi float64
}

// FitOptions describe the coefficient formats.
type FitOptions struct {
	L         int
	Intervals int
	C0Step    int64 // grid of C0, in units of 1/8
	C1Step    int64 // grid of C1, in units of 1/2
	C2Step    int64 // grid of C2, in units of 1/2
	Window    int   // candidates searched on each side of the least-squares estimate, in steps
}

// FitReport says how well determined the fit is.
type FitReport struct {
	Ambiguous  []int      // intervals with more than one feasible (C1, C2)
	DeltaRange [2]float64 // the Delta values (in units of the sum) that fit every interval
	// Windows are, per interval, the feasible values of C0+Delta.
	Windows [][2]float64
}

// Fit finds the coefficients that reproduce every sample.
func Fit(samples []Sample, o FitOptions) (*Quad, *FitReport, error) {
	if o.L < 15 || o.L > 20 || o.Intervals <= 0 || o.C0Step <= 0 || o.C1Step <= 0 || o.C2Step <= 0 {
		return nil, nil, errors.New("fit: bad options")
	}
	by := make([][]Sample, o.Intervals)
	for _, s := range samples {
		if s.I < 0 || s.I >= o.Intervals {
			return nil, nil, fmt.Errorf("fit: sample interval %d out of range", s.I)
		}
		by[s.I] = append(by[s.I], s)
	}
	q := &Quad{L: o.L, C0: make([]int64, o.Intervals), C1: make([]int64, o.Intervals), C2: make([]int64, o.Intervals)}
	rep := &FitReport{}
	type window struct{ lo, hi float64 } // feasible C0+Delta
	wins := make([]window, o.Intervals)
	for i, ss := range by {
		if len(ss) < 8 {
			return nil, nil, fmt.Errorf("fit: interval %d has %d samples", i, len(ss))
		}
		t := make([]float64, len(ss))
		sq := make([]float64, len(ss))
		mid := make([]float64, len(ss))
		for k, s := range ss {
			t[k], sq[k] = o.terms(s.Xl)
			mid[k] = (s.Lo + s.Hi) / 2
		}
		c := lsq3(t, sq, mid)
		type cand struct {
			c1, c2 int64
			w      window
		}
		var found []cand
		// order the samples so that infeasible candidates fail fast
		perm := spread(len(ss))
		for d1 := -o.Window; d1 <= o.Window; d1++ {
			c1 := int64(math.Round(c[1]*2/float64(o.C1Step)))*o.C1Step + int64(d1)*o.C1Step
			for d2 := -o.Window; d2 <= o.Window; d2++ {
				c2 := int64(math.Round(c[2]*2/float64(o.C2Step)))*o.C2Step + int64(d2)*o.C2Step
				w := window{math.Inf(-1), math.Inf(1)}
				ok := true
				for _, k := range perm {
					v := linear(c1, c2, t[k], sq[k])
					w.lo = math.Max(w.lo, ss[k].Lo-v)
					w.hi = math.Min(w.hi, ss[k].Hi-v)
					if w.lo >= w.hi {
						ok = false
						break
					}
				}
				if ok {
					found = append(found, cand{c1, c2, w})
				}
			}
		}
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("fit: interval %d: no coefficients reproduce its %d samples", i, len(ss))
		}
		if len(found) > 1 {
			rep.Ambiguous = append(rep.Ambiguous, i)
		}
		q.C1[i], q.C2[i], wins[i] = found[0].c1, found[0].c2, found[0].w
	}
	for _, w := range wins {
		rep.Windows = append(rep.Windows, [2]float64{w.lo, w.hi})
	}
	// Delta in [0, step): every interval needs a grid point g with g+Delta in its window.
	step := float64(o.C0Step) / 8
	// feasible Delta set as a list of intervals within [0, step), intersected over intervals
	type iv struct{ lo, hi float64 }
	feas := []iv{{0, step}}
	for _, w := range wins {
		// Delta in [w.lo - g, w.hi - g) for integer multiples g of step: reduce mod step
		var allowed []iv
		for g := math.Floor(w.lo/step) - 1; g*step < w.hi; g++ {
			a, b := w.lo-g*step, w.hi-g*step
			a, b = math.Max(a, 0), math.Min(b, step)
			if a < b {
				allowed = append(allowed, iv{a, b})
			}
		}
		var next []iv
		for _, f := range feas {
			for _, a := range allowed {
				lo, hi := math.Max(f.lo, a.lo), math.Min(f.hi, a.hi)
				if lo < hi {
					next = append(next, iv{lo, hi})
				}
			}
		}
		feas = next
		if len(feas) == 0 {
			return nil, rep, errors.New("fit: no common Delta puts every C0 on its grid")
		}
	}
	sort.Slice(feas, func(a, b int) bool { return feas[a].hi-feas[a].lo > feas[b].hi-feas[b].lo })
	f := feas[0]
	rep.DeltaRange = [2]float64{f.lo, f.hi}
	unit := math.Ldexp(1, -(o.L + 3))
	d := math.Floor((f.lo+f.hi)/2/unit) * unit // the middle of the range, or 0 if it allows
	if d < f.lo {
		d += unit
	}
	if f.lo <= 0 {
		d = 0
	}
	q.Delta = int64(d / unit)
	for i, w := range wins {
		g := math.Ceil((w.lo - d) / step)
		q.C0[i] = int64(g * step * 8)
	}
	return q.Prepare(), rep, nil
}

// terms are t = Xl/2^L and the squarer's t² for one sample.
func (o FitOptions) terms(xl uint32) (t, sq float64) {
	return float64(xl) / math.Ldexp(1, o.L), float64(truncSquare(uint(o.L), xl)) / (1 << 15)
}

// linear is C1·t + C2·sq(t) for coefficients in units of 1/2, as Fit
// computes it (so Pins finds the samples that bound Fit's windows).
func linear(c1, c2 int64, t, sq float64) float64 {
	return float64(c1)/2*t + float64(c2)/2*sq
}

// Pins returns, for a table fitted to samples, the samples that bound each
// interval's window of C0+Delta: the one with the largest lower bound and
// the one with the smallest upper bound (indices into samples, sorted,
// without repeats). The windows, hence Delta and C0, of any subset of
// the samples that holds the pins and leaves (C1, C2) unique are those of
// all the samples.
func Pins(samples []Sample, q *Quad, o FitOptions) []int {
	lo := make([]int, o.Intervals)
	hi := make([]int, o.Intervals)
	for i := range lo {
		lo[i], hi[i] = -1, -1
	}
	wlo := make([]float64, o.Intervals)
	whi := make([]float64, o.Intervals)
	for k, s := range samples {
		if s.I < 0 || s.I >= o.Intervals {
			continue
		}
		t, sq := o.terms(s.Xl)
		v := linear(q.C1[s.I], q.C2[s.I], t, sq)
		if l := s.Lo - v; lo[s.I] < 0 || l > wlo[s.I] {
			lo[s.I], wlo[s.I] = k, l
		}
		if h := s.Hi - v; hi[s.I] < 0 || h < whi[s.I] {
			hi[s.I], whi[s.I] = k, h
		}
	}
	seen := map[int]bool{}
	var out []int
	for _, k := range append(lo, hi...) {
		if k >= 0 && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Ints(out)
	return out
}

// lsq3 fits y ~ a + b·t + c·s by least squares.
func lsq3(t, s, y []float64) [3]float64 {
	var A [3][4]float64
	for k := range t {
		x := [3]float64{1, t[k], s[k]}
		for i := range 3 {
			for j := range 3 {
				A[i][j] += x[i] * x[j]
			}
			A[i][3] += x[i] * y[k]
		}
	}
	for i := range 3 {
		for r := i + 1; r < 3; r++ {
			f := A[r][i] / A[i][i]
			for c := i; c < 4; c++ {
				A[r][c] -= f * A[i][c]
			}
		}
	}
	var c [3]float64
	for i := 2; i >= 0; i-- {
		v := A[i][3]
		for j := i + 1; j < 3; j++ {
			v -= A[i][j] * c[j]
		}
		c[i] = v / A[i][i]
	}
	return c
}

// spread is a fixed permutation of 0..n-1 that visits the range evenly
// (bit-reversal order of a power of two, filtered).
func spread(n int) []int {
	p := 1
	bits := 0
	for p < n {
		p <<= 1
		bits++
	}
	out := make([]int, 0, n)
	for i := 0; i < p; i++ {
		r := 0
		for b := 0; b < bits; b++ {
			if i>>b&1 == 1 {
				r |= 1 << (bits - 1 - b)
			}
		}
		if r < n {
			out = append(out, r)
		}
	}
	return out
}
