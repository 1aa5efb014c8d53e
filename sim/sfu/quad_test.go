package sfu

import "testing"

// sumFormula is Quad.Sum written out as the unit computes it: the
// coefficients in their own units, the squarer's output from the
// partial products it keeps (dropTable).
func sumFormula(q *Quad, i int, xl uint32) int64 {
	L := uint(q.L)
	x := uint64(xl)
	sq := int64((x*x - uint64(dropTable(L)[xl])) >> (2*L - 15))
	return q.C0[i]<<L + q.C1[i]*int64(xl)<<2 + q.C2[i]*sq<<(L-13) + q.Delta
}

// TestQuadSum: for every table, every interval and every Xl, Sum (the
// scaled rows and the squarer's table) is the formula.
func TestQuadSum(t *testing.T) {
	for name, q := range tablesByName() {
		step := uint32(1)
		if testing.Short() {
			step = 61
		}
		for i := range q.Intervals() {
			for xl := uint32(0); xl < 1<<q.L; xl += step {
				if got, want := q.Sum(i, xl), sumFormula(q, i, xl); got != want {
					t.Fatalf("%s interval %d, Xl %#x: Sum %d, the formula %d", name, i, xl, got, want)
				}
			}
		}
	}
	// a table built by Fit, with negative coefficients
	q := (&Quad{L: 16, C0: []int64{-5, 7}, C1: []int64{-12, 40}, C2: []int64{6, -2}, Delta: 3}).Prepare()
	for i := range 2 {
		for xl := uint32(0); xl < 1<<16; xl++ {
			if got, want := q.Sum(i, xl), sumFormula(q, i, xl); got != want {
				t.Fatalf("interval %d, Xl %#x: Sum %d, the formula %d", i, xl, got, want)
			}
		}
	}
}
