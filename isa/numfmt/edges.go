package numfmt

import (
	"math/rand/v2"
)

// EdgeInputs lists hand-made source patterns of src for a conversion to
// dst: signed zeros, infinities, NaNs with several payloads, src's
// subnormal and normal extremes, and around every binade of dst (or every
// integer boundary of an integer dst) the representable values, the ties
// between them, and the patterns one src ulp either side. The list is
// deterministic and free of duplicates.
func EdgeInputs(src, dst *Format) []uint64 {
	e := &edgeSet{src: src, seen: map[uint64]bool{}}
	switch src.Kind {
	case FloatKind:
		e.floatSpecials()
		if dst.Kind == FloatKind {
			e.floatGrid(dst)
		} else {
			e.intGrid(dst)
		}
	case IntKind:
		e.intSource(dst)
	}
	return e.out
}

type edgeSet struct {
	src  *Format
	seen map[uint64]bool
	out  []uint64
}

func (e *edgeSet) addBits(b uint64) {
	b &= e.src.Mask()
	if !e.seen[b] {
		e.seen[b] = true
		e.out = append(e.out, b)
	}
}

// add encodes an exact value into src (truncating if needed) and records it
// with both signs.
func (e *edgeSet) add(v Value) {
	if v.IsFinite() && !v.IsZero() && v.Sig == 0 {
		return
	}
	for _, neg := range []bool{false, true} {
		v.Neg = neg
		if neg && !e.src.Signed {
			continue
		}
		b, info := e.src.Encode(v, RZ, Opts{})
		if info.Overflow {
			continue
		}
		e.addBits(b)
	}
}

// addNear adds v and its src neighbours (±1 and ±2 src ulps).
func (e *edgeSet) addNear(v Value) {
	b, info := e.src.Encode(v, RZ, Opts{})
	if info.Overflow || v.IsZero() {
		e.add(v)
		return
	}
	for _, d := range []int64{-2, -1, 0, 1, 2} {
		x := int64(b) + d
		if x < 0 || uint64(x) > e.src.MaxFinite(false) {
			continue
		}
		e.addBits(uint64(x))
		if e.src.Signed {
			e.addBits(uint64(x) | e.src.signBit()<<e.src.Shift)
		}
	}
}

func (e *edgeSet) floatSpecials() {
	f := e.src
	sb := f.signBit() << f.Shift
	e.addBits(0)
	e.addBits(sb)
	if b, ok := f.Inf(false); ok {
		e.addBits(b)
		e.addBits(b | sb)
	}
	if f.NaN == IEEENaN {
		M := f.MantBits
		top := f.expMax() << M
		for _, m := range []uint64{1 << (M - 1), 1<<(M-1) | 1, lowMask(M), 1, lowMask(M - 1), 0x5555555555555555 & lowMask(M)} {
			e.addBits((top | m) << f.Shift)
			e.addBits((top|m)<<f.Shift | sb)
		}
		// NaNs whose payload sits at or just below a narrower format's last
		// mantissa bit (tf32, bf16, f16, fp8), where truncation can lose it.
		for _, dm := range []int{10, 7, 3, 2} {
			if dm < M {
				lsb := uint64(1) << (M - dm)
				for _, m := range []uint64{lsb, lsb - 1, lsb + 1} {
					e.addBits((top | m) << f.Shift)
					e.addBits((top|m)<<f.Shift | sb)
				}
			}
		}
	} else if b, ok := f.CanonicalNaN(); ok {
		e.addBits(b)
		e.addBits(b | sb)
	}
	// Subnormal and normal extremes.
	for _, b := range []uint64{1, 2, 3, lowMask(f.MantBits), lowMask(f.MantBits) - 1, 1 << (f.MantBits - 1),
		1 << f.MantBits, 1<<f.MantBits | 1, f.MaxFinite(false) >> f.Shift, f.MaxFinite(false)>>f.Shift - 1} {
		e.addBits(b << f.Shift)
		e.addBits(b<<f.Shift | sb)
	}
	one, _ := f.Encode(FromInt(1), RN, Opts{})
	e.addBits(one)
	e.addBits(one | sb)
}

// floatGrid adds, for every binade of dst from below its smallest
// subnormal to above its largest value, a few dst values, the ties after
// them, and src patterns around both.
func (e *edgeSet) floatGrid(dst *Format) {
	M := dst.MantBits
	emin := 1 - dst.Bias
	if dst.NoSubnormal {
		emin = -dst.Bias
	}
	maxV := dst.Decode(dst.MaxFinite(false))
	emax := maxV.Log2()
	mants := []uint64{0, 1, 1 << max(M-1, 0), lowMask(M) - 1, lowMask(M)}
	if M <= 4 {
		mants = nil
		for m := uint64(0); m <= lowMask(M); m++ {
			mants = append(mants, m)
		}
	}
	for E := emin - M - 2; E <= emax+2; E++ {
		for _, m := range mants {
			m &= lowMask(M)
			sig := uint64(1)<<M | m
			q := E - M
			if E < emin { // below the normal range: the subnormal grid of dst
				q = emin - M
				sig = m
				if sig == 0 {
					sig = 1
				}
				if E < emin-M {
					// far below: a power of two
					e.addNear(Value{Class: Normal, Sig: 1, Exp: E})
					continue
				}
			}
			v := Value{Class: Normal, Sig: sig, Exp: q}
			e.addNear(v)
			// the tie after v: (2·sig+1)·2^(q-1)
			e.addNear(Value{Class: Normal, Sig: 2*sig + 1, Exp: q - 1})
		}
	}
	// Overflow thresholds: MAX_NORM, the tie above it, and one dst ulp above.

	ulpExp := emax - M
	e.addNear(maxV)
	e.addNear(Value{Class: Normal, Sig: 2*(maxV.Sig<<(maxV.Exp-ulpExp)) + 1, Exp: ulpExp - 1})
	e.addNear(Value{Class: Normal, Sig: (maxV.Sig << (maxV.Exp - ulpExp)) + 1, Exp: ulpExp})
	e.addNear(Value{Class: Normal, Sig: 1, Exp: emax + 1})
	// Half the smallest subnormal (the tie with zero) and a quarter.
	e.addNear(Value{Class: Normal, Sig: 1, Exp: emin - M - 1})
	e.addNear(Value{Class: Normal, Sig: 1, Exp: emin - M - 2})
	e.addNear(Value{Class: Normal, Sig: 3, Exp: emin - M - 2})
}

// intGrid adds values around the integers that matter for an integer dst.
func (e *edgeSet) intGrid(dst *Format) {
	for k := int64(-8); k <= 8; k++ {
		e.addNear(FromInt(k))
		e.addNear(Value{Class: Normal, Sig: uint64(2*abs64(k) + 1), Exp: -1, Neg: k < 0}) // k ± 0.5
		e.addNear(Value{Class: Normal, Sig: uint64(4*abs64(k) + 1), Exp: -2, Neg: k < 0})
		e.addNear(Value{Class: Normal, Sig: uint64(4*abs64(k) + 3), Exp: -2, Neg: k < 0})
	}
	for _, x := range []Value{{Class: Normal, Sig: 1, Exp: -1}, {Class: Normal, Sig: 1, Exp: -20}, {Class: Normal, Sig: 1, Exp: -126}} {
		e.addNear(x)
	}
	w := dst.Bits
	for _, p := range []int{w - 1, w, w + 1, 31, 32, 63, 64} {
		if p <= 0 {
			continue
		}
		e.addNear(Value{Class: Normal, Sig: 1, Exp: p})
		e.addNear(Value{Class: Normal, Sig: 3, Exp: p - 1})
		// 2^p - 1/2, 2^p - 1, 2^p + 1/2
		if p < 62 {
			e.addNear(Value{Class: Normal, Sig: 1<<(p+1) - 1, Exp: -1})
			e.addNear(Value{Class: Normal, Sig: 1<<p - 1, Exp: 0})
			e.addNear(Value{Class: Normal, Sig: 1<<(p+1) + 1, Exp: -1})
		}
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// intSource adds integer patterns: small values, the range ends, powers of
// two and their neighbours, and ties at the precision of dst.
func (e *edgeSet) intSource(dst *Format) {
	f := e.src
	add := func(x int64) { e.addBits(uint64(x)) }
	for k := int64(-4); k <= 4; k++ {
		add(k)
	}
	add(int64(f.MaxFinite(false)))
	add(int64(f.MaxFinite(false)) - 1)
	add(int64(f.MaxFinite(true)))
	add(int64(f.MaxFinite(true)) + 1)
	for p := 1; p < f.Bits; p++ {
		for _, d := range []int64{-1, 0, 1} {
			x := int64(1)<<p + d
			add(x)
			add(-x)
		}
	}
	if dst.Kind == FloatKind {
		P := dst.MantBits + 1 // dst precision
		for p := P; p < f.Bits && p < 63; p++ {
			base := int64(1) << p
			half := int64(1) << (p - P) // half a dst ulp in [2^p, 2^(p+1))
			for _, m := range []int64{0, 1, 2, 3} {
				x := base + 2*m*half
				for _, d := range []int64{-1, 0, 1} {
					add(x + half + d)
					add(-(x + half + d))
				}
			}
		}
		// dst overflow thresholds.
		maxV := dst.Decode(dst.MaxFinite(false))
		if maxV.Log2() < 63 {
			mx := int64(maxV.Sig) << maxV.Exp
			ulp := int64(1) << (maxV.Log2() - dst.MantBits)
			for _, x := range []int64{mx, mx + ulp/2, mx + ulp/2 - 1, mx + ulp, mx + ulp/2 + 1} {
				add(x)
				add(-x)
			}
		}
	}
	// Clear bits beyond the format (negative values were sign-extended).
	for i, b := range e.out {
		e.out[i] = b & lowMask(f.Bits)
	}
}

// RandomInputs draws n seeded source patterns of src for a conversion to
// dst: a quarter uniform bit patterns, half with exponents spread over the
// range that matters to dst, a quarter on or next to ties of dst.
func RandomInputs(src, dst *Format, rng *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	mask := src.Mask()
	if src.Kind != FloatKind {
		for i := range out {
			switch i % 4 {
			case 0, 1:
				out[i] = rng.Uint64() & mask
			default: // small magnitudes: a random bit length
				l := rng.IntN(src.Bits) + 1
				x := rng.Uint64() & lowMask(l)
				if src.Signed && rng.IntN(2) == 0 {
					x = -x
				}
				out[i] = x & mask
			}
		}
		return out
	}
	lo, hi := -4, dst.Bits+2
	if dst.Kind == FloatKind {
		emin := 1 - dst.Bias
		if dst.NoSubnormal {
			emin = -dst.Bias
		}
		lo = emin - dst.MantBits - 3
		hi = dst.Decode(dst.MaxFinite(false)).Log2() + 2
	}
	sM := src.MantBits
	// Keep the exponents inside src's own range.
	lo = max(lo, 1-src.Bias-sM)
	hi = min(hi, src.Decode(src.MaxFinite(false)).Log2())
	for i := range out {
		neg := rng.IntN(2) == 0 && src.Signed
		var v Value
		switch i % 4 {
		case 0:
			out[i] = rng.Uint64() & lowMask(src.Bits) << src.Shift
			continue
		case 1, 2:
			E := lo + rng.IntN(hi-lo+1)
			v = Value{Class: Normal, Neg: neg, Sig: 1<<sM | rng.Uint64()&lowMask(sM), Exp: E - sM}
		default:
			// A tie of the destination grid, give or take a few src ulps.
			E := lo + rng.IntN(hi-lo+1)
			P := 0 // dst fraction bits at this binade
			if dst.Kind == FloatKind {
				P = dst.MantBits
			} else {
				P = -E // integers: quantum 1
			}
			if P < 0 || P+1 > sM {
				v = Value{Class: Normal, Neg: neg, Sig: 1<<sM | rng.Uint64()&lowMask(sM), Exp: E - sM}
				break
			}
			m := 1<<P | rng.Uint64()&lowMask(P)
			sig := (2*m + 1) << (sM - P - 1) // the tie, at src precision
			sig = uint64(int64(sig) + int64(rng.IntN(5)-2))
			v = Value{Class: Normal, Neg: neg, Sig: sig, Exp: E - sM}
		}
		b, info := src.Encode(v, RZ, Opts{})
		if info.Overflow {
			b = rng.Uint64() & mask
		}
		out[i] = b
	}
	return out
}
