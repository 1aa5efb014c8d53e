package render

import (
	"fmt"
	"image/color"
	"strconv"
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
// with black text, ordered so that neighbouring keys differ in hue. Values
// use its first 16 entries (a key's colour is Palette[key mod 16]), lanes,
// banks and tags all 32. Threads and warps have their own colours
// (ThreadSwatch, WarpSwatch).
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

// WarpHues are the hues (degrees) of warps 0 to 7 (warp w mod 8): the four
// warps of a warpgroup are blue, orange, green and purple, far apart on
// the colour wheel.
var WarpHues = [8]float64{210, 30, 120, 285, 55, 180, 340, 250}

// ThreadColors is the number of distinct thread colours: 8 warps (hues)
// of 32 lanes (shades); thread t has colour t mod ThreadColors.
const ThreadColors = 8 * 32

// threadSwatches[t] is the colour of thread t: the hue of its warp, lighter
// for low lanes and darker for high ones (always readable with black text).
var threadSwatches = func() []Swatch {
	out := make([]Swatch, ThreadColors)
	for t := range out {
		out[t] = hslSwatch(WarpHues[t/32], 0.70, 0.90-0.30*float64(t%32)/31)
	}
	return out
}()

// warpSwatches[w] is the colour of warp w: its hue at the shade of lane 10.
var warpSwatches = func() []Swatch {
	out := make([]Swatch, len(WarpHues))
	for w := range out {
		out[w] = hslSwatch(WarpHues[w], 0.70, 0.80)
	}
	return out
}()

// ThreadSwatch is the colour of thread t under ColorThread: hue by warp
// (t/32 mod 8), shade by lane (light lane 0 to dark lane 31), so that T0,
// T16 and T32 differ (the same shade of one hue marks the same lane of a
// warp).
func ThreadSwatch(t int) Swatch { return threadSwatches[mod(t, ThreadColors)] }

// WarpSwatch is the colour of warp w under ColorWarp: the hue its threads
// have under ColorThread.
func WarpSwatch(w int) Swatch { return warpSwatches[mod(w, len(warpSwatches))] }

// hslSwatch converts hue h (degrees), saturation s and lightness l (0-1)
// to a swatch, with the nearest xterm-256 colour for terminals that have
// no 24-bit colour.
func hslSwatch(h, s, l float64) Swatch {
	c := (1 - abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - abs(fmod(hp, 2)-1))
	var r, g, b float64
	switch int(hp) % 6 {
	case 0:
		r, g, b = c, x, 0
	case 1:
		r, g, b = x, c, 0
	case 2:
		r, g, b = 0, c, x
	case 3:
		r, g, b = 0, x, c
	case 4:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	m := l - c/2
	to8 := func(v float64) uint8 { return uint8(min(max((v+m)*255+0.5, 0), 255)) }
	sw := Swatch{R: to8(r), G: to8(g), B: to8(b)}
	sw.Xterm = nearestXterm(sw.R, sw.G, sw.B)
	return sw
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func fmod(a, b float64) float64 { return a - b*float64(int(a/b)) }

// nearestXterm is the colour-cube entry (16-231) nearest to (r, g, b).
func nearestXterm(r, g, b uint8) uint8 {
	best, bestD := uint8(16), 1<<30
	for i := 16; i <= 231; i++ {
		s := xterm(uint8(i))
		dr, dg, db := int(s.R)-int(r), int(s.G)-int(g), int(s.B)-int(b)
		if d := dr*dr + dg*dg + db*db; d < bestD {
			best, bestD = uint8(i), d
		}
	}
	return best
}

// swatchOf is the colour of key k of scheme by: a thread's or a warp's
// own colour, else a palette entry.
func swatchOf(by ColorBy, k int) Swatch {
	switch by {
	case ColorThread:
		return ThreadSwatch(k)
	case ColorWarp:
		return WarpSwatch(k)
	}
	return Palette[mod(k, len(Palette))]
}

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
	case ColorThread:
		return ThreadColors
	case ColorWarp:
		return len(WarpHues)
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
		return mod(thread, ThreadColors)
	case ColorWarp:
		return mod(thread/32, len(WarpHues))
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
		return "colour = thread: hue = warp (mod 8), shade = lane (light lane 0 to dark lane 31)"
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

// legendRow is one line of a colour legend: an optional heading and the
// keys it shows, each with its label.
type legendRow struct {
	head   string
	keys   []int
	labels []string
}

// legendRows lists the keys the legend of scheme by shows for grid g: for
// threads, one row per warp the grid has (at most 8, the hues) with the
// shades of lanes 0, 8, 16, 24 and 31; for warps, the warps the grid has;
// else every key of the scheme.
func legendRows(by ColorBy, g *Grid) []legendRow {
	warps := legendWarps(g)
	switch by {
	case ColorThread:
		var rows []legendRow
		for w := 0; w < warps; w++ {
			r := legendRow{head: "warp " + strconv.Itoa(w)}
			for _, l := range []int{0, 8, 16, 24, 31} {
				t := 32*w + l
				r.keys = append(r.keys, t)
				r.labels = append(r.labels, "T"+strconv.Itoa(t))
			}
			rows = append(rows, r)
		}
		return rows
	case ColorWarp:
		var r legendRow
		for w := 0; w < warps; w++ {
			r.keys = append(r.keys, w)
			r.labels = append(r.labels, "W"+strconv.Itoa(w))
		}
		return []legendRow{r}
	}
	var r legendRow
	for k := 0; k < modulus(by); k++ {
		r.keys = append(r.keys, k)
		r.labels = append(r.labels, legendPrefix(by)+strconv.Itoa(k))
	}
	return []legendRow{r}
}

// legendWarps is the number of warps the legend shows for g: those of its
// owner panels' threads, or the 4 of a warpgroup for TMEM, at least 1 and
// at most the 8 hues.
func legendWarps(g *Grid) int {
	n := 0
	if g != nil {
		for i := range g.Panels {
			p := &g.Panels[i]
			switch {
			case p.Kind == Owners:
				n = max(n, (p.Threads+31)/32)
			case p.TMEM:
				n = max(n, 4)
			}
		}
	}
	return min(max(n, 1), len(WarpHues))
}
