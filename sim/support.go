package sim

import "sort"

// Supported reports whether the simulator runs opcode (as the PTX front
// end names it: "ld", "wgmma.mma_async", "tcgen05.ld"). Some supported
// opcodes have forms it does not run (see Unsupported); those fail with a
// clear message when executed.
func Supported(opcode string) bool {
	_, ok := decoders[opcode]
	return ok
}

// Unsupported lists the opcodes of the front end's catalog that the
// simulator does not run (every other one it decodes: TestDecoderTable
// checks it), and the forms of supported opcodes it does not run either.
func Unsupported() (opcodes []string, forms []string) {
	for op := range unsupportedOpcodes {
		opcodes = append(opcodes, op)
	}
	sort.Strings(opcodes)
	forms = []string{
		"call through a register (indirect calls)",
		"tcgen05.mma .cta_group::2, .ws, .sp, block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4), disable-output-lane, collector usage, .ashift",
		"tcgen05.commit .multicast::cluster; tcgen05.ld .red, .pack::16b; tcgen05.st .unpack::16b",
		"tcgen05.cp shapes other than 128x256b, 128x128b, 4x256b; .warpx2/.warpx4; decompression (.b8x16)",
		"cp.async.bulk.tensor im2col and gather/scatter modes; tensor maps with interleave or the 128B_atom_32B_flip_8B / 128B_atom_64B swizzles",
		"cp.async.bulk .cp_mask; cp.reduce.async.bulk and cp.reduce.async.bulk.tensor",
		"ldmatrix/stmatrix shapes other than .m8n8.b16 (m16n16, m16n8, b8, b6x16/b4x16 decompression)",
		"lop3 with a predicate output; setp on f16x2/bf16x2; min/max .xorsign; vector atomics (.v2/.v4 atom, red)",
		"fma on f16/bf16 with .sat, .relu or .oob",
	}
	return opcodes, forms
}
