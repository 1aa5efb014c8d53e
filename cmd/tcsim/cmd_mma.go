package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/sim/datapath"
)

type mmaOpts struct {
	inst, a, b, c, out, explain string
	batch, problem              int
	tc                          datapath.TCOptions
}

func init() {
	register(&command{
		name:    "mma",
		args:    "--inst NAME --a A.bin --b B.bin [--c C.bin] --out D.bin [--batch T] [--explain ROW,COL]",
		summary: "compute D = A·B + C bit-exactly, as the tensor core does",
		help: `Runs one MMA instruction on the CPU with tcsim's bit-exact datapath.

Files hold raw little-endian element bit patterns (or .npy arrays of unsigned
integers holding them):
  A  M×K, row-major                 B  N×K (each output column's K values contiguous)
  C  M×N, row-major (default +0)    D  M×N, row-major (written to --out)
Element sizes: fp8/s8/u8 1 byte, f16/bf16 2 bytes, f32/tf32/s32 4 bytes (tf32 as
the f32 pattern), e2m1/s4/u4 two per byte (low nibble first), b1 eight per byte.
--batch T: each file holds T independent problems back to back.

Instruction names:
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16      (any N from 8 to 256)
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  tcgen05.mma.cta_group::1.kind::f16 --m 128 --n 256 --atype bf16 --btype bf16 --dtype f32

Every run says whether its datapath is hardware-verified: the sm_90a wgmma
datapath was fitted to an H100 (fixtures/numerics); tcgen05 is modelled from
public evidence only ("not hardware-verified").

--explain ROW,COL prints the datapath trace of one output element (of problem
--problem): the terms and their exponents, the anchor, the bits each term loses
to alignment, the exact sum and the final rounding.`,
		setup: func(fs *flag.FlagSet) any {
			o := &mmaOpts{}
			fs.StringVar(&o.inst, "inst", "", "full PTX instruction `name`")
			fs.StringVar(&o.a, "a", "", "A operand `file` (M×K)")
			fs.StringVar(&o.b, "b", "", "B operand `file` (N×K)")
			fs.StringVar(&o.c, "c", "", "C accumulator `file` (M×N); default all +0")
			fs.StringVar(&o.out, "out", "", "D output `file` (M×N); .npy writes a NumPy array")
			fs.IntVar(&o.batch, "batch", 1, "number of problems `T` in each file")
			fs.StringVar(&o.explain, "explain", "", "print the datapath trace of element `ROW,COL`")
			fs.IntVar(&o.problem, "problem", 0, "which problem of the batch --explain looks at")
			fs.IntVar(&o.tc.M, "m", 128, "tcgen05: M (64, 128, 256)")
			fs.IntVar(&o.tc.N, "n", 0, "tcgen05: N (multiple of 8, up to 256)")
			fs.StringVar(&o.tc.A, "atype", "", "tcgen05: A element type (f16, bf16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8)")
			fs.StringVar(&o.tc.B, "btype", "", "tcgen05: B element type")
			fs.StringVar(&o.tc.D, "dtype", "f32", "tcgen05: D/accumulator type (f32, f16, s32)")
			fs.BoolVar(&o.tc.Saturate, "satfinite", false, "tcgen05 kind::i8: saturate the accumulator")
			return o
		},
		run: runMMA,
	})
}

func runMMA(e *env, opts any, args []string) error {
	o := opts.(*mmaOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q (operands are given with --a, --b, --c)", args[0])
	}
	if o.inst == "" {
		return usagef("--inst is required, e.g. --inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16")
	}
	if o.a == "" || o.b == "" {
		return usagef("--a and --b are required")
	}
	if o.out == "" && o.explain == "" {
		return usagef("--out is required (or use --explain ROW,COL)")
	}
	if o.batch < 1 {
		return usagef("--batch must be at least 1")
	}
	in, err := datapath.ParseInst(o.inst, o.tc)
	if err != nil {
		return usagef("%v", err)
	}
	M, N, K, T := in.M, in.N, in.K, o.batch
	a, err := datapath.ReadOperand(o.a, in.A, T*M*K)
	if err != nil {
		return shapeHint(err, "A", in.M, in.K, T)
	}
	b, err := datapath.ReadOperand(o.b, in.B, T*N*K)
	if err != nil {
		return shapeHint(err, "B", in.N, in.K, T)
	}
	c := make([]uint64, T*M*N)
	if o.c != "" {
		if c, err = datapath.ReadOperand(o.c, in.C, T*M*N); err != nil {
			return shapeHint(err, "C", in.M, in.N, T)
		}
	}
	fmt.Fprintf(e.stderr, "%s: m%dn%dk%d, .%s×.%s→.%s, %d problem(s); datapath %s: %s\n",
		in.Family, M, N, K, in.A.Name, in.B.Name, in.C.Name, T, in.Source, in.Note)

	if o.explain != "" {
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
		if m, ok := in.Eval.(*datapath.Model); ok {
			r := m.Explain(ar, br, cv)
			fmt.Fprintf(e.stdout, "D[%d][%d] of problem %d = %#x\n%s", row, col, p, r.Bits, r.Trace)
		} else {
			fmt.Fprintf(e.stdout, "D[%d][%d] of problem %d = %#x (integer datapath: the exact sum of products plus C, %s)\n",
				row, col, p, in.Eval.Dot(ar, br, cv), map[bool]string{false: "wrapping at 32 bits", true: "saturating (.satfinite)"}[in.Sat])
		}
	}
	if o.out == "" {
		return nil
	}
	d := make([]uint64, 0, T*M*N)
	for p := 0; p < T; p++ {
		pa, pb, pc := a[p*M*K:(p+1)*M*K], b[p*N*K:(p+1)*N*K], c[p*M*N:(p+1)*M*N]
		if m, ok := in.Eval.(*datapath.Model); ok {
			d = append(d, m.MatMul(M, N, K, pa, pb, pc)...)
			continue
		}
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				d = append(d, in.Eval.Dot(pa[i*K:(i+1)*K], pb[j*K:(j+1)*K], pc[i*N+j]))
			}
		}
	}
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
	fmt.Fprintf(e.stderr, "wrote %s: %d×%d .%s elements × %d problem(s), %d bytes\n", o.out, M, N, in.C.Name, T, len(out))
	return nil
}

func shapeHint(err error, which string, rows, cols, t int) error {
	return fmt.Errorf("%s operand (%d×%d per problem, %d problem(s)): %w", which, rows, cols, t, err)
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
