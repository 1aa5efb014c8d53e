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
// HTML can embed it).
func appendSVG(b []byte, sc *scene) []byte {
	s := sc.scale
	b = fmt.Appendf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n",
		sc.w, sc.h, sc.w, sc.h, 10*s)
	b = append(b, "<title>"...)
	b = appendEscaped(b, sc.title)
	b = append(b, "</title>\n"...)
	b = fmt.Appendf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", sc.w, sc.h)
	for _, r := range sc.rects {
		b = appendRect(b, r, "")
	}
	for _, t := range sc.texts {
		b = appendText(b, t)
	}
	for i := range sc.cells {
		cg := &sc.cells[i]
		b = append(b, `<g class="cell`...)
		for _, t := range cg.threads {
			b = append(b, " t"...)
			b = strconv.AppendInt(b, int64(t), 10)
		}
		b = append(b, `"><title>`...)
		b = appendEscaped(b, cg.title)
		b = append(b, "</title>"...)
		for j, r := range cg.rects {
			cls := ""
			if j == len(cg.rects)-1 {
				cls = "b" // the border, which HTML thickens to highlight
			}
			b = appendRect(b, r, cls)
		}
		for _, t := range cg.texts {
			b = appendText(b, t)
		}
		b = append(b, "</g>\n"...)
	}
	for _, r := range sc.frames {
		b = appendRect(b, r, "")
	}
	return append(b, "</svg>\n"...)
}

func appendRect(b []byte, r rectItem, class string) []byte {
	b = append(b, "<rect"...)
	if class != "" {
		b = append(b, ` class="`...)
		b = append(b, class...)
		b = append(b, '"')
	}
	b = fmt.Appendf(b, ` x="%d" y="%d" width="%d" height="%d"`, r.x, r.y, r.w, r.h)
	if r.noFill {
		b = append(b, ` fill="none"`...)
	} else {
		b = append(b, ` fill="`...)
		b = appendHex(b, r.fill)
		b = append(b, '"')
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
	b = append(b, ` xml:space="preserve">`...)
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
