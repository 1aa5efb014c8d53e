package sfu

import (
	"math/bits"
	"sync"
)

// The special function unit evaluates every function the same way: the
// operand's significand (or fixed-point fraction) is split into an
// interval index (the top bits) and Xl (the next L bits); a table gives
// three coefficients for the interval, and the unit sums
//
//	S = C0 + C1·t + C2·sq(t),   t = Xl/2^L,
//
// where sq(t) is t² from a truncated squarer: the partial products of Xl²
// in the columns below 2^(2L-15) are dropped, so sq keeps 15 fraction bits
// of t². C0, C1 and C2 are fixed-point numbers (units of 1/8, 1/2 and 1/2
// of the result's last place in the forms below; many have coarser
// steps), and S is exact: no rounding happens before the result is
// truncated to its final precision. This structure, and that the
// truncation is the only rounding, was read off the H100's results (see
// fit.go); the coefficient tables were fitted to them.

// A Quad is one function's interpolator.
type Quad struct {
	L int // bits of Xl (15..20)
	// Per interval: C0 in units of 1/8, C1 and C2 in units of 1/2 (of the
	// unit the function's S is expressed in).
	C0 []int64
	C1 []int64
	C2 []int64
	// Delta is a constant added to every sum, in units of 2^-(L+3).
	Delta int64

	rows []quadRow // the coefficients scaled for Sum (Prepare)
	sq   []uint16  // squares(L)
}

// quadRow is one interval's coefficients scaled to the units of Sum:
// S·2^(L+3) = c0 + c1·Xl + c2·sq(Xl), two loads, two multiplications and
// two additions.
type quadRow struct{ c0, c1, c2 int64 }

// Prepare scales the coefficients for Sum, which needs it (the generated
// tables are prepared when they are set: tables_gen.go's init calls
// prepareTables). It returns q.
func (q *Quad) Prepare() *Quad {
	L := uint(q.L)
	q.sq = squares(L)
	q.rows = make([]quadRow, len(q.C0))
	for i := range q.rows {
		q.rows[i] = quadRow{c0: q.C0[i]<<L + q.Delta, c1: q.C1[i] << 2, c2: q.C2[i] << (L - 13)}
	}
	return q
}

// Sum returns S·2^(L+3) for interval i and Xl, exactly: C0·2^L + C1·Xl·4 +
// C2·sq(Xl)·2^(L-13) + Delta, with sq(Xl) = t² in units of 2^-15 from the
// squarer. q must be prepared (Prepare).
func (q *Quad) Sum(i int, xl uint32) int64 {
	c := &q.rows[i]
	return c.c0 + c.c1*int64(xl) + c.c2*int64(q.sq[xl])
}

// Floor returns floor(S) for interval i and Xl.
func (q *Quad) Floor(i int, xl uint32) int64 { return q.Sum(i, xl) >> (q.L + 3) }

// truncSquare returns the squarer's output for an L-bit Xl: Xl² without
// the partial products in columns below 2^(2L-15), shifted right by
// 2L-15 (so t² in units of 2^-15).
func truncSquare(L uint, xl uint32) uint32 {
	t := dropTable(L)
	x := uint64(xl)
	return uint32((x*x - uint64(t[xl])) >> (2*L - 15))
}

var (
	dropOnce, squaresOnce [24]sync.Once
	drops                 [24][]uint32
	squared               [24][]uint16
)

// squares is truncSquare(L, Xl) for every Xl of L bits (below 2^15: t² < 1
// in units of 2^-15), computed on first use.
func squares(L uint) []uint16 {
	squaresOnce[L].Do(func() {
		t := make([]uint16, 1<<L)
		for x := range t {
			t[x] = uint16(truncSquare(L, uint32(x)))
		}
		squared[L] = t
	})
	return squared[L]
}

// dropTable is, for every Xl of L bits, the sum of the partial products of
// Xl² that the squarer drops: those in the columns below 2^(2L-15), the
// square of bit i when 2i is below it and the pair of bits i < j (which
// the squarer adds once, doubled) when i+j+1 is (a few hundred KiB,
// computed on first use). It is built from smaller entries: Xl is Xl' plus
// its top bit k, and the dropped products of Xl are those of Xl', bit k's
// square and the pairs of bit k with the bits of Xl' below 2L-15-k-1
// (dropSum is the definition, checked against it by TestDropTable).
func dropTable(L uint) []uint32 {
	dropOnce[L].Do(func() {
		T := 2*int(L) - 15
		t := make([]uint32, 1<<L)
		for x := 1; x < len(t); x++ {
			k := bits.Len(uint(x)) - 1
			low := x &^ (1 << k)
			s := t[low]
			if 2*k < T {
				s += 1 << (2 * k)
			}
			if m := T - k - 1; m > 0 {
				s += uint32(low&(1<<m-1)) << (k + 1)
			}
			t[x] = s
		}
		drops[L] = t
	})
	return drops[L]
}

// dropSum is the dropped partial products of x² for L bits, term by term.
func dropSum(L uint, x uint32) uint32 {
	T := 2*int(L) - 15
	var s uint64
	for i := 0; i < int(L); i++ {
		if x>>i&1 == 0 {
			continue
		}
		if 2*i < T {
			s += 1 << (2 * i)
		}
		for j := i + 1; j < int(L) && i+j+1 < T; j++ {
			if x>>j&1 == 1 {
				s += 1 << (i + j + 1)
			}
		}
	}
	return uint32(s)
}

// Intervals is the number of intervals of the table.
func (q *Quad) Intervals() int { return len(q.C0) }
