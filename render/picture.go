package render

import (
	"fmt"
	"image/color"
	"strconv"

	"github.com/tcsim/tcsim/layouts"
)

// The pictures (SVG, PNG, HTML) are drawn from one scene of rectangles and
// text lines, so that every format shows the same thing. Text uses the 5x7
// font in a 6x11 box (times the scale); the SVG sets a monospace font of
// 10 px per scale unit, whose advance is the same 6 px.
const (
	charW      = 6  // advance per character, at scale 1
	lineH      = 11 // line height, at scale 1
	glyphH     = 7  // glyph rows above the baseline (an 8th row holds descenders)
	maxBands   = 4  // owners drawn as stacked labelled bands, at most
	maxStripes = 32 // owners drawn as coloured stripes, at most
)

type rectItem struct {
	x, y, w, h int
	fill       color.RGBA
	noFill     bool
	stroke     color.RGBA
	sw         int // stroke width; 0 for none
}

type textItem struct {
	x, y  int // top-left of the first glyph box
	s     string
	col   color.RGBA
	scale int
}

// cellGroup collects a cell's items so that SVG and HTML can attach its
// full owner list (a tooltip) and its threads (for highlighting).
type cellGroup struct {
	title   string
	threads []int
	rects   []rectItem
	texts   []textItem
	// stripes is the number of leading rects that are stripes of one
	// band (SVG draws them as one rect with a gradient).
	stripes int
	// y is the cell's top edge: SVG draws each grid row in a group
	// translated there.
	y int
}

type scene struct {
	w, h   int
	scale  int
	title  string
	rects  []rectItem // background, panel frames
	texts  []textItem // headers, legend
	cells  []cellGroup
	frames []rectItem // drawn on top of the cells
	// legend swatches are ordinary rects and texts.
}

// picLabels fits the labels of the picture cells: each owner of a cell
// with at most `bands` owners gets its own band and label; a cell with
// more owners gets the compact form, or a legend reference when even that
// does not fit.
type picCell struct {
	labels []string // one per band; a single label for offsets, compact or ref forms
	form   form
}

// MaxPictureCells bounds the cells an SVG, PNG or HTML picture draws (its
// window, after Options.Region): each costs hundreds of bytes of SVG and
// thousands of pixels. Text and JSON take grids up to MaxCells.
const MaxPictureCells = 1 << 18

func buildScene(g *Grid, o Options) (*scene, *plan, error) {
	pl, err := makePlan(g, o, 0)
	if err != nil {
		return nil, nil, err
	}
	win := pl.win
	if n := (win.Row1 - win.Row0) * (win.Col1 - win.Col0); n > MaxPictureCells {
		return nil, nil, fmt.Errorf("%d cells are too many for a picture (the limit is %d): draw a region, or write text or JSON", n, MaxPictureCells)
	}
	pcs, bands, chars := pictureLabels(g, o, win)
	refs := shortenLabels(g, win, pcs, chars)
	pl.lab.refs = refs

	s := o.Scale
	if s <= 0 {
		s = 2
		if (win.Col1-win.Col0)*(chars*charW+4)*2 > 4000 {
			s = 1
		}
	}
	b := &sceneBuilder{sc: &scene{scale: s, title: g.Title}, g: g, pl: pl, win: win, s: s,
		cw: charW * s, lh: lineH * s, margin: 8 * s}
	b.cellW = chars*b.cw + 4*s
	b.cellH = bands * b.lh
	b.y = b.margin
	b.header()
	b.axes()
	b.cells(pcs)
	b.panelFrames()
	b.y = b.y0 + (win.Row1-win.Row0)*b.cellH + b.lh
	b.widest = max(b.widest, b.x0+(win.Col1-win.Col0)*b.cellW)
	if !o.NoLegend {
		b.legend(len(refs) > 0)
	}
	for _, e := range refs {
		b.addLine(b.margin, fmt.Sprintf("*%d (%s,%s): %s", e.Ref, g.RowLabel(e.Pos.Row), g.ColLabel(e.Pos.Col), AppendCompact(nil, e.Cell.Owners)), colHeader)
	}
	b.sc.w = max(b.widest, b.x0+(win.Col1-win.Col0)*b.cellW) + b.margin
	b.sc.h = b.y + b.margin
	return b.sc, pl, nil
}

// pictureLabels fits the labels of the window's cells: how many owners
// get their own labelled band (rows are as tall as the most owners a
// banded cell has; cells with more owners than maxBands get stripes and
// one label instead), each cell's labels, and the character width of a
// cell.
func pictureLabels(g *Grid, o Options, win Region) (pcs []picCell, bands, chars int) {
	bands = 1
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			if n := len(g.Cells[r*g.Cols+c].Owners); n <= maxBands {
				bands = max(bands, n)
			}
		}
	}
	pcs = make([]picCell, (win.Row1-win.Row0)*(win.Col1-win.Col0))
	chars = 1
	if o.CellWidth > 0 {
		chars = o.CellWidth
	}
	var scratch []byte
	i := 0
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			cell := &g.Cells[r*g.Cols+c]
			pc := &pcs[i]
			i++
			p := g.PanelOf(cell)
			switch {
			case p == nil:
				pc.form = formVoid
			case cell.Label != "":
				pc.labels = []string{cell.Label}
			case p.Kind == Owners && len(cell.Owners) == 0:
				pc.form = formEmpty
				pc.labels = []string{"."}
			case p.Kind == Owners && len(cell.Owners) <= bands:
				for _, ow := range cell.Owners {
					scratch = AppendOwners(scratch[:0], []layouts.Owner{ow})
					pc.labels = append(pc.labels, string(scratch))
				}
			case p.Kind == Owners:
				pc.form = formCompact
				pc.labels = []string{string(AppendCompact(scratch[:0], cell.Owners))}
			default:
				pc.labels = []string{string(appendBase(scratch[:0], cell, p, o.Label))}
			}
			if o.CellWidth <= 0 {
				for _, l := range pc.labels {
					chars = max(chars, min(len([]rune(l)), AutoWidthLimit))
				}
			}
		}
	}
	for c := win.Col0; c < win.Col1; c++ {
		chars = max(chars, len(g.ColLabel(c)))
	}
	return pcs, bands, chars
}

// shortenLabels cuts the labels that do not fit chars characters; a
// compact owner list that does not fit becomes a reference *N into the
// legend, which it returns.
func shortenLabels(g *Grid, win Region, pcs []picCell, chars int) []legendEntry {
	var refs []legendEntry
	i := 0
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			pc := &pcs[i]
			i++
			cell := &g.Cells[r*g.Cols+c]
			for k, l := range pc.labels {
				if len([]rune(l)) <= chars {
					continue
				}
				if pc.form == formCompact {
					ref := len(refs) + 1
					refs = append(refs, legendEntry{Ref: ref, Pos: Pos{r, c}, Cell: cell})
					pc.labels[k] = string(appendCut(nil, []byte("*"+strconv.Itoa(ref)), chars))
					pc.form = formRef
				} else {
					pc.labels[k] = string(appendCut(nil, []byte(l), chars))
				}
			}
		}
	}
	return refs
}

// sceneBuilder lays a picture out from the top down: y is the next line,
// widest the right edge so far; x0, y0 are the grid's top-left corner.
type sceneBuilder struct {
	sc                *scene
	g                 *Grid
	pl                *plan
	win               Region
	s, cw, lh, margin int
	cellW, cellH      int
	x0, y0, y, widest int
}

// addLine puts a line of text at x on the next line.
func (b *sceneBuilder) addLine(x int, text string, col color.RGBA) {
	b.sc.texts = append(b.sc.texts, textItem{x: x, y: b.y + 2*b.s, s: text, col: col, scale: b.s})
	b.widest = max(b.widest, x+len([]rune(text))*b.cw)
	b.y += b.lh
}

// header draws the title, the notes and the window line.
func (b *sceneBuilder) header() {
	g, win := b.g, b.win
	if g.Title != "" {
		b.addLine(b.margin, g.Title, colBlack)
	}
	for _, n := range g.Notes {
		if b.pl.o.Clean {
			break
		}
		for i, l := range wrapText(n, NoteWidth) {
			if i > 0 {
				l = "  " + l
			}
			b.addLine(b.margin, l, colHeader)
		}
	}
	if !win.Whole(g) && !b.pl.o.Clean {
		b.addLine(b.margin, fmt.Sprintf("showing rows %d..%d of %d, cols %d..%d of %d",
			win.Row0, win.Row1-1, g.Rows, win.Col0, win.Col1-1, g.Cols), colHeader)
	}
	b.y += b.s * 4
}

// axes draws the corner, the column headers and the row labels, and sets
// the grid's corner (x0, y0).
func (b *sceneBuilder) axes() {
	g, win, s, cw, lh := b.g, b.win, b.s, b.cw, b.lh
	rowLabW := len(g.Corner)
	for r := win.Row0; r < win.Row1; r++ {
		rowLabW = max(rowLabW, len(g.RowLabel(r)))
	}
	b.x0 = b.margin + rowLabW*cw + 4*s
	if g.Corner != "" {
		b.sc.texts = append(b.sc.texts, textItem{x: b.margin, y: b.y + 2*s, s: g.Corner, col: colHeader, scale: s})
	}
	for c := win.Col0; c < win.Col1; c++ {
		l := g.ColLabel(c)
		x := b.x0 + (c-win.Col0)*b.cellW + (b.cellW-len(l)*cw)/2
		b.sc.texts = append(b.sc.texts, textItem{x: x, y: b.y + 2*s, s: l, col: colHeader, scale: s})
	}
	b.y += lh
	b.y0 = b.y
	for r := win.Row0; r < win.Row1; r++ {
		l := g.RowLabel(r)
		yy := b.y0 + (r-win.Row0)*b.cellH + (b.cellH-lh)/2
		b.sc.texts = append(b.sc.texts, textItem{x: b.x0 - 4*s - len(l)*cw, y: yy + 2*s, s: l, col: colHeader, scale: s})
	}
}

// cells draws every cell of the window.
func (b *sceneBuilder) cells(pcs []picCell) {
	g, win := b.g, b.win
	i := 0
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			pc := &pcs[i]
			i++
			if pc.form == formVoid {
				continue
			}
			cell := &g.Cells[r*g.Cols+c]
			x, yy := b.x0+(c-win.Col0)*b.cellW, b.y0+(r-win.Row0)*b.cellH
			b.sc.cells = append(b.sc.cells, cellScene(g, b.pl, cell, pc, x, yy, b.cellW, b.cellH, b.s))
		}
	}
}

// panelFrames frames each panel in the window and names it.
func (b *sceneBuilder) panelFrames() {
	g, win, s := b.g, b.win, b.s
	for pi := range g.Panels {
		p := &g.Panels[pi]
		r0, r1 := max(p.Row0, win.Row0), min(p.Row0+p.Rows, win.Row1)
		c0, c1 := max(p.Col0, win.Col0), min(p.Col0+p.Cols, win.Col1)
		if r0 >= r1 || c0 >= c1 {
			continue
		}
		fx, fy := b.x0+(c0-win.Col0)*b.cellW, b.y0+(r0-win.Row0)*b.cellH
		b.sc.frames = append(b.sc.frames, rectItem{x: fx, y: fy, w: (c1 - c0) * b.cellW, h: (r1 - r0) * b.cellH, noFill: true, stroke: colBlack, sw: s})
		if p.Name != "" && len(g.Panels) > 1 {
			// Name the operand in the blank row above it (or, for a panel
			// on the top row, in the blank column to its left).
			tx, ty := fx+2*s, fy-b.lh
			if r0 == 0 {
				tx, ty = fx-b.cw-2*s, fy
			}
			b.sc.texts = append(b.sc.texts, textItem{x: tx, y: ty + 2*s, s: p.Name, col: colBlack, scale: s})
		}
	}
}

// legend draws the colour keys, the coverage line and (refs) the heading
// of the references.
func (b *sceneBuilder) legend(refs bool) {
	g, s, cw, lh := b.g, b.s, b.cw, b.lh
	seen := map[ColorBy]bool{}
	for _, scm := range b.pl.scheme {
		if seen[scm] || scm == ColorNone {
			continue
		}
		seen[scm] = true
		b.addLine(b.margin, legendText(scm, g)+":", colBlack)
		for _, r := range legendRows(scm, g) {
			x := b.margin
			if r.head != "" {
				b.sc.texts = append(b.sc.texts, textItem{x: x, y: b.y + 2*s, s: r.head + ":", col: colBlack, scale: s})
				x += (len(r.head) + 2) * cw
			}
			for i, k := range r.keys {
				lab := r.labels[i]
				w := (len(lab)+1)*cw + 2*s
				if x+w > max(b.widest, 60*cw) {
					x = b.margin
					b.y += lh + 2*s
				}
				b.sc.rects = append(b.sc.rects, rectItem{x: x, y: b.y, w: w, h: lh, fill: swatchOf(scm, k).RGBA(), stroke: colGrid, sw: 1})
				b.sc.texts = append(b.sc.texts, textItem{x: x + cw/2 + s, y: b.y + 2*s, s: lab, col: colBlack, scale: s})
				x += w + 2*s
			}
			b.y += lh + 2*s
		}
		b.y += 4 * s
	}
	if cov := coverageLine(g); cov != "" {
		b.addLine(b.margin, cov, colHeader)
	}
	if refs {
		b.addLine(b.margin, "owners of cells marked *N (Ta-bVv = threads a..b hold value v):", colBlack)
	}
}

// cellScene draws one cell: bands for a few owners, stripes for many, a
// plain fill for offsets.
func cellScene(g *Grid, pl *plan, cell *Cell, pc *picCell, x, y, w, h, s int) cellGroup {
	cg := cellGroup{y: y}
	p := g.PanelOf(cell)
	scheme := pl.scheme[cell.Panel]
	keyCol := func(k int) color.RGBA {
		if k < 0 {
			return colWhite
		}
		return swatchOf(scheme, k).RGBA()
	}
	center := func(label string, top, height int) {
		n := len([]rune(label))
		cg.texts = append(cg.texts, textItem{
			x: x + (w-n*charW*s)/2, y: top + (height-glyphH*s)/2,
			s: label, col: colBlack, scale: s,
		})
	}
	tile := fmt.Sprintf("%s=%d %s=%d", orName(p.RowName, "row"), cell.Row, orName(p.ColName, "col"), cell.Col)
	switch {
	case pc.form == formEmpty:
		cg.title = tile + ": no owner"
		cg.rects = append(cg.rects, rectItem{x: x, y: y, w: w, h: h, fill: colEmpty})
		center(".", y, h)
	case p.Kind == Owners && cell.Label == "" && pc.form == formFull:
		cg.title = tile + ": " + string(AppendOwners(nil, cell.Owners))
		k := len(cell.Owners)
		for b, ow := range cell.Owners {
			top, bot := y+b*h/k, y+(b+1)*h/k
			cg.rects = append(cg.rects, rectItem{x: x, y: top, w: w, h: bot - top, fill: keyCol(ownerKey(scheme, cell, p, ow.Thread, ow.Value))})
			center(pc.labels[b], top, bot-top)
		}
	case p.Kind == Owners && cell.Label == "":
		// The compact form lists every owner too, in far fewer bytes.
		cg.title = tile + ": " + string(AppendCompact(nil, cell.Owners))
		// One stripe per distinct colour among the owners, in owner order;
		// when there are more than fit, colours picked evenly among them
		// (a warpgroup's broadcast shows all four warps' hues).
		var keys []int
		seen := map[int]bool{}
		for _, ow := range cell.Owners {
			if k := ownerKey(scheme, cell, p, ow.Thread, ow.Value); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if limit := max(min(maxStripes, w), 1); len(keys) > limit {
			picked := make([]int, limit)
			for j := range picked {
				picked[j] = keys[j*len(keys)/limit]
			}
			keys = picked
		}
		n := len(keys)
		for j, k := range keys {
			l, r := x+j*w/n, x+(j+1)*w/n
			cg.rects = append(cg.rects, rectItem{x: l, y: y, w: r - l, h: h, fill: keyCol(k)})
		}
		cg.stripes = n
		// A white plate keeps the compact label readable over the stripes.
		n = len([]rune(pc.labels[0]))
		pw, ph := n*charW*s+2*s, glyphH*s+2*s
		cg.rects = append(cg.rects, rectItem{x: x + (w-pw)/2, y: y + (h-ph)/2, w: pw, h: ph, fill: colWhite})
		center(pc.labels[0], y, h)
	default:
		k := -1
		if len(cell.Owners) > 0 {
			k = ownerKey(scheme, cell, p, cell.Owners[0].Thread, cell.Owners[0].Value)
		} else {
			k = cellKey(scheme, cell, p)
		}
		if p.Kind == Offsets {
			cg.title = fmt.Sprintf("%s: offset %d", tile, cell.Offset)
			if cell.Bank >= 0 {
				cg.title += fmt.Sprintf(", bank %d", cell.Bank)
			}
		} else {
			cg.title = tile + ": " + string(AppendOwners(nil, cell.Owners))
		}
		if cell.Label != "" {
			cg.title += " (" + cell.Label + ")"
		}
		cg.rects = append(cg.rects, rectItem{x: x, y: y, w: w, h: h, fill: keyCol(k)})
		center(pc.labels[0], y, h)
	}
	for _, ow := range cell.Owners {
		if n := len(cg.threads); n == 0 || cg.threads[n-1] != ow.Thread {
			cg.threads = append(cg.threads, ow.Thread)
		}
	}
	cg.rects = append(cg.rects, rectItem{x: x, y: y, w: w, h: h, noFill: true, stroke: colGrid, sw: 1})
	return cg
}

func orName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
