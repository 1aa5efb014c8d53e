package tui

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/sim"
)

// Source mapping: compilers annotate PTX with .file and .loc (nvcc
// -lineinfo, Triton always). The stepper shows the .cu or .py line behind
// the PTX line under the cursor (the last line of the source pane) and
// behind each hazard, with the line's text when the file can be read:
// the simulator's own map (sim.Program.SourceOf) and reader
// (sim.SourceReader), which tcsim run's hazard report uses too.

// srcRef is the source position behind a PTX line.
type srcRef struct {
	loc     sim.SourceLoc
	text    string // the source line's text; "" when the file cannot be read
	inlined string // the text of the call site's line, for inlined code
}

// String is "file.cu:43:5 (inlined at k.cu:80)", with base names.
func (r srcRef) String() string {
	s := fmt.Sprintf("%s:%d", baseName(r.loc.File), r.loc.Line)
	if r.loc.Col > 0 {
		s += fmt.Sprintf(":%d", r.loc.Col)
	}
	if in := r.loc.InlinedAt; in != nil {
		s += fmt.Sprintf(" (inlined at %s:%d)", baseName(in.File), in.Line)
	}
	return s
}

// srcMap answers "which source line is behind PTX line n" for a compiled
// program.
type srcMap struct {
	prog   *sim.Program
	rd     *sim.SourceReader
	mapped bool // some instruction has a .loc
}

// newSrcMap maps prog, whose PTX file is at ptxPath (the reader looks for
// the source files from there); nil prog gives an empty map.
func newSrcMap(prog *sim.Program, ptxPath string) *srcMap {
	m := &srcMap{prog: prog, rd: &sim.SourceReader{PTX: ptxPath}}
	if prog == nil {
		return m
	}
	for pc := range prog.Insts {
		if _, ok := prog.SourceOf(prog.Insts[pc].Line); ok {
			m.mapped = true
			break
		}
	}
	return m
}

// at returns the source position behind PTX line n: the instruction's
// own, or for a line without one (a .loc, a label, a comment) that of the
// next instruction within a few lines, which is the code the line
// annotates.
func (m *srcMap) at(n int, lines []string) (srcRef, bool) {
	if m == nil || !m.mapped {
		return srcRef{}, false
	}
	for l := n; l <= min(n+8, len(lines)); l++ {
		loc, ok := m.prog.SourceOf(l)
		if !ok {
			if l > n && strings.TrimSpace(lines[l-1]) == "}" {
				break
			}
			continue
		}
		r := srcRef{loc: loc, text: m.rd.Line(loc.File, loc.Line)}
		if in := loc.InlinedAt; in != nil {
			r.inlined = m.rd.Line(in.File, in.Line)
		}
		return r, true
	}
	return srcRef{}, false
}

// sourceLine is the source pane's last line: the source behind the
// cursor's PTX line.
func (v *stepperView) sourceLine(w int) string {
	r, ok := v.be.sourceAt(v.src.cur + 1)
	if !ok {
		return styleDim.Render(fitLine("↳ (no .loc for this line)", w))
	}
	s := "↳ " + r.String()
	if r.text != "" {
		s += "  " + r.text
	} else {
		s += "  (source file not found)"
	}
	return styleOK.Render(fitLine(s, w))
}

// hazardSource describes the source behind a hazard's line for the
// hazards pane ("" when unmapped).
func (v *stepperView) hazardSource(line int) []string {
	r, ok := v.be.sourceAt(line)
	if !ok {
		return nil
	}
	out := []string{"at " + r.String()}
	if r.text != "" {
		out = append(out, "   "+r.text)
	}
	if r.inlined != "" {
		out = append(out, "   called from: "+r.inlined)
	}
	return out
}
