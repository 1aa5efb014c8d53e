package sim

import (
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"sort"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Stepper runs a launch under control, one CTA (or cluster) at a time and
// one instruction at a time: step a warp or round-robin, run to a
// breakpoint (pc, label or source line) or until a hazard, and inspect
// everything in between. It is the API behind the TUI's kernel stepper.
//
//	st := m.NewStepper()
//	st.BreakLine(359)
//	ev, err := st.Run(0)          // stops at line 359
//	r, _ := st.Reg(0, 0, "%f5")   // warp 0 of the first CTA, every lane
//	ev, err = st.Step()           // one more instruction
type Stepper struct {
	m            *Machine
	units        unitList
	ui           int
	u            *unit
	breaks       map[int]bool
	stopOnHazard bool
	pending      []Hazard
	reported     map[*Warp]int // warps stopped at a breakpoint, and its pc: they run past it next time
	done         bool
	err          error
	steps        int64
}

// StopReason says why the stepper stopped.
type StopReason int

const (
	StopStep        StopReason = iota // one instruction ran
	StopBreakpoint                    // the next instruction is a breakpoint
	StopHazard                        // a hazard was reported
	StopAsync                         // an asynchronous operation completed (no warp could run)
	StopLimit                         // the step limit of Run was reached
	StopDone                          // the whole grid finished
	StopError                         // a fault or deadlock
	StopInterrupted                   // RunUntil's stop function asked to stop
)

func (r StopReason) String() string {
	return [...]string{"step", "breakpoint", "hazard", "async", "limit", "done", "error", "interrupted"}[r]
}

// Event describes where the stepper stopped.
type Event struct {
	Reason  StopReason
	CTA     [3]int
	Warp    int // -1 when no warp is involved
	PC      int // the instruction that ran, or the breakpoint
	Pos     ptx.Position
	Inst    string
	Hazards []Hazard // reported since the previous stop
	Steps   int64    // warp-instructions executed so far
}

// NewStepper prepares controlled execution of the machine's launch. CTAs
// run one unit (CTA or cluster) at a time, in grid order.
func (m *Machine) NewStepper() *Stepper {
	s := &Stepper{m: m, units: m.units(), breaks: map[int]bool{}}
	m.stepper = s
	if m.Opts.Trace != nil && m.trace == nil {
		m.trace = newTracer(m, m.Opts.Trace)
	}
	return s
}

func (s *Stepper) onHazard(h Hazard) { s.pending = append(s.pending, h) }

// StopOnHazard makes Run stop after an instruction that reports a hazard.
func (s *Stepper) StopOnHazard(on bool) { s.stopOnHazard = on }

// Break sets a breakpoint at pc.
func (s *Stepper) Break(pc int) error {
	if pc < 0 || pc >= len(s.m.Prog.Insts) {
		return fmt.Errorf("no instruction at pc %d (the program has %d)", pc, len(s.m.Prog.Insts))
	}
	s.breaks[pc] = true
	return nil
}

// BreakLabel sets a breakpoint at a label of the kernel (or of function
// fn, written "fn:label").
func (s *Stepper) BreakLabel(name string) error {
	var f *Function
	if i := strings.LastIndex(name, ":"); i > 0 && !strings.Contains(name[:i], ":") {
		f = s.m.Prog.Function(name[:i])
		if f == nil {
			return fmt.Errorf("no function %s", name[:i])
		}
		name = name[i+1:]
	}
	pc, ok := s.m.Prog.LabelPC(f, name)
	if !ok {
		return fmt.Errorf("no label %s in %s", name, demangle.Short(s.m.Prog.Kernel.Name))
	}
	return s.Break(pc)
}

// BreakLine sets breakpoints on every instruction of a source line.
func (s *Stepper) BreakLine(line int) error {
	pcs := s.m.Prog.PCsAtLine(line)
	if len(pcs) == 0 {
		return fmt.Errorf("line %d of %s has no instruction", line, s.m.Prog.Filename)
	}
	for _, pc := range pcs {
		s.breaks[pc] = true
	}
	return nil
}

// BreakSpec sets a breakpoint from text: a pc ("pc:12"), a source line
// ("359" or "file.ptx:359"), or a label ("$L__BB0_8").
func (s *Stepper) BreakSpec(spec string) error {
	if strings.HasPrefix(spec, "pc:") {
		pc, err := strconv.Atoi(spec[3:])
		if err != nil {
			return fmt.Errorf("breakpoint %q: want pc:N", spec)
		}
		return s.Break(pc)
	}
	l := spec
	if i := strings.LastIndex(spec, ":"); i >= 0 && strings.HasSuffix(spec[:i], ".ptx") {
		l = spec[i+1:]
	}
	if n, err := strconv.Atoi(l); err == nil {
		return s.BreakLine(n)
	}
	return s.BreakLabel(spec)
}

// ClearBreaks removes every breakpoint.
func (s *Stepper) ClearBreaks() { s.breaks = map[int]bool{} }

// unit returns the current unit, starting the next one when needed.
func (s *Stepper) unit() *unit {
	for s.u == nil && s.ui < s.units.Len() {
		if !s.m.claimUnit(s.ui) { // cancelled by clusterlaunchcontrol
			s.ui++
			continue
		}
		s.u = s.m.newUnit(s.units.At(s.ui))
	}
	return s.u
}

func (s *Stepper) event(r StopReason, w *Warp, pc int) Event {
	ev := Event{Reason: r, Warp: -1, PC: pc, Hazards: s.pending, Steps: s.steps}
	s.pending = nil
	if w != nil {
		ev.CTA, ev.Warp = w.cta.ID, w.ID
	}
	if pc >= 0 && pc < len(s.m.Prog.Insts) {
		in := &s.m.Prog.Insts[pc]
		ev.Pos, ev.Inst = s.m.Prog.pos(in), in.PTX.String()
	}
	return ev
}

// Step runs one instruction of the next ready warp (round-robin).
func (s *Stepper) Step() (Event, error) { return s.step(nil, false) }

// StepWarp runs one instruction of warp warp of CTA cta (an index into
// CTAs). It fails when that warp is blocked or finished.
func (s *Stepper) StepWarp(cta, warp int) (Event, error) {
	u := s.unit()
	if u == nil {
		return s.event(StopDone, nil, -1), nil
	}
	if cta < 0 || cta >= len(u.ctas) || warp < 0 || warp >= len(u.ctas[cta].Warps) {
		return Event{}, fmt.Errorf("no warp %d in CTA %d of the current unit (%d CTAs of %d warps)", warp, cta, len(u.ctas), len(u.ctas[0].Warps))
	}
	w := u.ctas[cta].Warps[warp]
	if w.state == warpDone {
		return Event{}, fmt.Errorf("warp %d has exited", warp)
	}
	if !w.ready() {
		return Event{}, fmt.Errorf("warp %d cannot run: it %s", warp, w.waitReason())
	}
	return s.step(w, false)
}

func (s *Stepper) step(only *Warp, checkBreak bool) (Event, error) {
	if s.err != nil {
		return s.event(StopError, nil, -1), s.err
	}
	for {
		u := s.unit()
		if u == nil {
			s.done = true
			return s.event(StopDone, nil, -1), nil
		}
		w := only
		if w == nil {
			n := len(u.warps)
			allDone := true
			for i := 0; i < n; i++ {
				c := u.warps[(u.next+i)%n]
				if c.state == warpDone {
					continue
				}
				allDone = false
				if c.ready() {
					w = c
					u.next = (u.next + i + 1) % n
					break
				}
			}
			if allDone {
				u.finish()
				s.u, s.ui = nil, s.ui+1
				if s.ui >= s.units.Len() {
					s.done = true
					s.m.reportBankConflicts()
					if s.m.trace != nil {
						s.m.trace.flush()
					}
					return s.event(StopDone, nil, -1), nil
				}
				continue
			}
			if w == nil {
				if u.completeAsync() {
					return s.event(StopAsync, nil, -1), nil
				}
				s.err = u.deadlock()
				return s.event(StopError, nil, -1), s.err
			}
		}
		pc := w.PC()
		if rpc, ok := s.reported[w]; checkBreak && s.breaks[pc] && (!ok || rpc != pc) {
			if s.reported == nil {
				s.reported = map[*Warp]int{}
			}
			s.reported[w] = pc
			return s.event(StopBreakpoint, w, pc), nil
		}
		delete(s.reported, w) // it runs: a later visit to the breakpoint stops again
		before := w.steps
		if err := u.runWarp(w, 1, nil); err != nil {
			s.err = err
			s.m.setErr(err)
			return s.event(StopError, w, pc), err
		}
		s.steps += w.steps - before
		return s.event(StopStep, w, pc), nil
	}
}

// Run steps until a breakpoint, a hazard (with StopOnHazard), the end of
// the grid, an error, or limit instructions (0: no limit).
func (s *Stepper) Run(limit int64) (Event, error) { return s.RunUntil(limit, nil) }

// RunUntil is Run that also stops, with StopInterrupted, when stop
// returns true; it asks after every instruction (not after an
// asynchronous completion). stop may read state that
// another goroutine sets (an atomic flag): the TUI interrupts a long run
// that way.
func (s *Stepper) RunUntil(limit int64, stop func() bool) (Event, error) {
	start := s.steps
	for {
		ev, err := s.step(nil, true)
		if err != nil || ev.Reason == StopDone || ev.Reason == StopBreakpoint {
			return ev, err
		}
		if s.stopOnHazard && len(ev.Hazards) > 0 {
			ev.Reason = StopHazard
			return ev, nil
		}
		if limit > 0 && s.steps-start >= limit {
			ev.Reason = StopLimit
			return ev, nil
		}
		if stop != nil && ev.Reason == StopStep && stop() {
			// Only after an instruction: a replay with limit = the
			// instructions run stops at the same point.
			ev.Reason = StopInterrupted
			return ev, nil
		}
		s.pending = append(ev.Hazards, s.pending...)
	}
}

// Done reports whether the grid has finished.
func (s *Stepper) Done() bool { return s.done }

// Inspection -------------------------------------------------------------------

// WarpState is a snapshot of one warp.
type WarpState struct {
	CTA    [3]int
	Warp   int
	PC     int // -1 when exited
	Pos    ptx.Position
	Inst   string
	PTX    *ptx.Instruction // the parsed instruction (nil when exited)
	Active uint32           // lanes of the top reconvergence entry
	Exited uint32
	State  string // "ready", "blocked", "done"
	Wait   string // why it is blocked
	Depth  int    // reconvergence stack depth
	Func   string
}

// CTAs lists the CTAs of the current unit.
func (s *Stepper) CTAs() [][3]int {
	u := s.unit()
	if u == nil {
		return nil
	}
	var out [][3]int
	for _, c := range u.ctas {
		out = append(out, c.ID)
	}
	return out
}

// Warps snapshots every warp of the current unit.
func (s *Stepper) Warps() []WarpState {
	u := s.unit()
	if u == nil {
		return nil
	}
	var out []WarpState
	for _, w := range u.warps {
		ws := WarpState{CTA: w.cta.ID, Warp: w.ID, PC: w.PC(), Exited: w.exited, Active: w.activeMask(), Depth: len(w.stack), Func: w.fn.Name}
		switch w.state {
		case warpReady:
			ws.State = "ready"
		case warpBlocked:
			ws.State, ws.Wait = "blocked", w.waitReason()
		default:
			ws.State = "done"
		}
		if in := w.currentInst(); in != nil && w.state != warpDone {
			ws.Pos, ws.Inst, ws.PTX = s.m.Prog.pos(in), in.PTX.String(), in.PTX
		}
		out = append(out, ws)
	}
	return out
}

func (s *Stepper) warp(cta, warp int) (*Warp, error) {
	u := s.unit()
	if u == nil {
		return nil, fmt.Errorf("the grid has finished")
	}
	if cta < 0 || cta >= len(u.ctas) {
		return nil, fmt.Errorf("no CTA %d in the current unit (it has %d)", cta, len(u.ctas))
	}
	c := u.ctas[cta]
	if warp < 0 || warp >= len(c.Warps) {
		return nil, fmt.Errorf("no warp %d (the CTA has %d)", warp, len(c.Warps))
	}
	return c.Warps[warp], nil
}

// Reg returns a register's value in every lane of a warp (by its PTX name,
// e.g. "%f5", "%rd3"; predicates give 0 or 1; 128-bit registers give the
// low half).
func (s *Stepper) Reg(cta, warp int, name string) ([32]uint64, error) {
	var out [32]uint64
	w, err := s.warp(cta, warp)
	if err != nil {
		return out, err
	}
	for i, n := range w.fn.RegNames {
		if n == name {
			copy(out[:], w.r[i*32:i*32+32])
			return out, nil
		}
	}
	for i, n := range w.fn.PredNames {
		if n == name {
			for l := 0; l < 32; l++ {
				out[l] = uint64(w.p[i] >> l & 1)
			}
			return out, nil
		}
	}
	return out, fmt.Errorf("%s has no register %s", w.fn.Name, name)
}

// Regs lists the register names of the warp's current function.
func (s *Stepper) Regs(cta, warp int) ([]string, error) {
	w, err := s.warp(cta, warp)
	if err != nil {
		return nil, err
	}
	return append(append([]string(nil), w.fn.RegNames...), w.fn.PredNames...), nil
}

// Shared returns n bytes of a CTA's shared memory at off.
func (s *Stepper) Shared(cta, off, n int) ([]byte, error) {
	u := s.unit()
	if u == nil || cta < 0 || cta >= len(u.ctas) {
		return nil, fmt.Errorf("no CTA %d", cta)
	}
	return u.ctas[cta].ReadShared(off, n)
}

// TMEM returns a Tensor Memory cell of a CTA.
func (s *Stepper) TMEM(cta, lane, col int) (uint32, error) {
	u := s.unit()
	if u == nil || cta < 0 || cta >= len(u.ctas) {
		return 0, fmt.Errorf("no CTA %d", cta)
	}
	v, ok := u.ctas[cta].TMEM(lane, col)
	if !ok {
		return 0, fmt.Errorf("TMEM cell (lane %d, column %d) does not exist or TMEM is unused", lane, col)
	}
	return v, nil
}

// MbarrierState is a snapshot of one mbarrier.
type MbarrierState struct {
	Addr     uint32
	Live     bool
	Phase    uint64
	Expected int64
	Pending  int64
	TxCount  int64
	InitPos  ptx.Position
}

// Mbarriers lists the mbarriers of a CTA, by address.
func (s *Stepper) Mbarriers(cta int) []MbarrierState {
	u := s.unit()
	if u == nil || cta < 0 || cta >= len(u.ctas) {
		return nil
	}
	var out []MbarrierState
	for _, mb := range u.ctas[cta].mbars {
		out = append(out, MbarrierState{Addr: mb.addr, Live: mb.live, Phase: mb.phase, Expected: mb.expected,
			Pending: mb.pending, TxCount: mb.tx, InitPos: s.m.Prog.pos(&s.m.Prog.Insts[mb.initPC])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// InFlight lists the asynchronous operations in flight in the current
// unit: queued copies and tcgen05 work, and wgmma operations not yet
// completed.
func (s *Stepper) InFlight() []AsyncOp {
	u := s.unit()
	if u == nil {
		return nil
	}
	out := u.inFlight()
	for _, c := range u.ctas {
		for _, wg := range c.wgs {
			for _, op := range wg.ops {
				in := op.in[0]
				for k := 0; in == nil && k < 4; k++ {
					in = op.in[k]
				}
				out = append(out, AsyncOp{Kind: "wgmma.mma_async", CTA: c.ID, Thread: 128 * wg.idx, Pos: s.m.Prog.pos(in),
					Desc:  fmt.Sprintf("warpgroup %d op #%d, issued by warps %04b, group %d", wg.idx, op.idx+1, op.issuedBy, op.group),
					Wgmma: &WgmmaInFlight{Warpgroup: wg.idx, Op: op.idx, IssuedBy: uint8(op.issuedBy), Group: op.group}})
			}
		}
	}
	return out
}
