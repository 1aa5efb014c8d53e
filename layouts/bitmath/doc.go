// Package bitmath views layouts as matrices over F2 and derives the
// shift/mask/add/xor "epilogue bitmath" that moves between a thread's
// registers and tile coordinates.
//
// A layout whose extents are powers of two is, very often, a linear map on
// bits: every output bit (a row, column or offset bit) is the XOR of some
// input bits (lane bits l0..l4, warp bits w0.., value bits v0.., or row and
// column bits). Analyze builds that Matrix and checks it on every input; a
// layout that is not XOR-linear (strides whose bits overlap, so that adding
// them carries; an inner extent that is not a power of two) gets a
// *NonLinearError with the smallest counterexample and the reason. A
// Matrix has a rank, a kernel (broadcast directions: input bits that do not
// move the output), an image (which outputs are reached), and an Inverse
// computed by Gaussian elimination: two-sided for a bijection, one-sided or
// generalized otherwise, with notes on which inputs it picks and which
// outputs it cannot reach.
//
// Derive turns the matrix into two straight-line Programs, forward (tid, v)
// → (row, col) and inverse (row, col) → (tid, v), in the simplest form it
// finds, with an explanation per term; see Derive for the rules. For the
// wgmma accumulator it finds the seed's
//
//	wid = tid >> 5
//	lane = tid & 31
//	frag_row = (wid << 4) + (lane >> 2)
//	frag_col = (lane & 3) << 1
//	row = frag_row + ((v & 2) << 2)
//	col = frag_col + ((v >> 2) << 3) + (v & 1)
//
// Emit prints a Program as a C, Go or Python function or a PTX block
// (EmitPTXKernel wraps the block in a runnable kernel). Check runs a user's
// own formula, parsed by ParseFormula, against a layout on every input and
// reports the first place it is wrong.
//
// Maps come from thread-value layouts (FromTV), shared-memory layouts over
// their tile (FromOffsets), Tensor Memory placements (FromTMEM) and any
// plain or swizzled CuTe layout (FromLayout).
package bitmath
