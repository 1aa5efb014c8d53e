// Package jsonpos puts file:line:col on the errors of encoding/json, so
// that a bad launch file or provenance record says where it is bad.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Wrap returns err with the position of its offset in data: syntax errors
// become "name:line:col: message", type errors "name:line:col: DOC is a
// JSON object, not KIND" (doc names what the file holds: "a launch
// file"), and other errors "name: err".
func Wrap(name string, data []byte, err error, doc string) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := LineCol(data, int(se.Offset))
		return fmt.Errorf("%s:%d:%d: %v", name, line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := LineCol(data, int(te.Offset)-1) // Offset is just past the value's first byte
		return fmt.Errorf("%s:%d:%d: %s is a JSON object, not %s", name, line, col, doc, te.Value)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// LineCol returns the 1-based line and column of byte offset off in data
// (clamped to data).
func LineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
