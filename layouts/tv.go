package layouts

import "fmt"

// TV is a thread-value layout over a Rows×Cols tile, in CuTe's convention:
// Layout maps (thread, value) — a rank-2 layout whose mode 0 is the thread
// and mode 1 the value — to the column-major tile index row + Rows*col.
type TV struct {
	Layout Layout
	Rows   int
	Cols   int
}

// NewTV checks that layout is rank 2 and that every (thread, value) lands
// inside the Rows×Cols tile.
func NewTV(layout Layout, rows, cols int) (TV, error) {
	if layout.Rank() != 2 {
		return TV{}, fmt.Errorf("TV layout %v: must have rank 2 (thread, value), has rank %d", layout, layout.Rank())
	}
	if rows <= 0 || cols <= 0 {
		return TV{}, fmt.Errorf("TV layout %v: tile %dx%d must be non-empty", layout, rows, cols)
	}
	tv := TV{Layout: layout, Rows: rows, Cols: cols}
	for t := 0; t < tv.Threads(); t++ {
		for v := 0; v < tv.Values(); v++ {
			if i := tv.Index(t, v); i < 0 || i >= rows*cols {
				return TV{}, fmt.Errorf("TV layout %v: (thread %d, value %d) maps to index %d, outside the %dx%d tile", layout, t, v, i, rows, cols)
			}
		}
	}
	return tv, nil
}

// Threads is the size of the thread mode.
func (tv TV) Threads() int { return tv.Layout.Shape.Mode(0).Product() }

// Values is the size of the value mode.
func (tv TV) Values() int { return tv.Layout.Shape.Mode(1).Product() }

// Index is the column-major tile index of (thread t, value v).
func (tv TV) Index(t, v int) int {
	return crd2idxInt(t, tv.Layout.Shape.Mode(0), tv.Layout.Stride.Mode(0)) +
		crd2idxInt(v, tv.Layout.Shape.Mode(1), tv.Layout.Stride.Mode(1))
}

// Coord is the (row, col) of (thread t, value v).
func (tv TV) Coord(t, v int) (row, col int) {
	i := tv.Index(t, v)
	return i % tv.Rows, i / tv.Rows
}

// Owner is one (thread, value) pair that holds a tile cell.
type Owner struct {
	Thread, Value int
}

// Owners returns, for every cell (indexed row + Rows*col), the owners that
// hold it, in (thread, value) order. A cell may have no owner (a layout
// that does not cover its tile) or several (a broadcast).
func (tv TV) Owners() [][]Owner {
	// Two passes over the (thread, value) pairs: count the owners of each
	// cell, then slice one backing array, so the result costs two
	// allocations instead of one per cell.
	cells := make([][]Owner, tv.Rows*tv.Cols)
	te := tv.Layout.Mode(0).Evaluator()
	ve := tv.Layout.Mode(1).Evaluator()
	nt, nv := tv.Threads(), tv.Values()
	vals := make([]int, nv)
	for v := range vals {
		vals[v] = ve.Eval(v)
	}
	count := make([]int, len(cells))
	for t := 0; t < nt; t++ {
		base := te.Eval(t)
		for _, o := range vals {
			count[base+o]++
		}
	}
	backing := make([]Owner, 0, nt*nv)
	for i, n := range count {
		if n > 0 {
			cells[i] = backing[len(backing) : len(backing) : len(backing)+n]
			backing = backing[:len(backing)+n]
		}
	}
	for t := 0; t < nt; t++ {
		base := te.Eval(t)
		for v, o := range vals {
			cells[base+o] = append(cells[base+o], Owner{t, v})
		}
	}
	return cells
}

// Coverage summarises how a TV layout covers its tile: the number of
// cells with no owner and with more than one owner.
func (tv TV) Coverage() (empty, shared int) {
	for _, os := range tv.Owners() {
		switch {
		case len(os) == 0:
			empty++
		case len(os) > 1:
			shared++
		}
	}
	return empty, shared
}
