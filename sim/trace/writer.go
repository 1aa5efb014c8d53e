package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Writer writes a trace. It is not safe for concurrent use: the
// simulator serializes its records. The first write error sticks: later
// writes do nothing and Err and End return it.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter starts a trace on w with its header (h.Version is set to
// Version).
func NewWriter(w io.Writer, h Header) *Writer {
	t := &Writer{w: bufio.NewWriterSize(w, 1<<16)}
	// Field order is the key order of version 1 (alphabetical).
	t.write(struct {
		Block    [3]int `json:"block"`
		Cluster  [3]int `json:"cluster"`
		File     string `json:"file"`
		Grid     [3]int `json:"grid"`
		Kernel   string `json:"kernel"`
		Schedule string `json:"schedule"`
		Type     string `json:"type"`
		Version  int    `json:"version"`
	}{h.Block, h.Cluster, h.File, h.Grid, h.Kernel, h.Schedule, "header", Version})
	return t
}

func (t *Writer) write(v any) {
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

// hexLanes is a register's lanes as the file writes them.
func hexLanes(regs []Reg) map[string][]string {
	if len(regs) == 0 {
		return nil
	}
	m := make(map[string][]string, len(regs))
	for _, r := range regs {
		vals := make([]string, 32)
		for l, v := range r.Lanes {
			vals[l] = fmt.Sprintf("%#x", v)
		}
		m[r.Name] = vals
	}
	return m
}

// Inst writes an instruction record.
func (t *Writer) Inst(r *Inst) {
	t.write(struct {
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
	}{"inst", r.Seq, r.CTA, r.Warp, r.PC, r.Line, r.Inst, fmt.Sprintf("%#08x", r.Active), fmt.Sprintf("%#08x", r.Exec), hexLanes(r.W)})
}

// Event writes an event record with the fields of its kind.
func (t *Writer) Event(e *Event) {
	ev := string(e.Kind)
	switch e.Kind {
	case AsyncIssue:
		t.write(struct {
			CTA    [3]int `json:"cta"`
			Desc   string `json:"desc"`
			Event  string `json:"event"`
			Kind   string `json:"kind"`
			PC     int    `json:"pc"`
			Thread int    `json:"thread"`
			Type   string `json:"type"`
		}{e.CTA, e.Desc, ev, e.Op, e.PC, e.Thread, "event"})
	case AsyncComplete:
		t.write(struct {
			CTA    [3]int `json:"cta"`
			Event  string `json:"event"`
			Kind   string `json:"kind"`
			PC     int    `json:"pc"`
			Thread int    `json:"thread"`
			Type   string `json:"type"`
		}{e.CTA, ev, e.Op, e.PC, e.Thread, "event"})
	case MbarrierPhase:
		t.write(struct {
			Addr  uint32 `json:"addr"`
			CTA   [3]int `json:"cta"`
			Event string `json:"event"`
			Phase uint64 `json:"phase"`
			Type  string `json:"type"`
		}{e.Addr, e.CTA, ev, e.Phase, "event"})
	case WgmmaComplete:
		t.write(struct {
			CTA       [3]int `json:"cta"`
			Event     string `json:"event"`
			Op        int    `json:"op"`
			PC        int    `json:"pc"`
			Type      string `json:"type"`
			Warpgroup int    `json:"warpgroup"`
		}{e.CTA, ev, e.WgmmaOp, e.PC, "event", e.Warpgroup})
	case Regs:
		t.write(struct {
			CTA   [3]int              `json:"cta"`
			Event string              `json:"event"`
			Type  string              `json:"type"`
			W     map[string][]string `json:"w"`
			Warp  int                 `json:"warp"`
		}{e.CTA, ev, "event", hexLanes(e.W), e.Warp})
	default:
		if t.err == nil {
			t.err = fmt.Errorf("trace: unknown event %q", e.Kind)
		}
	}
}

// Hazard writes a hazard record.
func (t *Writer) Hazard(h *Hazard) {
	t.write(struct {
		CTA      [3]int `json:"cta"`
		Kind     string `json:"kind"`
		Msg      string `json:"msg"`
		Pos      string `json:"pos"`
		Severity string `json:"severity"`
		Type     string `json:"type"`
		Warp     int    `json:"warp"`
	}{h.CTA, h.Kind, h.Msg, h.Pos, h.Severity, "hazard", h.Warp})
}

// End writes the end record and flushes the trace; it returns the first
// error of any write.
func (t *Writer) End(e End) error {
	t.write(struct {
		Error   string `json:"error"`
		Hazards int    `json:"hazards"`
		Steps   int64  `json:"steps"`
		Type    string `json:"type"`
	}{e.Error, e.Hazards, e.Steps, "end"})
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}

// Err returns the first write error, or nil.
func (t *Writer) Err() error { return t.err }
