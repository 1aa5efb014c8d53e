package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// The trace is a JSON-lines file: one object per line, each with a "type".
//
//	{"type":"header","version":1,"file":"k.ptx","kernel":"k","grid":[1,1,1],"block":[128,1,1],"cluster":[1,1,1],"schedule":"lazy"}
//	{"type":"inst","seq":12,"cta":[0,0,0],"warp":1,"pc":40,"line":77,"inst":"add.s32 %r3, %r1, %r2","active":"0xffffffff","exec":"0xffffffff","w":{"%r3":["0x5",...]}}
//	{"type":"event","event":"mbarrier.phase","cta":[0,0,0],"addr":65536,"phase":1}
//	{"type":"hazard","kind":"wgmma/acc-read-before-wait","severity":"error","pos":"k.ptx:98:5","cta":[0,0,0],"warp":0,"msg":"..."}
//	{"type":"end","steps":1234,"hazards":1,"error":""}
//
// "seq" numbers records in execution order. "active" is the warp's active
// mask, "exec" the lanes that executed after the guard predicate. "w"
// (with Options.TraceValues) gives, for each destination register, its
// value in every lane of the warp after the instruction, as hex strings;
// lanes that did not execute keep their previous values. Events are async
// completions ("async.issue", "async.complete", "wgmma.complete"), mbarrier
// phase changes ("mbarrier.phase"), and "regs": registers written
// asynchronously, when a wgmma completes or a tcgen05.wait::ld lands its
// loads (with a "w" map like an instruction's; wgmma.mma_async and
// tcgen05.ld records themselves carry no "w"). A replayer rebuilds register
// state by applying the "w" maps of "inst" and "regs" records in order.

type tracer struct {
	m     *Machine
	mu    sync.Mutex
	w     *bufio.Writer
	seq   int64
	err   error
	ended bool
}

// TraceVersion is the version of the trace format.
const TraceVersion = 1

func newTracer(m *Machine, w io.Writer) *tracer {
	t := &tracer{m: m, w: bufio.NewWriterSize(w, 1<<16)}
	t.write(map[string]any{"type": "header", "version": TraceVersion, "file": m.Prog.Filename, "kernel": m.Prog.Kernel.Name,
		"grid": m.Grid, "block": m.Block, "cluster": m.Cluster, "schedule": m.Opts.Schedule.String()})
	return t
}

func (t *tracer) write(v any) {
	if t.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.err = err
		return
	}
	t.w.Write(b)
	t.err = t.w.WriteByte('\n')
}

type traceInst struct {
	Type   string              `json:"type"`
	Seq    int64               `json:"seq"`
	CTA    [3]int              `json:"cta"`
	Warp   int                 `json:"warp"`
	PC     int                 `json:"pc"`
	Line   int                 `json:"line"`
	Inst   string              `json:"inst"`
	Active string              `json:"active"`
	Exec   string              `json:"exec"`
	W      map[string][]string `json:"w,omitempty"`
}

func (t *tracer) inst(w *Warp, in *Inst, em uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	rec := traceInst{Type: "inst", Seq: t.seq, CTA: w.cta.ID, Warp: w.ID, PC: in.PC, Line: in.Line, Inst: in.PTX.String(),
		Active: fmt.Sprintf("%#08x", w.activeMaskAt()), Exec: fmt.Sprintf("%#08x", em)}
	_, async := in.ext.(*tcLdInfo)
	if t.m.Opts.TraceValues && em != 0 && in.class != clsWgmma && !async {
		for _, o := range in.dst {
			if o.K != oReg || int(o.R) >= w.fn.NumRegs {
				continue
			}
			if rec.W == nil {
				rec.W = map[string][]string{}
			}
			vals := make([]string, 32)
			r := w.reg(o.R)
			for l := 0; l < 32; l++ {
				vals[l] = fmt.Sprintf("%#x", r[l])
			}
			rec.W[w.regName(o.R)] = vals
		}
	}
	t.write(rec)
}

// regs records registers written asynchronously (at a wgmma's completion,
// at tcgen05.wait::ld) as a "regs" event with the same "w" map.
func (t *tracer) regs(w *Warp, regs []int32, frame []uint64) {
	if !t.m.Opts.TraceValues || len(regs) == 0 {
		return
	}
	vals := map[string][]string{}
	for _, r := range regs {
		v := make([]string, 32)
		for l := 0; l < 32; l++ {
			v[l] = fmt.Sprintf("%#x", frame[int(r)*32+l])
		}
		vals[w.regName(r)] = v
	}
	t.event(map[string]any{"event": "regs", "cta": w.cta.ID, "warp": w.ID, "w": vals})
}

func (t *tracer) event(ev map[string]any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev["type"] = "event"
	t.write(ev)
}

func (t *tracer) hazard(h Hazard) {
	// called with m.mu held; the tracer has its own lock
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(map[string]any{"type": "hazard", "kind": h.Kind, "severity": h.Severity.String(), "pos": h.Pos.String(),
		"cta": h.CTA, "warp": h.Warp, "msg": h.Msg})
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
	t.write(map[string]any{"type": "end", "steps": t.m.steps.Load(), "hazards": len(t.m.hazards.list), "error": errText})
	t.w.Flush()
}

// activeMaskAt is the active mask of the entry that just ran (the top of
// the stack, or nothing when the warp finished).
func (w *Warp) activeMaskAt() uint32 {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1].mask
}
