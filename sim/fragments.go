package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// Fragment says what the registers of a matrix instruction hold: for each
// operand, the catalog atom that maps (thread, value) to a tile cell, and
// the registers in operand order.
type Fragment struct {
	Operand string      // "D", "A", "B", "regs"
	Atom    string      // catalog atom name, "" for shared-memory operands
	Key     catalog.Key // the atom's key (catalog.Find), zero for shared-memory operands
	Regs    []string
	Note    string
	// Elem is the type to show the values as: the accumulator's or A's
	// type for wgmma, .b16 for ldmatrix/stmatrix, .f32 for tcgen05.ld/st
	// (32-bit cells; the accumulators of every kind but i8).
	Elem ptx.Type
	// Threads is the number of threads the atom spans: 128 (a
	// warpgroup) or 32 (a warp).
	Threads int
}

const smemOperandNote = "shared memory, through the descriptor"

// The fragment keys of the matrix instructions, read from the parsed
// instruction: the decoders and StaticFragments share them.

// wgmmaFragKeys returns the accumulator's fragment key of a
// wgmma.mma_async and, when A comes from registers (a vector operand),
// register A's.
func wgmmaFragKeys(x *ptx.Instruction) (acc, a catalog.Key, regA bool) {
	acc = catalog.Key{Family: catalog.WGMMA, Operand: catalog.OperandD, M: 64, N: x.Shape.N, Elem: accElem(x.Types[0])}
	if len(x.Operands) > 1 {
		if _, ok := x.Operands[1].(*ptx.Vector); ok {
			a = catalog.Key{Family: catalog.WGMMA, Operand: catalog.OperandA, M: 64, K: x.Shape.K, Elem: catalog.OperandElem(x.Types[1].Bits())}
			regA = true
		}
	}
	return acc, a, regA
}

// accElem is the catalog's element class of an accumulator of type t.
func accElem(t ptx.Type) catalog.Elem {
	switch t {
	case ptx.F32:
		return catalog.ElemF32
	case ptx.F16:
		return catalog.ElemF16
	case ptx.S32:
		return catalog.ElemS32
	}
	return catalog.NoElem
}

// matrixFragKey is the fragment key of ldmatrix/stmatrix .m8n8 .b16.
func matrixFragKey(x *ptx.Instruction) catalog.Key {
	num := 1
	switch {
	case x.Has("x2"):
		num = 2
	case x.Has("x4"):
		num = 4
	}
	f := catalog.StMatrix
	if x.Opcode == "ldmatrix" {
		f = catalog.LdMatrix
	}
	return catalog.Key{Family: f, M: 8, N: 8, Num: num, Trans: x.Has("trans"), Elem: catalog.ElemB16}
}

// tcLdStFragKey is the fragment key of tcgen05.ld/st: its shape and .num.
func tcLdStFragKey(x *ptx.Instruction) catalog.Key {
	k := catalog.Key{Family: catalog.Tcgen05LdSt}
	for _, s := range catalog.TMEMShapes() {
		if x.Has(s.String()) {
			k.Shape = s
		}
	}
	for _, m := range x.Mods {
		if len(m.Name) > 1 && m.Name[0] == 'x' {
			if n, err := strconv.Atoi(m.Name[1:]); err == nil {
				k.Num = n
			}
		}
	}
	return k
}

// StaticFragments describes the fragment operands of a matrix
// instruction from the parsed instruction alone, without running it (a
// trace replay has no machine): the same fragments Stepper.Fragments
// gives, with the register names as the operands write them.
func StaticFragments(x *ptx.Instruction) ([]Fragment, error) {
	regsOf := func(i int) []string {
		var out []string
		for _, e := range vecElems(operand(x, i)) {
			if r, ok := e.(*ptx.Reg); ok {
				out = append(out, r.Name)
			}
		}
		return out
	}
	switch {
	case strings.HasPrefix(x.Opcode, "wgmma.mma_async"):
		if len(x.Types) < 2 || x.Shape.N == 0 {
			return nil, fmt.Errorf("%s: no shape or types", x.Opcode)
		}
		acc, a, regA := wgmmaFragKeys(x)
		var aRegs []string
		if regA {
			aRegs = regsOf(1)
		}
		return wgmmaFragments(x, acc, a, regA, regsOf(0), aRegs), nil
	case x.Opcode == "ldmatrix" || x.Opcode == "stmatrix":
		i := 0
		if x.Opcode == "stmatrix" {
			i = 1
		}
		k := matrixFragKey(x)
		return []Fragment{{Operand: "regs", Atom: k.String(), Key: k, Regs: regsOf(i), Elem: ptx.B16, Threads: 32}}, nil
	case x.Opcode == "tcgen05.ld" || x.Opcode == "tcgen05.st":
		i := 0
		if x.Opcode == "tcgen05.st" {
			i = len(x.Operands) - 1
		}
		k := tcLdStFragKey(x)
		return []Fragment{{Operand: "regs", Atom: k.String(), Key: k, Regs: regsOf(i), Elem: ptx.F32, Threads: 128}}, nil
	}
	return nil, fmt.Errorf("%s has no fragment operands", x.Opcode)
}

// operand returns operand i of x, or nil.
func operand(x *ptx.Instruction, i int) ptx.Expr {
	if i < 0 || i >= len(x.Operands) {
		return nil
	}
	return x.Operands[i]
}

func wgmmaFragments(x *ptx.Instruction, acc, a catalog.Key, regA bool, dregs, aregs []string) []Fragment {
	fr := []Fragment{{Operand: "D", Atom: acc.String(), Key: acc, Regs: dregs, Elem: x.Types[0], Threads: 128}}
	if regA {
		fr = append(fr, Fragment{Operand: "A", Atom: a.String(), Key: a, Regs: aregs, Elem: x.Types[1], Threads: 128})
	} else {
		fr = append(fr, Fragment{Operand: "A", Note: smemOperandNote})
	}
	return append(fr, Fragment{Operand: "B", Note: smemOperandNote})
}

// Fragments describes the fragment operands of the instruction at pc
// (wgmma.mma_async, ldmatrix, stmatrix, tcgen05.ld/st), with the
// registers the compiled program reads and writes.
func (s *Stepper) Fragments(pc int) ([]Fragment, error) {
	if pc < 0 || pc >= len(s.m.Prog.Insts) {
		return nil, fmt.Errorf("no instruction at pc %d", pc)
	}
	in := &s.m.Prog.Insts[pc]
	names := func(regs []int32) []string {
		var out []string
		for _, r := range regs {
			out = append(out, in.Func.RegNames[r])
		}
		return out
	}
	opNames := func(ops []Opnd) []string {
		var out []string
		for _, o := range ops {
			out = append(out, o.Name)
		}
		return out
	}
	switch x := in.ext.(type) {
	case *wgmmaInfo:
		return wgmmaFragments(in.PTX, x.accKey, x.aKey, x.rs, names(x.dregs), names(x.aregs)), nil
	case *matrixInfo:
		return []Fragment{{Operand: "regs", Atom: x.key.String(), Key: x.key, Regs: opNames(x.regs), Elem: ptx.B16, Threads: 32}}, nil
	case *tcLdInfo:
		return []Fragment{{Operand: "regs", Atom: x.key.String(), Key: x.key, Regs: opNames(x.regs), Elem: ptx.F32, Threads: 128}}, nil
	}
	return nil, fmt.Errorf("%s has no fragment operands", in.PTX.Opcode)
}

// Owner finds which tile cell a register of a thread holds for the
// fragment instruction at pc: (row, col) in the catalog atom's tile.
func (s *Stepper) Owner(pc int, thread int, reg string) (atom string, row, col int, err error) {
	frs, err := s.Fragments(pc)
	if err != nil {
		return "", 0, 0, err
	}
	for _, f := range frs {
		for i, r := range f.Regs {
			if r != reg || f.Atom == "" {
				continue
			}
			a, err := catalog.Find(f.Key)
			if err != nil {
				return "", 0, 0, err
			}
			per := max(a.ValsPerReg, 1)
			row, col := a.TV.Coord(thread%a.TV.Threads(), i*per)
			return f.Atom, row, col, nil
		}
	}
	return "", 0, 0, fmt.Errorf("%s is not a fragment register of the instruction at pc %d", reg, pc)
}
