package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
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

	input   textinput.Model
	inputOn bool

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
	Step, StepWarp, Run, Hazard, Back, BackStop, Break, Thread, ThreadBack, Warp, WarpBack,
	Pane, PaneBack, Focus, Zoom, Hex, Operand, Goto, CTA, Enter, Cancel, Move key.Binding
	// the short help's names of the same keys
	short []key.Binding
}

// newStepperKeys are the stepper's keys; the step key's help says what a
// step is for the backend (a simulated warp-instruction or a trace
// record).
func newStepperKeys(trace bool) stepperKeys {
	step := "step (next warp)"
	if trace {
		step = "step (next record)"
	}
	k := stepperKeys{
		Step:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", step)),
		StepWarp:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "step the selected warp")),
		Run:        key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run to a breakpoint")),
		Hazard:     key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "run to the next hazard")),
		Back:       key.NewBinding(key.WithKeys("p", "backspace"), key.WithHelp("p", "step back")),
		BackStop:   key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "back to the last stop")),
		Break:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "breakpoint on/off")),
		Goto:       key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to line/offset")),
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
		// Move is for the help only: the arrows and pages go through gk.
		Move: key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓←→", "move, pgup/pgdn")),
	}
	k.short = []key.Binding{
		key.NewBinding(key.WithKeys("s"), key.WithHelp("s/p", "step/back")),
		key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run")),
		key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "hazard")),
		key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "break")),
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

func (v *stepperView) setSize(w, h int) {
	v.w, v.h = w, h
	v.input.SetWidth(max(w-24, 10))
}

func (v *stepperView) capturing() bool { return v.inputOn }

func (v *stepperView) bindings() ([]key.Binding, [][]key.Binding) {
	k := v.keys
	if v.inputOn {
		return []key.Binding{pk.Enter, k.Cancel}, [][]key.Binding{{pk.Enter, k.Cancel}}
	}
	if v.be == nil {
		return nil, nil
	}
	return k.short, [][]key.Binding{
		{k.Step, k.StepWarp, k.Run, k.Hazard, k.Back, k.BackStop, k.Break, k.Goto},
		{k.Thread, k.Warp, k.CTA, k.Pane, k.Focus, k.Zoom, k.Hex, k.Operand, k.Enter, k.Move},
	}
}

func (v *stepperView) status() string {
	if v.msg != "" {
		return v.msg
	}
	if v.be == nil {
		return styleDim.Render("no kernel: tcsim tui --run KERNEL.ptx --launch LAUNCH.json, or --trace FILE")
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
			fmt.Fprintf(&b, " · paused after %d instructions: r or h goes on", runLimit)
		}
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
	for _, h := range s.hazards {
		fmt.Fprintf(&b, " · %s: %s", h.kind, h.msg)
	}
	line := b.String()
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
		v.src.cur = line - 1
		v.src.center(v.srcHeight(), len(v.be.lines()))
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

// act runs a stepping action and shows where it stopped.
func (v *stepperView) act(f func() error) {
	if err := f(); err != nil {
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

// ---------------------------------------------------------------- update

func (v *stepperView) update(msg tea.Msg) tea.Cmd {
	if v.inputOn {
		if km, ok := msg.(tea.KeyPressMsg); ok {
			switch {
			case key.Matches(km, v.keys.Cancel):
				v.inputOn = false
				v.input.Blur()
				return nil
			case km.String() == "enter":
				v.applyGoto(strings.TrimSpace(v.input.Value()))
				v.inputOn = false
				v.input.Blur()
				return nil
			}
		}
		var cmd tea.Cmd
		v.input, cmd = v.input.Update(msg)
		return cmd
	}
	if v.be == nil {
		return nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		v.msg = ""
		return v.key(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	}
	return nil
}

func (v *stepperView) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	be := v.be
	switch {
	case key.Matches(msg, k.Step):
		v.act(be.step)
	case key.Matches(msg, k.StepWarp):
		v.act(func() error { return be.stepWarp(v.cta, v.thread/32) })
	case key.Matches(msg, k.Run):
		v.act(func() error { return be.run(v.breakLines(), false, runLimit) })
		if s := be.last(); len(v.breaks) == 0 && s.reason == "done" {
			v.msg = styleDim.Render(fmt.Sprintf("step %d · finished (no breakpoints: b sets one on the source line)", be.steps()))
		}
	case key.Matches(msg, k.Hazard):
		before := len(v.hazRows)
		v.act(func() error { return be.run(v.breakLines(), true, runLimit) })
		if len(v.hazRows) == before && be.last().reason == "done" {
			v.msg = styleOK.Render(fmt.Sprintf("step %d · finished: no further hazard", be.steps()))
		}
	case key.Matches(msg, k.Back):
		v.act(func() error { return be.back(false) })
	case key.Matches(msg, k.BackStop):
		v.act(func() error { return be.back(true) })
	case key.Matches(msg, k.Break):
		v.toggleBreak(v.src.cur + 1)
	case key.Matches(msg, k.Thread):
		v.selectThread(v.thread + 1)
	case key.Matches(msg, k.ThreadBack):
		v.selectThread(v.thread - 1)
	case key.Matches(msg, k.Warp):
		v.selectThread(v.thread + 32)
	case key.Matches(msg, k.WarpBack):
		v.selectThread(v.thread - 32)
	case key.Matches(msg, k.CTA):
		if n := len(be.ctas()); n > 1 {
			v.cta = (v.cta + 1) % n
			v.refreshCTA()
		} else {
			v.msg = styleDim.Render("the running unit has one CTA")
		}
	case key.Matches(msg, k.Pane):
		v.cycleTab(1)
	case key.Matches(msg, k.PaneBack):
		v.cycleTab(-1)
	case key.Matches(msg, k.Focus):
		v.cycleFocus()
	case key.Matches(msg, k.Zoom):
		v.zoom = !v.zoom
	case key.Matches(msg, k.Hex):
		if v.focus == paneSMEM {
			v.smemMode = (v.smemMode + 1) % 3
		} else {
			v.hexVals = !v.hexVals
			v.frag.version = -1
		}
	case key.Matches(msg, k.Operand):
		v.frag.operand++
		v.frag.version = -1
	case key.Matches(msg, k.Goto):
		prompt := map[paneKind]string{paneSMEM: "offset> ", paneTMEM: "lane,column> ", paneRegs: "register> "}[v.focus]
		if prompt == "" {
			prompt = "line> "
		}
		v.input = newTextInput(prompt, "")
		v.input.SetWidth(max(v.w-24, 10))
		v.inputOn = true
		return v.input.Focus()
	case key.Matches(msg, k.Enter) && v.focus == paneHazards:
		v.jumpHazard()
		v.focus = paneSource
	case key.Matches(msg, k.Enter) && v.focus == paneWarps:
		v.focus = paneSource
		v.follow()
	default:
		v.navigate(msg)
	}
	return nil
}

func (v *stepperView) refreshCTA() {
	v.mbarRows = v.be.mbarriers(v.cta)
	v.regRows = v.be.regs(v.cta, v.thread/32)
	v.frag.version = -1
}

func (v *stepperView) toggleBreak(line int) {
	if v.breaks[line] {
		delete(v.breaks, line)
		v.msg = styleDim.Render(fmt.Sprintf("breakpoint at line %d removed", line))
		return
	}
	if !v.be.hasInst(line) {
		v.msg = styleErr.Render(fmt.Sprintf("line %d holds no instruction: a breakpoint goes on an instruction line", line))
		return
	}
	v.breaks[line] = true
	v.msg = styleDim.Render(fmt.Sprintf("breakpoint at line %d (r runs to it)", line))
}

func (v *stepperView) cycleTab(d int) {
	i := 0
	for j, p := range tabPanes {
		if p == v.tab {
			i = j
		}
	}
	wasFocused := v.focus == v.tab
	v.tab = tabPanes[(i+d+len(tabPanes))%len(tabPanes)]
	if wasFocused || !v.visible(v.focus) {
		v.focus = v.tab
	}
}

// cycleFocus moves the focus to the next pane on the screen.
func (v *stepperView) cycleFocus() {
	if v.zoom || v.narrow() {
		if v.focus == paneSource {
			v.focus = v.tab
		} else {
			v.focus = paneSource
		}
		return
	}
	rs := v.layout()
	for i, r := range rs {
		if r.kind == v.focus {
			v.focus = rs[(i+1)%len(rs)].kind
			return
		}
	}
	v.focus = paneSource
}

func (v *stepperView) visible(p paneKind) bool {
	for _, r := range v.layout() {
		if r.kind == p {
			return true
		}
	}
	return false
}

func (v *stepperView) jumpHazard() {
	if v.hz.cur < len(v.hazRows) {
		if l := v.hazRows[v.hz.cur].line; l > 0 {
			v.src.cur = l - 1
			v.src.center(v.srcHeight(), len(v.be.lines()))
		}
	}
}

func (v *stepperView) applyGoto(text string) {
	switch v.focus {
	case paneSMEM:
		off, err := strconv.ParseUint(strings.ReplaceAll(text, "_", ""), 0, 32)
		if err != nil {
			v.msg = styleErr.Render(fmt.Sprintf("offset %q: want a number (0x10000 or 65536)", text))
			return
		}
		v.smem.cur = int(off) / v.smemRowBytes()
		v.smem.center(v.paneHeight(paneSMEM)-1, (v.be.smemSize()+v.smemRowBytes()-1)/v.smemRowBytes())
	case paneTMEM:
		a, b, ok := strings.Cut(text, ",")
		lane, err1 := strconv.Atoi(strings.TrimSpace(a))
		col, err2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || err1 != nil || err2 != nil {
			v.msg = styleErr.Render(fmt.Sprintf("%q: want LANE,COLUMN (e.g. 32,0)", text))
			return
		}
		v.tmemCur = [2]int{clamp(lane, 0, 127), clamp(col, 0, 511)}
	case paneRegs:
		for i, r := range v.regList() {
			if r.name == text || r.name == "%"+text {
				v.regsL.cur = i
				v.regSel = r.name
				return
			}
		}
		v.msg = styleErr.Render(fmt.Sprintf("no register %s in this warp", text))
	default:
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 || n > len(v.be.lines()) {
			v.msg = styleErr.Render(fmt.Sprintf("line %q: want 1 to %d", text, len(v.be.lines())))
			return
		}
		v.src.cur = n - 1
		v.src.center(v.srcHeight(), len(v.be.lines()))
		v.focus = paneSource
	}
}

// navigate applies a movement key to the focused pane.
func (v *stepperView) navigate(msg tea.KeyPressMsg) {
	page := max(v.paneHeight(v.focus)-2, 1)
	d := 0
	switch {
	case key.Matches(msg, gk.Up):
		d = -1
	case key.Matches(msg, gk.Down):
		d = 1
	case key.Matches(msg, gk.PageUp):
		d = -page
	case key.Matches(msg, gk.PageDown):
		d = page
	case key.Matches(msg, gk.Home):
		d = -1 << 30
	case key.Matches(msg, gk.End):
		d = 1 << 30
	}
	switch v.focus {
	case paneSource:
		v.src.cur = clamp(v.src.cur+d, 0, len(v.be.lines())-1)
		v.src.see(v.srcHeight(), len(v.be.lines()))
		v.frag.version = -1
	case paneRegs:
		rs := v.regList()
		v.regsL.cur = clamp(v.regsL.cur+d, 0, max(len(rs)-1, 0))
		if v.regsL.cur < len(rs) {
			v.regSel = rs[v.regsL.cur].name
		}
		switch {
		case key.Matches(msg, gk.Left):
			v.selectThread(v.thread - 1)
		case key.Matches(msg, gk.Right):
			v.selectThread(v.thread + 1)
		}
	case paneFrag:
		v.prepFrag()
		v.frag.pane.handleKey(msg)
		v.fragSelect()
	case paneSMEM:
		v.smem.cur = max(v.smem.cur+d, 0)
	case paneTMEM:
		switch {
		case key.Matches(msg, gk.Left):
			v.tmemCur[1]--
		case key.Matches(msg, gk.Right):
			v.tmemCur[1]++
		case key.Matches(msg, gk.Home):
			v.tmemCur[1] = 0
		case key.Matches(msg, gk.End):
			v.tmemCur[1] = 511
		default:
			v.tmemCur[0] += d
		}
		v.tmemCur = [2]int{clamp(v.tmemCur[0], 0, 127), clamp(v.tmemCur[1], 0, 511)}
	case paneAsync:
		v.asyncTop = max(v.asyncTop+d, 0)
	case paneWarps:
		n := 0
		for _, w := range v.warpRows {
			if w.ctaIdx == v.cta {
				n++
			}
		}
		if d != 0 && n > 0 {
			w := clamp(v.thread/32+d, 0, n-1)
			v.selectThread(w*32 + v.thread%32)
		}
	case paneHazards:
		if d != 0 && len(v.hazRows) > 0 {
			v.hz.cur = clamp(v.hz.cur+d, 0, len(v.hazRows)-1)
			v.jumpHazard()
		}
	}
}

// mouse routes clicks and the wheel to the pane under the pointer.
func (v *stepperView) mouse(msg tea.MouseMsg) {
	m := msg.Mouse()
	var r *paneRect
	for i := range v.rects {
		q := &v.rects[i]
		if m.X >= q.x && m.X < q.x+q.w && m.Y >= q.y && m.Y < q.y+q.h {
			r = q
		}
	}
	if r == nil {
		return
	}
	cx, cy := m.X-r.x, m.Y-r.y-1 // content coordinates (below the pane's title)
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		d := 3
		if w.Button == tea.MouseWheelUp {
			d = -3
		}
		switch r.kind {
		case paneSource:
			v.src.top = clamp(v.src.top+d, 0, max(len(v.be.lines())-v.srcHeight(), 0))
		case paneFrag:
			v.prepFrag()
			v.frag.pane.handleMouse(msg, cx, cy-2)
		case paneSMEM:
			v.smem.top = max(v.smem.top+d, 0)
			v.smem.cur = max(v.smem.cur+d, 0)
		case paneTMEM:
			v.tmemCur[0] = clamp(v.tmemCur[0]+d, 0, 127)
		case paneAsync:
			v.asyncTop = max(v.asyncTop+d, 0)
		case paneRegs:
			v.regsL.top = max(v.regsL.top+d, 0)
		case paneHazards:
			v.hz.top = max(v.hz.top+d, 0)
		case paneWarps:
			v.warpsL.top = max(v.warpsL.top+d, 0)
		}
		return
	}
	c, ok := msg.(tea.MouseClickMsg)
	if !ok || c.Button != tea.MouseLeft {
		return
	}
	if r.kind != paneSource && !(r.tabbed && cy < 0) {
		v.focus = r.kind
	}
	if cy < 0 {
		if r.tabbed {
			if p, ok := v.tabAt(cx, r.w); ok {
				v.tab = p
				v.focus = p
			}
		} else {
			v.focus = r.kind
		}
		return
	}
	switch r.kind {
	case paneSource:
		v.focus = paneSource
		line := v.src.top + cy
		if line >= len(v.be.lines()) {
			return
		}
		v.src.cur = line
		v.frag.version = -1
		if cx < 2 {
			v.toggleBreak(line + 1)
		}
	case paneRegs:
		if cy < len(v.regHit) {
			hit := v.regHit[cy]
			switch {
			case hit >= 0:
				rs := v.regList()
				if hit < len(rs) {
					v.regsL.cur, v.regSel = hit, rs[hit].name
				}
			case hit <= -2:
				// a row of the lanes grid: -2 - first lane of the row
				lane := -2 - hit + (cx-laneLabelW)/max(v.lanes.cellW, 1)
				if cx >= laneLabelW && lane < 32 && (cx-laneLabelW)/max(v.lanes.cellW, 1) < v.lanes.perRow {
					v.selectThread(v.thread/32*32 + lane)
				}
			}
		}
	case paneFrag:
		v.prepFrag()
		if v.frag.pane.handleMouse(msg, cx, cy-2) {
			v.fragSelect()
		}
	case paneSMEM:
		v.smem.cur = v.smem.top + cy - 1
	case paneTMEM:
		lane := v.tmemTop[0] + cy - 2
		col := v.tmemTop[1] + (cx-6)/9
		if cy >= 2 && cx >= 6 {
			v.tmemCur = [2]int{clamp(lane, 0, 127), clamp(col, 0, 511)}
		}
	case paneWarps:
		if cy < len(v.warpHit) && v.warpHit[cy] >= 0 {
			v.selectThread(v.warpHit[cy]*32 + v.thread%32)
		}
	case paneHazards:
		if cy < len(v.hzHit) && v.hzHit[cy] >= 0 {
			v.hz.cur = v.hzHit[cy]
			v.jumpHazard()
		}
	}
}

// ---------------------------------------------------------------- layout

// narrow screens show one pane at a time.
func (v *stepperView) narrow() bool { return v.w < 64 || v.h < 10 }

func (v *stepperView) srcWidth() int {
	switch {
	case v.w >= 200:
		return clamp(v.w*38/100, 60, 100)
	case v.w >= 120:
		return v.w * 42 / 100
	}
	return clamp(v.w*45/100, 28, 60)
}

// layout places the panes below the header line.
func (v *stepperView) layout() []paneRect {
	bh := max(v.h-1, 1)
	if v.zoom || v.narrow() {
		f := v.focus
		return []paneRect{{kind: f, x: 0, y: 1, w: v.w, h: bh, tabbed: f == v.tab}}
	}
	sw := v.srcWidth()
	rx := sw + 1
	rw := v.w - rx
	rs := []paneRect{{kind: paneSource, x: 0, y: 1, w: sw, h: bh}}
	if bh >= 26 {
		th := bh * 3 / 5
		second := paneHazards
		if v.tab == paneHazards {
			second = paneAsync
		}
		rs = append(rs, paneRect{kind: v.tab, x: rx, y: 1, w: rw, h: th, tabbed: true},
			paneRect{kind: second, x: rx, y: 1 + th, w: rw, h: bh - th})
		return rs
	}
	return append(rs, paneRect{kind: v.tab, x: rx, y: 1, w: rw, h: bh, tabbed: true})
}

func (v *stepperView) paneHeight(p paneKind) int {
	for _, r := range v.layout() {
		if r.kind == p {
			return r.h - 1
		}
	}
	return max(v.h-2, 1)
}

func (v *stepperView) srcHeight() int { return v.paneHeight(paneSource) }

// ---------------------------------------------------------------- render

func (v *stepperView) render() string {
	if v.be == nil {
		return fitBlock(strings.Join(v.intro(), "\n"), v.w, v.h)
	}
	head := v.header()
	if v.inputOn {
		head = v.input.View()
	}
	rs := v.layout()
	v.rects = rs
	blocks := make([]string, len(rs))
	for i, r := range rs {
		blocks[i] = v.renderPane(r)
	}
	var body string
	switch len(rs) {
	case 1:
		body = blocks[0]
	case 2:
		body = sideBySide(blocks[0], blocks[1], rs[0].w, rs[1].w, max(v.h-1, 1))
	default:
		body = sideBySide(blocks[0], blocks[1]+"\n"+blocks[2], rs[0].w, rs[1].w, max(v.h-1, 1))
	}
	return fitLine(head, v.w) + "\n" + body
}

func (v *stepperView) intro() []string {
	out := []string{section("Kernel stepper"), ""}
	for _, p := range []string{
		"No kernel is open. The stepper simulates a PTX kernel instruction by instruction (tcsim's simulator, one CTA at a time), or replays a trace file. Start tcsim with:",
		"",
		"  tcsim tui --run KERNEL.ptx --launch LAUNCH.json",
		"  tcsim tui --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1",
		"  tcsim tui --trace RUN.jsonl",
		"",
		"(a trace comes from tcsim run KERNEL.ptx --launch LAUNCH.json --trace RUN.jsonl --trace-values).",
		"",
		"Keys: s step, w step the selected warp, r run to a breakpoint (b sets one), h run to the next hazard, p step back, t/T thread, ]/[ pane, z zoom, ? all keys.",
	} {
		switch {
		case p == "":
			out = append(out, "")
		case strings.HasPrefix(p, "  "):
			out = append(out, p)
		default:
			out = append(out, wrap(p, v.w, 0)...)
		}
	}
	return out
}

// header is the line above the panes: the kernel, the selected CTA and
// thread, the step count; a shorter form abbreviates where the screen is
// narrow (the tab bar names the file).
func (v *stepperView) header() string {
	be := v.be
	var cta, ctaShort string
	if cs := be.ctas(); v.cta < len(cs) {
		c := cs[v.cta]
		cta = fmt.Sprintf("CTA (%d,%d,%d)", c[0], c[1], c[2])
		ctaShort = fmt.Sprintf("CTA %d,%d,%d", c[0], c[1], c[2])
		if len(cs) > 1 {
			cta += fmt.Sprintf(" %d/%d", v.cta+1, len(cs))
			ctaShort += fmt.Sprintf(" %d/%d", v.cta+1, len(cs))
		}
	}
	mode, modeShort := "", ""
	if be.kind() == "trace" {
		mode, modeShort = "trace replay", "trace"
	}
	thread := fmt.Sprintf("T%d (warp %d, lane %d)", v.thread, v.thread/32, v.thread%32)
	threadShort := fmt.Sprintf("T%d w%d l%d", v.thread, v.thread/32, v.thread%32)
	step := fmt.Sprintf("step %d", be.steps())
	var bps, bpsShort string
	if n := len(v.breaks); n == 1 {
		bps, bpsShort = "1 breakpoint", "1 bp"
	} else if n > 1 {
		bps, bpsShort = fmt.Sprintf("%d breakpoints", n), fmt.Sprintf("%d bps", n)
	}
	fin := ""
	if be.done() {
		fin = "finished"
	}
	var line string
	for _, form := range [][]string{
		{mode, cta, thread, step, bps, fin},
		{modeShort, ctaShort, threadShort, step, bpsShort, fin},
	} {
		var parts []string
		for _, p := range form {
			if p != "" {
				parts = append(parts, p)
			}
		}
		line = section(be.kernel()) + " " + styleDim.Render(strings.Join(parts, " · "))
		if cellWidth(line) <= v.w {
			break
		}
	}
	return line
}

// renderPane draws one pane: its title line and its content.
func (v *stepperView) renderPane(r paneRect) string {
	title := v.paneTitle(r)
	ch := max(r.h-1, 0)
	var content []string
	if msg := v.be.missing(r.kind); msg != "" {
		content = wrap(msg, r.w, 0)
	} else {
		switch r.kind {
		case paneSource:
			content = v.renderSource(r.w, ch)
		case paneRegs:
			content = v.renderRegs(r.w, ch)
		case paneFrag:
			content = v.renderFrag(r.w, ch)
		case paneSMEM:
			content = v.renderSMEM(r.w, ch)
		case paneTMEM:
			content = v.renderTMEM(r.w, ch)
		case paneAsync:
			content = v.renderAsync(r.w, ch)
		case paneWarps:
			content = v.renderWarps(r.w, ch)
		case paneHazards:
			content = v.renderHazards(r.w, ch)
		}
	}
	if len(content) > ch {
		content = content[:ch]
	}
	return fitLine(title, r.w) + "\n" + fitBlock(strings.Join(content, "\n"), r.w, ch)
}

func (v *stepperView) paneTitle(r paneRect) string {
	focused := r.kind == v.focus
	if !r.tabbed {
		name := paneNames[r.kind]
		switch r.kind {
		case paneSource:
			name += " " + baseName(v.be.file())
			if v.be.kind() == "trace" && !v.traceSourceOK() {
				name += " (not found: the trace's instructions)"
			}
		case paneHazards:
			name += fmt.Sprintf(" (%d)", len(v.hazRows))
		}
		if focused {
			return styleTabActive.Render(" " + name + " ")
		}
		return styleTitle.Render(" " + name + " ")
	}
	form := v.tabForm(r.w)
	var b strings.Builder
	for i, p := range tabPanes {
		if i > 0 {
			b.WriteString(styleRule.Render("│"))
		}
		label := v.tabText(p, form)
		switch {
		case p == r.kind && focused:
			b.WriteString(styleTabActive.Render(label))
		case p == r.kind:
			b.WriteString(styleSel.Render(label))
		default:
			b.WriteString(styleDim.Render(label))
		}
	}
	return b.String()
}

// tabText is a tab's label in one of three forms, from the widest: the
// name padded with blanks, the name, a short name.
func (v *stepperView) tabText(p paneKind, form int) string {
	name := paneNames[p]
	if form == 2 {
		name = [...]string{"src", "reg", "frag", "smem", "tmem", "asyn", "warp", "haz"}[p]
	}
	if p == paneHazards && len(v.hazRows) > 0 {
		name += " " + strconv.Itoa(len(v.hazRows))
	}
	if form == 0 {
		return " " + name + " "
	}
	return name
}

// tabForm picks the widest tab labels that fit w cells.
func (v *stepperView) tabForm(w int) int {
	for form := 0; form < 2; form++ {
		n := len(tabPanes) - 1
		for _, p := range tabPanes {
			n += len(v.tabText(p, form))
		}
		if n <= w {
			return form
		}
	}
	return 2
}

// tabAt finds the tab under column x of a tab bar w wide.
func (v *stepperView) tabAt(x, w int) (paneKind, bool) {
	form := v.tabForm(w)
	pos := 0
	for _, p := range tabPanes {
		n := len(v.tabText(p, form))
		if x >= pos && x < pos+n {
			return p, true
		}
		pos += n + 1
	}
	return 0, false
}

func (v *stepperView) traceSourceOK() bool {
	tb, ok := v.be.(*traceBackend)
	return !ok || tb.srcOK
}

// renderSource draws the PTX with a gutter: a breakpoint (•), a hazard
// (!), the line number and the warps whose next instruction is on the
// line (the selected warp reversed).
func (v *stepperView) renderSource(w, h int) []string {
	lines := v.be.lines()
	v.src.see(h, len(lines))
	numW := len(strconv.Itoa(len(lines)))
	at := map[int][]int{}
	maxAt := 1
	for _, wr := range v.warpRows {
		if wr.ctaIdx == v.cta && wr.line > 0 {
			at[wr.line] = append(at[wr.line], wr.warp)
			maxAt = max(maxAt, len(at[wr.line]))
		}
	}
	markW := min(maxAt, 4)
	hzAt := map[int]bool{}
	for _, hz := range v.hazRows {
		if hz.severity != "perf" {
			hzAt[hz.line] = true
		}
	}
	sel := v.thread / 32
	out := make([]string, 0, h)
	for i := v.src.top; i < len(lines) && len(out) < h; i++ {
		n := i + 1
		var b strings.Builder
		if v.breaks[n] {
			b.WriteString(styleErr.Render("•"))
		} else {
			b.WriteByte(' ')
		}
		if hzAt[n] {
			b.WriteString(styleErr.Render("!"))
		} else {
			b.WriteByte(' ')
		}
		num := fmt.Sprintf("%*d ", numW, n)
		if hzAt[n] {
			b.WriteString(styleErr.Render(num))
		} else {
			b.WriteString(styleDim.Render(num))
		}
		b.WriteString(warpMarks(at[n], sel, markW))
		b.WriteByte(' ')
		text := expandTabs(lines[i])
		isSel := false
		for _, wi := range at[n] {
			isSel = isSel || wi == sel
		}
		rest := w - cellWidth(b.String())
		text = fitLine(text, max(rest, 0))
		switch {
		case i == v.src.cur && v.focus == paneSource:
			b.WriteString(styleSel.Render(text))
		case i == v.src.cur:
			b.WriteString(styleUnder.Render(text))
		case isSel:
			b.WriteString(styleTitle.Render(text))
		default:
			b.WriteString(text)
		}
		out = append(out, b.String())
	}
	return out
}

// styleUnder marks the cursor of a pane without the focus.
var styleUnder = lipgloss.NewStyle().Underline(true)

// warpMarks writes the warps at a line in w cells: their ids (0-9, a-z),
// or the first ones and "+" when there are more.
func warpMarks(ws []int, sel, w int) string {
	var b strings.Builder
	n := 0
	for i, x := range ws {
		if n == w {
			break
		}
		if i == w-1 && len(ws) > w {
			b.WriteString(styleDim.Render("+"))
			n++
			break
		}
		c := string(warpChar(x))
		if x == sel {
			b.WriteString(styleSel.Render(c))
		} else {
			b.WriteString(styleOK.Render(c))
		}
		n++
	}
	b.WriteString(strings.Repeat(" ", w-n))
	return b.String()
}

func warpChar(w int) byte {
	switch {
	case w < 10:
		return byte('0' + w)
	case w < 36:
		return byte('a' + w - 10)
	}
	return '*'
}

// expandTabs replaces a line's leading tabs by two blanks each and its
// other tabs by one blank.
func expandTabs(s string) string {
	if !strings.ContainsRune(s, '\t') {
		return s
	}
	i := 0
	for i < len(s) && s[i] == '\t' {
		i++
	}
	return strings.Repeat("  ", i) + strings.ReplaceAll(s[i:], "\t", " ")
}

// regList is the registers pane's list: the operands of the selected
// warp's next instruction, then every register of the warp.
func (v *stepperView) regList() []regInfo {
	var out []regInfo
	seen := map[string]bool{}
	types := map[string]string{}
	for _, r := range v.regRows {
		types[r.name] = r.typ
	}
	if w := v.selWarp(); w != nil && w.inst != "" {
		for _, n := range instRegs(w.inst) {
			if t, ok := types[n]; ok && !seen[n] {
				seen[n] = true
				out = append(out, regInfo{name: n, typ: t})
			}
		}
	}
	return append(out, v.regRows...)
}

// instRegs lists the register names an instruction's text mentions.
func instRegs(inst string) []string {
	var out []string
	for i := 0; i < len(inst); i++ {
		if inst[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(inst) && isIdent(inst[j]) {
			j++
		}
		if j > i+1 {
			out = append(out, inst[i:j])
		}
		i = j - 1
	}
	return out
}

func (v *stepperView) nOperands() int {
	w := v.selWarp()
	if w == nil || w.inst == "" {
		return 0
	}
	types := map[string]bool{}
	for _, r := range v.regRows {
		types[r.name] = true
	}
	seen := map[string]bool{}
	n := 0
	for _, r := range instRegs(w.inst) {
		if types[r] && !seen[r] {
			seen[r] = true
			n++
		}
	}
	return n
}

// laneGrid lays out the 32 lanes of a register in rows below the
// register list: a row label of the first lane, then the values right
// aligned in cells of cellW; perRow is 8, 4 or 2, the most that fit w.
type laneGrid struct{ perRow, cellW int }

const laneLabelW = 3

func newLaneGrid(texts []string, w int) laneGrid {
	vw := 1
	for _, t := range texts {
		vw = max(vw, cellWidth(t))
	}
	g := laneGrid{perRow: 2, cellW: vw + 1}
	for _, n := range []int{8, 4} {
		if laneLabelW+n*g.cellW <= w {
			g.perRow = n
			break
		}
	}
	return g
}

// renderRegs draws the selected thread's registers and, below, the lanes
// of the register under the cursor.
func (v *stepperView) renderRegs(w, h int) []string {
	warp, lane := v.thread/32, v.thread%32
	out := []string{fmt.Sprintf("T%d: warp %d, lane %d", v.thread, warp, lane)}
	v.regHit = []int{-1}
	rs := v.regList()
	if len(rs) == 0 {
		msg := "no registers written yet"
		if sw := v.selWarp(); sw == nil {
			msg = fmt.Sprintf("warp %d has not run in this CTA", warp)
			if v.be.kind() == "sim" {
				msg = "no CTA is running: the grid has finished"
			}
		}
		for _, l := range wrap(msg, w, 0) {
			out = append(out, styleDim.Render(l))
		}
		return out
	}
	sel := rs[clamp(v.regsL.cur, 0, len(rs)-1)]
	selVals, selErr := v.be.reg(v.cta, warp, sel.name)
	texts := make([]string, 32)
	for l := range texts {
		texts[l] = "-"
		if selErr == nil {
			texts[l] = shortValue(sel.typ, selVals[l], v.hexVals)
			if sel.typ == "pred" {
				texts[l] = fmtValue("pred", selVals[l], false)
			}
		}
	}
	lg := newLaneGrid(texts, w)
	v.lanes = lg
	perRow := lg.perRow
	lanesH := 32/perRow + 1
	listH := h - 1
	showLanes := h >= 16
	if showLanes {
		listH -= lanesH
	}
	nOps := v.nOperands()
	v.regsL.see(listH, len(rs))
	if v.regSel == "" || v.regsL.cur >= len(rs) || rs[v.regsL.cur].name != v.regSel {
		v.regSel = rs[v.regsL.cur].name
	}
	nameW := 4
	for _, r := range rs {
		nameW = max(nameW, len(r.name))
	}
	for i := v.regsL.top; i < len(rs) && len(out) < listH+1; i++ {
		r := rs[i]
		vals, err := v.be.reg(v.cta, warp, r.name)
		mark := " "
		if i < nOps {
			mark = "→"
		}
		var line string
		if err != nil {
			line = fmt.Sprintf("%s %-*s %-4s %s", mark, nameW, r.name, r.typ, styleDim.Render("-"))
		} else {
			line = fmt.Sprintf("%s %-*s %-4s %s", mark, nameW, r.name, r.typ, fmtValue(r.typ, vals[lane], v.hexVals))
			if !v.hexVals && r.typ != "pred" && !isBitsType(r.typ) {
				line += styleDim.Render(" " + fmtValue(r.typ, vals[lane], true))
			}
		}
		if i == v.regsL.cur {
			if v.focus == paneRegs {
				line = styleSel.Render(fitLine(stripANSI(line), w))
			} else {
				line = styleUnder.Render(fitLine(stripANSI(line), w))
			}
		}
		out = append(out, line)
		v.regHit = append(v.regHit, i)
	}
	if !showLanes {
		return out
	}
	for len(out) < h-lanesH {
		out = append(out, "")
		v.regHit = append(v.regHit, -1)
	}
	r := rs[v.regsL.cur]
	if r.name != sel.name {
		// The list moved the cursor (see): lay the lanes out again.
		return v.renderRegs(w, h)
	}
	out = append(out, fitLine(section(fmt.Sprintf("%s in the 32 lanes of warp %d", r.name, warp)), w))
	v.regHit = append(v.regHit, -1)
	for row := 0; row < 32/perRow; row++ {
		var b strings.Builder
		fmt.Fprintf(&b, "%*d ", laneLabelW-1, row*perRow)
		for c := 0; c < perRow; c++ {
			l := row*perRow + c
			cell := fmt.Sprintf("%*s ", lg.cellW-1, texts[l])
			if l == lane {
				cell = styleSel.Render(cell)
			}
			b.WriteString(cell)
		}
		out = append(out, b.String())
		v.regHit = append(v.regHit, -2-row*perRow)
	}
	return out
}

// renderAsync lists the operations in flight and the CTA's mbarriers.
func (v *stepperView) renderAsync(w, h int) []string {
	var out []string
	add := func(s string, indent int) { out = append(out, wrap(s, w, indent)...) }
	out = append(out, section(fmt.Sprintf("in flight (%d)", len(v.asyncRows))))
	if len(v.asyncRows) == 0 {
		out = append(out, styleDim.Render("  nothing"))
	}
	for _, a := range v.asyncRows {
		if strings.HasPrefix(a.kind, "wgmma") {
			// The description names the warpgroup and its warps.
			add(fmt.Sprintf("line %d %s: %s", a.line, a.kind, a.desc), 4)
			continue
		}
		add(fmt.Sprintf("line %d %s (thread %d): %s", a.line, a.kind, a.thread, a.desc), 4)
	}
	out = append(out, "", section(fmt.Sprintf("mbarriers (%d)", len(v.mbarRows))))
	if len(v.mbarRows) == 0 {
		out = append(out, styleDim.Render("  none initialised"))
	}
	for _, m := range v.mbarRows {
		if m.onlyPhase {
			add(fmt.Sprintf("%#x: phase %d (parity %d)", m.addr, m.phase, m.phase&1), 4)
			continue
		}
		state := "live"
		if !m.live {
			state = "invalidated"
		}
		add(fmt.Sprintf("%#x: phase %d (parity %d), %d of %d arrivals pending, tx-count %d, %s (init line %d)",
			m.addr, m.phase, m.phase&1, m.pending, m.expected, m.tx, state, m.initLine), 4)
	}
	if v.be.kind() == "trace" {
		out = append(out, "", styleDim.Render("(a trace records phase changes only)"))
	}
	v.asyncTop = clamp(v.asyncTop, 0, max(len(out)-h, 0))
	return out[v.asyncTop:]
}

// renderWarps lists the warps of the selected CTA.
func (v *stepperView) renderWarps(w, h int) []string {
	var out []string
	v.warpHit = nil
	sel := v.thread / 32
	for _, wr := range v.warpRows {
		if wr.ctaIdx != v.cta {
			continue
		}
		where := "exited"
		if wr.state != "done" {
			where = fmt.Sprintf("line %d: %s", wr.line, wr.inst)
		}
		line := fmt.Sprintf("w%-2d %-7s %08x %s", wr.warp, wr.state, wr.active, where)
		if wr.warp == sel {
			if v.focus == paneWarps {
				line = styleSel.Render(fitLine(line, w))
			} else {
				line = styleUnder.Render(fitLine(line, w))
			}
		}
		out = append(out, line)
		v.warpHit = append(v.warpHit, wr.warp)
		if wr.wait != "" {
			for _, l := range wrap(wr.wait, w-4, 0) {
				out = append(out, styleDim.Render("    "+l))
				v.warpHit = append(v.warpHit, wr.warp)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, styleDim.Render("no warp is running (the grid has finished)"))
		v.warpHit = append(v.warpHit, -1)
	}
	top := clamp(v.warpsL.top, 0, max(len(out)-h, 0))
	v.warpsL.top = top
	v.warpHit = v.warpHit[top:]
	return out[top:]
}

// renderHazards lists the findings; the selected one is shown in full.
func (v *stepperView) renderHazards(w, h int) []string {
	v.hzHit = nil
	if len(v.hazRows) == 0 {
		return []string{styleOK.Render("no hazards so far"), styleDim.Render("h runs to the next one")}
	}
	v.hz.cur = clamp(v.hz.cur, 0, len(v.hazRows)-1)
	var out []string
	var hit []int
	selStart := 0
	for i, hz := range v.hazRows {
		sev := map[string]string{"error": "E", "warning": "W", "perf": "P"}[hz.severity]
		head := fmt.Sprintf("%s %d %s", sev, hz.line, hz.kind)
		if hz.count > 1 {
			head += fmt.Sprintf(" ×%d", hz.count)
		}
		if i == v.hz.cur {
			selStart = len(out)
			st := styleUnder
			if v.focus == paneHazards {
				st = styleSel
			}
			out = append(out, st.Render(fitLine(head, w)))
			hit = append(hit, i)
			var more []string
			more = append(more, wrap(hz.msg, w-2, 2)...)
			if hz.warp >= 0 {
				more = append(more, fmt.Sprintf("CTA (%d,%d,%d) warp %d", hz.cta[0], hz.cta[1], hz.cta[2], hz.warp))
			}
			if hz.related != "" {
				more = append(more, wrap("related: "+hz.related, w-2, 4)...)
			}
			if hz.detail != "" {
				more = append(more, wrap(hz.detail, w-2, 2)...)
			}
			if hz.ptxas != "" {
				more = append(more, wrap("ptxas: "+hz.ptxas, w-2, 4)...)
			}
			for _, l := range more {
				out = append(out, "  "+l)
				hit = append(hit, i)
			}
			continue
		}
		line := head + " " + styleDim.Render(hz.msg)
		if hz.severity == "error" {
			line = styleErr.Render(head) + " " + styleDim.Render(hz.msg)
		}
		out = append(out, line)
		hit = append(hit, i)
	}
	// Keep the selected hazard's first line in view.
	if selStart < v.hz.top {
		v.hz.top = selStart
	}
	if selStart >= v.hz.top+h {
		v.hz.top = selStart - h/3
	}
	v.hz.top = clamp(v.hz.top, 0, max(len(out)-h, 0))
	v.hzHit = hit[v.hz.top:]
	return out[v.hz.top:]
}

// ---------------------------------------------------------------- memory

func (v *stepperView) smemRowBytes() int {
	r := v.rectOf(paneSMEM)
	if r.w >= 8+16*3 {
		return 16
	}
	return 8
}

func (v *stepperView) rectOf(p paneKind) paneRect {
	for _, r := range v.layout() {
		if r.kind == p {
			return r
		}
	}
	return paneRect{w: v.w, h: v.h}
}

// renderSMEM draws the selected CTA's shared memory as a hex dump (or as
// bf16 or f32 values, x), with mbarriers marked.
func (v *stepperView) renderSMEM(w, h int) []string {
	size := v.be.smemSize()
	names := []string{"bytes", "bf16", "f32"}
	out := []string{fmt.Sprintf("%d bytes · %s (x) · g: go to offset", size, names[v.smemMode])}
	if size == 0 {
		return append(out, styleDim.Render("the kernel uses no shared memory"))
	}
	per := v.smemRowBytes()
	rows := (size + per - 1) / per
	v.smem.see(h-1, rows)
	mb := map[int]uint32{}
	for _, m := range v.mbarRows {
		mb[int(m.addr)/per] = m.addr
	}
	for r := v.smem.top; r < rows && len(out) < h; r++ {
		off := r * per
		n := min(per, size-off)
		data, err := v.be.shared(v.cta, off, n)
		if err != nil {
			out = append(out, styleErr.Render(err.Error()))
			break
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%05x:", off)
		switch v.smemMode {
		case 0:
			for i, x := range data {
				if i == 8 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, " %02x", x)
			}
		case 1:
			for i := 0; i+1 < len(data); i += 2 {
				fmt.Fprintf(&b, " %7s", shortValue("bf16", uint64(data[i])|uint64(data[i+1])<<8, false))
			}
		case 2:
			for i := 0; i+3 < len(data); i += 4 {
				x := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24
				fmt.Fprintf(&b, " %8s", shortValue("f32", x, false))
			}
		}
		line := b.String()
		if a, ok := mb[r]; ok {
			line += styleWarn.Render(fmt.Sprintf(" mbarrier %#x", a))
		}
		if r == v.smem.cur {
			st := styleUnder
			if v.focus == paneSMEM {
				st = styleSel
			}
			line = st.Render(fitLine(stripANSI(line), w))
		}
		out = append(out, line)
	}
	return out
}

// renderTMEM draws a window of the CTA's Tensor Memory: lanes down,
// columns across, 32-bit cells.
func (v *stepperView) renderTMEM(w, h int) []string {
	if _, err := v.be.tmem(v.cta, 0, 0); err != nil {
		return []string{styleDim.Render("Tensor Memory is not in use in this CTA (tcgen05.alloc has not run, or the kernel is sm_90)")}
	}
	cols := max((w-6)/9, 1)
	rows := max(h-2, 1)
	lane, col := v.tmemCur[0], v.tmemCur[1]
	if lane < v.tmemTop[0] {
		v.tmemTop[0] = lane
	}
	if lane >= v.tmemTop[0]+rows {
		v.tmemTop[0] = lane - rows + 1
	}
	if col < v.tmemTop[1] {
		v.tmemTop[1] = col
	}
	if col >= v.tmemTop[1]+cols {
		v.tmemTop[1] = col - cols + 1
	}
	cur, _ := v.be.tmem(v.cta, lane, col)
	head := fmt.Sprintf("not hardware-verified · lane %d col %d = %08x (%s)", lane, col, cur, shortValue("f32", uint64(cur), false))
	if q := fmt.Sprintf(" · lane quarter %d", lane/32); cellWidth(head+q) <= w {
		head += q
	}
	out := []string{fitLine(head, w)}
	var hb strings.Builder
	hb.WriteString("lane ")
	for c := v.tmemTop[1]; c < v.tmemTop[1]+cols && c < 512; c++ {
		fmt.Fprintf(&hb, " %8s", "c"+strconv.Itoa(c))
	}
	out = append(out, styleDim.Render(hb.String()))
	for l := v.tmemTop[0]; l < v.tmemTop[0]+rows && l < 128; l++ {
		var b strings.Builder
		fmt.Fprintf(&b, "%4d ", l)
		for c := v.tmemTop[1]; c < v.tmemTop[1]+cols && c < 512; c++ {
			x, _ := v.be.tmem(v.cta, l, c)
			cell := fmt.Sprintf("%08x", x)
			if !v.hexVals {
				cell = shortValue("f32", uint64(x), false)
			}
			cell = fmt.Sprintf(" %8s", cell)
			if l == lane && c == col {
				cell = " " + styleSel.Render(cell[1:])
			}
			b.WriteString(cell)
		}
		out = append(out, b.String())
	}
	return out
}

// ---------------------------------------------------------------- fragments

// fragState is the fragment pane: the matrix instruction it shows, the
// operand, and the atom's grid labelled with the register values.
type fragState struct {
	pane       gridPane
	line       int
	operand    int
	version    int // the view version the grid was built for; -1: rebuild
	inst       string
	frs        []fragInfo
	cur        *fragInfo
	base       int // first thread of the CTA the atom's thread 0 is
	err        string
	seekThread bool
	atoms      map[string]*render.Grid
	why        string // how the line was chosen
	fitted     string // the atom and format the cell width was fitted to
}

func newFragState() fragState {
	p := newGridPane()
	p.zoom = 7
	return fragState{pane: p, version: -1, atoms: map[string]*render.Grid{}}
}

// fragLine picks the matrix instruction to show: the source cursor's
// line, else the selected warp's next instruction, else the nearest one
// before it.
func (v *stepperView) fragLine() (int, string) {
	if _, _, err := v.be.fragments(v.src.cur + 1); err == nil {
		return v.src.cur + 1, "the source cursor's line"
	}
	w := v.selWarp()
	if w != nil && w.line > 0 {
		if _, _, err := v.be.fragments(w.line); err == nil {
			return w.line, fmt.Sprintf("warp %d's next instruction", w.warp)
		}
		for l := w.line - 1; l > 0; l-- {
			if v.be.hasInst(l) {
				if _, _, err := v.be.fragments(l); err == nil {
					return l, fmt.Sprintf("the last matrix instruction before warp %d's", w.warp)
				}
			}
		}
	}
	for l := 1; l <= len(v.be.lines()); l++ {
		if v.be.hasInst(l) {
			if _, _, err := v.be.fragments(l); err == nil {
				return l, "the first matrix instruction of the kernel"
			}
		}
	}
	return 0, ""
}

// buildFrag rebuilds the fragment grid when the state changed.
func (v *stepperView) buildFrag(w, h int) {
	f := &v.frag
	line, why := v.fragLine()
	if f.version == v.version && line == f.line {
		return
	}
	f.version, f.why = v.version, why
	if line != f.line {
		f.pane.cur = render.Pos{}
		f.seekThread = true
	}
	f.line, f.err, f.cur = line, "", nil
	if line == 0 {
		f.err = "the kernel has no wgmma, ldmatrix/stmatrix or tcgen05.ld/st instruction"
		f.pane.setGrid(nil)
		return
	}
	inst, frs, err := v.be.fragments(line)
	if err != nil {
		f.err = err.Error()
		return
	}
	f.inst, f.frs = inst, frs
	var withAtom []int
	for i, fr := range frs {
		if fr.atom != "" {
			withAtom = append(withAtom, i)
		}
	}
	if len(withAtom) == 0 {
		f.err = "no register fragment"
		return
	}
	fr := &frs[withAtom[f.operand%len(withAtom)]]
	f.cur = fr
	g := f.atoms[fr.atom]
	if g == nil {
		a, err := catalog.Lookup(fr.atom)
		if err != nil {
			f.err = err.Error()
			return
		}
		g, err = render.FromAtom(a)
		if err != nil {
			f.err = err.Error()
			return
		}
		f.atoms[fr.atom] = g
	}
	a, _ := catalog.Lookup(fr.atom)
	vpr := max(a.ValsPerReg, 1)
	ebits := 32 / vpr
	// The atom's thread t is thread base+t of the CTA: the selected
	// warp's warpgroup (128-thread atoms) or the selected warp.
	f.base = v.thread / fr.threads * fr.threads
	vals := map[[2]int][32]uint64{}
	ok := map[[2]int]bool{}
	get := func(warp, reg int) ([32]uint64, bool) {
		k := [2]int{warp, reg}
		if x, seen := vals[k]; seen || ok[k] {
			return x, ok[k]
		}
		x, err := v.be.reg(v.cta, warp, fr.regs[reg])
		vals[k], ok[k] = x, err == nil
		return x, err == nil
	}
	lg := *g
	lg.Cells = append([]render.Cell(nil), g.Cells...)
	for i := range lg.Cells {
		c := &lg.Cells[i]
		if len(c.Owners) == 0 {
			continue
		}
		o := c.Owners[0]
		reg, part := o.Value/vpr, o.Value%vpr
		t := f.base + o.Thread
		if reg >= len(fr.regs) {
			c.Label = "?"
			continue
		}
		x, good := get(t/32, reg)
		if !good {
			c.Label = "-"
			continue
		}
		raw := x[t%32]
		if vpr > 1 {
			raw = raw >> (uint(part) * uint(ebits)) & (1<<uint(ebits) - 1)
		}
		c.Label = shortValue(fr.elem, raw, v.hexVals)
	}
	lg.Title = fr.atom
	key := fmt.Sprintf("%s %v", fr.atom, v.hexVals)
	f.pane.setGrid(&lg)
	if key != f.fitted {
		// A new atom or value format: the widest value decides the cells.
		f.fitted = key
		f.pane.setZoom(valueWidth(fr.elem, v.hexVals))
	}
	if f.seekThread {
		f.seekThread = false
		v.fragSeekThread()
	}
}

// valueWidth is the cell width that shows every value of type typ.
func valueWidth(typ string, hex bool) int {
	if hex || isBitsType(typ) {
		return max(typeBits(typ)/4, 1)
	}
	if t, err := launch.ParseScalarType(typ); err == nil && !t.IsFloat() {
		return 6
	}
	return 7
}

// fragSeekThread puts the fragment cursor on the selected thread's first
// cell.
func (v *stepperView) fragSeekThread() {
	g := v.frag.pane.g
	if g == nil {
		return
	}
	t := v.thread - v.frag.base
	if cur := v.frag.pane.cell(); cur != nil && len(cur.Owners) > 0 && cur.Owners[0].Thread == t {
		return
	}
	if cells := g.CellsOf(t); len(cells) > 0 {
		v.frag.pane.moveTo(cells[0]/g.Cols, cells[0]%g.Cols)
	}
}

// fragSelect makes the fragment cursor's thread the selected thread.
func (v *stepperView) fragSelect() {
	c := v.frag.pane.cell()
	if c == nil || len(c.Owners) == 0 || v.frag.cur == nil {
		return
	}
	t := v.frag.base + c.Owners[0].Thread
	if t != v.thread {
		v.selectThread(t)
		v.frag.seekThread = false
	}
	a, _ := catalog.Lookup(v.frag.cur.atom)
	if reg := c.Owners[0].Value / max(a.ValsPerReg, 1); reg < len(v.frag.cur.regs) {
		v.regSel = v.frag.cur.regs[reg]
		for i, r := range v.regList() {
			if r.name == v.regSel {
				v.regsL.cur = i
			}
		}
	}
}

// prepFrag brings the fragment grid up to date before a key or the mouse
// acts on it (the screen may not have been drawn since the state changed).
func (v *stepperView) prepFrag() {
	r := v.rectOf(paneFrag)
	h := max(r.h-1, 1)
	v.frag.pane.setSize(r.w, max(h-3, 1))
	v.buildFrag(r.w, h)
}

func (v *stepperView) renderFrag(w, h int) []string {
	v.frag.pane.setSize(w, max(h-3, 1))
	v.buildFrag(w, h)
	f := &v.frag
	if f.line == 0 || f.err != "" && f.cur == nil {
		msg := f.err
		if f.line > 0 {
			msg = fmt.Sprintf("line %d: %s", f.line, f.err)
		}
		return wrap(msg, w, 0)
	}
	var ops []string
	for _, fr := range f.frs {
		if fr.atom == "" {
			continue
		}
		name := fr.operand
		if fr.operand == f.cur.operand {
			name = "[" + name + "]"
		}
		ops = append(ops, name)
	}
	out := []string{fitLine(fmt.Sprintf("line %d (%s): %s", f.line, f.why, f.inst), w)}
	out = append(out, fitLine(fmt.Sprintf("%s %s, %d registers · o: operand %s", f.cur.operand, f.cur.atom, len(f.cur.regs), strings.Join(ops, " ")), w))
	out = append(out, strings.Split(f.pane.render(), "\n")...)
	out = out[:min(len(out), h-1)]
	// The cursor cell, last.
	if c := f.pane.cell(); c != nil && len(c.Owners) > 0 {
		o := c.Owners[0]
		a, _ := catalog.Lookup(f.cur.atom)
		vpr := max(a.ValsPerReg, 1)
		reg := o.Value / vpr
		p := f.pane.g.PanelOf(c)
		t := f.base + o.Thread
		desc := fmt.Sprintf("(%s %d, %s %d) T%d V%d", orDefault(p.RowName, "row"), c.Row, orDefault(p.ColName, "col"), c.Col, t, o.Value)
		if reg < len(f.cur.regs) {
			desc += " = " + f.cur.regs[reg]
			if vpr > 1 {
				desc += fmt.Sprintf(" %s %d", map[bool]string{true: "half", false: "byte"}[vpr == 2], o.Value%vpr)
			}
			desc += " = " + c.Label
			if c.Label == "-" {
				desc += " (no value: not written yet)"
			}
		}
		for len(out) < h-1 {
			out = append(out, "")
		}
		out = append(out, desc)
	}
	return out
}

// stripANSI drops escape sequences.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
