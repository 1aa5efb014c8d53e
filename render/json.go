package render

import (
	"encoding/json"
	"io"
)

// JSONGrid is the document WriteJSON emits: the grid's metadata, its
// panels and every non-void cell of the window with all of its owners.
type JSONGrid struct {
	Title  string      `json:"title"`
	Notes  []string    `json:"notes,omitempty"`
	Rows   int         `json:"rows"`
	Cols   int         `json:"cols"`
	Region JSONRegion  `json:"region"`
	Panels []JSONPanel `json:"panels"`
	Cells  []JSONCell  `json:"cells"`
}

// JSONRegion is the half-open window the cells come from.
type JSONRegion struct {
	Row0 int `json:"row0"`
	Row1 int `json:"row1"`
	Col0 int `json:"col0"`
	Col1 int `json:"col1"`
}

// JSONPanel describes one tile of the grid.
type JSONPanel struct {
	Name       string `json:"name,omitempty"`
	Title      string `json:"title"`
	Kind       string `json:"kind"` // "owners" or "offsets"
	Row0       int    `json:"row0"`
	Col0       int    `json:"col0"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	RowName    string `json:"row_name,omitempty"`
	ColName    string `json:"col_name,omitempty"`
	Transposed bool   `json:"transposed,omitempty"`
	Threads    int    `json:"threads,omitempty"`
	Values     int    `json:"values,omitempty"`
	ValsPerReg int    `json:"vals_per_reg,omitempty"`
	ElemBits   int    `json:"elem_bits,omitempty"`
	// TMEM panels: offsets are lane<<16 | column; CTAs > 1 splits the rows
	// over a CTA pair; SubBits is the width of elements that share a
	// 32-bit TMEM cell.
	TMEM    bool `json:"tmem,omitempty"`
	CTAs    int  `json:"ctas,omitempty"`
	SubBits int  `json:"sub_bits,omitempty"`
}

// JSONCell is one cell: its grid position, its panel and tile coordinate,
// and either its owners or its offset (with the bank where known).
type JSONCell struct {
	Row     int         `json:"row"`
	Col     int         `json:"col"`
	Panel   int         `json:"panel"`
	TileRow int         `json:"tile_row"`
	TileCol int         `json:"tile_col"`
	Owners  []JSONOwner `json:"owners,omitempty"`
	Offset  *int        `json:"offset,omitempty"`
	Bank    *int        `json:"bank,omitempty"`
	Tag     *int        `json:"tag,omitempty"`
	Label   string      `json:"label,omitempty"`
	// TMEM cells: the lane and column, the CTA of a pair (CTAs > 1) and
	// the byte of a sub-word element.
	Lane   *int `json:"tmem_lane,omitempty"`
	Column *int `json:"tmem_column,omitempty"`
	CTA    *int `json:"cta,omitempty"`
	Byte   *int `json:"byte,omitempty"`
}

// JSONOwner is one (thread, value) pair.
type JSONOwner struct {
	Thread int `json:"thread"`
	Value  int `json:"value"`
}

// ToJSON converts the window o.Region of g to its JSON document.
func ToJSON(g *Grid, o Options) (*JSONGrid, error) {
	win, err := o.Region.Resolve(g)
	if err != nil {
		return nil, err
	}
	doc := &JSONGrid{
		Title: g.Title, Notes: g.Notes, Rows: g.Rows, Cols: g.Cols,
		Region: JSONRegion(win),
		Panels: make([]JSONPanel, len(g.Panels)),
		Cells:  []JSONCell{},
	}
	for i, p := range g.Panels {
		doc.Panels[i] = JSONPanel{
			Name: p.Name, Title: p.Title, Kind: p.Kind.String(), Row0: p.Row0, Col0: p.Col0,
			Rows: p.Rows, Cols: p.Cols, RowName: p.RowName, ColName: p.ColName,
			Transposed: p.Transposed, Threads: p.Threads, Values: p.Values,
			ValsPerReg: p.ValsPerReg, ElemBits: p.ElemBits, TMEM: p.TMEM, SubBits: p.SubBits,
		}
		if p.TMEM && p.CTAs > 1 {
			doc.Panels[i].CTAs = p.CTAs
		}
	}
	owners := make([]JSONOwner, 0, len(g.Cells))
	for r := win.Row0; r < win.Row1; r++ {
		for c := win.Col0; c < win.Col1; c++ {
			cell := &g.Cells[r*g.Cols+c]
			p := g.PanelOf(cell)
			if p == nil {
				continue
			}
			jc := JSONCell{Row: r, Col: c, Panel: cell.Panel, TileRow: cell.Row, TileCol: cell.Col, Label: cell.Label}
			if p.Kind == Owners {
				start := len(owners)
				for _, ow := range cell.Owners {
					owners = append(owners, JSONOwner{ow.Thread, ow.Value})
				}
				jc.Owners = owners[start:len(owners):len(owners)]
			} else {
				jc.Offset = &cell.Offset
				if cell.Bank >= 0 {
					jc.Bank = &cell.Bank
				}
				if p.TMEM {
					jc.tmem(cell, p)
				}
			}
			if cell.Tag >= 0 {
				jc.Tag = &cell.Tag
			}
			doc.Cells = append(doc.Cells, jc)
		}
	}
	return doc, nil
}

// tmem sets a TMEM cell's lane, column, CTA and byte.
func (jc *JSONCell) tmem(c *Cell, p *Panel) {
	lane, col := TMEMLane(c.Offset), TMEMColumn(c.Offset)
	jc.Lane, jc.Column = &lane, &col
	if p.CTAs > 1 {
		cta := p.CTA(c.Row)
		jc.CTA = &cta
	}
	if p.SubBits > 0 {
		b := c.Byte
		jc.Byte = &b
	}
}

// WriteJSON writes the window o.Region of g as a JSONGrid document, one
// cell per line.
func WriteJSON(w io.Writer, g *Grid, o Options) error {
	doc, err := ToJSON(g, o)
	if err != nil {
		return err
	}
	cells := doc.Cells
	doc.Cells = nil
	head, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	// Replace the closing brace (and "cells": null) by the cells, one a line.
	b := head[:len(head)-1]
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	nullCells := []byte(`"cells": null`)
	if n := len(b) - len(nullCells); n >= 0 && string(b[n:]) == string(nullCells) {
		b = b[:n]
	}
	b = append(b, `"cells": [`...)
	for i := range cells {
		line, err := json.Marshal(&cells[i])
		if err != nil {
			return err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, line...)
	}
	b = append(b, "\n  ]\n}\n"...)
	_, err = w.Write(b)
	return err
}
