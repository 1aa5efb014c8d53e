package render

import (
	"fmt"
	"strconv"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim/banks"
)

// FromTV builds a one-panel grid of tv's tile: cell (r, c) lists every
// (thread, value) that tv maps to the column-major index r + Rows*c.
// It fails if some (thread, value) lands outside the tile.
func FromTV(tv layouts.TV, title string) (*Grid, error) {
	g, err := NewGrid(tv.Rows, tv.Cols)
	if err != nil {
		return nil, fmt.Errorf("TV layout %v: %w", tv.Layout, err)
	}
	if tv.Layout.Rank() != 2 {
		return nil, fmt.Errorf("TV layout %v: must have rank 2 (thread, value), has rank %d", tv.Layout, tv.Layout.Rank())
	}
	if title == "" {
		title = tv.Layout.String()
	}
	g.Title = title
	p := Panel{Title: title, Kind: Owners, Rows: tv.Rows, Cols: tv.Cols, RowName: "row", ColName: "col"}
	if err := fillOwners(g, &p, tv); err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(p); err != nil {
		return nil, err
	}
	return g, nil
}

// fillOwners computes the owners of tv's tile and stores them into the
// cells that panel p (not yet added) will cover.
func fillOwners(g *Grid, p *Panel, tv layouts.TV) error {
	threads, errT := layouts.SizeOf(tv.Layout.Shape.Mode(0))
	values, errV := layouts.SizeOf(tv.Layout.Shape.Mode(1))
	if errT != nil || errV != nil {
		return fmt.Errorf("TV layout %v: more (thread, value) pairs than the %d that can be drawn", tv.Layout, MaxCells)
	}
	if threads <= 0 || values <= 0 {
		return fmt.Errorf("TV layout %v: needs at least one thread and one value", tv.Layout)
	}
	if threads > MaxCells/values {
		return fmt.Errorf("TV layout %v: %d threads × %d values is too many to draw (limit %d pairs)", tv.Layout, threads, values, MaxCells)
	}
	p.Threads, p.Values = threads, values
	// A TV layout's index is the sum of a thread part and a value part, so
	// evaluate each mode once and add.
	tm, vm := tv.Layout.Mode(0), tv.Layout.Mode(1)
	toff := make([]int, threads)
	for t := range toff {
		toff[t] = tm.Eval(t)
	}
	voff := make([]int, values)
	for v := range voff {
		voff[v] = vm.Eval(v)
	}
	size := tv.Rows * tv.Cols
	count := make([]int32, size+1)
	for t, a := range toff {
		for v, b := range voff {
			i := a + b
			if i < 0 || i >= size {
				return fmt.Errorf("TV layout %v: (thread %d, value %d) maps to index %d, outside the %dx%d tile", tv.Layout, t, v, i, tv.Rows, tv.Cols)
			}
			count[i+1]++
		}
	}
	for i := 1; i <= size; i++ {
		count[i] += count[i-1]
	}
	backing := make([]layouts.Owner, threads*values)
	next := append([]int32(nil), count[:size]...)
	for t, a := range toff {
		for v, b := range voff {
			i := a + b
			backing[next[i]] = layouts.Owner{Thread: t, Value: v}
			next[i]++
		}
	}
	for i := 0; i < size; i++ {
		r, c := i%tv.Rows, i/tv.Rows
		gr, gc := p.Row0+r, p.Col0+c
		if p.Transposed {
			gr, gc = p.Row0+c, p.Col0+r
		}
		lo, hi := count[i], count[i+1]
		if lo < hi {
			g.Cells[gr*g.Cols+gc].Owners = backing[lo:hi:hi]
		}
	}
	return nil
}

// FromTVLayout is FromTV for a plain CuTe layout read as (thread, value) →
// column-major index into a rows × cols tile.
func FromTVLayout(l layouts.Layout, rows, cols int) (*Grid, error) {
	// NewTV visits every (thread, value) pair: refuse more than can be
	// drawn before it starts.
	if l.Rank() == 2 {
		threads, errT := layouts.SizeOf(l.Shape.Mode(0))
		values, errV := layouts.SizeOf(l.Shape.Mode(1))
		switch {
		case errT == nil && errV == nil && (threads == 0 || values == 0):
			return nil, fmt.Errorf("TV layout %v: needs at least one thread and one value", l)
		case errT != nil || errV != nil || threads > MaxCells/values:
			return nil, fmt.Errorf("TV layout %v: more (thread, value) pairs than the %d that can be drawn", l, MaxCells)
		}
	}
	tv, err := layouts.NewTV(l, rows, cols)
	if err != nil {
		return nil, err
	}
	return FromTV(tv, fmt.Sprintf("%v on a %dx%d tile", l, rows, cols))
}

// FromLayout builds the picture CuTe's print_layout draws: for a rank-2
// layout, cell (r, c) holds L(r, c); a rank-1 layout is drawn as one row.
// Swizzled (composed) layouts are evaluated through their swizzle. With
// elemBits > 0 every cell also gets its shared-memory bank.
func FromLayout(l layouts.AnyLayout, elemBits int) (*Grid, error) {
	inner := l.Inner()
	rows, cols := 0, 0
	var errR, errC error
	switch inner.Rank() {
	case 1:
		rows = 1
		cols, errC = layouts.SizeOf(inner.Shape)
	case 2:
		rows, errR = layouts.SizeOf(inner.Shape.Mode(0))
		cols, errC = layouts.SizeOf(inner.Shape.Mode(1))
	default:
		return nil, fmt.Errorf("layout %v has rank %d; only rank-1 and rank-2 layouts can be drawn (group the modes, e.g. ((a,b),c), or give a TV layout with --tile)", l, inner.Rank())
	}
	if errR != nil || errC != nil {
		return nil, fmt.Errorf("layout %v: more cells than the %d that can be drawn", l, MaxCells)
	}
	if elemBits < 0 {
		return nil, fmt.Errorf("element width %d bits: must be >= 0", elemBits)
	}
	g, err := NewGrid(rows, cols)
	if err != nil {
		return nil, fmt.Errorf("layout %v: %w", l, err)
	}
	g.Title = l.String()
	p := Panel{Title: l.String(), Kind: Offsets, Rows: rows, Cols: cols, ElemBits: elemBits, RowName: "row", ColName: "col"}
	if rows == 1 {
		p.RowName, p.ColName = "", "i"
	}
	fillOffsets(g, &p, l.Eval)
	_, err = g.AddPanel(p)
	return g, err
}

// fillOffsets stores eval(r + Rows*c) and its bank into the cells panel p
// (not yet added) will cover.
func fillOffsets(g *Grid, p *Panel, eval func(int) int) {
	rows, cols := p.Rows, p.Cols
	if p.Transposed {
		rows, cols = cols, rows
	}
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			gr, gc := p.Row0+r, p.Col0+c
			if p.Transposed {
				gr, gc = p.Row0+c, p.Col0+r
			}
			cell := &g.Cells[gr*g.Cols+gc]
			cell.Offset = eval(r + rows*c)
			cell.Bank = Bank(cell.Offset, p.ElemBits)
		}
	}
}

// fillSubBytes numbers the sub-word elements of a TMEM panel: in each tile
// row, the k-th cell (in column order) that maps to a TMEM cell already
// used in that row holds byte k*SubBits/8 of it.
func fillSubBytes(g *Grid, p *Panel) {
	for r := 0; r < p.Rows; r++ {
		seen := map[int]int{}
		for c := 0; c < p.Cols; c++ {
			cell := &g.Cells[(p.Row0+r)*g.Cols+p.Col0+c]
			k := seen[cell.Offset]
			seen[cell.Offset] = k + 1
			cell.Byte = k * p.SubBits / 8
		}
	}
}

// Bank returns the 4-byte shared-memory bank, (byte offset / 4) mod 32
// (sim/banks), of element offset off for elements of elemBits bits; -1
// when elemBits is 0. A negative offset counts banks down from bank 0.
func Bank(off, elemBits int) int {
	if elemBits <= 0 {
		return -1
	}
	b := off * elemBits / 8
	if b < 0 {
		return (b/banks.WordBytes%banks.Count + banks.Count) % banks.Count
	}
	return banks.Bank(uint64(b))
}

// FromAtom builds the grid of a catalog atom: owners for a thread-value
// atom, element offsets and banks for a shared-memory atom. The title and
// notes carry the atom's name, PTX section and hardware provenance.
func FromAtom(a catalog.Atom) (*Grid, error) {
	g, err := NewGrid(a.Rows, a.Cols)
	if err != nil {
		return nil, fmt.Errorf("atom %s: %w", a.Name, err)
	}
	p, err := atomPanel(g, a, 0, 0, false)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(p); err != nil {
		return nil, err
	}
	g.Title = a.Name
	g.Notes = atomNotes(a)
	g.Corner = a.RowName + "/" + a.ColName
	return g, nil
}

// atomPanel fills the cells of a's tile placed at (row0, col0) and returns
// the panel to add.
func atomPanel(g *Grid, a catalog.Atom, row0, col0 int, transposed bool) (Panel, error) {
	p := Panel{
		Title: a.Name, Row0: row0, Col0: col0, Rows: a.Rows, Cols: a.Cols,
		RowName: a.RowName, ColName: a.ColName, Transposed: transposed,
		ElemBits: a.ElemBits, ValsPerReg: a.ValsPerReg,
	}
	if transposed {
		p.Rows, p.Cols = a.Cols, a.Rows
	}
	switch a.Kind {
	case catalog.KindTV:
		p.Kind = Owners
		if a.TV.Rows != a.Rows || a.TV.Cols != a.Cols {
			return p, fmt.Errorf("atom %s: TV tile %dx%d differs from the atom's %dx%d", a.Name, a.TV.Rows, a.TV.Cols, a.Rows, a.Cols)
		}
		if err := fillOwners(g, &p, a.TV); err != nil {
			return p, fmt.Errorf("atom %s: %w", a.Name, err)
		}
	case catalog.KindSMEM, catalog.KindTMEM:
		p.Kind = Offsets
		if a.Kind == catalog.KindTMEM {
			p.TMEM, p.CTAs, p.ElemBits = true, max(a.CTAs, 1), 0 // no shared-memory banks
			if a.ElemBits > 0 && a.ElemBits < 32 {
				p.SubBits = a.ElemBits
			}
			if transposed {
				return p, fmt.Errorf("atom %s: a TMEM placement cannot be an MMA's B operand", a.Name)
			}
		}
		if n := a.Offsets.Size(); n < a.Rows*a.Cols {
			return p, fmt.Errorf("atom %s: offset layout %v has %d elements, fewer than the %dx%d tile", a.Name, a.Offsets, n, a.Rows, a.Cols)
		}
		fillOffsets(g, &p, a.Offsets.Eval)
		if p.SubBits > 0 {
			fillSubBytes(g, &p)
		}
	default:
		return p, fmt.Errorf("atom %s: unknown kind %d", a.Name, a.Kind)
	}
	return p, nil
}

func atomNotes(a catalog.Atom) []string {
	var notes []string
	head := a.Summary
	if a.Section != "" {
		head += " (PTX ISA " + a.Section + ")"
	}
	if head != "" {
		notes = append(notes, head)
	}
	shape := fmt.Sprintf("%dx%d tile (%s x %s)", a.Rows, a.Cols, a.RowName, a.ColName)
	if a.Kind == catalog.KindTV {
		shape += fmt.Sprintf(", %d threads x %d values", a.Threads(), a.Values())
		if a.ValsPerReg > 0 {
			shape += fmt.Sprintf(", %d per register", a.ValsPerReg)
		}
		shape += ", layout " + a.TV.Layout.String()
	} else if a.Kind == catalog.KindTMEM {
		shape += ", cells show the TMEM lane L and column C relative to the accumulator's base, layout " + a.Offsets.String() + " (offset = lane<<16 | column)"
		if a.CTAs > 1 {
			shape += fmt.Sprintf("; rows are split over %d CTAs, %d rows each, each CTA with its own TMEM: a cell cR:LlCc is in CTA R of the pair", a.CTAs, a.Rows/a.CTAs)
		}
		if a.ElemBits > 0 && a.ElemBits < 32 {
			shape += fmt.Sprintf("; %d-bit elements share a 32-bit TMEM cell: LlCcbB is byte B of it", a.ElemBits)
		}
	} else {
		shape += ", " + strconv.Itoa(a.ElemBits) + "-bit elements, layout " + a.Offsets.String()
	}
	notes = append(notes, shape)
	if a.CuTe != "" {
		notes = append(notes, "CuTe: "+a.CuTe)
	}
	notes = append(notes, provenance(a))
	if a.Notes != "" {
		notes = append(notes, a.Notes)
	}
	return notes
}

// provenance says what hardware has confirmed about a.
func provenance(a catalog.Atom) string {
	switch {
	case a.Verified != "":
		return "hardware-verified: " + a.Verified
	case a.NeedsArch != "":
		return "not hardware-verified (needs " + a.NeedsArch + ")"
	}
	return "not hardware-verified"
}

// MMA places an MMA atom's three operands as CuTe's pictures do: C (M × N)
// at the origin, A (M × K) to its left, and B above it with K running
// down and N across, one blank row and column between them. Each operand
// keeps its own tile coordinates in its cells. A's tile must be M × K
// (rows m, cols k); B's may be N × K or K × N (the axis named "k" is put
// vertical); C's must be M × N.
func MMA(a, b, c catalog.Atom) (*Grid, error) {
	m, k := a.Rows, a.Cols
	if c.Rows != m {
		return nil, fmt.Errorf("MMA %s/%s: A has %d rows but C has %d", a.Name, c.Name, m, c.Rows)
	}
	n := c.Cols
	// B is drawn with k down and n across: transpose a tile stored as
	// N × K. The axis names decide when K = N.
	kByN := b.Rows == k && b.Cols == n
	nByK := b.Rows == n && b.Cols == k
	bTrans := false
	switch {
	case kByN && nByK:
		bTrans = b.ColName == "k"
	case nByK:
		bTrans = true
	case !kByN:
		return nil, fmt.Errorf("MMA %s: B tile %dx%d does not match K=%d, N=%d", b.Name, b.Rows, b.Cols, k, n)
	}
	g, err := NewGrid(k+1+m, k+1+n)
	if err != nil {
		return nil, err
	}
	for _, op := range []struct {
		name       string
		atom       catalog.Atom
		r0, c0     int
		transposed bool
	}{{"A", a, k + 1, 0, false}, {"B", b, 0, k + 1, bTrans}, {"C", c, k + 1, k + 1, false}} {
		p, err := atomPanel(g, op.atom, op.r0, op.c0, op.transposed)
		if err != nil {
			return nil, err
		}
		p.Name = op.name
		if _, err := g.AddPanel(p); err != nil {
			return nil, err
		}
	}
	g.Title = fmt.Sprintf("MMA M=%d N=%d K=%d: A left, B above (k down), C at the origin", m, n, k)
	for i, at := range []catalog.Atom{a, b, c} {
		note := "ABC"[i:i+1] + " = " + at.Name + ": "
		if at.Summary != "" {
			note += at.Summary + "; "
		}
		if at.Section != "" {
			note += "PTX ISA " + at.Section + "; "
		}
		g.Notes = append(g.Notes, note+at.Layout()+"; "+provenance(at))
	}
	g.RowLabels = make([]string, g.Rows)
	g.ColLabels = make([]string, g.Cols)
	for i := 0; i < k; i++ {
		g.RowLabels[i] = "k" + strconv.Itoa(i)
		g.ColLabels[i] = "k" + strconv.Itoa(i)
	}
	for i := 0; i < m; i++ {
		g.RowLabels[k+1+i] = "m" + strconv.Itoa(i)
	}
	for i := 0; i < n; i++ {
		g.ColLabels[k+1+i] = "n" + strconv.Itoa(i)
	}
	return g, nil
}
