package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The app's chrome. Cells of the grids take their colours from the render
// package's palette (render.AppendGrid); these styles only frame them.
// Colours are written as xterm-256 indices; under NO_COLOR the program
// runs with an ASCII colour profile, which keeps bold, underline and
// reverse video and drops every colour.
var (
	styleTabActive = lipgloss.NewStyle().Bold(true).Reverse(true)
	styleTab       = lipgloss.NewStyle()
	styleTitle     = lipgloss.NewStyle().Bold(true)
	styleDim       = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	styleKey       = lipgloss.NewStyle().Bold(true)
	styleErr       = lipgloss.NewStyle().Foreground(lipgloss.Color("203")).Bold(true)
	styleWarn      = lipgloss.NewStyle().Foreground(lipgloss.Color("214"))
	styleOK        = lipgloss.NewStyle().Foreground(lipgloss.Color("114"))
	styleSel       = lipgloss.NewStyle().Reverse(true)
	styleRule      = lipgloss.NewStyle().Foreground(lipgloss.Color("240"))
)

// cellWidth is the number of terminal cells s takes, escape sequences
// left out. The app's text is ASCII, box drawing, arrows and a few
// symbols, all one cell wide: those are counted directly (a full redraw of
// a 64x256 grid measures about 70 lines of 500 cells); anything else goes
// to ansi.StringWidth.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			if i+1 >= len(s) || s[i+1] != '[' {
				return ansi.StringWidth(s)
			}
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
		case c < 0x80:
			if c >= 0x20 {
				n++
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrow(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		}
	}
	return n
}

// narrow reports whether r is one of the one-cell symbols the app draws.
func narrow(r rune) bool {
	switch {
	case r >= 0x2500 && r <= 0x259f: // box drawing, blocks
		return true
	case r >= 0x2190 && r <= 0x21ff: // arrows
		return true
	}
	switch r {
	case '…', '▶', '·', '×', '•', '↑', '↓', '←', '→':
		return true
	}
	return false
}

// fitLine cuts s (which may hold ANSI escapes) to at most w cells and pads
// it with blanks to exactly w.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := cellWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "")
		n = ansi.StringWidth(s)
		if strings.Contains(s, "\x1b[") {
			s += "\x1b[0m" // the cut may have dropped the closing reset
		}
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// fitStatus is fitLine for a status line: a line too long for the screen
// ends in "…", so that the cut shows.
func fitStatus(s string, w int) string {
	if w > 1 && cellWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
		if strings.Contains(s, "\x1b[") {
			s += "\x1b[0m"
		}
	}
	return fitLine(s, w)
}

// fitBlock returns exactly h lines of exactly w cells: s's lines cut or
// padded, missing lines blank.
func fitBlock(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	var b strings.Builder
	b.Grow(len(s) + h*(w+8))
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(fitLine(l, w))
	}
	return b.String()
}

// sideBySide joins two blocks of h lines, left exactly lw cells wide, with
// a one-column rule between them.
func sideBySide(left, right string, lw, rw, h int) string {
	ls := strings.Split(fitBlock(left, lw, h), "\n")
	rs := strings.Split(fitBlock(right, rw, h), "\n")
	rule := styleRule.Render("│")
	var b strings.Builder
	b.Grow(len(left) + len(right) + h*(lw+rw+len(rule)+8))
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ls[i])
		b.WriteString(rule)
		b.WriteString(rs[i])
	}
	return b.String()
}

// wrap breaks plain text into lines of at most w cells at blanks, indenting
// continuation lines by indent blanks. Words longer than a line are cut.
func wrap(s string, w, indent int) []string {
	if w <= indent+4 {
		indent = 0
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		pad := ""
		for _, word := range strings.Fields(para) {
			for ansi.StringWidth(pad+word) > w && ansi.StringWidth(pad) < w {
				// A word that does not fit any line: cut it.
				if line != "" {
					out = append(out, line)
					line, pad = "", strings.Repeat(" ", indent)
				}
				cut := w - ansi.StringWidth(pad)
				out = append(out, pad+word[:min(cut, len(word))])
				word = word[min(cut, len(word)):]
				pad = strings.Repeat(" ", indent)
			}
			if word == "" {
				continue
			}
			switch {
			case line == "":
				line = pad + word
			case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				pad = strings.Repeat(" ", indent)
				line = pad + word
			}
		}
		if line != "" || len(out) == 0 || para == "" {
			out = append(out, line)
		}
	}
	return out
}

// section is a bold heading line.
func section(s string) string { return styleTitle.Render(s) }
