package datapath

// Problem dimensions and operand layouts for MatMul:
// A is M×K row-major, B is N×K (each output column's K values contiguous),
// C and D are M×N row-major; elements are raw bit patterns.

// decoded is a term prepared once per matrix element.
type decoded struct {
	sig  uint32
	exp  int16
	neg  bool
	zero bool
	kind uint8 // 0 finite, 1 inf, 2 nan
}

// MatMul computes D = A·B + C for an M×N×K problem with the model. It gives
// the same bits as calling Dot per element, decoding every operand once.
func (m *Model) MatMul(M, N, K int, a, b, c []uint64) []uint64 {
	if m.CAfter != CFused {
		d := make([]uint64, M*N)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				d[i*N+j] = m.dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[i*N+j], nil)
			}
		}
		return d
	}
	g := m.Group
	if g <= 0 || g > K {
		g = K
	}
	if ord := m.stepOrder(K); ord != nil { // take the products in step order
		a, b = permuteRows(a, K, ord), permuteRows(b, K, ord)
		g = pairStepSize(K)
	}
	inner := m
	if m.HoldC {
		x := *m
		x.HoldC = false
		inner = &x
	}
	da := make([]decoded, len(a))
	db := make([]decoded, len(b))
	for i, r := range a {
		da[i] = toDecoded(m.decodeIn(m.A, r))
	}
	for i, r := range b {
		db[i] = toDecoded(m.decodeIn(m.B, r))
	}
	fracAB := int(m.A.MantBits + m.B.MantBits)
	d := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		ar := da[i*K : (i+1)*K]
		for j := 0; j < N; j++ {
			br := db[j*K : (j+1)*K]
			acc := c[i*N+j]
			if m.HoldC {
				acc = 0
			}
			for s := 0; s < K; s += g {
				e := min(s+g, K)
				if r, ok := inner.fastGroup(ar[s:e], br[s:e], acc, fracAB); ok {
					acc = r
				} else {
					acc = inner.fused(a[i*K+s:i*K+e], b[j*K+s:j*K+e], acc, nil)
				}
			}
			if m.HoldC {
				acc = m.addIEEE(acc, c[i*N+j])
			}
			d[i*N+j] = acc
		}
	}
	return d
}

// permuteRows reorders the K elements of every row of x by ord.
func permuteRows(x []uint64, K int, ord []int) []uint64 {
	out := make([]uint64, len(x))
	for r := 0; r+K <= len(x); r += K {
		for i, k := range ord {
			out[r+i] = x[r+k]
		}
	}
	return out
}

func toDecoded(t term) decoded {
	d := decoded{sig: uint32(t.sig), exp: int16(t.exp), neg: t.neg, zero: t.sig == 0}
	if d.zero {
		d.exp = zeroExp
	}
	switch {
	case t.nan:
		d.kind = 2
	case t.inf:
		d.kind = 1
	}
	return d
}

// zeroExp marks a zero term in the fast path: its products can never win
// the anchor, and their significand is 0 anyway.
const zeroExp = -1 << 13

// fastGroup is fused() for finite operands on pre-decoded terms (Hopper
// profiles: truncation toward zero, zeros excluded from the anchor). It
// reports ok=false when a special value or another parameter set needs the
// general path.
func (m *Model) fastGroup(a, b []decoded, c uint64, fracAB int) (uint64, bool) {
	if m.Floor || m.ZeroInAnchor || m.CAfter != CFused || m.HoldC {
		return 0, false
	}
	ct := decode(m.C, c, m.ZeroExp, false)
	if ct.nan || ct.inf {
		return 0, false
	}
	emax := zeroExp
	if ct.sig != 0 {
		emax = ct.exp
	}
	for k := range a {
		x, y := &a[k], &b[k]
		if x.kind|y.kind != 0 {
			return 0, false
		}
		if e := int(x.exp) + int(y.exp); e > emax {
			emax = e
		}
	}
	if emax <= zeroExp/2 {
		return 0, true // every term is zero
	}
	var sum int64
	base := m.FracBits - fracAB - emax
	for k := range a {
		x, y := &a[k], &b[k]
		s := uint64(x.sig) * uint64(y.sig)
		sh := base + int(x.exp) + int(y.exp)
		// Shifts of 64 or more give 0 for unsigned operands in Go.
		v := int64(s << uint(max(sh, 0)) >> uint(max(-sh, 0)))
		if x.neg != y.neg {
			v = -v
		}
		sum += v
	}
	if ct.sig != 0 {
		sh := m.FracBits - ct.frac + ct.exp - emax
		v := int64(ct.sig << uint(max(sh, 0)) >> uint(max(-sh, 0)))
		if ct.neg {
			v = -v
		}
		sum += v
	}
	return m.normalize(sum, emax-m.FracBits, ct), true
}
