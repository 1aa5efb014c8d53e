package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// LabelMode chooses what an Offsets cell shows. Owner cells always show
// their owners.
type LabelMode int

const (
	LabelAuto   LabelMode = iota // the offset
	LabelOffset                  // the element offset
	LabelBank                    // the shared-memory bank
	LabelByte                    // the byte offset (needs the element width)
)

var labelNames = []string{"auto", "offset", "bank", "byte"}

// String returns the mode as --label spells it.
func (l LabelMode) String() string {
	if l >= 0 && int(l) < len(labelNames) {
		return labelNames[l]
	}
	return fmt.Sprintf("LabelMode(%d)", int(l))
}

// ParseLabelMode reads a --label value.
func ParseLabelMode(s string) (LabelMode, error) {
	i, err := lookupName("label", s, labelNames)
	return LabelMode(max(i, 0)), err
}

// lookupName finds s (case-insensitive) in names. The error names what was
// looked up, lists the names and suggests the nearest.
func lookupName(what, s string, names []string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("unknown %s %q (want one of %s)%s", what, s, strings.Join(names, ", "), suggest.HintSuffix(s, names))
}

// Pos is a grid position.
type Pos struct{ Row, Col int }

// Options control every renderer. The zero value draws the whole grid
// with automatic colours and cell width.
type Options struct {
	Color ColorBy
	Label LabelMode
	// CellWidth is the characters per cell in text and ANSI; 0 fits the
	// widest label up to AutoWidthLimit. Labels that do not fit are
	// shortened (owners to a compact form or a legend reference, other
	// text cut with a trailing "…"), never silently dropped.
	CellWidth int
	// Region is the window to draw; the zero Region is the whole grid.
	Region Region
	// Boxed draws text and ANSI grids with CuTe print_layout borders.
	Boxed bool
	// Cursor, when set, marks one cell in ANSI output (reverse video) and
	// underlines every cell that shares a thread with it.
	Cursor *Pos
	// Scale is the pixel scale of pictures (the font is 5x7 pixels in a
	// 6x11 box at scale 1); 0 chooses 2 for small grids and 1 for large.
	Scale int
	// NoLegend leaves out the colour legend and the summary lines.
	NoLegend bool
	// TrueColor writes the ANSI cell colours as 24-bit RGB instead of
	// xterm-256 indices (the terminal UI does: its renderer converts them
	// to what the terminal supports).
	TrueColor bool
	// Clean draws pictures for documents: the title and the grid, without
	// the notes under the title and the window line (the legend stays
	// unless NoLegend is set).
	Clean bool
	// Width, when set, wraps the notes under the title of text and ANSI
	// output so that their lines, indentation included, are at most Width
	// columns (a terminal's width); 0 wraps them at NoteWidth.
	Width int
	// Bare draws, in text and ANSI, only the column headers and the rows:
	// no title, notes, window line or legends. Viewers that frame the grid
	// themselves (the terminal UI) use it; TextFrame gives its geometry.
	Bare bool
}

// AutoWidthLimit bounds the automatic cell width.
const AutoWidthLimit = 16

// Region is a half-open window of grid rows [Row0, Row1) and columns
// [Col0, Col1). A zero end means "to the last row/column".
type Region struct {
	Row0, Row1 int
	Col0, Col1 int
}

// ParseRegion reads "r0:r1,c0:c1" (half-open, as in Python slices). Either
// part may be left out or written ":" for all, "a:" or ":b" for one open
// end, or "a" for the single row or column a. For example "0:16,0:32",
// "8,:" and ",128:".
func ParseRegion(s string) (Region, error) {
	var r Region
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return r, fmt.Errorf("region %q: want ROWS,COLS (e.g. 0:16,0:32), found %d commas", s, len(parts)-1)
	}
	var err error
	if r.Row0, r.Row1, err = parseSpan(s, parts[0], 0, "rows"); err != nil {
		return r, err
	}
	if len(parts) == 2 {
		if r.Col0, r.Col1, err = parseSpan(s, parts[1], len(parts[0])+1, "cols"); err != nil {
			return r, err
		}
	}
	return r, nil
}

func parseSpan(all, s string, at int, what string) (int, int, error) {
	num := func(t string, off int) (int, error) {
		if strings.TrimSpace(t) == "" {
			return 0, nil
		}
		v, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || v < 0 || v > MaxCells {
			return 0, fmt.Errorf("region %q, col %d: %s bound %q must be an integer in 0..%d", all, at+off+1, what, t, MaxCells)
		}
		return v, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	a, err := num(lo, 0)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		if strings.TrimSpace(lo) == "" {
			return 0, 0, nil
		}
		return a, a + 1, nil
	}
	b, err := num(hi, len(lo)+1)
	if err != nil {
		return 0, 0, err
	}
	if strings.TrimSpace(hi) != "" && b <= a {
		return 0, 0, fmt.Errorf("region %q: %s %d:%d is empty (the end must exceed the start)", all, what, a, b)
	}
	return a, b, nil
}

// String prints r in the form ParseRegion reads.
func (r Region) String() string {
	end := func(v int) string {
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	return fmt.Sprintf("%d:%s,%d:%s", r.Row0, end(r.Row1), r.Col0, end(r.Col1))
}

// Resolve returns the window r selects in g, with both ends made explicit.
// As with Python slices, an end past the grid stops at its edge; a start
// outside the grid is an error naming the bound.
func (r Region) Resolve(g *Grid) (Region, error) {
	out := r
	if out.Row1 == 0 || out.Row1 > g.Rows {
		out.Row1 = g.Rows
	}
	if out.Col1 == 0 || out.Col1 > g.Cols {
		out.Col1 = g.Cols
	}
	switch {
	case out.Row0 < 0 || out.Row0 >= g.Rows:
		return out, fmt.Errorf("region rows start at %d, but the grid has rows 0..%d", out.Row0, g.Rows-1)
	case out.Col0 < 0 || out.Col0 >= g.Cols:
		return out, fmt.Errorf("region cols start at %d, but the grid has cols 0..%d", out.Col0, g.Cols-1)
	case out.Row1 <= out.Row0 || out.Col1 <= out.Col0:
		return out, fmt.Errorf("region %v is empty", r)
	}
	return out, nil
}

// Whole reports whether r covers all of g.
func (r Region) Whole(g *Grid) bool {
	return r.Row0 == 0 && r.Col0 == 0 && r.Row1 == g.Rows && r.Col1 == g.Cols
}
