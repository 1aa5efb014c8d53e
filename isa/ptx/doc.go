// Package ptx is tcsim's PTX front end: a scanner, a parser that builds a
// plain-data syntax tree with a source position on every node, a validator
// driven by an instruction catalog, and a printer that writes the tree back
// as normalised PTX.
//
// The tree is meant to be executed: every instruction carries its opcode
// ("wgmma.mma_async"), its modifiers split into a list ("sync", "aligned",
// "m64n128k16", "f32", "bf16", "bf16"), the decoded type suffixes and MMA
// shape, and classified operands (registers, vectors, immediates with their
// exact bits, addresses, symbols, sinks and predicate pairs).
//
// Typical use:
//
//	m, err := ptx.ParseFile("gemm.ptx", src) // syntax errors, all of them
//	errs := ptx.Validate(m)                  // catalog and semantic checks
//	ptx.Fprint(os.Stdout, m)                 // normalised PTX
//
// Errors are reported as an ErrorList whose entries print as
// "file:line:col: message", in the style of go/scanner. Parsing never panics
// and recovers at the next ';' or '}' so that every error in a file is
// reported in one run.
package ptx
