package main

import (
	"strings"
	"testing"

	"github.com/tcsim/tcsim/tui"
)

// TestSameInputs checks that the command line and the TUI accept exactly
// the same texts (package input reads them all): a layout text in tcsim
// layout, tcsim render, tcsim bitmath and the TUI's layout explorer (tcsim
// tui TEXT; the picker's typed text takes the same path), a descriptor
// value in tcsim desc, tcsim render and the TUI's descriptor view.
func TestSameInputs(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"wgmma.m64n64.d.f32", true},                        // an atom
		{"WGMMA.M64N64.D.F32", true},                        // names are case-insensitive
		{"GMMA::Layout_K_SW128_Atom<half_t>", true},         // CuTe's name of an atom
		{"(8,8):(8,1)", true},                               // CuTe notation
		{"Sw<3,4,3> o (8,64):(64,1)", true},                 // swizzled
		{"Layout<Shape<_4,_8>,Stride<_1,_4>>", true},        // a pasted CuTe C++ type
		{"composition((4,8):(8,1), (8,4):(1,8))", true},     // an expression
		{"logical_divide((16,8):(8,1), (4,2):(1,4))", true}, // another
		{"((4,8),(2,2)):((32,1),(16,8)) 16x8", true},        // a thread-value layout with its tile
		{"(8,64):(64,1) b16", true},                         // an offset layout with its element width
		{"(8,64):(64,1) 16b", true},
		{"(8,64):(64,1) b16 8x64", true},          // both, in either order
		{"Sw<3,4,3> o (8,64):(64,1) 8x64", false}, // a tile needs a plain layout
		{"wgmma.m64n64.d.f32 64x64", false},       // an atom has its tile
		{"wgmma.m64n64.d.f33", false},             // unknown atom
		{"(4,4):(1,3", false},                     // syntax
		{"size((4,8))", false},                    // not a layout
		{"deadbeef", false},                       // a value, not a layout
	} {
		layout, _, lerr := runCLI(t, "layout", tc.text)
		render, _, rerr := runCLI(t, "render", tc.text, "-o", "-", "--format", "text")
		bitmath, _, berr := runCLI(t, "bitmath", tc.text)
		_, terr := tui.New(tui.Config{Subject: tc.text})
		if (layout == 0) != tc.ok || (render == 0) != tc.ok || (terr == nil) != tc.ok {
			t.Errorf("%q: tcsim layout exit %d (%s), render exit %d (%s), tui error %v; want accepted %v",
				tc.text, layout, strings.TrimSpace(lerr), render, strings.TrimSpace(rerr), terr, tc.ok)
		}
		// bitmath derives formulas: it accepts what the others accept
		// (except where a layout has no F2 form) and rejects the rest.
		if !tc.ok && bitmath == 0 {
			t.Errorf("%q: tcsim bitmath accepts it: %s", tc.text, berr)
		}
	}

	for _, tc := range []struct {
		text   string
		ok     bool
		render bool // tcsim render reads it as a descriptor (decimal digits are a layout there)
	}{
		{"0x4000004000010040", true, true},
		{"0X4000004000010040", true, true},
		{"0x4000_0040_0001_0040", true, true},
		{"0x4000'0040'0001'0040", true, true},
		{"40000040000a0040", true, true}, // bare hex: a-f digits
		{"4611686293305360448", true, false},
		{"0b100000000000000000000000100000000000000000000010000000001000000", true, true},
		{"0o400000004000000200100", true, true},
		{"0xZZ", false, true},
		{"0x", false, true},
		{"0x10000000000000000", false, true},
		{"0b12", false, true},
		{"hello", false, false},
	} {
		desc, _, derr := runCLI(t, "desc", tc.text)
		_, terr := tui.New(tui.Config{View: "desc", Desc: tc.text})
		if (desc != 2) != tc.ok || (terr == nil) != tc.ok {
			t.Errorf("%q: tcsim desc exit %d (%s), tui error %v; want accepted %v", tc.text, desc, strings.TrimSpace(derr), terr, tc.ok)
		}
		if tc.render {
			render, _, rerr := runCLI(t, "render", tc.text, "--major", "K", "-o", "-", "--format", "text")
			if (render == 0) != tc.ok {
				t.Errorf("%q: tcsim render exit %d (%s); want accepted %v", tc.text, render, strings.TrimSpace(rerr), tc.ok)
			}
		}
	}
}
