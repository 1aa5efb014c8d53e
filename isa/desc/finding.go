package desc

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Severity grades a validation finding.
type Severity int

const (
	Info    Severity = iota // a remark: ignored fields, assumptions, hints
	Warning                 // legal but probably not what was meant
	Error                   // breaks a rule of the ISA; the MMA will fault or read wrong bytes
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "info"
}

// Finding is one validation message about one field.
type Finding struct {
	Severity Severity
	Field    string // the field it is about: start, lbo, sbo, base_offset, swizzle, version, m, n, ...
	Rule     string // a short stable name of the rule, e.g. "base-offset-shift"
	Msg      string // the explanation, naming the value and the rule
}

// String formats f as "error: sbo: message [rule]".
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", f.Severity, f.Field, f.Msg, f.Rule)
}

// Findings is a list of findings in the order they were made.
type Findings []Finding

// HasErrors reports whether any finding is an Error.
func (fs Findings) HasErrors() bool { return fs.Count(Error) > 0 }

// Count counts the findings of severity s.
func (fs Findings) Count(s Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Rules lists the rule names of fs, for tests and tools.
func (fs Findings) Rules() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Rule
	}
	return out
}

// Has reports whether a finding with the given rule is present.
func (fs Findings) Has(rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func (fs *Findings) add(sev Severity, field, rule, format string, args ...any) {
	*fs = append(*fs, Finding{Severity: sev, Field: field, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

// Context is what the user expects of a shared-memory descriptor: the
// --major, --swizzle, --dtype and --tile flags. Zero fields are unknown
// and skip the checks that need them.
type Context struct {
	Major   Major   // expected major-ness of the operand
	Swizzle Swizzle // expected swizzle (e.g. what the TMA tensor map uses)
	DType   string  // element type in shared memory: bf16, f16, tf32, f32, e4m3, e5m2, s8, u8, e2m3, e3m2, e2m1
	TileMN  int     // operand tile extent along M (A) or N (B), in elements
	TileK   int     // operand tile extent along K, in elements
}

// ElemBits is the size in bits that an element of type dtype occupies in
// shared memory. FP6 types (e2m3, e3m2) are counted as their unpacked
// 8-bit containers; e2m1 as packed 4 bits (as .kind::mxf4 reads it).
func ElemBits(dtype string) (int, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(dtype), ".")) {
	case "f32", "tf32", "s32", "u32", "b32":
		return 32, nil
	case "f16", "bf16", "half", "b16", "s16", "u16":
		return 16, nil
	case "e4m3", "e5m2", "fp8", "f8", "s8", "u8", "i8", "b8", "e2m3", "e3m2", "fp6", "f6":
		return 8, nil
	case "e2m1", "fp4", "f4", "s4", "u4":
		return 4, nil
	}
	return 0, fmt.Errorf("unknown element type %q (want bf16, f16, tf32, f32, e4m3, e5m2, s8, u8, e2m3, e3m2 or e2m1)%s", dtype,
		suggest.HintSuffix(strings.ToLower(strings.TrimSpace(dtype)), []string{"bf16", "f16", "tf32", "f32", "e4m3", "e5m2", "s8", "u8", "e2m3", "e3m2", "e2m1"}))
}

// ParseTile reads an operand tile "MNxK" such as "64x16" (elements).
func ParseTile(s string) (mn, k int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, 0, fmt.Errorf("tile %q: want MNxK in elements, e.g. 64x16", s)
	}
	if _, err := fmt.Sscanf(a, "%d", &mn); err != nil || fmt.Sprint(mn) != a || mn <= 0 {
		return 0, 0, fmt.Errorf("tile %q: the M/N extent %q is not a positive integer", s, a)
	}
	if _, err := fmt.Sscanf(b, "%d", &k); err != nil || fmt.Sprint(k) != b || k <= 0 {
		return 0, 0, fmt.Errorf("tile %q: the K extent %q is not a positive integer", s, b)
	}
	if mn > 4096 || k > 4096 {
		return 0, 0, fmt.Errorf("tile %q: extents above 4096 elements are not an MMA operand tile", s)
	}
	return mn, k, nil
}
