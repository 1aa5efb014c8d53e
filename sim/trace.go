package sim

import (
	"io"
	"sync"

	"github.com/tcsim/tcsim/sim/trace"
)

// The trace (Options.Trace) is written with package sim/trace, whose doc
// describes the format. The tracer serializes the records of concurrent
// CTAs and numbers the instructions.

type tracer struct {
	m     *Machine
	mu    sync.Mutex
	w     *trace.Writer
	seq   int64
	ended bool
}

// TraceVersion is the version of the trace format.
const TraceVersion = trace.Version

func newTracer(m *Machine, w io.Writer) *tracer {
	return &tracer{m: m, w: trace.NewWriter(w, trace.Header{File: m.Prog.Filename, Kernel: m.Prog.Kernel.Name,
		Grid: m.Grid, Block: m.Block, Cluster: m.Cluster, Schedule: m.Opts.Schedule.String()})}
}

// traceRegs reads registers regs of w out of frame (register r's lanes at
// frame[32r:]).
func traceRegs(w *Warp, regs []int32, frame []uint64) []trace.Reg {
	out := make([]trace.Reg, 0, len(regs))
	for _, r := range regs {
		tr := trace.Reg{Name: w.regName(r)}
		copy(tr.Lanes[:], frame[int(r)*32:int(r)*32+32])
		out = append(out, tr)
	}
	return out
}

func (t *tracer) inst(w *Warp, in *Inst, em uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	rec := trace.Inst{Seq: t.seq, CTA: w.cta.ID, Warp: w.ID, PC: in.PC, Line: in.Line, Inst: in.PTX.String(),
		Active: w.activeMaskAt(), Exec: em}
	_, async := in.ext.(*tcLdInfo)
	if t.m.Opts.TraceValues && em != 0 && in.class != clsWgmma && !async {
		var regs []int32
		for _, o := range in.dst {
			if o.K == oReg && int(o.R) < w.fn.NumRegs {
				regs = append(regs, o.R)
			}
		}
		rec.W = traceRegs(w, regs, w.r)
	}
	t.w.Inst(&rec)
}

// regs records registers written asynchronously (at a wgmma's completion,
// at tcgen05.wait::ld) as a "regs" event.
func (t *tracer) regs(w *Warp, regs []int32, frame []uint64) {
	if !t.m.Opts.TraceValues || len(regs) == 0 {
		return
	}
	t.event(&trace.Event{Kind: trace.Regs, CTA: w.cta.ID, Warp: w.ID, W: traceRegs(w, regs, frame)})
}

func (t *tracer) event(ev *trace.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.Event(ev)
}

func (t *tracer) hazard(h Hazard) {
	// called with m.mu held; the tracer has its own lock
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.Hazard(&trace.Hazard{Kind: string(h.Kind), Severity: h.Severity.String(), Pos: h.Pos.String(), CTA: h.CTA, Warp: h.Warp, Msg: h.Msg})
}

// FlushTrace ends the trace (with an "end" record) and flushes it; Run
// does this itself, a Stepper's user calls it when done stepping.
func (m *Machine) FlushTrace() {
	if m.trace != nil {
		m.trace.flush()
	}
}

func (t *tracer) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	t.ended = true
	errText := ""
	if t.m.err != nil {
		errText = t.m.err.Error()
	}
	t.w.End(trace.End{Steps: t.m.steps.Load(), Hazards: len(t.m.hazards.list), Error: errText})
}

// activeMaskAt is the active mask of the entry that just ran (the top of
// the stack, or nothing when the warp finished).
func (w *Warp) activeMaskAt() uint32 {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1].mask
}
