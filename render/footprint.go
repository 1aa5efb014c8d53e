package render

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/layouts"
)

// The pictures of a descriptor's footprint (desc.Footprint: which
// shared-memory bytes each core matrix of an operand reads). DrawFootprint
// writes the text picture `tcsim desc --draw` prints; FootprintTileGrid and
// FootprintMemoryGrid build Grid values that every renderer (text, ANSI,
// SVG, PNG, HTML) and the explorer's descriptor view draw: owners are
// (core matrix, row) pairs and each cell's tag is its core matrix, so that
// cells are coloured by core matrix.

// FootprintOptions controls DrawFootprint.
type FootprintOptions struct {
	ANSI     bool // colour each cell by its core matrix (Palette's first 16 xterm-256 backgrounds)
	MaxLines int  // most 128-byte lines to draw; 0 means 512
}

// DrawFootprint draws the shared-memory region the reads cover: one line
// per 128 bytes (the 32 banks), one cell per 16-byte chunk (4 banks),
// each labeled core.row with the core matrix and row that read it; then
// lists each core matrix with the elements it holds and its 8 row
// addresses.
func DrawFootprint(w io.Writer, reads []desc.CoreMatrixRead, op desc.Operand, opts FootprintOptions) error {
	if len(reads) == 0 {
		_, err := fmt.Fprintln(w, "no core matrices")
		return err
	}
	maxLines := opts.MaxLines
	if maxLines <= 0 {
		maxLines = 512
	}
	byChunk := map[uint32][]desc.CoreMatrixRead{}
	lineSet := map[uint32]bool{}
	for _, r := range reads {
		byChunk[r.Addr>>4] = append(byChunk[r.Addr>>4], r)
		lineSet[r.Addr>>7] = true
	}
	lines := make([]uint32, 0, len(lineSet))
	for l := range lineSet {
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i] < lines[j] })
	lo, hi := desc.Span(reads)
	cw := 5
	for _, r := range reads {
		cw = max(cw, len(fmt.Sprintf("%d.%d", r.Core, r.Row))+1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "shared memory 0x%05x-0x%05x (%d bytes)\none line per 128 bytes (32 banks), one cell per 16-byte chunk, labeled core.row\n", lo, hi-1, hi-lo)
	head := func(label string, cell func(c int) string) {
		var h strings.Builder
		fmt.Fprintf(&h, "%-9s", label)
		for c := 0; c < 8; c++ {
			fmt.Fprintf(&h, " %-*s", cw, cell(c))
		}
		b.WriteString(strings.TrimRight(h.String(), " ") + "\n")
	}
	head("  offset", func(c int) string { return fmt.Sprintf("+%d", 16*c) })
	head("  banks", func(c int) string { return fmt.Sprintf("%d-%d", 4*c, 4*c+3) })
	overlaps := 0
	for i, l := range lines {
		if i >= maxLines {
			fmt.Fprintf(&b, "  ... %d more lines not drawn\n", len(lines)-maxLines)
			break
		}
		if i > 0 && l != lines[i-1]+1 {
			fmt.Fprintf(&b, "  ...      (%d bytes not read)\n", (l-lines[i-1]-1)*128)
		}
		var line strings.Builder
		fmt.Fprintf(&line, "  0x%05x", l<<7)
		for c := uint32(0); c < 8; c++ {
			rs := byChunk[l<<3|c]
			label := "."
			if len(rs) > 0 {
				label = fmt.Sprintf("%d.%d", rs[0].Core, rs[0].Row)
			}
			if len(rs) > 1 {
				label += "!"
				overlaps++
			}
			text := fmt.Sprintf(" %-*s", cw, label)
			if opts.ANSI && len(rs) > 0 {
				text = fmt.Sprintf(" \x1b[30;48;5;%dm%-*s\x1b[0m", Palette[rs[0].Core%16].Xterm, cw, label)
			}
			line.WriteString(text)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	if overlaps > 0 {
		fmt.Fprintf(&b, "  ! = %d chunks read by more than one core-matrix row\n", overlaps)
	}
	writeCoreList(&b, reads, op)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCoreList(b *strings.Builder, reads []desc.CoreMatrixRead, op desc.Operand) {
	per := 0
	if op.ElemBits > 0 {
		per = 128 / op.ElemBits
	}
	if op.Major == desc.MajorK {
		fmt.Fprintf(b, "\ncore matrices (K-major: 8 M/N rows x 16 bytes = %d elements of K each):\n", per)
	} else {
		fmt.Fprintf(b, "\ncore matrices (MN-major: 8 K rows x 16 bytes = %d elements of M/N each):\n", per)
	}
	fmt.Fprintf(b, "  %-5s %-9s %-9s %s\n", "core", "M/N", "K", "address of row 0 .. row 7")
	for i := 0; i < len(reads); {
		j := i
		for j < len(reads) && reads[j].Core == reads[i].Core {
			j++
		}
		first, last := reads[i], reads[j-1]
		mn := fmt.Sprintf("%d-%d", min(first.MN0, last.MN0), max(first.MN1, last.MN1)-1)
		k := fmt.Sprintf("%d-%d", min(first.K0, last.K0), max(first.K1, last.K1)-1)
		addrs := make([]string, 0, j-i)
		for _, r := range reads[i:j] {
			addrs = append(addrs, fmt.Sprintf("0x%05x", r.Addr))
		}
		fmt.Fprintf(b, "  %-5d %-9s %-9s %s\n", first.Core, mn, k, strings.Join(addrs, " "))
		i = j
	}
}

// FootprintTileGrid draws the operand tile, MN x K elements, each labelled with the
// core matrix that reads it and coloured by it.
func FootprintTileGrid(reads []desc.CoreMatrixRead, op desc.Operand) (*Grid, error) {
	g, err := NewGrid(op.MN, op.K)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(Panel{Title: "operand tile", Kind: Owners, Rows: op.MN, Cols: op.K, RowName: "mn", ColName: "k", ElemBits: op.ElemBits}); err != nil {
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

// FootprintMemoryGrid draws the shared-memory bytes the reads cover: one row per
// 128-byte line, one cell per 16-byte chunk (4 banks), labelled core.row;
// "!" marks a chunk more than one row reads.
func FootprintMemoryGrid(reads []desc.CoreMatrixRead) (*Grid, error) {
	lo, hi := desc.Span(reads)
	if hi <= lo {
		return nil, fmt.Errorf("the descriptor reads no bytes")
	}
	first, last := lo>>7, (hi-1)>>7
	rows := int(last-first) + 1
	if rows > 1<<14 {
		return nil, fmt.Errorf("the reads span %d bytes, too many to draw", hi-lo)
	}
	g, err := NewGrid(rows, 8)
	if err != nil {
		return nil, err
	}
	if _, err := g.AddPanel(Panel{Title: "shared memory", Kind: Owners, Rows: rows, Cols: 8, RowName: "line", ColName: "chunk"}); err != nil {
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
