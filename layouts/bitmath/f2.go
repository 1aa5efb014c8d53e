package bitmath

import (
	"fmt"
	"math/bits"
	"strings"
)

// Matrix is an affine map over F2 from the bits of In to the bits of Out:
// y = M·x ⊕ Const. Input bit j is bit j of the concatenation of the input
// fields (the first field's bits lowest); output bits likewise. Cols[j] is
// the image of input bit j as a set of output bits.
type Matrix struct {
	In, Out []Field
	Cols    []uint64
	Const   uint64
}

// NIn is the number of input bits (columns).
func (m Matrix) NIn() int { return len(m.Cols) }

// NOut is the number of output bits (rows).
func (m Matrix) NOut() int { return totalBits(m.Out) }

func totalBits(fs []Field) int {
	n := 0
	for _, f := range fs {
		n += f.Bits()
	}
	return n
}

// Apply maps the input bit vector x.
func (m Matrix) Apply(x uint64) uint64 {
	y := m.Const
	for x != 0 {
		j := bits.TrailingZeros64(x)
		y ^= m.Cols[j]
		x &= x - 1
	}
	return y
}

// Row returns output bit o as the set of input bits XORed into it.
func (m Matrix) Row(o int) uint64 {
	var r uint64
	for j, c := range m.Cols {
		if c>>o&1 == 1 {
			r |= 1 << j
		}
	}
	return r
}

// InLabel names input bit j ("l3").
func (m Matrix) InLabel(j int) string { return bitLabel(m.In, j) }

// OutLabel names output bit o ("c0").
func (m Matrix) OutLabel(o int) string { return bitLabel(m.Out, o) }

func bitLabel(fs []Field, b int) string {
	for _, f := range fs {
		if b < f.Bits() {
			return f.Label(b)
		}
		b -= f.Bits()
	}
	return fmt.Sprintf("?%d", b)
}

// pack concatenates field values into a bit vector; unpack splits one.
func pack(fs []Field, v []int) uint64 {
	var x uint64
	sh := 0
	for k, f := range fs {
		x |= uint64(v[k]) << sh
		sh += f.Bits()
	}
	return x
}

func unpack(fs []Field, x uint64, v []int) {
	sh := 0
	for k, f := range fs {
		v[k] = int(x >> sh & (1<<f.Bits() - 1))
		sh += f.Bits()
	}
}

// NonLinearError reports that a map is not affine over F2: at Input, the
// map's value differs from the XOR of the images of the input's bits.
type NonLinearError struct {
	Map       string
	In, Out   []Field
	Input     []int // the first input (fewest bits set) where the map is not XOR-linear
	Want      []int // what the map gives there
	Predicted []int // what XOR-combining the single-bit images gives
	Reason    string
}

// Error says where the map stops being linear and why.
func (e *NonLinearError) Error() string {
	return fmt.Sprintf("%s is not linear over F2: at %s it gives %s, but XOR-combining its bits' images gives %s: %s",
		e.Map, fmtTuple(e.In, e.Input), fmtTuple(e.Out, e.Want), fmtTuple(e.Out, e.Predicted), e.Reason)
}

// Analyze builds the F2 matrix of m and checks it on every input. Each
// input field's bits are probed by the single-bit inputs (which always lie
// in the domain, even when an extent is not a power of two), the image of
// zero gives the constant, and then every input of the domain is checked
// against the XOR of its bits' images. A map with carries (overlapping
// strides), a modulus that is not a power of two, or any other non-XOR
// structure fails with a *NonLinearError that shows the smallest
// counterexample and why.
func Analyze(m Map) (Matrix, error) {
	if err := m.validate(); err != nil {
		return Matrix{}, err
	}
	mat := Matrix{In: m.In, Out: m.Out}
	nin := totalBits(m.In)
	mat.Cols = make([]uint64, nin)
	in := make([]int, len(m.In))
	out := make([]int, len(m.Out))
	eval := func() (uint64, error) {
		m.F(in, out)
		for k, f := range m.Out {
			if out[k] < 0 || out[k] >= f.Extent {
				return 0, fmt.Errorf("%s: input %s gives %s, outside %s's range 0..%d", m.Name, fmtTuple(m.In, in), fmtTuple(m.Out, out), f.Name, f.Extent-1)
			}
		}
		return pack(m.Out, out), nil
	}
	var err error
	if mat.Const, err = eval(); err != nil {
		return Matrix{}, err
	}
	j := 0
	for k, f := range m.In {
		for b := 0; b < f.Bits(); b++ {
			clear(in)
			in[k] = 1 << b
			y, err := eval()
			if err != nil {
				return Matrix{}, err
			}
			mat.Cols[j] = y ^ mat.Const
			j++
		}
	}
	// Check every input; keep the counterexample with the fewest bits set
	// (then the smallest), since it is the easiest to explain.
	var bad uint64
	badPop := 65
	var checkErr error
	m.each(func(v []int) bool {
		copy(in, v)
		y, err := eval()
		if err != nil {
			checkErr = err
			return false
		}
		x := pack(m.In, v)
		if y != mat.Apply(x) {
			if p := bits.OnesCount64(x); p < badPop {
				bad, badPop = x, p
			}
		}
		return true
	})
	if checkErr != nil {
		return Matrix{}, checkErr
	}
	if badPop < 65 {
		return Matrix{}, mat.nonLinear(m, bad)
	}
	return mat, nil
}

func (mat Matrix) nonLinear(m Map, x uint64) *NonLinearError {
	e := &NonLinearError{Map: m.Name, In: m.In, Out: m.Out,
		Input: make([]int, len(m.In)), Want: make([]int, len(m.Out)), Predicted: make([]int, len(m.Out))}
	unpack(m.In, x, e.Input)
	m.F(e.Input, e.Want)
	unpack(m.Out, mat.Apply(x), e.Predicted)
	// Name the input bits involved and their images.
	var parts []string
	var seen uint64
	overlap := false
	for y := x; y != 0; y &= y - 1 {
		j := bits.TrailingZeros64(y)
		parts = append(parts, fmt.Sprintf("%s -> %s", mat.InLabel(j), mat.bitSet(mat.Cols[j])))
		if seen&mat.Cols[j] != 0 {
			overlap = true
		}
		seen |= mat.Cols[j]
	}
	switch {
	case mixedRadix(m) != "":
		e.Reason = mixedRadix(m)
	case overlap:
		e.Reason = fmt.Sprintf("the images of its bits overlap (%s), so adding them carries where XOR would not; the layout's strides are not bit-disjoint",
			strings.Join(parts, "; "))
	case bits.OnesCount64(x) == 1:
		e.Reason = "the map is not affine: even a single bit's image depends on the other inputs"
	default:
		e.Reason = fmt.Sprintf("the images of its bits (%s) do not combine by XOR; usually an extent or modulus that is not a power of two mixes the bits",
			strings.Join(parts, "; "))
	}
	return e
}

// mixedRadix explains a failure caused by an inner mode extent that is not
// a power of two: the bits of that input then mix its coordinates.
func mixedRadix(m Map) string {
	for k, mode := range m.Modes {
		if k >= len(m.In) {
			break
		}
		ls := mode.Leaves()
		for i, v := range ls[:max(len(ls)-1, 0)] {
			if v > 0 && v&(v-1) != 0 {
				return fmt.Sprintf("%s's mode %v has the inner extent %d (leaf %d), which is not a power of two, so the bits of %s mix its coordinates (only a mode's last extent may be other than a power of two)",
					m.In[k].Name, mode, v, i, m.In[k].Name)
			}
		}
	}
	return ""
}

// bitSet prints a set of output bits as labels, "{r0 c3}", or "0".
func (m Matrix) bitSet(y uint64) string {
	if y == 0 {
		return "0"
	}
	var ls []string
	for ; y != 0; y &= y - 1 {
		ls = append(ls, m.OutLabel(bits.TrailingZeros64(y)))
	}
	if len(ls) == 1 {
		return ls[0]
	}
	return "{" + strings.Join(ls, " ") + "}"
}

// inSet prints a set of input bits as labels.
func (m Matrix) inSet(x uint64) string {
	var ls []string
	for ; x != 0; x &= x - 1 {
		ls = append(ls, m.InLabel(bits.TrailingZeros64(x)))
	}
	return strings.Join(ls, " ^ ")
}

// echelon is the reduced row echelon form R = E·M of a matrix, with the
// row operations E that produced it.
type echelon struct {
	rows  []uint64 // R: rows over input bits
	ops   []uint64 // E: rows over output bits
	pivot []int    // pivot column of row r, for r < rank
}

func (m Matrix) reduce() echelon {
	n := m.NOut()
	e := echelon{rows: make([]uint64, n), ops: make([]uint64, n)}
	for o := range n {
		e.rows[o] = m.Row(o)
		e.ops[o] = 1 << o
	}
	r := 0
	for j := 0; j < m.NIn() && r < n; j++ {
		p := -1
		for i := r; i < n; i++ {
			if e.rows[i]>>j&1 == 1 {
				p = i
				break
			}
		}
		if p < 0 {
			continue
		}
		e.rows[r], e.rows[p] = e.rows[p], e.rows[r]
		e.ops[r], e.ops[p] = e.ops[p], e.ops[r]
		for i := range n {
			if i != r && e.rows[i]>>j&1 == 1 {
				e.rows[i] ^= e.rows[r]
				e.ops[i] ^= e.ops[r]
			}
		}
		e.pivot = append(e.pivot, j)
		r++
	}
	return e
}

// Rank is the rank of the linear part over F2.
func (m Matrix) Rank() int { return len(m.reduce().pivot) }

// Kernel returns a basis of the input combinations that do not move the
// output: the broadcast directions. Each vector is a set of input bits; a
// vector with one bit is an input bit the layout ignores entirely.
func (m Matrix) Kernel() []uint64 {
	e := m.reduce()
	isPivot := uint64(0)
	for _, j := range e.pivot {
		isPivot |= 1 << j
	}
	var ker []uint64
	for f := 0; f < m.NIn(); f++ {
		if isPivot>>f&1 == 1 {
			continue
		}
		x := uint64(1) << f
		for r, j := range e.pivot {
			if e.rows[r]>>f&1 == 1 {
				x |= 1 << j
			}
		}
		ker = append(ker, x)
	}
	return ker
}

// Constraints returns the linear conditions that describe the image: y is
// an output of the map exactly when, for every returned set c of output
// bits, the XOR of the bits of y⊕Const in c is 0. None are returned when the
// map reaches every output bit pattern.
func (m Matrix) Constraints() []uint64 {
	e := m.reduce()
	return append([]uint64(nil), e.ops[len(e.pivot):]...)
}

// InverseKind tells which inverse a Matrix has.
type InverseKind int

const (
	// Bijective: the inverse is two-sided.
	Bijective InverseKind = iota
	// LeftInverse: the map is one-to-one but misses some outputs; the
	// inverse is exact on the image (cells nobody owns have no preimage).
	LeftInverse
	// RightInverse: every output is reached, by several inputs (a
	// broadcast); the inverse picks one of them.
	RightInverse
	// Generalized: both at once; the inverse picks one owner of each cell
	// in the image.
	Generalized
)

// String describes the kind, e.g. "one-to-one (left inverse)".
func (k InverseKind) String() string {
	names := [...]string{"bijective", "one-to-one (left inverse)", "onto with broadcast (right inverse)", "neither one-to-one nor onto (generalized inverse)"}
	if k < 0 || int(k) >= len(names) {
		return fmt.Sprintf("InverseKind(%d)", int(k))
	}
	return names[k]
}

// Inverse is the affine map back from output bits to input bits: x =
// M·(y ⊕ yconst). For outputs in the image it returns an input that maps to
// them (the one with every Free input bit zero).
type Inverse struct {
	Kind InverseKind
	// M maps output bits to input bits: In and Out are swapped.
	M Matrix
	// Free is the set of input bits that the inverse sets to zero; with
	// Kernel, they describe the other owners of a broadcast cell.
	Free        uint64
	Kernel      []uint64
	Constraints []uint64
}

// Invert computes the inverse by Gaussian elimination over F2: a two-sided
// inverse for a bijection, otherwise the one-sided or generalized inverse
// that InverseKind describes.
func (m Matrix) Invert() Inverse {
	e := m.reduce()
	inv := Inverse{M: Matrix{In: m.Out, Out: m.In, Cols: make([]uint64, m.NOut())}}
	// x[pivot r] = (E·y)[r]: output bit o feeds x[pivot r] when E[r] has o.
	for r, j := range e.pivot {
		for y := e.ops[r]; y != 0; y &= y - 1 {
			inv.M.Cols[bits.TrailingZeros64(y)] |= 1 << j
		}
	}
	// The constant: x = G·(y ⊕ c) = G·y ⊕ G·c (Apply sees Const = 0 here).
	inv.M.Const = inv.M.Apply(m.Const)
	var piv uint64
	for _, j := range e.pivot {
		piv |= 1 << j
	}
	inv.Free = (uint64(1)<<m.NIn() - 1) &^ piv
	inv.Kernel = m.Kernel()
	inv.Constraints = m.Constraints()
	switch full, onto := len(e.pivot) == m.NIn(), len(e.pivot) == m.NOut(); {
	case full && onto:
		inv.Kind = Bijective
	case full:
		inv.Kind = LeftInverse
	case onto:
		inv.Kind = RightInverse
	default:
		inv.Kind = Generalized
	}
	return inv
}
