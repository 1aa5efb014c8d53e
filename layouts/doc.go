// Package layouts implements CuTe's layout algebra in Go: hierarchical
// IntTuples, shape:stride Layouts, Swizzle<B,M,S> and ComposedLayout, the
// algebra's operations (coalesce, composition, complement, inverses,
// divides and products), and the parsing and printing of CuTe notation.
//
// It also defines TV, the thread-value layout that the catalog
// (layouts/catalog), the F2 bit-matrix view and bitmath derivation
// (layouts/bitmath), the renderers and the terminal UI all share.
//
// Results follow CuTe exactly, including the inputs CuTe rejects: those
// return an error that names the violated condition. Nothing in this
// package panics on user input; only the Must* helpers, meant for literals
// in code, do.
package layouts
