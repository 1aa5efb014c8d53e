// Package probe generates the PTX probe kernels that check tcsim's layout
// catalog (layouts/catalog) on a real GPU, and decodes what the GPU wrote.
//
// Every probe makes ownership observable from exact integer data, without
// trusting the layout under test:
//
//   - wgmma accumulators (every N, f32/f16/s32, A from shared memory and
//     from registers): in one pass every element of row m of A is m and B
//     is all ones, in a second pass A is all ones and every element of
//     column n of B is n, so element (m, n) of D is K·m in the first and
//     K·n in the second, exactly, whatever the K order. Each thread
//     stores its raw accumulator registers in (thread, register) order,
//     and the host reads which (m, n) each (thread, value) holds.
//   - Register A fragments (wgmma k16/k8/k32, mma.sync A): register r of
//     thread t holds code(t, v), v its value index, and B is the identity,
//     so D(m, n) = A(m, n) tells where each code landed. Codes of more than
//     8 bits go in two passes (low byte, high byte) so that every value is
//     exact in f16, tf32 and u8.
//   - Shared-memory operands (every swizzle and major-ness wgmma has, and
//     the N×K B tiles of every N): every element of shared memory holds
//     (the low or high byte of) its own element index, the other operand
//     is the identity, and D tells which shared-memory element the
//     hardware used for each (mn, k) of the operand. The descriptors are
//     built by isa/desc; the K-major 64B and 128B atoms, wider than one
//     instruction's K, are read in K slices by advancing the start
//     address.
//   - mma.sync: the A, B and accumulator fragments, each probed with the
//     other two taken from the catalog.
//   - ldmatrix: shared memory holds element-index codes and each lane
//     points at its own 32-byte row; the registers are dumped.
//     stmatrix: the registers hold code(t, v) and shared memory (poisoned
//     first) is dumped.
//
// A Case is one probe kernel with one .entry: its PTX, its input records
// (one per CTA), its launch and the Checks that decode its output and
// compare the hardware's answer with a catalog atom cell by cell. The
// cases are recorded as fixtures (fixtures/layouts/<case>) by
// `tcsim verify layouts --gpu --record fixtures/layouts`, and Replay
// checks the catalog against them without a GPU.
//
// What a register-only probe cannot separate: for mma.sync, where every
// operand is in registers, relabelling m (or n, or k) consistently in all
// fragments changes no observable output, so the A, B and accumulator
// fragments are verified jointly (each probe assumes the other two from
// the catalog). For wgmma the shared-memory operands pin the labels down:
// row m of a descriptor operand is where the ISA's canonical layout puts
// it, so the accumulator is verified against shared memory, and the
// register A fragment against the accumulator.
package probe
