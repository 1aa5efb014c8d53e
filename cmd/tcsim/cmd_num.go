package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tcsim/tcsim/isa/numfmt"
)

func init() {
	register(&command{
		name: "num", args: "SUBCOMMAND ...", summary: "number formats and cvt: decode, encode, convert, tables, GPU probes",
		help: `Exact number formats (f64 f32 tf32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 ue4m3
s2f6 and the integers) and a bit-exact model of PTX cvt. Run a subcommand.`,
		run: groupRun("num"),
	})
	register(&command{
		name: "num formats", args: "[--long]", summary: "list the number formats and their parameters",
		help: `Lists every format with its field widths, bias, largest finite value, smallest
normal and subnormal values (to 6 significant digits), and whether it has an
infinity and a NaN. --long gives the exact values and the bit patterns of the
special values (a wide table); 'tcsim num decode FORMAT BITS' explains one
pattern.`,
		setup: func(fs *flag.FlagSet) any {
			return fs.Bool("long", false, "exact values and special-value patterns (wide)")
		},
		run: runNumFormats,
	})
	register(&command{
		name: "num decode", args: "FORMAT BITS", summary: "decode a bit pattern exactly",
		help: `Shows a bit pattern's fields, class and exact value.

  tcsim num decode e4m3 0x7e
  tcsim num decode f32 0x3f800001
  tcsim num decode tf32 0x3f802000     (tf32 takes an f32 pattern; bits 12..0 are ignored)`,
		run: runNumDecode,
	})
	register(&command{
		name: "num encode", args: "FORMAT VALUE [--rn|--rz|--rm|--rp|--rna|--rni|...] [--satfinite] [--relu] [--sat] [--ftz]",
		summary: "round an exact number into a format, showing the rounding step",
		help: `Rounds VALUE (a decimal like 3.3 or -0, a fraction like 1/3, a hex float like
0x1.8p3, inf or nan) into FORMAT and explains the choice: the two neighbours
that bracket the value, whether it was a tie, and why one was chosen. Values
of more than 24 digits are shown to 17 significant digits with their exact
binary form (--exact prints every decimal digit). An input beyond every
format (1e-1000000000, 1e1000000000) still rounds correctly in every mode:
a tiny positive value rounds up to the smallest subnormal under --rp.`,
		setup: func(fs *flag.FlagSet) any {
			o := &numOpts{}
			o.declare(fs)
			fs.BoolVar(&o.exact, "exact", false, "print exact decimal expansions, however long")
			return o
		},
		run: runNumEncode,
	})
	register(&command{
		name: "num cvt", args: "OPCODE OPERAND...",
		summary: "run the bit-exact cvt model on operands",
		help: `Runs a cvt opcode on its source operands and explains each lane.

OPCODE is the instruction without operands, e.g. cvt.rn.satfinite.e4m3x2.f32.
Operands come in PTX order (a, then b, e, f, then rbits, then scale-factor).
An operand is raw bits in hex (0x3f800000), or a number (1.3, -inf) that is
first rounded to nearest into the operand's type; for a packed operand such
as f16x2 give one number per lane separated by commas, lane a first.

  tcsim num cvt cvt.rn.satfinite.e4m3x2.f32 448 -1e9
  tcsim num cvt cvt.rn.f16x2.e4m3x2 0x7e80
  tcsim num cvt cvt.rni.s32.f32 2.5`,
		run: runNumCvt,
	})
	register(&command{
		name: "num table", args: "FORMAT", summary: "list every value of a format of at most 8 bits",
		help: "Lists every bit pattern of a small format (e2m1, e2m3, e3m2, e4m3, e5m2, ue8m0, ue4m3, s2f6, s4, u4, s8, u8) with its class and exact value.",
		run:  runNumTable,
	})
	register(&command{
		name: "num forms", args: "[REGEXP]", summary: "list the legal cvt opcodes with their PTX and target requirements",
		help: `Lists every legal cvt opcode of the table the validator and simulator share,
with the PTX ISA version and targets it needs and whether the H100 (sm_90a)
runs it. REGEXP filters by opcode text.`,
		setup: func(fs *flag.FlagSet) any {
			return fs.Bool("syntax", false, "list the forms' ISA synopses instead of every opcode")
		},
		run: runNumForms,
	})
}

type numOpts struct {
	rn, rz, rm, rp, rna       bool
	rni, rzi, rmi, rpi        bool
	satfinite, relu, sat, ftz bool
	exact                     bool // num encode: full decimal expansions
}

func (o *numOpts) declare(fs *flag.FlagSet) {
	for _, m := range []struct {
		p    *bool
		name string
	}{{&o.rn, "rn"}, {&o.rz, "rz"}, {&o.rm, "rm"}, {&o.rp, "rp"}, {&o.rna, "rna"}, {&o.rni, "rni"}, {&o.rzi, "rzi"}, {&o.rmi, "rmi"}, {&o.rpi, "rpi"}} {
		fs.BoolVar(m.p, m.name, false, "round ."+m.name)
	}
	fs.BoolVar(&o.satfinite, "satfinite", false, "overflow and infinity give MAX_NORM")
	fs.BoolVar(&o.relu, "relu", false, "negative results give +0")
	fs.BoolVar(&o.sat, "sat", false, "clamp to [0, 1]")
	fs.BoolVar(&o.ftz, "ftz", false, "flush subnormal results to zero")
}

func (o *numOpts) roundMode() (numfmt.Mode, error) {
	var got []numfmt.Mode
	for m, set := range map[numfmt.Mode]bool{numfmt.RN: o.rn, numfmt.RZ: o.rz, numfmt.RM: o.rm, numfmt.RP: o.rp, numfmt.RNA: o.rna,
		numfmt.RNI: o.rni, numfmt.RZI: o.rzi, numfmt.RMI: o.rmi, numfmt.RPI: o.rpi} {
		if set {
			got = append(got, m)
		}
	}
	switch len(got) {
	case 0:
		return numfmt.RN, nil
	case 1:
		return got[0], nil
	}
	return 0, usagef("give one rounding mode")
}

func parseBits(s string) (uint64, error) {
	t := strings.ReplaceAll(strings.ToLower(s), "_", "")
	switch {
	case strings.HasPrefix(t, "0x"):
		return strconv.ParseUint(t[2:], 16, 64)
	case strings.HasPrefix(t, "0b"):
		return strconv.ParseUint(t[2:], 2, 64)
	}
	return strconv.ParseUint(t, 10, 64)
}

func hexWidth(f *numfmt.Format) int { return max(1, (f.Container+3)/4) }

func fmtBits(f *numfmt.Format, b uint64) string { return fmt.Sprintf("0x%0*x", hexWidth(f), b) }

func runNumFormats(e *env, opts any, args []string) error {
	if len(args) > 0 {
		return usagef("num formats takes no arguments")
	}
	long := *opts.(*bool)
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	// MIN_SUBNORM: the short table fits 80 columns
	fmt.Fprintln(w, "FORMAT\tBITS\tS.E.M\tBIAS\tMAX_NORM\tMIN_NORMAL\tMIN_SUBNORM\tINF\tNAN")
	for _, f := range numfmt.Formats() {
		row := formatRow(f, long)
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	return w.Flush()
}

// formatRow is one line of 'num formats': short values, or (long) exact
// values and the bit patterns of the special values.
func formatRow(f *numfmt.Format, long bool) []string {
	val := func(b uint64) string {
		v := f.Decode(b)
		if long {
			return v.String()
		}
		if d := v.Decimal(); len(d) <= 10 {
			return d
		}
		return v.Sci(6)
	}
	if f.Kind != numfmt.FloatKind {
		return []string{f.Name, fmt.Sprint(f.Bits), kindName(f), "-", val(f.MaxFinite(false)), "-", "-", "no", "no"}
	}
	minNormal := uint64(1) << f.MantBits
	if f.NoSubnormal {
		minNormal = 0
	}
	sub := "-"
	if !f.NoSubnormal {
		sub = val(1 << f.Shift)
	}
	inf, nan := "no", "no"
	if f.HasInf {
		inf = "yes"
		if long {
			b, _ := f.Inf(false)
			inf = fmtBits(f, b)
		}
	}
	if b, ok := f.CanonicalNaN(); ok {
		switch {
		case f.NaN == numfmt.IEEENaN && long:
			nan = "exp all ones, mantissa≠0"
		case f.NaN == numfmt.IEEENaN:
			nan = "ieee"
		default:
			nan = fmtBits(f, b)
		}
	}
	s := 0
	if f.Signed {
		s = 1
	}
	return []string{f.Name, fmt.Sprint(f.Bits), fmt.Sprintf("%d.%d.%d", s, f.ExpBits, f.MantBits), fmt.Sprint(f.Bias),
		val(f.MaxFinite(false)), val(minNormal << f.Shift), sub, inf, nan}
}

func kindName(f *numfmt.Format) string {
	switch f.Kind {
	case numfmt.IntKind:
		if f.Signed {
			return "int"
		}
		return "uint"
	case numfmt.FixedKind:
		return "fixed"
	case numfmt.BitKind:
		return "bit"
	}
	return "float"
}

func runNumDecode(e *env, _ any, args []string) error {
	if len(args) != 2 {
		return usagef("want FORMAT BITS, e.g. 'tcsim num decode e4m3 0x7e'")
	}
	f, err := numfmt.Lookup(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	b, err := parseBits(args[1])
	if err != nil {
		return usagef("bad bit pattern %q: want hex (0x7e), binary (0b0111) or decimal", args[1])
	}
	if f.Container < 64 && b>>f.Container != 0 {
		return fmt.Errorf("%s is %d bits wide; %#x has bits above bit %d", f.Name, f.Container, b, f.Container-1)
	}
	describeBits(e.stdout, f, b)
	return nil
}

func describeBits(w io.Writer, f *numfmt.Format, b uint64) {
	v := f.Decode(b)
	fmt.Fprintf(w, "%s %s", f.Name, fmtBits(f, b))
	if f.Container <= 16 || f.Kind == numfmt.FloatKind {
		fmt.Fprintf(w, " = 0b%s", fieldBits(f, b))
	}
	fmt.Fprintln(w)
	if f.Kind == numfmt.FloatKind {
		s, ex, m := f.Fields(b)
		if f.Signed {
			sign := "+"
			if s == 1 {
				sign = "-"
			}
			fmt.Fprintf(w, "  sign      %d (%s)\n", s, sign)
		}
		ed := fmt.Sprintf("%0*b = %d", f.ExpBits, ex, ex)
		switch {
		case v.Class == numfmt.Normal && f.NoSubnormal:
			ed += fmt.Sprintf(", unbiased %d - %d = %d", ex, f.Bias, int(ex)-f.Bias)
		case v.Class == numfmt.Normal:
			ed += fmt.Sprintf(", unbiased %d - %d = %d", ex, f.Bias, int(ex)-f.Bias)
		case v.Class == numfmt.Subnormal:
			ed += fmt.Sprintf(" (subnormal: exponent 1 - %d = %d, no implicit 1)", f.Bias, 1-f.Bias)
		}
		fmt.Fprintf(w, "  exponent  %s\n", ed)
		if f.MantBits > 0 {
			md := fmt.Sprintf("%0*b", f.MantBits, m)
			switch v.Class {
			case numfmt.Normal:
				md += fmt.Sprintf("  (significand 1.%s)", md)
			case numfmt.Subnormal:
				md += fmt.Sprintf("  (significand 0.%s)", md)
			case numfmt.NaN:
				md += "  (NaN payload)"
			}
			fmt.Fprintf(w, "  mantissa  %s\n", md)
		}
		if f.Shift > 0 {
			fmt.Fprintf(w, "  ignored   bits %d..0 = %#x\n", f.Shift-1, b&(1<<f.Shift-1))
		}
	}
	fmt.Fprintf(w, "  class     %s\n", v.Class)
	if v.IsFinite() && v.Sig != 0 {
		fmt.Fprintf(w, "  value     %s = %s\n", v.Decimal(), v.Binary(-1))
		n := v
		for n.Sig != 0 && n.Sig&1 == 0 {
			n.Sig >>= 1
			n.Exp++
		}
		sign := ""
		if n.Neg {
			sign = "-"
		}
		fmt.Fprintf(w, "            = %s%d × 2^%d\n", sign, n.Sig, n.Exp)
	} else {
		fmt.Fprintf(w, "  value     %s\n", v.Decimal())
	}
	if f.Kind == numfmt.FloatKind && v.IsFinite() && v.Exact64() {
		fmt.Fprintf(w, "  float64   %v\n", v.Float64())
	}
}

// fieldBits writes the pattern with its fields separated by underscores.
func fieldBits(f *numfmt.Format, b uint64) string {
	if f.Kind != numfmt.FloatKind {
		return fmt.Sprintf("%0*b", f.Container, b)
	}
	s, ex, m := f.Fields(b)
	var parts []string
	if pad := f.Container - f.Bits - f.Shift; pad > 0 {
		parts = append(parts, fmt.Sprintf("%0*b", pad, b>>(f.Bits+f.Shift)))
	}
	if f.Signed {
		parts = append(parts, fmt.Sprint(s))
	}
	parts = append(parts, fmt.Sprintf("%0*b", f.ExpBits, ex))
	if f.MantBits > 0 {
		parts = append(parts, fmt.Sprintf("%0*b", f.MantBits, m))
	}
	if f.Shift > 0 {
		parts = append(parts, fmt.Sprintf("%0*b", f.Shift, b&(1<<f.Shift-1)))
	}
	return strings.Join(parts, "_")
}

func runNumEncode(e *env, opts any, args []string) error {
	o := opts.(*numOpts)
	if len(args) != 2 {
		return usagef("want FORMAT VALUE, e.g. 'tcsim num encode e4m3 3.3 --rn --satfinite'")
	}
	f, err := numfmt.Lookup(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	v, exact, err := numfmt.ParseNumber(args[1])
	if err != nil {
		return usagef("%v", err)
	}
	m, err := o.roundMode()
	if err != nil {
		return err
	}
	b, info := f.Encode(v, m, numfmt.Opts{Satfinite: o.satfinite, Relu: o.relu, Sat: o.sat, FTZ: o.ftz})
	w := e.stdout
	lit := shortLiteral(args[1])
	fmt.Fprintf(w, "encode %s as %s, rounding .%s", lit, f.Name, m)
	for _, x := range []struct {
		on   bool
		name string
	}{{o.satfinite, "satfinite"}, {o.relu, "relu"}, {o.sat, "sat"}, {o.ftz, "ftz"}} {
		if x.on {
			fmt.Fprintf(w, " .%s", x.name)
		}
	}
	fmt.Fprintln(w)
	show := func(x numfmt.Value) string {
		if o.exact {
			return x.Decimal()
		}
		return x.String()
	}
	e2 := v.Log2()
	switch {
	case exact && (o.exact || len(v.Decimal()) <= 24):
		fmt.Fprintf(w, "  input     %s (exact: %s)\n", v.Decimal(), v.Binary(-1))
	case exact:
		fmt.Fprintf(w, "  input     %s (exact)\n", v.String())
	case v.IsFinite() && (e2 == numfmt.FarExp-1 || e2 == -numfmt.FarExp-1):
		side := "above every format's largest finite value"
		if e2 < 0 {
			side = "below every format's smallest subnormal"
		}
		fmt.Fprintf(w, "  input     %s is beyond 2^±%d, far %s\n", lit, numfmt.ExactRange, side)
	case v.IsFinite() && (e2 > numfmt.ExactRange || e2 < -numfmt.ExactRange):
		fmt.Fprintf(w, "  input     %s is beyond 2^±%d, far outside every format; approximately %s\n", lit, numfmt.ExactRange, v.Sci(17))
	default:
		fmt.Fprintf(w, "  input     %s is not a binary fraction; it lies strictly inside (%s, next 62-bit value)\n", lit, v.String())
	}
	switch {
	case info.Overflow && v.IsFinite():
		mx := f.MaxFinite(false)
		fmt.Fprintf(w, "  overflow  beyond the largest finite value of %s, %s (%s)\n", f.Name, show(f.Decode(mx)), fmtBits(f, mx))
	case info.Inexact && (info.Down != info.Up):
		down := withSign(info.Down, v.Neg)
		up := withSign(info.Up, v.Neg)
		fmt.Fprintf(w, "  below     %s\n", neighbour(f, down, show))
		fmt.Fprintf(w, "  above     %s\n", neighbour(f, up, show))
		if info.Tie {
			fmt.Fprintln(w, "  tie       the input is exactly halfway")
		}
	}
	fmt.Fprintf(w, "  step      %s\n", info.Why())
	fmt.Fprintf(w, "  result    %s = %s", fmtBits(f, b), show(f.Decode(b)))
	var flags []string
	for _, x := range []struct {
		on   bool
		name string
	}{{info.Inexact, "inexact"}, {info.Overflow, "overflow"}, {info.Tiny, "tiny"}, {info.Saturated, "saturated"}, {info.Flushed, "flushed"}} {
		if x.on {
			flags = append(flags, x.name)
		}
	}
	if len(flags) > 0 {
		fmt.Fprintf(w, "  [%s]", strings.Join(flags, " "))
	}
	fmt.Fprintln(w)
	return nil
}

// shortLiteral shows a number as the user typed it, shortened in the
// middle beyond 60 characters.
func shortLiteral(s string) string {
	if len(s) <= 60 {
		return s
	}
	return fmt.Sprintf("%s…(%d characters)…%s", s[:30], len(s)-45, s[len(s)-15:])
}

func withSign(v numfmt.Value, neg bool) numfmt.Value {
	v.Neg = neg
	return v
}

// neighbour describes a value that brackets the input, as show prints it,
// with its bits.
func neighbour(f *numfmt.Format, v numfmt.Value, show func(numfmt.Value) string) string {
	b, _ := f.Encode(v, numfmt.RZ, numfmt.Opts{})
	return show(v) + "  (" + fmtBits(f, b) + ")"
}

// parseSpecArg parses a cvt opcode from the command line: an opcode that
// does not parse is a usage error; a well-formed one that is not a legal
// form is a failure (exit 1), the answer to "is this legal?".
func parseSpecArg(text string) (*numfmt.Spec, error) {
	s, err := numfmt.ParseSpec(text)
	var se *numfmt.SpecError
	if errors.As(err, &se) && se.Syntax {
		return nil, usagef("%v", err)
	}
	return s, err
}

// parseOperand reads a cvt operand: hex or binary bits, or numbers (one
// per lane, comma-separated) rounded to nearest into the operand's type.
func parseOperand(op numfmt.Operand, s string) (uint64, string, error) {
	t := strings.ToLower(s)
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0b") || op.Type == nil {
		b, err := parseBits(t)
		if err != nil {
			return 0, "", usagef("operand %s: bad bits %q", op.Name, s)
		}
		if op.Bits < 64 && b>>op.Bits != 0 {
			return 0, "", usagef("operand %s: %#x does not fit in %d bits", op.Name, b, op.Bits)
		}
		return b, "", nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != op.Type.Lanes {
		return 0, "", usagef("operand %s is %s: give %d comma-separated numbers or hex bits", op.Name, op.Type.Name, op.Type.Lanes)
	}
	lanes := make([]uint64, len(parts))
	var notes []string
	for i, p := range parts {
		v, exact, err := numfmt.ParseNumber(p)
		if err != nil {
			return 0, "", usagef("operand %s: %v", op.Name, err)
		}
		b, info := op.Type.Elem.Encode(v, numfmt.RN, numfmt.Opts{})
		if !exact || info.Inexact {
			notes = append(notes, fmt.Sprintf("%s rounds to %s %s = %s", p, op.Type.Elem.Name, fmtBits(op.Type.Elem, b), op.Type.Elem.Decode(b).Decimal()))
		}
		lanes[i] = b
	}
	if op.Type.Lanes == 1 {
		return lanes[0], strings.Join(notes, "; "), nil
	}
	return op.Type.Pack(lanes), strings.Join(notes, "; "), nil
}

func runNumCvt(e *env, _ any, args []string) error {
	if len(args) < 1 {
		return usagef("want OPCODE OPERAND..., e.g. 'tcsim num cvt cvt.rn.satfinite.e4m3x2.f32 448 -1e9'")
	}
	s, err := parseSpecArg(args[0])
	if err != nil {
		return err
	}
	ops := s.Inputs()
	if len(args)-1 != len(ops) {
		var names []string
		for _, o := range ops {
			names = append(names, fmt.Sprintf("%s (%d bits)", o.Name, o.Bits))
		}
		return usagef("%s takes %d operand(s): %s", s, len(ops), strings.Join(names, ", "))
	}
	in := make([]uint64, len(ops))
	w := e.stdout
	fmt.Fprintln(w, s)
	for i, o := range ops {
		b, note, err := parseOperand(o, args[i+1])
		if err != nil {
			return err
		}
		in[i] = b
		fmt.Fprintf(w, "  %-5s = 0x%0*x", o.Name, (o.Bits+3)/4, b)
		if note != "" {
			fmt.Fprintf(w, "   (%s)", note)
		}
		fmt.Fprintln(w)
	}
	out, lanes, err := numfmt.CvtTrace(s, in...)
	if err != nil {
		return err
	}
	names := []string{"a", "b", "e", "f"}
	for _, l := range lanes {
		label := "lane"
		if s.Dst.Lanes > 1 {
			label = "lane " + names[l.Lane]
		}
		fmt.Fprintf(w, "%s: %s %s = %s", label, l.Src.Name, fmtBits(l.Src, l.In), l.InValue.Decimal())
		if l.InValue.IsFinite() && l.InValue.Sig != 0 {
			fmt.Fprintf(w, " (%s)", l.InValue.Binary(-1))
		}
		fmt.Fprintln(w)
		if l.FlushedInput {
			fmt.Fprintln(w, "  .ftz: the subnormal input is flushed to zero")
		}
		if l.ScaleExp != 0 {
			fmt.Fprintf(w, "  scaled by 2^%d\n", l.ScaleExp)
		}
		if l.Info.Inexact && l.Info.Down != l.Info.Up {
			fmt.Fprintf(w, "  neighbours %s | %s\n", withSign(l.Info.Down, l.InValue.Neg).Decimal(), withSign(l.Info.Up, l.InValue.Neg).Decimal())
		}
		fmt.Fprintf(w, "  %s\n", l.Info.Why())
		fmt.Fprintf(w, "  -> %s %s = %s\n", l.Dst.Name, fmtBits(l.Dst, l.Out), l.OutValue.Decimal())
	}
	fmt.Fprintf(w, "d = 0x%0*x\n", (s.OutBits()+3)/4, out)
	if err := s.SupportedOn("sm_90a", 90); err != nil {
		fmt.Fprintf(w, "note: not on the H100 (%v): not hardware-verified\n", err)
	}
	return nil
}

func runNumTable(e *env, _ any, args []string) error {
	if len(args) != 1 {
		return usagef("want FORMAT, e.g. 'tcsim num table e2m1'")
	}
	f, err := numfmt.Lookup(args[0])
	if err != nil {
		return usagef("%v", err)
	}
	if f.Bits > 8 {
		return usagef("%s has %d bits: too many patterns for a table (use 'tcsim num decode %s BITS')", f.Name, f.Bits, f.Name)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "BITS\tFIELDS\tCLASS\tVALUE")
	for i := uint64(0); i < 1<<f.Bits; i++ {
		b := i << f.Shift
		v := f.Decode(b)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", fmtBits(f, b), fieldBits(f, b), v.Class, v.Decimal())
	}
	return w.Flush()
}

func runNumForms(e *env, opts any, args []string) error {
	syntax := *opts.(*bool)
	var re *regexp.Regexp
	if len(args) > 1 {
		return usagef("want at most one REGEXP")
	}
	if len(args) == 1 {
		var err error
		if re, err = regexp.Compile(args[0]); err != nil {
			return usagef("bad regexp: %v", err)
		}
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	if syntax {
		fmt.Fprintln(w, "FORM\tOPCODES")
		for _, f := range numfmt.Forms() {
			if re != nil && !re.MatchString(f.Syntax) {
				continue
			}
			fmt.Fprintf(w, "%s\t%d\n", f.Syntax, len(f.Expand()))
		}
		return w.Flush()
	}
	fmt.Fprintln(w, "OPCODE\tPTX\tTARGETS\tH100")
	n := 0
	for _, s := range numfmt.AllSpecs() {
		if re != nil && !re.MatchString(s.String()) {
			continue
		}
		n++
		ptx, sm, targets := s.Requirements()
		tg := "any"
		if sm > 0 {
			tg = fmt.Sprintf("sm_%d+", sm)
		}
		if targets != nil {
			tg = strings.Join(targets, ",")
		}
		h := "yes"
		if s.SupportedOn("sm_90a", 90) != nil {
			h = "no (not hardware-verified)"
		}
		fmt.Fprintf(w, "%s\t%d.%d\t%s\t%s\n", s, ptx/10, ptx%10, tg, h)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d opcodes\n", n)
	return nil
}
