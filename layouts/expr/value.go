package expr

import "github.com/tcsim/tcsim/layouts"

// Kind tells what a Value holds.
type Kind int

// The kinds of values an expression can produce.
const (
	// KindTuple is an integer or an IntTuple (a shape or coordinate).
	KindTuple Kind = iota
	// KindLayout is a plain or swizzled layout.
	KindLayout
	// KindSwizzle is a bare Sw<B,M,S>.
	KindSwizzle
	// KindTiler is a by-mode tiler such as <4:1,2:1> or (4:1,2:1).
	KindTiler
	// KindSkip is CuTe's underscore "_".
	KindSkip
)

// Value is the result of an expression.
type Value struct {
	Kind    Kind
	Tuple   layouts.IntTuple  // KindTuple (an integer is a leaf)
	Layout  layouts.AnyLayout // KindLayout
	Swizzle layouts.Swizzle   // KindSwizzle
	Tiler   layouts.Tiler     // KindTiler
}

// IsInt reports whether v is a single integer.
func (v Value) IsInt() bool { return v.Kind == KindTuple && v.Tuple.IsInt() }

// String prints v in CuTe notation.
func (v Value) String() string {
	switch v.Kind {
	case KindTuple:
		return v.Tuple.String()
	case KindLayout:
		return v.Layout.String()
	case KindSwizzle:
		return v.Swizzle.String()
	case KindTiler:
		return v.Tiler.String()
	}
	return "_"
}

// String names the kind for error messages.
func (k Kind) String() string {
	return [...]string{"an integer tuple", "a layout", "a swizzle", "a tiler", "_"}[k]
}

func tupleVal(t layouts.IntTuple) Value   { return Value{Kind: KindTuple, Tuple: t} }
func intVal(n int) Value                  { return tupleVal(layouts.Int(n)) }
func layoutVal(a layouts.AnyLayout) Value { return Value{Kind: KindLayout, Layout: a} }
func plainVal(l layouts.Layout) Value     { return layoutVal(layouts.Plain(l)) }
