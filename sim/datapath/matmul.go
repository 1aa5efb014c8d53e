package datapath

import (
	"math"
	"math/bits"
	"sync"

	"github.com/tcsim/tcsim/isa/numfmt"
)

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

// soa holds pre-decoded input operands for matmulFused: each element's
// exact value sig * 2^exp as a float64 (its significand taken as an
// integer, so a product of two is exact), its alignment exponent exp
// (zeroExp for zero, so zeros never win the anchor), and whether a row
// holds an Inf or NaN (such dot products take the general path).
type soa struct {
	val     []float64
	exp     []int32
	special []bool // per row
}

// packed is one decoded input element in a decode table.
type packed struct {
	val     float64
	exp     int32
	special bool
}

// tableKey names a decode table: the format and the model settings that
// decodeIn depends on.
type tableKey struct {
	f, widen *numfmt.Format
	zeroExp  int
	flush    bool
}

// decodeTables caches the decode table of every input format of up to 16
// bits (65536 entries at most), built on first use.
var decodeTables sync.Map // tableKey -> []packed

// pack is t as matmulFused uses it.
func pack(t term) packed {
	switch {
	case t.nan || t.inf:
		return packed{exp: zeroExp, special: true}
	case t.sig == 0:
		return packed{exp: zeroExp}
	}
	v := math.Ldexp(float64(t.sig), t.exp)
	if t.neg {
		v = -v
	}
	return packed{val: v, exp: int32(t.exp)}
}

// inputTable is the decode table of m's input format f.
func (m *Model) inputTable(f *numfmt.Format) []packed {
	key := tableKey{f, m.Widen, m.ZeroExp, m.FlushInputs}
	if t, ok := decodeTables.Load(key); ok {
		return t.([]packed)
	}
	tab := make([]packed, 1<<f.Bits)
	for x := range tab {
		tab[x] = pack(m.decodeIn(f, uint64(x)<<f.Shift))
	}
	t, _ := decodeTables.LoadOrStore(key, tab)
	return t.([]packed)
}

// predecode decodes the input elements raw of f (rows of K).
func (m *Model) predecode(raw []uint64, rows, K int, f *numfmt.Format) soa {
	n := len(raw)
	s := soa{val: make([]float64, n), exp: make([]int32, n), special: make([]bool, rows)}
	var tab []packed
	mask := uint64(1)<<f.Bits - 1
	if f.Bits <= 16 {
		tab = m.inputTable(f)
	}
	for i, r := range raw {
		var p packed
		if tab != nil {
			p = tab[r>>f.Shift&mask]
		} else {
			p = pack(m.decodeIn(f, r))
		}
		s.val[i], s.exp[i] = p.val, p.exp
		if p.special {
			s.special[i/K] = true
		}
	}
	return s
}

// isBinary32 reports whether f is IEEE binary32, which cRow decodes
// inline.
func isBinary32(f *numfmt.Format) bool {
	return f.Bits == 32 && f.Shift == 0 && f.ExpBits == 8 && f.MantBits == 23 && f.Bias == 127 && f.Signed &&
		f.HasInf && f.NaN == numfmt.IEEENaN
}

// cRow is a row of accumulator elements decoded for matmulFused: the
// magnitudes, sign masks (0 or -1), alignment exponents (zeroExp for zero)
// and whether each is Inf or NaN.
type cRow struct {
	mag     []uint64
	neg     []int64
	exp     []int32
	special []bool
	b32     bool // the accumulator is IEEE binary32: decoded inline
}

// decode fills r from the raw elements c of m.C.
func (r *cRow) decode(m *Model, c []uint64) {
	mag, neg, exp, special := r.mag[:len(c)], r.neg[:len(c)], r.exp[:len(c)], r.special[:len(c)]
	if r.b32 {
		for j, raw := range c {
			x := uint32(raw)
			e := int32(x >> 23 & 0xFF)
			mant := uint64(x & (1<<23 - 1))
			mag[j], neg[j], exp[j], special[j] = 0, 0, zeroExp, false
			switch {
			case e == 0xFF:
				special[j] = true
			case e == 0 && mant == 0:
			case e == 0:
				mag[j], neg[j], exp[j] = mant, -int64(x>>31), 1-127
			default:
				mag[j], neg[j], exp[j] = mant|1<<23, -int64(x>>31), e-127
			}
		}
		return
	}
	for j, raw := range c {
		t := decode(m.C, raw, m.ZeroExp, false)
		mag[j], neg[j], exp[j], special[j] = 0, 0, zeroExp, false
		switch {
		case t.nan || t.inf:
			special[j] = true
		case t.sig == 0:
		default:
			mag[j], exp[j] = t.sig, int32(t.exp)
			if t.neg {
				neg[j] = -1
			}
		}
	}
}

// matmulFused is MatMul for the one-step fused datapath: the same bits as
// Dot, with each operand decoded once.
//
// Each product is aligned to the anchor emax (the largest exponent among
// the products and C) with FracBits fraction bits and truncated toward
// zero. With A and B held as exact float64 values sig * 2^exp, the product
// of two is exact (its significand has at most 2*12 bits), multiplying it
// by 2^(L - emax) (L = FracBits - A's and B's fraction bits) is exact or
// gives a magnitude below 1, and converting to an integer truncates toward
// zero: exactly the sign-magnitude truncation of the datapath.
func (m *Model) matmulFused(M, N, K int, a, b, c []uint64) []uint64 {
	L := int32(m.FracBits - m.A.MantBits - m.B.MantBits)
	fast := m.Out == RoundTowardZero && L >= 0 && m.A.MantBits+m.B.MantBits+2 <= 53
	A := m.predecode(a, M, K, m.A)
	B := m.predecode(b, N, K, m.B)
	cfrac := m.C.MantBits
	rz := newRZ(m)
	C := cRow{make([]uint64, N), make([]int64, N), make([]int32, N), make([]bool, N), isBinary32(m.C)}
	sums, scales := make([]int64, N), make([]int32, N)
	d := make([]uint64, M*N)
	// scaled reports the float64 2^(L - emax), if it is a normal number.
	scaled := func(emax int32) (float64, bool) {
		f := 1023 + L - emax
		return math.Float64frombits(uint64(f) << 52), f >= 1 && f <= 2046
	}
	for i := 0; i < M; i++ {
		av, ae := A.val[i*K:(i+1)*K], A.exp[i*K:(i+1)*K]
		C.decode(m, c[i*N:(i+1)*N])
		slow := !fast || A.special[i]
		for j := 0; j < N; j++ {
			ci := i*N + j
			if !slow && j+1 < N && !B.special[j] && !C.special[j] && !B.special[j+1] && !C.special[j+1] {
				// Two columns at once, sharing the loads of A's row.
				b0, b1 := B.val[j*K:j*K+len(av)], B.val[(j+1)*K:(j+1)*K+len(av)]
				e0, e1 := maxProductExp2(ae, B.exp[j*K:j*K+len(av)], B.exp[(j+1)*K:(j+1)*K+len(av)], C.exp[j], C.exp[j+1])
				s0, ok0 := scaled(e0)
				s1, ok1 := scaled(e1)
				if e0 > zeroExp/2 && e1 > zeroExp/2 && ok0 && ok1 {
					x, y := alignedSum2(av, b0, b1, s0, s1)
					sums[j] = x + m.alignC(C.mag[j], C.neg[j], C.exp[j], e0, cfrac)
					sums[j+1] = y + m.alignC(C.mag[j+1], C.neg[j+1], C.exp[j+1], e1, cfrac)
					scales[j], scales[j+1] = e0-int32(m.FracBits), e1-int32(m.FracBits)
					j++
					continue
				}
			}
			if slow || B.special[j] || C.special[j] {
				d[ci] = m.fused(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[ci], nil)
				scales[j] = done
				continue
			}
			bv, be := B.val[j*K:j*K+len(av)], B.exp[j*K:j*K+len(av)]
			emax := maxProductExp(ae, be, C.exp[j])
			if emax <= zeroExp/2 {
				d[ci] = 0 // every term is zero
				scales[j] = done
				continue
			}
			scale, ok := scaled(emax)
			if !ok {
				d[ci] = m.fused(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[ci], nil)
				scales[j] = done
				continue
			}
			sums[j] = alignedSum(av, bv, scale) + m.alignC(C.mag[j], C.neg[j], C.exp[j], emax, cfrac)
			scales[j] = emax - int32(m.FracBits)
		}
		rz.round(m, d[i*N:(i+1)*N], sums, scales)
	}
	return d
}

// maxProductExp is the anchor: the largest of the product exponents
// ae[k] + be[k] and cexp (zeroExp for a zero C), in four independent
// chains.
func maxProductExp(ae, be []int32, cexp int32) int32 {
	be = be[:len(ae)]
	e0, e1, e2, e3 := cexp, int32(zeroExp), int32(zeroExp), int32(zeroExp)
	k := 0
	for ; k+4 <= len(ae); k += 4 {
		x, y := (*[4]int32)(ae[k:k+4]), (*[4]int32)(be[k:k+4])
		e0, e1 = max(e0, x[0]+y[0]), max(e1, x[1]+y[1])
		e2, e3 = max(e2, x[2]+y[2]), max(e3, x[3]+y[3])
	}
	for ; k < len(ae); k++ {
		e0 = max(e0, ae[k]+be[k])
	}
	return max(e0, e1, e2, e3)
}

// maxProductExp2 is maxProductExp for two columns of B sharing A's row.
func maxProductExp2(ae, be0, be1 []int32, c0, c1 int32) (int32, int32) {
	be0, be1 = be0[:len(ae)], be1[:len(ae)]
	a0, a1, b0, b1 := c0, int32(zeroExp), c1, int32(zeroExp)
	k := 0
	for ; k+2 <= len(ae); k += 2 {
		x := (*[2]int32)(ae[k : k+2])
		y, z := (*[2]int32)(be0[k:k+2]), (*[2]int32)(be1[k:k+2])
		a0, a1 = max(a0, x[0]+y[0]), max(a1, x[1]+y[1])
		b0, b1 = max(b0, x[0]+z[0]), max(b1, x[1]+z[1])
	}
	for ; k < len(ae); k++ {
		a0, b0 = max(a0, ae[k]+be0[k]), max(b0, ae[k]+be1[k])
	}
	return max(a0, a1), max(b0, b1)
}

// alignedSum2 is alignedSum for two columns of B sharing A's row.
func alignedSum2(av, bv0, bv1 []float64, s0, s1 float64) (int64, int64) {
	bv0, bv1 = bv0[:len(av)], bv1[:len(av)]
	var x0, x1, y0, y1 int64
	k := 0
	for ; k+2 <= len(av); k += 2 {
		a := (*[2]float64)(av[k : k+2])
		p, q := (*[2]float64)(bv0[k:k+2]), (*[2]float64)(bv1[k:k+2])
		x0 += int64(a[0] * p[0] * s0)
		x1 += int64(a[1] * p[1] * s0)
		y0 += int64(a[0] * q[0] * s1)
		y1 += int64(a[1] * q[1] * s1)
	}
	for ; k < len(av); k++ {
		x0 += int64(av[k] * bv0[k] * s0)
		y0 += int64(av[k] * bv1[k] * s1)
	}
	return x0 + x1, y0 + y1
}

// alignedSum is the sum of the products av[k]*bv[k], each scaled by scale
// (a power of two) and truncated toward zero (see matmulFused).
func alignedSum(av, bv []float64, scale float64) int64 {
	bv = bv[:len(av)]
	var s0, s1, s2, s3 int64
	k := 0
	for ; k+4 <= len(av); k += 4 {
		x, y := (*[4]float64)(av[k:k+4]), (*[4]float64)(bv[k:k+4])
		s0 += int64(x[0] * y[0] * scale)
		s1 += int64(x[1] * y[1] * scale)
		s2 += int64(x[2] * y[2] * scale)
		s3 += int64(x[3] * y[3] * scale)
	}
	for ; k < len(av); k++ {
		s0 += int64(av[k] * bv[k] * scale)
	}
	return s0 + s1 + s2 + s3
}

// alignC is the accumulator term (magnitude cm, sign mask cn, exponent
// cexp) aligned to the anchor emax >= cexp, truncated toward zero.
func (m *Model) alignC(cm uint64, cn int64, cexp, emax int32, cfrac int) int64 {
	if cm == 0 {
		return 0
	}
	// emax >= cexp, so C shifts left by at most FracBits - cfrac.
	var v int64
	if sh := m.FracBits - cfrac + int(cexp) - int(emax); sh >= 0 {
		v = int64(cm << (uint(sh) & 63))
	} else {
		v = int64(cm >> (min(uint(-sh), 63) & 63))
	}
	return (v ^ cn) - cn
}

// done marks a result matmulFused has already stored.
const done = math.MinInt32

// rzRounder is normalize for round-toward-zero with the accumulator
// format's constants loaded once, and a fast path for results in its
// normal range.
type rzRounder struct {
	mb, fmb      uint // mantissa bits kept, and the format's
	bias, expTop int  // exponent bias, and the all-ones exponent field
	signShift    uint
	b32          bool // the format is IEEE binary32: round through float64
}

func newRZ(m *Model) rzRounder {
	f := m.C
	mb := m.OutMantBits
	if mb == 0 {
		mb = f.MantBits
	}
	return rzRounder{mb: uint(mb), fmb: uint(f.MantBits), bias: f.Bias, expTop: 1<<f.ExpBits - 1, signShift: uint(f.Bits - 1),
		b32: isBinary32(f) && mb <= 23}
}

// round stores m.normalize(sums[j], scales[j]) in d[j] for round-toward-
// zero models, skipping the elements whose scale is done.
func (r rzRounder) round(m *Model, d []uint64, sums []int64, scales []int32) {
	sums, scales = sums[:len(d)], scales[:len(d)]
	for j, sum := range sums {
		scale := int(scales[j])
		if scale == done {
			continue
		}
		if sum == 0 {
			d[j] = 0
			continue
		}
		if r.b32 && sum < 1<<53 && sum > -1<<53 && scale > -1000 && scale < 1000 {
			// sum * 2^scale is exact in float64; dropping all but mb
			// fraction bits truncates toward zero, and when the result is
			// a normal binary32 number the conversion to float32 is then
			// exact.
			x := math.Float64bits(float64(sum) * math.Float64frombits(uint64(1023+scale)<<52))
			x &^= 1<<(52-r.mb) - 1
			e := int(x>>52&0x7FF) - 1023
			if e >= -126 && e <= 127 {
				d[j] = uint64(math.Float32bits(float32(math.Float64frombits(x))))
				continue
			}
			if e > 127 && !m.Saturate { // overflow: infinity (as normalize)
				d[j] = uint64(sum)>>63<<31 | 0x7f800000
				continue
			}
		}
		neg := uint64(sum) >> 63
		mag := uint64(sum)
		if neg != 0 {
			mag = -mag
		}
		lead := bits.Len64(mag) - 1
		be := lead + scale + r.bias
		if be < 1 || be >= r.expTop {
			d[j] = m.normalize(sum, scale, term{})
			continue
		}
		var mant uint64
		if s := lead - int(r.mb); s >= 0 {
			mant = mag >> (uint(s) & 63)
		} else {
			mant = mag << (uint(-s) & 63) // exact: no bits dropped
		}
		mant &= 1<<r.mb - 1
		d[j] = neg<<r.signShift | uint64(be)<<r.fmb | mant<<(r.fmb-r.mb)
	}
}
