package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/sim/sfu"
)

// numOpts are the flags of `tcsim num OPCODE VALUE...` (approximate math).
type numApproxOpts struct{ explain bool }

func init() {
	c := commands["num"]
	c.args = "SUBCOMMAND ... | OPCODE VALUE... [--explain]"
	c.help += `

With an approximate-math opcode instead of a subcommand, it evaluates the
instruction as the H100 does (package sim/sfu: the instructions ptxas emits
and the special function unit's table interpolation), bit-exact:

  tcsim num ex2.approx.ftz.f32 0.37 --explain
  tcsim num div.full.f32 1 3
  tcsim num tanh.approx.f16x2 0.5,-2        (low lane first)
  tcsim num rsqrt.approx.f64 2

A VALUE is a number (rounded to nearest into the operand's type) or raw
bits in hex. --explain lists every step: each SASS instruction with its
operands and result, and inside each MUFU the fixed-point operand, the table
interval, its coefficients and the exact sum. 'tcsim verify approx --help'
says how the model was checked. The opcodes: ` + strings.Join(approxOps(), ", ") + `.`
	c.setup = func(fs *flag.FlagSet) any {
		o := &numApproxOpts{}
		fs.BoolVar(&o.explain, "explain", false, "with an approximate-math OPCODE, show the steps of the model")
		return o
	}
	group := groupRun("num")
	c.run = func(e *env, opts any, args []string) error {
		if len(args) > 0 && sfu.Lookup(args[0]) != nil {
			return runNumApprox(e, opts.(*numApproxOpts), args)
		}
		if len(args) > 0 && strings.Contains(args[0], ".approx") || len(args) > 0 && strings.HasPrefix(args[0], "div.") {
			return usagef("%q is not an approximate-math opcode tcsim models (%s)", args[0], strings.Join(approxOps(), ", "))
		}
		return group(e, opts, args)
	}
}

func approxOps() []string {
	var out []string
	for _, f := range sfu.Forms() {
		out = append(out, f.Op)
	}
	return out
}

// approxType is the operand format and lane count of a form.
func approxType(f *sfu.Form) (*numfmt.Format, int) {
	switch f.Kind {
	case sfu.Unary16, sfu.Unary16x2:
		ft := numfmt.F16
		if f.Half() == "bf16" {
			ft = numfmt.BF16
		}
		if f.Kind == sfu.Unary16x2 {
			return ft, 2
		}
		return ft, 1
	case sfu.Unary64:
		return numfmt.F64, 1
	}
	return numfmt.F32, 1
}

// parseApproxOperand reads hex bits or numbers (one per lane, low lane first).
func parseApproxOperand(name string, ft *numfmt.Format, lanes int, s string) (uint64, []string, error) {
	t := strings.ToLower(s)
	width := ft.Bits * lanes
	if strings.HasPrefix(t, "0x") && !strings.ContainsAny(t, ".p") {
		b, err := parseBits(t)
		if err != nil || width < 64 && b>>width != 0 {
			return 0, nil, usagef("operand %s: %q is not %d-bit hex bits", name, s, width)
		}
		return b, nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != lanes {
		return 0, nil, usagef("operand %s is %s%s: give %d comma-separated numbers (low lane first) or hex bits", name, ft.Name, map[bool]string{true: "x2"}[lanes == 2], lanes)
	}
	var out uint64
	var notes []string
	for k, p := range parts {
		v, exact, err := numfmt.ParseNumber(strings.TrimSpace(p))
		if err != nil {
			return 0, nil, usagef("operand %s: %v", name, err)
		}
		b, info := ft.Encode(v, numfmt.RN, numfmt.Opts{})
		if !exact || info.Inexact {
			notes = append(notes, fmt.Sprintf("%s rounds to %s %s", p, ft.Name, fmtBits(ft, b)))
		}
		out |= b << (ft.Bits * k)
	}
	return out, notes, nil
}

// approxValue prints bits of the form's result or operand type.
func approxValue(ft *numfmt.Format, lanes int, b uint64) string {
	dec := func(x uint64) string {
		v := ft.Decode(x)
		if d := v.Decimal(); len(d) <= 40 {
			return d
		}
		return fmt.Sprintf("%.17g", v.Float64())
	}
	if lanes == 1 {
		return fmt.Sprintf("%s (%s)", fmtBits(ft, b), dec(b))
	}
	var parts []string
	for k := 0; k < lanes; k++ {
		x := b >> (ft.Bits * k) & (1<<ft.Bits - 1)
		parts = append(parts, fmt.Sprintf("%s (%s)", fmtBits(ft, x), dec(x)))
	}
	return fmt.Sprintf("%#08x = low %s, high %s", b, parts[0], parts[1])
}

func runNumApprox(e *env, o *numApproxOpts, args []string) error {
	f := sfu.Lookup(args[0])
	ft, lanes := approxType(f)
	want := 1
	if f.Kind == sfu.Binary32 {
		want = 2
	}
	if len(args)-1 != want {
		return usagef("%s takes %d operand(s), got %d", f.Op, want, len(args)-1)
	}
	var ops [2]uint64
	w := e.stdout
	fmt.Fprintf(w, "%s", f.Op)
	for i := 0; i < want; i++ {
		name := string(rune('a' + i))
		b, notes, err := parseApproxOperand(name, ft, lanes, args[1+i])
		if err != nil {
			return err
		}
		ops[i] = b
		fmt.Fprintf(w, "\n  %s       %s", name, approxValue(ft, lanes, b))
		for _, n := range notes {
			fmt.Fprintf(w, "  [%s]", n)
		}
	}
	r, steps := f.Explain(ops[0], ops[1])
	fmt.Fprintf(w, "\n  result  %s\n", approxValue(ft, lanes, r))
	fmt.Fprintf(w, "  model   %s; ptxas (sm_90a): %s\n", approxStatus(f, ops[0], ops[1]), f.Lowering)
	if f.Exact {
		for _, c := range f.Checks() {
			if c.Contains(ops[0], ops[1]) {
				fmt.Fprintf(w, "  checked on the %s on %s, %s among them\n", c.GPU, c.Coverage, approxOperands(f))
			} else {
				fmt.Fprintf(w, "  checked on the %s on %s; not on %s\n", c.GPU, c.Coverage, approxOperands(f))
			}
		}
	}
	ref := sfu.Reference(f, ops[0], ops[1])
	if ref == r {
		fmt.Fprintf(w, "  float64 the same bits\n")
	} else {
		u, _ := f.ULP(r, ref)
		fmt.Fprintf(w, "  float64 %s (the float64 approximation differs by %d ulp)\n", approxValue(ft, lanes, ref), u)
	}
	if o.explain {
		fmt.Fprintln(w, "steps:")
		for _, s := range steps {
			fmt.Fprintf(w, "  %-12s %s\n", s.Unit, s.Text)
		}
	}
	return nil
}

// approxStatus is the model's status for one input: "bit-exact" only
// where a GPU was checked on it.
func approxStatus(f *sfu.Form, a, b uint64) string {
	if f.Exact && !f.MeasuredInput(a, b) {
		return "not checked on " + approxOperands(f) + " (bit-exact on every input checked)"
	}
	return f.Status()
}

func approxOperands(f *sfu.Form) string {
	if f.Kind == sfu.Binary32 {
		return "these operands"
	}
	return "this operand"
}
