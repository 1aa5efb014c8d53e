package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

// DefaultSubject is the explorer's first atom: the wgmma accumulator whose
// epilogue bitmath the seed guide derives.
const DefaultSubject = "wgmma.m64n64.d.f32"

// explorer is the layout explorer: a catalog atom, an MMA's three operands
// or a typed layout, drawn cell by cell, with a side panel about the
// cursor cell.
type explorer struct {
	st      *state
	pane    gridPane
	pick    picker
	labels  int // index into labelModes
	colors  int // index into colorModes
	side    bool
	w, h    int
	msg     string
	relabel map[int]*render.Grid // grids with cell labels for labelModes[i], i > 0
	ownersW int                  // the cell width that shows every owner label in full
	shown   int                  // the label mode drawn: labels, or a fallback when the cells are too narrow
	keys    explorerKeys
}

type explorerKeys struct {
	Pick, MMA, Color, Label, Owner, NextCell, PrevCell, Fit, Side key.Binding
}

var colorModes = []render.ColorBy{render.ColorAuto, render.ColorThread, render.ColorWarp, render.ColorLane, render.ColorValue, colorRegister, render.ColorBank, render.ColorOffset}

// colorRegister colours owner cells by register (value / values per
// register): drawn as render.ColorTag over cells tagged by the explorer.
const colorRegister = render.ColorBy(-1)

// labelModes are what owner cells show; offset cells cycle through
// render's label modes instead.
var labelModes = []string{"owners", "thread", "value", "register", "warp.lane"}

var offsetLabels = []render.LabelMode{render.LabelAuto, render.LabelBank, render.LabelByte, render.LabelOffset}

func newExplorer(st *state, spec string, mma bool) (*explorer, error) {
	e := &explorer{
		st: st, pane: newGridPane(), side: true, relabel: map[int]*render.Grid{},
		keys: explorerKeys{
			Pick:     key.NewBinding(key.WithKeys("/", "enter"), key.WithHelp("/", "pick an atom or type a layout")),
			MMA:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "MMA: A, B, C together")),
			Color:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "colour: thread/warp/lane/value/register")),
			Label:    key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "cell labels")),
			Owner:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "next owner (broadcast)")),
			NextCell: key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/prev cell of the thread")),
			PrevCell: key.NewBinding(key.WithKeys("N")),
			Fit:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "fit cell width")),
			Side:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "side panel")),
		},
	}
	if spec == "" {
		spec = DefaultSubject
	}
	var s *subject
	var err error
	if mma {
		s, err = mmaSubject(spec)
	} else {
		s, err = newSubject(spec)
	}
	if err != nil {
		return nil, err
	}
	e.setSubject(s)
	return e, nil
}

func (e *explorer) title() string { return "Layout" }

func (e *explorer) setSubject(s *subject) {
	e.st.subject = s
	e.st.gen++
	e.relabel = map[int]*render.Grid{}
	e.labels = 0
	e.pane.cur = render.Pos{}
	e.pane.row0, e.pane.col0 = 0, 0
	e.pane.label = render.LabelAuto
	e.pane.setGrid(s.grid)
	e.pane.fitZoom(maxZoom)
	e.ownersW = e.pane.zoom
	if e.ownerPanels() {
		// Owner labels fall back to thread numbers in narrow cells.
		e.pane.setZoom(min(e.ownersW, 8))
	}
	e.applyLabels()
	if e.shown != 0 {
		e.pane.fitZoom(7)
	}
	// Start on the first cell of the first panel (the gap of an MMA
	// picture is void).
	if p := s.grid.Panels; len(p) > 0 {
		last := p[len(p)-1]
		e.pane.moveTo(last.Row0, last.Col0)
	}
	e.syncState()
}

// syncState tells the other views which panel and owner the cursor is on.
func (e *explorer) syncState() {
	c := e.pane.cell()
	panel := -1
	if c != nil {
		panel = c.Panel
	}
	if panel != e.st.panel {
		e.st.panel = panel
		e.st.gen++
	}
	if c != nil && e.st.owner >= len(c.Owners) {
		e.st.owner = 0
	}
}

func (e *explorer) setSize(w, h int) {
	e.w, e.h = w, h
	e.layout()
}

func (e *explorer) sideWidth() int {
	switch {
	case !e.side || e.w < 60:
		return 0
	case e.w >= 140:
		return 56
	case e.w >= 100:
		return 44
	}
	return 34
}

func (e *explorer) layout() {
	sw := e.sideWidth()
	gw := e.w
	if sw > 0 {
		gw = e.w - sw - 1
	}
	e.pane.setSize(gw, e.h-1)
}

func (e *explorer) capturing() bool { return e.pick.active }

func (e *explorer) status() string {
	if e.msg != "" {
		return e.msg
	}
	// The longest form that fits: the colour mode's meaning goes first,
	// then the words around the window.
	full := e.pane.windowLine() + " · colour: " + e.colorName() + " · cells: " + e.labelName()
	name, _, _ := strings.Cut(e.colorName(), " (")
	for _, s := range []string{
		full,
		e.pane.windowLine() + " · colour: " + name + " · cells: " + e.labelName(),
		strings.NewReplacer(" of ", "/", "rows ", "r ", "cols ", "c ").Replace(e.pane.windowLine()) + " · " + name + " · " + e.labelName(),
	} {
		if cellWidth(s) <= e.w {
			return styleDim.Render(s)
		}
	}
	return styleDim.Render(full)
}

func (e *explorer) colorName() string {
	switch c := colorModes[e.colors]; {
	case c == render.ColorAuto && e.ownerPanels():
		return "thread (hue = warp, shade = lane)"
	case c == render.ColorAuto:
		return "auto"
	case c == render.ColorThread:
		return "thread (hue = warp, shade = lane)"
	case c == render.ColorWarp:
		return "warp (hue)"
	case c == colorRegister:
		return "register"
	default:
		return c.String()
	}
}

func (e *explorer) labelName() string {
	if e.ownerPanels() {
		if e.shown != e.labels {
			return labelModes[e.shown] + " (+ for T#V#)"
		}
		return labelModes[e.labels]
	}
	if e.pane.label == render.LabelAuto {
		for _, p := range e.st.subject.grid.Panels {
			if p.TMEM {
				return "TMEM lane L, column C"
			}
		}
		return "offset"
	}
	return e.pane.label.String()
}

// ownerPanels reports whether the subject has thread-value panels.
func (e *explorer) ownerPanels() bool {
	for _, p := range e.st.subject.grid.Panels {
		if p.Kind == render.Owners {
			return true
		}
	}
	return false
}

func (e *explorer) bindings() ([]key.Binding, [][]key.Binding) {
	k := e.keys
	if e.pick.active {
		return []key.Binding{pk.Up, pk.Down, pk.Enter, pk.Cancel}, [][]key.Binding{{pk.Up, pk.Down, pk.PageUp, pk.Enter, pk.Cancel}}
	}
	return []key.Binding{k.Pick, k.MMA, k.Color, k.Label, gk.ZoomIn},
		[][]key.Binding{{k.Pick, k.MMA, k.Color, k.Label, k.Fit, k.Side}, {k.Owner, k.NextCell}, gk.help()}
}

func (e *explorer) update(msg tea.Msg) tea.Cmd {
	if e.pick.active {
		res, cmd := e.pick.update(msg)
		if res != nil {
			e.choose(res)
		}
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		e.msg = ""
		if zoom := e.pane.zoom; e.pane.handleKey(msg) {
			if e.pane.zoom != zoom {
				e.applyLabels()
			}
			e.syncState()
			return nil
		}
		k := e.keys
		switch {
		case key.Matches(msg, k.Pick):
			return e.pick.open("Pick an atom (fuzzy filter) or type a CuTe layout", "e.g. wgmma m64n128 d, ldmatrix x4, smem sw128, or ((4,8),(2,2)):((16,1),(8,64)) 16x16",
				catalog.All(), true)
		case key.Matches(msg, k.MMA):
			e.toggleMMA()
		case key.Matches(msg, k.Color):
			e.colors = (e.colors + 1) % len(colorModes)
			e.applyLabels()
		case key.Matches(msg, k.Label):
			e.cycleLabels()
		case key.Matches(msg, k.Owner):
			if c := e.pane.cell(); c != nil && len(c.Owners) > 1 {
				e.st.owner = (e.st.owner + 1) % len(c.Owners)
			}
		case key.Matches(msg, k.NextCell):
			e.jumpThread(1)
		case key.Matches(msg, k.PrevCell):
			e.jumpThread(-1)
		case key.Matches(msg, k.Fit):
			if e.labels == 0 {
				e.pane.setZoom(e.ownersW)
				e.applyLabels()
			} else {
				e.pane.fitZoom(maxZoom)
			}
		case key.Matches(msg, k.Side):
			e.side = !e.side
			e.layout()
		}
	case tea.MouseMsg:
		m := msg.Mouse()
		if e.pane.handleMouse(msg, m.X, m.Y-1) {
			e.syncState()
		}
	}
	return nil
}

func (e *explorer) choose(res *pickResult) {
	var s *subject
	var err error
	if res.atom != nil {
		s, err = atomSubject(*res.atom)
	} else {
		s, err = newSubject(res.typed)
	}
	if err != nil {
		e.msg = styleErr.Render(err.Error())
		return
	}
	e.setSubject(s)
}

// toggleMMA switches between an MMA operand and the MMA's three operands.
func (e *explorer) toggleMMA() {
	s := e.st.subject
	if s.mma {
		if a := s.atomOf(max(e.st.panel, 0)); a != nil {
			if ns, err := atomSubject(*a); err == nil {
				e.setSubject(ns)
			}
		}
		return
	}
	if len(s.atoms) != 1 {
		e.msg = styleErr.Render("m: a typed layout is not an MMA operand; pick an atom such as mma.sync.m16n8.d.f32")
		return
	}
	ns, err := mmaSubject(s.atoms[0].Name)
	if err != nil {
		e.msg = styleErr.Render(err.Error())
		return
	}
	e.setSubject(ns)
	// Put the cursor on the operand we came from.
	for i, a := range ns.atoms {
		if a.Name == s.atoms[0].Name {
			p := ns.grid.Panels[i]
			e.pane.moveTo(p.Row0, p.Col0)
		}
	}
	e.syncState()
}

// cycleLabels changes what the cells show.
func (e *explorer) cycleLabels() {
	if !e.ownerPanels() {
		i := 0
		for k, l := range offsetLabels {
			if l == e.pane.label {
				i = k
			}
		}
		e.pane.label = offsetLabels[(i+1)%len(offsetLabels)]
		return
	}
	e.labels = (e.labels + 1) % len(labelModes)
	if e.labels == 0 {
		e.pane.setZoom(e.ownersW)
	}
	e.applyLabels()
	if e.labels != 0 {
		e.pane.fitZoom(7)
	}
}

// applyLabels draws the cells with the chosen labels; full owner labels
// that do not fit the cell width fall back to thread numbers (value
// numbers for whole-warpgroup broadcasts, whose threads are all alike).
func (e *explorer) applyLabels() {
	g := e.st.subject.grid
	e.shown = e.labels
	if e.labels == 0 && e.pane.zoom < e.ownersW {
		e.shown = 1 // thread
		if g.MaxOwners() >= 32 {
			e.shown = 2 // value
		}
	}
	byReg := colorModes[e.colors] == colorRegister
	if e.shown > 0 || byReg {
		k := e.shown
		if byReg {
			k += len(labelModes) // tagged copies are cached apart
		}
		if e.relabel[k] == nil {
			e.relabel[k] = relabelGrid(g, labelModes[e.shown])
			if byReg {
				tagRegisters(e.relabel[k])
			}
		}
		g = e.relabel[k]
	}
	e.pane.color = colorModes[e.colors]
	if byReg {
		e.pane.color = render.ColorTag
	}
	if e.pane.g != g {
		e.pane.setGrid(g)
	}
}

// relabelGrid returns a copy of g whose owner cells show only the thread,
// value, register or warp.lane of their owners.
func relabelGrid(g *render.Grid, mode string) *render.Grid {
	c := *g
	c.Cells = append([]render.Cell(nil), g.Cells...)
	for i := range c.Cells {
		cell := &c.Cells[i]
		p := c.PanelOf(cell)
		if p == nil || p.Kind != render.Owners || len(cell.Owners) == 0 {
			continue
		}
		var xs []int
		for _, o := range cell.Owners {
			switch mode {
			case "thread":
				xs = append(xs, o.Thread)
			case "value":
				xs = append(xs, o.Value)
			case "register":
				xs = append(xs, o.Value/max(p.ValsPerReg, 1))
			case "warp.lane":
				xs = append(xs, o.Thread)
			}
		}
		if mode == "warp.lane" {
			t := xs[0]
			cell.Label = strconv.Itoa(t/32) + "." + strconv.Itoa(t%32)
			if len(xs) > 1 {
				cell.Label += "+"
			}
			continue
		}
		cell.Label = runs(xs)
		if mode == "register" {
			cell.Label = "r" + cell.Label
		}
	}
	return &c
}

// tagRegisters tags every owner cell of g with its first owner's register
// (value / values per register), for render.ColorTag.
func tagRegisters(g *render.Grid) {
	for i := range g.Cells {
		c := &g.Cells[i]
		if p := g.PanelOf(c); p != nil && p.Kind == render.Owners && len(c.Owners) > 0 {
			c.Tag = c.Owners[0].Value / max(p.ValsPerReg, 1)
		}
	}
}

// runs prints a set of integers as sorted runs: "0-3,8".
func runs(xs []int) string {
	seen := map[int]bool{}
	var u []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			u = append(u, x)
		}
	}
	for i := 1; i < len(u); i++ {
		for j := i; j > 0 && u[j] < u[j-1]; j-- {
			u[j], u[j-1] = u[j-1], u[j]
		}
	}
	var b strings.Builder
	for i := 0; i < len(u); {
		j := i
		for j+1 < len(u) && u[j+1] == u[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(u[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(u[j]))
		}
		i = j + 1
	}
	return b.String()
}

// jumpThread moves the cursor to the next (dir 1) or previous (dir -1)
// cell, in row-major order, that the followed owner's thread also holds.
func (e *explorer) jumpThread(dir int) {
	c := e.pane.cell()
	if c == nil || len(c.Owners) == 0 {
		e.msg = styleDim.Render("n/N: this cell has no owner")
		return
	}
	t := c.Owners[min(e.st.owner, len(c.Owners)-1)].Thread
	g := e.pane.g
	n := g.Rows * g.Cols
	start := e.pane.cur.Row*g.Cols + e.pane.cur.Col
	for k := 1; k < n; k++ {
		i := ((start+dir*k)%n + n) % n
		for _, o := range g.Cells[i].Owners {
			if o.Thread == t && g.Cells[i].Panel == c.Panel {
				e.pane.moveTo(i/g.Cols, i%g.Cols)
				e.syncState()
				return
			}
		}
	}
	e.msg = styleDim.Render(fmt.Sprintf("thread %d holds no other cell of this tile", t))
}

func (e *explorer) render() string {
	if e.pick.active {
		return e.pick.view(e.w, e.h)
	}
	s := e.st.subject
	head := section(s.grid.Title)
	if s.mma {
		head = section(s.name())
	}
	grid := e.pane.render()
	sw := e.sideWidth()
	body := grid
	if sw > 0 {
		body = sideBySide(grid, e.sideText(sw), e.pane.w, sw, e.h-1)
	}
	return fitStatus(head+styleDim.Render("  "+e.subjectInfo()), e.w) + "\n" + body
}

// subjectInfo is the short description after the title.
func (e *explorer) subjectInfo() string {
	s := e.st.subject
	if len(s.atoms) == 1 {
		a := s.atoms[0]
		info := fmt.Sprintf("%dx%d (%s x %s)", a.Rows, a.Cols, a.RowName, a.ColName)
		if a.Kind == catalog.KindTV {
			info += fmt.Sprintf(", %d threads x %d values", a.Threads(), a.Values())
		}
		return info + ", " + provenance(a)
	}
	if s.mma {
		return "A left, B above (k down), C at the origin"
	}
	g := s.grid
	return fmt.Sprintf("%dx%d", g.Rows, g.Cols)
}

func provenance(a catalog.Atom) string {
	switch {
	case a.Verified != "":
		return "hardware-verified"
	case a.NeedsArch != "":
		return "not hardware-verified (needs " + a.NeedsArch + ")"
	}
	return "not hardware-verified"
}

// sideText describes the cursor cell in w columns.
func (e *explorer) sideText(w int) string {
	var lines []string
	add := func(s string, indent int) { lines = append(lines, wrap(s, w, indent)...) }
	c := e.pane.cell()
	s := e.st.subject
	g := s.grid
	p := g.PanelOf(c)
	if c == nil || p == nil {
		add("(no tile here: move to a cell of A, B or C)", 0)
		return strings.Join(lines, "\n")
	}
	a := s.atomOf(c.Panel)
	rowName, colName := p.RowName, p.ColName
	where := fmt.Sprintf("%s %d, %s %d", orDefault(rowName, "row"), c.Row, orDefault(colName, "col"), c.Col)
	if p.Name != "" {
		where = p.Name + ": " + where
	}
	lines = append(lines, section(where))
	if a != nil && s.mma {
		add(a.Name, 2)
	}
	pm := s.mathOf(c.Panel)
	switch {
	case p.Kind == render.Owners:
		if len(c.Owners) == 0 {
			add("no thread holds this cell", 0)
			break
		}
		k := min(e.st.owner, len(c.Owners)-1)
		o := c.Owners[k]
		if len(c.Owners) > 1 {
			add(fmt.Sprintf("%d owners (a broadcast): %s", len(c.Owners), string(render.AppendCompact(nil, c.Owners))), 2)
			add(fmt.Sprintf("following owner %d of %d (o: next)", k+1, len(c.Owners)), 2)
		}
		lines = append(lines, styleKey.Render(fmt.Sprintf("T%d V%d", o.Thread, o.Value)))
		add(fmt.Sprintf("tid %d = warp %d, lane %d", o.Thread, o.Thread/32, o.Thread%32), 2)
		if vpr := p.ValsPerReg; vpr > 1 {
			half := []string{"low", "high"}
			part := fmt.Sprintf("element %d", o.Value%vpr)
			if vpr == 2 {
				part = half[o.Value%2] + " half"
			}
			add(fmt.Sprintf("value %d = register %d, %s (%d values per 32-bit register)", o.Value, o.Value/vpr, part, vpr), 2)
		} else if vpr == 1 {
			add(fmt.Sprintf("value %d = register %d", o.Value, o.Value), 2)
		} else {
			add(fmt.Sprintf("value %d", o.Value), 2)
		}
		e.addMath(&lines, w, pm, c, k)
	default:
		if p.TMEM {
			cta := p.CTA(c.Row)
			lane, col := render.TMEMLane(c.Offset), render.TMEMColumn(c.Offset)
			add(fmt.Sprintf("TMEM lane %d, column %d (address %#x from the base)", lane, col, c.Offset), 2)
			if p.SubBits > 0 {
				add(fmt.Sprintf("byte %d of the 32-bit cell (%d-bit elements share it)", c.Byte, p.SubBits), 2)
			}
			if p.CTAs > 1 {
				add(fmt.Sprintf("in CTA %d of the pair (label c%d:)", cta, cta), 2)
			}
			add(fmt.Sprintf("warp %d of the warpgroup reaches lanes %d-%d (tcgen05.ld/st: warp w mod 4 accesses lanes 32(w mod 4)..+31)", lane/32%4, lane/32*32, lane/32*32+31), 2)
		} else {
			add(fmt.Sprintf("offset %d", c.Offset), 2)
			if p.ElemBits > 0 {
				byteOff := c.Offset * p.ElemBits / 8
				add(fmt.Sprintf("byte %d (%d-bit elements): bank %d, 16-byte chunk %d of its 128-byte row", byteOff, p.ElemBits, c.Bank, byteOff/16%8), 2)
			} else {
				add("element width unknown: type the layout with b16 (or b8, b32) to see banks", 2)
			}
		}
		e.addMath(&lines, w, pm, c, 0)
	}
	return strings.Join(lines, "\n")
}

// addMath appends the bitmath of the cell: the forward program with the
// numbers substituted, then the inverse.
func (e *explorer) addMath(lines *[]string, w int, pm *panelMath, c *render.Cell, owner int) {
	add := func(s string, indent int) { *lines = append(*lines, wrap(s, w, indent)...) }
	*lines = append(*lines, "")
	if pm.err != nil {
		*lines = append(*lines, section("bitmath"))
		add(pm.err.Error(), 2)
		return
	}
	in, ok := inputsOf(pm, c, owner)
	if !ok {
		return
	}
	*lines = append(*lines, section("bitmath ("+fmtInputs(pm.d.Forward.Inputs, in)+")"))
	steps, err := traceProgram(pm.d.Forward, in)
	addSteps(lines, w, steps)
	if err != nil {
		add(err.Error(), 2)
	}
	// The inverse, from the outputs the forward program computed.
	out := map[string]int64{}
	for _, st := range steps {
		out[st.Name] = st.Value
	}
	inv := map[string]int64{}
	for _, f := range pm.d.Inverse.Inputs {
		v, ok := out[f.Name]
		if !ok {
			return
		}
		inv[f.Name] = v
	}
	*lines = append(*lines, section("inverse ("+fmtInputs(pm.d.Inverse.Inputs, inv)+")"))
	isteps, err := traceProgram(pm.d.Inverse, inv)
	addSteps(lines, w, isteps)
	if err != nil {
		add(err.Error(), 2)
	}
}

// addSteps appends traced steps: on one line where it fits, else the
// formula and, indented, its numbers.
func addSteps(lines *[]string, w int, steps []traceStep) {
	for _, st := range steps {
		if one := st.String(); len(one) <= w {
			*lines = append(*lines, one)
			continue
		}
		ls := st.Lines()
		*lines = append(*lines, wrap(ls[0], w, 4)...)
		for _, l := range ls[1:] {
			for _, x := range wrap(l, w-4, 2) {
				*lines = append(*lines, "    "+x)
			}
		}
	}
}

func fmtInputs(fs []bitmath.Field, in map[string]int64) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %d", f.Name, in[f.Name]))
	}
	return strings.Join(parts, ", ")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
