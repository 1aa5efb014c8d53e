package layouts

import (
	"strconv"
	"strings"
)

// TilerKind tells which form a Tiler takes.
type TilerKind int

// The forms of a Tiler.
const (
	// TileLayout applies a layout to the whole mode, as a 1-D function.
	TileLayout TilerKind = iota
	// TileInt applies N, CuTe's integral tiler (the layout N:1).
	TileInt
	// TileTuple applies one tiler to each top-level mode.
	TileTuple
	// TileSkip is CuTe's underscore "_": the mode is kept as it is.
	TileSkip
)

// Tiler is CuTe's tiler, the second operand of by-mode composition,
// divides and products: a Layout, an integer N (meaning N:1), a tuple of
// tilers applied mode by mode, or "_" (leave the mode alone). A shape such
// as (4,8) is the tuple of integer tilers <4,8>.
type Tiler struct {
	Kind   TilerKind
	Layout Layout  // for TileLayout
	N      int     // for TileInt
	Modes  []Tiler // for TileTuple
}

// LayoutTiler returns the tiler that applies l to a whole mode.
func LayoutTiler(l Layout) Tiler { return Tiler{Kind: TileLayout, Layout: l} }

// IntTiler returns CuTe's integral tiler N.
func IntTiler(n int) Tiler { return Tiler{Kind: TileInt, N: n} }

// TupleTiler returns the by-mode tiler <ts...>.
func TupleTiler(ts ...Tiler) Tiler { return Tiler{Kind: TileTuple, Modes: append([]Tiler(nil), ts...)} }

// SkipTiler returns CuTe's underscore tiler.
func SkipTiler() Tiler { return Tiler{Kind: TileSkip} }

// ShapeTiler returns the tiler CuTe makes of a shape: an integer N is the
// tiler N, and a tuple is the tuple of its modes' tilers.
func ShapeTiler(shape IntTuple) Tiler {
	if shape.leaf {
		return IntTiler(shape.v)
	}
	ms := make([]Tiler, len(shape.modes))
	for i, m := range shape.modes {
		ms[i] = ShapeTiler(m)
	}
	return TupleTiler(ms...)
}

// String prints the tiler: a layout in CuTe notation, an integer, "_", or
// "<t0,t1,...>" for a by-mode tuple.
func (t Tiler) String() string {
	switch t.Kind {
	case TileLayout:
		return t.Layout.String()
	case TileInt:
		return strconv.Itoa(t.N)
	case TileSkip:
		return "_"
	}
	parts := make([]string, len(t.Modes))
	for i, m := range t.Modes {
		parts[i] = m.String()
	}
	return "<" + strings.Join(parts, ",") + ">"
}
