package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// WriteHTML writes a standalone HTML page: the SVG picture of g inline,
// with a small script that, when the pointer rests on a cell, outlines
// every cell its threads hold; the tooltip lists all of the cell's owners.
func WriteHTML(w io.Writer, g *Grid, o Options) error {
	sc, _, err := buildScene(g, o)
	if err != nil {
		return err
	}
	b := make([]byte, 0, 256*len(sc.cells)+8192)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = appendEscaped(b, g.Title)
	b = append(b, "</title>\n"...)
	b = append(b, htmlStyle...)
	b = append(b, "</head>\n<body>\n<p class=\"hint\">Point at a cell: every cell held by the same thread is outlined, and the tooltip lists all owners.</p>\n"...)
	b = appendSVG(b, sc)
	b = append(b, htmlScript...)
	b = append(b, "</body>\n</html>\n"...)
	_, err = w.Write(b)
	return err
}

const htmlStyle = `<style>
body { margin: 12px; background: #fff; font-family: monospace; }
.hint { color: #555; }
g.hl rect, g.hl use { stroke: #000; stroke-width: 3px; }
</style>
`

// htmlScript outlines the cells of the threads of the cell under the
// pointer: a cell names one thread in its class (t5) or several in data-t
// ("0-31,64").
const htmlScript = `<script>
(function () {
  var svg = document.querySelector("svg");
  var cells = [];
  svg.querySelectorAll("g.row > g").forEach(function (g) {
    var ts = [], runs = g.getAttribute("data-t");
    if (runs) {
      runs.split(",").forEach(function (r) {
        var ab = r.split("-"), a = +ab[0], b = ab.length > 1 ? +ab[1] : a;
        ts.push([a, b]);
      });
    } else {
      g.classList.forEach(function (c) { if (/^t[0-9]+$/.test(c)) ts.push([+c.slice(1), +c.slice(1)]); });
    }
    cells.push({ g: g, ts: ts });
  });
  function overlaps(x, y) {
    for (var i = 0; i < x.length; i++)
      for (var j = 0; j < y.length; j++)
        if (x[i][0] <= y[j][1] && y[j][0] <= x[i][1]) return true;
    return false;
  }
  function clear() {
    svg.querySelectorAll("g.hl").forEach(function (e) { e.classList.remove("hl"); });
  }
  svg.addEventListener("mouseover", function (ev) {
    var g = ev.target.closest("g.row > g");
    clear();
    if (!g) return;
    var mine = null;
    cells.forEach(function (c) { if (c.g === g) mine = c.ts; });
    if (!mine || mine.length === 0) return;
    cells.forEach(function (c) { if (overlaps(mine, c.ts)) c.g.classList.add("hl"); });
  });
  svg.addEventListener("mouseleave", clear);
})();
</script>
`

// Format is an output format.
type Format string

// The formats.
const (
	FormatText Format = "text"
	FormatANSI Format = "ansi"
	FormatJSON Format = "json"
	FormatSVG  Format = "svg"
	FormatPNG  Format = "png"
	FormatHTML Format = "html"
)

// Formats lists every format, in the order help texts show them.
var Formats = []Format{FormatText, FormatANSI, FormatJSON, FormatSVG, FormatPNG, FormatHTML}

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	i, err := lookupName("format", s, names)
	if err != nil {
		return "", err
	}
	return Formats[i], nil
}

// FormatOf picks the format from a file name's extension: .txt, .ansi or
// .ans, .json, .svg, .png, .html or .htm.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt", ".text":
		return FormatText, nil
	case ".ansi", ".ans":
		return FormatANSI, nil
	case ".json":
		return FormatJSON, nil
	case ".svg":
		return FormatSVG, nil
	case ".png":
		return FormatPNG, nil
	case ".html", ".htm":
		return FormatHTML, nil
	}
	return "", fmt.Errorf("cannot tell the format of %q from its extension (use .txt, .ansi, .json, .svg, .png or .html, or --format)", path)
}

// Write renders g in format f.
func Write(w io.Writer, g *Grid, f Format, o Options) error {
	switch f {
	case FormatText:
		return WriteText(w, g, o)
	case FormatANSI:
		return WriteANSI(w, g, o)
	case FormatJSON:
		return WriteJSON(w, g, o)
	case FormatSVG:
		return WriteSVG(w, g, o)
	case FormatPNG:
		return WritePNG(w, g, o)
	case FormatHTML:
		return WriteHTML(w, g, o)
	}
	return fmt.Errorf("unknown format %q", f)
}
