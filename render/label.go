package render

import (
	"strconv"
	"unicode/utf8"

	"github.com/tcsim/tcsim/layouts"
)

// form says how a cell's label was shortened to fit its width.
type form uint8

const (
	formFull    form = iota // every owner as T#V#, joined by '|'
	formCompact             // owners grouped, e.g. T0-3V0 or T0,8V1|T4V2
	formRef                 // a legend reference "*N"; the legend lists the owners
	formCut                 // text cut short, ending in "…"
	formVoid                // no tile here
	formEmpty               // a tile cell no thread holds
)

// AppendOwners appends the full owner list "T0V0|T4V0" to dst.
func AppendOwners(dst []byte, os []layouts.Owner) []byte {
	for i, o := range os {
		if i > 0 {
			dst = append(dst, '|')
		}
		dst = append(dst, 'T')
		dst = strconv.AppendInt(dst, int64(o.Thread), 10)
		dst = append(dst, 'V')
		dst = strconv.AppendInt(dst, int64(o.Value), 10)
	}
	return dst
}

// AppendCompact appends a lossless short form of os: owners grouped by
// value ("T0-3,8V0|T4V1": threads 0 to 3 and 8 hold value 0, thread 4
// holds value 1) or by thread ("T5V0-3"), whichever is shorter.
func AppendCompact(dst []byte, os []layouts.Owner) []byte {
	start := len(dst)
	dst = appendGrouped(dst, os, true)
	byValue := len(dst) - start
	alt := appendGrouped(nil, os, false)
	if len(alt) < byValue {
		dst = append(dst[:start], alt...)
	}
	return dst
}

// appendGrouped writes groups sharing a value (byValue) or a thread.
func appendGrouped(dst []byte, os []layouts.Owner, byValue bool) []byte {
	key := func(o layouts.Owner) (int, int) {
		if byValue {
			return o.Value, o.Thread
		}
		return o.Thread, o.Value
	}
	done := make([]bool, len(os))
	members := make([]int, 0, len(os))
	first := true
	for i := range os {
		if done[i] {
			continue
		}
		k, _ := key(os[i])
		members = members[:0]
		for j := i; j < len(os); j++ {
			if kj, m := key(os[j]); !done[j] && kj == k {
				done[j] = true
				members = append(members, m)
			}
		}
		sortInts(members)
		if !first {
			dst = append(dst, '|')
		}
		first = false
		if byValue {
			dst = append(dst, 'T')
			dst = appendRuns(dst, members)
			dst = append(dst, 'V')
			dst = strconv.AppendInt(dst, int64(k), 10)
		} else {
			dst = append(dst, 'T')
			dst = strconv.AppendInt(dst, int64(k), 10)
			dst = append(dst, 'V')
			dst = appendRuns(dst, members)
		}
	}
	return dst
}

// appendRuns writes sorted xs as runs: "0-3,8,10-11".
func appendRuns(dst []byte, xs []int) []byte {
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(xs[i]), 10)
		if j > i {
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(xs[j]), 10)
		}
		i = j + 1
	}
	return dst
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// appendBase appends the unshortened label of cell c of panel p.
func appendBase(dst []byte, c *Cell, p *Panel, mode LabelMode) []byte {
	if c.Label != "" {
		return append(dst, c.Label...)
	}
	if p.Kind == Owners {
		if len(c.Owners) == 0 {
			return append(dst, '.')
		}
		return AppendOwners(dst, c.Owners)
	}
	if p.TMEM && (mode == LabelAuto || mode == LabelBank || mode == LabelByte) {
		return AppendTMEM(dst, c, p)
	}
	switch mode {
	case LabelBank:
		if c.Bank < 0 {
			return append(dst, '?')
		}
		return strconv.AppendInt(dst, int64(c.Bank), 10)
	case LabelByte:
		if p.ElemBits <= 0 {
			return append(dst, '?')
		}
		return strconv.AppendInt(dst, int64(c.Offset*p.ElemBits/8), 10)
	}
	return strconv.AppendInt(dst, int64(c.Offset), 10)
}

// AppendTMEM appends the label of a TMEM cell: LlCc for lane l, column
// c, with the CTA of a pair first (c1:L0C0) and the byte of a sub-word
// element last (L0C0b2).
func AppendTMEM(dst []byte, c *Cell, p *Panel) []byte {
	if p.CTAs > 1 {
		dst = append(dst, 'c')
		dst = strconv.AppendInt(dst, int64(p.CTA(c.Row)), 10)
		dst = append(dst, ':')
	}
	dst = append(dst, 'L')
	dst = strconv.AppendInt(dst, int64(TMEMLane(c.Offset)), 10)
	dst = append(dst, 'C')
	dst = strconv.AppendInt(dst, int64(TMEMColumn(c.Offset)), 10)
	if p.SubBits > 0 {
		dst = append(dst, 'b')
		dst = strconv.AppendInt(dst, int64(c.Byte), 10)
	}
	return dst
}

// legendEntry lists, for a cell whose owners did not fit, every owner.
type legendEntry struct {
	Ref  int
	Pos  Pos
	Cell *Cell
}

// labels holds the label of every cell of a window, in one buffer.
type labels struct {
	buf   []byte
	end   []int32 // end of label i in buf; label i starts at end[i-1]
	forms []form
	width int // characters per cell
	refs  []legendEntry
}

func (l *labels) text(i int) []byte {
	lo := int32(0)
	if i > 0 {
		lo = l.end[i-1]
	}
	return l.buf[lo:l.end[i]]
}

// plan is what every renderer needs: the window and the labels fitted to
// the cell width.
type plan struct {
	g      *Grid
	o      Options
	win    Region
	scheme []ColorBy // per panel
	lab    labels
}

// makePlan resolves the region and fits every label of the window into
// the cell width (chars; 0 chooses).
func makePlan(g *Grid, o Options, width int) (*plan, error) {
	win, err := o.Region.Resolve(g)
	if err != nil {
		return nil, err
	}
	pl := &plan{g: g, o: o, win: win}
	pl.scheme = make([]ColorBy, len(g.Panels))
	for i := range g.Panels {
		pl.scheme[i] = schemeFor(o.Color, &g.Panels[i])
	}
	n := (win.Row1 - win.Row0) * (win.Col1 - win.Col0)
	lab := &pl.lab
	lab.end = make([]int32, 0, n)
	lab.forms = make([]form, 0, n)
	lab.buf = make([]byte, 0, n*8)
	// First pass: the base labels, and the width they would need.
	auto := width <= 0
	if auto {
		width = 1
	}
	var scratch []byte
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			cell := &g.Cells[r*g.Cols+c]
			p := g.PanelOf(cell)
			f := formFull
			switch {
			case p == nil:
				f = formVoid
			case p.Kind == Owners && len(cell.Owners) == 0 && cell.Label == "":
				f = formEmpty
				lab.buf = append(lab.buf, '.')
			default:
				lab.buf = appendBase(lab.buf, cell, p, o.Label)
			}
			lab.end = append(lab.end, int32(len(lab.buf)))
			lab.forms = append(lab.forms, f)
			if auto {
				w := runeLen(lab.text(len(lab.end) - 1))
				if w > AutoWidthLimit && len(cell.Owners) > 1 && cell.Label == "" {
					scratch = AppendCompact(scratch[:0], cell.Owners)
					w = min(len(scratch), AutoWidthLimit)
				}
				width = max(width, min(w, AutoWidthLimit))
			}
		}
	}
	lab.width = width
	// Second pass: shorten what does not fit. Most windows need nothing.
	fits := true
	for i := range lab.end {
		if runeLen(lab.text(i)) > width {
			fits = false
			break
		}
	}
	if fits {
		return pl, nil
	}
	old := *lab
	lab.buf = make([]byte, 0, len(old.buf))
	lab.end = lab.end[:0:0]
	lab.forms = lab.forms[:0:0]
	i := 0
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			t, f := old.text(i), old.forms[i]
			i++
			cell := &g.Cells[r*g.Cols+c]
			if runeLen(t) <= width {
				lab.buf = append(lab.buf, t...)
			} else if len(cell.Owners) > 1 && cell.Label == "" {
				scratch = AppendCompact(scratch[:0], cell.Owners)
				if len(scratch) <= width {
					lab.buf = append(lab.buf, scratch...)
					f = formCompact
				} else {
					ref := len(lab.refs) + 1
					lab.refs = append(lab.refs, legendEntry{Ref: ref, Pos: Pos{r, c}, Cell: cell})
					scratch = strconv.AppendInt(append(scratch[:0], '*'), int64(ref), 10)
					lab.buf = appendCut(lab.buf, scratch, width)
					f = formRef
				}
			} else {
				lab.buf = appendCut(lab.buf, t, width)
				f = formCut
			}
			lab.end = append(lab.end, int32(len(lab.buf)))
			lab.forms = append(lab.forms, f)
		}
	}
	return pl, nil
}

// appendCut appends t cut to width runes, the last one replaced by "…".
func appendCut(dst, t []byte, width int) []byte {
	if runeLen(t) <= width {
		return append(dst, t...)
	}
	if width <= 1 {
		return append(dst, "…"...)
	}
	n := 0
	for i := range string(t) {
		if n == width-1 {
			return append(append(dst, t[:i]...), "…"...)
		}
		n++
	}
	return append(dst, t...)
}

func runeLen(b []byte) int {
	n := len(b)
	for _, c := range b {
		if c >= 0x80 {
			return utf8.RuneCount(b)
		}
	}
	return n
}
