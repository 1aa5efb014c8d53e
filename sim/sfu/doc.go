// Package sfu models the H100's special function unit (MUFU) and the
// instructions ptxas emits around it for PTX's approximate math: ex2, lg2,
// rcp, rsqrt, sqrt, sin, cos and tanh .approx (f32 with and without .ftz;
// ex2 and tanh also f16, bf16 and their x2 forms; rcp and rsqrt f64) and
// div.approx / div.full. Every form is bit-exact on every input the
// verification campaign covers (see Form.Exact and fixtures/approx).
//
// The unit. Each MUFU operation reduces its operand to a fixed-point
// argument (the significand, or for EX2 and SIN/COS a truncated fixed-point
// fraction), whose top bits pick an interval of a table and whose next L
// bits are Xl. The unit sums S = C0 + C1·t + C2·sq(t), t = Xl/2^L, exactly,
// where sq(t) is t² from a squarer that drops the partial products below
// 2^-15; the result is S truncated (floor, or toward zero after
// normalising a fixed-point result). Per operation (cores.go): EX2 reads
// its table one step below for negative fractions; LG2 adds the exponent in
// fixed point with 12 bits below 2^-24 and forms negative results by one's
// complement; SIN and COS take 25 fraction bits of turns and read odd
// quadrants at the one's complement; TANH returns x below 2^-8, ±1 from 8,
// and between uses a table per binade; RCP64H and RSQ64H read the f32 tables
// from the high word. The .F16/.BF16 forms run the f32 operation on the
// widened operand and truncate.
//
// The tables (tables_gen.go) were fitted to whole binades of results
// recorded on an H100 (2026-11-25). `tcsim verify approx --gpu
// --record-fit FILE` records what pins every table value (RecordFit:
// every 64th result of each binade and, per interval, the two results
// that bound its window of C0+Delta; Pins), and checks that the whole
// binades and the record alone fit the same tables. The committed record,
// fixtures/approx/fit_sm90a.gz, was made on an H200 (2026-12-01): its
// whole binades fit tables_gen.go's tables exactly, and `go run
// ./sim/sfu/internal/fitgen fixtures/approx/fit_sm90a.gz` regenerates
// tables_gen.go byte for byte (TestTablesFromFixture). Quad.Sum reads
// each table as rows scaled to the sum's units and the squarer's output
// from a table (Prepare; TestQuadSum checks them against the formula).
//
// The lowering (lowering.go) is what ptxas 13.0 emits for sm_90a, read
// from cuobjdump -sass: FMUL/FSEL scalings for subnormal and huge operands,
// FMUL.RZ by 1/(2π) before MUFU.SIN/COS, the DFMA refinement of
// rsqrt.approx.f64. FMUL's flush-to-zero detects tininess after rounding.
//
// Verification (tcsim verify approx): a GPU kernel hashes the results of
// every input in chunks of 2^20 (the wrapping sum of a 64-bit mix of input
// number and result), Form.ChunkHash computes the same with the model, and
// the recorded per-chunk hashes are replayed in CI. Form.Measured lists the
// campaigns recorded for a form (every operand of the 32-bit and 16-bit
// forms; for f64 2^32 high words × 1 low word, every high word with low
// words 0, 1 and 0xffffffff, and every low word under six high words),
// Form.RecordedOn the GPU each was recorded on (the H100, and for the f64
// edge campaigns an H200), Form.Checks the same grouped by GPU, and
// Form.MeasuredInput whether an input was among them. The package does not
// import the simulator: sim uses it for the instructions' semantics.
package sfu
