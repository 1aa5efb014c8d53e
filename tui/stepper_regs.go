package tui

import (
	"fmt"
	"strings"
)

// The registers pane: the operands of the next instruction and every
// register of the selected warp, one value per lane.

// regList is the registers pane's list: the operands of the selected
// warp's next instruction, then every register of the warp.
func (v *stepperView) regList() []regInfo {
	var out []regInfo
	seen := map[string]bool{}
	types := map[string]string{}
	for _, r := range v.regRows {
		types[r.name] = r.typ
	}
	if w := v.selWarp(); w != nil {
		for _, n := range w.regs {
			if t, ok := types[n]; ok && !seen[n] {
				seen[n] = true
				out = append(out, regInfo{name: n, typ: t})
			}
		}
	}
	return append(out, v.regRows...)
}

func (v *stepperView) nOperands() int {
	w := v.selWarp()
	if w == nil {
		return 0
	}
	types := map[string]bool{}
	for _, r := range v.regRows {
		types[r.name] = true
	}
	seen := map[string]bool{}
	n := 0
	for _, r := range w.regs {
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
