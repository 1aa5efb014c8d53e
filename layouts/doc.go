// Package layouts implements CuTe's layout algebra in Go: hierarchical
// IntTuples, shape:stride Layouts, Swizzle<B,M,S> and ComposedLayout, the
// algebra's operations (coalesce, filter, composition, complement, the
// inverses, the divides and products, select/group/take, make_layout_like,
// tile_to_shape, ceil_div/shape_div), and the parsing and printing of CuTe
// notation. Package layouts/expr evaluates algebra expressions written the
// way CuTe users write them.
//
// Results follow CuTe exactly, as CuTe computes them when every integer
// is static (the case its documentation describes): testdata/cute_oracle.txt
// holds thousands of CuTe's own answers, replayed by the tests. That
// includes the inputs CuTe rejects with a static_assert: they return a
// *ConditionError that names the violated condition. Nothing in this
// package panics on user input (arithmetic is checked against overflow);
// only the Must* helpers, meant for literals in code, do.
//
// It also defines TV, the thread-value layout that the catalog
// (layouts/catalog), the F2 bit-matrix view and bitmath derivation
// (layouts/bitmath), the renderers and the terminal UI all share, and
// Evaluator, a flattened layout for evaluating many indices fast.
package layouts
