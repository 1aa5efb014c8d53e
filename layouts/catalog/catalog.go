// Package catalog is tcsim's catalog of named thread-value layouts: the
// register fragments of wgmma, mma.sync, ldmatrix/stmatrix and tcgen05, the
// TMEM accumulator placements, and the canonical shared-memory layouts.
//
// Every atom names the PTX ISA section that defines it (ISA 9.1 numbering),
// its architecture, its thread and value counts, its element width and how
// many values share a 32-bit register, and whether real hardware has
// confirmed it. Each layout was derived from the ISA's fragment figures and
// formulas and cross-checked against CuTe's definitions (see the tests).
//
// # Names
//
// Names are lower case and dot separated, always in this order:
//
//		family.shape.operand[.source].type[.variant]
//
//	  - family: wgmma, mma.sync, ldmatrix, stmatrix, tcgen05 or smem.
//	  - shape: PTX shape tokens, keeping only the dimensions the layout
//	    depends on: m64n64 (a wgmma accumulator depends on N, not K), m64k16
//	    (wgmma A), n64k16 (wgmma B), m16n8, m16k16, n8k16 (mma.sync), m8n8.x4
//	    (ldmatrix/stmatrix with .num), 32x32b.x8 (tcgen05.ld/st shape and
//	    .num), tmem.m64n128 (TMEM accumulator placement). The full PTX shapes
//	    an atom serves (m64n64k16, m64n64k8, ...) are listed in Atom.Shapes,
//	    and the filter searches them too, so "m64n64k16" finds A, B and D.
//	  - operand: a, b or d (the accumulator; PTX names the accumulator
//	    operand d in mma, wgmma and tcgen05.mma). Atom.Operand says "C" for
//	    accumulators, as CuTe does.
//	  - source (wgmma A and B only): reg (registers) or smem (descriptor).
//	  - type: f32, f16, s32 for accumulators; b16 (f16/bf16), tf32, b8
//	    (e4m3/e5m2/s8/u8), b4 for operands; b16 for ldmatrix/stmatrix.
//	  - variant: trans (ldmatrix/stmatrix .trans); cta1, cta2, ws (TMEM
//	    placements).
//
// Shared-memory atoms read smem.major.swizzle.bBITS: major is k or mn,
// swizzle is inter (no swizzle), sw32, sw64, sw128 or sw128a32 (128-byte
// swizzle with 32-byte atomicity, tcgen05 only), e.g. smem.k.sw128.b16.
//
// Examples: wgmma.m64n64.d.f32, wgmma.m64k16.a.reg.b16,
// wgmma.n128k16.b.smem.b16, mma.sync.m16k16.a.b16, mma.sync.m16n8.d.f32,
// ldmatrix.m8n8.x4.trans.b16, tcgen05.16x256b.x4,
// tcgen05.tmem.m64n128.cta1, smem.mn.sw64.b16.
//
// # Tiles
//
// A thread-value atom (KindTV) maps (thread, value) to a cell of a
// Rows×Cols tile, indexed column-major (row + Rows*col) as CuTe does. Tiles
// follow CuTe's operand orientation: A is M×K, B is N×K, the accumulator is
// M×N. Value v of a thread is the v-th element in the ISA's "low to high"
// order; with ValsPerReg > 1, value v sits in register v/ValsPerReg.
//
// A shared-memory atom (KindSMEM) maps a tile cell (MN×K) to an element
// offset. The hardware swizzles byte addresses in 16-byte granules (CuTe
// prints this as e.g. Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1),
// the swizzle acting on the byte address); the catalog stores the exact
// equivalent in element units, with the swizzle rescaled (Sw<3,3,3> for
// 16-bit elements), and gives CuTe's byte form in Atom.CuTe.
//
// A TMEM atom (KindTMEM) maps an accumulator cell (M×N) to a Tensor Memory
// address relative to the accumulator's base, in the ISA's 32-bit address
// format: lane<<16 | column.
package catalog

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/internal/suggest"
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
	// KindTMEM atoms map an accumulator cell (m, n) to a Tensor Memory
	// address relative to the accumulator's base address: lane<<16 |
	// column, the ISA's TMEM address format.
	KindTMEM
)

// String returns "tv", "smem" or "tmem".
func (k Kind) String() string {
	switch k {
	case KindTV:
		return "tv"
	case KindSMEM:
		return "smem"
	case KindTMEM:
		return "tmem"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Atom is one named layout.
type Atom struct {
	Name    string // unique, lower case, dot separated; the name users type
	Family  string // "wgmma", "mma.sync", "ldmatrix", "stmatrix", "tcgen05", "smem"
	Arch    string // the earliest target that has it: "sm_80", "sm_90a", "sm_100a"
	Section string // PTX ISA section (ISA 9.1 numbering), e.g. "9.7.15.5.1"
	Summary string // one line for listings
	Operand string // "A", "B", "C" (accumulator/D), or "" where it does not apply

	// Key identifies a register-fragment atom by typed fields (Find); it
	// is zero for the atoms of no instruction operand (smem.*, the TMEM
	// placements). Name is Key.String() where Key is set (the builders
	// leave Name empty and the catalog fills it in).
	Key Key
	// Smem identifies a shared-memory atom (FindSmem); it is zero for
	// every other atom. Name is Smem.String() where Smem is set.
	Smem SmemKey

	Kind       Kind
	Rows, Cols int    // the tile
	RowName    string // axis names, e.g. "m", "k", "lane", "row"
	ColName    string // e.g. "n", "k", "col", "byte"
	ElemBits   int    // bits of one value
	ValsPerReg int    // values packed in one 32-bit register (1, 2, 4 or 8); 0 where values are not in registers (KindSMEM, KindTMEM, SMEM operands)

	// TV is the thread-value layout (KindTV).
	TV layouts.TV
	// Offsets maps the column-major tile index row+Rows*col to the element
	// offset in shared memory (KindSMEM) or to the TMEM address
	// lane<<16|column relative to the accumulator's base (KindTMEM).
	Offsets layouts.AnyLayout

	// Shapes lists the full PTX shapes (and instruction forms) the atom
	// serves, e.g. "m64n64k16"; Filter searches them.
	Shapes []string
	// Broadcast is the number of (thread, value) owners of every cell the
	// atom covers: 1 for ordinary fragments, 128 for whole-warpgroup SMEM
	// operands (every thread of the warpgroup names the whole tile).
	Broadcast int
	// CTAs is the number of CTAs a KindTMEM tile is spread over: 2 for
	// cta_group::2, where CTA r of the pair holds rows [r*Rows/2,
	// (r+1)*Rows/2) and Offsets gives the address in that CTA's TMEM; 1
	// otherwise.
	CTAs int
	// AddrRows, for ldmatrix/stmatrix, gives for each of the 32 lanes the
	// tile row whose start address that lane supplies, or -1 where the
	// lane's address is not used.
	AddrRows []int
	// CuTe names CuTe's equivalent object and prints it the way CuTe does,
	// so users can match it against their own printouts.
	CuTe string

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

// Values is the number of values per thread (for KindSMEM and KindTMEM,
// the tile size).
func (a Atom) Values() int {
	if a.Kind != KindTV {
		return a.Rows * a.Cols
	}
	return a.TV.Values()
}

// Layout returns the atom's layout in CuTe notation: the TV layout for
// KindTV, the offset layout otherwise.
func (a Atom) Layout() string {
	if a.Kind == KindTV {
		return a.TV.Layout.String()
	}
	return a.Offsets.String()
}

// Offset evaluates Offsets at tile cell (row, col): the element offset of
// a KindSMEM atom, the TMEM address lane<<16|column of a KindTMEM atom.
func (a Atom) Offset(row, col int) int {
	return a.Offsets.Eval(row + a.Rows*col)
}

// TMEM returns the CTA (of the pair, 0 unless CTAs is 2), TMEM lane and
// column that hold accumulator cell (row, col) of a KindTMEM atom,
// relative to the accumulator's base address.
func (a Atom) TMEM(row, col int) (cta, lane, column int) {
	addr := a.Offset(row, col)
	if a.CTAs > 1 {
		cta = row / (a.Rows / a.CTAs)
	}
	return cta, addr >> 16, addr & 0xffff
}

var (
	once  sync.Once
	atoms []Atom
	index map[string]int
	byKey map[Key]int
	// bySmem indexes the shared-memory atoms by their typed key.
	bySmem map[SmemKey]int
)

// builders add atoms to the catalog; each family's file appends one.
var builders []func(add func(Atom))

func load() {
	once.Do(func() {
		index = map[string]int{}
		byKey = map[Key]int{}
		bySmem = map[SmemKey]int{}
		for _, b := range builders {
			b(func(a Atom) {
				if a.Key != (Key{}) {
					if a.Name == "" {
						a.Name = a.Key.String()
					}
					if a.Key.String() != a.Name {
						panic("catalog: atom " + a.Name + " has the key of " + a.Key.String())
					}
					byKey[a.Key] = len(atoms)
				}
				if a.Smem != (SmemKey{}) {
					if a.Smem.String() != a.Name {
						panic("catalog: atom " + a.Name + " has the shared-memory key of " + a.Smem.String())
					}
					bySmem[a.Smem] = len(atoms)
				}
				// What the recorded hardware probes verified (verified.go,
				// generated from fixtures/layouts) replaces the builders'
				// own notes.
				if v, ok := hardwareVerified[a.Name]; ok {
					a.Verified = v
				}
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
	if major, sw, bits, ok := layouts.CuTeAtom(strings.TrimSpace(name)); ok {
		// CuTe's GMMA::Layout_K_SW128_Atom<half_t> is smem.k.sw128.b16.
		k := SmemKey{MN: strings.EqualFold(major, "mn"), Bits: bits}
		if !strings.EqualFold(sw, "inter") {
			fmt.Sscanf(strings.ToLower(sw), "sw%d", &k.Swizzle)
		}
		n := k.String()
		if i, ok := bySmem[k]; ok {
			return atoms[i], nil
		}
		return Atom{}, fmt.Errorf("%s: the catalog has no %s (CuTe's atom is still a layout: tcsim layout eval '%s')", name, n, name)
	}
	near := Nearest(name, 5)
	if len(near) == 0 {
		return Atom{}, fmt.Errorf("unknown atom %q (see 'tcsim atoms')", name)
	}
	return Atom{}, fmt.Errorf("unknown atom %q; nearest: %s", name, strings.Join(near, ", "))
}

// Filter returns the atoms matching query: every blank-separated word of
// the query must occur (case-insensitive) in the atom's name, family,
// operand, summary, arch, ISA section, kind or PTX shapes. A word that ends
// in a digit must not be followed by another digit, so "n8" matches m64n8
// but not m64n80, and "x1" matches .x1 but not .x16. An empty query
// matches everything.
func Filter(query string) []Atom {
	load()
	words := strings.Fields(strings.ToLower(query))
	var out []Atom
	for _, a := range atoms {
		hay := a.haystack()
		ok := true
		for _, w := range words {
			if !containsWord(hay, w) {
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

func (a Atom) haystack() string {
	return strings.ToLower(strings.Join([]string{a.Name, a.Family, a.Operand, a.Summary, a.Arch,
		a.Section, a.Kind.String(), strings.Join(a.Shapes, " ")}, " "))
}

// containsWord reports whether w occurs in hay, not followed by a digit
// when w itself ends in one.
func containsWord(hay, w string) bool {
	if w == "" {
		return true
	}
	endsDigit := isDigit(w[len(w)-1])
	for from := 0; ; {
		i := strings.Index(hay[from:], w)
		if i < 0 {
			return false
		}
		end := from + i + len(w)
		if !endsDigit || end == len(hay) || !isDigit(hay[end]) {
			return true
		}
		from += i + 1
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// Nearest returns up to n atom names closest to name by edit distance.
func Nearest(name string, n int) []string {
	load()
	if len(name) > 128 {
		return nil // no atom name is that long; an edit distance would cost O(len)
	}
	name = strings.ToLower(name)
	names := make([]string, len(atoms))
	for i, a := range atoms {
		names[i] = a.Name
	}
	return suggest.Nearest(name, names, n, max(3, len(name)/2))
}
