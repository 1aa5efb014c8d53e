package ptx

import (
	"fmt"
	"unicode/utf8"
)

// sniffLen is how much of the input checkText looks at.
const sniffLen = 8192

// checkText returns an error when src is not text: it holds a NUL byte, or
// more than 1 in 32 of its first 8 KB are control characters or invalid
// UTF-8. A stray bad byte in a text file is left to the scanner, which
// reports it as an illegal character.
func checkText(filename string, src string) *Error {
	n := min(len(src), sniffLen)
	first, bad, nul := -1, 0, false
	for i := 0; i < n; {
		c := src[i]
		size := 1
		ok := c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
		if c >= 0x80 {
			r, sz := utf8.DecodeRuneInString(src[i:])
			ok, size = r != utf8.RuneError || sz > 1, sz
			if i+sz > n && r == utf8.RuneError && i+4 > n {
				ok = true // a character cut by the 8 KB window
			}
		}
		if c == 0 {
			nul = true
		}
		if !ok {
			bad++
			if first < 0 {
				first = i
			}
		}
		i += size
	}
	if first < 0 || !nul && bad*32 <= n {
		return nil
	}
	what := "binary file, not PTX text"
	switch {
	case len(src) >= 4 && src[:4] == "\x7fELF":
		what = "ELF file (a cubin or an executable), not PTX text"
	case len(src) >= 2 && src[:2] == "\x1f\x8b":
		what = "gzip-compressed file, not PTX text"
	}
	line, col := int32(1), int32(1)
	for i := 0; i < first; i++ {
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{
		Pos:  Position{filename, Pos{line, col}},
		Msg:  fmt.Sprintf("%s: byte 0x%02x at offset %d is not text", what, src[first], first),
		Hint: "give the PTX that nvcc -ptx writes, or extract it from a binary with cuobjdump -ptx",
	}
}
