package render

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// WritePNG writes g as a PNG picture: the same scene as WriteSVG, drawn
// with tcsim's own 5x7 bitmap font, in pure Go.
func WritePNG(w io.Writer, g *Grid, o Options) error {
	img, err := Image(g, o)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

// MaxPixels bounds the area of the images Image and WritePNG make (one
// byte per pixel while drawing).
const MaxPixels = 1 << 28

// Image rasterises the picture of g. The image is paletted: a few greys
// and the colours the picture uses.
func Image(g *Grid, o Options) (*image.Paletted, error) {
	sc, _, err := buildScene(g, o)
	if err != nil {
		return nil, err
	}
	if sc.w <= 0 || sc.h <= 0 || sc.w > MaxPixels/sc.h {
		return nil, fmt.Errorf("a %dx%d-pixel image is too large (the limit is %d pixels): lower the scale or draw a region", sc.w, sc.h, MaxPixels)
	}
	return rasterize(sc), nil
}

type raster struct {
	img   *image.Paletted
	index map[color.RGBA]uint8
}

func rasterize(sc *scene) *image.Paletted {
	rs := &raster{img: image.NewPaletted(image.Rect(0, 0, sc.w, sc.h), scenePalette(sc)), index: map[color.RGBA]uint8{}}
	for i, c := range rs.img.Palette {
		rs.index[c.(color.RGBA)] = uint8(i)
	}
	// Index 0 is white: the new image is already filled with it.
	for _, r := range sc.rects {
		rs.rect(r)
	}
	for _, t := range sc.texts {
		rs.text(t)
	}
	for i := range sc.cells {
		for _, r := range sc.cells[i].rects {
			rs.rect(r)
		}
		for _, t := range sc.cells[i].texts {
			rs.text(t)
		}
	}
	for _, r := range sc.frames {
		rs.rect(r)
	}
	return rs.img
}

// scenePalette is the fixed greys followed by every other colour the
// scene uses, in order of appearance, up to the 256 a paletted image
// holds (a grid of more than 250 colours draws the rest in the nearest).
func scenePalette(sc *scene) color.Palette {
	pal := color.Palette{colWhite, colBlack, colGrid, colEmpty, colHeader}
	seen := map[color.RGBA]bool{}
	for _, c := range pal {
		seen[c.(color.RGBA)] = true
	}
	add := func(rs []rectItem) {
		for _, r := range rs {
			for _, c := range []color.RGBA{r.fill, r.stroke} {
				if !seen[c] && len(pal) < 256 {
					seen[c] = true
					pal = append(pal, c)
				}
			}
		}
	}
	add(sc.rects)
	for i := range sc.cells {
		add(sc.cells[i].rects)
	}
	add(sc.frames)
	for _, t := range sc.texts {
		if !seen[t.col] && len(pal) < 256 {
			seen[t.col] = true
			pal = append(pal, t.col)
		}
	}
	return pal
}

// colorIndex returns the palette index of c, or the nearest colour's.
func (rs *raster) colorIndex(c color.RGBA) uint8 {
	if i, ok := rs.index[c]; ok {
		return i
	}
	i := uint8(rs.img.Palette.Index(c))
	rs.index[c] = i
	return i
}

func (rs *raster) fill(x0, y0, x1, y1 int, ci uint8) {
	b := rs.img.Rect
	x0, y0 = max(x0, b.Min.X), max(y0, b.Min.Y)
	x1, y1 = min(x1, b.Max.X), min(y1, b.Max.Y)
	for y := y0; y < y1; y++ {
		row := rs.img.Pix[y*rs.img.Stride:]
		for x := x0; x < x1; x++ {
			row[x] = ci
		}
	}
}

func (rs *raster) rect(r rectItem) {
	if !r.noFill {
		rs.fill(r.x, r.y, r.x+r.w, r.y+r.h, rs.colorIndex(r.fill))
	}
	if sw := r.sw; sw > 0 {
		ci := rs.colorIndex(r.stroke)
		rs.fill(r.x, r.y, r.x+r.w, r.y+sw, ci)
		rs.fill(r.x, r.y+r.h-sw, r.x+r.w, r.y+r.h, ci)
		rs.fill(r.x, r.y, r.x+sw, r.y+r.h, ci)
		rs.fill(r.x+r.w-sw, r.y, r.x+r.w, r.y+r.h, ci)
	}
}

func (rs *raster) text(t textItem) {
	ci := rs.colorIndex(t.col)
	s := max(t.scale, 1)
	x := t.x
	for _, ch := range t.s {
		gl, ok := glyphs[ch]
		if !ok {
			gl = glyphs['?']
		}
		for row, bits := range gl {
			for col := 0; col < 5; col++ {
				if bits&(0x10>>col) != 0 {
					px, py := x+col*s, t.y+row*s
					rs.fill(px, py, px+s, py+s, ci)
				}
			}
		}
		x += charW * s
	}
}
