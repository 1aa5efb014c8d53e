package tui

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/sim/trace"
)

// Replaying a parsed trace (stepper_trace.go): applying records, stepping
// forwards and back, and answering the stepper's questions (warps,
// registers, hazards, in-flight operations) from the replayed state.

func (b *traceBackend) reset() {
	b.st = trState{regs: map[wkey]map[string][32]uint64{}, mbars: map[mkey]uint64{}, wgNext: map[wkey]int{},
		wgOps: map[wgKey]*wgOp{}, wgDone: map[wgKey]bool{}}
}

// apply applies the next record.
func (b *traceBackend) apply() {
	st := &b.st
	r := &b.recs[st.pos]
	st.pos++
	switch r.Type {
	case trace.TypeInst:
		in := r.Inst
		st.setRegs(in.CTA, in.Warp, in.W)
		st.insts++
		st.last = in
		if b.isWgmma(in) {
			k := wkey{in.CTA, in.Warp}
			idx := st.wgNext[k]
			st.wgNext[k]++
			ok := wgKey{in.CTA, in.Warp / 4, idx}
			op := st.wgOps[ok]
			if op == nil {
				op = &wgOp{line: in.Line}
				st.wgOps[ok] = op
			}
			op.warps |= 1 << (in.Warp % 4)
		}
	case trace.TypeHazard:
		h := r.Hazard
		row := hazardRow{kind: h.Kind, severity: h.Severity, pos: h.Pos, line: h.Line(), cta: h.CTA, warp: h.Warp, msg: h.Msg, count: 1}
		st.hazards = append(st.hazards, row)
		st.newHz = append(st.newHz, row)
	case trace.TypeEnd:
		st.end = r.End
	case trace.TypeEvent:
		e := r.Event
		switch e.Kind {
		case trace.Regs:
			st.setRegs(e.CTA, e.Warp, e.W)
		case trace.AsyncIssue:
			st.async = append(st.async, asyncRow{kind: e.Op, line: b.pcLine[e.PC], cta: e.CTA, thread: e.Thread, desc: e.Desc})
			st.asyncEvt = true
		case trace.AsyncComplete:
			line := b.pcLine[e.PC]
			for i, a := range st.async {
				if a.kind == e.Op && a.cta == e.CTA && a.thread == e.Thread && a.line == line {
					st.async = append(st.async[:i], st.async[i+1:]...)
					break
				}
			}
			st.asyncEvt = true
		case trace.WgmmaComplete:
			st.wgDone[wgKey{e.CTA, e.Warpgroup, e.WgmmaOp}] = true
			st.asyncEvt = true
		case trace.MbarrierPhase:
			st.mbars[mkey{e.CTA, e.Addr}] = e.Phase
		}
	}
}

// setRegs records register values a warp received.
func (st *trState) setRegs(cta [3]int, warp int, regs []trace.Reg) {
	if len(regs) == 0 {
		return
	}
	k := wkey{cta, warp}
	m := st.regs[k]
	if m == nil {
		m = map[string][32]uint64{}
		st.regs[k] = m
	}
	for _, v := range regs {
		m[v.Name] = v.Lanes
	}
}

// regNames lists the registers of an instruction record from its parsed
// PTX: the source's instruction at its line, or (without the source) the
// record's text read by the PTX parser. Cached by pc.
func (b *traceBackend) regNames(in *trace.Inst) []string {
	if names, ok := b.regsByPC[in.PC]; ok {
		return names
	}
	var names []string
	if x := b.parsed(in); x != nil {
		names = x.RegNames()
	}
	if b.regsByPC == nil {
		b.regsByPC = map[int][]string{}
	}
	b.regsByPC[in.PC] = names
	return names
}

// isWgmma reports whether an instruction record is a wgmma.mma_async: by
// the opcode of the parsed instruction of its line when the source
// parsed, else of the record's instruction read by the PTX parser (cached
// by pc, as regNames is).
func (b *traceBackend) isWgmma(in *trace.Inst) bool {
	return b.parsed(in) != nil && b.parsed(in).Opcode == "wgmma.mma_async"
}

// parsed is the parsed instruction of a record: the source's at its line,
// or the record's text read by the PTX parser; nil when neither parses.
func (b *traceBackend) parsed(in *trace.Inst) *ptx.Instruction {
	if x := b.module[in.Line]; x != nil {
		return x
	}
	if x, ok := b.instByPC[in.PC]; ok {
		return x
	}
	x, err := ptx.ParseInstruction(in.Inst)
	if err != nil {
		x = nil
	}
	if b.instByPC == nil {
		b.instByPC = map[int]*ptx.Instruction{}
	}
	b.instByPC[in.PC] = x
	return x
}

// forward applies records up to and including the next instruction
// record; it reports whether it applied any.
func (b *traceBackend) forward() bool {
	if b.st.pos >= len(b.recs) {
		return false
	}
	for b.st.pos < len(b.recs) {
		r := &b.recs[b.st.pos]
		b.apply()
		if r.Type == trace.TypeInst {
			// Hazards and events of the next instruction come before its
			// record: they belong to the next step.
			break
		}
	}
	if b.st.pos < len(b.recs) && !b.moreInsts() {
		// Nothing but trailing events and the end record: apply them.
		for b.st.pos < len(b.recs) {
			b.apply()
		}
	}
	return true
}

// moreInsts reports whether an instruction record is left.
func (b *traceBackend) moreInsts() bool {
	for i := b.st.pos; i < len(b.recs); i++ {
		if b.recs[i].Type == trace.TypeInst {
			return true
		}
	}
	return false
}

// seek rebuilds the state at position pos. It asks the halt function
// every 4096 records and reports false when it said stop (the state is
// then partial: the caller restores the one it had).
func (b *traceBackend) seek(pos int) bool {
	b.reset()
	for b.st.pos < pos {
		if b.st.pos%4096 == 0 && b.halt != nil && b.halt() {
			return false
		}
		b.apply()
	}
	return true
}

func (b *traceBackend) kind() string    { return "trace" }
func (b *traceBackend) kernel() string  { return b.header.Kernel }
func (b *traceBackend) file() string    { return b.header.File }
func (b *traceBackend) lines() []string { return b.src }
func (b *traceBackend) threads() int {
	return max(b.header.Block[0], 1) * max(b.header.Block[1], 1) * max(b.header.Block[2], 1)
}
func (b *traceBackend) hasInst(l int) bool { return b.lineOK[l] }
func (b *traceBackend) steps() int64       { return b.st.insts }
func (b *traceBackend) done() bool         { return b.st.pos >= len(b.recs) }

func (b *traceBackend) last() stopInfo {
	s := stopInfo{reason: "start", warp: -1, steps: b.st.insts, hazards: b.st.newHz}
	if r := b.st.last; r != nil {
		s.reason, s.line, s.cta, s.warp, s.inst = "step", r.Line, r.CTA, r.Warp, r.Inst
		switch b.stop {
		case "hazard", "limit", "back", "interrupted":
			s.reason = b.stop
		}
	}
	if b.stop == "breakpoint" {
		if n := b.nextRec(); n != nil {
			s.reason, s.line, s.cta, s.warp, s.inst = "breakpoint", n.Line, n.CTA, n.Warp, n.Inst
		}
	}
	if b.done() {
		s.reason = "done"
		if e := b.st.end; e != nil && e.Error != "" {
			s.reason, s.err = "error", e.Error
		}
	}
	return s
}

// nextRec is the next instruction record, or nil at the end.
func (b *traceBackend) nextRec() *trace.Inst {
	for i := b.st.pos; i < len(b.recs); i++ {
		if in := b.recs[i].Inst; in != nil {
			return in
		}
	}
	return nil
}

// begin starts an action: it remembers where it started.
func (b *traceBackend) begin() error {
	if b.done() {
		return errors.New("the trace has ended")
	}
	b.stops = append(b.stops, b.st.pos)
	b.st.newHz = nil
	b.st.asyncEvt = false
	return nil
}

func (b *traceBackend) step() error {
	if err := b.begin(); err != nil {
		return err
	}
	b.forward()
	b.stop = "step"
	return nil
}

func (b *traceBackend) stepWarp(cta, warp int) error {
	k, err := b.warpKey(cta, warp)
	if err != nil {
		return err
	}
	next := b.nextInst(k)
	if next < 0 {
		return fmt.Errorf("warp %d executes no more instructions in the trace", warp)
	}
	if err := b.begin(); err != nil {
		return err
	}
	for b.st.pos <= next {
		b.forward()
	}
	b.stop = "step"
	return nil
}

func (b *traceBackend) warpKey(cta, warp int) (wkey, error) {
	cs := b.ctas()
	if cta < 0 || cta >= len(cs) {
		return wkey{}, fmt.Errorf("no CTA %d in the trace", cta)
	}
	return wkey{cs[cta], warp}, nil
}

// nextInst is the index of warp k's next instruction record, or -1.
func (b *traceBackend) nextInst(k wkey) int {
	idx := b.warpInsts[k]
	i := sort.SearchInts(idx, b.st.pos)
	if i < len(idx) {
		return idx[i]
	}
	return -1
}

// run replays until the next instruction record is on a breakpoint line,
// a hazard is recorded (with hazard), limit instructions or the end. As in
// the live simulation, a run that starts at the breakpoint it stopped at
// goes past it.
func (b *traceBackend) run(breaks []int, hazard bool, limit int64) error {
	resume := b.stop == "breakpoint"
	if err := b.begin(); err != nil {
		return err
	}
	bp := map[int]bool{}
	for _, l := range breaks {
		bp[l] = true
	}
	atBreak := func() bool {
		n := b.nextRec()
		return n != nil && bp[n.Line]
	}
	if !resume && atBreak() {
		b.stop = "breakpoint"
		return nil
	}
	b.stop = "step"
	start := b.st.insts
	for b.forward() {
		switch {
		case hazard && len(b.st.newHz) > 0:
			b.stop = "hazard"
			return nil
		case limit > 0 && b.st.insts-start >= limit:
			b.stop = "limit"
			return nil
		case atBreak():
			b.stop = "breakpoint"
			return nil
		case b.halt != nil && b.halt():
			b.stop = "interrupted"
			return nil
		}
	}
	return nil
}

func (b *traceBackend) setHalt(halt func() bool) { b.halt = halt }

func (b *traceBackend) back(toStop bool) error {
	if b.st.pos == 0 {
		return errors.New("at the start of the trace: nothing to step back to")
	}
	target := 0
	if toStop && len(b.stops) > 0 {
		target = b.stops[len(b.stops)-1]
	} else {
		// The previous instruction boundary: just after the instruction
		// record before the last one applied.
		i := b.st.pos - 1
		for i >= 0 && b.recs[i].Type != trace.TypeInst {
			i--
		}
		// i is the last instruction applied (or -1): go to just after the
		// one before it.
		j := i - 1
		for j >= 0 && b.recs[j].Type != trace.TypeInst {
			j--
		}
		target = j + 1
		if i < 0 {
			target = 0
		}
	}
	old, oldStops := b.st, append([]int(nil), b.stops...)
	for len(b.stops) > 0 && b.stops[len(b.stops)-1] >= target {
		b.stops = b.stops[:len(b.stops)-1]
	}
	if !b.seek(target) {
		// seek built a new state: the old one is intact.
		b.st, b.stops = old, oldStops
		return errStopped
	}
	b.st.newHz = nil
	b.stop = "back"
	return nil
}

// ctas lists the CTAs of the trace (its runs are one CTA at a time).
func (b *traceBackend) ctas() [][3]int { return b.ctaList }

func (b *traceBackend) warps() []warpRow {
	var out []warpRow
	for i, c := range b.ctaList {
		for _, k := range b.warpKeys {
			if k.cta != c {
				continue
			}
			r := warpRow{cta: c, ctaIdx: i, warp: k.warp, pc: -1, state: "done"}
			if n := b.nextInst(k); n >= 0 {
				rec := b.recs[n].Inst
				r.pc, r.line, r.inst, r.state, r.active = rec.PC, rec.Line, rec.Inst, "ready", rec.Active
				r.regs = b.regNames(rec)
				if idx := b.warpInsts[k]; idx[0] == n && b.st.pos <= n {
					r.wait = "has not started"
				}
			}
			out = append(out, r)
		}
	}
	return out
}

func (b *traceBackend) hazards() []hazardRow {
	out := append([]hazardRow(nil), b.st.hazards...)
	sortHazards(out)
	return out
}

func (b *traceBackend) inflight() []asyncRow {
	out := append([]asyncRow(nil), b.st.async...)
	var keys []wgKey
	for k := range b.st.wgOps {
		if !b.st.wgDone[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].wg != keys[j].wg {
			return keys[i].wg < keys[j].wg
		}
		return keys[i].op < keys[j].op
	})
	for _, k := range keys {
		op := b.st.wgOps[k]
		out = append(out, asyncRow{kind: "wgmma.mma_async", line: op.line, cta: k.cta, thread: 128 * k.wg,
			desc: fmt.Sprintf("warpgroup %d op #%d, %s", k.wg, k.op+1, issuedBy(op.warps, -2))})
	}
	return out
}

func (b *traceBackend) mbarriers(cta int) []mbarRow {
	if cta < 0 || cta >= len(b.ctaList) {
		return nil
	}
	var out []mbarRow
	for k, ph := range b.st.mbars {
		if k.cta == b.ctaList[cta] {
			out = append(out, mbarRow{addr: k.addr, phase: ph, live: true, onlyPhase: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

func (b *traceBackend) regs(cta, warp int) []regInfo {
	k, err := b.warpKey(cta, warp)
	if err != nil {
		return nil
	}
	var names []string
	for n := range b.st.regs[k] {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return regLess(names[i], names[j]) })
	out := make([]regInfo, len(names))
	for i, n := range names {
		out[i] = regInfo{name: n, typ: guessType(n)}
	}
	return out
}

// regLess orders register names by prefix, then number: %f2 < %f10 < %p1.
func regLess(a, b string) bool {
	pa, na := splitReg(a)
	pb, nb := splitReg(b)
	if pa != pb {
		return pa < pb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

func splitReg(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}

func (b *traceBackend) reg(cta, warp int, name string) ([32]uint64, error) {
	k, err := b.warpKey(cta, warp)
	if err != nil {
		return [32]uint64{}, err
	}
	v, ok := b.st.regs[k][name]
	if !ok {
		return v, fmt.Errorf("the trace has not written %s in warp %d yet", name, warp)
	}
	return v, nil
}

func (b *traceBackend) smemSize() int { return 0 }

func (b *traceBackend) shared(int, int, int) ([]byte, error) {
	return nil, errors.New("a trace holds no shared-memory contents")
}

func (b *traceBackend) tmem(int, int, int) (uint32, error) {
	return 0, errors.New("a trace holds no Tensor Memory contents")
}

func (b *traceBackend) fragments(line int) (string, []fragInfo, error) {
	if b.module == nil {
		return "", nil, fmt.Errorf("the fragment view needs the PTX file %s, which could not be read or parsed", b.header.File)
	}
	in := b.module[line]
	if in == nil {
		return "", nil, fmt.Errorf("line %d has no instruction", line)
	}
	frs, err := sim.StaticFragments(in)
	return in.String(), fragInfos(frs), err
}

func (b *traceBackend) missing(p paneKind) string {
	switch p {
	case paneSMEM:
		return "A trace records no shared-memory contents. Open the kernel with --run and --launch to inspect them."
	case paneTMEM:
		return "A trace records no Tensor Memory contents. Open the kernel with --run and --launch to inspect them."
	case paneRegs:
		if !b.hasValues() {
			return "This trace has no register values: record it with tcsim run --trace FILE --trace-values."
		}
	}
	return ""
}

func (b *traceBackend) sourceMapped() bool { return b.smap != nil && b.smap.mapped }

func (b *traceBackend) sourceAt(n int) (srcRef, bool) { return b.smap.at(n, b.src) }

func (b *traceBackend) hasValues() bool {
	for _, r := range b.recs {
		if r.Inst != nil && len(r.Inst.W) > 0 || r.Event != nil && len(r.Event.W) > 0 {
			return true
		}
	}
	return false
}
