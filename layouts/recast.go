package layouts

import "math/bits"

// CuTe's upcast, downcast and recast_layout (layout.hpp, swizzle_layout.hpp,
// layout_composed.hpp): the same memory seen as elements N times wider
// (upcast), N times narrower (downcast), or of another bit width (recast).

// Upcast is CuTe's upcast<N>(layout): mode by mode, a stride-0 mode stays;
// any other mode (stride d, extent s) becomes
// ceil_div(s, ceil_div(N, |d|)) : signum(d)·ceil_div(|d|, N), which needs
// d and N to divide one another (CuTe's divisibility condition). A unit
// stride mode thus shrinks N times and the other strides divide by N.
func Upcast(l Layout, n int) (res Layout, err error) {
	defer guard(&err)
	requireLayout("upcast", l)
	return upcast(l, n), nil
}

func upcast(l Layout, n int) Layout {
	if n <= 0 {
		fail("upcast", CondDivisibility, "N = %d must be positive", n)
	}
	return mapLeaves(l, func(s, d int) (int, int) {
		if d == 0 {
			return s, d
		}
		if d%n != 0 && n%d != 0 {
			fail("upcast", CondDivisibility, "stride %d and N = %d do not divide one another", d, n)
		}
		return ceilDivInt(s, ceilDivInt(n, iabs(d))), signum(d) * ceilDivInt(iabs(d), n)
	})
}

// Downcast is CuTe's downcast<N>(layout): mode by mode, a mode of stride
// ±1 grows N times and every other stride is multiplied by N. As in CuTe,
// the layout needs a stride-1 mode (adjacent elements).
func Downcast(l Layout, n int) (res Layout, err error) {
	defer guard(&err)
	requireLayout("downcast", l)
	return downcast(l, n), nil
}

func downcast(l Layout, n int) Layout {
	if n <= 0 {
		fail("downcast", CondDivisibility, "N = %d must be positive", n)
	}
	has1 := false
	for _, d := range l.Stride.Leaves() {
		has1 = has1 || d == 1
	}
	if !has1 {
		fail("downcast", CondAdjacent, "%v has no stride-1 mode", l)
	}
	return mapLeaves(l, func(s, d int) (int, int) {
		if d == 1 || d == -1 {
			return mul(s, n), d
		}
		return s, mul(d, n)
	})
}

// mapLeaves applies f to every (extent, stride) leaf, keeping the nesting.
func mapLeaves(l Layout, f func(s, d int) (int, int)) Layout {
	sh, st := l.Shape.Leaves(), l.Stride.Leaves()
	ns, nd := make([]int, len(sh)), make([]int, len(sh))
	for i := range sh {
		ns[i], nd[i] = f(sh[i], st[i])
	}
	return Layout{Shape: Unflatten(ns, l.Shape), Stride: Unflatten(nd, l.Stride)}
}

// Recast is CuTe's recast_layout<Old, New>(layout) for element types of
// oldBits and newBits bits: with newBits/oldBits = num/den in lowest
// terms, it is downcast<den>(upcast<num>(layout)) (one of the two when the
// other factor is 1).
func Recast(l Layout, oldBits, newBits int) (res Layout, err error) {
	defer guard(&err)
	requireLayout("recast", l)
	num, den := ratio(oldBits, newBits)
	if num != 1 {
		l = upcast(l, num)
	}
	if den != 1 {
		l = downcast(l, den)
	}
	return l, nil
}

func ratio(oldBits, newBits int) (num, den int) {
	if oldBits <= 0 || newBits <= 0 {
		fail("recast", CondDivisibility, "element widths %d and %d bits must be positive", oldBits, newBits)
	}
	g := gcd(oldBits, newBits)
	return newBits / g, oldBits / g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// UpcastAny is upcast<N> for plain or swizzled layouts. For Sw o off o L
// the swizzle's M drops by log2(N) (B shrinks when M would go below 0),
// the offset is divided by N (it must divide) and L is upcast; N must be
// a power of two.
func UpcastAny(a AnyLayout, n int) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("upcast", a.Inner())
	return upcastAny(a, n), nil
}

func upcastAny(a AnyLayout, n int) AnyLayout {
	if !a.Composed {
		return Plain(upcast(a.L, n))
	}
	k := log2Exact("upcast", n)
	sw := a.C.Swizzle
	if m := sw.M - k; m >= 0 {
		sw.M = m
	} else {
		sw.B, sw.M = max(sw.B+m, 0), 0
	}
	if a.C.Offset%n != 0 {
		fail("upcast", CondDivisibility, "the offset %d of %v is not a multiple of N = %d", a.C.Offset, a, n)
	}
	// Not ComposeSwizzle: CuTe keeps a swizzle that upcast shrank to B = 0.
	return AnyLayout{Composed: true, C: ComposedLayout{Swizzle: sw, Offset: a.C.Offset / n, Layout: upcast(a.C.Layout, n)}}
}

// DowncastAny is downcast<N> for plain or swizzled layouts: for
// Sw o off o L the swizzle's M grows by log2(N), the offset is multiplied
// by N and L is downcast; N must be a power of two.
func DowncastAny(a AnyLayout, n int) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("downcast", a.Inner())
	return downcastAny(a, n), nil
}

func downcastAny(a AnyLayout, n int) AnyLayout {
	if !a.Composed {
		return Plain(downcast(a.L, n))
	}
	k := log2Exact("downcast", n)
	sw := a.C.Swizzle
	sw.M += k
	if sw.M+max(sw.S, 0)+sw.B > 62 || sw.M-min(sw.S, 0)+sw.B > 62 {
		fail("downcast", CondOverflow, "%v would move the swizzle beyond bit 62", a)
	}
	return AnyLayout{Composed: true, C: ComposedLayout{Swizzle: sw, Offset: mul(a.C.Offset, n), Layout: downcast(a.C.Layout, n)}}
}

// RecastAny is recast_layout for plain or swizzled layouts.
func RecastAny(a AnyLayout, oldBits, newBits int) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("recast", a.Inner())
	num, den := ratio(oldBits, newBits)
	if num != 1 {
		a = upcastAny(a, num)
	}
	if den != 1 {
		a = downcastAny(a, den)
	}
	return a, nil
}

func log2Exact(op string, n int) int {
	if n <= 0 || n&(n-1) != 0 {
		fail(op, CondPowerOfTwo, "N = %d: %s of a swizzled layout needs a power of two", n, op)
	}
	return bits.TrailingZeros(uint(n))
}
