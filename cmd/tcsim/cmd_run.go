package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim"
)

func init() {
	register(&command{
		name:    "run",
		args:    "KERNEL.ptx [--launch FILE] <launch flags> [--check] [--format text|json|sarif] [--brief] [--strict] [--allow RULE]... [--trace FILE] [--compare-gpu] [--break SPEC]... [--until SPEC] [--max-steps N] | --rules [RULE...]",
		summary: "simulate a PTX kernel on the CPU, bit-exactly, and check it for hazards",
		help: launch.LaunchFlagsHelp + `

run simulates the launch on the CPU: every CTA, warp and thread, the memories,
and the asynchronous units (wgmma, TMA, mbarrier, cp.async, tcgen05) with the
tensor-core arithmetic the H100 was measured to use. It takes the same launch
description as 'tcsim gpu run' and prints the --out buffers the same way.

  --case DIR       run a recorded or captured case's kernel and launch (see
                   also tcsim replay DIR, which compares the outputs)
  --check          run the whole hazard checker: on top of the protocol checks
                   that always run (wgmma registers and fences, TMA and mbarrier
                   rules, tcgen05 rules, deadlocks), decide from the order the
                   kernel establishes (barriers, mbarrier phases, waits, fences,
                   commits) whether every shared-memory access, asynchronous copy
                   and operand read is safe, under any schedule: races, early
                   reads, refills before release, missing proxy fences, phase
                   lapping, descriptor layouts, intra-warp exchanges; and
                   shared-memory bank conflicts, as performance findings (rule
                   perf/bank-conflict: wavefronts taken against the ideal for
                   the access width, per instruction; the exit status ignores
                   them)
  --format F       text (default: one block per root cause, the explanation once),
                   json, or sarif (SARIF 2.1.0 for CI code scanning; with json and
                   sarif, standard output carries only the document)
  --brief          one line per finding (file:line of the line to fix)
  --strict         report portability notes (undefined by the ISA, but emitted by
                   production compilers and correct on the H100) as warnings
  --allow RULE     do not report RULE (an identity or a family); repeatable
  --rules [RULE]   list the rules (with RULE or FAMILY: their documentation)
  --source-dir DIR where to look for the kernel's .cu/.py files named by .file
                   (also: the PTX file's directory and its parents); repeatable
  --trace FILE     write a JSON-lines trace of every instruction and event
                   (--trace-values adds the registers each instruction writes)
  --compare-gpu    also run the launch on the GPU and compare every output buffer
                   bit for bit; report the first differing element
  --break SPEC     stop before an instruction: a source line ("359" or
                   "k.ptx:359"), a label ("$L__BB0_8") or a pc ("pc:40");
                   repeatable. The stop prints every warp's position.
  --until SPEC     like --break; "hazard" stops after the first hazard
  --max-steps N    stop with an error after N warp-instructions
  --timeout D      stop with an error after D of wall-clock time (30s, 2m)
  --max-memory N   bytes of global memory the launch's buffers may take in
                   all (default 4 GiB); a launch of 256 MiB or more that needs
                   more than the machine can allocate now fails up front too
  --schedule S     lazy (default: asynchronous work completes at the wait that
                   needs it), latest (copies too), eager (at issue), or random
                   (seeded interleavings; --seed N)
  --ctas-per-sm N  run N CTAs of a launch without clusters together on one SM,
                   sharing its Tensor Memory: a tcgen05.alloc waits for columns
                   and for the allocation permit that a co-resident CTA holds
                   (default 1: each CTA alone)
×N after a finding's site is the number of times it was seen there (in
several CTAs, warps or loop iterations).
An out-of-bounds access stops the run with the address, the nearest buffer and
the instruction.

Exit status: 0 when the run finished and no error or warning was reported
(portability notes and performance findings do not count); 1 when an error or
warning was reported, whatever stopped the run (--until hazard, --break,
--max-steps, a fault or a deadlock), or the run failed; 2 for a bad command
line, launch or input file.

Example:
  tcsim run --launch fixtures/sim/launch/gemm_tma_wgmma.json --check`,
		setup: func(fs *flag.FlagSet) any {
			o := &runOpts{}
			o.launch.Register(fs)
			fs.StringVar(&o.caseDir, "case", "", "run the kernel and launch of the case `DIR` (written by tcsim capture or tcsim record)")
			fs.BoolVar(&o.check, "check", false, "run the hazard checker; exit 1 when it finds errors or warnings")
			fs.StringVar(&o.trace, "trace", "", "write a JSON-lines trace to `FILE`")
			fs.BoolVar(&o.traceValues, "trace-values", false, "include written register values in the trace")
			fs.BoolVar(&o.compareGPU, "compare-gpu", false, "run on the GPU too and compare every output buffer bit for bit")
			fs.Var(&o.breaks, "break", "stop before `SPEC` (line, label or pc:N); repeatable")
			fs.StringVar(&o.until, "until", "", "stop at `SPEC` (line, label, pc:N) or after the first \"hazard\"")
			fs.Int64Var(&o.maxSteps, "max-steps", 0, "stop after `N` warp-instructions (0: 2^32)")
			fs.DurationVar(&o.timeout, "timeout", 0, "stop after `D` of wall-clock time, e.g. 30s (0: no limit)")
			fs.Int64Var(&o.maxMemory, "max-memory", 0, "global memory the buffers may take, in `BYTES` (0: 4 GiB; never more than the machine can allocate)")
			fs.StringVar(&o.schedule, "schedule", "lazy", "`mode`: lazy, latest, eager or random")
			fs.Uint64Var(&o.seed, "seed", 1, "seed of the random schedule")
			fs.IntVar(&o.workers, "workers", 0, "CTAs simulated at once (0: every core)")
			fs.IntVar(&o.quantum, "quantum", 0, "instructions a warp runs before the next warp's turn (0: 64; 1 interleaves as the TUI stepper does)")
			fs.IntVar(&o.ctasPerSM, "ctas-per-sm", 1, "CTAs of a launch without clusters that run together on one SM, sharing its Tensor Memory")
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal` for --compare-gpu")
			fs.IntVar(&o.limit, "limit", 1024, "print at most `N` elements of each printed output")
			fs.BoolVar(&o.quiet, "q", false, "print only hazards and outputs")
			fs.StringVar(&o.format, "format", "text", "hazard report `format`: text, json or sarif")
			fs.BoolVar(&o.brief, "brief", false, "one line per finding")
			fs.BoolVar(&o.strict, "strict", false, "report portability notes as warnings")
			fs.Var(&o.allow, "allow", "do not report `RULE` (identity or family); repeatable")
			fs.BoolVar(&o.rules, "rules", false, "list the hazard rules (with arguments: their documentation)")
			fs.Var(&o.sourceDirs, "source-dir", "look for kernel sources in `DIR`; repeatable")
			fs.BoolVar(&o.fullNames, "full-names", false, "print a C++ kernel's whole demangled name (and the mangled one), not the abbreviation")
			return o
		},
		run: runRun,
	})
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

type runOpts struct {
	launch      launch.LaunchFlags
	caseDir     string
	check       bool
	trace       string
	traceValues bool
	quantum     int
	ctasPerSM   int
	compareGPU  bool
	breaks      multiFlag
	until       string
	maxSteps    int64
	timeout     time.Duration
	maxMemory   int64
	schedule    string
	seed        uint64
	workers     int
	device      int
	limit       int
	quiet       bool
	format      string
	brief       bool
	strict      bool
	allow       multiFlag
	rules       bool
	sourceDirs  multiFlag
	fullNames   bool
}

func runRun(e *env, opts any, args []string) error {
	o := opts.(*runOpts)
	if o.rules {
		return writeRules(e.stdout, args)
	}
	if o.caseDir != "" {
		ptxArg := ""
		if len(args) > 0 {
			ptxArg = args[0]
		}
		if err := applyCase(o.caseDir, &o.launch, &ptxArg); err != nil {
			return err
		}
		args = []string{ptxArg}
	}
	format, err := parseReportFormat(o.format)
	if err != nil {
		return usagef("--format %s: %v", o.format, err)
	}
	policy, err := rulePolicy(o.strict, o.allow)
	if err != nil {
		return err
	}
	path, ptxSrc, l, _, err := prepareLaunch(&o.launch, args)
	if err != nil {
		return err
	}
	sched, err := sim.ParseSchedule(o.schedule)
	if err != nil {
		return usagef("--schedule: %v", err)
	}
	if o.quantum < 0 {
		return usagef("--quantum %d: must be 0 (the default, 64) or more", o.quantum)
	}
	if o.ctasPerSM < 1 {
		return usagef("--ctas-per-sm %d: must be 1 (the default) or more", o.ctasPerSM)
	}
	if err := checkSimLimits(o.workers, o.maxSteps, o.timeout, o.maxMemory); err != nil {
		return err
	}
	simOpts := sim.Options{Schedule: sched, Seed: o.seed, Check: o.check, MaxSteps: o.maxSteps, Workers: o.workers, TraceValues: o.traceValues, Quantum: o.quantum, Policy: policy, MaxMemory: o.maxMemory, CTAsPerSM: o.ctasPerSM}
	var trace *traceFile
	if o.trace != "" {
		if trace, err = createTrace(o.trace); err != nil {
			return err
		}
		defer trace.f.Close()
		simOpts.Trace = trace
	}
	m, err := sim.Prepare(path, ptxSrc, l, simOpts)
	if err != nil {
		return err
	}
	var st *sim.Stepper
	if len(o.breaks) > 0 || o.until != "" {
		// breakpoints are checked before anything runs or prints
		if st, err = newRunStepper(m, o); err != nil {
			return err
		}
	}
	w := e.stdout
	doc := format != fmtText
	if doc {
		// standard output carries only the JSON or SARIF document
		w = io.Discard
	}
	start := time.Now()
	if o.timeout > 0 {
		m.Opts.Deadline = start.Add(o.timeout)
	}
	stopped := false
	var runErr error
	if st != nil {
		stopped, runErr = runStepper(w, m, st)
	} else {
		runErr = m.Run()
	}
	elapsed := time.Since(start)
	if trace != nil {
		m.FlushTrace()
		if err := trace.close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if !o.quiet {
		p := m.Prog
		fmt.Fprintf(w, "kernel %s (%s, %s) simulated: grid %s, block %s", kernelName(p.Kernel.Name, o.fullNames), path, orDash(p.Arch), l.Grid, l.Block)
		if !l.Cluster.IsZero() {
			fmt.Fprintf(w, ", cluster %s", l.Cluster)
		}
		fmt.Fprintf(w, ", %d B dynamic shared memory; schedule %s; %.3f s\n", l.SharedMem, sched, elapsed.Seconds())
	}
	if !doc {
		// correctness caveats: printed even with -q
		if arch := m.Prog.Arch; arch == "sm_100a" || strings.HasPrefix(arch, "sm_10") {
			fmt.Fprintln(e.stdout, notVerifiedNote)
		}
		printApprox(e.stdout, m)
	}
	rep := &hazardReport{kernel: m.Prog.Kernel.Name, ptxPath: path, schedule: sched.String(), prog: m.Prog,
		findings: m.Findings(), suppressed: m.Suppressed(), check: o.check,
		src: &sim.SourceReader{Dirs: o.sourceDirs, PTX: path}}
	switch {
	case format == fmtJSON:
		if err := rep.writeJSON(e.stdout); err != nil {
			return err
		}
	case format == fmtSARIF:
		if err := rep.writeSARIF(e.stdout); err != nil {
			return err
		}
	case o.brief:
		rep.writeBrief(e.stdout)
	default:
		rep.writeText(e.stdout)
	}
	failed := rep.failed()
	hazardErr := func() error {
		if failed {
			return fmt.Errorf("%s reported", rep.summary())
		}
		return nil
	}
	if runErr != nil {
		var dl *sim.DeadlockError
		if errors.As(runErr, &dl) {
			return errors.New("deadlock: no warp can make progress (the finding above says where each warp waits)")
		}
		return runErr
	}
	if stopped {
		return hazardErr()
	}
	if err := printSimOutputs(w, m, l, o.limit, e.width); err != nil {
		return err
	}
	if o.compareGPU {
		if err := compareGPU(e, m, path, ptxSrc, l, o.device); err != nil {
			return err
		}
	}
	return hazardErr()
}

// rulePolicy is the policy of --strict and the --allow rules.
func rulePolicy(strict bool, allow []string) (sim.RulePolicy, error) {
	policy := sim.RulePolicy{Strict: strict}
	for _, a := range allow {
		ids, err := sim.MatchRules(a)
		if err != nil {
			return policy, usagef("--allow: %v", err)
		}
		if policy.Allow == nil {
			policy.Allow = map[sim.HazardKind]bool{}
		}
		for _, id := range ids {
			policy.Allow[id] = true
		}
	}
	return policy, nil
}

// notVerifiedNote is the caveat of every sm_100a run: there is no
// Blackwell GPU to check it against.
const notVerifiedNote = "  note: sm_100a (tcgen05, Tensor Memory) semantics and arithmetic are modelled from the ISA and public evidence: not hardware-verified"

// issuers names the warps of warpgroup wg whose bits are set in mask
// (bit k: warp k of the warpgroup).
func issuers(wg int, mask uint8) string {
	var ws []string
	for k := 0; k < 4; k++ {
		if mask>>k&1 == 1 {
			ws = append(ws, fmt.Sprint(4*wg+k))
		}
	}
	switch len(ws) {
	case 4:
		return fmt.Sprintf("warps %d-%d (all 4 of the warpgroup)", 4*wg, 4*wg+3)
	case 1:
		return fmt.Sprintf("warp %s only (1 of the warpgroup's 4)", ws[0])
	}
	return fmt.Sprintf("warps %s (%d of the warpgroup's 4)", strings.Join(ws, ", "), len(ws))
}

// groupText says which commit group a wgmma is in (-1: not yet).
func groupText(g int) string {
	if g < 0 {
		return "not committed yet"
	}
	return fmt.Sprintf("commit group %d", g)
}

// kernelName is a kernel's name for messages: abbreviated C++
// ("cutlass::device_kernel<GemmUniversal<…>>"), or with full the whole
// demangled name followed by the mangled one.
func kernelName(name string, full bool) string {
	if !full {
		return demangle.Short(name)
	}
	if d := demangle.Demangle(name); d != name {
		return d + " [" + name + "]"
	}
	return name
}

// ctaID prints a CTA's coordinates as the hazard reports do: (x,y,z).
func ctaID(id [3]int) string { return fmt.Sprintf("(%d,%d,%d)", id[0], id[1], id[2]) }

// short abbreviates long instructions (wgmma's operand lists).
func short(s string) string {
	if len(s) <= 72 {
		return s
	}
	return s[:69] + "..."
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// dotMods is ".approx.ftz.f32" for an instruction's modifiers.
func dotMods(in *sim.Inst) string {
	var b strings.Builder
	for _, m := range in.PTX.Mods {
		b.WriteString("." + m.Name)
	}
	return b.String()
}

// printSimOutputs prints or writes the launch's --out buffers.
func printSimOutputs(w io.Writer, m *sim.Machine, l *launch.Launch, limit, width int) error {
	for _, out := range l.Outputs {
		b, err := m.Buffer(out.Param)
		if err != nil {
			return err
		}
		i, _ := m.Binding.Resolve(out.Param)
		shape, err := outputShape(m.Binding, i, out, len(b.Data))
		if err != nil {
			return err
		}
		if err := emitOutput(w, m.Binding.Slot(i).Label(), out, b.Data, limit, shape, width); err != nil {
			return err
		}
	}
	return nil
}

// newRunStepper prepares a stepper with the --break and --until stops.
func newRunStepper(m *sim.Machine, o *runOpts) (*sim.Stepper, error) {
	st := m.NewStepper()
	if o.until == "hazard" {
		st.StopOnHazard(true)
	} else if o.until != "" {
		if err := st.BreakSpec(o.until); err != nil {
			return nil, usagef("--until %s: %v", o.until, err)
		}
	}
	for _, s := range o.breaks {
		if err := st.BreakSpec(s); err != nil {
			return nil, usagef("--break %s: %v", s, err)
		}
	}
	return st, nil
}

// runStepper runs to a breakpoint (or the first hazard) and prints where
// every warp is. It reports whether the run stopped early.
func runStepper(w io.Writer, m *sim.Machine, st *sim.Stepper) (bool, error) {
	ev, err := st.Run(0)
	m.FlushTrace()
	if err != nil {
		return false, err
	}
	switch ev.Reason {
	case sim.StopDone:
		fmt.Fprintf(w, "finished after %d warp-instructions without reaching the stop\n", ev.Steps)
		return false, nil
	case sim.StopBreakpoint:
		fmt.Fprintf(w, "stopped at the breakpoint %s before %s (CTA %s warp %d) after %d warp-instructions\n", ev.Pos, short(ev.Inst), ctaID(ev.CTA), ev.Warp, ev.Steps)
	case sim.StopHazard:
		fmt.Fprintf(w, "stopped after a hazard at %s, %s (CTA %s warp %d) after %d warp-instructions\n", ev.Pos, short(ev.Inst), ctaID(ev.CTA), ev.Warp, ev.Steps)
	}
	fmt.Fprintln(w, "warps:")
	for _, ws := range st.Warps() {
		where := "exited"
		if ws.State != "done" {
			where = fmt.Sprintf("%s: %s", ws.Pos, short(ws.Inst))
		}
		fmt.Fprintf(w, "  CTA %s warp %2d  %-7s lanes %#08x  %s\n", ctaID(ws.CTA), ws.Warp, ws.State, ws.Active, where)
		if ws.Wait != "" {
			fmt.Fprintf(w, "      %s\n", ws.Wait)
		}
	}
	if ops := st.InFlight(); len(ops) > 0 {
		fmt.Fprintln(w, "in flight:")
		for _, op := range ops {
			desc := op.Desc
			if wg := op.Wgmma; wg != nil {
				desc = fmt.Sprintf("warpgroup %d op #%d, issued by %s, %s", wg.Warpgroup, wg.Op+1, issuers(wg.Warpgroup, wg.IssuedBy), groupText(wg.Group))
			}
			fmt.Fprintf(w, "  %s from %s (CTA %s thread %d): %s\n", op.Kind, op.Pos, ctaID(op.CTA), op.Thread, desc)
		}
	}
	return true, nil
}

// checkSimLimits rejects negative limits.
func checkSimLimits(workers int, maxSteps int64, timeout time.Duration, maxMemory int64) error {
	switch {
	case workers < 0:
		return usagef("--workers %d: want 0 (every core) or a positive number of CTAs simulated at once", workers)
	case maxSteps < 0:
		return usagef("--max-steps %d: want 0 (2^32) or a positive number of warp-instructions", maxSteps)
	case timeout < 0:
		return usagef("--timeout %v: want a positive duration such as 30s (0: no limit)", timeout)
	case maxMemory < 0:
		return usagef("--max-memory %d: want 0 (4 GiB) or a positive number of bytes", maxMemory)
	}
	return nil
}

// traceFile is the --trace output: it keeps the first write error, which
// the simulator's buffered writer would otherwise lose, so that a trace
// that could not be written (a full disk, /dev/full) fails the command.
type traceFile struct {
	f    *os.File
	name string
	err  error
}

func createTrace(name string) (*traceFile, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return &traceFile{f: f, name: name}, nil
}

func (t *traceFile) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.f.Write(p)
	if err != nil {
		t.err = err
	}
	return n, err
}

// close closes the file and returns the first error writing it.
func (t *traceFile) close() error {
	err := t.f.Close()
	if t.err != nil {
		err = t.err
	}
	if err != nil {
		return fmt.Errorf("--trace %s: the trace could not be written: %w", t.name, err)
	}
	return nil
}

// compareGPU runs the launch on the GPU and diffs every output buffer.
func compareGPU(e *env, m *sim.Machine, path string, ptxSrc []byte, l *launch.Launch, device int) error {
	d, err := openGPU(e, device)
	if err != nil {
		return fmt.Errorf("--compare-gpu: %w", err)
	}
	defer d.Close()
	res, err := d.Run(path, ptxSrc, l, gpu.RunOptions{AllBuffers: true})
	if err != nil {
		return fmt.Errorf("--compare-gpu: %w", err)
	}
	w := e.stdout
	var bad []string
	sort.Slice(res.Outputs, func(i, j int) bool { return res.Outputs[i].Index < res.Outputs[j].Index })
	for _, out := range res.Outputs {
		b, err := m.Buffer(out.Name)
		if err != nil {
			return err
		}
		t := outType(l, out.Name)
		mm := sim.Compare(out.Name, nil, out.Data, b.Data, t)
		if mm == nil {
			fmt.Fprintf(w, "compare-gpu: %s: %d bytes identical to %s\n", out.Name, len(out.Data), d.Info.Name)
			continue
		}
		coord := coordinates(m, l, out.Name, mm.Index, t)
		fmt.Fprintf(w, "compare-gpu: %s: %d of %d elements differ; first at element %d%s (byte %d): GPU %s, simulator %s\n",
			out.Name, mm.Count, mm.Elements, mm.Index, coord, mm.Offset, mm.Want, mm.Got)
		bad = append(bad, out.Name)
	}
	if len(bad) > 0 {
		return fmt.Errorf("--compare-gpu: %s differ from the GPU", strings.Join(bad, ", "))
	}
	return nil
}

func outType(l *launch.Launch, name string) launch.ScalarType {
	for _, o := range l.Outputs {
		if o.Param == name {
			return o.Type
		}
	}
	return launch.InvalidType
}

// coordinates names element i of a buffer by the coordinates of a tensor
// map over it, when there is one with the same element size.
func coordinates(m *sim.Machine, l *launch.Launch, name string, i int, t launch.ScalarType) string {
	if t == launch.InvalidType {
		return ""
	}
	for _, p := range l.Params {
		tm := p.TMap
		if p.Kind != launch.TensorMapParam || tm == nil {
			continue
		}
		j, err := m.Binding.Resolve(tm.Buffer)
		if err != nil || m.Binding.Slot(j).Name != name || tm.DType.Size() != t.Size() || tm.Offset != 0 {
			continue
		}
		rem := i
		var cs []string
		for k, dim := range tm.Dims {
			if k == len(tm.Dims)-1 {
				cs = append(cs, fmt.Sprint(rem))
				break
			}
			cs = append(cs, fmt.Sprint(rem%int(dim)))
			rem /= int(dim)
		}
		// print outermost first: [row][col]
		for a, b := 0, len(cs)-1; a < b; a, b = a+1, b-1 {
			cs[a], cs[b] = cs[b], cs[a]
		}
		return fmt.Sprintf(" = %s[%s] of tensor map %s", name, strings.Join(cs, "]["), p.Name)
	}
	return ""
}
