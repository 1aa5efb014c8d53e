// Package input resolves what a user typed where tcsim expects a layout
// or a descriptor value: the one reading shared by the command line
// (tcsim layout, render, bitmath, desc) and the TUI (the layout explorer,
// the swizzle view, the descriptor view), so that they accept exactly the
// same texts.
//
// A layout text is, in this order of trial:
//
//   - a catalog atom's name (wgmma.m64n64.d.f32), or CuTe's name for one
//     (GMMA::Layout_K_SW128_Atom<half_t>);
//   - CuTe notation that package layouts parses: a plain or swizzled
//     layout ((8,8):(8,1), Sw<3,4,3> o (8,64):(64,1)), or a pasted CuTe
//     C++ type, CuTe printout or CuTe DSL repr;
//   - a layout-algebra expression whose value is a layout
//     (composition((4,8):(8,1), (8,4):(1,8)), logical_divide(...));
//
// optionally followed by a tile "RxC" (read the layout as a thread-value
// layout over an R×C tile) and an element width "bN" or "Nb" (show
// shared-memory banks), in either order.
//
// A descriptor value is a 64-bit number: 0x hex, 0b binary, 0o octal or
// decimal, with '_' or ”' between digits; bare digits that contain a-f
// are read as hex (the note says so). Where a descriptor goes, a
// CUtensorMap is accepted too: more than 20 hex digits are read as its 128
// bytes (256 hex digits in memory order, or sixteen 0x words;
// isa/tensormap.ParseHex).
package input

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/tensormap"
	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/layouts/expr"
)

// Layout is a resolved layout text. Exactly one of Atom and Layout is
// set.
type Layout struct {
	Text   string            // the text, trimmed
	Atom   *catalog.Atom     // a catalog atom
	Layout layouts.AnyLayout // a layout typed or computed (when Atom is nil)
	Expr   bool              // Layout is the value of an expression
	Notes  []string          // the expression evaluator's notes
	// Tile is a trailing "RxC" (rows, cols): Layout is a thread-value
	// layout over that tile. Zero without one.
	Tile [2]int
	// Bits is a trailing "bN": the element width of an offset layout, for
	// shared-memory banks. Zero without one.
	Bits int
}

// ErrEmpty is the error for an empty text.
var ErrEmpty = errors.New("empty: type an atom name or a layout such as (8,8):(8,1)")

// ParseLayout resolves a layout text (see the package doc). A syntax
// error of CuTe notation wraps a *layouts.ParseError (errors.As finds it,
// for a caret under the column); an unknown name gives the catalog's
// error with the nearest names.
func ParseLayout(text string) (*Layout, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, ErrEmpty
	}
	if a, err := catalog.Lookup(text); err == nil {
		return &Layout{Text: text, Atom: &a}, nil
	}
	// CuTe's name for an atom pasted as a value: GMMA::Layout_K_SW128_Atom<bf16>{}
	if t, ok := strings.CutSuffix(text, "{}"); ok && layouts.IsCuTeType(t) {
		if a, err := catalog.Lookup(strings.TrimSpace(t)); err == nil {
			return &Layout{Text: text, Atom: &a}, nil
		}
	}
	body, tile, bits := splitSuffixes(text)
	if body != text {
		if a, err := catalog.Lookup(body); err == nil {
			return nil, fmt.Errorf("%s is an atom with its own %dx%d tile and %d-bit elements; a tile or element width (%s) goes after a typed layout", a.Name, a.Rows, a.Cols, a.ElemBits, strings.TrimSpace(text[len(body):]))
		}
	}
	out := &Layout{Text: text, Tile: tile, Bits: bits}
	l, perr := layouts.ParseAnyLayout(body)
	if perr != nil {
		v, notes, eerr := expr.EvalNotes(body)
		switch {
		case eerr == nil && v.Kind == expr.KindLayout:
			l, perr = v.Layout, nil
			out.Expr, out.Notes = true, notes
		case LooksLikeName(body):
			if _, lerr := catalog.Lookup(body); lerr != nil && !strings.Contains(body, "(") {
				return nil, lerr
			}
			if eerr != nil {
				return nil, eerr
			}
			return nil, fmt.Errorf("%s is %s, not a layout: it evaluates to %s (tcsim layout eval prints values)", body, v.Kind, v)
		}
	}
	if perr != nil {
		var pe *layouts.ParseError
		if errors.As(perr, &pe) {
			return nil, fmt.Errorf("bad layout: %w", pe)
		}
		return nil, fmt.Errorf("bad layout %q: %w", body, perr)
	}
	if tile[0] > 0 && l.Composed {
		return nil, fmt.Errorf("%v is swizzled; a thread-value layout (with a tile %dx%d) must be a plain layout", l, tile[0], tile[1])
	}
	out.Layout = l
	return out, nil
}

// splitSuffixes takes a trailing tile "RxC" and element width "bN" (or
// "Nb") off text, each at most once, in either order.
func splitSuffixes(text string) (body string, tile [2]int, bits int) {
	body = text
	for {
		i := strings.LastIndexAny(body, " \t")
		if i < 0 {
			return body, tile, bits
		}
		tok := strings.ToLower(body[i+1:])
		if r, c, ok := ParseTile(tok); ok && tile[0] == 0 {
			tile = [2]int{r, c}
		} else if b, ok := parseBits(tok); ok && bits == 0 {
			bits = b
		} else {
			return body, tile, bits
		}
		body = strings.TrimSpace(body[:i])
	}
}

// maxTileDim bounds each side of a tile, so that rows*cols cannot
// overflow; what can be drawn is bounded further by package render.
const maxTileDim = 1 << 24

// ParseTile reads a tile "RxC" (e.g. 64x16): positive integers of at
// most 2^24 each.
func ParseTile(s string) (rows, cols int, ok bool) {
	r, c, found := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	rows, err1 := strconv.Atoi(strings.TrimSpace(r))
	cols, err2 := strconv.Atoi(strings.TrimSpace(c))
	if !found || err1 != nil || err2 != nil || rows <= 0 || cols <= 0 || rows > maxTileDim || cols > maxTileDim {
		return 0, 0, false
	}
	return rows, cols, true
}

// parseBits reads an element width "b16" or "16b" (1 to 1024).
func parseBits(s string) (int, bool) {
	t := strings.TrimSuffix(strings.TrimPrefix(s, "b"), "b")
	if t == s || t == "" {
		return 0, false
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n > 1024 {
		return 0, false
	}
	return n, true
}

// LooksLikeName tells an atom name from layout notation: names start with
// a letter; layouts with a digit, '(' or '_', with "Sw<" or "S<", or are
// pasted CuTe types (Layout<...>, GMMA::Layout_K_SW128_Atom<T>).
func LooksLikeName(s string) bool {
	if s == "" || strings.HasPrefix(s, "Sw<") || strings.HasPrefix(s, "Swizzle<") || strings.HasPrefix(s, "S<") || layouts.IsCuTeType(s) {
		return false
	}
	c := s[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ParseValue reads a descriptor value (see the package doc). The note
// says how a value without a base prefix was read: as decimal, or as hex
// because it has a-f digits; it is "" for 0x, 0b and 0o.
func ParseValue(s string) (v uint64, note string, err error) {
	t := strings.TrimSpace(s)
	t = strings.NewReplacer("_", "", "'", "").Replace(t)
	if t == "" {
		return 0, "", fmt.Errorf("empty value")
	}
	lower := strings.ToLower(t)
	base := 10
	switch {
	case strings.HasPrefix(lower, "0x"):
		lower, base = lower[2:], 16
	case strings.HasPrefix(lower, "0b"):
		lower, base = lower[2:], 2
	case strings.HasPrefix(lower, "0o"):
		lower, base = lower[2:], 8
	case strings.ContainsAny(lower, "abcdef"):
		base = 16
		note = fmt.Sprintf("%q read as hexadecimal (write 0x to say so)", s)
	default:
		note = fmt.Sprintf("%q read as decimal (write 0x for hexadecimal)", s)
	}
	if lower == "" {
		return 0, "", fmt.Errorf("%q has no digits after %s", s, t[:2])
	}
	v, err = strconv.ParseUint(lower, base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, "", fmt.Errorf("%q does not fit in 64 bits", s)
		}
		digits := map[int]string{2: "binary digits", 8: "octal digits", 10: "decimal digits (or 0x and hex digits)", 16: "hex digits"}[base]
		return 0, "", fmt.Errorf("%q is not a number: want %s", s, digits)
	}
	return v, note, nil
}

// IsValue reports whether text, where either a layout or a descriptor
// value may go (tcsim render), is a value: it has a 0x, 0b or 0o prefix,
// or it is no layout text but a value (bare hex such as deadbeef).
// Decimal digits are a layout (a rank-1 shape) there: write 0x.
func IsValue(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0o") {
		return true
	}
	if _, err := ParseLayout(text); err == nil {
		return false
	}
	_, _, err := ParseValue(text)
	return err == nil
}

// Descriptor is a resolved descriptor text: a 64-bit value (a wgmma or
// tcgen05 matrix or instruction descriptor), or the 128 bytes of a
// CUtensorMap.
type Descriptor struct {
	Value     uint64
	TensorMap *[tensormap.Size]byte // nil for a value
	Note      string                // how a value was read (ParseValue)
}

// tensorMapDigits is the number of hex digits beyond which a text is a
// CUtensorMap: a 64-bit value has at most 16 (and a 0x prefix).
const tensorMapDigits = 20

// ParseDescriptor reads what a user typed where a descriptor goes: a
// CUtensorMap when the text holds more than 20 hex digits, else a value
// (ParseValue).
func ParseDescriptor(text string) (Descriptor, error) {
	if IsTensorMapText(text) {
		b, err := tensormap.ParseHex(text)
		if err != nil {
			return Descriptor{}, err
		}
		return Descriptor{TensorMap: &b}, nil
	}
	v, note, err := ParseValue(text)
	return Descriptor{Value: v, Note: note}, err
}

// IsTensorMapText reports whether text is long enough to be a CUtensorMap
// rather than a 64-bit value: more than 20 hex digits, and no 0b or 0o
// prefix.
func IsTensorMapText(text string) bool {
	if t := strings.ToLower(strings.TrimSpace(text)); strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0o") {
		return false // a binary or octal value has many digits
	}
	digits := 0
	for _, c := range strings.ToLower(text) {
		if strings.ContainsRune("0123456789abcdef", c) {
			digits++
		}
	}
	return digits > tensorMapDigits
}
