package layouts

import (
	"fmt"
	"math/bits"
)

// Swizzled (composed) layouts in the algebra, as CuTe's swizzle_layout.hpp
// and layout_composed.hpp define them: most operations apply to the inner
// layout, which defines the domain, and keep the swizzle and offset.

// ComposeSwizzle is CuTe's composition(Sw<B,M,S>, offset, layout). As in
// CuTe, a swizzle with B == 0 and offset 0 decays to the plain layout.
func ComposeSwizzle(sw Swizzle, offset int, l Layout) AnyLayout {
	if sw.B == 0 && offset == 0 {
		return AnyLayout{L: l}
	}
	return AnyLayout{Composed: true, C: ComposedLayout{Swizzle: sw, Offset: offset, Layout: l}}
}

// Plain returns the AnyLayout holding the plain layout l.
func Plain(l Layout) AnyLayout { return AnyLayout{L: l} }

// MakeSwizzle is CuTe's make_swizzle<Y,Z>(): the swizzle whose YYY and ZZZ
// bit masks are y and z. It fails, as CuTe does, when the masks do not
// form a Swizzle<B,M,S>.
func MakeSwizzle(y, z int) (sw Swizzle, err error) {
	defer guard(&err)
	return makeSwizzle(y, z), nil
}

func makeSwizzle(y, z int) Swizzle {
	if y < 0 || z < 0 || y >= 1<<32 || z >= 1<<32 {
		fail("make_swizzle", CondSwizzle, "masks Y=%d and Z=%d must be 32-bit unsigned values", y, z)
	}
	uy, uz := uint32(y), uint32(z)
	b := bits.OnesCount32(uy)
	if b != bits.OnesCount32(uz) {
		fail("make_swizzle", CondSwizzle, "number of bits in Y=%#x and Z=%#x don't match", y, z)
	}
	ty, tz := bits.TrailingZeros32(uy), bits.TrailingZeros32(uz)
	m := min(ty, tz) % 32
	s := ty - tz
	if iabs(s) < b {
		fail("make_swizzle", CondSwizzle, "Y=%#x and Z=%#x give Sw<%d,%d,%d>, whose |S| is less than B", y, z, b, m, s)
	}
	sw := Swizzle{B: b, M: m, S: s}
	if uint32(sw.yyy()|sw.zzz()) != uy|uz {
		fail("make_swizzle", CondSwizzle, "Y=%#x and Z=%#x are not the masks of a Swizzle<B,M,S>", y, z)
	}
	return sw
}

func (s Swizzle) yyy() int { return ((1 << s.B) - 1) << (s.M + max(0, s.S)) }
func (s Swizzle) zzz() int { return ((1 << s.B) - 1) << (s.M - min(0, s.S)) }

// ComposeLayoutSwizzle is CuTe's composition(layout, Sw<B,M,S>): the
// swizzle with masks layout(YYY) and layout(ZZZ), composed with layout.
func ComposeLayoutSwizzle(l Layout, sw Swizzle) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("composition", l)
	return composeLayoutSwizzle(l, sw), nil
}

func composeLayoutSwizzle(l Layout, sw Swizzle) AnyLayout {
	ns := makeSwizzle(checkedEval(l, sw.yyy()), checkedEval(l, sw.zzz()))
	return ComposeSwizzle(ns, 0, l)
}

// MapInner applies f to the inner layout of a and keeps a's swizzle and
// offset, the way CuTe applies most operations to a ComposedLayout.
func (a AnyLayout) MapInner(f func(Layout) (Layout, error)) (AnyLayout, error) {
	l, err := f(a.Inner())
	if err != nil {
		return AnyLayout{}, err
	}
	if !a.Composed {
		return AnyLayout{L: l}, nil
	}
	return ComposeSwizzle(a.C.Swizzle, a.C.Offset, l), nil
}

// ComposeAny is CuTe's composition for plain or swizzled operands:
// (Sw o off o A) o B is Sw o off o (A o B); A o (Sw o 0 o B) is
// (A o Sw) o B.
func ComposeAny(a, b AnyLayout) (res AnyLayout, err error) {
	defer guard(&err)
	switch {
	case !b.Composed:
		return a.MapInner(func(l Layout) (Layout, error) { return Composition(l, b.L) })
	case a.Composed:
		fail("composition", CondUnsupported, "a swizzled layout composed with a swizzled layout is not a Sw o offset o layout")
	case b.C.Offset != 0:
		fail("composition", CondOffset, "the right operand %v must have offset 0", b)
	}
	x := composeLayoutSwizzle(a.L, b.C.Swizzle)
	return ComposeAny(x, Plain(b.C.Layout))
}

func inverseAny(op string, a AnyLayout, inv func(Layout) Layout) AnyLayout {
	if !a.Composed {
		return Plain(inv(a.L))
	}
	if a.C.Offset != 0 {
		fail(op, CondUnsupported, "%s of %v with a non-zero offset is a layout o offset o swizzle, which tcsim does not represent", op, a)
	}
	r := inv(a.C.Layout)
	if err := swizzleThrough(r, a.C.Swizzle); err != "" {
		fail(op, CondSwizzle, "%s(%v o L) is %s(L) o %v with %s(L) = %v; %s", op, a.C.Swizzle, op, a.C.Swizzle, op, r, err)
	}
	return composeLayoutSwizzle(r, a.C.Swizzle)
}

// swizzleThrough explains, in words, why composing l with sw gives no
// swizzle (or returns ""): the swizzle's two bit groups, mapped through l,
// must again be two runs of B adjacent bits.
func swizzleThrough(l Layout, sw Swizzle) string {
	y, z := checkedEval(l, sw.yyy()), checkedEval(l, sw.zzz())
	if _, err := MakeSwizzle(y, z); err == nil {
		return ""
	}
	src := sw.M + max(0, sw.S)
	dst := sw.M - min(0, sw.S)
	msg := fmt.Sprintf("the swizzle XORs offset bits %d-%d into bits %d-%d, and %v maps those bit groups to %#b and %#b, "+
		"which are not two runs of %d adjacent bits, so no Sw<B,M,S> comes out: the result is not a swizzled layout (CuTe fails here too)",
		src, src+sw.B-1, dst, dst+sw.B-1, l, y, z, sw.B)
	for k := 1; k <= sw.M; k++ {
		alt := Swizzle{B: sw.B, M: sw.M - k, S: sw.S}
		ay, az := checkedEval(l, alt.yyy()), checkedEval(l, alt.zzz())
		if _, err := MakeSwizzle(ay, az); err == nil {
			msg += fmt.Sprintf("; if %v is meant for byte addresses of %d-byte elements, on element offsets it is %v, which works", sw, 1<<k, alt)
			break
		}
	}
	return msg
}

// RightInverseAny is CuTe's right_inverse for plain or swizzled layouts:
// right_inverse(Sw o 0 o L) is right_inverse(L) o Sw.
func RightInverseAny(a AnyLayout) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("right_inverse", a.Inner())
	return inverseAny("right_inverse", a, rightInverse), nil
}

// LeftInverseAny is CuTe's left_inverse for plain or swizzled layouts:
// left_inverse(Sw o 0 o L) is left_inverse(L) o Sw.
func LeftInverseAny(a AnyLayout) (res AnyLayout, err error) {
	defer guard(&err)
	requireLayout("left_inverse", a.Inner())
	return inverseAny("left_inverse", a, leftInverse), nil
}
