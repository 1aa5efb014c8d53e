package bitmath

import (
	"fmt"
	"strings"
	"testing"
)

func steps(p *Program) string {
	var b strings.Builder
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "%s = %s\n", s.Name, s.Expr)
	}
	return b.String()
}

// TestDeriveSeed checks that the derivation rediscovers the seed's
// epilogue bitmath for every power-of-two N, and that the same program
// holds for the other N (there v>>2 simply stops short of the top).
func TestDeriveSeed(t *testing.T) {
	for n := 8; n <= 256; n += 8 {
		d, err := Derive(accMap(t, n))
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		rowV, colV := "((v & 2) << 2)", "((v >> 2) << 3) + (v & 1)"
		if n == 8 {
			// One column group: v has bits 0-1 only, so v >> 1 needs
			// no mask.
			rowV, colV = "((v >> 1) << 3)", "(v & 1)"
		}
		want := "wid = tid >> 5\nlane = tid & 31\nfrag_row = (wid << 4) + (lane >> 2)\nfrag_col = (lane & 3) << 1\n" +
			"row = frag_row + " + rowV + "\ncol = frag_col + " + colV + "\n"
		if got := steps(d.Forward); got != want {
			t.Errorf("N=%d forward:\n%s\nwant:\n%s", n, got, want)
		}
	}
}

func TestDeriveInverseAccumulator(t *testing.T) {
	d, err := Derive(accMap(t, 256))
	if err != nil {
		t.Fatal(err)
	}
	want := "wid = row >> 4\nlane = ((row & 7) << 2) + ((col >> 1) & 3)\n" +
		"v = ((col >> 3) << 2) + ((row & 8) >> 2) + (col & 1)\ntid = (wid << 5) + lane\n"
	if got := steps(d.Inverse); got != want {
		t.Errorf("inverse:\n%s\nwant:\n%s", got, want)
	}
	if len(d.Inverse.Notes) != 0 {
		t.Errorf("bijection has inverse notes: %v", d.Inverse.Notes)
	}
}

func TestDeriveShapes(t *testing.T) {
	cases := []struct {
		m        Map
		fwd, inv string
	}{
		// SW128 K-major, 16-bit elements: the swizzle XORs the row into
		// the 16-byte chunk bits; flat is cheaper than going through lin.
		{layoutMap(t, "sw128", "Sw<3,3,3> o 0 o (8,64):(64,1)", true),
			"offset = ((row << 6) + col) ^ (row << 3)\n",
			"lin = offset ^ ((offset >> 6) << 3)\nrow = lin >> 6\ncol = lin & 63\n"},
		// Sw<3,4,3> on 8x64: offset bit 9 never exists, so only two bits
		// are XORed; through lin costs the same as flat, and reads better.
		{layoutMap(t, "sw343", "Sw<3,4,3> o 0 o (8,64):(64,1)", true),
			"lin = (row << 6) + col\noffset = lin ^ ((lin >> 7) << 4)\n",
			"lin = offset ^ ((offset >> 7) << 4)\nrow = lin >> 6\ncol = lin & 63\n"},
		// 32 lanes, one warp: no wid/lane split, no frag_ names needed.
		{tvMap(t, "m16n8", "((4,8),(2,2)):((32,1),(16,8))", 16, 8),
			"frag_row = tid >> 2\nfrag_col = (tid & 3) << 1\nrow = frag_row + ((v >> 1) << 3)\ncol = frag_col + (v & 1)\n",
			"tid = ((row & 7) << 2) + (col >> 1)\nv = ((row >> 3) << 1) + (col & 1)\n"},
		// tcgen05 32x32b: thread t reads TMEM lane t; the direct form wins.
		{tvMap(t, "32x32b", "((32,4),(8)):((1,32),(128))", 128, 8),
			"row = tid\ncol = v\n", "tid = row\nv = col\n"},
		{layoutMap(t, "bcast", "(8,2):(1,0)", true), "offset = row\n", "row = offset\ncol = 0\n"},
		{layoutMap(t, "affine", "(8,4):(1,8) ", false), "offset = i\n", "i = offset\n"},
		{layoutMap(t, "const", "Sw<2,4,3> o 512 o (8,32):(32,1)", true),
			// The offset sets lin bit 9, so lin >> 7 needs a mask; the
			// constant is a term of its own.
			"lin = (row << 5) + col + 0x200\noffset = lin ^ ((lin & 0x180) >> 3)\n",
			"row = (offset >> 5) & 7\ncol = (offset & 31) ^ ((offset & 0x80) >> 3)\n"},
	}
	for _, c := range cases {
		d, err := Derive(c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Name, err)
		}
		if got := steps(d.Forward); got != c.fwd {
			t.Errorf("%s forward:\n%swant:\n%s", c.m.Name, got, c.fwd)
		}
		if got := steps(d.Inverse); got != c.inv {
			t.Errorf("%s inverse:\n%swant:\n%s", c.m.Name, got, c.inv)
		}
	}
}

func TestInverseNotes(t *testing.T) {
	d, err := Derive(layoutMap(t, "bcast", "(8,2):(1,0)", true))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Inverse.Notes) != 1 || !strings.Contains(d.Inverse.Notes[0], "2 preimages") || !strings.Contains(d.Inverse.Notes[0], "c0 = 0") {
		t.Errorf("broadcast notes: %q", d.Inverse.Notes)
	}
	d, err = Derive(layoutMap(t, "gaps", "(4):(2)", false))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Inverse.Notes) != 1 || !strings.Contains(d.Inverse.Notes[0], "where o0 is 0") {
		t.Errorf("gap notes: %q", d.Inverse.Notes)
	}
	d, err = Derive(accMap(t, 24))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Forward.Notes) != 1 || !strings.Contains(d.Forward.Notes[0], "0..11") {
		t.Errorf("domain notes: %q", d.Forward.Notes)
	}
}

func TestTermExpr(t *testing.T) {
	cases := []struct {
		x    string
		w    int
		p    uint64
		d    int
		want string
	}{
		{"lane", 5, 0b11100, -2, "lane >> 2"},
		{"lane", 5, 0b00011, 1, "(lane & 3) << 1"},
		{"wid", 2, 0b11, 4, "wid << 4"},
		{"v", 7, 0b10, 2, "(v & 2) << 2"},            // ((v >> 1) & 1) << 3 costs one more
		{"tid", 7, 0b1100000, -1, "(tid >> 5) << 4"}, // ties go to extract-and-place
		{"x", 8, 0b1010, 0, "x & 10"},
		{"x", 8, 0xff, 0, "x"},
		{"x", 8, 0b10100000, -3, "(x & 0xA0) >> 3"}, // ties: mask-then-shift before shift-then-mask
		{"x", 8, 0b10100000, -5, "(x & 0xA0) >> 5"}, // bit 6 would leak without the mask
		{"x", 8, 0b11100000, -5, "x >> 5"},          // bits below 5 fall off, the top needs no mask
		{"x", 8, 0b101, 3, "(x & 5) << 3"},
	}
	for _, c := range cases {
		if got := termExpr(c.x, c.w, c.p, c.d).String(); got != c.want {
			t.Errorf("termExpr(%s, %d, %b, %d) = %s, want %s", c.x, c.w, c.p, c.d, got, c.want)
		}
	}
}

func TestIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"wgmma.m64n256k16.f32.acc":  "wgmma_m64n256k16_f32_acc",
		"Sw<3,4,3> o (8,64):(64,1)": "layout",
		"(8,64):(64,1)":             "layout",
		"8x8":                       "l_8x8",
		"...":                       "layout",
	} {
		if got := identifier(in); got != want {
			t.Errorf("identifier(%q) = %q, want %q", in, got, want)
		}
	}
}
