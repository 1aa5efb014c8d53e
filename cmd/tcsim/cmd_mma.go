package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/sim/datapath"
)

type mmaOpts struct {
	inst, a, b, c, out, explain string
	sfa, sfb, idesc             string
	batch, problem              int
	tc                          datapath.TCOptions
	fs                          *flag.FlagSet
}

// tcgen05Flags are the flags that describe a tcgen05 instruction; --idesc
// replaces all but --scale-input-d.
var tcgen05Flags = []string{"m", "n", "atype", "btype", "dtype", "satfinite", "negate-a", "negate-b", "stype"}

func init() {
	register(&command{
		name:    "mma",
		args:    "--inst NAME --a A.bin --b B.bin [--c C.bin] --out D.bin [--batch T] [--explain ROW,COL]",
		summary: "compute D = A·B + C bit-exactly, as the tensor core does",
		help: `Runs one MMA instruction on the CPU with tcsim's bit-exact datapath.

Files hold raw little-endian element bit patterns (or .npy arrays of unsigned
integers holding them, one element per array entry):
  A  M×K, row-major                 B  N×K (each output column's K values contiguous)
  C  M×N, row-major (default +0)    D  M×N, row-major (written to --out)
Element sizes: fp8/s8/u8 1 byte, f16/bf16 2 bytes, f32/tf32/s32 4 bytes (tf32 as
the f32 pattern), e2m3/e3m2 one per byte (low 6 bits; the 2 high bits must be 0),
e2m1/s4/u4 two per byte (low nibble first), b1 eight per byte.
--batch T: each file holds T independent problems back to back.

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
to alignment, the exact sum and the final rounding.`,
		setup: func(fs *flag.FlagSet) any {
			o := &mmaOpts{fs: fs}
			fs.StringVar(&o.inst, "inst", "", "full PTX instruction `name`")
			fs.StringVar(&o.a, "a", "", "A operand `file` (M×K)")
			fs.StringVar(&o.b, "b", "", "B operand `file` (N×K)")
			fs.StringVar(&o.c, "c", "", "C accumulator `file` (M×N); default all +0")
			fs.StringVar(&o.out, "out", "", "D output `file` (M×N); .npy writes a NumPy array")
			fs.IntVar(&o.batch, "batch", 1, "number of problems `T` in each file")
			fs.StringVar(&o.explain, "explain", "", "print the datapath trace of element `ROW,COL`")
			fs.IntVar(&o.problem, "problem", 0, "which problem of the batch --explain looks at")
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
	ops, err := o.readOperands(in)
	if err != nil {
		return err
	}
	M, N, K, T := in.M, in.N, in.K, o.batch
	scales := ""
	if in.Block != nil {
		scales = fmt.Sprintf(", .%s scale factors per %d elements of K (.scale_vec::%s)", in.Scale.Name, in.BlockSize, in.ScaleVec)
	}
	fmt.Fprintf(e.stderr, "%s: m%dn%dk%d, .%s×.%s→.%s%s, %d problem(s); datapath %s: %s\n",
		in.Family, M, N, K, in.A.Name, in.B.Name, in.C.Name, scales, T, in.Source, in.Note)
	for _, n := range in.Notes {
		fmt.Fprintf(e.stderr, "  note: %s\n", n)
	}

	if o.explain != "" {
		if err := explainMMA(e, o, in, ops.a, ops.b, ops.c, ops.sfa, ops.sfb); err != nil {
			return err
		}
	}
	if o.out == "" {
		return nil
	}
	return o.writeOut(e, in, mmaCompute(in, T, ops))
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
	if o.out == "" && o.explain == "" {
		return datapath.Inst{}, usagef("--out is required (or use --explain ROW,COL)")
	}
	if o.batch < 1 {
		return datapath.Inst{}, usagef("--batch must be at least 1")
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
	in, err := datapath.ParseInst(o.inst, o.tc)
	if err != nil {
		return in, usagef("%v", err)
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

// mmaOperands are the operands of a batch of problems.
type mmaOperands struct {
	a, b, c  []uint64
	sfa, sfb []uint64 // block-scaled kinds: the scale factors
}

// readOperands reads A, B, C and the scale factors of the batch, with
// hints about the shapes they must have.
func (o *mmaOpts) readOperands(in datapath.Inst) (ops mmaOperands, err error) {
	M, N, K, T := in.M, in.N, in.K, o.batch
	if ops.a, err = datapath.ReadOperand(o.a, in.A, T*M*K); err != nil {
		return ops, shapeHint(err, "A", in.M, in.K, T)
	}
	if ops.b, err = datapath.ReadOperand(o.b, in.B, T*N*K); err != nil {
		return ops, shapeHint(err, "B", in.N, in.K, T)
	}
	ops.c = make([]uint64, T*M*N)
	if o.c != "" {
		if ops.c, err = datapath.ReadOperand(o.c, in.C, T*M*N); err != nil {
			return ops, shapeHint(err, "C", in.M, in.N, T)
		}
	}
	spr := in.ScalesPerRow()
	if in.Block != nil {
		if ops.sfa, err = datapath.ReadOperand(o.sfa, in.Scale, T*M*spr); err != nil {
			return ops, scaleHint(err, "A", "rows", in, T)
		}
		if ops.sfb, err = datapath.ReadOperand(o.sfb, in.Scale, T*N*spr); err != nil {
			return ops, scaleHint(err, "B", "columns", in, T)
		}
	}
	if in.Family == datapath.FamilyTcgen05 {
		for _, x := range []struct {
			f    *numfmt.Format
			v    []uint64
			what string
		}{{in.A, ops.a, o.a + ": A"}, {in.B, ops.b, o.b + ": B"}, {in.Scale, ops.sfa, o.sfa + ": scale factor"}, {in.Scale, ops.sfb, o.sfb + ": scale factor"}} {
			if x.f == nil {
				continue
			}
			if err := datapath.CheckElems(x.f, x.v, x.what); err != nil {
				return ops, err
			}
		}
	}
	return ops, nil
}

// mmaCompute computes D for each of the T problems.
func mmaCompute(in datapath.Inst, T int, ops mmaOperands) []uint64 {
	M, N, K := in.M, in.N, in.K
	spr := in.ScalesPerRow()
	a, b, c, sfa, sfb := ops.a, ops.b, ops.c, ops.sfa, ops.sfb
	d := make([]uint64, 0, T*M*N)
	for p := 0; p < T; p++ {
		pa, pb, pc := a[p*M*K:(p+1)*M*K], b[p*N*K:(p+1)*N*K], c[p*M*N:(p+1)*M*N]
		switch ev := in.Eval.(type) {
		case nil:
			d = append(d, in.Block.MatMul(M, N, K, pa, pb, sfa[p*M*spr:(p+1)*M*spr], sfb[p*N*spr:(p+1)*N*spr], pc)...)
		case interface {
			MatMul(M, N, K int, a, b, c []uint64) []uint64
		}:
			d = append(d, ev.MatMul(M, N, K, pa, pb, pc)...)
		default:
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					d = append(d, ev.Dot(pa[i*K:(i+1)*K], pb[j*K:(j+1)*K], pc[i*N+j]))
				}
			}
		}
	}
	return d
}

// writeOut writes D to --out (.npy, or raw elements).
func (o *mmaOpts) writeOut(e *env, in datapath.Inst, d []uint64) error {
	M, N, T := in.M, in.N, o.batch
	var out []byte
	if strings.HasSuffix(strings.ToLower(o.out), ".npy") {
		var buf bytes.Buffer
		shape := []int{M, N}
		if T > 1 {
			shape = []int{T, M, N}
		}
		if err := datapath.WriteNpy(&buf, d, max(8, datapath.ElemBits(in.C)), shape...); err != nil {
			return err
		}
		out = buf.Bytes()
	} else {
		out = datapath.Pack(in.C, d)
	}
	if err := os.WriteFile(o.out, out, 0o644); err != nil {
		return err
	}
	verified := ""
	if in.Source != datapath.HardwareVerified {
		verified = " (" + string(in.Source) + ")"
	}
	fmt.Fprintf(e.stderr, "wrote %s: %d×%d .%s elements × %d problem(s), %d bytes%s\n", o.out, M, N, in.C.Name, T, len(out), verified)
	return nil
}

// explainMMA prints the datapath trace of one output element.
func explainMMA(e *env, o *mmaOpts, in datapath.Inst, a, b, c, sfa, sfb []uint64) error {
	M, N, K, T := in.M, in.N, in.K, o.batch
	row, col, err := parseRowCol(o.explain)
	if err != nil {
		return usagef("--explain: %v", err)
	}
	if row >= M || col >= N || o.problem < 0 || o.problem >= T {
		return usagef("--explain %d,%d --problem %d is outside the %d×%d×%d batch", row, col, o.problem, M, N, T)
	}
	p := o.problem
	ar := a[(p*M+row)*K : (p*M+row+1)*K]
	br := b[(p*N+col)*K : (p*N+col+1)*K]
	cv := c[p*M*N+row*N+col]
	head := fmt.Sprintf("D[%d][%d] of problem %d", row, col, p)
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
	switch ev := in.Eval.(type) {
	case nil:
		spr := in.ScalesPerRow()
		sar := sfa[(p*M+row)*spr : (p*M+row+1)*spr]
		sbr := sfb[(p*N+col)*spr : (p*N+col+1)*spr]
		bits, tr := in.Block.Explain(ar, br, sar, sbr, cv)
		fmt.Fprintf(e.stdout, "%s = %s%s\n%s", head, value(bits), tail, tr)
	case interface {
		Explain(a, b []uint64, c uint64) datapath.Result
	}:
		r := ev.Explain(ar, br, cv)
		fmt.Fprintf(e.stdout, "%s = %s%s\n%s", head, value(r.Bits), tail, r.Trace)
	default:
		fmt.Fprintf(e.stdout, "%s = %s (integer datapath: the exact sum of products plus C, %s)%s\n",
			head, value(ev.Dot(ar, br, cv)), map[bool]string{false: "wrapping at 32 bits", true: "saturating (.satfinite)"}[in.Sat], tail)
	}
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
