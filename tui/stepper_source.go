package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
)

// The source pane: the PTX with breakpoints, hazards and warp positions.

// renderSource draws the PTX with a gutter: a breakpoint (•), a hazard
// (!), the line number and the warps whose next instruction is on the
// line (the selected warp reversed). It shows the lines rows() lists (by
// default not the .loc and inline-asm lines), and when the PTX has .loc
// information its last line is the source behind the cursor's line.
func (v *stepperView) renderSource(w, h int) []string {
	lines := v.be.lines()
	rows := v.rows()
	rh := h
	mapped := v.be.sourceMapped() && h > 2
	if mapped {
		rh--
	}
	cur := listState{cur: v.rowOf(v.src.cur), top: v.src.top}
	cur.see(rh, len(rows))
	v.src.top = cur.top
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
	for r := v.src.top; r < len(rows) && len(out) < rh; r++ {
		i := rows[r]
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
			b.WriteString(styleTitle.Render(v.highlight(text)))
		default:
			b.WriteString(v.highlight(text))
		}
		out = append(out, b.String())
	}
	if mapped {
		for len(out) < rh {
			out = append(out, "")
		}
		out = append(out, v.sourceLine(w))
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
