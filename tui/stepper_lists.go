package tui

import (
	"fmt"
	"strings"
)

// The list panes: operations in flight and mbarriers (async), the warps,
// and the hazards found so far.

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
		return []string{styleOK.Render("no hazards so far"), styleDim.Render("H runs to the next one")}
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
			for _, l := range v.hazardSource(hz.line) {
				more = append(more, styleOK.Render(fitLine(l, w-2)))
			}
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
