package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteText writes g as plain text: a title, column headers, one line per
// grid row with the cell labels, and a legend for shortened cells. It
// writes no escape codes (use it for NO_COLOR and files).
func WriteText(w io.Writer, g *Grid, o Options) error {
	b, err := AppendGrid(nil, g, o, false)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteANSI is WriteText with xterm-256 colours: each cell's background is
// its colour key (Options.Color), and a cell with several owners colours
// each owner's part.
func WriteANSI(w io.Writer, g *Grid, o Options) error {
	b, err := AppendGrid(nil, g, o, true)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendGrid appends the text (ansi false) or ANSI picture of g to dst.
// It is the one code path behind `tcsim layout`, `tcsim render -o x.txt`
// and the terminal UI's grid view.
func AppendGrid(dst []byte, g *Grid, o Options, ansi bool) ([]byte, error) {
	pl, err := makePlan(g, o, o.CellWidth)
	if err != nil {
		return dst, err
	}
	t := textWriter{pl: pl, ansi: ansi, b: dst}
	t.write()
	return t.b, nil
}

const (
	escReset = "\x1b[0m"
	escDim   = "\x1b[38;5;245m"
	escRev   = "\x1b[7m"
	escMark  = "\x1b[1;4m"
)

// cellEsc sets black text on swatch s: as an xterm-256 index, or (true)
// as 24-bit RGB.
func cellEsc(s Swatch, true24 bool) string {
	if true24 {
		return "\x1b[38;5;16;48;2;" + strconv.Itoa(int(s.R)) + ";" + strconv.Itoa(int(s.G)) + ";" + strconv.Itoa(int(s.B)) + "m"
	}
	return "\x1b[38;5;16;48;5;" + strconv.Itoa(int(s.Xterm)) + "m"
}

// escTables[true24][scheme] holds the escape of every key of the schemes
// with their own colours (thread, warp) and of the palette (the rest).
var escTables = func() [2][3][]string {
	var t [2][3][]string
	for i, true24 := range []bool{false, true} {
		for _, s := range threadSwatches {
			t[i][0] = append(t[i][0], cellEsc(s, true24))
		}
		for _, s := range warpSwatches {
			t[i][1] = append(t[i][1], cellEsc(s, true24))
		}
		for _, s := range Palette {
			t[i][2] = append(t[i][2], cellEsc(s, true24))
		}
	}
	return t
}()

// escCell is the escape that colours key k of scheme by.
func escCell(by ColorBy, k int, true24 bool) string {
	i := 0
	if true24 {
		i = 1
	}
	var tab []string
	switch by {
	case ColorThread:
		tab = escTables[i][0]
	case ColorWarp:
		tab = escTables[i][1]
	default:
		tab = escTables[i][2]
	}
	return tab[mod(k, len(tab))]
}

type textWriter struct {
	pl   *plan
	ansi bool
	b    []byte
	// marked is the set of threads the cursor cell holds.
	marked map[int]bool
	cursor int // grid index of the cursor cell, or -1
}

func (t *textWriter) write() {
	pl, g := t.pl, t.pl.g
	win, width := pl.win, pl.lab.width
	t.cursor = -1
	if c := pl.o.Cursor; c != nil && g.At(c.Row, c.Col) != nil {
		t.cursor = c.Row*g.Cols + c.Col
		t.marked = map[int]bool{}
		for _, ow := range g.Cells[t.cursor].Owners {
			t.marked[ow.Thread] = true
		}
	}

	bare := pl.o.Bare
	if g.Title != "" && !bare {
		t.b = append(t.b, g.Title...)
		t.b = append(t.b, '\n')
	}
	noteWidth := NoteWidth
	if pl.o.Width > 0 {
		noteWidth = max(pl.o.Width-4, 20) // the indent of continuation lines
	}
	for _, n := range g.Notes {
		if bare || pl.o.Clean {
			break
		}
		for i, l := range wrapText(n, noteWidth) {
			t.b = append(t.b, "  "...)
			if i > 0 {
				t.b = append(t.b, "  "...)
			}
			t.b = append(t.b, l...)
			t.b = append(t.b, '\n')
		}
	}
	if !win.Whole(g) && !bare && !pl.o.Clean {
		t.b = fmt.Appendf(t.b, "  showing rows %d..%d of %d, cols %d..%d of %d\n",
			win.Row0, win.Row1-1, g.Rows, win.Col0, win.Col1-1, g.Cols)
	}

	rowW, hl := g.TextFrame(win, width)
	boxed := pl.o.Boxed
	for j := 0; j < hl; j++ {
		if j == hl-1 {
			t.pad(g.Corner, rowW, false)
		} else {
			t.spaces(rowW)
		}
		if boxed {
			t.b = append(t.b, "  "...)
		}
		for c := win.Col0; c < win.Col1; c++ {
			t.b = append(t.b, ' ')
			lab := g.ColLabel(c)
			if hl == 1 {
				t.pad(lab, width, true)
			} else {
				t.spaces(width - 1)
				if k := j - (hl - len(lab)); k >= 0 {
					t.b = append(t.b, lab[k])
				} else {
					t.b = append(t.b, ' ')
				}
			}
			if boxed {
				t.b = append(t.b, "  "...)
			}
		}
		t.trimLine()
	}
	rule := func() {
		t.spaces(rowW)
		t.b = append(t.b, " +"...)
		for c := win.Col0; c < win.Col1; c++ {
			for k := 0; k < width+2; k++ {
				t.b = append(t.b, '-')
			}
			t.b = append(t.b, '+')
		}
		t.b = append(t.b, '\n')
	}
	if boxed {
		rule()
	}
	i := 0
	for r := win.Row0; r < win.Row1; r++ {
		t.pad(g.RowLabel(r), rowW, true)
		if boxed {
			t.b = append(t.b, " |"...)
		}
		for c := win.Col0; c < win.Col1; c++ {
			t.b = append(t.b, ' ')
			t.cell(r*g.Cols+c, i)
			i++
			if boxed {
				t.b = append(t.b, " |"...)
			}
		}
		t.trimLine()
		if boxed {
			rule()
		}
	}
	if !bare {
		t.legend()
	}
}

// TextCellWidth is the number of characters per cell that text and ANSI
// output of g under o use: o.CellWidth, or the automatic width of the
// cells of o.Region. With TextFrame it tells how wide the picture is.
func TextCellWidth(g *Grid, o Options) (int, error) {
	pl, err := makePlan(g, o, o.CellWidth)
	if err != nil {
		return 0, err
	}
	return pl.lab.width, nil
}

// TextFrame returns the geometry of the text and ANSI picture of window
// win of g with cells width characters wide: the width of the row-label
// column and the number of column-header lines (labels wider than a cell
// are written vertically). Unboxed, grid row r of the window is drawn on
// line headerLines+r-win.Row0 after the title, notes and window line
// (none with Options.Bare), and column c starts at character
// labelWidth+1+(c-win.Col0)*(width+1). Viewers use it to map a mouse
// position to a cell.
func (g *Grid) TextFrame(win Region, width int) (labelWidth, headerLines int) {
	labelWidth = len(g.Corner)
	for r := win.Row0; r < win.Row1; r++ {
		labelWidth = max(labelWidth, len(g.RowLabel(r)))
	}
	headerLines = 1
	for c := win.Col0; c < win.Col1; c++ {
		if n := len(g.ColLabel(c)); n > width {
			headerLines = max(headerLines, n)
		}
	}
	return labelWidth, headerLines
}

// cell writes the label of grid cell gi (window cell i), padded to width.
func (t *textWriter) cell(gi, i int) {
	pl := t.pl
	width := pl.lab.width
	lab, f := pl.lab.text(i), pl.lab.forms[i]
	padn := width - runeLen(lab)
	if !t.ansi || f == formVoid {
		t.spaces(padn)
		t.b = append(t.b, lab...)
		return
	}
	c := &pl.g.Cells[gi]
	if f == formEmpty {
		t.spaces(padn)
		t.b = append(t.b, escDim...)
		t.b = append(t.b, lab...)
		t.b = append(t.b, escReset...)
		return
	}
	scheme, p := pl.scheme[c.Panel], &pl.g.Panels[c.Panel]
	key := func(k int) int {
		if k < len(c.Owners) {
			return ownerKey(scheme, c, p, c.Owners[k].Thread, c.Owners[k].Value)
		}
		return cellKey(scheme, c, p)
	}
	true24 := pl.o.TrueColor
	k0 := key(0)
	if k0 >= 0 {
		t.b = append(t.b, escCell(scheme, k0, true24)...)
	}
	if gi == t.cursor {
		t.b = append(t.b, escRev...)
	} else if t.marked != nil {
		for _, ow := range c.Owners {
			if t.marked[ow.Thread] {
				t.b = append(t.b, escMark...)
				break
			}
		}
	}
	t.spaces(padn)
	if f == formFull && len(c.Owners) > 1 {
		// Colour each owner's part with its own colour.
		k := 0
		for _, ch := range lab {
			t.b = append(t.b, ch)
			if ch == '|' {
				k++
				if kk := key(k); kk >= 0 {
					t.b = append(t.b, escCell(scheme, kk, true24)...)
				}
			}
		}
	} else {
		t.b = append(t.b, lab...)
	}
	t.b = append(t.b, escReset...)
}

// legend writes the owners of shortened cells, a coverage summary and the
// colour key.
func (t *textWriter) legend() {
	pl, g := t.pl, t.pl.g
	if len(pl.lab.refs) > 0 {
		t.b = append(t.b, "owners of cells marked *N (every owner; Ta-bVv = threads a..b hold value v):\n"...)
		for _, e := range pl.lab.refs {
			t.b = fmt.Appendf(t.b, "  *%d (%s,%s): ", e.Ref, g.RowLabel(e.Pos.Row), g.ColLabel(e.Pos.Col))
			t.b = AppendCompact(t.b, e.Cell.Owners)
			t.b = append(t.b, '\n')
		}
	}
	if pl.o.NoLegend {
		return
	}
	if slices.Contains(pl.lab.forms, formCompact) {
		t.b = append(t.b, "compact owners: Ta-b,cVv = threads a..b and c hold value v\n"...)
	}
	if slices.Contains(pl.lab.forms, formCut) {
		t.b = append(t.b, "labels ending in … were cut to the cell width (--cell); widen the cells or use --format json for the full text\n"...)
	}
	if s := coverageLine(g); s != "" {
		t.b = append(t.b, s...)
		t.b = append(t.b, '\n')
	}
	if !t.ansi {
		return
	}
	seen := map[ColorBy]bool{}
	for _, sc := range pl.scheme {
		if seen[sc] || sc == ColorNone {
			continue
		}
		seen[sc] = true
		t.b = append(t.b, legendText(sc, t.pl.g)...)
		t.b = append(t.b, ':')
		rows := legendRows(sc, g)
		for _, r := range rows {
			if len(rows) > 1 {
				t.b = append(t.b, "\n "...)
			}
			if r.head != "" {
				t.b = append(t.b, ' ')
				t.b = append(t.b, r.head...)
				t.b = append(t.b, ':')
			}
			for i, k := range r.keys {
				t.b = append(t.b, ' ')
				t.b = append(t.b, escCell(sc, k, pl.o.TrueColor)...)
				t.b = append(t.b, r.labels[i]...)
				t.b = append(t.b, escReset...)
			}
		}
		t.b = append(t.b, '\n')
	}
}

// coverageLine summarises how the owner panels cover their tiles.
func coverageLine(g *Grid) string {
	var parts []string
	for pi := range g.Panels {
		p := &g.Panels[pi]
		if p.Kind != Owners {
			continue
		}
		var empty, shared, maxOwn int
		for r := 0; r < p.Rows; r++ {
			for c := 0; c < p.Cols; c++ {
				cell := &g.Cells[(p.Row0+r)*g.Cols+p.Col0+c]
				n := len(cell.Owners)
				maxOwn = max(maxOwn, n)
				switch {
				case n == 0:
					empty++
				case n > 1:
					shared++
				}
			}
		}
		s := ""
		switch {
		case empty == 0 && shared == 0:
			s = "every cell has exactly one owner"
		default:
			var bits []string
			if shared > 0 {
				bits = append(bits, fmt.Sprintf("%d cells have several owners (up to %d: a broadcast)", shared, maxOwn))
			}
			if empty > 0 {
				bits = append(bits, fmt.Sprintf("%d cells have no owner (shown .)", empty))
			}
			s = strings.Join(bits, "; ")
		}
		if p.Name != "" {
			s = p.Name + ": " + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	// "A: x; B: x; C: x" reads better as "x (A, B, C)".
	if len(parts) > 1 {
		_, first, _ := strings.Cut(parts[0], ": ")
		names := make([]string, len(parts))
		same := true
		for i, p := range parts {
			var rest string
			names[i], rest, _ = strings.Cut(p, ": ")
			same = same && rest == first
		}
		if same {
			return "coverage: " + first + " (" + strings.Join(names, ", ") + ")"
		}
	}
	return "coverage: " + strings.Join(parts, "; ")
}

func (t *textWriter) spaces(n int) {
	for ; n > 0; n-- {
		t.b = append(t.b, ' ')
	}
}

// pad writes s padded to n characters, right-aligned when right is set.
func (t *textWriter) pad(s string, n int, right bool) {
	if right {
		t.spaces(n - len(s))
	}
	t.b = append(t.b, s...)
	if !right {
		t.spaces(n - len(s))
	}
}

// trimLine ends the current line, dropping trailing blanks.
func (t *textWriter) trimLine() {
	for len(t.b) > 0 && t.b[len(t.b)-1] == ' ' {
		t.b = t.b[:len(t.b)-1]
	}
	t.b = append(t.b, '\n')
}

// NoteWidth is the width at which the renderers wrap notes.
const NoteWidth = 100

// wrapText breaks s at blanks into lines of at most width characters (a
// longer word stays whole on its own line).
func wrapText(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
