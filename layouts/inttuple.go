package layouts

import (
	"strconv"
	"strings"
)

// IntTuple is CuTe's hierarchical integer: either a single integer (a leaf)
// or a tuple of IntTuples. The zero value is the empty tuple "()".
//
// IntTuples are immutable values; operations return new tuples and never
// modify their arguments.
type IntTuple struct {
	leaf  bool
	v     int
	modes []IntTuple
}

// Int returns the leaf IntTuple holding v.
func Int(v int) IntTuple { return IntTuple{leaf: true, v: v} }

// Tuple returns the tuple whose modes are ts.
func Tuple(ts ...IntTuple) IntTuple {
	return IntTuple{modes: append([]IntTuple(nil), ts...)}
}

// Ints returns the flat tuple of leaves vs, e.g. Ints(4, 8) is (4,8).
func Ints(vs ...int) IntTuple {
	t := IntTuple{modes: make([]IntTuple, len(vs))}
	for i, v := range vs {
		t.modes[i] = Int(v)
	}
	return t
}

// IsInt reports whether t is a leaf integer.
func (t IntTuple) IsInt() bool { return t.leaf }

// Value returns the integer of a leaf. For a tuple it returns the product of
// its leaves, which is the value CuTe's size() gives; use IsInt to tell the
// two apart.
func (t IntTuple) Value() int {
	if t.leaf {
		return t.v
	}
	return t.Product()
}

// Rank is the number of top-level modes: 1 for a leaf.
func (t IntTuple) Rank() int {
	if t.leaf {
		return 1
	}
	return len(t.modes)
}

// Depth is 0 for a leaf and 1 + the largest depth of its modes for a tuple
// (the empty tuple has depth 1), as in CuTe.
func (t IntTuple) Depth() int {
	if t.leaf {
		return 0
	}
	d := 0
	for _, m := range t.modes {
		d = max(d, m.Depth())
	}
	return 1 + d
}

// Mode returns mode i. A leaf has one mode, itself. The caller must keep
// 0 <= i < Rank().
func (t IntTuple) Mode(i int) IntTuple {
	if t.leaf {
		return t
	}
	return t.modes[i]
}

// Modes returns a copy of the top-level modes; a leaf yields itself.
func (t IntTuple) Modes() []IntTuple {
	if t.leaf {
		return []IntTuple{t}
	}
	return append([]IntTuple(nil), t.modes...)
}

// Product is the product of all leaves (1 for the empty tuple).
func (t IntTuple) Product() int {
	if t.leaf {
		return t.v
	}
	p := 1
	for _, m := range t.modes {
		p *= m.Product()
	}
	return p
}

// Sum is the sum of all leaves (0 for the empty tuple).
func (t IntTuple) Sum() int {
	if t.leaf {
		return t.v
	}
	s := 0
	for _, m := range t.modes {
		s += m.Sum()
	}
	return s
}

// Leaves returns the leaves of t in order (depth-first, left to right).
func (t IntTuple) Leaves() []int {
	var out []int
	t.walk(func(v int) { out = append(out, v) })
	return out
}

func (t IntTuple) walk(f func(int)) {
	if t.leaf {
		f(t.v)
		return
	}
	for _, m := range t.modes {
		m.walk(f)
	}
}

// Flatten returns the flat tuple of t's leaves. A leaf stays a leaf, as in
// CuTe's flatten.
func (t IntTuple) Flatten() IntTuple {
	if t.leaf {
		return t
	}
	return Ints(t.Leaves()...)
}

// Equal reports whether t and u have the same structure and values.
func (t IntTuple) Equal(u IntTuple) bool {
	if t.leaf != u.leaf {
		return false
	}
	if t.leaf {
		return t.v == u.v
	}
	if len(t.modes) != len(u.modes) {
		return false
	}
	for i := range t.modes {
		if !t.modes[i].Equal(u.modes[i]) {
			return false
		}
	}
	return true
}

// Congruent reports whether t and u have the same hierarchical structure
// (the same profile), regardless of values.
func (t IntTuple) Congruent(u IntTuple) bool {
	if t.leaf || u.leaf {
		return t.leaf == u.leaf
	}
	if len(t.modes) != len(u.modes) {
		return false
	}
	for i := range t.modes {
		if !t.modes[i].Congruent(u.modes[i]) {
			return false
		}
	}
	return true
}

// Weakly reports whether t is weakly congruent to u: every leaf of t lies
// where u has a leaf or a whole subtree (CuTe's weakly_congruent).
func (t IntTuple) Weakly(u IntTuple) bool {
	if t.leaf {
		return true
	}
	if u.leaf || len(t.modes) != len(u.modes) {
		return false
	}
	for i := range t.modes {
		if !t.modes[i].Weakly(u.modes[i]) {
			return false
		}
	}
	return true
}

// Map applies f to every leaf and returns a tuple of the same structure.
func (t IntTuple) Map(f func(int) int) IntTuple {
	if t.leaf {
		return Int(f(t.v))
	}
	out := IntTuple{modes: make([]IntTuple, len(t.modes))}
	for i, m := range t.modes {
		out.modes[i] = m.Map(f)
	}
	return out
}

// Unflatten rebuilds the structure of profile from the flat leaves vs. It is
// the inverse of Flatten: Unflatten(t.Leaves(), t) equals t.
func Unflatten(vs []int, profile IntTuple) IntTuple {
	i := 0
	return profile.Map(func(int) int { v := vs[i]; i++; return v })
}

// String prints t in CuTe notation: "8" for a leaf, "(4,(2,2))" for tuples.
func (t IntTuple) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t IntTuple) write(b *strings.Builder) {
	if t.leaf {
		b.WriteString(strconv.Itoa(t.v))
		return
	}
	b.WriteByte('(')
	for i, m := range t.modes {
		if i > 0 {
			b.WriteByte(',')
		}
		m.write(b)
	}
	b.WriteByte(')')
}

// PrefixProduct returns the exclusive prefix products of t, with the same
// structure: the compact column-major ("LayoutLeft") strides of shape t.
func PrefixProduct(t IntTuple) IntTuple {
	acc := 1
	return t.Map(func(v int) int { r := acc; acc *= v; return r })
}

// SuffixProduct returns the compact row-major ("LayoutRight") strides of
// shape t: each leaf's stride is the product of the leaves after it.
func SuffixProduct(t IntTuple) IntTuple {
	leaves := t.Leaves()
	st := make([]int, len(leaves))
	acc := 1
	for i := len(leaves) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= leaves[i]
	}
	return Unflatten(st, t)
}
