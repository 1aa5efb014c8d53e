package datapath

import "math/bits"

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
	if m.plainFused(K) {
		return m.matmulFused(M, N, K, a, b, c)
	}
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

// plainFused reports whether the model is the one-step fused datapath that
// matmulFused implements (every sm_90a wgmma profile).
func (m *Model) plainFused(K int) bool {
	return !m.Floor && !m.ZeroInAnchor && m.CAfter == CFused && !m.HoldC &&
		m.stepOrder(K) == nil && (m.Group <= 0 || m.Group >= K) &&
		m.FracBits+2+bits.Len(uint(K))+1 < 63 // aligned terms and their sum fit in an int64
}

// soa holds pre-decoded operands: signed significands and alignment
// exponents (zeros get zeroExp so they never win the anchor), plus whether a
// row holds an Inf or NaN (such dot products take the general path).
type soa struct {
	sig     []int64
	exp     []int32
	special []bool // per row
}

func (m *Model) predecode(raw []uint64, rows, K int, dec func(uint64) term) soa {
	s := soa{sig: make([]int64, len(raw)), exp: make([]int32, len(raw)), special: make([]bool, rows)}
	for i, r := range raw {
		t := dec(r)
		switch {
		case t.nan || t.inf:
			s.special[i/K] = true
		case t.sig == 0:
			s.exp[i] = zeroExp
		default:
			s.sig[i] = int64(t.sig)
			if t.neg {
				s.sig[i] = -s.sig[i]
			}
			s.exp[i] = int32(t.exp)
		}
	}
	return s
}

// matmulFused is MatMul for the one-step fused datapath: the same bits as
// Dot, with each operand decoded once and a branch-free inner loop.
func (m *Model) matmulFused(M, N, K int, a, b, c []uint64) []uint64 {
	A := m.predecode(a, M, K, func(r uint64) term { return m.decodeIn(m.A, r) })
	B := m.predecode(b, N, K, func(r uint64) term { return m.decodeIn(m.B, r) })
	// C element by element: each is its own row.
	C := m.predecode(c, len(c), 1, func(r uint64) term { return decode(m.C, r, m.ZeroExp, false) })
	cfrac := m.C.MantBits
	// Every product's left shift is at most L (its exponent is at most the
	// anchor), so (mag << L) >> (L - sh) needs only a right shift.
	L := int32(m.FracBits - m.A.MantBits - m.B.MantBits)
	fast := m.Out == RoundTowardZero && L >= 0
	d := make([]uint64, M*N)
	e := make([]int32, K) // the product exponents of the current dot product
	for i := 0; i < M; i++ {
		as, ae := A.sig[i*K:(i+1)*K], A.exp[i*K:(i+1)*K]
		for j := 0; j < N; j++ {
			ci := i*N + j
			if !fast || A.special[i] || B.special[j] || C.special[ci] {
				d[ci] = m.fused(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[ci], nil)
				continue
			}
			bs, be := B.sig[j*K:(j+1)*K], B.exp[j*K:(j+1)*K]
			emax := C.exp[ci] // zeroExp for a zero C
			e = e[:K]
			for k := range e {
				x := ae[k] + be[k]
				e[k] = x
				emax = max(emax, x)
			}
			if emax <= zeroExp/2 {
				d[ci] = 0 // every term is zero
				continue
			}
			// Product k's shift is sh = L + e[k] - emax <= L, so the right
			// shift after (mag << L) is emax - e[k].
			var sum int64
			for k, x := range e {
				p := as[k] * bs[k]
				neg := p >> 63 // 0 or -1
				mag := uint64((p ^ neg) - neg)
				w := uint32(emax - x) // >= 0; 63 or more drops everything
				v := int64((mag << uint(L)) >> (min(w, 63) & 63))
				sum += (v ^ neg) - neg
			}
			if cs := C.sig[ci]; cs != 0 {
				sh := m.FracBits - cfrac + int(C.exp[ci]) - int(emax)
				neg := cs >> 63
				mag := uint64((cs ^ neg) - neg)
				v := int64(mag << uint(max(sh, 0)) >> uint(max(-sh, 0)))
				sum += (v ^ neg) - neg
			}
			d[ci] = m.normalizeRZ(sum, int(emax)-m.FracBits)
		}
	}
	return d
}

// normalizeRZ is normalize for round-toward-zero, with a fast path for
// results in the accumulator's normal range.
func (m *Model) normalizeRZ(sum int64, scale int) uint64 {
	f := m.C
	if sum == 0 {
		return 0
	}
	neg := uint64(sum) >> 63
	mag := uint64(sum)
	if neg != 0 {
		mag = -mag
	}
	mb := m.OutMantBits
	if mb == 0 {
		mb = f.MantBits
	}
	lead := bits.Len64(mag) - 1
	e := lead + scale
	be := e + f.Bias
	if be < 1 || be >= 1<<f.ExpBits-1 || lead < mb {
		return m.normalize(sum, scale, term{})
	}
	mant := (mag >> uint(lead-mb)) & (1<<uint(mb) - 1)
	return neg<<(f.Bits-1) | uint64(be)<<f.MantBits | mant<<uint(f.MantBits-mb)
}
