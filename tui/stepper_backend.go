package tui

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim"
)

// The kernel stepper shows one of two sources of machine states through
// the same panes: a live simulation (simBackend: sim.Stepper, with every
// piece of state) or a trace file written by `tcsim run --trace`
// (traceBackend: what the trace records). The view talks to both through
// stepBackend.

// stepBackend is a source of machine states that can be stepped forwards
// and backwards.
type stepBackend interface {
	// kind is "sim" or "trace".
	kind() string
	kernel() string
	// file is the PTX file's path; lines its text, line n at lines[n-1].
	file() string
	lines() []string
	// threads is the number of threads of a CTA.
	threads() int
	// hasInst reports whether a source line holds an instruction (where
	// a breakpoint can stop).
	hasInst(line int) bool
	// steps is the number of warp-instructions executed so far.
	steps() int64
	last() stopInfo
	done() bool

	step() error
	stepWarp(cta, warp int) error
	// run goes on until an instruction of a breakpoint line is next, a
	// new hazard is reported (with hazard), the end, an error, or limit
	// warp-instructions.
	run(breaks []int, hazard bool, limit int64) error
	// setHalt gives run a function it asks after every instruction (or
	// record): when it returns true, run stops with reason "interrupted".
	// nil removes it.
	setHalt(halt func() bool)
	// back returns to the state before the last instruction, or (toStop)
	// to the state of the previous stop. It asks the halt function too: a
	// step back it stops returns errStopped and leaves the state as it
	// was.
	back(toStop bool) error

	ctas() [][3]int
	warps() []warpRow
	hazards() []hazardRow
	inflight() []asyncRow
	mbarriers(cta int) []mbarRow
	regs(cta, warp int) []regInfo
	reg(cta, warp int, name string) ([32]uint64, error)
	smemSize() int
	shared(cta, off, n int) ([]byte, error)
	tmem(cta, lane, col int) (uint32, error)
	// fragments describes the fragment operands of the matrix instruction
	// on a source line.
	fragments(line int) (inst string, frs []fragInfo, err error)
	// missing says what this backend cannot show ("" when nothing).
	missing(pane paneKind) string
	// sourceMapped reports whether the PTX has .loc information;
	// sourceAt gives the source line behind PTX line n (stepper_srcmap.go).
	sourceMapped() bool
	sourceAt(n int) (srcRef, bool)
}

// errStopped is a step back that esc stopped before it got there.
var errStopped = errors.New("the step back was stopped (esc): the state is as it was before")

// stopInfo is where the stepper stopped last.
type stopInfo struct {
	reason  string // step, breakpoint, hazard, async, limit, done, error, back, start
	line    int
	cta     [3]int
	warp    int // -1 when no warp is involved
	inst    string
	steps   int64
	hazards []hazardRow // reported by the step
	err     string
}

// warpRow is one warp's state.
type warpRow struct {
	cta    [3]int
	ctaIdx int
	warp   int
	pc     int // -1 when unknown or exited
	line   int
	inst   string
	regs   []string // the registers inst names, from its parsed PTX
	state  string   // ready, blocked, done (trace: "ran" for the last instruction it executed)
	wait   string
	active uint32
}

// hazardRow is one finding of the checker.
type hazardRow struct {
	kind, severity string
	pos            string
	line           int
	cta            [3]int
	warp           int
	lanes          uint32
	msg            string
	detail         string
	ptxas          string
	related        string
	count          int
}

// asyncRow is one asynchronous operation in flight.
type asyncRow struct {
	kind   string
	line   int
	cta    [3]int
	thread int
	desc   string
}

// mbarRow is one mbarrier.
type mbarRow struct {
	addr                  uint32
	live                  bool
	phase                 uint64
	expected, pending, tx int64
	initLine              int
	onlyPhase             bool // a trace records only phase changes
}

// regInfo is a register name and its PTX type (f32, b64, pred, ...).
type regInfo struct {
	name, typ string
}

// fragInfo is one fragment operand of a matrix instruction.
type fragInfo struct {
	operand string      // D, A, B, regs
	atom    string      // catalog atom, "" for shared-memory operands
	key     catalog.Key // the atom's key
	regs    []string
	note    string
	elem    string // element type for the values: f32, bf16, f16, b16, b32, ...
	threads int    // threads the atom spans (128: a warpgroup, 32: a warp)
}

// KernelConfig is what the stepper simulates: a PTX file and its launch.
type KernelConfig struct {
	// Path names the PTX file in messages; Source is its text.
	Path   string
	Source []byte
	// Launch is the launch description (as for tcsim run).
	Launch *launch.Launch
	// Schedule is lazy, latest, eager or random ("" is lazy).
	Schedule string
	// Seed seeds the random schedule.
	Seed uint64
}

// simBackend steps a live simulation.
//
// Reverse stepping re-simulates: the backend keeps the list of actions
// that led to the current state (steps, warp steps and runs with their
// breakpoints) and, to go back, builds a fresh machine and replays them,
// the last one cut short by one instruction. The simulator is
// deterministic, so the replay reaches exactly the earlier state; its cost
// is one run from the start.
//
// When the grid has finished, the simulator has let go of its last CTA;
// the backend then keeps a second machine, replayed to just after the last
// instruction, whose warps, registers and memories the panes show (the
// hazards stay those of the finished run, which include the checks at the
// CTAs' exits).
type simBackend struct {
	cfg     KernelConfig
	prog    *sim.Program
	opts    sim.Options
	m       *sim.Machine
	st      *sim.Stepper
	hist    []simAction
	stopped stopInfo
	lineOf  map[int][]int // source line → pcs
	src     []string
	fin     *sim.Stepper // after the end: the state after the last instruction
	halt    func() bool  // asked by a run after every instruction (setHalt)
	smap    *srcMap
}

type simActionKind uint8

const (
	actStep simActionKind = iota
	actWarp
	actRun
)

// simAction is one call on the sim.Stepper; replaying the same calls on a
// fresh machine reproduces the state.
type simAction struct {
	kind      simActionKind
	cta, warp int
	breaks    []int // run: breakpoint lines
	hazard    bool  // run: stop on a hazard
	limit     int64 // run: instruction limit (0: none)
	ran       int64 // instructions the action executed
	reason    sim.StopReason
}

func newSimBackend(cfg KernelConfig) (*simBackend, error) {
	if cfg.Launch == nil {
		return nil, errors.New("stepper: no launch description")
	}
	sched, err := sim.ParseSchedule(cfg.Schedule)
	if err != nil {
		return nil, err
	}
	p, err := sim.CompileSource(cfg.Path, cfg.Source, cfg.Launch.Kernel)
	if err != nil {
		return nil, err
	}
	b := &simBackend{cfg: cfg, prog: p, opts: sim.Options{Check: true, Schedule: sched, Seed: cfg.Seed, Workers: 1}, lineOf: map[int][]int{}}
	for pc := range p.Insts {
		l := p.Insts[pc].Line
		b.lineOf[l] = append(b.lineOf[l], pc)
	}
	b.src = strings.Split(strings.TrimRight(strings.ReplaceAll(string(cfg.Source), "\r\n", "\n"), "\n"), "\n")
	b.smap = newSrcMap(p, cfg.Path)
	if err := b.reset(); err != nil {
		return nil, err
	}
	return b, nil
}

// fresh builds a machine at the beginning of the launch.
func (b *simBackend) fresh() (*sim.Machine, *sim.Stepper, error) {
	m, err := b.prog.Launch(b.cfg.Launch, b.opts)
	if err != nil {
		return nil, nil, err
	}
	return m, m.NewStepper(), nil
}

// reset starts a fresh machine at the beginning of the launch.
func (b *simBackend) reset() error {
	m, st, err := b.fresh()
	if err != nil {
		return err
	}
	b.m, b.st, b.fin = m, st, nil
	b.hist = nil
	b.stopped = stopInfo{reason: "start", warp: -1}
	return nil
}

func (b *simBackend) kind() string    { return "sim" }
func (b *simBackend) kernel() string  { return b.prog.Kernel.Name }
func (b *simBackend) file() string    { return b.cfg.Path }
func (b *simBackend) lines() []string { return b.src }
func (b *simBackend) threads() int    { return b.m.Block[0] * b.m.Block[1] * b.m.Block[2] }
func (b *simBackend) hasInst(l int) bool {
	return len(b.lineOf[l]) > 0
}
func (b *simBackend) steps() int64   { return b.stopped.steps }
func (b *simBackend) last() stopInfo { return b.stopped }
func (b *simBackend) done() bool     { return b.st.Done() }

// view is the stepper whose state the panes show: the running machine,
// or after the end the one replayed to the last instruction.
func (b *simBackend) view() *sim.Stepper {
	if b.fin != nil {
		return b.fin
	}
	return b.st
}

func (b *simBackend) setHalt(halt func() bool) { b.halt = halt }

// play performs one action on st; it returns the event that ended it and
// the instructions it executed. A run stops early when halt says so.
func (b *simBackend) play(st *sim.Stepper, a simAction, halt func() bool) (sim.Event, error) {
	switch a.kind {
	case actStep:
		return st.Step()
	case actWarp:
		return st.StepWarp(a.cta, a.warp)
	}
	st.ClearBreaks()
	for _, l := range a.breaks {
		if b.hasInst(l) {
			_ = st.BreakLine(l)
		}
	}
	st.StopOnHazard(a.hazard)
	ev, err := st.RunUntil(a.limit, halt)
	st.StopOnHazard(false)
	st.ClearBreaks()
	return ev, err
}

// apply performs one action on the current machine and records it.
func (b *simBackend) apply(a simAction) error {
	if b.st.Done() {
		return errors.New("the grid has finished: p steps back")
	}
	before := b.stopped.steps
	ev, err := b.play(b.st, a, b.halt)
	if a.kind == actWarp && err != nil && ev.Reason != sim.StopError {
		// The warp cannot run (blocked or exited): nothing happened.
		return err
	}
	a.reason = ev.Reason
	a.ran = ev.Steps - before
	if ev.Reason == sim.StopInterrupted {
		// Replayed, the run stops at the same instruction.
		a.limit = a.ran
	}
	b.stopped = b.stopInfo(ev, err)
	b.hist = append(b.hist, a)
	if b.st.Done() {
		// Keep the last state on view: replay to just before the end (not
		// when esc stops the replay: the panes then show the finished
		// machine).
		if _, st, _, _, err := b.build(trimLast(b.hist, false), b.halt); err == nil {
			b.fin = st
		}
	}
	return err
}

func (b *simBackend) stopInfo(ev sim.Event, err error) stopInfo {
	s := stopInfo{reason: ev.Reason.String(), line: int(ev.Pos.Line), cta: ev.CTA, warp: ev.Warp, inst: ev.Inst, steps: ev.Steps}
	for _, h := range ev.Hazards {
		s.hazards = append(s.hazards, hazardOf(h))
	}
	if err != nil {
		s.reason, s.err = "error", err.Error()
	}
	return s
}

func (b *simBackend) step() error { return b.apply(simAction{kind: actStep}) }

func (b *simBackend) stepWarp(cta, warp int) error {
	return b.apply(simAction{kind: actWarp, cta: cta, warp: warp})
}

func (b *simBackend) run(breaks []int, hazard bool, limit int64) error {
	return b.apply(simAction{kind: actRun, breaks: append([]int(nil), breaks...), hazard: hazard, limit: limit})
}

// trimLast is hist without its last instruction (or, toStop, without its
// whole last action).
func trimLast(hist []simAction, toStop bool) []simAction {
	if len(hist) == 0 {
		return nil
	}
	a := hist[len(hist)-1]
	out := append([]simAction(nil), hist[:len(hist)-1]...)
	if toStop {
		return out
	}
	// The last action without its last event: without its last
	// instruction when it ended on one, else (an async completion, the
	// end of the grid, an error) without that event.
	keep := a.ran
	switch a.reason {
	case sim.StopStep, sim.StopHazard, sim.StopLimit, sim.StopBreakpoint, sim.StopInterrupted:
		keep--
	}
	if keep > 0 {
		out = append(out, simAction{kind: actRun, breaks: a.breaks, hazard: a.hazard, limit: keep, ran: keep, reason: sim.StopLimit})
	}
	return out
}

// back replays the history on a fresh machine, without the last
// instruction (or the whole last action, toStop).
func (b *simBackend) back(toStop bool) error {
	if len(b.hist) == 0 {
		return errors.New("at the start of the run: nothing to step back to")
	}
	hist := trimLast(b.hist, toStop)
	if b.fin != nil && !toStop {
		// The panes show the state after the last instruction already:
		// undo that instruction too.
		hist = trimLast(hist, false)
	}
	m, st, hist, last, err := b.build(hist, b.halt)
	if err != nil {
		return err
	}
	b.m, b.st, b.fin, b.hist = m, st, nil, hist
	b.stopped = last
	b.stopped.reason, b.stopped.hazards = "back", nil
	if len(hist) == 0 {
		b.stopped = stopInfo{reason: "start", warp: -1}
	}
	return nil
}

// build makes a fresh machine and repeats hist on it; it returns the
// actions as they ran again and where the last one stopped. When halt
// (which may be nil) says so it gives up with errStopped.
func (b *simBackend) build(hist []simAction, halt func() bool) (*sim.Machine, *sim.Stepper, []simAction, stopInfo, error) {
	last := stopInfo{reason: "start", warp: -1}
	m, st, err := b.fresh()
	if err != nil {
		return nil, nil, nil, last, err
	}
	stopped := func() bool { return halt != nil && halt() }
	var out []simAction
	for _, a := range hist {
		if stopped() {
			return nil, nil, nil, last, errStopped
		}
		// An action that ended in an error (a fault, a deadlock) ends the
		// same way again: the error is part of the state.
		ev, err := b.play(st, a, halt)
		if stopped() {
			// The halt function stays true once asked: the replay was cut
			// short somewhere in this action.
			return nil, nil, nil, last, errStopped
		}
		if a.kind == actWarp && err != nil && ev.Reason != sim.StopError {
			continue
		}
		a.reason, a.ran = ev.Reason, ev.Steps-last.steps
		last = b.stopInfo(ev, err)
		out = append(out, a)
	}
	return m, st, out, last, nil
}

func (b *simBackend) ctas() [][3]int { return b.view().CTAs() }

func (b *simBackend) warps() []warpRow {
	ctas := b.view().CTAs()
	var out []warpRow
	for _, w := range b.view().Warps() {
		r := warpRow{cta: w.CTA, warp: w.Warp, pc: w.PC, line: int(w.Pos.Line), inst: w.Inst, state: w.State, wait: w.Wait, active: w.Active}
		if w.PTX != nil {
			r.regs = w.PTX.RegNames()
		}
		for i, c := range ctas {
			if c == w.CTA {
				r.ctaIdx = i
			}
		}
		if w.State == "done" {
			r.pc, r.line = -1, 0
		}
		out = append(out, r)
	}
	return out
}

func hazardOf(h sim.Hazard) hazardRow {
	r := hazardRow{kind: string(h.Kind), severity: h.Severity.String(), pos: h.Pos.String(), line: int(h.Pos.Line), cta: h.CTA,
		warp: h.Warp, lanes: h.Lanes, msg: h.Msg, detail: h.Detail, ptxas: h.PTXAS, count: h.Count}
	if h.Related.IsValid() {
		r.related = h.Related.String()
	}
	return r
}

func (b *simBackend) hazards() []hazardRow {
	var out []hazardRow
	for _, h := range b.m.Hazards() {
		out = append(out, hazardOf(h))
	}
	return out
}

func (b *simBackend) inflight() []asyncRow {
	var out []asyncRow
	for _, op := range b.view().InFlight() {
		desc := op.Desc
		if w := op.Wgmma; w != nil {
			desc = fmt.Sprintf("warpgroup %d op #%d, %s", w.Warpgroup, w.Op+1, issuedBy(w.IssuedBy, w.Group))
		}
		out = append(out, asyncRow{kind: op.Kind, line: int(op.Pos.Line), cta: op.CTA, thread: op.Thread, desc: desc})
	}
	return out
}

func (b *simBackend) mbarriers(cta int) []mbarRow {
	var out []mbarRow
	for _, mb := range b.view().Mbarriers(cta) {
		out = append(out, mbarRow{addr: mb.Addr, live: mb.Live, phase: mb.Phase, expected: mb.Expected, pending: mb.Pending, tx: mb.TxCount, initLine: int(mb.InitPos.Line)})
	}
	return out
}

func (b *simBackend) regs(cta, warp int) []regInfo {
	names, err := b.view().Regs(cta, warp)
	if err != nil {
		return nil
	}
	f := b.prog.Kernel
	for _, w := range b.view().Warps() {
		if w.Warp == warp && w.Func != "" {
			if g := b.prog.Function(w.Func); g != nil {
				f = g
			}
		}
	}
	types := map[string]string{}
	for i, n := range f.RegNames {
		if i < len(f.RegTypes) && f.RegTypes[i] != 0 {
			types[n] = f.RegTypes[i].String()
		}
	}
	for _, n := range f.PredNames {
		types[n] = "pred"
	}
	out := make([]regInfo, 0, len(names))
	for _, n := range names {
		if !strings.HasPrefix(n, "%") && types[n] != "pred" {
			continue // hidden registers (per-thread constants) have no PTX name
		}
		out = append(out, regInfo{name: n, typ: orDefault(types[n], guessType(n))})
	}
	return out
}

func (b *simBackend) reg(cta, warp int, name string) ([32]uint64, error) {
	return b.view().Reg(cta, warp, name)
}

func (b *simBackend) smemSize() int { return b.prog.DynSharedOffset + b.m.DynSmem }

func (b *simBackend) shared(cta, off, n int) ([]byte, error) { return b.view().Shared(cta, off, n) }

func (b *simBackend) tmem(cta, lane, col int) (uint32, error) { return b.view().TMEM(cta, lane, col) }

func (b *simBackend) fragments(line int) (string, []fragInfo, error) {
	var lastErr error = fmt.Errorf("line %d has no instruction", line)
	for _, pc := range b.lineOf[line] {
		frs, err := b.view().Fragments(pc)
		if err != nil {
			lastErr = err
			continue
		}
		return b.prog.Insts[pc].PTX.String(), fragInfos(frs), nil
	}
	return "", nil, lastErr
}

// fragInfos converts the simulator's fragment descriptions for the pane.
func fragInfos(frs []sim.Fragment) []fragInfo {
	var out []fragInfo
	for _, f := range frs {
		fi := fragInfo{operand: f.Operand, atom: f.Atom, key: f.Key, regs: f.Regs, note: f.Note, threads: f.Threads}
		if f.Elem != ptx.TypeNone {
			fi.elem = f.Elem.String()
		}
		out = append(out, fi)
	}
	return out
}

func (b *simBackend) missing(paneKind) string { return "" }

func (b *simBackend) sourceMapped() bool { return b.smap.mapped }

func (b *simBackend) sourceAt(n int) (srcRef, bool) { return b.smap.at(n, b.src) }

// issuedBy describes which warps of a warpgroup (bit k: warp k) issued a
// wgmma, and its commit group (-1: not committed yet, -2: unknown).
func issuedBy(warps uint8, group int) string {
	var ws []string
	for k := 0; k < 4; k++ {
		if warps>>k&1 != 0 {
			ws = append(ws, strconv.Itoa(k))
		}
	}
	s := "issued by warps " + strings.Join(ws, ",") + " of 0-3"
	if warps == 0xf {
		s = "issued by all 4 warps"
	}
	switch {
	case group == -1:
		s += ", not committed yet"
	case group >= 0:
		s += fmt.Sprintf(", commit group %d", group)
	}
	return s
}

// guessType reads a register's type from nvcc's naming (%f: f32, %fd:
// f64, %rd: b64, %r: b32, %rs: b16, %h: f16, %p: pred).
func guessType(name string) string {
	n := strings.TrimPrefix(name, "%")
	i := 0
	for i < len(n) && (n[i] < '0' || n[i] > '9') {
		i++
	}
	switch n[:i] {
	case "f":
		return "f32"
	case "fd":
		return "f64"
	case "rd":
		return "b64"
	case "r":
		return "b32"
	case "rs", "h":
		return "b16"
	case "p":
		return "pred"
	}
	return "b64"
}

// fmtValue formats a register or element value of PTX type typ.
func fmtValue(typ string, v uint64, hex bool) string {
	if typ == "pred" {
		return fmt.Sprint(v & 1)
	}
	bits := typeBits(typ)
	if bits < 64 {
		v &= 1<<bits - 1
	}
	if hex {
		return fmt.Sprintf("0x%0*x", max(bits/4, 1), v)
	}
	if typ == "tf32" {
		typ = "f32"
	}
	if isBitsType(typ) {
		return fmt.Sprintf("%#x", v)
	}
	if t, err := launch.ParseScalarType(typ); err == nil {
		return launch.FormatValue(t, v)
	}
	return fmt.Sprintf("%#x", v)
}

// shortValue formats a value in at most about 7 characters, for grid
// cells.
func shortValue(typ string, v uint64, hex bool) string {
	if hex || isBitsType(typ) {
		bits := typeBits(typ)
		if bits < 64 {
			v &= 1<<bits - 1
		}
		if bits > 32 {
			return fmt.Sprintf("%x", v)
		}
		return fmt.Sprintf("%0*x", max(bits/4, 1), v)
	}
	if typ == "tf32" {
		typ = "f32"
	}
	t, err := launch.ParseScalarType(typ)
	if err != nil {
		return fmt.Sprintf("%x", v)
	}
	if !t.IsFloat() {
		return launch.FormatValue(t, v)
	}
	f := launch.DecodeFloat(t, v)
	s := fmt.Sprintf("%.3g", f)
	if len(s) > 7 {
		s = fmt.Sprintf("%.1e", f)
		s = strings.Replace(strings.Replace(s, "e+0", "e", 1), "e-0", "e-", 1)
	}
	return s
}

// isBitsType reports whether typ is an untyped bit container (b8 to
// b128), shown in hex; bf16 is a float.
// isBitsType reports whether typ names an untyped bit type (.b8 to .b128).
func isBitsType(typ string) bool {
	t := ptx.LookupType(typ)
	return t.Kind() == ptx.KindBit && t.Bits() >= 8
}

// typeBits is the width of PTX type typ (1 for .pred), 32 for a name that
// is no PTX type.
func typeBits(typ string) int {
	if b := ptx.LookupType(typ).Bits(); b > 0 {
		return b
	}
	return 32
}

// readSource reads the PTX file a trace names: as written, then next to
// the trace file.
func readSource(name, traceDir string) ([]byte, string, error) {
	cands := []string{name}
	if traceDir != "" {
		cands = append(cands, traceDir+string(os.PathSeparator)+name, traceDir+string(os.PathSeparator)+baseName(name))
	}
	var firstErr error
	for _, c := range cands {
		b, err := os.ReadFile(c)
		if err == nil {
			return b, c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, "", firstErr
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// sortHazards orders findings as sim does: errors first, then by line.
func sortHazards(hs []hazardRow) {
	rank := map[string]int{"error": 0, "warning": 1, "perf": 2}
	sort.SliceStable(hs, func(i, j int) bool {
		if rank[hs[i].severity] != rank[hs[j].severity] {
			return rank[hs[i].severity] < rank[hs[j].severity]
		}
		return hs[i].line < hs[j].line
	})
}
