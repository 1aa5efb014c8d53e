package datapath

import (
	"math"
	"math/big"
)

// joinAfter implements CExact and CRounded: the products are aligned and
// truncated among themselves (terms[0] is C), and C joins afterwards.
func (m *Model) joinAfter(terms []term, tr *Trace) uint64 {
	ct := terms[0]
	emax := math.MinInt
	for _, t := range terms[1:] {
		if t.sig != 0 || m.ZeroInAnchor {
			emax = max(emax, t.exp)
		}
	}
	var sum int64
	if emax != math.MinInt {
		for _, t := range terms[1:] {
			shift := m.FracBits - t.frac + t.exp - emax
			var v int64
			switch {
			case shift >= 0:
				v = int64(t.sig << shift)
			case -shift < 64:
				v = int64(t.sig >> -shift)
			}
			if t.neg {
				v = -v
			}
			sum += v
		}
	}
	prodScale := emax - m.FracBits
	var out uint64
	switch m.CAfter {
	case CExact:
		out = m.roundExact(addExact(sum, prodScale, ct), m.Out)
	default: // CRounded
		p := uint64(0)
		if sum != 0 {
			p = m.normalize(sum, prodScale, ct)
		}
		pt := decode(m.C, p, m.ZeroExp, false)
		if pt.inf {
			out = p
		} else {
			v, sc := termInt(pt)
			out = m.roundExact(addExact(v, sc, ct), m.CAddRound)
		}
	}
	if tr != nil {
		gt := &tr.Groups[len(tr.Groups)-1]
		gt.MaxExp, gt.Sum, gt.Out = emax, sum, out
		gt.Special = "products summed first; the accumulator joined after (" + [...]string{"", "exactly, one rounding", "as an IEEE addition"}[m.CAfter] + ")"
	}
	return out
}

// exactVal is (-1)^neg * mag * 2^scale.
type exactVal struct {
	mag   *big.Int
	neg   bool
	scale int
}

// termInt is t as a signed integer times 2^scale.
func termInt(t term) (v int64, scale int) {
	v = int64(t.sig)
	if t.neg {
		v = -v
	}
	return v, t.exp - t.frac
}

// addExact returns sum*2^scale + c exactly.
func addExact(sum int64, scale int, c term) exactVal {
	cs := c.exp - c.frac
	if c.sig == 0 {
		cs = scale
	}
	if sum == 0 {
		scale = cs
	}
	s := min(scale, cs)
	a := new(big.Int).Lsh(big.NewInt(sum), uint(scale-s))
	b := new(big.Int).Lsh(new(big.Int).SetUint64(c.sig), uint(cs-s))
	if c.neg {
		b.Neg(b)
	}
	a.Add(a, b)
	return exactVal{mag: new(big.Int).Abs(a), neg: a.Sign() < 0, scale: s}
}

// roundExact rounds an exact value into the accumulator format.
func (m *Model) roundExact(x exactVal, r Rounding) uint64 {
	if x.mag.Sign() == 0 {
		return 0
	}
	// Keep the top 62 bits and fold everything below into a sticky bit, so
	// that normalize's int64 path decides the rounding exactly.
	mag, scale := x.mag, x.scale
	if n := mag.BitLen(); n > 62 {
		drop := n - 62
		low := new(big.Int).And(mag, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(drop)), big.NewInt(1)))
		mag = new(big.Int).Rsh(mag, uint(drop))
		if low.Sign() != 0 {
			mag.SetBit(mag, 0, 1) // sticky: at least 30 bits below the kept precision
		}
		scale += drop
	}
	v := mag.Int64()
	if x.neg {
		v = -v
	}
	return m.normalizeWith(v, scale, r)
}

// addIEEE adds two accumulator-format values with one rounding (CAddRound),
// with IEEE special values.
func (m *Model) addIEEE(x, y uint64) uint64 {
	a := decode(m.C, x, m.ZeroExp, false)
	b := decode(m.C, y, m.ZeroExp, false)
	switch {
	case a.nan || b.nan || (a.inf && b.inf && a.neg != b.neg):
		return m.NaN
	case a.inf:
		return x
	case b.inf:
		return y
	}
	va, sa := termInt(a)
	vb, sb := termInt(b)
	if d := sa - sb; m.C.MantBits <= 23 && va != 0 && vb != 0 && d >= -38 && d <= 38 {
		// Both significands fit in 24 bits: the exact sum fits in an
		// int64, and normalize rounds it once.
		s := min(sa, sb)
		return m.normalizeWith(va<<(sa-s)+vb<<(sb-s), s, m.CAddRound)
	}
	return m.roundExact(addExact(va, sa, b), m.CAddRound)
}

// addExactVal returns x + v*2^scale exactly.
func addExactVal(x exactVal, v int64, scale int) exactVal {
	s := min(x.scale, scale)
	a := new(big.Int).Lsh(x.mag, uint(x.scale-s))
	if x.neg {
		a.Neg(a)
	}
	a.Add(a, new(big.Int).Lsh(big.NewInt(v), uint(scale-s)))
	return exactVal{mag: new(big.Int).Abs(a), neg: a.Sign() < 0, scale: s}
}
