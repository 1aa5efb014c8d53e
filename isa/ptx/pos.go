package ptx

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a PTX source file: a 1-based line and column (in
// bytes). The zero Pos means "no position".
type Pos struct {
	Line, Col int32
}

// IsValid reports whether p names a position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as "line:col", or "-" when p is not valid.
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Before reports whether p comes before q in the file.
func (p Pos) Before(q Pos) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// Position is a Pos together with the name of its file.
type Position struct {
	Filename string
	Pos
}

// String formats the position as "file:line:col" (without the file name
// when it is empty).
func (p Position) String() string {
	s := p.Pos.String()
	if p.Filename != "" {
		s = p.Filename + ":" + s
	}
	return s
}

// Error is one diagnostic: where, what, and (optionally) how to fix it.
type Error struct {
	Pos  Position
	Msg  string // what is wrong, naming the offending token
	Hint string // a suggestion; may be empty
	// Warning marks code that ptxas accepts but that is wrong or
	// undefined at run time (a 32-bit generic address, a misaligned
	// mbarrier ...).
	Warning bool
}

// Error formats the diagnostic as "file:line:col: message (hint)", with
// "warning: " before the message for warnings.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if e.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// ErrorList is a list of diagnostics. Like go/scanner.ErrorList it is
// itself an error; the zero value is an empty list.
type ErrorList []*Error

// Add appends an error at pos. Messages longer than MaxMsg bytes (which
// quote a huge token) are shortened in the middle.
func (l *ErrorList) Add(pos Position, msg, hint string) {
	*l = append(*l, &Error{Pos: pos, Msg: Clip(msg), Hint: Clip(hint)})
}

// MaxMsg bounds the length of a diagnostic's message.
const MaxMsg = 300

// Clip shortens s to about MaxMsg bytes, keeping its start and end and
// saying how much was left out.
func Clip(s string) string {
	if len(s) <= MaxMsg {
		return s
	}
	head, tail := s[:200], s[len(s)-60:]
	for len(head) > 0 && !utf8.RuneStart(s[len(head)]) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s…(%d bytes)…%s", head, len(s)-len(head)-len(tail), tail)
}

// Len, Swap and Less implement sort.Interface, ordering by position.
func (l ErrorList) Len() int { return len(l) }

// Swap implements sort.Interface.
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }

// Less implements sort.Interface: by file, line, column, then message.
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return l[i].Msg < l[j].Msg
}

// Sort sorts the list by file, line, column and message.
func (l ErrorList) Sort() { sort.Stable(l) }

// RemoveMultiples sorts the list and removes exact duplicates (same
// position and message).
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			p := (*l)[i-1]
			if p.Pos == e.Pos && p.Msg == e.Msg {
				continue
			}
		}
		out = append(out, e)
	}
	*l = out
}

// Error returns the first error and the number of further errors.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
