package numfmt

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Type is a cvt instruction type: one element format, possibly packed
// (f16x2 holds two f16, e2m1x4 four e2m1).
type Type struct {
	Name  string  // "e4m3x2"
	Elem  *Format // e4m3
	Lanes int     // 2
	// Bits is the width of the packed value: 16 for e4m3x2, 8 for e2m1x2,
	// 16 for e2m3x2 (each 6-bit element sits in its own byte).
	Bits int
}

// LaneBits is the width of the slot each element occupies.
func (t *Type) LaneBits() int { return t.Bits / t.Lanes }

// Lane extracts lane k (0 is the most significant lane, PTX's "a").
func (t *Type) Lane(packed uint64, k int) uint64 {
	lb := t.LaneBits()
	return (packed >> ((t.Lanes - 1 - k) * lb)) & lowMask(lb)
}

// Pack places per-lane element patterns (lane 0 most significant).
func (t *Type) Pack(lanes []uint64) uint64 {
	lb := t.LaneBits()
	var out uint64
	for k, x := range lanes {
		out |= (x & lowMask(lb)) << ((t.Lanes - 1 - k) * lb)
	}
	return out
}

var cvtTypes = map[string]*Type{}

func addType(name, elem string, lanes, bits int) {
	cvtTypes[name] = &Type{Name: name, Elem: byName[elem], Lanes: lanes, Bits: bits}
}

func init() {
	for _, n := range []string{"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"} {
		f := byName[n]
		addType(n, n, 1, f.Container)
	}
	addType("tf32", "tf32", 1, 32)
	addType("f16x2", "f16", 2, 32)
	addType("bf16x2", "bf16", 2, 32)
	addType("e4m3x2", "e4m3", 2, 16)
	addType("e5m2x2", "e5m2", 2, 16)
	addType("e2m3x2", "e2m3", 2, 16)
	addType("e3m2x2", "e3m2", 2, 16)
	addType("ue8m0x2", "ue8m0", 2, 16)
	addType("s2f6x2", "s2f6", 2, 16)
	addType("e2m1x2", "e2m1", 2, 8)
	addType("e4m3x4", "e4m3", 4, 32)
	addType("e5m2x4", "e5m2", 4, 32)
	addType("e2m3x4", "e2m3", 4, 32)
	addType("e3m2x4", "e3m2", 4, 32)
	addType("e2m1x4", "e2m1", 4, 16)
}

// LookupType finds a cvt instruction type by name ("e4m3x2" or ".e4m3x2").
func LookupType(name string) (*Type, bool) {
	t, ok := cvtTypes[strings.TrimPrefix(name, ".")]
	return t, ok
}

// Spec is a parsed cvt opcode such as "cvt.rn.satfinite.e4m3x2.f32".
type Spec struct {
	Mode      Mode
	FTZ       bool
	Sat       bool
	Relu      bool
	Satfinite bool
	Scaled    bool // .scaled::n2::ue8m0
	Dst, Src  *Type
	Form      *Form // the legal form this spec matched

	ops []Operand // Inputs, cached by eval
}

// Operand is one source operand of a cvt.
type Operand struct {
	Name string // "a", "b", "e", "f", "rbits", "scale-factor"
	Bits int    // width of the register value used
	Type *Type  // the value's type (nil for rbits and scale-factor, which are raw)
}

// String prints the spec in canonical order:
// cvt.MODE.ftz.sat.relu.satfinite.scaled::n2::ue8m0.DTYPE.ATYPE.
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString("cvt")
	if s.Mode != NoRound {
		b.WriteString("." + s.Mode.String())
	}
	if s.FTZ {
		b.WriteString(".ftz")
	}
	if s.Sat {
		b.WriteString(".sat")
	}
	if s.Relu {
		b.WriteString(".relu")
	}
	if s.Satfinite {
		b.WriteString(".satfinite")
	}
	if s.Scaled {
		b.WriteString(".scaled::n2::ue8m0")
	}
	b.WriteString("." + s.Dst.Name + "." + s.Src.Name)
	return b.String()
}

// Inputs lists the source operands in PTX order.
func (s *Spec) Inputs() []Operand {
	var ops []Operand
	if s.Src.Lanes == 1 && s.Dst.Lanes > 1 {
		names := []string{"a", "b", "e", "f"}
		for k := 0; k < s.Dst.Lanes; k++ {
			ops = append(ops, Operand{Name: names[k], Bits: s.Src.Bits, Type: s.Src})
		}
	} else {
		ops = append(ops, Operand{Name: "a", Bits: s.Src.Bits, Type: s.Src})
	}
	if s.Mode == RS {
		ops = append(ops, Operand{Name: "rbits", Bits: 32})
	}
	if s.Scaled {
		ops = append(ops, Operand{Name: "scale-factor", Bits: 16})
	}
	return ops
}

// OutBits is the width of the result.
func (s *Spec) OutBits() int { return s.Dst.Bits }

// SpecError is a cvt opcode that does not parse or is not a legal form.
type SpecError struct {
	Text string
	Msg  string
	// Syntax is set when the opcode does not parse (an unknown, repeated
	// or empty modifier), as opposed to a well-formed opcode that is not a
	// legal form.
	Syntax bool
}

// Error returns "opcode: message".
func (e *SpecError) Error() string { return fmt.Sprintf("%s: %s", e.Text, e.Msg) }

// ParseSpec parses a cvt opcode (the mnemonic with its modifiers and types,
// e.g. "cvt.rn.satfinite.e4m3x2.f32") and checks it against the table of
// legal forms. Modifiers may come in any order; the first type is the
// destination and the second the source.
func ParseSpec(text string) (*Spec, error) {
	s, err := parseSpecSyntax(text)
	if err != nil {
		return nil, err
	}
	if err := s.match(); err != nil {
		return nil, &SpecError{Text: text, Msg: err.Error()}
	}
	return s, nil
}

// MustParseSpec is ParseSpec for specs known to be legal; it panics on error.
func MustParseSpec(text string) *Spec {
	s, err := ParseSpec(text)
	if err != nil {
		panic(err)
	}
	return s
}

// specWords are the modifiers and types a cvt opcode may contain, dotted,
// for "did you mean" hints.
func specWords() []string {
	words := []string{"ftz", "sat", "relu", "satfinite", "scaled::n2::ue8m0"}
	words = append(words, modeNames[1:]...)
	for t := range cvtTypes {
		words = append(words, t)
	}
	sort.Strings(words[5:])
	for i, w := range words {
		words[i] = "." + w
	}
	return words
}

func parseSpecSyntax(text string) (*Spec, error) {
	bad := func(format string, a ...any) error {
		return &SpecError{Text: text, Msg: fmt.Sprintf(format, a...), Syntax: true}
	}
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "cvt.") && t != "cvt" {
		return nil, bad("not a cvt opcode (want cvt.MODIFIERS.DTYPE.ATYPE)")
	}
	parts := strings.Split(t, ".")[1:]
	s := &Spec{}
	var types []*Type
	seen := map[string]bool{}
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if p == "" {
			return nil, bad("empty modifier (two dots in a row?)")
		}
		if _, isType := LookupType(p); !isType {
			if seen[p] {
				return nil, bad("modifier .%s given twice", p)
			}
			seen[p] = true
		}
		if m, err := ParseMode(p); err == nil {
			if s.Mode != NoRound {
				return nil, bad("two rounding modifiers: .%s and .%s", s.Mode, m)
			}
			s.Mode = m
			continue
		}
		switch {
		case p == "ftz":
			s.FTZ = true
		case p == "sat":
			s.Sat = true
		case p == "relu":
			s.Relu = true
		case p == "satfinite":
			s.Satfinite = true
		case strings.HasPrefix(p, "scaled::"):
			if p != "scaled::n2::ue8m0" {
				return nil, bad("unknown scale qualifier .%s (want .scaled::n2::ue8m0)", p)
			}
			s.Scaled = true
		default:
			ty, ok := LookupType(p)
			if !ok {
				msg := fmt.Sprintf("unknown modifier or type .%s", p)
				if h := suggest.Hint("."+p, specWords()); h != "" {
					msg += " (" + h + ")"
				}
				return nil, bad("%s", msg)
			}
			types = append(types, ty)
		}
	}
	if len(types) != 2 {
		return nil, bad("want exactly two types (destination, then source), found %d", len(types))
	}
	s.Dst, s.Src = types[0], types[1]
	return s, nil
}

// Need says whether a modifier is forbidden, optional or required.
type Need uint8

// The needs.
const (
	Forbidden Need = iota
	Optional
	Required
)

// match finds the legal form for s, or explains why there is none.
func (s *Spec) match() error {
	cands := formsFor(s.Dst.Name, s.Src.Name)
	if len(cands) == 0 {
		return fmt.Errorf("no cvt converts .%s to .%s%s", s.Src.Name, s.Dst.Name, nearPairs(s.Dst.Name, s.Src.Name))
	}
	var first error
	for _, f := range cands {
		err := f.check(s)
		if err == nil {
			s.Form = f
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if len(cands) > 1 {
		var syn []string
		for _, f := range cands {
			syn = append(syn, f.Syntax)
		}
		return fmt.Errorf("%v (legal forms: %s)", first, strings.Join(syn, "; "))
	}
	return first
}

func (f *Form) check(s *Spec) error {
	if s.Mode == NoRound {
		if f.NeedMode {
			return fmt.Errorf("a rounding modifier is required (one of %s)", modeList(f.Modes))
		}
	} else if !slices.Contains(f.Modes, s.Mode) {
		if len(f.Modes) == 0 {
			return fmt.Errorf("rounding modifier .%s is illegal here (the conversion is exact)", s.Mode)
		}
		return fmt.Errorf("rounding modifier .%s is illegal here (allowed: %s)", s.Mode, modeList(f.Modes))
	}
	for _, c := range []struct {
		name string
		got  bool
		need Need
	}{{"ftz", s.FTZ, f.FTZ}, {"sat", s.Sat, f.Sat}, {"relu", s.Relu, f.Relu}, {"satfinite", s.Satfinite, f.Satfinite}, {"scaled::n2::ue8m0", s.Scaled, f.Scaled}} {
		switch {
		case c.got && c.need == Forbidden:
			return fmt.Errorf(".%s is not allowed with .%s.%s", c.name, s.Dst.Name, s.Src.Name)
		case !c.got && c.need == Required:
			return fmt.Errorf(".%s is required with .%s.%s", c.name, s.Dst.Name, s.Src.Name)
		}
	}
	if f.only != nil {
		if err := f.only(s); err != nil {
			return err
		}
	}
	return nil
}

func modeList(ms []Mode) string {
	var out []string
	for _, m := range ms {
		out = append(out, "."+m.String())
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

func nearPairs(dst, src string) string {
	var ds, ss []string
	for _, f := range forms {
		if f.Src == src {
			ds = append(ds, "."+f.Dst)
		}
		if f.Dst == dst {
			ss = append(ss, "."+f.Src)
		}
	}
	msg := ""
	if len(ds) > 0 {
		msg += fmt.Sprintf("; .%s converts to %s", src, strings.Join(uniq(ds), " "))
	}
	if len(ss) > 0 {
		msg += fmt.Sprintf("; .%s is made from %s", dst, strings.Join(uniq(ss), " "))
	}
	return msg
}

func uniq(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
