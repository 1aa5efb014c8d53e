package bitmath

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// accTV is the wgmma m64nN accumulator as CuTe writes it
// (mma_traits_sm90_gmma.hpp): ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))
// over the column-major 64xN tile.
func accTV(t testing.TB, n int) layouts.TV {
	t.Helper()
	l := layouts.MustParse(fmt.Sprintf("((4,8,4),(2,2,%d)):((128,1,16),(64,8,512))", n/8))
	tv, err := layouts.NewTV(l, 64, n)
	if err != nil {
		t.Fatal(err)
	}
	return tv
}

func accMap(t testing.TB, n int) Map {
	return FromTV(fmt.Sprintf("wgmma.m64n%dk16.f32.acc", n), accTV(t, n))
}

// tvMap builds a TV map from a layout literal and a tile.
func tvMap(t testing.TB, name, src string, rows, cols int) Map {
	t.Helper()
	tv, err := layouts.NewTV(layouts.MustParse(src), rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return FromTV(name, tv)
}

// layoutMap builds an offset map from layout notation.
func layoutMap(t testing.TB, name, src string, coords bool) Map {
	t.Helper()
	a, err := layouts.ParseAnyLayout(src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromLayout(name, a, coords)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testMaps are the maps the emitted code is compiled and run for: every
// shape of derivation (thread split, frag_ names, swizzle, broadcast,
// missing outputs, non-power-of-two extents, 64-bit offsets).
func testMaps(t testing.TB) []Map {
	return []Map{
		accMap(t, 256),
		accMap(t, 24),
		// mma.sync m16n8k16 C/D fragment: lane (4,8) x value (2,2).
		tvMap(t, "mma_m16n8k16_c", "((4,8),(2,2)):((32,1),(16,8))", 16, 8),
		// SW128 K-major tiles: 16-bit elements (Sw<3,3,3>) and the brief's
		// Sw<3,4,3> example, which on 8x64 never sets offset bit 9.
		layoutMap(t, "sw128_k_16b", "Sw<3,3,3> o 0 o (8,64):(64,1)", true),
		layoutMap(t, "sw343_8x64", "Sw<3,4,3> o 0 o (8,64):(64,1)", true),
		layoutMap(t, "broadcast", "(8,2):(1,0)", true),
		layoutMap(t, "gaps", "(4,4):(2,16)", false),
		layoutMap(t, "affine", "Sw<2,4,3> o 512 o (8,32):(32,1)", true),
		layoutMap(t, "wide", "(2,4):(1,8589934592)", false),
		tvMap(t, "tmem_32x32b", "((32,4),(8)):((1,32),(128))", 128, 8),
	}
}

// TestHugeLayoutsRefused: layouts whose size wraps around int (here
// (2^32+1)(2^32-1)(2^32+1)(2^32-1) = 1 mod 2^64) or has more pairs than
// MaxInputs are refused, not read as tiny maps or walked for minutes.
func TestHugeLayoutsRefused(t *testing.T) {
	wrap := "((4294967297,4294967295,4294967297,4294967295)):((1,1,1,1))"
	a, err := layouts.ParseAnyLayout(wrap)
	if err != nil {
		t.Fatal(err)
	}
	for _, coords := range []bool{false, true} {
		if m, err := FromLayout("w", a, coords); err == nil {
			t.Errorf("FromLayout(%s, %v) = map of %d inputs, want an error", wrap, coords, m.Size())
		}
	}
	for _, c := range []struct{ src, want string }{
		{"((4294967297,4294967295,4294967297,4294967295),2):((1,1,1,1),1)", "more (thread, value) pairs than the 16777216"},
		{"(1048576,1048576):(0,0)", "more (thread, value) pairs than the 16777216"},
		{"(170000000000,0)", "needs at least one thread and one value"},
		{"(0,1099511627776):(1,1)", "needs at least one thread and one value"},
	} {
		l, err := layouts.ParseAnyLayout(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromTVLayout("t", l.L, 4, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromTVLayout(%s): %v; want %q", c.src, err, c.want)
		}
	}
}
