package bitmath_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// atomMap builds the F2-viewable map of a catalog atom, as the CLI does.
func atomMap(t testing.TB, a catalog.Atom) bitmath.Map {
	t.Helper()
	m, err := bitmath.FromAtom(a)
	if err != nil {
		t.Fatalf("%s: %v", a.Name, err)
	}
	return m
}

// innerNotPow2 reports whether a mode of the atom's TV layout has an inner
// extent that is not a power of two (whole-warpgroup B operands with N =
// 40, 48, ...: the value index v = n + N*k mixes n and k).
func innerNotPow2(a catalog.Atom) bool {
	if a.Kind != catalog.KindTV {
		return false
	}
	for i := range 2 {
		ls := a.TV.Layout.Shape.Mode(i).Leaves()
		for _, v := range ls[:len(ls)-1] {
			if v&(v-1) != 0 {
				return true
			}
		}
	}
	return false
}

// TestCatalogDerives derives both directions for every atom in the
// catalog (Derive itself checks both programs on every input). The atoms
// whose value index mixes coordinates must fail with a NonLinearError
// that says so.
func TestCatalogDerives(t *testing.T) {
	atoms := catalog.All()
	if len(atoms) == 0 {
		t.Skip("catalog is empty")
	}
	kinds := map[bitmath.InverseKind]int{}
	mixed := 0
	for _, a := range atoms {
		if testing.Short() && a.Values()*a.Threads() > 1<<16 {
			continue
		}
		d, err := bitmath.Derive(atomMap(t, a))
		if innerNotPow2(a) {
			var nl *bitmath.NonLinearError
			if !errors.As(err, &nl) || !strings.Contains(nl.Reason, "not a power of two") {
				t.Errorf("%s: want a NonLinearError naming the inner extent, got %v", a.Name, err)
			}
			mixed++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", a.Name, err)
			continue
		}
		kinds[d.Inv.Kind]++
	}
	t.Logf("%d atoms: %v; %d not F2-linear (inner extent not a power of two)", len(atoms), kinds, mixed)
}

// TestCatalogAccumulatorsMatchSeed checks the catalog's wgmma accumulators
// against the seed's bitmath through the formula checker.
func TestCatalogAccumulatorsMatchSeed(t *testing.T) {
	const seed = "row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"
	n := 0
	for _, a := range catalog.Filter("wgmma d f32") {
		if a.Kind != catalog.KindTV || a.Operand != "C" {
			continue
		}
		r, err := bitmath.Check(atomMap(t, a), seed, false)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if !r.OK() {
			t.Errorf("%s: %s", a.Name, r)
		}
		n++
	}
	if n == 0 {
		t.Skip("no wgmma f32 accumulators in the catalog")
	}
}
