package catalog

import "fmt"

// Key identifies the register fragment of an instruction by typed fields:
// what a caller that has decoded the instruction knows (its family,
// operand, shape and element width), so that it never formats an atom's
// name to find it. Find looks a key up; every fragment atom's Name is its
// Key's String, so the name a user types and the key a program builds
// reach the same atom.
//
// Only the dimensions the layout depends on are set: a wgmma accumulator
// depends on N (M is 64) and not on K, register A on K, an mma.sync
// operand on K, its accumulator on neither.
type Key struct {
	Family  Family
	Operand Operand // A, B or D; NoOperand for ldmatrix, stmatrix and tcgen05.ld/st
	M, N, K int
	Elem    Elem
	Smem    bool      // wgmma A or B read from shared memory through a descriptor
	Num     int       // .num of ldmatrix/stmatrix (.x1, .x2, .x4) and tcgen05.ld/st
	Trans   bool      // ldmatrix/stmatrix .trans
	Shape   TMEMShape // the tcgen05.ld/st data-movement shape
}

// Family is an instruction family whose register fragments the catalog
// holds.
type Family uint8

// The families with fragment atoms.
const (
	NoFamily    Family = iota
	WGMMA              // wgmma.mma_async (sm_90a)
	MMASync            // mma.sync.aligned
	LdMatrix           // ldmatrix
	StMatrix           // stmatrix
	Tcgen05LdSt        // tcgen05.ld and tcgen05.st (sm_100a)
)

var familyNames = [...]string{NoFamily: "none", WGMMA: "wgmma", MMASync: "mma.sync", LdMatrix: "ldmatrix", StMatrix: "stmatrix", Tcgen05LdSt: "tcgen05"}

// String returns the family as atom names spell it ("mma.sync", "tcgen05").
func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// Operand is an MMA operand: A, B or the accumulator D.
type Operand uint8

// The operands.
const (
	NoOperand Operand = iota
	OperandA
	OperandB
	OperandD
)

var operandNames = [...]string{NoOperand: "", OperandA: "a", OperandB: "b", OperandD: "d"}

// String returns "a", "b" or "d", as atom names spell the operand.
func (o Operand) String() string {
	if int(o) < len(operandNames) {
		return operandNames[o]
	}
	return fmt.Sprintf("Operand(%d)", int(o))
}

// Elem is the element class of a fragment, as atom names spell it: the
// accumulator types f32, f16 and s32, and for A and B the container
// width (b16 holds f16 or bf16, b8 holds e4m3, e5m2, s8 or u8).
type Elem uint8

// The element classes.
const (
	NoElem Elem = iota
	ElemF32
	ElemF16
	ElemS32
	ElemB16
	ElemTF32
	ElemB8
	ElemB4
)

var elemNames = [...]string{NoElem: "", ElemF32: "f32", ElemF16: "f16", ElemS32: "s32", ElemB16: "b16", ElemTF32: "tf32", ElemB8: "b8", ElemB4: "b4"}

// String returns the element's token in atom names ("b16", "f32").
func (e Elem) String() string {
	if int(e) < len(elemNames) {
		return elemNames[e]
	}
	return fmt.Sprintf("Elem(%d)", int(e))
}

// OperandElem is the element class of an A or B operand whose elements
// occupy bits bits: b16 (f16, bf16), tf32 (32), b8 (8-bit formats), b4;
// NoElem for any other width.
func OperandElem(bits int) Elem {
	switch bits {
	case 16:
		return ElemB16
	case 32:
		return ElemTF32
	case 8:
		return ElemB8
	case 4:
		return ElemB4
	}
	return NoElem
}

// TMEMShape is a tcgen05.ld/st data-movement shape.
type TMEMShape uint8

// The tcgen05.ld/st shapes (PTX ISA 9.7.16.2.3.1).
const (
	NoShape TMEMShape = iota
	Shape32x32b
	Shape16x64b
	Shape16x128b
	Shape16x256b
	Shape16x32bx2
)

var shapeNames = [...]string{NoShape: "", Shape32x32b: "32x32b", Shape16x64b: "16x64b", Shape16x128b: "16x128b", Shape16x256b: "16x256b", Shape16x32bx2: "16x32bx2"}

// String returns the shape's PTX token without the dot ("16x256b").
func (s TMEMShape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("TMEMShape(%d)", int(s))
}

// TMEMShapes lists the tcgen05.ld/st shapes in catalog order.
func TMEMShapes() []TMEMShape {
	return []TMEMShape{Shape32x32b, Shape16x64b, Shape16x128b, Shape16x256b, Shape16x32bx2}
}

// String returns the name of the atom the key identifies, e.g.
// wgmma.m64n64.d.f32, mma.sync.n8k16.b.b16, ldmatrix.m8n8.x4.trans.b16,
// tcgen05.16x256b.x4. It is the catalog's naming rule in one place; no
// caller needs to parse it.
func (k Key) String() string {
	switch k.Family {
	case WGMMA:
		switch {
		case k.Operand == OperandD:
			return fmt.Sprintf("wgmma.m%dn%d.d.%s", k.M, k.N, k.Elem)
		case k.Operand == OperandA:
			return fmt.Sprintf("wgmma.m%dk%d.a.%s.%s", k.M, k.K, src(k.Smem), k.Elem)
		case k.Operand == OperandB:
			return fmt.Sprintf("wgmma.n%dk%d.b.%s.%s", k.N, k.K, src(k.Smem), k.Elem)
		}
	case MMASync:
		switch k.Operand {
		case OperandA:
			return fmt.Sprintf("mma.sync.m%dk%d.a.%s", k.M, k.K, k.Elem)
		case OperandB:
			return fmt.Sprintf("mma.sync.n%dk%d.b.%s", k.N, k.K, k.Elem)
		case OperandD:
			return fmt.Sprintf("mma.sync.m%dn%d.d.%s", k.M, k.N, k.Elem)
		}
	case LdMatrix, StMatrix:
		trans := ""
		if k.Trans {
			trans = ".trans"
		}
		return fmt.Sprintf("%s.m%dn%d.x%d%s.%s", k.Family, k.M, k.N, k.Num, trans, k.Elem)
	case Tcgen05LdSt:
		return fmt.Sprintf("tcgen05.%s.x%d", k.Shape, k.Num)
	}
	return fmt.Sprintf("%s fragment %+v", k.Family, struct {
		Operand Operand
		M, N, K int
		Elem    Elem
	}{k.Operand, k.M, k.N, k.K, k.Elem})
}

func src(smem bool) string {
	if smem {
		return "smem"
	}
	return "reg"
}

// Find returns the fragment atom of key k. The error names the key and
// the atoms nearest to it.
func Find(k Key) (Atom, error) {
	load()
	if i, ok := byKey[k]; ok {
		return atoms[i], nil
	}
	// The same error as for the name, nearest names included.
	_, err := Lookup(k.String())
	return Atom{}, err
}
