package render

import (
	"bytes"
	"io"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// Any layout a user can type either draws in every format or is refused
// with an error; nothing panics, and the SVG stays well-formed.
func FuzzRenderLayout(f *testing.F) {
	for _, s := range []string{
		"(4,2):(1,4)", "8:2", "(4,(2,2)):(2,(1,8))", "Sw<3,3,3> o 0 o (8,64):(64,1)",
		"(2,2):(-1,4)", "(0,4):(1,0)", "(2,2,2):(1,2,4)", "((4,8),(2,2)):((0,1),(8,16))", "():()",
	} {
		f.Add(s, 8, 4, 16)
	}
	f.Fuzz(func(t *testing.T, src string, rows, cols, width int) {
		l, err := layouts.ParseAnyLayout(src)
		if err != nil || l.Size() > 1<<12 {
			return
		}
		var grids []*Grid
		if g, err := FromLayout(l, 16); err == nil {
			grids = append(grids, g)
		}
		if !l.Composed && rows > 0 && cols > 0 && rows*cols <= 1<<12 {
			if g, err := FromTVLayout(l.L, rows, cols); err == nil {
				grids = append(grids, g)
			}
		}
		o := Options{CellWidth: width & 31}
		for _, g := range grids {
			for _, fm := range []Format{FormatText, FormatANSI, FormatJSON} {
				if err := Write(io.Discard, g, fm, o); err != nil {
					t.Fatalf("%s %s: %v", src, fm, err)
				}
			}
			var b bytes.Buffer
			if err := WriteSVG(&b, g, o); err != nil {
				t.Fatal(err)
			}
			checkXML(t, b.Bytes())
		}
	})
}

func TestFont(t *testing.T) {
	seen := map[[8]uint8]rune{}
	for r := rune(32); r < 127; r++ {
		gl, ok := glyphs[r]
		if !ok {
			t.Errorf("no glyph for %q", r)
			continue
		}
		for _, row := range gl {
			if row >= 1<<5 {
				t.Errorf("glyph %q is wider than 5 pixels", r)
			}
		}
		if other, dup := seen[gl]; dup && r != ' ' {
			t.Errorf("glyphs %q and %q are identical", r, other)
		}
		seen[gl] = r
	}
	for _, r := range "…·×→" {
		if _, ok := glyphs[r]; !ok {
			t.Errorf("no glyph for %q", r)
		}
	}
}
