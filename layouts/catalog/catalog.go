// Package catalog is tcsim's catalog of named thread-value layouts: the
// register fragments of wgmma, mma.sync, ldmatrix/stmatrix and tcgen05, the
// TMEM accumulator placements, and the canonical shared-memory layouts.
//
// Every atom names the PTX ISA section that defines it, its thread and value
// counts, and whether real hardware has confirmed it.
package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/layouts"
)

// Kind tells what an atom maps.
type Kind int

const (
	// KindTV atoms map (thread, value) to a tile cell: register fragments.
	KindTV Kind = iota
	// KindSMEM atoms map a tile cell to an element offset in shared memory:
	// the canonical (possibly swizzled) operand layouts.
	KindSMEM
)

// Atom is one named layout.
type Atom struct {
	Name    string // unique, lower case, dot separated; the name users type
	Family  string // "wgmma", "mma.sync", "ldmatrix", "stmatrix", "tcgen05", "smem"
	Arch    string // the earliest target that has it: "sm_80", "sm_90a", "sm_100a"
	Section string // PTX ISA section (ISA 9.1 numbering), e.g. "9.7.15.5.1"
	Summary string // one line for listings
	Operand string // "A", "B", "C" (accumulator/D), or "" where it does not apply

	Kind       Kind
	Rows, Cols int    // the tile
	RowName    string // axis names, e.g. "m", "k", "lane", "row"
	ColName    string // e.g. "n", "k", "col", "byte"
	ElemBits   int    // bits of one value
	ValsPerReg int    // values packed in one 32-bit register (1, 2, 4 or 8); 0 for KindSMEM

	// TV is the thread-value layout (KindTV).
	TV layouts.TV
	// Offsets maps the column-major tile index row+Rows*col to the element
	// offset in shared memory (KindSMEM).
	Offsets layouts.AnyLayout

	// Verified says what real hardware has confirmed: "" when nothing
	// has, otherwise a short provenance such as "H100, fixtures/layouts".
	Verified string
	// NeedsArch is set where this machine cannot verify the atom (e.g.
	// tcgen05 atoms need sm_100a).
	NeedsArch string
	Notes     string
}

// Threads is the number of threads (0 for KindSMEM).
func (a Atom) Threads() int {
	if a.Kind != KindTV {
		return 0
	}
	return a.TV.Threads()
}

// Values is the number of values per thread (for KindSMEM, the tile size).
func (a Atom) Values() int {
	if a.Kind != KindTV {
		return a.Rows * a.Cols
	}
	return a.TV.Values()
}

var (
	once  sync.Once
	atoms []Atom
	index map[string]int
)

// builders add atoms to the catalog; each family's file appends one.
var builders []func(add func(Atom))

func load() {
	once.Do(func() {
		index = map[string]int{}
		for _, b := range builders {
			b(func(a Atom) {
				if _, dup := index[a.Name]; dup {
					panic("catalog: duplicate atom " + a.Name)
				}
				index[a.Name] = len(atoms)
				atoms = append(atoms, a)
			})
		}
	})
}

// All returns every atom, in catalog order.
func All() []Atom {
	load()
	return append([]Atom(nil), atoms...)
}

// Lookup returns the atom named name (case-insensitive). The error for an
// unknown name lists the nearest names.
func Lookup(name string) (Atom, error) {
	load()
	if i, ok := index[strings.ToLower(strings.TrimSpace(name))]; ok {
		return atoms[i], nil
	}
	near := Nearest(name, 5)
	if len(near) == 0 {
		return Atom{}, fmt.Errorf("unknown atom %q (see 'tcsim atoms')", name)
	}
	return Atom{}, fmt.Errorf("unknown atom %q; nearest: %s", name, strings.Join(near, ", "))
}

// Filter returns the atoms matching query: every blank-separated word of
// the query must occur in the atom's name, family, operand or summary
// (case-insensitive). An empty query matches everything.
func Filter(query string) []Atom {
	load()
	words := strings.Fields(strings.ToLower(query))
	var out []Atom
	for _, a := range atoms {
		hay := strings.ToLower(a.Name + " " + a.Family + " " + a.Operand + " " + a.Summary + " " + a.Arch)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, a)
		}
	}
	return out
}

// Nearest returns up to n atom names closest to name by edit distance.
func Nearest(name string, n int) []string {
	load()
	name = strings.ToLower(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, a := range atoms {
		cs = append(cs, cand{a.Name, editDistance(name, a.Name)})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		if cs[i].d <= max(3, len(name)/2) {
			out = append(out, cs[i].name)
		}
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
