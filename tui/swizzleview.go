package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

// The swizzle view's defaults: the 128-byte-swizzled bf16 tile that wgmma
// reads, stored to from the m64n64 accumulator (an epilogue's st.shared).
const (
	DefaultSMEM     = "smem.k.sw128.b16"
	defaultFragment = "wgmma.m64n64.d.f32"
	defaultLdmatrix = "ldmatrix.m8n8.x4.b16"
)

// The access patterns of the swizzle view.
const (
	patLdShared = iota
	patLdmatrix
	patCore
	patTMA
	numPatterns
)

var patternNames = []string{"ld/st.shared", "ldmatrix/stmatrix", "wgmma core-matrix reads", "TMA write box"}

// swizzleView shows a shared-memory layout with its swizzle, byte by bank,
// under an access pattern: which cells each phase touches, the conflicts
// per phase, and the cells each thread touches.
type swizzleView struct {
	smem      smemLayout
	frag      catalog.Atom // the fragment of ld.shared/st.shared
	ldm       catalog.Atom // the ldmatrix/stmatrix atom
	pattern   int
	widths    []int // valid ld.shared access widths (bytes)
	width     int   // index into widths
	warp      int
	transpose bool

	instrs []bankInstr
	step   int      // the selected phase, counting through every instruction
	steps  [][2]int // (instruction, phase) of each step
	cellAt map[int][]int
	base   *render.Grid
	err    error

	pane    gridPane
	labels  int // 0 bank, 1 offset, 2 byte
	pick    picker
	picking string // "smem" or "frag" while the picker is open
	msg     string
	w, h    int
	keys    swizzleKeys
}

type swizzleKeys struct {
	Pattern, Next, Prev, Width, Warp, SMEM, Frag, Transpose, Label key.Binding
}

func newSwizzleView(spec string) (*swizzleView, error) {
	v := &swizzleView{
		pane: newGridPane(),
		keys: swizzleKeys{
			Pattern:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "access pattern")),
			Next:      key.NewBinding(key.WithKeys("]", "."), key.WithHelp("[/]", "previous/next phase")),
			Prev:      key.NewBinding(key.WithKeys("[", ",")),
			Width:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "access width")),
			Warp:      key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "warp")),
			SMEM:      key.NewBinding(key.WithKeys("s", "/"), key.WithHelp("s", "shared-memory layout")),
			Frag:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fragment")),
			Transpose: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "transpose tile↔SMEM")),
			Label:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "cells: bank/offset/byte")),
		},
	}
	v.pane.color = render.ColorTag
	v.pane.zoom = 3
	if spec == "" {
		spec = DefaultSMEM
	}
	sm, err := newSmemTyped(spec)
	if err != nil {
		return nil, fmt.Errorf("swizzle view: %w", err)
	}
	v.smem = sm
	if v.frag, err = catalog.Lookup(defaultFragment); err != nil {
		return nil, err
	}
	if v.ldm, err = catalog.Lookup(defaultLdmatrix); err != nil {
		return nil, err
	}
	v.rebuild(true)
	return v, nil
}

func (v *swizzleView) title() string { return "Swizzle" }

func (v *swizzleView) setSize(w, h int) {
	v.w, v.h = w, h
	sw := v.sideWidth()
	gw := w
	if sw > 0 {
		gw = w - sw - 1
	}
	v.pane.setSize(gw, h-2)
}

func (v *swizzleView) sideWidth() int {
	switch {
	case v.w < 60:
		return 0
	case v.w >= 120:
		return 50
	}
	return 36
}

func (v *swizzleView) capturing() bool { return v.pick.active }

func (v *swizzleView) status() string {
	if v.msg != "" {
		return v.msg
	}
	return styleDim.Render(v.pane.windowLine() + " · cells: " + []string{"bank", "offset", "byte"}[v.labels] + " · coloured: the selected phase, by bank; ! = a bank conflict")
}

func (v *swizzleView) bindings() ([]key.Binding, [][]key.Binding) {
	if v.pick.active {
		return []key.Binding{pk.Up, pk.Down, pk.Enter, pk.Cancel}, [][]key.Binding{{pk.Up, pk.Down, pk.PageUp, pk.Enter, pk.Cancel}}
	}
	k := v.keys
	return []key.Binding{k.Pattern, k.Next, k.SMEM, k.Frag, k.Width},
		[][]key.Binding{gk.help(), {k.Pattern, k.Next, k.Width, k.Warp}, {k.SMEM, k.Frag, k.Transpose, k.Label}}
}

// tile is the tile the pattern draws: the fragment's, the ldmatrix
// atom's or the SMEM layout's own.
func (v *swizzleView) tile() patternGrid {
	switch v.pattern {
	case patLdShared:
		return patternGrid{Rows: v.frag.Rows, Cols: v.frag.Cols, Transpose: v.transpose}
	case patLdmatrix:
		return patternGrid{Rows: v.ldm.Rows, Cols: v.ldm.Cols, Transpose: v.transpose}
	}
	if v.transpose {
		return patternGrid{Rows: v.smem.Cols, Cols: v.smem.Rows, Transpose: true}
	}
	return patternGrid{Rows: v.smem.Rows, Cols: v.smem.Cols}
}

// rebuild recomputes the pattern; newWidths picks the widest access the
// fragment allows.
func (v *swizzleView) rebuild(newWidths bool) {
	pg := v.tile()
	v.err = nil
	v.instrs = nil
	if v.pattern == patLdShared && newWidths {
		v.widths = validWidths(v.frag, v.smem, pg)
		v.width = len(v.widths) - 1
	}
	switch v.pattern {
	case patLdShared:
		if len(v.widths) == 0 {
			_, v.err = ldShared(v.frag, v.smem, pg, max(v.smem.Bits/8, 1), 0)
			if v.err == nil {
				v.err = fmt.Errorf("no access width moves whole values of %s in %s", v.frag.Name, v.smem.Name)
			}
			break
		}
		v.warp = min(v.warp, v.frag.Threads()/32-1)
		v.instrs, v.err = ldShared(v.frag, v.smem, pg, v.widths[v.width], v.warp)
	case patLdmatrix:
		v.instrs, v.err = ldMatrix(v.ldm, v.smem, pg)
	case patCore:
		v.instrs, v.err = coreMatrices(v.smem, pg)
	case patTMA:
		v.instrs, v.err = tmaBox(v.smem, pg)
	}
	v.steps = v.steps[:0]
	v.cellAt = map[int][]int{}
	for i, in := range v.instrs {
		for p, ph := range in.Phases {
			for _, a := range ph.Accesses {
				for _, c := range a.Cells {
					v.cellAt[c] = append(v.cellAt[c], len(v.steps))
				}
			}
			v.steps = append(v.steps, [2]int{i, p})
		}
	}
	v.step = clamp(v.step, 0, max(len(v.steps)-1, 0))
	v.base = v.baseGrid(pg)
	v.stepTo(v.step)
}

// baseGrid builds the drawn tile: owners from the fragment (or, for the
// core-matrix and TMA patterns, the phase that touches each cell, so the
// cursor highlights a whole core matrix), offsets and banks from the
// shared-memory layout.
func (v *swizzleView) baseGrid(pg patternGrid) *render.Grid {
	var g *render.Grid
	var err error
	switch v.pattern {
	case patLdShared:
		g, err = render.FromAtom(v.frag)
	case patLdmatrix:
		g, err = render.FromAtom(v.ldm)
	default:
		g, err = render.NewGrid(pg.Rows, pg.Cols)
		if err == nil {
			_, err = g.AddPanel(render.Panel{Title: v.smem.Name, Kind: render.Owners, Rows: pg.Rows, Cols: pg.Cols, RowName: "row", ColName: "col", ElemBits: v.smem.Bits})
		}
		if err == nil {
			for c, steps := range v.cellAt {
				for _, s := range steps {
					g.Cells[c].Owners = append(g.Cells[c].Owners, layouts.Owner{Thread: s, Value: 0})
				}
			}
		}
	}
	if err != nil {
		v.err = err
		return nil
	}
	g.Title, g.Notes = "", nil
	g.Corner = "r/c"
	for r := 0; r < pg.Rows; r++ {
		for c := 0; c < pg.Cols; c++ {
			cell := &g.Cells[r*g.Cols+c]
			cell.Offset = pg.offsetAt(v.smem, r, c)
			cell.Bank = render.Bank(cell.Offset, v.smem.Bits)
		}
	}
	return g
}

// decorate labels and colours the cells for the selected phase.
func (v *swizzleView) decorate() {
	if v.base == nil {
		v.pane.setGrid(nil)
		return
	}
	g := *v.base
	g.Cells = append([]render.Cell(nil), v.base.Cells...)
	inPhase := map[int]bool{}
	conflict := map[int]bool{}
	if len(v.steps) > 0 {
		s := v.steps[v.step]
		ph := v.instrs[s[0]].Phases[s[1]]
		for _, b := range ph.Conflicts {
			conflict[b] = true
		}
		for _, a := range ph.Accesses {
			for _, c := range a.Cells {
				inPhase[c] = true
			}
		}
	}
	for i := range g.Cells {
		c := &g.Cells[i]
		var lab string
		switch v.labels {
		case 0:
			lab = strconv.Itoa(c.Bank)
		case 1:
			lab = strconv.Itoa(c.Offset)
		default:
			lab = strconv.Itoa(v.smem.byteAddr(c.Offset))
		}
		c.Tag = -1
		if inPhase[i] {
			c.Tag = c.Bank
			if conflict[c.Bank] {
				lab += "!"
			}
		}
		c.Label = lab
	}
	v.pane.setGrid(&g)
}

func (v *swizzleView) update(msg tea.Msg) tea.Cmd {
	if v.pick.active {
		res, cmd := v.pick.update(msg)
		if res != nil {
			v.choose(res)
		}
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		v.msg = ""
		if v.pane.handleKey(msg) {
			return nil
		}
		k := v.keys
		switch {
		case key.Matches(msg, k.Pattern):
			v.pattern = (v.pattern + 1) % numPatterns
			v.step = 0
			v.rebuild(true)
		case key.Matches(msg, k.Next):
			v.stepTo(v.step + 1)
		case key.Matches(msg, k.Prev):
			v.stepTo(v.step - 1)
		case key.Matches(msg, k.Width):
			if v.pattern != patLdShared || len(v.widths) < 2 {
				v.msg = styleDim.Render("w: only ld.shared has a choice of widths here")
				break
			}
			v.width = (v.width + 1) % len(v.widths)
			v.step = 0
			v.rebuild(false)
		case key.Matches(msg, k.Warp):
			if v.pattern == patLdShared && v.frag.Threads() > 32 {
				v.warp = (v.warp + 1) % (v.frag.Threads() / 32)
				v.rebuild(false)
			}
		case key.Matches(msg, k.SMEM):
			var smem []catalog.Atom
			for _, a := range catalog.All() {
				if a.Kind == catalog.KindSMEM {
					smem = append(smem, a)
				}
			}
			v.picking = "smem"
			return v.pick.open("Shared-memory layout: an smem atom, or a layout in element units with its width", "e.g. sw64 b16, or Sw<3,3,3> o 0 o (8,64):(64,1) b16, or (32,64):(64,1) b16", smem, true)
		case key.Matches(msg, k.Frag):
			var frags []catalog.Atom
			for _, a := range catalog.All() {
				ok := a.Kind == catalog.KindTV && a.Broadcast <= 1 && a.TV.Threads() >= 32
				if v.pattern == patLdmatrix {
					ok = ok && len(a.AddrRows) > 0
				}
				if ok {
					frags = append(frags, a)
				}
			}
			v.picking = "frag"
			title := "Fragment whose registers move to or from shared memory"
			if v.pattern == patLdmatrix {
				title = "ldmatrix/stmatrix atom"
			}
			return v.pick.open(title, "e.g. wgmma m64n128 d, mma.sync m16n8 d", frags, false)
		case key.Matches(msg, k.Transpose):
			v.transpose = !v.transpose
			v.rebuild(true)
		case key.Matches(msg, k.Label):
			v.labels = (v.labels + 1) % 3
			v.decorate()
		}
	case tea.MouseMsg:
		m := msg.Mouse()
		v.pane.handleMouse(msg, m.X, m.Y-2)
	}
	return nil
}

func (v *swizzleView) stepTo(s int) {
	if len(v.steps) == 0 {
		v.decorate()
		return
	}
	v.step = (s + len(v.steps)) % len(v.steps)
	v.decorate()
	// Show the phase: put the cursor on its first cell.
	st := v.steps[v.step]
	ph := v.instrs[st[0]].Phases[st[1]]
	if len(ph.Accesses) > 0 && len(ph.Accesses[0].Cells) > 0 && v.pane.g != nil {
		c := ph.Accesses[0].Cells[0]
		v.pane.moveTo(c/v.pane.g.Cols, c%v.pane.g.Cols)
	}
}

func (v *swizzleView) choose(res *pickResult) {
	switch v.picking {
	case "smem":
		var sm smemLayout
		var err error
		if res.atom != nil {
			sm, err = newSmemAtom(*res.atom)
		} else {
			sm, err = newSmemTyped(res.typed)
		}
		if err != nil {
			v.msg = styleErr.Render(err.Error())
			return
		}
		v.smem = sm
	case "frag":
		if res.atom == nil {
			return
		}
		if v.pattern == patLdmatrix {
			v.ldm = *res.atom
		} else {
			v.frag = *res.atom
		}
	}
	v.step = 0
	v.rebuild(true)
}

func (v *swizzleView) render() string {
	if v.pick.active {
		return v.pick.view(v.w, v.h)
	}
	head := section("Swizzle & banks: "+v.smem.Name) + styleDim.Render(fmt.Sprintf("  %d-bit, %s", v.smem.Bits, v.smem.Swizzle))
	what := "pattern: " + patternNames[v.pattern]
	switch v.pattern {
	case patLdShared:
		what = "pattern: ld/st.shared of " + v.frag.Name
		if len(v.widths) > 0 {
			what += fmt.Sprintf(" · %d B/thread · warp %d", v.widths[v.width], v.warp)
		}
	case patLdmatrix:
		what += " · " + v.ldm.Name
	}
	if v.transpose {
		what += " (transposed)"
	}
	lines := []string{fitLine(head, v.w), fitLine(what, v.w)}
	var grid string
	if v.err != nil {
		grid = strings.Join(wrap("cannot model this pattern: "+v.err.Error(), v.pane.w, 2), "\n")
	} else {
		grid = v.pane.render()
	}
	sw := v.sideWidth()
	if sw > 0 {
		return strings.Join(lines, "\n") + "\n" + sideBySide(grid, v.sideText(sw), v.pane.w, sw, v.h-2)
	}
	return strings.Join(lines, "\n") + "\n" + fitBlock(grid, v.w, v.h-2)
}

// sideText lists the phases and describes the cursor cell.
func (v *swizzleView) sideText(w int) string {
	var out []string
	add := func(s string, indent int) { out = append(out, wrap(s, w, indent)...) }
	if v.err == nil && len(v.instrs) > 0 {
		add(costLine(v.instrs), 2)
		st := v.steps[v.step]
		in := v.instrs[st[0]]
		out = append(out, section(fmt.Sprintf("step %d of %d: %s", v.step+1, len(v.steps), in.Label)))
		// The phases around the selected one.
		n := len(in.Phases)
		lo := clamp(st[1]-3, 0, max(n-8, 0))
		for p := lo; p < min(n, lo+8); p++ {
			ph := in.Phases[p]
			mark := "  "
			if p == st[1] {
				mark = "▶ "
			}
			line := fmt.Sprintf("%s%s: %d wavefront", mark, ph.Label, ph.Wavefronts)
			if ph.Wavefronts != 1 {
				line += "s"
			}
			if len(ph.Conflicts) > 0 {
				line = styleWarn.Render(line + " (banks " + runs(ph.Conflicts) + ")")
			}
			out = append(out, fitLine(line, w))
		}
		if n > lo+8 {
			out = append(out, styleDim.Render(fmt.Sprintf("  … %d more phases", n-lo-8)))
		}
	}
	c := v.pane.cell()
	if c == nil {
		return strings.Join(out, "\n")
	}
	out = append(out, "", section(fmt.Sprintf("cell row %d, col %d", v.pane.cur.Row, v.pane.cur.Col)))
	byteAddr := v.smem.byteAddr(c.Offset)
	add(fmt.Sprintf("offset %d, byte %d: bank %d (word %d, 16-byte chunk %d of its 128-byte line)", c.Offset, byteAddr, c.Bank, byteAddr/4, byteAddr/16%8), 2)
	if v.transpose {
		add(fmt.Sprintf("= SMEM cell (%d, %d) of %s", v.pane.cur.Col, v.pane.cur.Row, v.smem.Name), 2)
	}
	gi := v.pane.cur.Row*v.pane.g.Cols + v.pane.cur.Col
	switch v.pattern {
	case patLdShared, patLdmatrix:
		if len(c.Owners) > 0 {
			o := c.Owners[0]
			add(fmt.Sprintf("register owner T%d V%d (warp %d, lane %d); underlined: every cell of T%d", o.Thread, o.Value, o.Thread/32, o.Thread%32, o.Thread), 2)
		}
	}
	var where []string
	for _, s := range v.cellAt[gi] {
		st := v.steps[s]
		where = append(where, fmt.Sprintf("step %d (%s, %s)", s+1, v.instrs[st[0]].Label, v.instrs[st[0]].Phases[st[1]].Label))
	}
	if len(where) == 0 {
		add("no phase of this pattern touches it (another warp's, or outside the access)", 2)
	} else {
		add("touched in "+strings.Join(where, "; "), 2)
	}
	out = append(out, "")
	add("model: 32 banks x 4 bytes; a phase costs the most distinct words one bank delivers. ldmatrix, core-matrix and TMA phases are a model, not hardware-verified.", 0)
	return strings.Join(out, "\n")
}
