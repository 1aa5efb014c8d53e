package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// The stepper's layout: where each pane goes for the terminal's size, the
// header, pane frames and titles, and the tab bar of the side panes.

// ---------------------------------------------------------------- layout

// narrow screens show one pane at a time.
func (v *stepperView) narrow() bool { return v.w < 40 || v.h < 10 }

// stacked screens (under 100 columns) put the panes one above the other,
// each the full width: the source lines, the registers and the hazards
// stay whole and reachable at 80×24.
func (v *stepperView) stacked() bool { return v.w < 100 }

func (v *stepperView) srcWidth() int {
	switch {
	case v.w >= 200:
		return clamp(v.w*38/100, 60, 100)
	case v.w >= 120:
		return v.w * 42 / 100
	}
	return clamp(v.w*45/100, 28, 60)
}

// second is the pane shown below the tabbed one: the hazards, or the
// operations in flight while the hazards are the tab.
func (v *stepperView) second() paneKind {
	if v.tab == paneHazards {
		return paneAsync
	}
	return paneHazards
}

// layout places the panes below the header line.
func (v *stepperView) layout() []paneRect {
	bh := max(v.h-1, 1)
	if v.zoom || v.narrow() {
		f := v.focus
		return []paneRect{{kind: f, x: 0, y: 1, w: v.w, h: bh, tabbed: f == v.tab}}
	}
	if v.stacked() {
		if bh < 16 {
			sh := bh / 2
			return []paneRect{{kind: paneSource, x: 0, y: 1, w: v.w, h: sh},
				{kind: v.tab, x: 0, y: 1 + sh, w: v.w, h: bh - sh, tabbed: true}}
		}
		sh := bh * 2 / 5
		th := (bh - sh) * 3 / 5
		return []paneRect{{kind: paneSource, x: 0, y: 1, w: v.w, h: sh},
			{kind: v.tab, x: 0, y: 1 + sh, w: v.w, h: th, tabbed: true},
			{kind: v.second(), x: 0, y: 1 + sh + th, w: v.w, h: bh - sh - th}}
	}
	sw := v.srcWidth()
	rx := sw + 1
	rw := v.w - rx
	rs := []paneRect{{kind: paneSource, x: 0, y: 1, w: sw, h: bh}}
	if bh >= 26 {
		th := bh * 3 / 5
		rs = append(rs, paneRect{kind: v.tab, x: rx, y: 1, w: rw, h: th, tabbed: true},
			paneRect{kind: v.second(), x: rx, y: 1 + th, w: rw, h: bh - th})
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
	if v.open != nil {
		return v.openView()
	}
	if v.be == nil {
		return fitBlock(strings.Join(v.intro(), "\n"), v.w, v.h)
	}
	if v.running != nil {
		return v.runFrame()
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
	switch {
	case len(rs) == 1:
		body = blocks[0]
	case rs[1].x == 0: // stacked
		body = strings.Join(blocks, "\n")
	case len(rs) == 2:
		body = sideBySide(blocks[0], blocks[1], rs[0].w, rs[1].w, max(v.h-1, 1))
	default:
		body = sideBySide(blocks[0], blocks[1]+"\n"+blocks[2], rs[0].w, rs[1].w, max(v.h-1, 1))
	}
	return fitLine(head, v.w) + "\n" + body
}

func (v *stepperView) intro() []string {
	out := []string{section("Kernel stepper"), ""}
	for _, p := range []string{
		"No kernel is open. The stepper simulates a PTX kernel instruction by instruction (tcsim's simulator, one CTA at a time), or replays a trace file. O opens a kernel (.ptx), a launch file (.json), a trace (.jsonl) or a case directory here; or start tcsim with:",
		"",
		"  tcsim tui --run KERNEL.ptx --launch LAUNCH.json",
		"  tcsim tui --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1",
		"  tcsim tui --trace RUN.jsonl",
		"  tcsim tui --case DIR",
		"",
		"(a trace comes from tcsim run KERNEL.ptx --launch LAUNCH.json --trace RUN.jsonl --trace-values).",
		"",
		"Keys: s step, w step the selected warp, r run to a breakpoint (b sets one), u run until the cursor's line, H run to the next hazard, p step back, / search, t/T thread, ]/[ pane, z zoom, ? every key.",
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
	forms := [][]string{
		{mode, cta, thread, step, bps, fin},
		{modeShort, ctaShort, threadShort, step, bpsShort, fin},
		{ctaShort, threadShort, step},
	}
	var line string
	for i, form := range forms {
		var parts []string
		for _, p := range form {
			if p != "" {
				parts = append(parts, p)
			}
		}
		info := " " + styleDim.Render(strings.Join(parts, " · "))
		name := v.kernelTitle()
		if room := v.w - cellWidth(info); i == len(forms)-1 && len([]rune(name)) > room && room > 12 {
			// Only the shortest form cuts the kernel's name.
			name = string([]rune(name)[:room-1]) + "…"
		}
		line = section(name) + info
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
			if n := v.hiddenCount(); n > 0 && cellWidth(name)+30 <= r.w {
				name += fmt.Sprintf(" · %d .loc/asm lines hidden (L)", n)
			} else if n > 0 {
				name += fmt.Sprintf(" (-%d: L)", n)
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
