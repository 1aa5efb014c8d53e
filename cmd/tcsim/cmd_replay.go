package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/sim/sfu"
)

func init() {
	register(&command{
		name:    "replay",
		args:    "CASE_DIR [--ptx VARIANT.ptx] [--check] [--trace FILE] [--schedule S] [--first N]",
		summary: "run a recorded or captured case on the CPU and compare every output with what the GPU wrote",
		help: `replay simulates a fixture case (one written by 'tcsim capture' or 'tcsim
record') on the CPU and compares every buffer, bit for bit, with what the GPU
left in it:

  - for each output: how many elements are bit-identical, the first that
    differ with their coordinates (when the tensor's shape is known), and the
    largest difference in units in the last place (ULP) for float types;
  - a captured buffer that the GPU did not change must be unchanged by the
    simulator too;
  - the instructions the simulator computed approximately (ex2.approx,
    rsqrt.approx, ...), which are not bit-exact.

The case is checked against its manifest first: a missing or edited file is
an error that names it.

  --ptx FILE       run FILE's kernel instead of the case's, with the case's
                   launch and inputs, and compare its outputs with what the
                   case's kernel wrote on the GPU: a variant (an edited or
                   planted-bug copy), labelled as one; the case is still
                   checked against its manifest, FILE is not part of it
  --check          also run the hazard checker (as tcsim run --check)
  --trace FILE     write a JSON-lines trace (--trace-values adds register values)
  --schedule S     lazy (default), latest, eager or random (--seed N)

To step through a case: tcsim tui --case DIR. To run it with other flags:
tcsim run --case DIR ...

Exit status: 0 only when every output is bit-identical (and, with --check,
no hazard is an error or a warning); 1 otherwise (a case whose files do not
match its manifest included); 2 for a bad command line, or a directory that
is not a case.`,
		setup: func(fs *flag.FlagSet) any {
			o := &replayOpts{}
			fs.BoolVar(&o.check, "check", false, "run the hazard checker")
			fs.StringVar(&o.ptx, "ptx", "", "run the kernel of `FILE` (a variant) instead of the case's, and compare with the case's GPU outputs")
			fs.StringVar(&o.trace, "trace", "", "write a JSON-lines trace to `FILE`")
			fs.BoolVar(&o.traceValues, "trace-values", false, "include written register values in the trace")
			fs.StringVar(&o.schedule, "schedule", "lazy", "`mode`: lazy, latest, eager or random")
			fs.Uint64Var(&o.seed, "seed", 1, "seed of the random schedule")
			fs.IntVar(&o.workers, "workers", 0, "CTAs simulated at once (0: every core)")
			fs.Int64Var(&o.maxSteps, "max-steps", 0, "stop after `N` warp-instructions (0: 2^32)")
			fs.DurationVar(&o.timeout, "timeout", 0, "stop after `D` of wall-clock time, e.g. 30s (0: no limit)")
			fs.IntVar(&o.first, "first", 8, "list at most `N` differing elements per buffer")
			fs.BoolVar(&o.quiet, "q", false, "print only differences and hazards")
			return o
		},
		run: runReplay,
	})
}

type replayOpts struct {
	check, traceValues, quiet bool
	trace, schedule, ptx      string
	seed                      uint64
	workers, first            int
	maxSteps                  int64
	timeout                   time.Duration
}

// loadCase loads a case directory with a message that says what is wrong
// with a damaged one.
func loadCase(dir string) (*fixtures.Case, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%s: not a case directory (want the directory tcsim capture or tcsim record wrote): %w", dir, err)
	} else if !st.IsDir() {
		return nil, usagef("%s: not a case directory (want the directory tcsim capture or tcsim record wrote)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, fixtures.ManifestFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("%s: not a case directory: no %s (want the directory tcsim capture or tcsim record wrote)", dir, fixtures.ManifestFile)
	}
	c, err := fixtures.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("the case cannot be trusted: %w", err)
	}
	return c, nil
}

func runReplay(e *env, opts any, args []string) error {
	o := opts.(*replayOpts)
	if len(args) != 1 {
		return usagef("want one case directory, got %d arguments", len(args))
	}
	c, err := loadCase(args[0])
	if err != nil {
		return err
	}
	sched, err := sim.ParseSchedule(o.schedule)
	if err != nil {
		return usagef("--schedule: %v", err)
	}
	if err := checkSimLimits(o.workers, o.maxSteps, o.timeout, 0); err != nil {
		return err
	}
	simOpts := sim.Options{Schedule: sched, Seed: o.seed, Check: o.check, MaxSteps: o.maxSteps, Workers: o.workers, TraceValues: o.traceValues}
	var trace *traceFile
	if o.trace != "" {
		if trace, err = createTrace(o.trace); err != nil {
			return err
		}
		defer trace.f.Close()
		simOpts.Trace = trace
	}
	w := e.stdout
	ptxPath, src := filepath.Join(c.Dir, fixtures.PTXFile), c.PTX
	if o.ptx != "" {
		if ptxPath = o.ptx; ptxPath == "" {
			return usagef("--ptx: empty file name")
		}
		if src, err = readPTXFile(o.ptx); err != nil {
			return err
		}
	}
	m, err := sim.Prepare(ptxPath, src, c.Launch, simOpts)
	if err != nil {
		return err
	}
	l := c.Launch
	if !o.quiet {
		p := c.Provenance
		fmt.Fprintf(w, "case %s: kernel %s", c.Dir, shortKernel(m.Prog.Kernel.Name))
		if p.GPU != "" {
			fmt.Fprintf(w, ", recorded on %s (driver %s, CUDA %s) %s", p.GPU, orDash(p.DriverVersion), orDash(p.CUDAVersion), p.Date)
		}
		fmt.Fprintln(w)
		if ci := p.Capture; ci != nil && len(ci.Program) > 0 {
			fmt.Fprintf(w, "  captured from: %s (%s, launch %d)\n", strings.Join(ci.Program, " "), ci.API, ci.LaunchIndex)
		}
		fmt.Fprintf(w, "  grid %s, block %s", l.Grid, l.Block)
		if !l.Cluster.IsZero() {
			fmt.Fprintf(w, ", cluster %s", l.Cluster)
		}
		fmt.Fprintf(w, ", %d B dynamic shared memory; schedule %s\n", l.SharedMem, sched)
	}
	if o.ptx != "" {
		// printed with -q too: the comparison is not the case's own
		fmt.Fprintf(w, "  variant: the kernel of %s, not the case's %s; its outputs are compared with what the case's kernel wrote on the GPU\n", o.ptx, fixtures.PTXFile)
	}
	if o.timeout > 0 {
		m.Opts.Deadline = time.Now().Add(o.timeout)
	}
	runErr := m.Run()
	if trace != nil {
		if err := trace.close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	rep := &hazardReport{kernel: m.Prog.Kernel.Name, ptxPath: ptxPath, schedule: sched.String(), prog: m.Prog,
		findings: m.Findings(), suppressed: m.Suppressed(), check: o.check, src: &sim.SourceReader{PTX: ptxPath}}
	rep.writeText(w)
	if runErr != nil {
		var dl *sim.DeadlockError
		if errors.As(runErr, &dl) {
			return errors.New("deadlock: no warp can make progress (the finding above says where each warp waits)")
		}
		return fmt.Errorf("the simulation stopped: %w", runErr)
	}
	bad, total := 0, 0
	for _, out := range c.Outputs {
		b, err := m.Buffer(out.Param)
		if err != nil {
			return err
		}
		total++
		d := diffBuffer(out.Data, b.Data, outType(l, out.Param), captured(c, out.Param))
		param := out.Param
		d.coordFn = func(i int) string { return coordinates(m, l, param, i, d.typ) }
		if d.differ == 0 {
			if !o.quiet {
				fmt.Fprintf(w, "  %s: bit-identical to the GPU (%d elements, %d bytes)\n", out.Param, d.elements, len(out.Data))
			}
			continue
		}
		bad++
		printDiff(w, out.Param, "the GPU", d, o.first)
	}
	// Captured buffers the GPU did not change: the simulator must not either.
	if ci := c.Provenance.Capture; ci != nil {
		for _, cb := range ci.Buffers {
			if cb.Changed {
				continue
			}
			b, err := m.Buffer(cb.Name)
			if err != nil {
				return fmt.Errorf("captured buffer %s: %w", cb.Name, err)
			}
			in, err := inputOf(l, cb.Name)
			if err != nil {
				return fmt.Errorf("captured buffer %s: %w", cb.Name, err)
			}
			total++
			d := diffBuffer(in, b.Data, typeOf(cb.DType), &cb)
			if d.differ == 0 {
				if !o.quiet {
					fmt.Fprintf(w, "  %s: unchanged, as on the GPU (%d bytes)\n", cb.Name, len(in))
				}
				continue
			}
			bad++
			printDiff(w, cb.Name+" (the GPU left it unchanged)", "its contents before the launch", d, o.first)
		}
		if len(ci.LeftOut) > 0 && !o.quiet {
			for _, lo := range ci.LeftOut {
				fmt.Fprintf(w, "  not recorded: %s\n", lo)
			}
		}
	}
	printApprox(w, m)
	variant := ""
	if o.ptx != "" {
		variant = " (the variant " + o.ptx + ")"
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d buffers differ from the GPU%s", bad, total, variant)
	}
	if rep.failed() {
		return fmt.Errorf("%s reported", rep.summary())
	}
	fmt.Fprintf(w, "replay: %d of %d buffers bit-identical to the GPU%s\n", total, total, variant)
	return nil
}

// captured returns the capture's description of a buffer, when there is one.
func captured(c *fixtures.Case, name string) *fixtures.CapturedBuffer {
	if ci := c.Provenance.Capture; ci != nil {
		for i := range ci.Buffers {
			if ci.Buffers[i].Name == name {
				return &ci.Buffers[i]
			}
		}
	}
	return nil
}

// typeOf maps a captured dtype (a torch name or a tcsim type) to a type.
func typeOf(s string) launch.ScalarType {
	m := map[string]string{"bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
		"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "int8": "s8", "uint8": "u8", "int16": "s16",
		"int32": "s32", "int64": "s64"}
	if v, ok := m[s]; ok {
		s = v
	}
	t, err := launch.ParseScalarType(s)
	if err != nil {
		return launch.InvalidType
	}
	return t
}

// bufferDiff is the comparison of one buffer.
type bufferDiff struct {
	elements, differ int
	size             int // element size in bytes
	typ              launch.ScalarType
	first            []elemDiff
	maxULP           uint64
	ulpKnown         bool
	nanMismatch      int
	shape            *fixtures.CapturedBuffer
	coordFn          func(i int) string // coordinates from the launch's tensor maps
}

type elemDiff struct {
	index     int
	want, got []byte
}

// diffBuffer compares want (the GPU's) with got (the simulator's) element
// by element.
func diffBuffer(want, got []byte, t launch.ScalarType, cb *fixtures.CapturedBuffer) bufferDiff {
	if t == launch.InvalidType && cb != nil {
		t = typeOf(cb.DType)
	}
	d := bufferDiff{typ: t, size: 1, shape: cb}
	if t != launch.InvalidType {
		d.size = t.Size()
	}
	n := max(len(want), len(got)) / d.size
	d.elements = n
	d.ulpKnown = t != launch.InvalidType && t.IsFloat()
	if bytes.Equal(want, got) {
		return d
	}
	for i := 0; i < n; i++ {
		lo, hi := i*d.size, (i+1)*d.size
		var a, b []byte
		if hi <= len(want) {
			a = want[lo:hi]
		}
		if hi <= len(got) {
			b = got[lo:hi]
		}
		if bytes.Equal(a, b) {
			continue
		}
		d.differ++
		if len(d.first) < 64 {
			d.first = append(d.first, elemDiff{i, a, b})
		}
		if d.ulpKnown && a != nil && b != nil {
			u, ok := ulpDistance(t, le(a), le(b))
			if !ok {
				d.nanMismatch++
			} else if u > d.maxULP {
				d.maxULP = u
			}
		}
	}
	return d
}

func le(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// ulpDistance is the number of representable values between two floats
// of type t (sign-magnitude bit patterns mapped onto a line); ok is false
// when either is a NaN.
func ulpDistance(t launch.ScalarType, a, b uint64) (uint64, bool) {
	bits := t.Size() * 8
	va, vb := launch.DecodeFloat(t, a), launch.DecodeFloat(t, b)
	if math.IsNaN(va) || math.IsNaN(vb) {
		return 0, false
	}
	ord := func(x uint64) int64 {
		sign := uint64(1) << (bits - 1)
		if x&sign != 0 {
			return -int64(x &^ sign)
		}
		return int64(x)
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d), true
}

// coords names element i of a buffer by the captured tensor's coordinates.
func coords(d bufferDiff, i int) string {
	cb := d.shape
	if cb == nil || len(cb.Shape) == 0 || len(cb.Strides) != len(cb.Shape) {
		return ""
	}
	es := d.size
	if t := typeOf(cb.DType); t != launch.InvalidType {
		if t.Size() != es {
			return ""
		}
	}
	off := int64(i*es) - cb.Offset
	if off < 0 || off%int64(es) != 0 {
		return ""
	}
	e := off / int64(es)
	idx := make([]int64, len(cb.Shape))
	order := make([]int, len(cb.Shape))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return cb.Strides[order[a]] > cb.Strides[order[b]] })
	for _, k := range order {
		s := cb.Strides[k]
		if s <= 0 {
			continue
		}
		idx[k] = e / s
		e %= s
	}
	if e != 0 {
		return ""
	}
	var parts []string
	for k, x := range idx {
		if x >= cb.Shape[k] {
			return ""
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func printDiff(w io.Writer, name, ref string, d bufferDiff, first int) {
	what := "elements"
	if d.typ == launch.InvalidType {
		what = "bytes"
	}
	fmt.Fprintf(w, "  %s: %d of %d %s differ from %s (%d bit-identical)", name, d.differ, d.elements, what, ref, d.elements-d.differ)
	if d.ulpKnown {
		fmt.Fprintf(w, "; max difference %d ULP", d.maxULP)
		if d.nanMismatch > 0 {
			fmt.Fprintf(w, " (and %d NaN mismatches)", d.nanMismatch)
		}
	}
	fmt.Fprintln(w)
	for k, ed := range d.first {
		if k >= first {
			fmt.Fprintf(w, "    ... %d more\n", d.differ-first)
			break
		}
		at := fmt.Sprintf("element %d", ed.index)
		if c := coords(d, ed.index); c != "" {
			at += " " + c
		} else if d.coordFn != nil {
			at += d.coordFn(ed.index)
		}
		fmt.Fprintf(w, "    %-24s GPU %s, simulator %s\n", at, fmtValue(ed.want, d.typ), fmtValue(ed.got, d.typ))
	}
}

func fmtValue(b []byte, t launch.ScalarType) string {
	if b == nil {
		return "(missing)"
	}
	v := le(b)
	if t == launch.InvalidType {
		return fmt.Sprintf("%#02x", v)
	}
	return fmt.Sprintf("%s (%#x)", launch.FormatValue(t, v), v)
}

// printApprox names the instructions the simulator did not compute
// bit-exactly.
func printApprox(w io.Writer, m *sim.Machine) {
	pcs := m.ApproxPCs()
	if len(pcs) == 0 {
		return
	}
	type span struct{ n, lo, hi int }
	spans := map[string]*span{}
	var names []string
	for _, pc := range pcs {
		in := &m.Prog.Insts[pc]
		name := in.PTX.Opcode + dotMods(in)
		s := spans[name]
		if s == nil {
			s = &span{lo: in.Line}
			spans[name] = s
			names = append(names, name)
		}
		s.n++
		s.lo, s.hi = min(s.lo, in.Line), max(s.hi, in.Line)
	}
	for _, n := range names {
		s := spans[n]
		where := fmt.Sprintf("line %d", s.lo)
		if s.n > 1 {
			where = fmt.Sprintf("×%d, lines %d-%d", s.n, s.lo, s.hi)
		}
		why := "not bit-exact: computed in float64 (the hardware's approximation differs in the last bits)"
		if f := sfu.Lookup(n); f != nil {
			why = f.Status()
		}
		fmt.Fprintf(w, "  note: %s (%s): %s\n", n, where, why)
	}
}

// inputOf returns a buffer's contents before the launch.
func inputOf(l *launch.Launch, name string) ([]byte, error) {
	for _, p := range l.Slots() {
		if p.Name != name || p.Kind != launch.BufferParam {
			continue
		}
		switch {
		case p.Data != nil:
			return p.Data, nil
		case p.File != "":
			b, err := launch.ReadMaybeGzip(p.File)
			if err != nil {
				return nil, err
			}
			if p.Size > len(b) {
				b = append(b, make([]byte, p.Size-len(b))...)
			}
			return b, nil
		default:
			return p.Fill.Generate(p.Size)
		}
	}
	return nil, fmt.Errorf("no buffer named %s in the launch", name)
}

// applyCase points launch flags at a case directory's kernel and launch
// (tcsim run --case DIR, tcsim tui --case DIR), after checking its
// manifest. Flags such as --grid 1 still override the case's launch.
func applyCase(dir string, lf *launch.LaunchFlags, ptxArg *string) error {
	if lf.File != "" || *ptxArg != "" {
		return usagef("--case %s gives the kernel and its launch; drop --launch and the PTX file", dir)
	}
	if _, err := loadCase(dir); err != nil {
		return err
	}
	lf.File = filepath.Join(dir, fixtures.LaunchFile)
	*ptxArg = filepath.Join(dir, fixtures.PTXFile)
	return nil
}
