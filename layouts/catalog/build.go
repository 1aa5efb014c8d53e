package catalog

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts"
)

// The helpers below turn the catalog's own layout literals into values. A
// literal that does not parse, or a TV layout that leaves its tile, is a
// bug in the catalog, not bad user input: they panic, and the tests build
// every atom.

// mustTV parses a TV layout literal and checks it against its rows×cols
// tile. With non-negative strides the largest index is the sum of
// (extent-1)*stride over the leaves, so the check costs nothing even for
// the 128 x 8192 broadcast operands (layouts.NewTV would visit every
// pair; the tests do that).
func mustTV(src string, rows, cols int) layouts.TV {
	l, err := layouts.ParseLayout(src)
	if err != nil {
		panic(fmt.Sprintf("catalog: TV layout %q: %v", src, err))
	}
	if l.Rank() != 2 {
		panic(fmt.Sprintf("catalog: TV layout %q must have rank 2", src))
	}
	shape, stride := l.Shape.Leaves(), l.Stride.Leaves()
	top := 0
	for i := range shape {
		if stride[i] < 0 || shape[i] < 1 {
			panic(fmt.Sprintf("catalog: TV layout %q: negative stride or empty mode", src))
		}
		top += (shape[i] - 1) * stride[i]
	}
	if top >= rows*cols {
		panic(fmt.Sprintf("catalog: TV layout %q reaches index %d, outside the %dx%d tile", src, top, rows, cols))
	}
	return layouts.TV{Layout: l, Rows: rows, Cols: cols}
}

// mustLayout parses a plain layout literal.
func mustLayout(src string) layouts.AnyLayout {
	l, err := layouts.ParseLayout(src)
	if err != nil {
		panic(fmt.Sprintf("catalog: layout %q: %v", src, err))
	}
	return layouts.AnyLayout{L: l}
}

// mustSwizzled returns Sw<b,m,s> o 0 o layout.
func mustSwizzled(b, m, s int, src string) layouts.AnyLayout {
	sw, err := layouts.NewSwizzle(b, m, s)
	if err != nil {
		panic("catalog: " + err.Error())
	}
	l := mustLayout(src).L
	return layouts.AnyLayout{Composed: true, C: layouts.ComposedLayout{Swizzle: sw, Layout: l}}
}

// shapeTokens returns "m{m}n{n}k{k}" for every n in ns and k in ks.
func shapeTokens(m int, ns, ks []int) []string {
	var out []string
	for _, k := range ks {
		for _, n := range ns {
			out = append(out, fmt.Sprintf("m%dn%dk%d", m, n, k))
		}
	}
	return out
}

// steps returns from, from+step, ..., to.
func steps(from, to, step int) []int {
	var out []int
	for v := from; v <= to; v += step {
		out = append(out, v)
	}
	return out
}
