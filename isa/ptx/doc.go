// Package ptx is tcsim's PTX front end: a scanner, a parser that builds a
// plain-data syntax tree with a source position on every node, a validator
// driven by an instruction catalog, and a printer that writes the tree back
// as normalised PTX.
//
// The tree is meant to be executed. Every instruction carries its opcode
// ("wgmma.mma_async", the longest catalog name that prefixes the dotted
// word), its modifiers as a list ("sync", "aligned", "m64n128k16", "f32",
// "bf16", "bf16"), the decoded type suffixes and MMA shape, and classified
// operands: *Reg (registers, special registers such as %tid.x, negated
// predicates), *Imm (integers and floats with their exact bits), *Address
// ([reg+imm], [symbol+imm], [tensorMap, {coords}]), *Vector, *Ident
// (labels, variables, functions), *Sink, *Pair (p|q) and *List (call
// arguments). Bare names declared with .reg (as inline assembly writes
// them, "setp.ne.b32 p, ...") parse as registers.
//
// Typical use:
//
//	m, err := ptx.ParseFile("gemm.ptx", src) // every syntax error, or nil
//	errs := ptx.Validate(m)                  // catalog and semantic checks
//	ptx.Fprint(os.Stdout, m)                 // normalised PTX
//
// or ptx.Check, which does the first two and merges the diagnostics.
//
// # Diagnostics
//
// Errors are reported as an ErrorList whose entries print as
// "file:line:col: message (hint)", in the style of go/scanner. Parsing
// never panics (the package is fuzzed) and recovers at the next ';' or '}',
// so every error in a file is reported in one run. Diagnostics with
// Warning set mark code that ptxas accepts but that is wrong or undefined
// at run time: a generic address held in a 32-bit register, a misaligned
// mbarrier object, an out-of-range arrival count, a symbol used as a Tensor
// Memory address.
//
// # The catalog
//
// Validation is data-driven: each opcode in the catalog (see Lookup and
// Opcodes) has one or more forms written in a compact notation (forms.go)
// that lists the modifier slots and the operand kinds and types, plus an
// optional rule for combinations the notation cannot express (wgmma shapes
// and type pairs, tcgen05 shape and count pairs, mma fragment sizes,
// mbarrier operands ...). Texture, surface and video instructions, wmma,
// multimem and clusterlaunchcontrol are recognised but not checked.
//
// The test corpus (testdata/ok, testdata/errors, testdata/nvcc) was checked
// against ptxas 13.0: it accepts every valid file and rejects every line the
// validator reports as an error.
package ptx
