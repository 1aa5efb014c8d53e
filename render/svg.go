package render

import (
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// WriteSVG writes g as a standalone SVG picture. Every owner of a cell is
// drawn: up to four as stacked, labelled bands in their own colours, more
// as coloured stripes under a lossless compact label; each cell's tooltip
// (<title>) lists all of its owners. A legend follows the grid.
func WriteSVG(w io.Writer, g *Grid, o Options) error {
	sc, _, err := buildScene(g, o)
	if err != nil {
		return err
	}
	b := make([]byte, 0, 256*len(sc.cells)+4096)
	b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"...)
	b = appendSVG(b, sc)
	_, err = w.Write(b)
	return err
}

// appendSVG appends the <svg> element of sc (no XML declaration, so that
// HTML can embed it). It is written to stay small for large grids (a
// wgmma.m64n64k16 MMA picture of 6,144 cells is under 1 MB): fills are CSS
// classes (one per colour), a cell is a <g> whose class gives its colour
// and, for one thread, the thread (t5), with data-t="0-31,64" for
// several; a cell's stripes are one rect with a shared gradient, and its
// border is its rect's stroke.
func appendSVG(b []byte, sc *scene) []byte {
	s := sc.scale
	w := newSVGWriter(sc)
	b = fmt.Appendf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d" xml:space="preserve">`+"\n",
		sc.w, sc.h, sc.w, sc.h, 10*s)
	b = append(b, "<title>"...)
	b = appendEscaped(b, sc.title)
	b = append(b, "</title>\n"...)
	b = w.appendStyle(b)
	b = fmt.Appendf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", sc.w, sc.h)
	for _, r := range sc.rects {
		b = w.appendRect(b, r, "")
	}
	for _, t := range sc.texts {
		b = appendText(b, t)
	}
	// Each row of cells is a group translated to its top edge, so that
	// the cells' y coordinates are small.
	row := -1
	for i := range sc.cells {
		cg := &sc.cells[i]
		if cg.y != row {
			if row >= 0 {
				b = append(b, "</g>\n"...)
			}
			row = cg.y
			b = fmt.Appendf(b, `<g class="row" transform="translate(0 %d)">`+"\n", row)
		}
		b = w.appendCell(b, cg)
	}
	if row >= 0 {
		b = append(b, "</g>\n"...)
	}
	for _, r := range sc.frames {
		b = w.appendRect(b, r, "")
	}
	return append(b, "</svg>\n"...)
}

// appendCell appends one cell's group, in coordinates relative to the
// top of its row (cg.y).
func (w *svgWriter) appendCell(b []byte, cg *cellGroup) []byte {
	rects := cg.rects
	if len(rects) > 0 && rects[len(rects)-1].noFill {
		rects = rects[:len(rects)-1] // the border: the fill rects' stroke
	}
	b = append(b, "<g"...)
	// One fill rect takes its colour from the group.
	inherit := len(rects) == 1 && cg.stripes == 0
	var cls []byte
	if inherit {
		cls = append(cls, w.fill[rects[0].fill]...)
	}
	if len(cg.threads) == 1 {
		if len(cls) > 0 {
			cls = append(cls, ' ')
		}
		cls = append(cls, 't')
		cls = strconv.AppendInt(cls, int64(cg.threads[0]), 10)
	}
	if len(cls) > 0 {
		b = append(b, ` class="`...)
		b = append(b, cls...)
		b = append(b, '"')
	}
	if len(cg.threads) > 1 {
		b = append(b, ` data-t="`...)
		b = appendRuns(b, cg.threads)
		b = append(b, '"')
	}
	b = append(b, "><title>"...)
	b = appendEscaped(b, cg.title)
	b = append(b, "</title>"...)
	rects = append([]rectItem(nil), rects...)
	for j := range rects {
		rects[j].y -= cg.y
	}
	if cg.stripes > 0 {
		first, last := rects[0], rects[cg.stripes-1]
		r := rectItem{x: first.x, y: first.y, w: last.x + last.w - first.x, h: first.h}
		b = w.appendRectFill(b, r, w.gradient[stripeKey(rects[:cg.stripes])])
		rects = rects[cg.stripes:]
	}
	for j, r := range rects {
		switch {
		case inherit && !r.noFill && r.sw == 0:
			// A shared rect of the cell's size, filled from the group.
			b = append(b, `<use href="#`...)
			b = append(b, w.size[[2]int{r.w, r.h}]...)
			b = fmt.Appendf(b, `" x="%d"`, r.x)
			if r.y != 0 {
				b = fmt.Appendf(b, ` y="%d"`, r.y)
			}
			b = append(b, "/>"...)
		case inherit:
			b = w.appendRectFill(b, r, "")
		case cg.stripes > 0 || (j > 0 && r.fill == colWhite):
			b = w.appendRectFill(b, r, "p") // the white plate under a compact label
		default:
			b = w.appendRect(b, r, "")
		}
	}
	for _, t := range cg.texts {
		t.y -= cg.y
		b = appendText(b, t)
	}
	return append(b, "</g>\n"...)
}

// svgWriter names the fills of a scene: a CSS class per colour and a
// gradient per sequence of stripe colours.
type svgWriter struct {
	size      map[[2]int]string // id of the shared rect of a cell size
	sizes     [][2]int
	fill      map[color.RGBA]string
	fills     []color.RGBA
	gradient  map[string]string
	gradients [][]color.RGBA
}

func newSVGWriter(sc *scene) *svgWriter {
	w := &svgWriter{fill: map[color.RGBA]string{}, gradient: map[string]string{}, size: map[[2]int]string{}}
	add := func(r rectItem) {
		if !r.noFill {
			w.class(r.fill)
		}
	}
	for _, r := range sc.rects {
		add(r)
	}
	for i := range sc.cells {
		cg := &sc.cells[i]
		rs := cg.rects
		if cg.stripes > 0 {
			k := stripeKey(rs[:cg.stripes])
			if _, ok := w.gradient[k]; !ok {
				w.gradient[k] = "g" + strconv.FormatInt(int64(len(w.gradients)), 36)
				var cols []color.RGBA
				for _, r := range rs[:cg.stripes] {
					cols = append(cols, r.fill)
				}
				w.gradients = append(w.gradients, cols)
			}
			rs = rs[cg.stripes:]
		}
		for _, r := range rs {
			add(r)
		}
		if len(rs) == 2 && rs[1].noFill && cg.stripes == 0 && !rs[0].noFill && rs[0].sw == 0 {
			// appendCell draws the one fill rect as a <use> of its size.
			if k := [2]int{rs[0].w, rs[0].h}; w.size[k] == "" {
				w.size[k] = "r" + strconv.Itoa(len(w.sizes))
				w.sizes = append(w.sizes, k)
			}
		}
	}
	for _, r := range sc.frames {
		add(r)
	}
	return w
}

// class returns the CSS class of fill colour c.
func (w *svgWriter) class(c color.RGBA) string {
	if n, ok := w.fill[c]; ok {
		return n
	}
	n := "f" + strconv.FormatInt(int64(len(w.fills)), 36)
	w.fill[c] = n
	w.fills = append(w.fills, c)
	return n
}

// stripeKey identifies a sequence of stripes by their colours.
func stripeKey(rs []rectItem) string {
	var b []byte
	for _, r := range rs {
		b = appendHex(b, r.fill)
	}
	return string(b)
}

// appendStyle appends the classes: the cell border, every fill, and the
// gradients of the stripes (hard stops, one band per colour).
func (w *svgWriter) appendStyle(b []byte) []byte {
	b = append(b, "<style>g g rect,g g use{stroke:#787878;stroke-width:1}g g text{fill:#000}.p{fill:#fff;stroke:none}"...)
	for _, c := range w.fills {
		b = append(b, '.')
		b = append(b, w.fill[c]...)
		b = append(b, "{fill:"...)
		b = appendHex(b, c)
		b = append(b, '}')
	}
	for i := range w.gradients {
		b = append(b, ".g"...)
		b = strconv.AppendInt(b, int64(i), 36)
		b = append(b, "{fill:url(#g"...)
		b = strconv.AppendInt(b, int64(i), 36)
		b = append(b, ")}"...)
	}
	b = append(b, "</style>\n"...)
	if len(w.gradients) == 0 && len(w.sizes) == 0 {
		return b
	}
	b = append(b, "<defs>"...)
	for i, sz := range w.sizes {
		b = fmt.Appendf(b, `<rect id="r%d" width="%d" height="%d"/>`, i, sz[0], sz[1])
	}
	for i, cols := range w.gradients {
		b = append(b, `<linearGradient id="g`...)
		b = strconv.AppendInt(b, int64(i), 36)
		b = append(b, `">`...)
		n := len(cols)
		for j, c := range cols {
			for _, at := range []int{j, j + 1} {
				b = fmt.Appendf(b, `<stop offset="%.4g" stop-color="`, float64(at)/float64(n))
				b = appendHex(b, c)
				b = append(b, `"/>`...)
			}
		}
		b = append(b, "</linearGradient>"...)
	}
	return append(b, "</defs>\n"...)
}

// appendRect appends r: its fill as a class, other attributes inline;
// class adds classes (the cell border "c").
func (w *svgWriter) appendRect(b []byte, r rectItem, class string) []byte {
	if !r.noFill {
		if class != "" {
			class += " "
		}
		class += w.fill[r.fill]
	}
	return w.appendRectFill(b, r, class)
}

// appendRectFill appends r with the classes class (which give its fill),
// or fill="none" for a frame.
func (w *svgWriter) appendRectFill(b []byte, r rectItem, class string) []byte {
	b = append(b, "<rect"...)
	if class != "" {
		b = append(b, ` class="`...)
		b = append(b, class...)
		b = append(b, '"')
	}
	b = fmt.Appendf(b, ` x="%d"`, r.x)
	if r.y != 0 {
		b = fmt.Appendf(b, ` y="%d"`, r.y)
	}
	b = fmt.Appendf(b, ` width="%d" height="%d"`, r.w, r.h)
	if r.noFill {
		b = append(b, ` fill="none"`...)
	}
	if r.sw > 0 {
		b = append(b, ` stroke="`...)
		b = appendHex(b, r.stroke)
		b = fmt.Appendf(b, `" stroke-width="%d"`, r.sw)
	}
	return append(b, "/>"...)
}

func appendText(b []byte, t textItem) []byte {
	b = fmt.Appendf(b, `<text x="%d" y="%d"`, t.x, t.y+glyphH*t.scale)
	if t.col != colBlack {
		b = append(b, ` fill="`...)
		b = appendHex(b, t.col)
		b = append(b, '"')
	}
	b = append(b, '>')
	b = appendEscaped(b, t.s)
	return append(b, "</text>\n"...)
}

func appendHex(b []byte, c color.RGBA) []byte {
	const hex = "0123456789abcdef"
	return append(b, '#', hex[c.R>>4], hex[c.R&15], hex[c.G>>4], hex[c.G&15], hex[c.B>>4], hex[c.B&15])
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func appendEscaped(b []byte, s string) []byte {
	if !strings.ContainsAny(s, `&<>"'`) {
		return append(b, s...)
	}
	return append(b, xmlEscaper.Replace(s)...)
}
