package desc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/render"
)

// The pictures of a footprint, as render.Grid values that every renderer
// (text, ANSI, SVG, PNG, HTML) and the explorer's descriptor view draw:
// owners are (core matrix, row) pairs and each cell's tag is its core
// matrix, so that cells are coloured by core matrix.

// TileGrid draws the operand tile, MN x K elements, each labelled with the
// core matrix that reads it and coloured by it.
func TileGrid(reads []CoreMatrixRead, op Operand) (*render.Grid, error) {
	g, err := render.NewGrid(op.MN, op.K)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(render.Panel{Title: "operand tile", Kind: render.Owners, Rows: op.MN, Cols: op.K, RowName: "mn", ColName: "k", ElemBits: op.ElemBits}); err != nil {
		return nil, err
	}
	g.Corner = "mn/k"
	g.TagName = "core matrix"
	for _, rd := range reads {
		for mn := rd.MN0; mn < rd.MN1 && mn < op.MN; mn++ {
			for k := rd.K0; k < rd.K1 && k < op.K; k++ {
				c := g.At(mn, k)
				c.Owners = append(c.Owners, layouts.Owner{Thread: rd.Core, Value: rd.Row})
				c.Tag = rd.Core
				c.Label = strconv.Itoa(rd.Core)
				// The element's byte address: the row's 16 bytes in order.
				idx := (mn - rd.MN0) + (k - rd.K0)
				c.Offset = int(rd.Addr) + idx*op.ElemBits/8
				c.Bank = c.Offset / 4 % 32
			}
		}
	}
	return g, nil
}

// MemoryGrid draws the shared-memory bytes the reads cover: one row per
// 128-byte line, one cell per 16-byte chunk (4 banks), labelled core.row;
// "!" marks a chunk more than one row reads.
func MemoryGrid(reads []CoreMatrixRead) (*render.Grid, error) {
	lo, hi := Span(reads)
	if hi <= lo {
		return nil, fmt.Errorf("the descriptor reads no bytes")
	}
	first, last := lo>>7, (hi-1)>>7
	rows := int(last-first) + 1
	if rows > 1<<14 {
		return nil, fmt.Errorf("the reads span %d bytes, too many to draw", hi-lo)
	}
	g, err := render.NewGrid(rows, 8)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(render.Panel{Title: "shared memory", Kind: render.Owners, Rows: rows, Cols: 8, RowName: "line", ColName: "chunk"}); err != nil {
		return nil, err
	}
	g.Corner = "addr"
	g.TagName = "core matrix"
	g.RowLabels = make([]string, rows)
	for r := range g.RowLabels {
		g.RowLabels[r] = fmt.Sprintf("%05x", (first+uint32(r))<<7)
	}
	g.ColLabels = []string{"b0", "b4", "b8", "b12", "b16", "b20", "b24", "b28"}
	for r := range g.Cells {
		c := &g.Cells[r]
		c.Offset = int(first<<7) + 16*(r%8) + 128*(r/8)
		c.Bank = c.Offset / 4 % 32
		c.Label = "."
	}
	for _, rd := range reads {
		r := int(rd.Addr>>7 - first)
		col := int(rd.Addr >> 4 & 7)
		c := g.At(r, col)
		c.Owners = append(c.Owners, layouts.Owner{Thread: rd.Core, Value: rd.Row})
		if len(c.Owners) == 1 {
			c.Tag = rd.Core
			c.Label = fmt.Sprintf("%d.%d", rd.Core, rd.Row)
		} else if !strings.HasSuffix(c.Label, "!") {
			c.Label += "!"
		}
	}
	return g, nil
}
