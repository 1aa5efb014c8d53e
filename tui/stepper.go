package tui

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"

	"github.com/tcsim/tcsim/internal/demangle"
)

// paneKind names the stepper's panes.
type paneKind int

const (
	paneSource paneKind = iota
	paneRegs
	paneFrag
	paneSMEM
	paneTMEM
	paneAsync
	paneWarps
	paneHazards
)

var paneNames = [...]string{"source", "regs", "frag", "smem", "tmem", "async", "warps", "hazards"}

// tabPanes are the panes the right-hand side shows one at a time.
var tabPanes = []paneKind{paneRegs, paneFrag, paneSMEM, paneTMEM, paneAsync, paneWarps, paneHazards}

// runLimit bounds one run key press (r, h), so that a kernel that spins
// forever hands the terminal back; press again to go on.
const runLimit = 1 << 22

// stepperView is the kernel stepper: a PTX kernel simulated instruction by
// instruction (or a trace replayed), with the source and each warp's
// position, the selected thread's registers, the fragment of the selected
// matrix operand with its values, shared memory, Tensor Memory, the
// asynchronous operations in flight, the warps and the hazards.
type stepperView struct {
	be      stepBackend // nil: nothing loaded
	running *runState   // a long action in progress (stepper_run.go), or nil
	runSeq  int
	w, h    int
	focus   paneKind // the pane the navigation keys move in
	tab     paneKind // the right-hand pane
	zoom    bool     // the focused pane fills the body
	hexVals bool
	breaks  map[int]bool
	cta     int // selected CTA (index into be.ctas())
	thread  int // selected thread of the CTA
	msg     string
	keys    stepperKeys

	src      listState // cursor: source line index (0-based)
	regsL    listState
	regSel   string
	hz       listState
	warpsL   listState
	asyncTop int
	smem     listState // cursor: row of the hex dump
	smemMode int       // 0 bytes, 1 bf16, 2 f32
	tmemCur  [2]int    // lane, column
	tmemTop  [2]int
	frag     fragState

	input    textinput.Model
	inputOn  bool
	inputFor string // what the input is for: "goto" or "search"

	// the source pane's view (stepper_srcview.go): hidden lines, the
	// search; and the file picker (stepper_open.go)
	showAll bool   // show .loc and inline-asm comment lines too
	rowsOf  []int  // visible line indices, for rowsKey
	rowsKey [2]int // (number of lines, showAll) rowsOf was built for
	query   string // the last search
	open    *openState

	// refreshed after every state change
	warpRows  []warpRow
	hazRows   []hazardRow
	asyncRows []asyncRow
	mbarRows  []mbarRow
	regRows   []regInfo
	version   int

	// hit maps, written by render: content line → item
	lanes   laneGrid
	regHit  []int
	hzHit   []int
	warpHit []int
	rects   []paneRect
}

type listState struct{ cur, top int }

// see scrolls so that cur is visible in h lines of n items.
func (l *listState) see(h, n int) {
	l.cur = clamp(l.cur, 0, max(n-1, 0))
	if l.cur < l.top {
		l.top = l.cur
	}
	if h > 0 && l.cur >= l.top+h {
		l.top = l.cur - h + 1
	}
	l.top = clamp(l.top, 0, max(n-h, 0))
}

// center scrolls so that cur is in the middle third of h lines.
func (l *listState) center(h, n int) {
	if l.cur < l.top+h/4 || l.cur >= l.top+h-h/4 {
		l.top = l.cur - h/3
	}
	l.see(h, n)
}

type paneRect struct {
	kind       paneKind
	x, y, w, h int
	tabbed     bool
}

type stepperKeys struct {
	Step, StepWarp, Run, Hazard, Cursor, Back, BackStop, Break, Thread, ThreadBack, Warp, WarpBack,
	Pane, PaneBack, Focus, Zoom, Hex, Operand, Goto, Search, Next, Prev, Hide, Open, CTA, Enter, Cancel,
	Move, Ends key.Binding
	// the short help's names of the same keys
	short []key.Binding
}

// newStepperKeys are the stepper's keys; the step key's help says what a
// step is for the backend (a simulated warp-instruction or a trace
// record). hjkl and g/G move as the arrows and home/end do (gk), so the
// hazard run is H and go-to is ":".
func newStepperKeys(trace bool) stepperKeys {
	step := "step (next warp)"
	if trace {
		step = "step (next record)"
	}
	k := stepperKeys{
		Step:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", step)),
		StepWarp:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "step the selected warp")),
		Run:        key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run to a breakpoint")),
		Hazard:     key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "run to the next hazard")),
		Cursor:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "run until the cursor's line")),
		Back:       key.NewBinding(key.WithKeys("p", "backspace"), key.WithHelp("p", "step back")),
		BackStop:   key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "back to the last stop")),
		Break:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "breakpoint on/off")),
		Goto:       key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "go to line/offset/register")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the source")),
		Next:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/previous match")),
		Prev:       key.NewBinding(key.WithKeys("N")),
		Hide:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "show/hide .loc and inline-asm lines")),
		Open:       key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "open a kernel, launch, trace or case")),
		Thread:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t/T", "next/prev thread")),
		ThreadBack: key.NewBinding(key.WithKeys("T")),
		Warp:       key.NewBinding(key.WithKeys(">"), key.WithHelp(">/<", "next/prev warp")),
		WarpBack:   key.NewBinding(key.WithKeys("<")),
		CTA:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "next CTA")),
		Pane:       key.NewBinding(key.WithKeys("]"), key.WithHelp("]/[", "next/prev pane")),
		PaneBack:   key.NewBinding(key.WithKeys("[")),
		Focus:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "focus next pane")),
		Zoom:       key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom the pane")),
		Hex:        key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "hex/values")),
		Operand:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "next operand")),
		Enter:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go to its line")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		// Move and Ends are for the help only: the keys go through gk.
		Move: key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓←→/hjkl", "move, pgup/pgdn")),
		Ends: key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g/G", "first/last (home/end)")),
	}
	k.short = []key.Binding{
		key.NewBinding(key.WithKeys("s"), key.WithHelp("s/p", "step/back")),
		key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run")),
		key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "hazard")),
		key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "break")),
		key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "to cursor")),
		key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "open")),
	}
	return k
}

// LoadError is a failure to open the stepper's kernel or trace: a file
// that cannot be read, PTX that does not compile (file:line:col), a
// launch the simulator cannot set up, a malformed trace. Unlike the other
// errors of New it is not a mistake in the configuration's form.
type LoadError struct{ Err error }

func (e *LoadError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *LoadError) Unwrap() error { return e.Err }

// newStepperView opens a kernel (k) or a trace file; with neither, the
// view explains how to open one.
func newStepperView(k *KernelConfig, trace string) (*stepperView, error) {
	v := &stepperView{breaks: map[int]bool{}, keys: newStepperKeys(trace != ""), focus: paneSource, tab: paneRegs, frag: newFragState()}
	switch {
	case k != nil && trace != "":
		return nil, fmt.Errorf("stepper: open a kernel or a trace, not both")
	case k != nil:
		b, err := newSimBackend(*k)
		if err != nil {
			return nil, &LoadError{err}
		}
		v.be = b
	case trace != "":
		b, err := newTraceBackend(trace)
		if err != nil {
			return nil, &LoadError{err}
		}
		v.be = b
	}
	if v.be != nil {
		v.refresh()
		v.follow()
	}
	return v, nil
}

func (v *stepperView) title() string { return "Stepper" }

// tabNote is what the tab bar shows on the right while the stepper is
// open: the PTX file, not the explorer's subject.
func (v *stepperView) tabNote() string {
	if v.be == nil {
		return ""
	}
	return baseName(v.be.file())
}

// kernelTitle is the kernel's name as the title shows it: a C++ name
// demangled and abbreviated (internal/demangle.Short, as the command line
// does), others as they are.
func (v *stepperView) kernelTitle() string { return demangle.Short(v.be.kernel()) }

func (v *stepperView) setSize(w, h int) {
	v.w, v.h = w, h
	v.input.SetWidth(max(w-24, 10))
	if v.open != nil {
		v.open.setSize(w, h)
	}
}

func (v *stepperView) capturing() bool { return v.inputOn || v.open != nil }

func (v *stepperView) bindings() ([]key.Binding, [][]key.Binding) {
	k := v.keys
	if v.running != nil {
		return []key.Binding{stopRunKey}, [][]key.Binding{{stopRunKey}}
	}
	if v.open != nil {
		return v.open.bindings()
	}
	if v.inputOn {
		return []key.Binding{pk.Enter, k.Cancel}, [][]key.Binding{{pk.Enter, k.Cancel}}
	}
	if v.be == nil {
		return []key.Binding{k.Open}, [][]key.Binding{{k.Open}}
	}
	return k.short, [][]key.Binding{
		{k.Step, k.StepWarp, k.Run, k.Hazard, k.Cursor, k.Back, k.BackStop, k.Break},
		{k.Goto, k.Search, k.Next, k.Hide, k.Open},
		{k.Thread, k.Warp, k.CTA, k.Pane, k.Focus, k.Zoom, k.Hex, k.Operand, k.Enter, k.Move, k.Ends},
	}
}

func (v *stepperView) status() string {
	if v.msg != "" {
		return v.msg
	}
	if v.running != nil {
		return v.runStatus()
	}
	if v.open != nil {
		return v.open.status()
	}
	if v.be == nil {
		return styleDim.Render("no kernel: O opens one (or tcsim tui --run KERNEL.ptx --launch LAUNCH.json, --trace FILE, --case DIR)")
	}
	s := v.be.last()
	var b strings.Builder
	fmt.Fprintf(&b, "step %d", v.be.steps())
	switch s.reason {
	case "start":
		b.WriteString(" · at the start")
		if tb, ok := v.be.(*traceBackend); ok && tb.note != "" {
			return styleWarn.Render(b.String() + " · " + tb.note)
		}
	case "step", "back", "limit", "async":
		if s.reason == "back" {
			b.WriteString(" · stepped back")
		}
		if s.reason == "async" {
			b.WriteString(" · an asynchronous operation completed")
		} else if s.warp >= 0 {
			fmt.Fprintf(&b, " · warp %d ran line %d: %s", s.warp, s.line, s.inst)
		}
		if s.reason == "limit" {
			fmt.Fprintf(&b, " · paused after %d instructions: r or H goes on", runLimit)
		}
	case "interrupted":
		fmt.Fprintf(&b, " · stopped by esc at line %d (warp %d): r or H goes on", s.line, s.warp)
	case "breakpoint":
		fmt.Fprintf(&b, " · breakpoint: warp %d is at line %d", s.warp, s.line)
	case "hazard":
		fmt.Fprintf(&b, " · hazard at line %d (warp %d)", s.line, s.warp)
	case "done":
		if v.be.kind() == "trace" {
			b.WriteString(" · the trace has ended")
		} else {
			b.WriteString(" · finished: the panes show the last CTA after its last instruction; p steps back")
		}
	case "error":
		b.WriteString(" · " + firstLine(s.err))
	}
	short := b.String()
	var kinds []string
	count := map[string]int{}
	for _, h := range s.hazards {
		fmt.Fprintf(&b, " · %s: %s", h.kind, h.msg)
		if count[h.kind]++; count[h.kind] == 1 {
			kinds = append(kinds, h.kind)
		}
	}
	for _, k := range kinds {
		short += " · " + k
		if count[k] > 1 {
			short += fmt.Sprintf(" ×%d", count[k])
		}
	}
	line := b.String()
	if cellWidth(line) > v.w && len(s.hazards) > 0 {
		// The rules' names fit; their messages are in the hazards pane.
		line = short
	}
	if len(s.hazards) > 0 || s.reason == "error" {
		return styleErr.Render(line)
	}
	return styleDim.Render(line)
}

// firstLine is s up to its first newline (a deadlock's message lists
// every warp on the lines below).
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// ---------------------------------------------------------------- state

// refresh reads the backend's state after a change.
func (v *stepperView) refresh() {
	v.version++
	be := v.be
	if cs := be.ctas(); len(cs) > 0 {
		// A stop at a breakpoint or hazard shows its CTA; plain steps
		// leave the selection alone (round-robin steps go from CTA to CTA
		// of a cluster).
		if last := be.last(); (last.reason == "breakpoint" || last.reason == "hazard") && last.warp >= 0 {
			for i, c := range cs {
				if c == last.cta {
					v.cta = i
				}
			}
		}
		v.cta = clamp(v.cta, 0, len(cs)-1)
	}
	v.thread = clamp(v.thread, 0, max(be.threads()-1, 0))
	v.warpRows = be.warps()
	v.hazRows = be.hazards()
	v.asyncRows = be.inflight()
	v.mbarRows = be.mbarriers(v.cta)
	v.regRows = be.regs(v.cta, v.thread/32)
	v.frag.version = -1
}

// follow moves the source cursor to where the stop happened: the hazard's
// line, or the next instruction of the warp that ran.
func (v *stepperView) follow() {
	s := v.be.last()
	if (s.reason == "breakpoint" || s.reason == "hazard") && s.warp >= 0 && s.warp*32 < v.be.threads() {
		// Select the warp that stopped (same lane).
		if cs := v.be.ctas(); v.cta < len(cs) && cs[v.cta] == s.cta && s.warp != v.thread/32 {
			v.selectThread(s.warp*32 + v.thread%32)
		}
	}
	line := s.line
	switch {
	case (s.reason == "hazard" || s.reason == "done") && len(s.hazards) > 0 && s.hazards[0].line > 0:
		line = s.hazards[0].line
	case s.reason == "done":
		line = 0 // the cursor stays
	case s.reason != "hazard" && s.warp >= 0:
		for _, w := range v.warpRows {
			if w.cta == s.cta && w.warp == s.warp && w.line > 0 {
				line = w.line
			}
		}
		if cs := v.be.ctas(); v.cta < len(cs) && cs[v.cta] != s.cta {
			line = 0 // a warp of another CTA of the cluster: follow the selected one
		}
	}
	if s.reason != "done" && (s.warp < 0 || line == 0) {
		if w := v.selWarp(); w != nil && w.line > 0 {
			line = w.line
		}
	}
	if line > 0 {
		v.goLine(line)
	}
	if len(s.hazards) > 0 {
		h := s.hazards[0]
		for i, r := range v.hazRows {
			if r.kind == h.kind && r.pos == h.pos {
				v.hz.cur = i
			}
		}
		if !v.visible(paneHazards) {
			v.tab = paneHazards
		}
	}
}

// selWarp is the selected thread's warp.
func (v *stepperView) selWarp() *warpRow {
	for i := range v.warpRows {
		w := &v.warpRows[i]
		if w.ctaIdx == v.cta && w.warp == v.thread/32 {
			return w
		}
	}
	return nil
}

func (v *stepperView) breakLines() []int {
	var out []int
	for l := range v.breaks {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// act runs a short stepping action and shows where it stopped; the long
// ones run as a tea.Cmd (start).
func (v *stepperView) act(f func() error) { v.report(f()) }

// report shows the error of an action, reads the new state and puts the
// cursor on the stop.
func (v *stepperView) report(err error) {
	if errors.Is(err, errStopped) {
		v.msg = styleWarn.Render(err.Error())
		return // nothing changed
	}
	if err != nil {
		msg := firstLine(err.Error())
		if msg != err.Error() {
			msg += " (the warps and hazards panes say more)"
		}
		v.msg = styleErr.Render(msg)
	}
	v.refresh()
	v.follow()
}

func (v *stepperView) selectThread(t int) {
	n := max(v.be.threads(), 1)
	t = ((t % n) + n) % n
	if t/32 != v.thread/32 {
		v.thread = t
		v.regRows = v.be.regs(v.cta, t/32)
	}
	v.thread = t
	v.frag.version = -1
	v.frag.seekThread = true
	// The TMEM cursor goes to the thread's lane: a warp reaches the lane
	// quarter of its id mod 4, one lane per thread.
	v.tmemCur[0] = t/32%4*32 + t%32
}
