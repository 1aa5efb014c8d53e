package render

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// ScreenCell is one character cell of a captured terminal screen.
type ScreenCell struct {
	Rune      rune // ' ' for a blank cell; 0 for the right half of a wide character
	FG, BG    color.RGBA
	Bold      bool // drawn one pixel wider
	Underline bool
}

// Screen is a captured terminal screen, Cols × Rows cells, row-major. The
// terminal UI captures its own views into a Screen (parsing their ANSI
// output) so that README screenshots are drawn by tcsim's own code.
type Screen struct {
	Cols, Rows int
	Cells      []ScreenCell
}

// NewScreen returns a cols × rows screen of blanks in the colours fg on bg.
func NewScreen(cols, rows int, fg, bg color.RGBA) (*Screen, error) {
	if cols <= 0 || rows <= 0 || cols > 1000 || rows > 1000 {
		return nil, fmt.Errorf("screen %dx%d: want 1 to 1000 columns and rows", cols, rows)
	}
	s := &Screen{Cols: cols, Rows: rows, Cells: make([]ScreenCell, cols*rows)}
	for i := range s.Cells {
		s.Cells[i] = ScreenCell{Rune: ' ', FG: fg, BG: bg}
	}
	return s, nil
}

// At returns the cell at column x, row y, or nil outside the screen.
func (s *Screen) At(x, y int) *ScreenCell {
	if x < 0 || y < 0 || x >= s.Cols || y >= s.Rows {
		return nil
	}
	return &s.Cells[y*s.Cols+x]
}

// ScreenImage draws s with tcsim's 5x7 font, each cell 6x11 pixels times
// scale (0 means 2). Box-drawing and block characters are drawn as lines
// and fills that join across cells; other characters the font lacks are
// drawn as '?'.
func ScreenImage(s *Screen, scale int) *image.RGBA {
	if scale <= 0 {
		scale = 2
	}
	cw, ch := charW*scale, lineH*scale
	img := image.NewRGBA(image.Rect(0, 0, s.Cols*cw, s.Rows*ch))
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		b := img.Rect
		x0, y0 = max(x0, b.Min.X), max(y0, b.Min.Y)
		x1, y1 = min(x1, b.Max.X), min(y1, b.Max.Y)
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	for y := 0; y < s.Rows; y++ {
		for x := 0; x < s.Cols; x++ {
			c := s.Cells[y*s.Cols+x]
			px, py := x*cw, y*ch
			fill(px, py, px+cw, py+ch, c.BG)
			if c.Rune == 0 || c.Rune == ' ' {
				continue
			}
			if drawBox(c.Rune, px, py, cw, ch, scale, func(x0, y0, x1, y1 int) { fill(x0, y0, x1, y1, c.FG) }) {
				continue
			}
			gl, ok := glyphs[c.Rune]
			if !ok {
				gl = glyphs['?']
			}
			// The glyph sits two pixel rows below the top of its box, as
			// in the pictures.
			gy := py + 2*scale
			for row, bits := range gl {
				for col := 0; col < 5; col++ {
					if bits&(0x10>>col) == 0 {
						continue
					}
					qx, qy := px+col*scale, gy+row*scale
					w := scale
					if c.Bold {
						w += max(scale/2, 1)
					}
					fill(qx, qy, qx+w, qy+scale, c.FG)
				}
			}
			if c.Underline {
				uy := gy + 8*scale
				fill(px, uy, px+cw, uy+max(scale/2, 1), c.FG)
			}
		}
	}
	return img
}

// drawBox draws the box-drawing and block characters the terminal UI uses,
// as lines through the middle of the cell that meet their neighbours'. It
// reports whether r was one of them.
func drawBox(r rune, px, py, cw, ch, scale int, fill func(x0, y0, x1, y1 int)) bool {
	const (
		left = 1 << iota
		right
		up
		down
	)
	var arms int
	switch r {
	case '─', '━', '═':
		arms = left | right
	case '│', '┃', '║':
		arms = up | down
	case '┌', '╭', '┏', '╔':
		arms = right | down
	case '┐', '╮', '┓', '╗':
		arms = left | down
	case '└', '╰', '┗', '╚':
		arms = right | up
	case '┘', '╯', '┛', '╝':
		arms = left | up
	case '├', '┣', '╠':
		arms = up | down | right
	case '┤', '┫', '╣':
		arms = up | down | left
	case '┬', '┳', '╦':
		arms = left | right | down
	case '┴', '┻', '╩':
		arms = left | right | up
	case '┼', '╋', '╬':
		arms = left | right | up | down
	case '█':
		fill(px, py, px+cw, py+ch)
		return true
	case '▌':
		fill(px, py, px+cw/2, py+ch)
		return true
	case '▐':
		fill(px+cw/2, py, px+cw, py+ch)
		return true
	case '▀':
		fill(px, py, px+cw, py+ch/2)
		return true
	case '▄':
		fill(px, py+ch/2, px+cw, py+ch)
		return true
	default:
		return false
	}
	t := max(scale/2, 1) // line thickness
	mx, my := px+cw/2-t/2, py+ch/2-t/2
	if arms&left != 0 {
		fill(px, my, mx+t, my+t)
	}
	if arms&right != 0 {
		fill(mx, my, px+cw, my+t)
	}
	if arms&up != 0 {
		fill(mx, py, mx+t, my+t)
	}
	if arms&down != 0 {
		fill(mx, my, mx+t, py+ch)
	}
	return true
}

// WriteScreenPNG writes s as a PNG picture (see ScreenImage).
func WriteScreenPNG(w io.Writer, s *Screen, scale int) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, ScreenImage(s, scale))
}
