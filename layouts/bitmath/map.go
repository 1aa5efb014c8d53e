package bitmath

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// Field is one integer variable of a map's domain or codomain, taking the
// values 0..Extent-1. In the F2 view it contributes Bits() bits.
type Field struct {
	Name   string // "tid", "v", "row", "col", "offset", "i"
	Extent int
}

// Bits is the number of bits needed for the values 0..Extent-1.
func (f Field) Bits() int {
	if f.Extent <= 1 {
		return 0
	}
	return bits.Len(uint(f.Extent - 1))
}

// LaneBits is the number of low thread-index bits that select the lane in a
// warp; the thread bits above them select the warp.
const LaneBits = 5

// TMEMLaneShift is where the lane field starts in a Tensor Memory address
// (lane<<16 | column).
const TMEMLaneShift = 16

// Label names bit i of the field in matrices and explanations. Thread bits
// are lane bits l0..l4 and then warp bits w0, w1, ...; value bits are v0..;
// rows r0.., columns c0.., offsets o0.., indices i0..; a TMEM address
// (taddr) has column bits C0..C15 and lane bits L0..; other fields use
// their name followed by the bit number and a dot ("lin.3").
func (f Field) Label(i int) string {
	n := strconv.Itoa(i)
	switch f.Name {
	case "tid":
		if i < LaneBits {
			return "l" + n
		}
		return "w" + strconv.Itoa(i-LaneBits)
	case "lane":
		return "l" + n
	case "wid":
		return "w" + n
	case "v", "reg":
		return "v" + n
	case "row":
		return "r" + n
	case "col":
		return "c" + n
	case "offset":
		return "o" + n
	case "i":
		return "i" + n
	case "taddr":
		if i >= TMEMLaneShift {
			return "L" + strconv.Itoa(i-TMEMLaneShift)
		}
		return "C" + n
	}
	return f.Name + "." + n
}

// Map is a function between tuples of integer fields: a thread-value
// layout (tid, v) → (row, col), a shared-memory layout (row, col) → offset,
// or a plain layout i → offset. F writes the outputs for one input tuple;
// it must be defined on the whole domain (every in[k] in 0..In[k].Extent-1).
type Map struct {
	Name string
	In   []Field
	Out  []Field
	F    func(in, out []int)
	// Swizzle, when not the identity, says that the single output is
	// Swizzle(s) of an unswizzled offset s: the derivation may then go
	// through s (named "lin") and print the swizzle as its own step.
	Swizzle layouts.Swizzle
	// Desc is a one-line description of the domain and codomain, e.g.
	// "(tid, v) -> (row, col) over a 64x256 tile".
	Desc string
	// Modes, when known, is the layout shape behind each input field (the
	// thread and value modes of a TV layout); it lets a failed F2 check
	// name an inner extent that is not a power of two.
	Modes []layouts.IntTuple
}

// MaxInputs bounds the number of inputs a Map may have, so that checking
// every input stays cheap. Callers that build a Map from user input can
// check it first.
const MaxInputs = 1 << 24

// Size is the number of inputs: the product of the input extents.
func (m Map) Size() int {
	n := 1
	for _, f := range m.In {
		n *= f.Extent
	}
	return n
}

// each calls f for every input tuple in colexicographic order (the first
// field varies fastest). The slice is reused between calls.
func (m Map) each(f func(in []int) bool) {
	in := make([]int, len(m.In))
	if m.Size() == 0 {
		return
	}
	for {
		if !f(in) {
			return
		}
		k := 0
		for ; k < len(in); k++ {
			in[k]++
			if in[k] < m.In[k].Extent {
				break
			}
			in[k] = 0
		}
		if k == len(in) {
			return
		}
	}
}

// tabulated returns m with F replaced by a lookup in a table of all its
// values, so that the several passes Derive makes evaluate the layout once.
func (m Map) tabulated() Map {
	n, k := m.Size(), len(m.Out)
	tab := make([]int, n*k)
	i := 0
	m.each(func(in []int) bool {
		m.F(in, tab[i:i+k])
		i += k
		return true
	})
	ext := make([]int, len(m.In))
	for j, f := range m.In {
		ext[j] = f.Extent
	}
	t := m
	t.F = func(in, out []int) {
		idx := 0
		for j := len(in) - 1; j >= 0; j-- {
			idx = idx*ext[j] + in[j]
		}
		copy(out, tab[idx*k:idx*k+k])
	}
	return t
}

func (m Map) validate() error {
	nin, nout := 0, 0
	for _, f := range m.In {
		if f.Extent <= 0 {
			return fmt.Errorf("%s: input %s has extent %d; it must be positive", m.Name, f.Name, f.Extent)
		}
		nin += f.Bits()
	}
	for _, f := range m.Out {
		if f.Extent <= 0 {
			return fmt.Errorf("%s: output %s has extent %d; it must be positive", m.Name, f.Name, f.Extent)
		}
		nout += f.Bits()
	}
	if nin > 62 || nout > 62 {
		return fmt.Errorf("%s: %d input bits and %d output bits; the F2 view handles at most 62 each", m.Name, nin, nout)
	}
	if m.Size() > MaxInputs {
		return fmt.Errorf("%s: %d inputs; the F2 view checks every input and handles at most %d", m.Name, m.Size(), MaxInputs)
	}
	return nil
}

// FromTV returns the map (tid, v) → (row, col) of a thread-value layout.
func FromTV(name string, tv layouts.TV) Map {
	// Flatten each mode to its leaves once: evaluating is then a short
	// mixed-radix loop (for in-range coordinates it equals tv.Index).
	type leaf struct{ shape, stride int }
	flat := func(i int) []leaf {
		sh, st := tv.Layout.Shape.Mode(i).Leaves(), tv.Layout.Stride.Mode(i).Leaves()
		ls := make([]leaf, len(sh))
		for k := range sh {
			ls[k] = leaf{sh[k], st[k]}
		}
		return ls
	}
	tl, vl := flat(0), flat(1)
	idx := func(c int, ls []leaf) int {
		s := 0
		for k, l := range ls {
			if k == len(ls)-1 {
				return s + c*l.stride
			}
			s += c % l.shape * l.stride
			c /= l.shape
		}
		return s
	}
	rows := tv.Rows
	return Map{
		Name: name,
		In:   []Field{{"tid", tv.Threads()}, {"v", tv.Values()}},
		Out:  []Field{{"row", tv.Rows}, {"col", tv.Cols}},
		F: func(in, out []int) {
			i := idx(in[0], tl) + idx(in[1], vl)
			out[0], out[1] = i%rows, i/rows
		},
		Desc:  fmt.Sprintf("(tid, v) -> (row, col): %d threads x %d values over a %dx%d tile", tv.Threads(), tv.Values(), tv.Rows, tv.Cols),
		Modes: []layouts.IntTuple{tv.Layout.Shape.Mode(0), tv.Layout.Shape.Mode(1)},
	}
}

// FromAtom returns the map of a catalog atom: (tid, v) → (row, col) for a
// thread-value atom, (row, col) → offset for a shared-memory layout and
// (row, col) → taddr for a TMEM placement.
func FromAtom(a catalog.Atom) (Map, error) {
	switch a.Kind {
	case catalog.KindTV:
		return FromTV(a.Name, a.TV), nil
	case catalog.KindSMEM:
		return FromOffsets(a.Name, a.Rows, a.Cols, a.Offsets)
	case catalog.KindTMEM:
		return FromTMEM(a.Name, a.Rows, a.Cols, a.Offsets)
	}
	return Map{}, fmt.Errorf("atom %s: kind %v has no F2 view", a.Name, a.Kind)
}

// FromTVLayout returns the map (tid, v) → (row, col) of plain layout l
// read as a thread-value layout over a rows × cols tile: FromTV of
// layouts.NewTV, except that a layout with more (thread, value) pairs than
// MaxInputs is refused before NewTV visits them all.
func FromTVLayout(name string, l layouts.Layout, rows, cols int) (Map, error) {
	if l.Rank() == 2 {
		threads, errT := layouts.SizeOf(l.Shape.Mode(0))
		values, errV := layouts.SizeOf(l.Shape.Mode(1))
		switch {
		case errT == nil && errV == nil && (threads == 0 || values == 0):
			return Map{}, fmt.Errorf("%s: needs at least one thread and one value", name)
		case errT != nil || errV != nil || threads > MaxInputs/values:
			return Map{}, fmt.Errorf("%s: more (thread, value) pairs than the %d the F2 view checks", name, MaxInputs)
		}
	}
	tv, err := layouts.NewTV(l, rows, cols)
	if err != nil {
		return Map{}, err
	}
	return FromTV(name, tv), nil
}

// FromOffsets returns the map (row, col) → offset of a shared-memory layout
// given, as in the catalog, over the column-major tile index row+rows*col.
func FromOffsets(name string, rows, cols int, off layouts.AnyLayout) (Map, error) {
	if rows <= 0 || cols <= 0 {
		return Map{}, fmt.Errorf("%s: tile %dx%d must be non-empty", name, rows, cols)
	}
	m := Map{
		Name: name,
		In:   []Field{{"row", rows}, {"col", cols}},
		F:    func(in, out []int) { out[0] = off.Eval(in[0] + rows*in[1]) },
		Desc: fmt.Sprintf("(row, col) -> offset over a %dx%d tile", rows, cols),
	}
	if off.Composed {
		m.Swizzle = off.C.Swizzle
	}
	return finishOffsetMap(m)
}

// FromTMEM returns the map (row, col) → taddr of a Tensor Memory
// accumulator placement given, as in the catalog, over the column-major
// tile index: taddr is the address lane<<16 | column relative to the
// accumulator's base.
func FromTMEM(name string, rows, cols int, addr layouts.AnyLayout) (Map, error) {
	m, err := FromOffsets(name, rows, cols, addr)
	if err != nil {
		return Map{}, err
	}
	m.Out[0].Name = "taddr"
	m.Desc = fmt.Sprintf("(row, col) -> taddr (TMEM address lane<<16 | column) over a %dx%d tile", rows, cols)
	return m, nil
}

// FromLayout returns the F2-viewable map of a plain or swizzled layout. With
// coords set and a rank-2 layout, the inputs are its two coordinates (row,
// col), the way shared-memory tiles are read; otherwise the input is the
// linear index i.
func FromLayout(name string, a layouts.AnyLayout, coords bool) (Map, error) {
	inner := a.Inner()
	for _, v := range inner.Shape.Leaves() {
		if v <= 0 {
			return Map{}, fmt.Errorf("%s: shape %v has an empty mode", name, inner.Shape)
		}
	}
	if n, err := layouts.SizeOf(inner.Shape); err != nil || n > MaxInputs {
		return Map{}, fmt.Errorf("%s: more than %d inputs; the F2 view checks every input and handles at most %d", name, MaxInputs, MaxInputs)
	}
	if coords && inner.Rank() == 2 {
		rows, cols := inner.Shape.Mode(0).Product(), inner.Shape.Mode(1).Product()
		m := Map{
			Name:  name,
			In:    []Field{{"row", rows}, {"col", cols}},
			F:     func(in, out []int) { out[0] = a.Eval(in[0] + rows*in[1]) },
			Desc:  fmt.Sprintf("(row, col) -> offset: coordinates of the %dx%d shape to offsets", rows, cols),
			Modes: []layouts.IntTuple{inner.Shape.Mode(0), inner.Shape.Mode(1)},
		}
		if a.Composed {
			m.Swizzle = a.C.Swizzle
		}
		return finishOffsetMap(m)
	}
	n := inner.Size()
	m := Map{
		Name:  name,
		In:    []Field{{"i", n}},
		F:     func(in, out []int) { out[0] = a.Eval(in[0]) },
		Desc:  fmt.Sprintf("i -> offset: linear index 0..%d to offsets", n-1),
		Modes: []layouts.IntTuple{inner.Shape},
	}
	if a.Composed {
		m.Swizzle = a.C.Swizzle
	}
	return finishOffsetMap(m)
}

// finishOffsetMap sets the single output field "offset" from the largest
// offset the map produces, and rejects negative offsets.
func finishOffsetMap(m Map) (Map, error) {
	m.Out = []Field{{"offset", 1}}
	if err := m.validate(); err != nil {
		return Map{}, err
	}
	hi := 0
	out := []int{0}
	var bad error
	m.each(func(in []int) bool {
		m.F(in, out)
		if out[0] < 0 {
			bad = fmt.Errorf("%s: input %s maps to the negative offset %d; the F2 view needs offsets >= 0", m.Name, fmtTuple(m.In, in), out[0])
			return false
		}
		hi = max(hi, out[0])
		return true
	})
	if bad != nil {
		return Map{}, bad
	}
	if hi >= 1<<62 {
		return Map{}, fmt.Errorf("%s: offset %d needs more than 62 bits", m.Name, hi)
	}
	m.Out[0].Extent = hi + 1
	return m, nil
}

func fmtTuple(fs []Field, v []int) string {
	s := ""
	for k := range fs {
		if k > 0 {
			s += ", "
		}
		s += fs[k].Name + "=" + strconv.Itoa(v[k])
	}
	return s
}

func fieldNames(fs []Field) string {
	s := ""
	for k, f := range fs {
		if k > 0 {
			s += ", "
		}
		s += f.Name
	}
	if len(fs) == 1 {
		return s
	}
	return "(" + s + ")"
}
