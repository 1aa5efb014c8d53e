package tui

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim/banks"
)

// The swizzle view draws sim/banks' bank model (the one the simulator's
// conflict report uses) over the accesses of an instruction pattern.
//
// The phases modelled here:
//   - ld.shared/st.shared: a warp's accesses of 4 bytes or less form one
//     phase of 32 lanes; 8-byte accesses two phases of 16 lanes; 16-byte
//     accesses four phases of 8 lanes (banks.LanesPerPhase).
//   - ldmatrix/stmatrix: one phase per 8x8 matrix, its eight 16-byte rows
//     (whose addresses lanes 8j..8j+7 supply).
//   - wgmma core-matrix reads: one phase per core matrix (8 rows of 16
//     bytes). The hardware's read order is not documented; this is the
//     model the canonical layouts are built for, not hardware-verified.
//   - TMA writes: one phase per 128 bytes of the box, in the order of the
//     box's inner (contiguous) dimension, 16-byte granules; not
//     hardware-verified.

// bankAccess is one access of a phase: Bytes bytes from byte address
// Addr, made by lane (or row) Who, covering some grid cells.
type bankAccess struct {
	Who   int
	Addr  int
	Bytes int
	Cells []int // grid indices (row*cols + col)
}

// bankPhase is a group of accesses served together.
type bankPhase struct {
	Label      string
	Accesses   []bankAccess
	Wavefronts int
	Conflicts  []int // banks that must deliver more than one word
}

// bankInstr is one instruction: its phases.
type bankInstr struct {
	Label  string
	Phases []bankPhase
}

// finishPhase fills in the cost of p.
func finishPhase(p *bankPhase) {
	accs := make([]banks.Access, len(p.Accesses))
	for i, a := range p.Accesses {
		accs[i] = banks.Access{Addr: uint64(a.Addr), Bytes: a.Bytes}
	}
	p.Wavefronts, p.Conflicts = banks.Wavefronts(accs)
}

// smemLayout is a shared-memory layout over a tile: an SMEM atom or a
// typed layout, repeated over larger tiles.
type smemLayout struct {
	Name       string
	Rows, Cols int // the atom's tile
	Bits       int // element width
	Off        layouts.AnyLayout
	Span       int    // elements one atom occupies (its cosize, at least Rows*Cols)
	Major      string // "k": columns are contiguous; "mn": rows are; "" neither
	Swizzle    string // how the swizzle reads, for the title
}

// newSmemAtom reads a catalog SMEM atom.
func newSmemAtom(a catalog.Atom) (smemLayout, error) {
	if a.Kind != catalog.KindSMEM {
		return smemLayout{}, fmt.Errorf("%s is not a shared-memory layout (pick an smem.* atom)", a.Name)
	}
	return finishSmem(smemLayout{Name: a.Name, Rows: a.Rows, Cols: a.Cols, Bits: a.ElemBits, Off: a.Offsets})
}

// newSmemTyped reads "LAYOUT bN": a rank-2 (possibly swizzled) layout in
// element units over its own shape, with the element width.
func newSmemTyped(text string) (smemLayout, error) {
	s, err := newSubject(text)
	if err != nil {
		return smemLayout{}, err
	}
	if s.atoms != nil {
		return newSmemAtom(s.atoms[0])
	}
	if s.tile[0] > 0 {
		return smemLayout{}, fmt.Errorf("%s: a shared-memory layout maps (row, col) to an offset; leave out the tile", text)
	}
	if s.bits == 0 {
		return smemLayout{}, fmt.Errorf("%s: give the element width, e.g. %s b16", text, text)
	}
	in := s.typed.Inner()
	if in.Rank() != 2 {
		return smemLayout{}, fmt.Errorf("%v: want a rank-2 layout (rows, cols), it has rank %d", s.typed, in.Rank())
	}
	return finishSmem(smemLayout{Name: s.typed.String(), Rows: in.Shape.Mode(0).Product(), Cols: in.Shape.Mode(1).Product(), Bits: s.bits, Off: s.typed})
}

func finishSmem(l smemLayout) (smemLayout, error) {
	if l.Rows*l.Cols > 1<<16 {
		return l, fmt.Errorf("%s: %dx%d is too large for the bank view", l.Name, l.Rows, l.Cols)
	}
	hi := 0
	for i := 0; i < l.Rows*l.Cols; i++ {
		o := l.Off.Eval(i)
		if o < 0 {
			return l, fmt.Errorf("%s: cell %d has the negative offset %d", l.Name, i, o)
		}
		hi = max(hi, o)
	}
	l.Span = max(hi+1, l.Rows*l.Cols)
	switch {
	case l.Cols > 1 && l.at(0, 1, l.Rows) == l.at(0, 0, l.Rows)+1:
		l.Major = "k"
	case l.Rows > 1 && l.at(1, 0, l.Rows) == l.at(0, 0, l.Rows)+1:
		l.Major = "mn"
	}
	if l.Off.Composed {
		l.Swizzle = l.Off.C.Swizzle.String() + " on element offsets"
	} else {
		l.Swizzle = "no swizzle"
	}
	return l, nil
}

// at is the element offset of cell (r, c) of a tile with tileRows rows
// made by repeating the atom, atoms numbered down the rows first (CuTe's
// tile_to_shape order).
func (l smemLayout) at(r, c, tileRows int) int {
	nbr := (tileRows + l.Rows - 1) / l.Rows
	block := r/l.Rows + nbr*(c/l.Cols)
	return l.Off.Eval(r%l.Rows+l.Rows*(c%l.Cols)) + l.Span*block
}

// byteAddr is the byte address of element offset o.
func (l smemLayout) byteAddr(o int) int { return o * l.Bits / 8 }

// patternGrid is what a pattern needs to know of the drawn tile.
type patternGrid struct {
	Rows, Cols int
	Transpose  bool // tile (r, c) is SMEM cell (c, r)
}

func (g patternGrid) smemCell(r, c int) (int, int) {
	if g.Transpose {
		return c, r
	}
	return r, c
}

func (g patternGrid) smemRows() int {
	if g.Transpose {
		return g.Cols
	}
	return g.Rows
}

// offsetAt is the SMEM element offset of tile cell (r, c).
func (g patternGrid) offsetAt(l smemLayout, r, c int) int {
	sr, sc := g.smemCell(r, c)
	return l.at(sr, sc, g.smemRows())
}

// ldShared models a warp's ld.shared/st.shared of the fragment's values:
// instruction i moves values [i*k, (i+1)*k) of every thread, k values of
// width bytes in all, which must be contiguous and aligned in shared
// memory.
func ldShared(frag catalog.Atom, l smemLayout, g patternGrid, width, warp int) ([]bankInstr, error) {
	tv := frag.TV
	k := width * 8 / l.Bits
	if k < 1 || width*8%l.Bits != 0 {
		return nil, fmt.Errorf("%d-byte accesses do not hold whole %d-bit elements", width, l.Bits)
	}
	nv := tv.Values()
	if nv%k != 0 {
		return nil, fmt.Errorf("%d values per thread do not split into %d-byte accesses of %d values", nv, width, k)
	}
	if (warp+1)*32 > tv.Threads() {
		return nil, fmt.Errorf("the fragment has %d threads, no warp %d", tv.Threads(), warp)
	}
	var out []bankInstr
	per := banks.LanesPerPhase(width)
	for i := 0; i < nv/k; i++ {
		ins := bankInstr{Label: fmt.Sprintf("values %d-%d", i*k, i*k+k-1)}
		if k == 1 {
			ins.Label = fmt.Sprintf("value %d", i)
		}
		var accs []bankAccess
		for lane := 0; lane < 32; lane++ {
			t := 32*warp + lane
			var cells []int
			first := 0
			for j := 0; j < k; j++ {
				r, c := tv.Coord(t, i*k+j)
				o := g.offsetAt(l, r, c)
				if j == 0 {
					first = o
					if o%k != 0 {
						return nil, fmt.Errorf("thread %d, value %d: offset %d is not aligned to a %d-byte access", t, i*k, o, width)
					}
				} else if o != first+j {
					return nil, fmt.Errorf("thread %d: values %d-%d are not contiguous in shared memory (offsets %d and %d), so one %d-byte access cannot move them", t, i*k, i*k+k-1, first, o, width)
				}
				cells = append(cells, r*g.Cols+c)
			}
			accs = append(accs, bankAccess{Who: lane, Addr: l.byteAddr(first), Bytes: width, Cells: cells})
		}
		for p := 0; p < 32; p += per {
			ph := bankPhase{Label: fmt.Sprintf("lanes %d-%d", p, p+per-1), Accesses: accs[p : p+per]}
			finishPhase(&ph)
			ins.Phases = append(ins.Phases, ph)
		}
		out = append(out, ins)
	}
	return out, nil
}

// validWidths lists the access widths (bytes) ldShared accepts.
func validWidths(frag catalog.Atom, l smemLayout, g patternGrid) []int {
	var ws []int
	for _, w := range []int{1, 2, 4, 8, 16} {
		if w*8 < l.Bits {
			continue
		}
		if _, err := ldShared(frag, l, g, w, 0); err == nil {
			ws = append(ws, w)
		}
	}
	return ws
}

// ldMatrix models ldmatrix/stmatrix: lane 8j+r supplies the address of
// row r of matrix j, a 16-byte row of the tile; one phase per matrix.
func ldMatrix(frag catalog.Atom, l smemLayout, g patternGrid) ([]bankInstr, error) {
	if len(frag.AddrRows) == 0 {
		return nil, fmt.Errorf("%s is not an ldmatrix/stmatrix atom", frag.Name)
	}
	perRow := 128 / l.Bits
	if g.Cols != perRow {
		return nil, fmt.Errorf("%s moves rows of %d 16-bit elements; the %d-bit layout has %d elements per 16 bytes", frag.Name, g.Cols, l.Bits, perRow)
	}
	var accs []bankAccess
	for lane, r := range frag.AddrRows {
		if r < 0 {
			continue
		}
		first := g.offsetAt(l, r, 0)
		var cells []int
		for c := 0; c < g.Cols; c++ {
			if o := g.offsetAt(l, r, c); o != first+c {
				return nil, fmt.Errorf("row %d (lane %d's address) is not 16 contiguous bytes in %s; try t (transpose) for an MN-major layout", r, lane, l.Name)
			}
			cells = append(cells, r*g.Cols+c)
		}
		if l.byteAddr(first)%16 != 0 {
			return nil, fmt.Errorf("row %d starts at byte %d, not 16-byte aligned", r, l.byteAddr(first))
		}
		accs = append(accs, bankAccess{Who: lane, Addr: l.byteAddr(first), Bytes: 16, Cells: cells})
	}
	ins := bankInstr{Label: frag.Name}
	for j := 0; j*8 < len(accs); j++ {
		ph := bankPhase{Label: fmt.Sprintf("matrix %d (lanes %d-%d)", j, 8*j, 8*j+7), Accesses: accs[8*j : min(8*j+8, len(accs))]}
		finishPhase(&ph)
		ins.Phases = append(ins.Phases, ph)
	}
	return []bankInstr{ins}, nil
}

// coreMatrices models the tensor core reading a tile as wgmma/tcgen05
// core matrices: 8 rows of 16 contiguous bytes, one phase each. For a
// K-major layout (columns contiguous) a core matrix is 8 rows by 16 bytes
// of columns; for an MN-major one, 8 columns by 16 bytes of rows.
func coreMatrices(l smemLayout, g patternGrid) ([]bankInstr, error) {
	per := 128 / l.Bits
	if per < 1 {
		return nil, fmt.Errorf("%d-bit elements do not fit 16-byte core-matrix rows", l.Bits)
	}
	major := l.Major
	if g.Transpose {
		major = map[string]string{"k": "mn", "mn": "k"}[major]
	}
	alongRow := major == "k" // the 16 bytes of a core-matrix row run along a tile row
	if major == "" {
		return nil, fmt.Errorf("%s is neither K-major nor MN-major (no 16 contiguous bytes along a row or a column)", l.Name)
	}
	sRows, sCols := g.Rows, g.Cols // strided and contiguous extents
	if !alongRow {
		sRows, sCols = g.Cols, g.Rows
	}
	if sRows%8 != 0 || sCols%per != 0 {
		return nil, fmt.Errorf("the %dx%d tile is not made of 8 x 16-byte core matrices (%d elements per 16 bytes)", g.Rows, g.Cols, per)
	}
	ins := bankInstr{Label: "core matrices"}
	n := 0
	for cj := 0; cj < sCols/per; cj++ {
		for ci := 0; ci < sRows/8; ci++ {
			ph := bankPhase{Label: fmt.Sprintf("core matrix %d (%d, %d)", n, ci, cj)}
			for r := 0; r < 8; r++ {
				s := 8*ci + r
				var cells []int
				first := 0
				for e := 0; e < per; e++ {
					tr, tc := s, per*cj+e
					if !alongRow {
						tr, tc = tc, tr
					}
					o := g.offsetAt(l, tr, tc)
					if e == 0 {
						first = o
					} else if o != first+e {
						return nil, fmt.Errorf("core matrix %d, row %d is not 16 contiguous bytes", n, r)
					}
					cells = append(cells, tr*g.Cols+tc)
				}
				ph.Accesses = append(ph.Accesses, bankAccess{Who: r, Addr: l.byteAddr(first), Bytes: 16, Cells: cells})
			}
			finishPhase(&ph)
			ins.Phases = append(ins.Phases, ph)
			n++
		}
	}
	return []bankInstr{ins}, nil
}

// tmaBox models a TMA load writing the tile as a box: 16-byte granules in
// the order of the box's inner dimension (the layout's contiguous one),
// 128 bytes per phase.
func tmaBox(l smemLayout, g patternGrid) ([]bankInstr, error) {
	per := max(128/l.Bits, 1)
	major := l.Major
	if g.Transpose {
		major = map[string]string{"k": "mn", "mn": "k"}[major]
	}
	if major == "" {
		return nil, fmt.Errorf("%s has no contiguous dimension for a TMA box's inner dimension", l.Name)
	}
	inner, outer := g.Cols, g.Rows
	if major == "mn" {
		inner, outer = g.Rows, g.Cols
	}
	if inner%per != 0 {
		return nil, fmt.Errorf("the box's inner extent %d is not a multiple of 16 bytes (%d elements)", inner, per)
	}
	var gran []bankAccess
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i += per {
			var cells []int
			first := 0
			for e := 0; e < per; e++ {
				r, c := o, i+e
				if major == "mn" {
					r, c = i+e, o
				}
				off := g.offsetAt(l, r, c)
				if e == 0 {
					first = off
				} else if off != first+e {
					return nil, fmt.Errorf("box line %d, elements %d-%d are not 16 contiguous bytes in shared memory", o, i, i+per-1)
				}
				cells = append(cells, r*g.Cols+c)
			}
			gran = append(gran, bankAccess{Who: len(gran), Addr: l.byteAddr(first), Bytes: 16, Cells: cells})
		}
	}
	ins := bankInstr{Label: "TMA box"}
	for p := 0; p < len(gran); p += 8 {
		end := min(p+8, len(gran))
		ph := bankPhase{Label: fmt.Sprintf("box bytes %d-%d", p*16, end*16-1), Accesses: gran[p:end]}
		finishPhase(&ph)
		ins.Phases = append(ins.Phases, ph)
	}
	return []bankInstr{ins}, nil
}

// costLine summarises instructions: "32 instructions, 32 wavefronts (ideal
// 32): conflict-free".
func costLine(ins []bankInstr) string {
	total, ideal, worst := 0, 0, 0
	for _, in := range ins {
		for _, p := range in.Phases {
			total += p.Wavefronts
			ideal++
			worst = max(worst, p.Wavefronts)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d phases, %d wavefronts (ideal %d)", ideal, total, ideal)
	if total == ideal {
		b.WriteString(": conflict-free")
	} else {
		fmt.Fprintf(&b, ": %.2fx, worst phase %d-way", float64(total)/float64(max(ideal, 1)), worst)
	}
	return b.String()
}
