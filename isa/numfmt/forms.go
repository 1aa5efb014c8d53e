package numfmt

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Form is one legal shape of cvt: a destination and source type, the
// rounding modifiers it takes and whether it needs one, and the other
// modifiers it forbids, allows or requires. The table (Forms) follows the
// PTX ISA's cvt section (9.7.9.21 in ISA 9.1); the PTX validator and the
// simulator share it.
type Form struct {
	Syntax    string // the ISA's synopsis, e.g. "cvt.frnd2{.relu}{.satfinite}.f16.f32"
	Dst, Src  string // type names
	Modes     []Mode // the rounding modifiers it accepts
	NeedMode  bool   // a rounding modifier is mandatory
	FTZ       Need
	Sat       Need
	Relu      Need
	Satfinite Need
	Scaled    Need
	// Reqs are the PTX ISA version and targets it needs; a Req with a When
	// modifier applies only when that modifier is present.
	Reqs []Req
	// NaN is how a NaN input is converted (see NaNRule).
	NaN NaNRule
	// only adds constraints that modifier sets alone cannot say.
	only func(*Spec) error
}

// Req is a PTX version and target requirement.
type Req struct {
	When string // "" for always, else a modifier name ("relu", "satfinite", "ftz", "rn", ...)
	PTX  int    // minimum PTX ISA version times ten: 78 is 7.8
	SM   int    // minimum sm_XX for any target (0: none)
	// Targets, when set, lists the only targets that have the form:
	// arch-specific ones ("sm_100a") and families ("sm_100f", which also
	// admits sm_100a and the later members of the family). FamilyPTX is the
	// PTX version from which the family targets are accepted.
	Targets   []string
	FamilyPTX int
}

// NaNRule says what a NaN input becomes.
type NaNRule uint8

// The NaN rules.
const (
	// NaNCanonical: the destination's canonical NaN (0x7fff, 0x7fffffff, 0x7f, ...).
	NaNCanonical NaNRule = iota
	// NaNPropagate: sign and the top payload bits kept, quiet bit set.
	NaNPropagate
	// NaNMaxNorm: +MAX_NORM (formats without NaN under .satfinite).
	NaNMaxNorm
	// NaNIntRule: 0, or 1<<(w-1) when the source is f64 or the destination is 64-bit.
	NaNIntRule
	// NaNRaw: sign and payload bits moved as they are, without quieting.
	NaNRaw
)

var forms []*Form
var formIndex = map[[2]string][]*Form{}

// Forms returns the table of legal cvt forms.
func Forms() []*Form { return append([]*Form(nil), forms...) }

func formsFor(dst, src string) []*Form { return formIndex[[2]string{dst, src}] }

func addForm(f *Form) {
	forms = append(forms, f)
	k := [2]string{f.Dst, f.Src}
	formIndex[k] = append(formIndex[k], f)
}

var (
	intTypes   = []string{"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"}
	floatTypes = []string{"f16", "bf16", "f32", "f64"}
	frnd       = []Mode{RN, RZ, RM, RP}
	frnd2      = []Mode{RN, RZ}
	irnd       = []Mode{RNI, RZI, RMI, RPI}
)

// Targets of the Blackwell-only forms.
var (
	mxArch     = []string{"sm_100a", "sm_101a", "sm_110a", "sm_120a", "sm_100f", "sm_101f", "sm_110f", "sm_120f"}
	rsArch     = []string{"sm_100a", "sm_103a"}
	familyOnly = []string{"sm_100f", "sm_110f", "sm_120f"}
	s2f6Arch   = []string{"sm_100a", "sm_103a", "sm_110a", "sm_120a", "sm_121a"}
)

func isIntType(t string) bool { return t[0] == 'u' || t[0] == 's' }
func typeBits(t string) int   { return byName[t].Bits }
func opt(b bool) Need {
	if b {
		return Optional
	}
	return Forbidden
}

// superset reports whether every value of integer type a fits in d.
func superset(d, a string) bool {
	ds, as := d[0] == 's', a[0] == 's'
	db, ab := typeBits(d), typeBits(a)
	switch {
	case ds == as:
		return db >= ab
	case ds && !as:
		return db > ab
	}
	return false // unsigned cannot hold negatives
}

// exactFloat reports whether every value of float type a is a value of d.
func exactFloat(d, a string) bool {
	if d == a {
		return true
	}
	fd, fa := byName[d], byName[a]
	return fd.ExpBits >= fa.ExpBits && fd.MantBits >= fa.MantBits
}

func init() {
	// The generic scalar forms: cvt{.rnd}{.ftz}{.sat}.dtype.atype.
	all := append(append([]string{}, intTypes...), floatTypes...)
	for _, d := range all {
		for _, a := range all {
			addForm(genericForm(d, a))
		}
	}
	reluSat := func(s *Spec) error {
		if (s.Relu || s.Satfinite) && s.Mode != RN && s.Mode != RZ {
			return fmt.Errorf(".relu and .satfinite need .rn or .rz, not .%s", s.Mode)
		}
		// ptxas 13.0 rejects .ftz and .sat beside .relu or .satfinite.
		if (s.Relu || s.Satfinite) && (s.FTZ || s.Sat) {
			return fmt.Errorf(".relu and .satfinite cannot be combined with .ftz or .sat")
		}
		return nil
	}
	for _, f := range formsFor("f16", "f32") {
		f.Syntax = "cvt.frnd{.ftz}{.sat}.f16.f32 / cvt.frnd2{.relu}{.satfinite}.f16.f32"
		f.Relu, f.Satfinite, f.only = Optional, Optional, reluSat
		f.Reqs = append(f.Reqs, Req{When: "relu", PTX: 70, SM: 80}, Req{When: "satfinite", PTX: 81, SM: 80})
	}
	for _, f := range formsFor("bf16", "f32") {
		f.Syntax = "cvt.frnd2{.relu}{.satfinite}.bf16.f32"
		f.Relu, f.Satfinite, f.only = Optional, Optional, reluSat
		f.Reqs = []Req{{PTX: 70, SM: 80}, {When: "rm", PTX: 78, SM: 90}, {When: "rp", PTX: 78, SM: 90}, {When: "satfinite", PTX: 81, SM: 80}}
	}

	// Packed f16x2 / bf16x2 from two f32.
	for _, d := range []string{"f16x2", "bf16x2"} {
		addForm(&Form{Syntax: "cvt.frnd2{.relu}{.satfinite}." + d + ".f32", Dst: d, Src: "f32", Modes: frnd2, NeedMode: true,
			Relu: Optional, Satfinite: Optional, Reqs: []Req{{PTX: 70, SM: 80}, {When: "satfinite", PTX: 81, SM: 80}}})
		addForm(&Form{Syntax: "cvt.rs{.relu}{.satfinite}." + d + ".f32", Dst: d, Src: "f32", Modes: []Mode{RS}, NeedMode: true,
			Relu: Optional, Satfinite: Optional, Reqs: []Req{{PTX: 87, Targets: rsArch}}})
	}
	// tf32.
	addForm(&Form{Syntax: "cvt.rna{.satfinite}.tf32.f32", Dst: "tf32", Src: "f32", Modes: []Mode{RNA}, NeedMode: true,
		Satfinite: Optional, Reqs: []Req{{PTX: 70, SM: 80}, {When: "satfinite", PTX: 81, SM: 80}}})
	addForm(&Form{Syntax: "cvt.frnd2{.satfinite}{.relu}.tf32.f32", Dst: "tf32", Src: "f32", Modes: frnd2, NeedMode: true,
		Relu: Optional, Satfinite: Optional, Reqs: []Req{{PTX: 78, SM: 90}, {When: "satfinite", PTX: 86, SM: 100}}})

	// FP8.
	for _, d := range []string{"e4m3x2", "e5m2x2"} {
		for _, a := range []string{"f32", "f16x2"} {
			addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}." + d + "." + a, Dst: d, Src: a, Modes: []Mode{RN}, NeedMode: true,
				Relu: Optional, Satfinite: Required, Reqs: []Req{{PTX: 78, SM: 89}}})
		}
		addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}." + d + ".bf16x2", Dst: d, Src: "bf16x2", Modes: []Mode{RN}, NeedMode: true,
			Relu: Optional, Satfinite: Required, Reqs: []Req{{PTX: 91, Targets: familyOnly}}})
		addForm(&Form{Syntax: "cvt.rn{.relu}.f16x2." + d, Dst: "f16x2", Src: d, Modes: []Mode{RN}, NeedMode: true,
			Relu: Optional, Reqs: []Req{{PTX: 78, SM: 89}}})
	}
	// FP6 and FP4.
	for _, d := range []string{"e2m3x2", "e3m2x2", "e2m1x2"} {
		addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}." + d + ".f32", Dst: d, Src: "f32", Modes: []Mode{RN}, NeedMode: true,
			Relu: Optional, Satfinite: Required, NaN: NaNMaxNorm, Reqs: []Req{{PTX: 86, Targets: mxArch, FamilyPTX: 88}}})
		for _, a := range []string{"f16x2", "bf16x2"} {
			addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}." + d + "." + a, Dst: d, Src: a, Modes: []Mode{RN}, NeedMode: true,
				Relu: Optional, Satfinite: Required, NaN: NaNMaxNorm, Reqs: []Req{{PTX: 91, Targets: familyOnly}}})
		}
		addForm(&Form{Syntax: "cvt.rn{.relu}.f16x2." + d, Dst: "f16x2", Src: d, Modes: []Mode{RN}, NeedMode: true,
			Relu: Optional, Reqs: []Req{{PTX: 86, Targets: mxArch, FamilyPTX: 88}}})
	}
	// Four-way stochastic rounding.
	for _, d := range []string{"e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"} {
		nan := NaNCanonical
		if d != "e4m3x4" && d != "e5m2x4" {
			nan = NaNMaxNorm
		}
		addForm(&Form{Syntax: "cvt.rs{.relu}.satfinite." + d + ".f32", Dst: d, Src: "f32", Modes: []Mode{RS}, NeedMode: true,
			Relu: Optional, Satfinite: Required, NaN: nan, Reqs: []Req{{PTX: 87, Targets: rsArch}}})
	}
	// ue8m0 scales.
	addForm(&Form{Syntax: "cvt.frnd3{.satfinite}.ue8m0x2.f32", Dst: "ue8m0x2", Src: "f32", Modes: []Mode{RZ, RP}, NeedMode: true,
		Satfinite: Optional, Reqs: []Req{{PTX: 86, Targets: mxArch, FamilyPTX: 88}}})
	// The ISA's version notes list {.relu} here; ptxas 13.0 rejects it.
	addForm(&Form{Syntax: "cvt.frnd3{.satfinite}.ue8m0x2.bf16x2", Dst: "ue8m0x2", Src: "bf16x2", Modes: []Mode{RZ, RP}, NeedMode: true,
		Satfinite: Optional, Reqs: []Req{{PTX: 86, Targets: mxArch, FamilyPTX: 88}}})
	addForm(&Form{Syntax: "cvt.rn.bf16x2.ue8m0x2", Dst: "bf16x2", Src: "ue8m0x2", Modes: []Mode{RN}, NeedMode: true,
		Reqs: []Req{{PTX: 86, Targets: mxArch, FamilyPTX: 88}}})
	// s2f6 fixed point.
	addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.f32", Dst: "s2f6x2", Src: "f32", Modes: []Mode{RN}, NeedMode: true,
		Relu: Optional, Satfinite: Required, Scaled: Optional, NaN: NaNMaxNorm, Reqs: []Req{{PTX: 91, Targets: s2f6Arch}}})
	addForm(&Form{Syntax: "cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.bf16x2", Dst: "s2f6x2", Src: "bf16x2", Modes: []Mode{RN}, NeedMode: true,
		Relu: Optional, Satfinite: Required, Scaled: Optional, NaN: NaNMaxNorm, Reqs: []Req{{PTX: 91, Targets: s2f6Arch}}})
	addForm(&Form{Syntax: "cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.s2f6x2", Dst: "bf16x2", Src: "s2f6x2", Modes: []Mode{RN}, NeedMode: true,
		Relu: Optional, Satfinite: Optional, Scaled: Optional, Reqs: []Req{{PTX: 91, Targets: s2f6Arch}}})
}

func genericForm(d, a string) *Form {
	f := &Form{Dst: d, Src: a, Syntax: "cvt{.rnd}{.ftz}{.sat}." + d + "." + a}
	di, ai := isIntType(d), isIntType(a)
	hasF32 := d == "f32" || a == "f32"
	switch {
	case di && ai:
		f.Syntax = "cvt{.sat}." + d + "." + a
		f.Sat = opt(!superset(d, a))
	case di: // float to int
		f.Syntax = "cvt.irnd{.ftz}{.sat}." + d + "." + a
		f.Modes, f.NeedMode = irnd, true
		f.FTZ = opt(a == "f32")
		f.Sat = Optional
		f.NaN = NaNIntRule
	case ai: // int to float
		f.Syntax = "cvt.frnd{.ftz}{.sat}." + d + "." + a
		f.Modes, f.NeedMode = frnd, true
		f.FTZ = opt(d == "f32")
		f.Sat = opt(d != "bf16")
	case d == a:
		f.Syntax = "cvt{.irnd}{.ftz}{.sat}." + d + "." + a
		f.Modes = irnd
		f.FTZ = opt(hasF32)
		f.Sat = opt(d != "bf16")
	case exactFloat(d, a):
		f.Syntax = "cvt{.ftz}{.sat}." + d + "." + a
		f.FTZ = opt(hasF32)
		f.Sat = opt(d != "bf16")
		if a == "bf16" {
			// ptxas 13.0 accepts (and ignores) a rounding modifier on the
			// exact widening of bf16, which the ISA calls illegal.
			f.Syntax = "cvt{.frnd}{.ftz}." + d + "." + a
			f.Modes = frnd
		}
	default: // narrowing, or f16 <-> bf16
		f.Syntax = "cvt.frnd{.ftz}{.sat}." + d + "." + a
		f.Modes, f.NeedMode = frnd, true
		if (d == "f16" && a == "bf16") || (d == "bf16" && a == "f16") {
			// The ISA makes rounding mandatory; ptxas 13.0 accepts none
			// (the probe shows it rounds to nearest even).
			f.Syntax = "cvt{.frnd}." + d + "." + a
			f.NeedMode = false
		}
		f.FTZ = opt(hasF32)
		f.Sat = opt(d != "bf16")
	}
	if d == "bf16" || a == "bf16" {
		// ptxas 13.0 rejects .sat on every conversion from or to bf16.
		f.Sat = Forbidden
		switch {
		case d == "bf16" && a == "f32":
			f.Reqs = []Req{{PTX: 70, SM: 80}}
		case d == "f32" && a == "bf16":
			f.Reqs = []Req{{PTX: 71, SM: 80}, {When: "ftz", PTX: 78, SM: 90}}
		default:
			f.Reqs = []Req{{PTX: 78, SM: 90}}
		}
	}
	return f
}

// Requirements returns the PTX ISA version (times ten) and the smallest
// generic target (sm_XX, 0 if any) the spec needs, and the arch-specific or
// family targets it is limited to (nil if none).
func (s *Spec) Requirements() (ptx, sm int, targets []string) {
	ptx = 10
	for _, r := range s.Form.Reqs {
		if r.When != "" && !s.has(r.When) {
			continue
		}
		ptx, sm = max(ptx, r.PTX), max(sm, r.SM)
		if r.Targets != nil {
			targets = r.Targets
		}
	}
	return ptx, sm, targets
}

func (s *Spec) has(mod string) bool {
	switch mod {
	case "relu":
		return s.Relu
	case "satfinite":
		return s.Satfinite
	case "ftz":
		return s.FTZ
	case "sat":
		return s.Sat
	}
	return s.Mode.String() == mod
}

// Target is a parsed PTX target such as sm_90a: its number and suffix.
type Target struct {
	SM     int  // 90, 100, 120, ...
	Suffix byte // 0, 'a' or 'f'
}

// ParseTarget parses "sm_90", "sm_90a", "sm_100f".
func ParseTarget(s string) (Target, error) {
	rest, ok := strings.CutPrefix(s, "sm_")
	if !ok || rest == "" {
		return Target{}, fmt.Errorf("bad target %q (want sm_NN, sm_NNa or sm_NNf)", s)
	}
	var t Target
	if c := rest[len(rest)-1]; c == 'a' || c == 'f' {
		t.Suffix = c
		rest = rest[:len(rest)-1]
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 10 {
		return Target{}, fmt.Errorf("bad target %q (want sm_NN, sm_NNa or sm_NNf)", s)
	}
	t.SM = n
	return t, nil
}

// String returns the target's name, e.g. "sm_90a".
func (t Target) String() string {
	if t.Suffix == 0 {
		return fmt.Sprintf("sm_%d", t.SM)
	}
	return fmt.Sprintf("sm_%d%c", t.SM, t.Suffix)
}

// SupportedOn says whether the spec compiles for target (e.g. "sm_90a")
// under PTX ISA version ptx (times ten, e.g. 87), and if not, why.
func (s *Spec) SupportedOn(target string, ptx int) error {
	t, err := ParseTarget(target)
	if err != nil {
		return err
	}
	for _, r := range s.Form.Reqs {
		if r.When != "" && !s.has(r.When) {
			continue
		}
		if r.Targets == nil {
			if t.SM < r.SM {
				return fmt.Errorf("%s needs sm_%d or later, not %s", s, r.SM, t)
			}
			if ptx < r.PTX {
				return fmt.Errorf("%s needs PTX ISA %s or later, not %s", s, verString(r.PTX), verString(ptx))
			}
			continue
		}
		okTarget, needPTX := false, r.PTX
		for _, x := range r.Targets {
			xt, _ := ParseTarget(x)
			switch {
			case xt.Suffix == 'a' && t.Suffix == 'a' && xt.SM == t.SM:
				okTarget = true
			case xt.Suffix == 'f' && t.Suffix != 0 && t.SM/10 == xt.SM/10 && t.SM >= xt.SM:
				okTarget = true
				if r.FamilyPTX > 0 && !(t.Suffix == 'a' && slices.Contains(r.Targets, t.String())) {
					needPTX = max(needPTX, r.FamilyPTX)
				}
			}
			if okTarget {
				break
			}
		}
		if !okTarget {
			return fmt.Errorf("%s is only supported on %s, not %s", s, strings.Join(r.Targets, ", "), t)
		}
		if ptx < needPTX {
			return fmt.Errorf("%s on %s needs PTX ISA %s or later, not %s", s, t, verString(needPTX), verString(ptx))
		}
	}
	return nil
}

func verString(v int) string { return fmt.Sprintf("%d.%d", v/10, v%10) }

// Expand lists every legal spec of the form: each rounding modifier crossed
// with every allowed combination of the other modifiers.
func (f *Form) Expand() []*Spec {
	modes := f.Modes
	if !f.NeedMode {
		modes = append([]Mode{NoRound}, modes...)
	}
	choices := func(n Need) []bool {
		switch n {
		case Optional:
			return []bool{false, true}
		case Required:
			return []bool{true}
		}
		return []bool{false}
	}
	dst, src := cvtTypes[f.Dst], cvtTypes[f.Src]
	var out []*Spec
	for _, m := range modes {
		for _, ftz := range choices(f.FTZ) {
			for _, sat := range choices(f.Sat) {
				for _, relu := range choices(f.Relu) {
					for _, sf := range choices(f.Satfinite) {
						for _, sc := range choices(f.Scaled) {
							s := &Spec{Mode: m, FTZ: ftz, Sat: sat, Relu: relu, Satfinite: sf, Scaled: sc, Dst: dst, Src: src}
							if f.check(s) != nil {
								continue
							}
							// A spec matches the first form that accepts it.
							if s.match() != nil || s.Form != f {
								continue
							}
							out = append(out, s)
						}
					}
				}
			}
		}
	}
	return out
}

// AllSpecs lists every legal cvt spec, sorted by text.
func AllSpecs() []*Spec {
	var out []*Spec
	for _, f := range forms {
		out = append(out, f.Expand()...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
