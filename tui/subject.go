package tui

import (
	"errors"
	"fmt"

	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

// subject is what the layout explorer draws and the bitmath panel
// derives: a catalog atom, the three operands of an MMA, or a layout the
// user typed.
type subject struct {
	spec  string         // what was chosen: an atom name, an MMA spec or the typed text
	atoms []catalog.Atom // the atom, or A, B and C of an MMA; nil for a typed layout
	mma   bool

	typed layouts.AnyLayout // a typed layout
	tile  [2]int            // a typed thread-value layout's tile (rows, cols); zero otherwise
	bits  int               // a typed offset layout's element width, for banks

	grid *render.Grid
	math []*panelMath // per grid panel, derived on first use
}

// panelMath is the bitmath of one panel: the map and its derivation, or
// why there is none.
type panelMath struct {
	m      bitmath.Map
	d      *bitmath.Derivation
	err    error
	header []string
}

// newSubject reads what the user typed or picked, with package input (as
// tcsim layout reads its argument): an atom name, or CuTe notation (a
// plain or swizzled layout, a pasted CuTe type, or a layout algebra
// expression such as composition(...)), optionally followed by a tile
// "RxC" (read it as a thread-value layout over that tile) and an element
// width "b16" (show shared-memory banks).
func newSubject(text string) (*subject, error) {
	in, err := input.ParseLayout(text)
	if err != nil {
		return nil, err
	}
	if in.Atom != nil {
		return atomSubject(*in.Atom)
	}
	l := in.Layout
	s := &subject{spec: in.Text, typed: l, bits: in.Bits, tile: in.Tile}
	if in.Tile[0] > 0 {
		s.grid, err = render.FromTVLayout(l.L, in.Tile[0], in.Tile[1])
	} else {
		s.grid, err = render.FromLayout(l, in.Bits)
	}
	if err != nil {
		return nil, err
	}
	s.math = make([]*panelMath, len(s.grid.Panels))
	return s, nil
}

// atomSubject draws one catalog atom.
func atomSubject(a catalog.Atom) (*subject, error) {
	g, err := render.FromAtom(a)
	if err != nil {
		return nil, err
	}
	return &subject{spec: a.Name, atoms: []catalog.Atom{a}, grid: g, math: make([]*panelMath, len(g.Panels))}, nil
}

// mmaSubject draws the A, B and C of the MMA that spec (an operand atom or
// an instruction shape such as mma.sync.m16n8k16) names, placed as CuTe's
// pictures place them.
func mmaSubject(spec string) (*subject, error) {
	a, b, c, err := catalog.MMAOperands(spec)
	if err != nil {
		return nil, err
	}
	g, err := render.MMA(a, b, c)
	if err != nil {
		return nil, err
	}
	return &subject{spec: spec, atoms: []catalog.Atom{a, b, c}, mma: true, grid: g, math: make([]*panelMath, len(g.Panels))}, nil
}

// name is the short name shown in the tab bar.
func (s *subject) name() string {
	if s.mma {
		return "MMA " + s.atoms[0].Name + " / " + s.atoms[1].Name + " / " + s.atoms[2].Name
	}
	return s.spec
}

// atomOf returns the atom of panel i, or nil for a typed layout.
func (s *subject) atomOf(i int) *catalog.Atom {
	if i < 0 || i >= len(s.atoms) {
		return nil
	}
	return &s.atoms[i]
}

// mathOf returns the bitmath of panel i, deriving it on first use.
func (s *subject) mathOf(i int) *panelMath {
	if i < 0 || i >= len(s.math) {
		return &panelMath{err: errors.New("no panel")}
	}
	if s.math[i] == nil {
		s.math[i] = s.derive(i)
	}
	return s.math[i]
}

func (s *subject) derive(i int) *panelMath {
	pm := &panelMath{}
	if a := s.atomOf(i); a != nil {
		switch a.Kind {
		case catalog.KindTV:
			pm.m = bitmath.FromTV(a.Name, a.TV)
		case catalog.KindSMEM:
			pm.m, pm.err = bitmath.FromOffsets(a.Name, a.Rows, a.Cols, a.Offsets)
		case catalog.KindTMEM:
			pm.m, pm.err = bitmath.FromTMEM(a.Name, a.Rows, a.Cols, a.Offsets)
		default:
			pm.err = fmt.Errorf("atom %s: kind %v has no F2 view", a.Name, a.Kind)
		}
		pm.header = append(pm.header, fmt.Sprintf("%s: %s", a.Name, pm.m.Desc))
		if a.ValsPerReg > 1 {
			pm.header = append(pm.header, fmt.Sprintf("value v is in register v/%d (%d values per 32-bit register)", a.ValsPerReg, a.ValsPerReg))
		}
		if a.Verified != "" {
			pm.header = append(pm.header, "PTX ISA "+a.Section+"; hardware-verified: "+a.Verified)
		} else {
			pm.header = append(pm.header, "PTX ISA "+a.Section+"; not hardware-verified")
		}
	} else if s.tile[0] > 0 {
		tv, err := layouts.NewTV(s.typed.L, s.tile[0], s.tile[1])
		if err != nil {
			pm.err = err
			return pm
		}
		pm.m = bitmath.FromTV(s.typed.String(), tv)
		pm.header = []string{fmt.Sprintf("%v: %s", s.typed, pm.m.Desc)}
	} else {
		pm.m, pm.err = bitmath.FromLayout(s.typed.String(), s.typed, true)
		pm.header = []string{fmt.Sprintf("%v: %s", s.typed, pm.m.Desc)}
	}
	if pm.err != nil {
		return pm
	}
	pm.d, pm.err = bitmath.Derive(pm.m)
	return pm
}

// inputsOf returns the bitmath inputs of cell c in its panel: (tid, v) of
// owner k for a thread-value panel, else the tile coordinate.
func inputsOf(pm *panelMath, c *render.Cell, k int) (map[string]int64, bool) {
	in := map[string]int64{}
	for _, f := range pm.m.In {
		switch f.Name {
		case "tid":
			if k >= len(c.Owners) {
				return nil, false
			}
			in["tid"] = int64(c.Owners[k].Thread)
		case "v":
			if k >= len(c.Owners) {
				return nil, false
			}
			in["v"] = int64(c.Owners[k].Value)
		case "row":
			in["row"] = int64(c.Row)
		case "col":
			in["col"] = int64(c.Col)
		case "i":
			in["i"] = int64(c.Col)
		default:
			return nil, false
		}
	}
	return in, true
}
