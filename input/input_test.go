package input

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

func TestParseLayout(t *testing.T) {
	for _, tc := range []struct {
		text string
		atom string // the atom's name, or "" for a layout
		lay  string // the layout, as printed
		expr bool
		tile [2]int
		bits int
		err  string
	}{
		{text: " wgmma.m64n64.d.f32 ", atom: "wgmma.m64n64.d.f32"},
		{text: "GMMA::Layout_K_SW128_Atom<half_t>", atom: "smem.k.sw128.b16"},
		{text: "(8,8):(8,1)", lay: "(8,8):(8,1)"},
		{text: "Layout<Shape<_4,_8>,Stride<_1,_4>>", lay: "(4,8):(1,4)"},
		{text: "composition((4,8):(8,1), (8,4):(1,8))", lay: "((4,2),4):((8,1),2)", expr: true},
		{text: "(32,4):(1,32) 32x4", lay: "(32,4):(1,32)", tile: [2]int{32, 4}},
		{text: "(8,64):(64,1) b16", lay: "(8,64):(64,1)", bits: 16},
		{text: "(8,64):(64,1) 16B 8X64", lay: "(8,64):(64,1)", bits: 16, tile: [2]int{8, 64}},
		{text: "", err: "empty"},
		{text: "wgmma.m64n64.d.f32 b16", err: "is an atom with its own 64x64 tile"},
		{text: "wgmma.m64n64.d.f33", err: `unknown atom "wgmma.m64n64.d.f33"; nearest: wgmma.m64n64.d.f32`},
		{text: "(4,4):(1,3", err: "bad layout: col 7"},
		{text: "size((4,8))", err: "is an integer tuple, not a layout"},
		{text: "Sw<3,4,3> o (8,64):(64,1) 8x64", err: "is swizzled; a thread-value layout"},
	} {
		got, err := ParseLayout(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want error %q", tc.text, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		switch {
		case tc.atom != "":
			if got.Atom == nil || got.Atom.Name != tc.atom {
				t.Errorf("%q: atom %v, want %s", tc.text, got.Atom, tc.atom)
			}
		case got.Atom != nil || got.Layout.String() != tc.lay || got.Expr != tc.expr || got.Tile != tc.tile || got.Bits != tc.bits:
			t.Errorf("%q: %+v, want layout %s expr %v tile %v bits %d", tc.text, got, tc.lay, tc.expr, tc.tile, tc.bits)
		}
	}
	// A syntax error keeps the parser's error, for a caret.
	_, err := ParseLayout("(4,4):(1,3")
	var pe *layouts.ParseError
	if !errors.As(err, &pe) || pe.Caret() == "" {
		t.Errorf("error %v is not a *layouts.ParseError", err)
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		text string
		v    uint64
		note string
		err  string
	}{
		{text: "0x4000004000010040", v: 0x4000004000010040},
		{text: " 0X40_00'0040 ", v: 0x40000040},
		{text: "0b101", v: 5},
		{text: "0o17", v: 15},
		{text: "010", v: 10, note: "read as decimal"},
		{text: "deadbeef", v: 0xdeadbeef, note: "read as hexadecimal"},
		{text: "18446744073709551615", v: 1<<64 - 1, note: "read as decimal"},
		{text: "", err: "empty value"},
		{text: "0x", err: "has no digits after 0x"},
		{text: "0xZZ", err: "want hex digits"},
		{text: "0b2", err: "want binary digits"},
		{text: "12z", err: "want decimal digits"},
		{text: "18446744073709551616", err: "does not fit in 64 bits"},
		{text: "-1", err: "is not a number"},
	} {
		v, note, err := ParseValue(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want error %q", tc.text, err, tc.err)
			}
			continue
		}
		if err != nil || v != tc.v || !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
			t.Errorf("%q: %#x %q %v, want %#x %q", tc.text, v, note, err, tc.v, tc.note)
		}
	}
}

func TestIsValue(t *testing.T) {
	for text, want := range map[string]bool{
		"0x40": true, "0b1": true, "0o7": true, "deadbeef": true, "0xZZ": true,
		"64": false, "(8,8):(8,1)": false, "wgmma.m64n64.d.f32": false, "hello": false,
	} {
		if got := IsValue(text); got != want {
			t.Errorf("IsValue(%q) = %v, want %v", text, got, want)
		}
	}
}

func ExampleParseLayout() {
	in, err := ParseLayout("composition((4,8):(8,1), (8,4):(1,8)) b16")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Layout, in.Expr, in.Bits)
	// Output: ((4,2),4):((8,1),2) true 16
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"(8,8):(8,1) 8x8 b16", "composition((4,8):(8,1), (8,4):(1,8))", "wgmma.m64n64.d.f32", "0x40_00", "Sw<3,4,3> o (8,64):(64,1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		if in, err := ParseLayout(s); err == nil && in.Atom == nil && in.Layout.Inner().Rank() == 0 && in.Layout.String() == "" {
			t.Errorf("%q: neither an atom nor a layout: %+v", s, in)
		}
		ParseValue(s)
		IsValue(s)
	})
}
