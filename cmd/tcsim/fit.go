package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
)

// terminalWidth is the width of the terminal f is, or 0 when f is a file
// or a pipe.
func terminalWidth(f *os.File) int {
	if !term.IsTerminal(f.Fd()) {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// printMatrix prints a rows×cols matrix, right-aligned in columns, with its
// row and column indices. width > 0 is the terminal's width: the columns
// that fit are shown, with a note saying how to see the rest (more);
// width 0 (a file or a pipe) prints every column.
func printMatrix(w io.Writer, rows, cols int, cell func(i, j int) string, width int, more string) {
	cells := make([][]string, rows)
	cw := len(fmt.Sprint(cols - 1))
	for i := range cells {
		cells[i] = make([]string, cols)
		for j := range cells[i] {
			cells[i][j] = cell(i, j)
			cw = max(cw, len(cells[i][j]))
		}
	}
	rw := len(fmt.Sprint(rows - 1))
	shown := cols
	if width > 0 {
		shown = max(1, min(cols, (width-rw)/(cw+1)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%*s", rw, "")
	for j := 0; j < shown; j++ {
		fmt.Fprintf(&b, " %*d", cw, j)
	}
	fmt.Fprintln(w, b.String())
	for i := range cells {
		b.Reset()
		fmt.Fprintf(&b, "%*d", rw, i)
		for j := 0; j < shown; j++ {
			fmt.Fprintf(&b, " %*s", cw, cells[i][j])
		}
		fmt.Fprintln(w, b.String())
	}
	if shown < cols {
		fmt.Fprintln(w, wrapWords(fmt.Sprintf("(columns 0..%d of %d fit this %d-column terminal; a pipe or a file gets all of them; %s)", shown-1, cols, width, more), width, ""))
	}
}
