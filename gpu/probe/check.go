package probe

import (
	"fmt"
	"sync"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// Case is one probe kernel: a PTX module with one .entry (named Name), one
// input and one output record per CTA, and the checks that read its
// output.
type Case struct {
	Name    string // the kernel and the fixture case: fixtures/layouts/<Name>
	Title   string // one line
	Arch    string // the target the GPU must run: "sm_90a", "sm_90" or "sm_80"
	PTX     string
	Threads int // per CTA
	Jobs    int // CTAs
	InRec   int // input bytes per CTA
	OutRec  int // output bytes per CTA
	In      []byte
	Checks  []Check

	spec any // *wgmmaKernel, *mmaKernel or matrixSpec: what the kernel does, for the tests' model of the hardware
}

// matrixSpec names the ldmatrix or stmatrix kernel.
type matrixSpec struct{ family string }

// Poison is the fill of the output buffer before a launch: a value that
// no probe writes, so that an output the kernel never wrote is caught.
const Poison = "const:u8:0xa5"

// Launch is the case's launch description: grid Jobs, block Threads,
// parameters in (the input records) and out (poisoned), output out.
func (c *Case) Launch() *launch.Launch {
	fill, err := launch.ParseFill(Poison)
	if err != nil {
		panic("probe: " + err.Error())
	}
	return &launch.Launch{
		Kernel: c.Name,
		Grid:   launch.Dim3{uint32(c.Jobs), 1, 1},
		Block:  launch.Dim3{uint32(c.Threads), 1, 1},
		Params: []launch.Param{
			launch.BufferData("in", c.In),
			launch.Buffer("out", c.Jobs*c.OutRec, fill),
		},
		Outputs: []launch.Output{{Param: "out"}},
	}
}

// Check compares one catalog atom with what one probe case observed.
type Check struct {
	Atom   string // the catalog atom
	Case   string // the probe case
	How    string // how the probe makes ownership observable, in a few words
	Caveat string // what the probe cannot separate, if anything
	decode func(out []byte) Outcome
}

// Run decodes the case's output buffer and compares it with the atom.
func (k Check) Run(out []byte) Outcome {
	o := k.decode(out)
	o.Atom, o.Case = k.Atom, k.Case
	return o
}

// Outcome is the verdict of one check.
type Outcome struct {
	Atom, Case string
	Compared   int    // (thread, value) pairs or cells compared
	Unit       string // what Compared counts
	Mismatches int
	First      string // the first mismatch, in words
	Err        error  // the output could not be decoded at all
}

// OK reports whether every compared item agreed.
func (o Outcome) OK() bool { return o.Err == nil && o.Mismatches == 0 && o.Compared > 0 }

func (o Outcome) String() string {
	switch {
	case o.Err != nil:
		return fmt.Sprintf("%s (%s): ERROR %v", o.Atom, o.Case, o.Err)
	case o.Mismatches > 0:
		return fmt.Sprintf("%s (%s): MISMATCH %d of %d %s; first: %s", o.Atom, o.Case, o.Mismatches, o.Compared, o.Unit, o.First)
	case o.Compared == 0:
		return fmt.Sprintf("%s (%s): nothing compared", o.Atom, o.Case)
	}
	return fmt.Sprintf("%s (%s): verified, %d %s", o.Atom, o.Case, o.Compared, o.Unit)
}

func failed(err error) Outcome { return Outcome{Err: err} }

// seen is what a probe observed for one (thread, value) pair of an atom:
// the tile cell (row + Rows*col) it holds, or a description of something
// that is not a cell of the tile.
type seen struct {
	cell int    // -1 when not a cell
	note string // when cell is -1: what the hardware did instead
}

// tvObservations collects, for every (thread, value) of a TV atom, the
// cell the hardware put it in.
type tvObservations struct {
	atom catalog.Atom
	nv   int // values per thread
	obs  []seen
	set  []bool
}

func newTV(a catalog.Atom) *tvObservations {
	n := a.Threads() * a.Values()
	o := &tvObservations{atom: a, nv: a.Values(), obs: make([]seen, n), set: make([]bool, n)}
	for i := range o.obs {
		o.obs[i] = seen{-1, "appears nowhere in the output"}
	}
	return o
}

// put records that (t, v) was seen in cell; a second sighting is a
// mismatch of its own.
func (o *tvObservations) put(t, v int, s seen) {
	i := t*o.nv + v
	if o.set[i] && o.obs[i] != s {
		o.obs[i] = seen{-1, fmt.Sprintf("appears twice: %s and %s", o.describe(o.obs[i]), o.describe(s))}
		return
	}
	o.obs[i], o.set[i] = s, true
}

func (o *tvObservations) describe(s seen) string {
	if s.cell < 0 {
		return s.note
	}
	return cellName(o.atom, s.cell)
}

// cellName is "(m 3, n 5)" in the atom's axis names.
func cellName(a catalog.Atom, cell int) string {
	return fmt.Sprintf("(%s %d, %s %d)", a.RowName, cell%a.Rows, a.ColName, cell/a.Rows)
}

// compare checks every (thread, value) against the catalog.
func (o *tvObservations) compare() Outcome {
	a := o.atom
	out := Outcome{Unit: "(thread, value) pairs"}
	table := cells(a)
	for t := 0; t < a.Threads(); t++ {
		for v := 0; v < o.nv; v++ {
			out.Compared++
			got, want := o.obs[t*o.nv+v], table[t*o.nv+v]
			if got.cell == want {
				continue
			}
			if out.Mismatches == 0 {
				reg := ""
				if a.ValsPerReg > 0 {
					reg = fmt.Sprintf(" (register %d", v/a.ValsPerReg)
					if a.ValsPerReg > 1 {
						reg += fmt.Sprintf(", part %d", v%a.ValsPerReg)
					}
					reg += ")"
				}
				out.First = fmt.Sprintf("thread %d value %d%s: hardware %s, catalog %s", t, v, reg, o.describe(got), cellName(a, want))
			}
			out.Mismatches++
		}
	}
	return out
}

// compareCells checks an observed value per tile cell against a
// prediction: which shared-memory element the hardware read for the cell.
func compareCells(a catalog.Atom, rows, cols int, got, want []int, what string) Outcome {
	out := Outcome{Unit: "cells"}
	for k := 0; k < cols; k++ {
		for m := 0; m < rows; m++ {
			i := m + rows*k
			out.Compared++
			if got[i] == want[i] {
				continue
			}
			if out.Mismatches == 0 {
				g := fmt.Sprintf("%s %d", what, got[i])
				if got[i] < 0 {
					g = "nothing (no output holds this cell)"
				}
				out.First = fmt.Sprintf("cell (%s %d, %s %d): hardware read %s, catalog %s %d", a.RowName, m, a.ColName, k, g, what, want[i])
			}
			out.Mismatches++
		}
	}
	return out
}

// cellTables caches, per atom name, the cell of every (thread, value).
// Atoms are looked up by name in the catalog, except in tests that plant
// a wrong layout under a catalog name in the modelled hardware, which
// uses Atom.TV directly.
var cellTables sync.Map // string -> []int

// cells returns the tile cell (row + Rows*col) of every (thread, value)
// of a TV atom, at t*Values + v.
func cells(a catalog.Atom) []int {
	if c, ok := cellTables.Load(a.Name); ok {
		return c.([]int)
	}
	te, ve := a.TV.Layout.Mode(0).Evaluator(), a.TV.Layout.Mode(1).Evaluator()
	nv := a.Values()
	out := make([]int, a.Threads()*nv)
	for t := 0; t < a.Threads(); t++ {
		base := te.Eval(t)
		for v := 0; v < nv; v++ {
			out[t*nv+v] = base + ve.Eval(v)
		}
	}
	cellTables.Store(a.Name, out)
	return out
}

// coord is the (row, col) of (t, v) in a TV atom.
func coord(a catalog.Atom, t, v int) (row, col int) {
	c := cells(a)[t*a.Values()+v]
	return c % a.Rows, c / a.Rows
}
