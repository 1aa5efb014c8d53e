package layouts

import "fmt"

// Swizzle is CuTe's Swizzle<B,M,S>: it XORs the B bits at positions
// [M+S, M+S+B) of an offset into the bits at [M, M+B). A negative S shifts
// the other way. Sw<0,M,S> is the identity.
type Swizzle struct {
	B, M, S int
}

// NewSwizzle checks CuTe's rules (B >= 0, M >= 0, |S| >= B) and returns the
// swizzle.
func NewSwizzle(b, m, s int) (Swizzle, error) {
	switch {
	case b < 0:
		return Swizzle{}, fmt.Errorf("Sw<%d,%d,%d>: B (number of bits) must be >= 0", b, m, s)
	case m < 0:
		return Swizzle{}, fmt.Errorf("Sw<%d,%d,%d>: M (base bits kept) must be >= 0", b, m, s)
	case abs(s) < b:
		return Swizzle{}, fmt.Errorf("Sw<%d,%d,%d>: |S| must be >= B so the XOR source and target bits do not overlap", b, m, s)
	case m+max(s, 0)+b > 62 || m-min(s, 0)+b > 62:
		return Swizzle{}, fmt.Errorf("Sw<%d,%d,%d>: bit positions must stay below 62", b, m, s)
	}
	return Swizzle{B: b, M: m, S: s}, nil
}

// Apply swizzles one offset.
func (s Swizzle) Apply(off int) int {
	if s.B == 0 {
		return off
	}
	bits := (1 << s.B) - 1
	yyy := bits << (s.M + max(0, s.S))
	if s.S >= 0 {
		return off ^ ((off & yyy) >> s.S)
	}
	return off ^ ((off & yyy) << -s.S)
}

// IsIdentity reports whether s changes no offset.
func (s Swizzle) IsIdentity() bool { return s.B == 0 }

// String prints s as CuTe does: "Sw<3,4,3>".
func (s Swizzle) String() string { return fmt.Sprintf("Sw<%d,%d,%d>", s.B, s.M, s.S) }

// ComposedLayout is Swizzle ∘ Offset ∘ Layout: the function
// c ↦ Swizzle(Offset + Layout(c)), CuTe's ComposedLayout as used for
// swizzled shared memory.
type ComposedLayout struct {
	Swizzle Swizzle
	Offset  int
	Layout  Layout
}

// Eval maps a linear index through the inner layout, adds the offset and
// swizzles the result.
func (c ComposedLayout) Eval(idx int) int {
	return c.Swizzle.Apply(c.Offset + c.Layout.Eval(idx))
}

// Crd2Idx maps a coordinate (as Layout.Crd2Idx) through the whole
// composition.
func (c ComposedLayout) Crd2Idx(crd IntTuple) (int, error) {
	v, err := c.Layout.Crd2Idx(crd)
	if err != nil {
		return 0, err
	}
	return c.Swizzle.Apply(c.Offset + v), nil
}

// Size is the size of the inner layout.
func (c ComposedLayout) Size() int { return c.Layout.Size() }

// Shape is the shape of the inner layout.
func (c ComposedLayout) Shape() IntTuple { return c.Layout.Shape }

// String prints c as "Sw<3,4,3> o 0 o (8,64):(64,1)".
func (c ComposedLayout) String() string {
	return fmt.Sprintf("%v o %d o %v", c.Swizzle, c.Offset, c.Layout)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
