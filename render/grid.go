package render

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/tcsim/tcsim/layouts"
)

// MaxCells bounds the grids the builders make, so that a layout typed by a
// user (extents may reach 2^40) cannot exhaust memory.
const MaxCells = 1 << 22

// Kind tells what the cells of a panel hold.
type Kind int

const (
	// Owners panels come from thread-value layouts: each cell lists the
	// (thread, value) pairs that hold it.
	Owners Kind = iota
	// Offsets panels come from plain layouts and shared-memory atoms: each
	// cell holds the offset the layout maps it to.
	Offsets
)

// String returns the kind's name.
func (k Kind) String() string {
	if k == Offsets {
		return "offsets"
	}
	return "owners"
}

// Panel is one tile placed in a Grid. A lone layout is a grid with one
// panel; an MMA picture has three (A, B and C).
type Panel struct {
	Name  string // "A", "B", "C" in an MMA picture; "" for a lone tile
	Title string // e.g. the atom name or the layout in CuTe notation
	Kind  Kind

	// Row0, Col0 is the panel's top-left cell in the grid; Rows × Cols is
	// its extent in grid cells (after any transposition).
	Row0, Col0 int
	Rows, Cols int

	// RowName and ColName name the tile's own axes (e.g. "m" and "k").
	// When Transposed is set, the tile's rows run across the grid (its
	// first coordinate grows to the right), as B does in an MMA picture.
	RowName, ColName string
	Transposed       bool

	Threads, Values int // Owners panels
	ValsPerReg      int // values packed in one 32-bit register; 0 if unknown
	ElemBits        int // bits of one element; 0 if unknown (then no banks)

	// TMEM marks an Offsets panel whose offsets are Tensor Memory
	// addresses lane<<16 | column; CTAs > 1 spreads its rows evenly over
	// that many CTAs (cta_group::2), each with its own TMEM.
	TMEM bool
	CTAs int
	// SubBits is, for a TMEM panel whose elements are narrower than the
	// 32-bit TMEM cell (the 8-bit block-scale factors), their width: the
	// tile cells of a row that share a TMEM cell hold its bytes in
	// column order (Cell.Byte). 0 for whole cells.
	SubBits int
}

// TMEMLane is the lane of a TMEM address (lane<<16 | column).
func TMEMLane(addr int) int { return addr >> 16 }

// TMEMColumn is the column of a TMEM address (lane<<16 | column).
func TMEMColumn(addr int) int { return addr & 0xffff }

// CTA returns the CTA of the pair that holds tile row r of a TMEM panel
// (0 unless CTAs > 1).
func (p *Panel) CTA(r int) int {
	if !p.TMEM || p.CTAs <= 1 {
		return 0
	}
	return r / max(p.Rows/p.CTAs, 1)
}

// Cell is one grid cell.
type Cell struct {
	// Panel indexes Grid.Panels; -1 marks a void cell that belongs to no
	// tile (the gaps of an MMA picture).
	Panel int
	// Row, Col is the cell's coordinate in its panel's tile, in the
	// tile's own orientation (RowName, ColName).
	Row, Col int
	// Owners lists every (thread, value) that holds the cell, in (thread,
	// value) order. Empty for a cell no thread holds; several for a
	// broadcast.
	Owners []layouts.Owner
	// Offset is the offset an Offsets panel maps the cell to.
	Offset int
	// Bank is the shared-memory bank, (byte offset / 4) mod 32, or -1.
	Bank int
	// Tag is a caller-chosen colour key (ColorTag), or -1 for none. Other
	// packages use it to mark groups, e.g. the core matrices a descriptor
	// reads or the phases of a bank conflict.
	Tag int
	// Label, when set, replaces the text the renderers would derive.
	Label string
	// Byte is the byte of the 32-bit TMEM cell a sub-word element of a
	// TMEM panel occupies (Panel.SubBits), else 0.
	Byte int
}

// Grid is the plain picture model every renderer draws and every package
// can build: Rows × Cols cells, row-major, each belonging to a panel.
type Grid struct {
	Title  string
	Notes  []string // extra lines shown under the title
	Rows   int
	Cols   int
	Cells  []Cell // row-major: Cells[r*Cols+c]
	Panels []Panel

	// RowLabels and ColLabels label the grid's rows and columns; nil means
	// the indices 0, 1, 2, …. Corner is the text above the row labels.
	RowLabels, ColLabels []string
	Corner               string

	// TagName says what Cell.Tag means (e.g. "core matrix"), for the
	// legend of the ColorTag scheme; "" reads "tag".
	TagName string
}

// NewGrid returns a rows × cols grid of void cells (Panel -1, Bank -1,
// Tag -1). Packages that draw their own pictures (descriptors, bank
// conflicts) start from it, add panels with AddPanel and fill the cells.
func NewGrid(rows, cols int) (*Grid, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("grid %dx%d: must be non-empty", rows, cols)
	}
	if rows > MaxCells/cols {
		cells := new(big.Int).Mul(big.NewInt(int64(rows)), big.NewInt(int64(cols))) // may exceed int64
		return nil, fmt.Errorf("grid %dx%d: too large to draw (%v cells; the limit is %d)", rows, cols, cells, MaxCells)
	}
	g := &Grid{Rows: rows, Cols: cols, Cells: make([]Cell, rows*cols)}
	for i := range g.Cells {
		// Field by field: the pointer fields stay zero, so no write barriers.
		c := &g.Cells[i]
		c.Panel, c.Bank, c.Tag = -1, -1, -1
	}
	return g, nil
}

// At returns the cell at grid row r, column c, or nil outside the grid.
func (g *Grid) At(r, c int) *Cell {
	if r < 0 || c < 0 || r >= g.Rows || c >= g.Cols {
		return nil
	}
	return &g.Cells[r*g.Cols+c]
}

// AddPanel appends p and marks the cells it covers as belonging to it,
// setting each cell's tile coordinate. It fails if p leaves the grid.
func (g *Grid) AddPanel(p Panel) (int, error) {
	if p.Row0 < 0 || p.Col0 < 0 || p.Rows <= 0 || p.Cols <= 0 || p.Row0+p.Rows > g.Rows || p.Col0+p.Cols > g.Cols {
		return 0, fmt.Errorf("panel %q at (%d,%d) size %dx%d does not fit the %dx%d grid", p.Name, p.Row0, p.Col0, p.Rows, p.Cols, g.Rows, g.Cols)
	}
	idx := len(g.Panels)
	g.Panels = append(g.Panels, p)
	for r := 0; r < p.Rows; r++ {
		for c := 0; c < p.Cols; c++ {
			cell := &g.Cells[(p.Row0+r)*g.Cols+p.Col0+c]
			cell.Panel = idx
			cell.Row, cell.Col = r, c
			if p.Transposed {
				cell.Row, cell.Col = c, r
			}
		}
	}
	return idx, nil
}

// PanelOf returns the panel of cell c, or nil for a void cell.
func (g *Grid) PanelOf(c *Cell) *Panel {
	if c.Panel < 0 || c.Panel >= len(g.Panels) {
		return nil
	}
	return &g.Panels[c.Panel]
}

// RowLabel returns the label of grid row r.
func (g *Grid) RowLabel(r int) string {
	if g.RowLabels != nil {
		return g.RowLabels[r]
	}
	return strconv.Itoa(r)
}

// ColLabel returns the label of grid column c.
func (g *Grid) ColLabel(c int) string {
	if g.ColLabels != nil {
		return g.ColLabels[c]
	}
	return strconv.Itoa(c)
}

// CellsOf returns the grid indices (r*Cols+c) of every cell that thread t
// holds, in grid order: what a viewer highlights when a cell is selected.
func (g *Grid) CellsOf(t int) []int {
	var out []int
	for i := range g.Cells {
		for _, o := range g.Cells[i].Owners {
			if o.Thread == t {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// MaxOwners is the largest number of owners of any cell.
func (g *Grid) MaxOwners() int {
	m := 0
	for i := range g.Cells {
		m = max(m, len(g.Cells[i].Owners))
	}
	return m
}

// Coverage counts, over the Owners panels, the cells no thread holds and
// the cells several (thread, value) pairs hold.
func (g *Grid) Coverage() (empty, shared int) {
	for i := range g.Cells {
		c := &g.Cells[i]
		if p := g.PanelOf(c); p == nil || p.Kind != Owners {
			continue
		}
		switch {
		case len(c.Owners) == 0:
			empty++
		case len(c.Owners) > 1:
			shared++
		}
	}
	return empty, shared
}
