package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The stepper's input: messages, keys (stepping, breakpoints, panes,
// go-to), arrow navigation inside the focused pane, and the mouse.

func (v *stepperView) update(msg tea.Msg) tea.Cmd {
	if v.running != nil {
		return v.runUpdate(msg)
	}
	if v.open != nil {
		return v.openUpdate(msg)
	}
	if v.inputOn {
		if km, ok := msg.(tea.KeyPressMsg); ok {
			switch {
			case key.Matches(km, v.keys.Cancel):
				v.inputOn = false
				v.input.Blur()
				return nil
			case km.String() == "enter":
				text := strings.TrimSpace(v.input.Value())
				v.inputOn = false
				v.input.Blur()
				if v.inputFor == "search" {
					v.search(text, 1, true)
				} else {
					v.applyGoto(text)
				}
				return nil
			}
		}
		var cmd tea.Cmd
		v.input, cmd = v.input.Update(msg)
		return cmd
	}
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, v.keys.Open) {
		v.msg = ""
		return v.openPicker()
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
		return v.start("to a breakpoint", func() error { return be.run(v.breakLines(), false, runLimit) }, func() {
			if s := be.last(); len(v.breaks) == 0 && s.reason == "done" {
				v.msg = styleDim.Render(fmt.Sprintf("step %d · finished (no breakpoints: b sets one on the source line)", be.steps()))
			}
		})
	case key.Matches(msg, k.Hazard):
		before := len(v.hazRows)
		return v.start("to the next hazard", func() error { return be.run(v.breakLines(), true, runLimit) }, func() {
			if len(v.hazRows) == before && be.last().reason == "done" {
				v.msg = styleOK.Render(fmt.Sprintf("step %d · finished: no further hazard", be.steps()))
			}
		})
	case key.Matches(msg, k.Cursor):
		return v.runToCursor()
	case key.Matches(msg, k.Back):
		return v.start("a step back (replaying the run)", func() error { return be.back(false) }, nil)
	case key.Matches(msg, k.BackStop):
		return v.start("back to the last stop (replaying the run)", func() error { return be.back(true) }, nil)
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
		return v.openInput("goto", prompt)
	case key.Matches(msg, k.Search):
		return v.openInput("search", "search> ")
	case key.Matches(msg, k.Next):
		v.search(v.query, 1, false)
	case key.Matches(msg, k.Prev):
		v.search(v.query, -1, false)
	case key.Matches(msg, k.Hide):
		v.toggleHidden()
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

// openInput opens the text field in the header line, for a go-to or a
// search.
func (v *stepperView) openInput(what, prompt string) tea.Cmd {
	v.input = newTextInput(prompt, "")
	v.input.SetWidth(max(v.w-24, 10))
	v.inputOn, v.inputFor = true, what
	return v.input.Focus()
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
			v.goLine(l)
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
		v.goLine(n)
		v.focus = paneSource
	}
}

// navigate applies a movement key to the focused pane: the arrows or
// hjkl, pages, and home/end or g/G for the first and last item.
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
	case key.Matches(msg, gk.Home), key.Matches(msg, gk.Top) && v.focus != paneFrag:
		d = -1 << 30
	case key.Matches(msg, gk.End), key.Matches(msg, gk.Bottom) && v.focus != paneFrag:
		d = 1 << 30
	}
	switch v.focus {
	case paneSource:
		v.moveRows(d)
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
		case key.Matches(msg, gk.Top):
			v.tmemCur[0] = 0
		case key.Matches(msg, gk.Bottom):
			v.tmemCur[0] = 127
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
			v.src.top = clamp(v.src.top+d, 0, max(len(v.rows())-v.srcRowsHeight(), 0))
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
		rows := v.rows()
		row := v.src.top + cy
		if cy >= v.srcRowsHeight() || row >= len(rows) {
			return // below the lines (the source-mapping line)
		}
		v.src.cur = rows[row]
		v.frag.version = -1
		if cx < 2 {
			v.toggleBreak(v.src.cur + 1)
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
