package tui

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

// The fragment pane: the register fragments of the matrix instruction on
// the current line, drawn as the atom's tile with each lane's values.

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
		a, err := catalog.Find(fr.key)
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
	a, _ := catalog.Find(fr.key)
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
	a, _ := catalog.Find(v.frag.cur.key)
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
		a, _ := catalog.Find(f.cur.key)
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
