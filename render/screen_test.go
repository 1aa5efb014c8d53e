package render

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

func TestScreenImage(t *testing.T) {
	fg, bg := color.RGBA{200, 200, 200, 255}, color.RGBA{20, 20, 20, 255}
	s, err := NewScreen(4, 2, fg, bg)
	if err != nil {
		t.Fatal(err)
	}
	red := color.RGBA{255, 0, 0, 255}
	*s.At(0, 0) = ScreenCell{Rune: 'T', FG: red, BG: bg}
	*s.At(1, 0) = ScreenCell{Rune: '─', FG: fg, BG: bg}
	*s.At(2, 0) = ScreenCell{Rune: '│', FG: fg, BG: Palette[0].RGBA()}
	*s.At(3, 1) = ScreenCell{Rune: 'x', FG: fg, BG: bg, Underline: true}
	img := ScreenImage(s, 1)
	if b := img.Bounds(); b.Dx() != 4*charW || b.Dy() != 2*lineH {
		t.Fatalf("image %v, want %dx%d", b, 4*charW, 2*lineH)
	}
	// 'T' has a full top bar: row 0 of its glyph, two pixels down.
	for x := 0; x < 5; x++ {
		if img.RGBAAt(x, 2) != red {
			t.Fatalf("T's top bar missing at x=%d: %v", x, img.RGBAAt(x, 2))
		}
	}
	// The horizontal rule runs across its whole cell, through the middle.
	for x := charW; x < 2*charW; x++ {
		if img.RGBAAt(x, lineH/2) != fg {
			t.Fatalf("─ missing at x=%d", x)
		}
	}
	// The vertical rule runs down its whole cell, on the cell's colour.
	for y := 0; y < lineH; y++ {
		if img.RGBAAt(2*charW+charW/2, y) != fg {
			t.Fatalf("│ missing at y=%d", y)
		}
	}
	if img.RGBAAt(2*charW, 0) != Palette[0].RGBA() {
		t.Error("the background colour of a cell is not drawn")
	}
	// The underline is drawn under the glyph.
	if img.RGBAAt(3*charW+1, lineH+2+8) != fg {
		t.Error("no underline")
	}
	var buf bytes.Buffer
	if err := WriteScreenPNG(&buf, s, 2); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := dec.Bounds(); b.Dx() != 8*charW || b.Dy() != 4*lineH {
		t.Errorf("PNG at scale 2 is %v", b)
	}
	if _, err := NewScreen(0, 3, fg, bg); err == nil {
		t.Error("an empty screen is accepted")
	}
}
