package desc

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/render"
)

// DrawOptions controls DrawFootprint.
type DrawOptions struct {
	ANSI     bool // colour each cell by its core matrix (render.Palette's first 16 xterm-256 backgrounds)
	MaxLines int  // most 128-byte lines to draw; 0 means 512
}

// DrawFootprint draws the shared-memory region the reads cover: one line
// per 128 bytes (the 32 banks), one cell per 16-byte chunk (4 banks),
// each labeled core.row with the core matrix and row that read it; then
// lists each core matrix with the elements it holds and its 8 row
// addresses.
func DrawFootprint(w io.Writer, reads []CoreMatrixRead, op Operand, opts DrawOptions) error {
	if len(reads) == 0 {
		_, err := fmt.Fprintln(w, "no core matrices")
		return err
	}
	maxLines := opts.MaxLines
	if maxLines <= 0 {
		maxLines = 512
	}
	byChunk := map[uint32][]CoreMatrixRead{}
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
	lo, hi := Span(reads)
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
				text = fmt.Sprintf(" \x1b[30;48;5;%dm%-*s\x1b[0m", render.Palette[rs[0].Core%16].Xterm, cw, label)
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

func writeCoreList(b *strings.Builder, reads []CoreMatrixRead, op Operand) {
	per := 0
	if op.ElemBits > 0 {
		per = 128 / op.ElemBits
	}
	if op.Major == MajorK {
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
