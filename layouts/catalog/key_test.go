package catalog

import (
	"strings"
	"testing"
)

// TestKeys checks that every register fragment of an instruction family
// has a key, that Find returns the atom for its key, and that the key's
// String is the atom's name.
func TestKeys(t *testing.T) {
	keyed := 0
	for _, a := range All() {
		fragment := a.Kind == KindTV && a.Family != "smem"
		if (a.Key != Key{}) != fragment {
			t.Errorf("%s: key %+v (a %s atom of family %s)", a.Name, a.Key, a.Kind, a.Family)
			continue
		}
		if !fragment {
			continue
		}
		keyed++
		got, err := Find(a.Key)
		if err != nil || got.Name != a.Name {
			t.Errorf("Find(%+v) = %s, %v; want %s", a.Key, got.Name, err, a.Name)
		}
		if a.Key.String() != a.Name || a.Key.Family.String() != a.Family {
			t.Errorf("%s: key spells %s, family %s", a.Name, a.Key, a.Key.Family)
		}
	}
	if keyed < 100 {
		t.Errorf("only %d keyed atoms", keyed)
	}
}

// TestFindUnknown checks that a key with no atom fails with the message
// Lookup gives for its name (the simulator reports it for a shape the
// catalog lacks).
func TestFindUnknown(t *testing.T) {
	for _, k := range []Key{
		{Family: WGMMA, Operand: OperandD, M: 64, N: 40, Elem: ElemS32}, // .s32 has no N = 40
		{Family: MMASync, Operand: OperandA, M: 16, K: 8, Elem: ElemB8},
		{Family: Tcgen05LdSt, Shape: Shape16x256b, Num: 64},
		{Family: LdMatrix, M: 8, N: 8, Num: 3, Elem: ElemB16},
		{},
	} {
		_, err := Find(k)
		if err == nil {
			t.Errorf("Find(%+v) found an atom", k)
			continue
		}
		_, lerr := Lookup(k.String())
		if lerr == nil || err.Error() != lerr.Error() {
			t.Errorf("Find(%+v) = %v; Lookup(%q) = %v", k, err, k.String(), lerr)
		}
		if !strings.Contains(err.Error(), "unknown atom") {
			t.Errorf("Find(%+v): %v", k, err)
		}
	}
}

// TestOperandElem checks the element class of each operand width.
func TestOperandElem(t *testing.T) {
	for bits, want := range map[int]Elem{16: ElemB16, 32: ElemTF32, 8: ElemB8, 4: ElemB4, 1: NoElem, 64: NoElem} {
		if got := OperandElem(bits); got != want {
			t.Errorf("OperandElem(%d) = %s, want %s", bits, got, want)
		}
	}
}
