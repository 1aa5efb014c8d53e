package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// MMAOperands finds the A, B and C atoms of one MMA instruction. spec is
// either a catalog atom (one operand, kept as given) or FAMILY.SHAPE[.PREF...]
// with SHAPE a full PTX shape such as m16n8k16, e.g. mma.sync.m16n8k16 or
// wgmma.m64n128k16.f16. The three atoms are of one family, serve a common
// PTX shape (Atom.Shapes) and have tiles that fit (A is MxK, B is NxK or
// KxN, C is MxN). Among several such triples the one whose names share the
// most dot-separated parts with spec wins, then the one with register (not
// whole-warpgroup broadcast) operands, then the one whose A and B share the
// most parts (the same element type), then catalog order.
func MMAOperands(spec string) (a, b, c Atom, err error) {
	spec = strings.ToLower(strings.TrimSpace(spec))
	family, shape := "", ""
	fixed := map[string]Atom{}
	if given, lerr := Lookup(spec); lerr == nil {
		op := OperandOf(given)
		if op == "" {
			return a, b, c, fmt.Errorf("atom %s is not an MMA operand; give an instruction shape (e.g. mma.sync.m16n8k16) or three atoms A B C", given.Name)
		}
		family = given.Family
		fixed[op] = given
	} else {
		for _, x := range All() {
			if strings.HasPrefix(spec, x.Family+".") && len(x.Family) > len(family) {
				family = x.Family
			}
		}
		if family == "" {
			return a, b, c, fmt.Errorf("%q is neither an atom nor FAMILY.SHAPE (e.g. mma.sync.m16n8k16, wgmma.m64n128k16): %v", spec, lerr)
		}
		shape, _, _ = strings.Cut(strings.TrimPrefix(spec, family+"."), ".")
	}
	byOp := map[string][]Atom{}
	for _, x := range All() {
		if op := OperandOf(x); op != "" && x.Family == family && (shape == "" || slices.Contains(x.Shapes, shape)) {
			byOp[op] = append(byOp[op], x)
		}
	}
	for op, x := range fixed {
		byOp[op] = []Atom{x}
	}
	best := [3]int{-1, -1 << 30, -1}
	for _, ca := range byOp["A"] {
		for _, cb := range byOp["B"] {
			for _, cc := range byOp["C"] {
				m, k, n := ca.Rows, ca.Cols, cc.Cols
				if cc.Rows != m || !(cb.Rows == k && cb.Cols == n || cb.Rows == n && cb.Cols == k) || !commonShape(ca, cb, cc) {
					continue
				}
				score := [3]int{
					sharedParts(spec, ca.Name) + sharedParts(spec, cb.Name) + sharedParts(spec, cc.Name),
					-max(ca.Broadcast, 1) - max(cb.Broadcast, 1),
					sharedParts(ca.Name, cb.Name),
				}
				if better(score, best) {
					best = score
					a, b, c = ca, cb, cc
				}
			}
		}
	}
	if best[0] < 0 {
		what := spec
		if shape != "" {
			what = family + " " + shape
		}
		return a, b, c, fmt.Errorf("the catalog has no A, B and C atoms that fit together for %s; give three atoms A B C", what)
	}
	return a, b, c, nil
}

// OperandOf returns "A", "B" or "C" (accumulators, also written "D") for
// an MMA operand atom, or "" for atoms that are no MMA operand.
func OperandOf(x Atom) string {
	switch op := strings.ToUpper(x.Operand); op {
	case "A", "B", "C":
		return op
	case "D":
		return "C"
	}
	return ""
}

func better(x, y [3]int) bool {
	for i := range x {
		if x[i] != y[i] {
			return x[i] > y[i]
		}
	}
	return false
}

// commonShape reports whether the three atoms serve one PTX shape; atoms
// that list no shapes are not constrained.
func commonShape(xs ...Atom) bool {
	for _, x := range xs {
		if len(x.Shapes) == 0 {
			return true
		}
	}
	for _, s := range xs[0].Shapes {
		if slices.Contains(xs[1].Shapes, s) && slices.Contains(xs[2].Shapes, s) {
			return true
		}
	}
	return false
}

// sharedParts counts the dot-separated parts two names have in common.
func sharedParts(x, y string) int {
	set := map[string]bool{}
	for _, p := range strings.Split(x, ".") {
		set[p] = true
	}
	n := 0
	for _, p := range strings.Split(y, ".") {
		if set[p] {
			n++
			delete(set, p)
		}
	}
	return n
}
