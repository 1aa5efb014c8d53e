package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The source pane's view of the PTX: which lines it shows (by default
// not the .loc directives and the inline-asm comments nvcc writes around
// every asm statement, ~40% of a kernel built with -lineinfo; L shows
// them), moving over the shown lines, the search (/, n, N) and "run until
// the cursor's line" (u).
//
// v.src.cur is always a PTX line index (0-based); v.src.top is a row of
// the shown lines.

// hiddenLine reports whether a PTX line is one L hides: a .loc directive
// or an inline-asm comment.
func hiddenLine(s string) bool {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, ".loc"); ok {
		return rest == "" || rest[0] == ' ' || rest[0] == '\t'
	}
	switch t {
	case "// begin inline asm", "// end inline asm", "// inline asm":
		return true
	}
	return false
}

// rows lists the indices of the lines the pane shows.
func (v *stepperView) rows() []int {
	lines := v.be.lines()
	key := [2]int{len(lines), 0}
	if v.showAll {
		key[1] = 1
	}
	if v.rowsOf != nil && v.rowsKey == key {
		return v.rowsOf
	}
	out := make([]int, 0, len(lines))
	for i, l := range lines {
		if v.showAll || !hiddenLine(l) {
			out = append(out, i)
		}
	}
	if len(out) == 0 && len(lines) > 0 {
		out = append(out, 0)
	}
	v.rowsOf, v.rowsKey = out, key
	return out
}

// hiddenCount is the number of lines the pane does not show.
func (v *stepperView) hiddenCount() int { return len(v.be.lines()) - len(v.rows()) }

// rowOf is the row that shows line index i, or (for a hidden line) the
// first shown line after it.
func (v *stepperView) rowOf(i int) int {
	rows := v.rows()
	lo, hi := 0, len(rows)
	for lo < hi {
		m := (lo + hi) / 2
		if rows[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, max(len(rows)-1, 0))
}

// srcRowsHeight is the number of PTX lines the source pane shows: its
// content less the source-mapping line.
func (v *stepperView) srcRowsHeight() int {
	h := v.srcHeight()
	if v.be.sourceMapped() && h > 2 {
		h--
	}
	return max(h, 1)
}

// goLine puts the cursor on PTX line n (1-based), or on the first shown
// line after it when it is hidden, in the middle third of the pane.
func (v *stepperView) goLine(n int) {
	rows := v.rows()
	if len(rows) == 0 {
		return
	}
	r := v.rowOf(n - 1)
	v.src.cur = rows[r]
	l := listState{cur: r, top: v.src.top}
	l.center(v.srcRowsHeight(), len(rows))
	v.src.top = l.top
}

// moveRows moves the cursor by d shown lines.
func (v *stepperView) moveRows(d int) {
	rows := v.rows()
	if len(rows) == 0 {
		return
	}
	r := clamp(v.rowOf(v.src.cur)+d, 0, len(rows)-1)
	v.src.cur = rows[r]
	l := listState{cur: r, top: v.src.top}
	l.see(v.srcRowsHeight(), len(rows))
	v.src.top = l.top
}

// toggleHidden shows or hides the .loc and inline-asm lines, keeping the
// cursor's line.
func (v *stepperView) toggleHidden() {
	v.showAll = !v.showAll
	cur := v.src.cur
	v.goLine(cur + 1)
	if v.showAll {
		v.msg = styleDim.Render("showing every line (L hides the .loc and inline-asm comment lines)")
	} else {
		v.msg = styleDim.Render(fmt.Sprintf("%d .loc and inline-asm comment lines hidden (L shows them)", v.hiddenCount()))
	}
}

// search moves the cursor to the next (dir 1) or previous (dir -1) shown
// line holding query (case-insensitive), wrapping around; fresh says the
// query was just typed (the cursor's own line may match).
func (v *stepperView) search(query string, dir int, fresh bool) {
	if query == "" {
		v.msg = styleDim.Render("/ searches the source; n and N go to the next and previous match")
		return
	}
	v.query = query
	q := strings.ToLower(query)
	lines, rows := v.be.lines(), v.rows()
	var matches []int // rows that match
	for r, i := range rows {
		if strings.Contains(strings.ToLower(expandTabs(lines[i])), q) {
			matches = append(matches, r)
		}
	}
	if len(matches) == 0 {
		for _, l := range lines {
			if strings.Contains(strings.ToLower(expandTabs(l)), q) {
				v.msg = styleWarn.Render(fmt.Sprintf("%q is only on hidden lines: L shows them", query))
				return
			}
		}
		v.msg = styleErr.Render(fmt.Sprintf("%q is not in the source", query))
		return
	}
	cur := v.rowOf(v.src.cur)
	pick := -1
	for k, r := range matches {
		if dir > 0 && (r > cur || fresh && r == cur) {
			pick = k
			break
		}
		if dir < 0 && r < cur {
			pick = k
		}
	}
	wrapped := pick < 0
	if wrapped {
		pick = 0
		if dir < 0 {
			pick = len(matches) - 1
		}
	}
	line := rows[matches[pick]] + 1
	v.goLine(line)
	v.focus = paneSource
	note := ""
	if wrapped {
		note = " (wrapped around)"
	}
	v.msg = styleDim.Render(fmt.Sprintf("/%s: line %d, match %d of %d%s · n/N next/previous", query, line, pick+1, len(matches), note))
}

// styleMatch marks the search's matches in the source pane.
var styleMatch = lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("220"))

// highlight marks the occurrences of the query in plain text.
func (v *stepperView) highlight(text string) string {
	if v.query == "" {
		return text
	}
	lower, q := strings.ToLower(text), strings.ToLower(v.query)
	var b strings.Builder
	for {
		i := strings.Index(lower, q)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		b.WriteString(styleMatch.Render(text[i : i+len(q)]))
		text, lower = text[i+len(q):], lower[i+len(q):]
	}
}

// runToCursor runs until a warp of the selected CTA is about to execute
// the cursor's line (a breakpoint there for this run only), a breakpoint
// or the end.
func (v *stepperView) runToCursor() tea.Cmd {
	line := v.src.cur + 1
	if !v.be.hasInst(line) {
		v.msg = styleErr.Render(fmt.Sprintf("line %d holds no instruction: put the cursor on an instruction to run until it", line))
		return nil
	}
	be := v.be
	breaks := append(v.breakLines(), line)
	return v.start(fmt.Sprintf("until line %d", line), func() error { return be.run(breaks, false, runLimit) }, func() {
		switch s := be.last(); {
		case s.reason == "breakpoint" && s.line == line:
			v.msg = styleDim.Render(fmt.Sprintf("step %d · at the cursor: warp %d is at line %d", be.steps(), s.warp, line))
		case s.reason == "done":
			v.msg = styleDim.Render(fmt.Sprintf("step %d · finished: no warp reached line %d", be.steps(), line))
		}
	})
}
