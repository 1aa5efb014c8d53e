package ptx

import (
	"fmt"
	"strings"
)

// This file holds the instruction-form notation used by the catalog and
// the code that matches an instruction against a form.
//
// A form is two strings. The first lists the modifiers after the opcode:
//
//	.x          a required modifier
//	{.x}        an optional modifier
//	.x|y|z      a required choice
//	{.x|y}      an optional choice
//	.$name      a required choice from the named set in modSets
//	.$mnk       any .mXnYkZ shape (the shape is checked by the opcode's rule)
//
// Modifiers may appear in any order (ptxas accepts e.g. both
// red.release.gpu.global.add and red.global.add.release.gpu), except that
// type modifiers fill the type slots in order (cvt.f32.s32: d is .f32).
//
// The second string lists the operands, separated by commas:
//
//	[name=]kind[:type][~][?|?cond][|kind2...]
//
// kind is one of
//
//	r    register           ri   register or immediate     i   immediate
//	p    predicate          np   predicate, may be !p      pi  predicate or immediate
//	m    address [..]       v    value or {vector} sized by .vN
//	V    {vector}           rV   register or {vector}      s   symbol (label, function)
//	ris  register, immediate or symbol                     rm  register or address
//	a    any register or immediate (type not checked)      L   (call list)
//	*    any further operands (checked by the opcode's rule)
//
// and may be prefixed by "_" to allow the sink "_". type is a type index
// into the instruction's type modifiers (0, 1, ...), a type name (b32, u64,
// pred) or "*"; the default is 0 when the form has type slots. A "w" after
// an index doubles the width (mul.wide). "~" relaxes the size check so the
// register may be wider (ld, st, cvt). For m, ":@N" names the space
// modifier the address must be in (@0 is the first space modifier, the
// default), ":@shared" or ":@tmem" a fixed space and ":@-" no check.
// "?" makes the operand optional; "?mod" makes it present exactly when the
// instruction has a modifier starting with mod (several may be joined with
// "/"). "|kind2" allows a second destination "a|b" ("?" after it makes the
// second one optional).

type opKind uint8

const (
	opReg opKind = iota
	opRegImm
	opImm
	opPred
	opNotPred
	opPredImm
	opAddr
	opValue
	opVector
	opRegVec
	opSym
	opRegImmSym
	opRegAddr
	opAny
	opList
	opRest
)

var opKindNames = map[string]opKind{
	"r": opReg, "ri": opRegImm, "i": opImm, "p": opPred, "np": opNotPred, "pi": opPredImm,
	"m": opAddr, "v": opValue, "V": opVector, "rV": opRegVec, "s": opSym, "ris": opRegImmSym,
	"rm": opRegAddr, "a": opAny, "L": opList, "*": opRest,
}

var opKindDesc = [...]string{
	opReg: "a register", opRegImm: "a register or immediate", opImm: "an immediate",
	opPred: "a predicate register", opNotPred: "a predicate", opPredImm: "a predicate or immediate",
	opAddr: "an address [..]", opValue: "a register", opVector: "a vector {..}",
	opRegVec: "a register or vector", opSym: "a label or function name",
	opRegImmSym: "a register, immediate or symbol", opRegAddr: "a register or address [..]",
	opAny: "a register or immediate", opList: "a parenthesised list", opRest: "operands",
}

// typeRef says which type an operand must have.
type typeRef struct {
	index   int  // index into Instruction.Types, or -1
	fixed   Type // a fixed type when index < 0 (TypeNone: unchecked)
	wide    bool // double width (mul.wide)
	relaxed bool // the register may be wider than the type
	space   string
}

type opSpec struct {
	name     string
	kind     opKind
	typ      typeRef
	sink     bool
	optional bool
	cond     []string // present iff a modifier has one of these prefixes
	second   *opSpec  // for "a|b" destinations
	secondOK bool     // the second destination may be omitted
}

type slot struct {
	names  []string
	set    string // the named set, for messages
	opt    bool
	isType bool
	shape  bool // accepts any .mXnYkZ
}

func (s *slot) accepts(name string) bool {
	if s.shape {
		_, ok := ParseShape(name)
		return ok
	}
	for _, n := range s.names {
		if n == name {
			return true
		}
	}
	return false
}

func (s *slot) describe() string {
	if s.shape {
		return ".mXnYkZ shape"
	}
	if len(s.names) > 8 {
		return "." + strings.Join(s.names[:8], ", .") + ", ..."
	}
	return "." + strings.Join(s.names, ", .")
}

// Form is one syntax of an instruction, compiled from the catalog
// notation.
type Form struct {
	// Mods and Ops are the catalog notation the form was built from.
	Mods, Ops string
	slots     []slot
	ops       []opSpec
	nTypes    int
	hasCond   bool // some operand is conditional on a modifier
}

// modSets are the named modifier sets used by the forms.
var modSets = map[string]string{
	"ldss":   "const|global|local|param::entry|param::func|param|shared|shared::cta|shared::cluster",
	"stss":   "global|local|param|param::func|shared|shared::cta|shared::cluster",
	"ldcop":  "ca|cg|cs|lu|cv",
	"stcop":  "wb|cg|cs|wt",
	"l1ev":   "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate",
	"l2ev":   "L2::evict_normal|L2::evict_first|L2::evict_last",
	"l2pf":   "L2::64B|L2::128B|L2::256B",
	"scope":  "cta|cluster|gpu|sys",
	"vec":    "v2|v4|v8",
	"ldt":    "b8|b16|b32|b64|b128|u8|u16|u32|u64|s8|s16|s32|s64|f16|f16x2|bf16|bf16x2|f32|f64",
	"rnd":    "rn|rz|rm|rp",
	"irnd":   "rni|rzi|rmi|rpi",
	"cmp":    "eq|ne|lt|le|gt|ge|lo|ls|hi|hs|equ|neu|ltu|leu|gtu|geu|num|nan",
	"fcmp":   "eq|ne|lt|le|gt|ge|equ|neu|ltu|leu|gtu|geu|num|nan",
	"bool":   "and|or|xor",
	"int":    "u16|u32|u64|s16|s32|s64",
	"int32":  "u16|u32|s16|s32",
	"bits":   "b16|b32|b64",
	"pbits":  "pred|b16|b32|b64",
	"cvtt":   "u8|u16|u32|u64|s8|s16|s32|s64|bf16|f16|f32|f64",
	"f8x2":   "e4m3x2|e5m2x2",
	"f6x2":   "e2m3x2|e3m2x2",
	"fnx2":   "e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2",
	"fnx4":   "e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4",
	"atomt":  "b32|b64|u32|u64|s32|s64|f32|f64",
	"atomss": "global|shared|shared::cta|shared::cluster",
	"atsem":  "relaxed|acquire|release|acq_rel",
	"sh":     "shared|shared::cta",
	"shc":    "shared|shared::cta|shared::cluster",
	"redop":  "and|or|xor|add|inc|dec|min|max",
	"dim":    "1d|2d|3d|4d|5d",
	"ctag":   "cta_group::1|cta_group::2",
	"tmshp":  "16x64b|16x128b|16x256b|32x32b",
	"tmnum":  "x1|x2|x4|x8|x16|x32|x64|x128",
	"space":  "const|global|local|shared|shared::cta|shared::cluster|param|param::entry",
	"mmat":   "f16|bf16|tf32|f64|e4m3|e5m2|e3m2|e2m3|e2m1|s8|u8|s4|u4|b1",
	"wgt":    "f16|bf16|tf32|e4m3|e5m2|s8|u8|b1",
	"kind":   "kind::f16|kind::tf32|kind::f8f6f4|kind::i8|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4",
	"svec":   "scale_vec::1X|scale_vec::2X|scale_vec::4X|block16|block32",
	"coll":   "collector::a::fill|collector::a::use|collector::a::lastuse|collector::a::discard",
	"wscoll": "collector::b0::fill|collector::b0::use|collector::b0::lastuse|collector::b0::discard|collector::b1::fill|collector::b1::use|collector::b1::lastuse|collector::b1::discard|collector::b2::fill|collector::b2::use|collector::b2::lastuse|collector::b2::discard|collector::b3::fill|collector::b3::use|collector::b3::lastuse|collector::b3::discard",
	"l2prio": "L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged",
}

// compileForm parses the catalog notation. It panics on a malformed
// catalog entry, which the package tests catch.
func compileForm(mods, ops string) *Form {
	f := &Form{Mods: mods, Ops: ops}
	s := mods
	for s != "" {
		opt := false
		var body string
		switch {
		case strings.HasPrefix(s, "{."):
			end := strings.IndexByte(s, '}')
			if end < 0 {
				panic("ptx catalog: unclosed { in " + mods)
			}
			body, s, opt = s[2:end], s[end+1:], true
		case strings.HasPrefix(s, "."):
			end := len(s)
			for i := 1; i < len(s); i++ {
				if s[i] == '{' || s[i] == '.' && s[i-1] != ':' {
					end = i
					break
				}
			}
			body, s = s[1:end], s[end:]
		default:
			panic("ptx catalog: bad modifier notation " + mods)
		}
		sl := slot{opt: opt}
		for _, alt := range strings.Split(body, "|") {
			switch {
			case alt == "$mnk":
				sl.shape = true
			case strings.HasPrefix(alt, "$"):
				set, ok := modSets[alt[1:]]
				if !ok {
					panic("ptx catalog: unknown set " + alt)
				}
				if sl.set == "" {
					sl.set = alt[1:]
				}
				sl.names = append(sl.names, strings.Split(set, "|")...)
			default:
				sl.names = append(sl.names, alt)
			}
		}
		if !sl.shape {
			sl.isType = true
			for _, n := range sl.names {
				if LookupType(n) == TypeNone {
					sl.isType = false
				}
			}
			if sl.isType {
				f.nTypes++
			}
		}
		f.slots = append(f.slots, sl)
	}
	if strings.TrimSpace(ops) != "" {
		for _, part := range strings.Split(ops, ",") {
			sp := compileOp(strings.TrimSpace(part), f.nTypes > 0)
			f.hasCond = f.hasCond || sp.cond != nil
			f.ops = append(f.ops, sp)
		}
	}
	return f
}

func compileOp(s string, typed bool) opSpec {
	var sp opSpec
	if i := strings.IndexByte(s, '='); i >= 0 {
		sp.name, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '|'); i >= 0 {
		second := s[i+1:]
		s = s[:i]
		if strings.HasSuffix(second, "?") {
			sp.secondOK = true
			second = strings.TrimSuffix(second, "?")
		}
		o := compileOp(second, typed)
		sp.second = &o
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		sp.optional = true
		if cond := s[i+1:]; cond != "" {
			sp.cond = strings.Split(cond, "/")
			sp.optional = false
		}
		s = s[:i]
	}
	if strings.HasSuffix(s, "~") {
		sp.typ.relaxed = true
		s = strings.TrimSuffix(s, "~")
	}
	if strings.HasPrefix(s, "_") {
		sp.sink = true
		s = s[1:]
	}
	typ := ""
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s, typ = s[:i], s[i+1:]
	}
	k, ok := opKindNames[s]
	if !ok {
		panic("ptx catalog: unknown operand kind " + s)
	}
	sp.kind = k
	sp.typ.index = -1
	switch {
	case strings.HasPrefix(typ, "@"):
		sp.typ.space = typ[1:]
		if sp.typ.space == "" {
			sp.typ.space = "0"
		}
	case typ == "" && k == opAddr:
		sp.typ.space = "0"
	case typ == "":
		if typed {
			sp.typ.index = 0
		}
	case typ == "*":
	case typ[0] >= '0' && typ[0] <= '9':
		sp.typ.index = int(typ[0] - '0')
		sp.typ.wide = strings.HasSuffix(typ, "w")
	default:
		sp.typ.fixed = LookupType(typ)
		if sp.typ.fixed == TypeNone {
			panic("ptx catalog: unknown operand type " + typ)
		}
	}
	if sp.name == "" {
		sp.name = s
	}
	return sp
}

// problem is one reason an instruction does not fit a form.
type problem struct {
	pos  Pos
	msg  string
	hint string
	warn bool // ptxas accepts it; it is wrong at run time
}

// fits reports whether the instruction's modifiers match the form. It is
// matchMods without the messages, and allocates nothing.
func (f *Form) fits(in *Instruction) bool {
	var used uint64
	if len(f.slots) > 64 {
		_, probs := f.matchMods(in)
		return len(probs) == 0
	}
	for _, m := range in.Mods {
		ok := false
		for j := range f.slots {
			if used&(1<<j) == 0 && f.slots[j].accepts(m.Name) {
				used |= 1 << j
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for j := range f.slots {
		if used&(1<<j) == 0 && !f.slots[j].opt {
			return false
		}
	}
	return true
}

// matchMods assigns the instruction's modifiers to the form's slots. It
// returns the slot of each modifier and the problems found.
func (f *Form) matchMods(in *Instruction) (assign []int, probs []problem) {
	var usedArr [48]bool
	var used []bool
	if len(f.slots) <= len(usedArr) {
		used = usedArr[:len(f.slots)]
	} else {
		used = make([]bool, len(f.slots))
	}
	assign = make([]int, len(in.Mods))
	for i, m := range in.Mods {
		assign[i] = -1
		for j := range f.slots {
			if !used[j] && f.slots[j].accepts(m.Name) {
				used[j] = true
				assign[i] = j
				break
			}
		}
		if assign[i] >= 0 {
			continue
		}
		dup := false
		for j := range f.slots {
			if f.slots[j].accepts(m.Name) {
				dup = true
				// Name the modifier it conflicts with.
				for k := 0; k < i; k++ {
					if assign[k] == j {
						if in.Mods[k].Name == m.Name {
							probs = append(probs, problem{m.Pos, fmt.Sprintf("duplicate modifier .%s", m.Name), "", false})
						} else {
							probs = append(probs, problem{m.Pos, fmt.Sprintf(".%s conflicts with .%s", m.Name, in.Mods[k].Name), "only one of " + f.slots[j].describe() + " may be given", false})
						}
						break
					}
				}
				break
			}
		}
		if !dup {
			probs = append(probs, problem{m.Pos, fmt.Sprintf("modifier .%s is not allowed here", m.Name), "", false})
		}
	}
	for j := range f.slots {
		if !used[j] && !f.slots[j].opt {
			sl := &f.slots[j]
			pos := in.OpPos
			if sl.isType {
				// A type modifier that fits nowhere and a missing type
				// are one problem: the wrong type.
				merged := false
				for i, m := range in.Mods {
					if assign[i] < 0 && LookupType(m.Name) != TypeNone {
						for k := range probs {
							if probs[k].pos == m.Pos && strings.HasPrefix(probs[k].msg, "modifier .") {
								probs[k] = problem{m.Pos, fmt.Sprintf("type .%s is not allowed here", m.Name), "one of " + sl.describe(), false}
								assign[i] = j
								merged = true
								break
							}
						}
					}
					if merged {
						break
					}
				}
				if merged {
					continue
				}
			}
			what := "modifier"
			if sl.isType {
				what = "type"
			}
			if len(sl.names) == 1 {
				probs = append(probs, problem{pos, fmt.Sprintf("missing %s .%s", what, sl.names[0]), "", false})
			} else {
				probs = append(probs, problem{pos, fmt.Sprintf("missing %s", what), "one of " + sl.describe(), false})
			}
		}
	}
	return assign, probs
}

// activeOps returns the operand specs that apply to the instruction, with
// conditional operands resolved, and the number of optional ones to use.
func (f *Form) activeOps(in *Instruction) []opSpec {
	if !f.hasCond {
		return f.ops
	}
	var out []opSpec
	for _, sp := range f.ops {
		if sp.cond != nil {
			present := false
			for _, c := range sp.cond {
				if in.ModPrefix(c) != "" {
					present = true
				}
			}
			if !present {
				continue
			}
		}
		out = append(out, sp)
	}
	return out
}

// bindOps pairs operands with specs. It returns nil and a problem if the
// count does not fit.
func bindOps(in *Instruction, specs []opSpec, buf []*opSpec) ([]*opSpec, *problem) {
	required, optional, rest := 0, 0, false
	for _, sp := range specs {
		switch {
		case sp.kind == opRest:
			rest = true
		case sp.optional:
			optional++
		default:
			required++
		}
	}
	n := len(in.Operands)
	if n < required || n > required+optional && !rest {
		want := fmt.Sprint(required)
		if optional > 0 {
			want = fmt.Sprintf("%d to %d", required, required+optional)
		}
		if rest {
			want = fmt.Sprintf("at least %d", required)
		}
		pos := in.OpPos
		if n > required+optional && n > 0 {
			pos = in.Operands[min(required+optional, n-1)].Position()
		}
		return nil, &problem{pos, fmt.Sprintf("%s takes %s operands, found %d", in.Name(), want, n), "operands: " + specNames(specs), false}
	}
	extra := n - required
	out := buf[:0]
	if cap(out) < n {
		out = make([]*opSpec, n)
	} else {
		out = out[:n]
	}
	k := 0
	for i := range specs {
		sp := &specs[i]
		if sp.kind == opRest {
			for k < n {
				out[k] = sp
				k++
			}
			break
		}
		if sp.optional {
			if extra == 0 {
				continue
			}
			extra--
		}
		if k < n {
			out[k] = sp
			k++
		}
	}
	return out, nil
}

func specNames(specs []opSpec) string {
	var parts []string
	for _, sp := range specs {
		n := sp.name
		if sp.second != nil {
			n += "|" + sp.second.name
		}
		if sp.optional {
			n = "[" + n + "]"
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, ", ")
}
