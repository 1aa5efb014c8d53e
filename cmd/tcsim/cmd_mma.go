package main

import (
	"flag"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/sim/datapath"
)

type mmaOpts struct {
	inst, a, b, c, out, explain string
	sfa, sfb, idesc             string
	batch, problem, workers     int
	print                       bool
	tc                          datapath.TCOptions
	fs                          *flag.FlagSet
}

// tcgen05Flags are the flags that describe a tcgen05 instruction; --idesc
// replaces all but --scale-input-d.
var tcgen05Flags = []string{"m", "n", "atype", "btype", "dtype", "satfinite", "negate-a", "negate-b", "stype"}

func init() {
	register(&command{
		name:    "mma",
		args:    "--inst NAME --a A --b B [--c C] (--out D.bin | --out - | --print | --explain ROW,COL) [--batch T]",
		summary: "compute D = A·B + C bit-exactly, as the tensor core does",
		help: `Runs one MMA instruction on the CPU with tcsim's bit-exact datapath.

Files hold raw little-endian element bit patterns (or .npy arrays of unsigned
integers holding them, one element per array entry):
  A  M×K, row-major                 B  N×K (each output column's K values contiguous)
  C  M×N, row-major (default +0)    D  M×N, row-major (written to --out)
Element sizes: fp8/s8/u8 1 byte, f16/bf16 2 bytes, f32/tf32/s32 4 bytes (tf32 as
the f32 pattern), e2m3/e3m2 one per byte (low 6 bits; the 2 high bits must be 0),
e2m1/s4/u4 two per byte (low nibble first), b1 eight per byte.
--batch T: each file holds T independent problems back to back; they stream
through one by one, computed on every core (--workers N), so memory stays
small however large the batch. A .npy array must have the operand's shape
(T×rows×cols, rows×cols, or flat): a transposed array is an error.

Instead of a file, an operand may be one of tcsim run's buffer generators
(launch/README.md), typed with the operand's element type:
  --a uniform:bf16:1:-1:1   --b int:bf16:2:-4:4   --c const:f32:0.5
  --a iota:f16:0:0.25       --a random:7 (random bit patterns)   --c zero
Without its type a generator takes the operand's (--b iota, --c const:0.5,
--a uniform:1:-1:1). (f32 generators serve tf32 operands, truncated to tf32;
the FP6/FP4, s4/u4, b1 and scale formats take zero and random:SEED.) Problem p
of a batch takes the next elements of the same stream.

D goes to --out FILE (raw, or .npy), --out - (raw bytes on standard output),
or --print (a matrix of its values, fitted to the terminal's width).

Instruction names:
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16      (any N from 8 to 256)
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  tcgen05.mma.cta_group::1.kind::f16 --m 128 --n 256 --atype bf16 --btype bf16 --dtype f32
  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X --m 128 --n 256
      --atype e4m3 --btype e2m1 --scale-a SFA.bin --scale-b SFB.bin

tcgen05.mma (sm_100a): the name gives the CTA group and the kind
(f16, tf32, f8f6f4, i8, and with .block_scale mxf8f6f4, mxf4, mxf4nvf4); the
rest of the instruction descriptor comes from --m --n --atype --btype --dtype
--negate-a --negate-b --satfinite --stype, or all at once from --idesc 0x...
(32 bits, or 64 with the descriptor in the upper half as CUTLASS builds it).
K is 16 (f16), 8 (tf32), 32 (f8f6f4, i8, mxf8f6f4) or 64 (mxf4, mxf4nvf4).
With cta_group::2 the files hold the whole pair's problem (both CTAs' rows).
--scale-input-d S (kind::f16 and tf32, 0..15) computes D = A·B + C·2^-S.
The files hold the logical elements, not a shared-memory image: in shared
memory kind::f8f6f4 and mxf8f6f4 keep every FP6/FP4 element in a byte of its
own (the unpacked form TMA's 16U6/16U4_ALIGN16B types or tcgen05.cp .b8x16
produce), while mxf4 and mxf4nvf4 read e2m1 packed two per byte.

Block scaling: D = (A·SFA)(B·SFB) + C, with one scale factor per block of K:
  kind::mxf8f6f4  .scale_vec::1X (= .block32)  ue8m0       1 scale per row (K 32)
  kind::mxf4      .scale_vec::2X (= .block32)  ue8m0       2 scales per row (K 64)
  kind::mxf4nvf4  .scale_vec::2X (= .block32)  ue8m0       2 scales per row (K 64)
                  .scale_vec::4X (= .block16)  ue8m0/ue4m3 4 scales per row (K 64)
--scale-a SFA: M×(K/block) bytes, row m's scales in K order (SFA[m][j] scales
  A[m][j·block .. (j+1)·block-1]);
--scale-b SFB: N×(K/block) bytes, one row per column n of B, in K order.
One byte per scale factor: ue8m0 code e is 2^(e-127) (0xff is NaN); ue4m3 is an
unsigned e4m3 (bit 7 must be 0, 0x7f is NaN). --stype picks ue8m0 (default) or
ue4m3; kind::mxf4nvf4 with .scale_vec::4X needs it set. The descriptor's
scale-factor IDs only say where in Tensor Memory the scales sit; the files
already hold each row's scales. D is f32.

Every run says whether its datapath is hardware-verified: the sm_90a wgmma
datapath was fitted to an H100 (fixtures/numerics); tcgen05 is modelled from
public evidence only ("not hardware-verified").

--explain ROW,COL prints the datapath trace of one output element (of problem
--problem): the terms and their exponents, the anchor, the bits each term loses
to alignment, the exact sum and the final rounding; then the operands a_k and
b_k, the exact real value of A·B + C and D's error in ULPs of its format.`,
		setup: func(fs *flag.FlagSet) any {
			o := &mmaOpts{fs: fs}
			fs.StringVar(&o.inst, "inst", "", "full PTX instruction `name`")
			fs.StringVar(&o.a, "a", "", "A operand (M×K): a `file` or a generator such as uniform:bf16:1:-1:1")
			fs.StringVar(&o.b, "b", "", "B operand (N×K): a `file` or a generator")
			fs.StringVar(&o.c, "c", "", "C accumulator (M×N): a `file` or a generator; default all +0")
			fs.StringVar(&o.out, "out", "", "D output `file` (M×N); .npy writes a NumPy array, - standard output")
			fs.IntVar(&o.batch, "batch", 1, "number of problems `T` in each file")
			fs.StringVar(&o.explain, "explain", "", "print the datapath trace of element `ROW,COL`")
			fs.IntVar(&o.problem, "problem", 0, "which problem of the batch --explain looks at")
			fs.BoolVar(&o.print, "print", false, "print D as a matrix of its element type's values")
			fs.IntVar(&o.workers, "workers", 0, "problems of a --batch computed at once (0: every core)")
			fs.IntVar(&o.tc.M, "m", 128, "tcgen05: M (64 or 128 with cta_group::1; 128 or 256 with cta_group::2)")
			fs.IntVar(&o.tc.N, "n", 0, "tcgen05: N (multiple of 8, up to 256)")
			fs.StringVar(&o.tc.A, "atype", "", "tcgen05: A element `type` (f16, bf16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8)")
			fs.StringVar(&o.tc.B, "btype", "", "tcgen05: B element `type`")
			fs.StringVar(&o.tc.D, "dtype", "", "tcgen05: D/accumulator `type` (f32, f16, s32; default f32, s32 for kind::i8)")
			fs.BoolVar(&o.tc.Saturate, "satfinite", false, "tcgen05 kind::i8: saturate the accumulator")
			fs.BoolVar(&o.tc.NegateA, "negate-a", false, "tcgen05: negate A (descriptor bit 13)")
			fs.BoolVar(&o.tc.NegateB, "negate-b", false, "tcgen05: negate B (descriptor bit 14)")
			fs.StringVar(&o.tc.ScaleType, "stype", "", "tcgen05 block-scaled kinds: scale factor `type` (ue8m0, ue4m3)")
			fs.IntVar(&o.tc.ScaleInputD, "scale-input-d", 0, "tcgen05 kind::f16/tf32: D = A·B + C·2^-`S` (0..15)")
			fs.StringVar(&o.idesc, "idesc", "", "tcgen05: 32-bit instruction `descriptor` (hex), instead of --m --n --atype ...")
			fs.StringVar(&o.sfa, "scale-a", "", "tcgen05 block-scaled kinds: A scale factors `file` (M×K/block bytes)")
			fs.StringVar(&o.sfb, "scale-b", "", "tcgen05 block-scaled kinds: B scale factors `file` (N×K/block bytes)")
			return o
		},
		run: runMMA,
	})
}

// reTypedKind matches the tcgen05.mma kinds whose element types come from
// --atype and --btype.
var reTypedKind = regexp.MustCompile(`kind::(f16|tf32|f8f6f4|i8|mxf8f6f4)(\.|$)`)

// setFlags lists the flags given on the command line.
func (o *mmaOpts) setFlags() map[string]bool {
	set := map[string]bool{}
	if o.fs != nil {
		o.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	return set
}

func runMMA(e *env, opts any, args []string) error {
	o := opts.(*mmaOpts)
	in, err := o.resolve(e, args)
	if err != nil {
		return err
	}
	M, N, K, T := in.M, in.N, in.K, o.batch
	spr := in.ScalesPerRow()
	srcs := mmaSources{}
	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	open := func(spec string, f *numfmt.Format, rows, cols int, which string) (operandSource, error) {
		src, closer, err := openOperand(spec, f, T, rows, cols)
		if err != nil {
			if which == "A" || which == "B" || which == "C" {
				return nil, badInput(shapeHint(err, which, rows, cols, T))
			}
			return nil, badInput(scaleHint(err, strings.TrimPrefix(which, "scale "), map[string]string{"scale A": "rows", "scale B": "columns"}[which], in, T))
		}
		if closer != nil {
			closers = append(closers, closer)
		}
		return src, nil
	}
	if srcs.a, err = open(o.a, in.A, M, K, "A"); err != nil {
		return err
	}
	if srcs.b, err = open(o.b, in.B, N, K, "B"); err != nil {
		return err
	}
	if o.c == "" {
		o.c = "zero"
	}
	if srcs.c, err = open(o.c, in.C, M, N, "C"); err != nil {
		return err
	}
	if in.Block != nil {
		if srcs.sfa, err = open(o.sfa, in.Scale, M, spr, "scale A"); err != nil {
			return err
		}
		if srcs.sfb, err = open(o.sfb, in.Scale, N, spr, "scale B"); err != nil {
			return err
		}
	}
	srcs.names = [5]string{o.a + ": A", o.b + ": B", o.c + ": C", o.sfa + ": scale factor", o.sfb + ": scale factor"}
	scales := ""
	if in.Block != nil {
		scales = fmt.Sprintf(", .%s scale factors per %d elements of K (.scale_vec::%s)", in.Scale.Name, in.BlockSize, in.ScaleVec)
	}
	fmt.Fprintf(e.stderr, "%s: m%dn%dk%d, .%s×.%s→.%s%s, %d problem(s); datapath %s: %s\n",
		in.Family, M, N, K, in.A.Name, in.B.Name, in.C.Name, scales, T, in.Source, in.Note)
	for _, n := range in.Notes {
		fmt.Fprintf(e.stderr, "  note: %s\n", n)
	}
	var sink *mmaSink
	if o.out != "" {
		if sink, err = newMMASink(e, o.out, in, T); err != nil {
			return err
		}
	}
	// Problems stream through: read one, compute it on a free core, write
	// it in order; only a few are in memory at once.
	workers := o.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	err = streamMMA(in, T, workers, srcs, func(pr *mmaProblem) error {
		if o.explain != "" && pr.p == o.problem {
			if err := explainMMA(e, o, in, pr); err != nil {
				return err
			}
		}
		if o.print {
			printMMAResult(e, in, pr, T)
		}
		if sink != nil {
			return sink.write(pr.d)
		}
		return nil
	})
	if sink != nil {
		if cerr := sink.close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if sink != nil {
		verified := ""
		if in.Source != datapath.HardwareVerified {
			verified = " (" + string(in.Source) + ")"
		}
		fmt.Fprintf(e.stderr, "wrote %s: %d×%d .%s elements × %d problem(s), %d bytes%s\n", sink.name, M, N, in.C.Name, T, sink.n, verified)
	}
	return nil
}

// resolve checks the flags and resolves the instruction.
func (o *mmaOpts) resolve(e *env, args []string) (datapath.Inst, error) {
	if len(args) > 0 {
		return datapath.Inst{}, usagef("unexpected argument %q (operands are given with --a, --b, --c)", args[0])
	}
	if o.inst == "" {
		return datapath.Inst{}, usagef("--inst is required, e.g. --inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16")
	}
	if o.a == "" || o.b == "" {
		return datapath.Inst{}, usagef("--a and --b are required")
	}
	if o.out == "" && o.explain == "" && !o.print {
		return datapath.Inst{}, usagef("--out FILE, --print or --explain ROW,COL is required (what to do with D)")
	}
	if o.out == "-" && (o.explain != "" || o.print) {
		return datapath.Inst{}, usagef("--out - writes D's raw bytes to standard output; --print and --explain would mix text into them (write D to a file instead)")
	}
	if o.batch < 1 {
		return datapath.Inst{}, usagef("--batch must be at least 1")
	}
	if o.workers < 0 {
		return datapath.Inst{}, usagef("--workers %d: want 0 (every core) or a positive number", o.workers)
	}
	set := o.setFlags()
	isTC := strings.HasPrefix(strings.TrimSpace(o.inst), "tcgen05")
	if !isTC {
		for _, f := range append([]string{"idesc", "scale-a", "scale-b", "scale-input-d"}, tcgen05Flags...) {
			if set[f] {
				return datapath.Inst{}, usagef("--%s is for tcgen05.mma instructions; %s takes its shape and types from its name", f, o.inst)
			}
		}
	}
	if o.idesc != "" {
		for _, f := range tcgen05Flags {
			if set[f] {
				return datapath.Inst{}, usagef("--idesc gives M, N, the types, negation, saturation and the scale type; drop --%s (or drop --idesc)", f)
			}
		}
		v, err := strconv.ParseUint(strings.TrimSpace(o.idesc), 0, 64)
		if err != nil {
			return datapath.Inst{}, usagef("--idesc %q: want a 32-bit number such as 0x08400490", o.idesc)
		}
		w, note, _ := idescWord(v) // a 64-bit value is CUTLASS's runtime form, as in tcsim desc
		if note != "" {
			fmt.Fprintf(e.stderr, "--idesc: %s\n", note)
		}
		o.tc.IDesc, o.tc.HasIDesc = w, true
	}
	if isTC && o.idesc == "" && reTypedKind.MatchString(o.inst) { // mxf4 and mxf4nvf4 read e2m1
		for _, t := range []struct{ flag, val, what string }{{"atype", o.tc.A, "A"}, {"btype", o.tc.B, "B"}} {
			if t.val == "" {
				return datapath.Inst{}, usagef("--%s is required: the %s element type of %s (or give the whole instruction descriptor with --idesc)", t.flag, t.what, strings.TrimSpace(o.inst))
			}
		}
		if !set["n"] {
			return datapath.Inst{}, usagef("--n is required: N of %s, a multiple of 8 up to 256 (or give the whole instruction descriptor with --idesc)", strings.TrimSpace(o.inst))
		}
	}
	in, err := datapath.ParseInst(o.inst, o.tc)
	if err != nil {
		return in, usagef("%v", err)
	}
	if o.explain != "" {
		if _, _, err := explainTarget(o, in); err != nil {
			return in, err
		}
	}
	if in.Block == nil && (o.sfa != "" || o.sfb != "") {
		return in, usagef("--scale-a and --scale-b are for the block-scaled kinds (kind::mxf8f6f4, mxf4, mxf4nvf4 with .block_scale)")
	}
	if in.Block != nil && (o.sfa == "" || o.sfb == "") {
		return in, usagef("kind::%s needs --scale-a and --scale-b: one .%s byte per %d elements of K, %d per row of A (%d bytes) and per column of B (%d bytes) per problem",
			in.Kind, in.Scale.Name, in.BlockSize, in.ScalesPerRow(), in.M*in.ScalesPerRow(), in.N*in.ScalesPerRow())
	}
	return in, nil
}

// explainTarget parses --explain ROW,COL and checks it and --problem.
func explainTarget(o *mmaOpts, in datapath.Inst) (int, int, error) {
	row, col, err := parseRowCol(o.explain)
	if err != nil {
		return 0, 0, usagef("--explain: %v", err)
	}
	if row >= in.M || col >= in.N || o.problem < 0 || o.problem >= o.batch {
		return 0, 0, usagef("--explain %d,%d --problem %d is outside the %d×%d×%d batch", row, col, o.problem, in.M, in.N, o.batch)
	}
	return row, col, nil
}

// explainMMA prints the datapath trace of one output element, then its
// operands, the exact real result and the result's error in ULPs.
func explainMMA(e *env, o *mmaOpts, in datapath.Inst, pr *mmaProblem) error {
	M, N, K := in.M, in.N, in.K
	row, col, err := explainTarget(o, in)
	if err != nil {
		return err
	}
	ar := pr.a[row*K : (row+1)*K]
	br := pr.b[col*K : (col+1)*K]
	cv := pr.c[row*N+col]
	_ = M
	head := fmt.Sprintf("D[%d][%d] of problem %d", row, col, pr.p)
	tail := ""
	if in.Source != datapath.HardwareVerified {
		tail = "; datapath " + string(in.Source)
	}
	value := func(bits uint64) string {
		switch {
		case in.Family != datapath.FamilyTcgen05:
			return fmt.Sprintf("%#x", bits) // the README's wgmma tour shows this form
		case in.C.IsFloat():
			return fmt.Sprintf("%#x (%s)", bits, in.C.Decode(bits))
		}
		return fmt.Sprintf("%#x (%d)", bits, int32(uint32(bits)))
	}
	for _, n := range in.Notes {
		tail += "\nnote: " + n
	}
	var sar, sbr []uint64
	var d uint64
	switch ev := in.Eval.(type) {
	case nil:
		spr := in.ScalesPerRow()
		sar = pr.sfa[row*spr : (row+1)*spr]
		sbr = pr.sfb[col*spr : (col+1)*spr]
		bits, tr := in.Block.Explain(ar, br, sar, sbr, cv)
		d = bits
		fmt.Fprintf(e.stdout, "%s = %s%s\n%s", head, value(bits), tail, tr)
	case interface {
		Explain(a, b []uint64, c uint64) datapath.Result
	}:
		r := ev.Explain(ar, br, cv)
		d = r.Bits
		fmt.Fprintf(e.stdout, "%s = %s%s\n%s", head, value(r.Bits), tail, r.Trace)
	default:
		d = ev.Dot(ar, br, cv)
		fmt.Fprintf(e.stdout, "%s = %s (integer datapath: the exact sum of products plus C, %s)%s\n",
			head, value(d), map[bool]string{false: "wrapping at 32 bits", true: "saturating (.satfinite)"}[in.Sat], tail)
	}
	printExact(e.stdout, in, ar, br, sar, sbr, cv, d)
	return nil
}

func shapeHint(err error, which string, rows, cols, t int) error {
	return fmt.Errorf("%s operand (%d×%d per problem, %d problem(s)): %w", which, rows, cols, t, err)
}

func scaleHint(err error, which, what string, in datapath.Inst, t int) error {
	rows := in.M
	if which == "B" {
		rows = in.N
	}
	return fmt.Errorf("scale factors of %s (%d %s × %d per row: K = %d in blocks of %d, .scale_vec::%s; %d problem(s)): %w",
		which, rows, what, in.ScalesPerRow(), in.K, in.BlockSize, in.ScaleVec, t, err)
}

func parseRowCol(s string) (int, int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("want ROW,COL, got %q", s)
	}
	r, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
	c, err2 := strconv.Atoi(strings.TrimSpace(parts[1]))
	if err1 != nil || err2 != nil || r < 0 || c < 0 {
		return 0, 0, fmt.Errorf("want two non-negative integers ROW,COL, got %q", s)
	}
	return r, c, nil
}
