package render

import (
	"fmt"
	"image/color"
)

// ColorBy chooses what a cell's colour encodes.
type ColorBy int

const (
	// ColorAuto colours owner panels by thread and offset panels by bank
	// when banks are known, else by offset.
	ColorAuto   ColorBy = iota
	ColorThread         // the thread index
	ColorWarp           // thread / 32
	ColorLane           // thread % 32
	ColorValue          // the value (register element) index
	ColorBank           // shared-memory bank
	ColorOffset         // the element offset
	ColorTag            // Cell.Tag, set by the package that built the grid
	ColorNone           // no colour
)

var colorNames = []string{"auto", "thread", "warp", "lane", "value", "bank", "offset", "tag", "none"}

// String returns the scheme as --color spells it.
func (c ColorBy) String() string {
	if c >= 0 && int(c) < len(colorNames) {
		return colorNames[c]
	}
	return fmt.Sprintf("ColorBy(%d)", int(c))
}

// ParseColorBy reads a --color value.
func ParseColorBy(s string) (ColorBy, error) {
	i, err := lookupName("colour scheme", s, colorNames)
	return ColorBy(max(i, 0)), err
}

// Swatch is one palette colour: an xterm-256 index for terminals and the
// same colour as RGB for pictures, so that all outputs agree.
type Swatch struct {
	Xterm   uint8
	R, G, B uint8
}

// RGBA returns the swatch as an image colour.
func (s Swatch) RGBA() color.RGBA { return color.RGBA{s.R, s.G, s.B, 255} }

// Hex returns "#rrggbb".
func (s Swatch) Hex() string { return fmt.Sprintf("#%02x%02x%02x", s.R, s.G, s.B) }

// xterm returns the swatch of colour-cube index i (16..231).
func xterm(i uint8) Swatch {
	lv := [6]uint8{0, 95, 135, 175, 215, 255}
	j := int(i) - 16
	return Swatch{Xterm: i, R: lv[j/36], G: lv[j/6%6], B: lv[j%6]}
}

// Palette is the stable 32-colour palette: light colours, all readable
// with black text, ordered so that neighbouring keys differ in hue.
// Threads and values use its first 16 entries (a key's colour is
// Palette[key mod 16]), lanes and banks all 32, warps the first 4.
var Palette = func() []Swatch {
	idx := []uint8{
		217, 159, 229, 147, 157, 219, 223, 153, 193, 183, 158, 218, 180, 116, 151, 181,
		174, 152, 186, 146, 114, 176, 179, 110, 150, 140, 115, 175, 137, 109, 108, 145,
	}
	out := make([]Swatch, len(idx))
	for i, x := range idx {
		out[i] = xterm(x)
	}
	return out
}()

// Fixed colours of the pictures.
var (
	colWhite  = color.RGBA{255, 255, 255, 255}
	colBlack  = color.RGBA{0, 0, 0, 255}
	colGrid   = color.RGBA{120, 120, 120, 255}
	colEmpty  = color.RGBA{235, 235, 235, 255}
	colHeader = color.RGBA{80, 80, 80, 255}
)

// schemeFor resolves ColorAuto for panel p.
func schemeFor(by ColorBy, p *Panel) ColorBy {
	if by != ColorAuto {
		return by
	}
	if p == nil || p.Kind == Owners {
		return ColorThread
	}
	if p.TMEM {
		return ColorWarp
	}
	if p.ElemBits > 0 {
		return ColorBank
	}
	return ColorOffset
}

// modulus is how many palette entries scheme by cycles through.
func modulus(by ColorBy) int {
	switch by {
	case ColorWarp:
		return 4
	case ColorLane, ColorBank:
		return 32
	}
	return 16
}

// ownerKey is the colour key of owner (thread, value) of cell c under
// scheme by, or -1 for none.
func ownerKey(by ColorBy, c *Cell, p *Panel, thread, value int) int {
	switch by {
	case ColorThread:
		return thread % 16
	case ColorWarp:
		return thread / 32 % 4
	case ColorLane:
		return thread % 32
	case ColorValue:
		return value % 16
	}
	return cellKey(by, c, p)
}

// cellKey is the colour key of a cell that has no owner to colour by. A
// cell of a TMEM panel takes its warp and lane from its TMEM lane: warp w
// (mod 4) reaches lanes 32w..32w+31.
func cellKey(by ColorBy, c *Cell, p *Panel) int {
	switch by {
	case ColorWarp:
		if p != nil && p.TMEM {
			return TMEMLane(c.Offset) / 32 % 4
		}
	case ColorLane:
		if p != nil && p.TMEM {
			return TMEMLane(c.Offset) % 32
		}
	case ColorBank:
		if c.Bank >= 0 {
			return c.Bank
		}
	case ColorOffset:
		return mod(c.Offset, 16)
	case ColorTag:
		if c.Tag >= 0 {
			return c.Tag % 32
		}
	}
	return -1
}

func mod(a, b int) int {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// legendPrefix is the letter that names a key of scheme by in legends.
func legendPrefix(by ColorBy) string {
	switch by {
	case ColorThread:
		return "T"
	case ColorWarp:
		return "W"
	case ColorLane:
		return "L"
	case ColorValue:
		return "V"
	case ColorBank:
		return "B"
	case ColorOffset:
		return "o"
	case ColorTag:
		return "#"
	}
	return ""
}

// legendText describes scheme by of grid g in words.
func legendText(by ColorBy, g *Grid) string {
	switch by {
	case ColorThread:
		return "colour = thread mod 16"
	case ColorWarp:
		return "colour = warp (thread / 32; for TMEM, lane / 32: the warp that can access the lane)"
	case ColorLane:
		return "colour = lane (thread mod 32; for TMEM, TMEM lane mod 32)"
	case ColorValue:
		return "colour = value mod 16"
	case ColorBank:
		return "colour = shared-memory bank ((byte offset / 4) mod 32)"
	case ColorOffset:
		return "colour = offset mod 16"
	case ColorTag:
		if g != nil && g.TagName != "" {
			return "colour = " + g.TagName + " mod 16"
		}
		return "colour = tag"
	}
	return ""
}
