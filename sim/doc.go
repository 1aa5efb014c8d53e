// Package sim is tcsim's functional simulator: it runs a PTX kernel on the
// CPU with the launch description of package launch (the same one `tcsim
// gpu run` uses) and produces the bytes an H100 produces, while a hazard
// checker judges the kernel against the PTX ISA's protocol rules.
//
// # Pieces
//
//   - Compile turns a parsed, validated module (isa/ptx) into a Program:
//     every instruction pre-decoded into an Inst with its registers resolved
//     to indices, immediates broadcast, branch targets resolved, and each
//     branch's reconvergence point (the immediate post-dominator of its
//     basic block, cfg.go).
//   - NewMachine (or Prepare, which parses, compiles and binds in one call)
//     allocates the launch's buffers, encodes tensor maps and packs the
//     parameter space. Run simulates the grid: CTAs (or whole clusters) are
//     independent units spread over Options.Workers goroutines; inside a
//     unit, warps run round-robin with a per-warp reconvergence stack
//     (SIMT with correct reconvergence for structured and unstructured
//     control flow), typed registers stored as r[reg*32+lane], predicates as
//     lane masks, and per-thread local memory and call frames.
//   - Memories: global (bounds-checked buffers with guard gaps; an
//     out-of-bounds access stops with the address, the nearest buffer and
//     the instruction), shared (byte-addressed, shared::cluster addresses
//     reach cluster peers through mapa), param, const, local; generic
//     addresses live in per-space windows (SharedWindow, LocalWindow, ...).
//   - Asynchronous units: wgmma (per warpgroup; the accumulators are written
//     when the group completes: at the covering wait_group by default),
//     TMA tile loads and stores with swizzle and out-of-bounds fill, bulk
//     copies and groups, mbarrier phases and tx-counts, cp.async groups,
//     ldmatrix/stmatrix/mma.sync with the atom catalog's fragments, and
//     tcgen05 (Tensor Memory, alloc/dealloc, mma, commit, ld/st, cp, shift;
//     modelled, not hardware-verified). Tensor-core arithmetic comes from
//     sim/datapath; cvt from isa/numfmt; SMEM operands are read through
//     isa/desc descriptors with their swizzle.
//   - Schedules (Options.Schedule): Lazy (default), Latest, Eager and a
//     seeded Random interleaving that explores other legal orders.
//   - The hazard checker: every finding names a rule (rules.go: a stable
//     identity, a severity — error, warning, portability note, perf — the
//     PTX ISA section and its documentation; the doc comment there says how
//     to add one). The protocol checks that judge one instruction at a time
//     always run (wgmma registers and fences with the ptxas repairs
//     C7513-C7519 modelled, TMA and bulk copy rules, mbarrier lifecycle,
//     deadlocks with the cause of a stuck phase, tcgen05 rules). With
//     Options.Check, race.go decides from the happens-before order the
//     kernel establishes, under any schedule: shared-memory races (vector
//     clocks per warp and per mbarrier), asynchronous writes and reads as
//     ranges with their release points, proxy fences, mbarrier phases and
//     lapping, intra-warp exchanges; provenance.go and the TMA tags check
//     descriptor layouts against the writers. Machine.Findings groups the
//     observations per root cause (findings.go); Options.Policy applies
//     --strict and --allow; source.go maps PTX lines to the kernel's .cu or
//     .py through .loc.
//   - Stepper (step.go): step one instruction, per warp or round-robin; run
//     to a breakpoint (pc, label, line) or a hazard; inspect registers,
//     fragment ownership, shared memory, TMEM, in-flight operations and
//     mbarriers. The JSON-lines trace (trace.go) records every instruction
//     and event for replay.
//
// Approximate instructions (ex2.approx, rsqrt, sin, tanh, div.full ...)
// run the bit-exact model of the H100's special function unit (package
// sim/sfu); an approximate form without a verified model is reported by
// Machine.ApproxPCs as not bit-exact.
package sim
