package bitmath

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Derivation is what Derive finds out about a Map: its F2 matrix, the
// matrix's inverse, and the two programs.
type Derivation struct {
	Map    Map
	Matrix Matrix
	// Inv is the F2 inverse of Matrix (two-sided, one-sided or
	// generalized; see Inv.Kind).
	Inv Inverse
	// Forward computes Map.Out from Map.In; Inverse computes Map.In from
	// Map.Out for every output the map produces.
	Forward, Inverse *Program
}

// Derive analyzes m over F2 (see Analyze) and derives the simplest
// shift/mask/add/xor programs for both directions.
//
// The rules, in order:
//
//   - Every output bit is the XOR of the input bits its matrix row names.
//     Entries that move bits of one variable by the same distance form one
//     term: a run of consecutive bits a..a+k-1 landing at b..b+k-1 is
//     "((x >> a) & m) << b", with the parts that do nothing dropped (no
//     mask when the run reaches the variable's top bit, no shift by 0).
//     Several runs with the same distance share one mask.
//   - A term is printed in the form with the fewest operators: the
//     extract-and-place form above, mask-then-shift "(x & M) << d", or
//     shift-then-mask "(x >> d) & M"; ties go to that order.
//   - Terms whose bits are disjoint are joined with "+" (there is nothing
//     to carry, so + equals | and ^, and + reads as arithmetic, as in the
//     seed's "(wid << 4) + (lane >> 2)"). Terms that share bits (swizzles)
//     are joined with "^". Terms are listed from the most significant
//     output bit down.
//   - The thread index may be split into named intermediates, wid = tid >>
//     5 and lane = tid & 31; a swizzled offset may be computed through the
//     unswizzled offset "lin". Each such choice is kept only when it costs
//     no more operators than going without; ties keep the named form,
//     which reads like hand-written epilogues.
//   - In the forward direction of a thread-value layout, the part of an
//     output that depends only on the thread is named frag_row/frag_col:
//     the per-thread base an epilogue computes once, to which each value
//     adds a constant.
//   - Masks at the top of a variable's range are dropped, so the programs
//     assume their inputs are in range (0 <= tid < threads, and so on).
//
// Both programs are checked against m on every input before Derive
// returns; a mismatch is reported as an error, never printed.
func Derive(m Map) (*Derivation, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	m = m.tabulated()
	mat, err := Analyze(m)
	if err != nil {
		return nil, err
	}
	d := &Derivation{Map: m, Matrix: mat, Inv: mat.Invert()}
	fac := factor(m, mat)
	stem := identifier(m.Name)
	d.Forward = best(forwardCandidates(m, mat, fac))
	d.Forward.Name = stem + "_fwd"
	d.Forward.Desc = fmt.Sprintf("%s: %s -> %s", m.Name, fieldNames(m.In), fieldNames(m.Out))
	d.Inverse = best(inverseCandidates(m, d.Inv, fac))
	d.Inverse.Name = stem + "_inv"
	d.Inverse.Desc = fmt.Sprintf("%s, inverse: %s -> %s", m.Name, fieldNames(m.Out), fieldNames(m.In))
	d.Forward.Notes = append(domainNotes(m.In), d.Forward.Notes...)
	if fac != nil && fac.note != "" {
		d.Forward.Notes = append(d.Forward.Notes, fac.note)
	}
	d.Inverse.Notes = append(inverseNotes(m, mat, d.Inv), d.Inverse.Notes...)
	if err := verify(m, d.Forward, d.Inverse); err != nil {
		return nil, err
	}
	return d, nil
}

// identifier turns an atom name into a C/Go/Python identifier stem;
// layout notation (anything with parentheses or a swizzle) becomes "layout".
func identifier(name string) string {
	if strings.ContainsAny(name, "():<") {
		return "layout"
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	if s == "" {
		return "layout"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "l_" + s
	}
	return s
}

func best(cands []*Program) *Program {
	b := cands[0]
	for _, c := range cands[1:] {
		if c.Ops() < b.Ops() {
			b = c
		}
	}
	return b
}

// dvar is a variable of a derivation: the bits [lo, lo+width) of one base
// field on its side of a matrix.
type dvar struct {
	name   string
	field  int
	lo     int
	width  int
	thread bool // holds thread-index bits (for the frag_ split)
}

func wholeVars(fs []Field) []dvar {
	vs := make([]dvar, len(fs))
	for k, f := range fs {
		vs[k] = dvar{name: f.Name, field: k, width: f.Bits(), thread: f.Name == "tid"}
	}
	return vs
}

// splitTid replaces the whole-field variable tid with lane and wid, and
// reports whether it could (tid must have more than LaneBits bits).
func splitTid(fs []Field, vs []dvar) ([]dvar, bool) {
	for i, v := range vs {
		if v.name == "tid" && v.width > LaneBits {
			out := append([]dvar(nil), vs[:i]...)
			out = append(out,
				dvar{name: "wid", field: v.field, lo: LaneBits, width: v.width - LaneBits, thread: true},
				dvar{name: "lane", field: v.field, lo: 0, width: LaneBits, thread: true})
			return append(out, vs[i+1:]...), true
		}
	}
	return vs, false
}

func fieldStart(fs []Field, k int) int {
	s := 0
	for _, f := range fs[:k] {
		s += f.Bits()
	}
	return s
}

// locate returns the variable holding matrix bit j and the bit's position
// in it.
func locate(fs []Field, vs []dvar, j int) (int, int) {
	for k := range fs {
		st := fieldStart(fs, k)
		if j < st || j >= st+fs[k].Bits() {
			continue
		}
		p := j - st
		for i, v := range vs {
			if v.field == k && p >= v.lo && p < v.lo+v.width {
				return i, p - v.lo
			}
		}
	}
	return -1, 0
}

// item is one term of an expression being assembled: its code, the output
// bits it can set, and its explanation.
type item struct {
	e    *Expr
	bits uint64
	note string
	// thread marks terms that depend on thread bits only.
	thread bool
}

// termsFor lists the terms of output variable o of a matrix whose inputs
// are the variables in.
func termsFor(mat Matrix, in []dvar, o dvar) []item {
	type key struct{ v, d int }
	masks := map[key]uint64{}
	var konst uint64
	ostart := fieldStart(mat.Out, o.field) + o.lo
	for b := 0; b < o.width; b++ {
		ob := ostart + b
		if mat.Const>>ob&1 == 1 {
			konst |= 1 << b
		}
		for row := mat.Row(ob); row != 0; row &= row - 1 {
			vi, p := locate(mat.In, in, bits.TrailingZeros64(row))
			masks[key{vi, b - p}] |= 1 << p
		}
	}
	keys := make([]key, 0, len(masks))
	for k := range masks {
		keys = append(keys, k)
	}
	var items []item
	for _, k := range keys {
		v := in[k.v]
		p := masks[k]
		out := shiftMask(p, k.d)
		items = append(items, item{
			e:      termExpr(v.name, v.width, p, k.d),
			bits:   out,
			note:   termNote(v.name, v.width, p, k.d, o.name),
			thread: v.thread,
		})
	}
	sort.Slice(items, func(i, j int) bool {
		hi, hj := bits.Len64(items[i].bits), bits.Len64(items[j].bits)
		if hi != hj {
			return hi > hj
		}
		if pi, pj := bits.OnesCount64(items[i].bits), bits.OnesCount64(items[j].bits); pi != pj {
			return pi > pj
		}
		return items[i].e.String() < items[j].e.String()
	})
	if konst != 0 {
		items = append(items, item{e: Const(int64(konst)), bits: konst,
			note: fmt.Sprintf("constant %s %s", o.name, bitWord(konst))})
	}
	return items
}

func shiftMask(p uint64, d int) uint64 {
	if d >= 0 {
		return p << d
	}
	return p >> -d
}

// termExpr prints "bits p of x (a width-bit variable), moved by d" in the
// form with the fewest operators (see Derive).
func termExpr(x string, w int, p uint64, d int) *Expr {
	full := uint64(1)<<w - 1
	var cands []*Expr
	if a, k, ok := run(p); ok { // extract-and-place: ((x >> a) & m) << b
		e := Var(x)
		if a > 0 {
			e = Bin(OpShr, e, Const(int64(a)))
		}
		if a+k < w {
			e = Bin(OpAnd, e, Const(int64(1)<<k-1))
		}
		if b := a + d; b > 0 {
			e = Bin(OpShl, e, Const(int64(b)))
		}
		cands = append(cands, e)
	}
	{ // mask, then shift: (x & M) << d
		e := Var(x)
		need := p != full
		if d < 0 { // the bits below -d fall off anyway
			need = (full&^(uint64(1)<<-d-1))&^p != 0
		}
		if need {
			e = Bin(OpAnd, e, Const(int64(p)))
		}
		if d > 0 {
			e = Bin(OpShl, e, Const(int64(d)))
		} else if d < 0 {
			e = Bin(OpShr, e, Const(int64(-d)))
		}
		cands = append(cands, e)
	}
	{ // shift, then mask: (x >> d) & M
		e := Var(x)
		res, q := full, p
		if d > 0 {
			e = Bin(OpShl, e, Const(int64(d)))
			res, q = full<<d, p<<d
		} else if d < 0 {
			e = Bin(OpShr, e, Const(int64(-d)))
			res, q = full>>-d, p>>-d
		}
		if q != res {
			e = Bin(OpAnd, e, Const(int64(q)))
		}
		cands = append(cands, e)
	}
	b := cands[0]
	for _, c := range cands[1:] {
		if c.Ops() < b.Ops() {
			b = c
		}
	}
	return b
}

// run reports whether p is one run of consecutive bits a..a+k-1.
func run(p uint64) (a, k int, ok bool) {
	if p == 0 {
		return 0, 0, false
	}
	a = bits.TrailingZeros64(p)
	k = bits.OnesCount64(p)
	return a, k, p>>a == uint64(1)<<k-1
}

// bitList prints bit positions compactly: "3", "2-4", "1,3,5-6".
func bitList(p uint64) string {
	var parts []string
	for p != 0 {
		a := bits.TrailingZeros64(p)
		k := bits.TrailingZeros64(^(p >> a))
		switch k {
		case 1:
			parts = append(parts, strconv.Itoa(a))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", a, a+k-1))
		}
		p &^= (uint64(1)<<k - 1) << a
	}
	return strings.Join(parts, ",")
}

// bitWord prints "bit 3" or "bits 2-4".
func bitWord(p uint64) string {
	if bits.OnesCount64(p) == 1 {
		return "bit " + bitList(p)
	}
	return "bits " + bitList(p)
}

// tmemBits names TMEM address bits as lane and column bits.
func tmemBits(q uint64) string {
	lane, col := q>>TMEMLaneShift, q&(1<<TMEMLaneShift-1)
	var parts []string
	if lane != 0 {
		parts = append(parts, "TMEM lane "+bitWord(lane))
	}
	if col != 0 {
		parts = append(parts, "TMEM column "+bitWord(col))
	}
	return strings.Join(parts, ", ")
}

// termNote explains a term: which bits move where, and the same thing in
// ordinary arithmetic.
func termNote(x string, w int, p uint64, d int, out string) string {
	s := fmt.Sprintf("%s %s -> %s %s", x, bitWord(p), out, bitWord(shiftMask(p, d)))
	if out == "taddr" {
		s += " (" + tmemBits(shiftMask(p, d)) + ")"
	}
	a, k, ok := run(p)
	if !ok {
		return s
	}
	b := a + d
	if a > 12 || b > 12 { // the arithmetic reading stops helping for huge factors
		return s
	}
	if k == 1 {
		return s + fmt.Sprintf(" (+%d when %s bit %d is set)", int64(1)<<b, x, a)
	}
	ar := x
	if a > 0 {
		ar = fmt.Sprintf("%s / %d", ar, int64(1)<<a)
	}
	if a+k < w {
		ar = fmt.Sprintf("%s %% %d", paren(ar), int64(1)<<k)
	}
	if b > 0 {
		ar = fmt.Sprintf("%s * %d", paren(ar), int64(1)<<b)
	}
	if ar == x {
		return s
	}
	return s + " (" + ar + ")"
}

func paren(s string) string {
	if strings.Contains(s, " ") {
		return "(" + s + ")"
	}
	return s
}

// combine joins items: those with disjoint bits by "+", the groups that
// overlap by "^". It returns the expression and the notes in print order.
func combine(items []item) (*Expr, []TermNote) {
	if len(items) == 0 {
		return Const(0), nil
	}
	var groups [][]item
	var used []uint64
	for _, it := range items {
		placed := false
		for g := range groups {
			if used[g]&it.bits == 0 {
				groups[g] = append(groups[g], it)
				used[g] |= it.bits
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []item{it})
			used = append(used, it.bits)
		}
	}
	var e *Expr
	var notes []TermNote
	for g, grp := range groups {
		var ge *Expr
		for _, it := range grp {
			if ge == nil {
				ge = it.e
			} else {
				ge = Bin(OpAdd, ge, it.e)
			}
			n := it.note
			if g > 0 {
				n += "; joined with ^: it overlaps bits of the terms before"
			}
			if n != "" {
				notes = append(notes, TermNote{Expr: it.e.String(), Note: n})
			}
		}
		if e == nil {
			e = ge
		} else {
			e = Bin(OpXor, e, ge)
		}
	}
	return e, notes
}

func unionBits(items []item) uint64 {
	var u uint64
	for _, it := range items {
		u |= it.bits
	}
	return u
}

// defineSegment returns the step that extracts variable v from the whole
// field it belongs to (lane = tid & 31, wid = tid >> 5).
func defineSegment(field Field, v dvar) Step {
	p := (uint64(1)<<v.width - 1) << v.lo
	e := termExpr(field.Name, field.Bits(), p, -v.lo)
	why := map[string]string{
		"wid":  "the warp within the group of threads",
		"lane": "the lane within the warp",
	}[v.name]
	return Step{Name: v.name, Expr: e, Why: why,
		Terms: []TermNote{{e.String(), termNote(field.Name, field.Bits(), p, -v.lo, v.name)}}}
}

// stageSteps derives the steps that compute the variables outs of mat from
// the variables ins. With frag set, an output's thread-only terms are named
// frag_<output> first.
func stageSteps(mat Matrix, ins, outs []dvar, frag bool, why map[string]string) []Step {
	var frags, steps []Step
	for _, o := range outs {
		items := termsFor(mat, ins, o)
		var th, rest []item
		for _, it := range items {
			if it.thread {
				th = append(th, it)
			} else {
				rest = append(rest, it)
			}
		}
		if frag && len(th) > 0 && len(rest) > 0 && !(len(th) == 1 && th[0].e.Op == OpVar) {
			name := "frag_" + o.name
			fe, fnotes := combine(th)
			frags = append(frags, Step{Name: name, Expr: fe, Terms: fnotes,
				Why: fmt.Sprintf("this thread's base %s: the part that depends on the thread only", noun(o.name))})
			items = append([]item{{e: Var(name), bits: unionBits(th),
				note: fmt.Sprintf("%s: the thread's part", name)}}, rest...)
		}
		e, notes := combine(items)
		steps = append(steps, Step{Name: o.name, Expr: e, Terms: notes, Why: why[o.name]})
	}
	return append(frags, steps...)
}

// prune drops steps whose variable no later step or output uses.
func prune(steps []Step, outputs []Field) []Step {
	need := map[string]bool{}
	for _, f := range outputs {
		need[f.Name] = true
	}
	keep := make([]bool, len(steps))
	for i := len(steps) - 1; i >= 0; i-- {
		if !need[steps[i].Name] {
			continue
		}
		keep[i] = true
		need[steps[i].Name] = false
		steps[i].Expr.Vars(func(v *Expr) { need[v.Name] = true })
	}
	var out []Step
	for i, s := range steps {
		if keep[i] {
			s.Expr = s.Expr.clone() // candidates share steps; bind writes slots
			out = append(out, s)
		}
	}
	return out
}

// factoring is a swizzled map split as offset = S(lin), lin = L(in).
type factoring struct {
	lin   Field  // the unswizzled offset
	inner Matrix // L: in -> lin
	swz   Matrix // S: lin -> offset
	unswz Matrix // S⁻¹ = S: offset -> lin
	desc  string
	note  string // set when the swizzle names bits the offsets never reach
}

// factor splits a swizzled map into its swizzle and the layout beneath it,
// when the swizzle is an F2-linear permutation of the offset bits.
func factor(m Map, mat Matrix) *factoring {
	if m.Swizzle.IsIdentity() || len(m.Out) != 1 {
		return nil
	}
	sw := m.Swizzle
	lin := Field{Name: "lin", Extent: m.Out[0].Extent}
	inner := Map{Name: m.Name, In: m.In, Out: []Field{lin},
		F: func(in, out []int) {
			m.F(in, out)
			out[0] = sw.Apply(out[0]) // the swizzle is an involution
		}}
	L, err := Analyze(inner)
	if err != nil {
		return nil
	}
	w := lin.Bits()
	mk := func(from, to Field) (Matrix, bool) {
		s := Matrix{In: []Field{from}, Out: []Field{to}, Cols: make([]uint64, w)}
		for j := range w {
			y := sw.Apply(1 << j)
			if y>>w != 0 {
				return s, false
			}
			s.Cols[j] = uint64(y)
		}
		return s, true
	}
	S, ok1 := mk(lin, m.Out[0])
	U, ok2 := mk(m.Out[0], lin)
	if !ok1 || !ok2 {
		return nil
	}
	// Sanity: S·L must be the whole map.
	for j := range mat.Cols {
		if S.Apply(L.Cols[j]) != mat.Cols[j] {
			return nil
		}
	}
	if S.Apply(L.Const) != mat.Const {
		return nil
	}
	f := &factoring{lin: lin, inner: L, swz: S, unswz: U, desc: sw.String()}
	// Say so when the swizzle names bits the offsets never reach.
	src := (uint64(1)<<sw.B - 1) << (sw.M + max(sw.S, 0))
	if sw.S < 0 {
		src = (uint64(1)<<sw.B - 1) << sw.M
	}
	if missing := src &^ (uint64(1)<<w - 1); missing != 0 {
		f.note = fmt.Sprintf("%s reads offset %s, but offsets here stay below %d, so %s always 0 and only the other bits are XORed",
			sw, bitWord(src), lin.Extent, strings.Replace(bitWord(missing), "bits", "bits are", 1))
		if bits.OnesCount64(missing) == 1 {
			f.note = strings.Replace(f.note, "so "+bitWord(missing), "so "+bitWord(missing)+" is", 1)
		}
	}
	return f
}

func forwardCandidates(m Map, mat Matrix, fac *factoring) []*Program {
	isTV := hasField(m.In, "tid") && hasField(m.In, "v")
	why := map[string]string{}
	for _, f := range m.Out {
		why[f.Name] = fmt.Sprintf("the %s of %s", noun(f.Name), fieldNames(m.In))
	}
	why["taddr"] = fmt.Sprintf("the TMEM address (lane << 16 | column) of %s", fieldNames(m.In))
	if isTV {
		why["row"], why["col"] = "the row of value v of this thread", "the column of value v of this thread"
	}
	var cands []*Program
	for _, split := range []bool{true, false} {
		ins := wholeVars(m.In)
		var defs []Step
		if split {
			var ok bool
			if ins, ok = splitTid(m.In, ins); !ok {
				continue
			}
			k := fieldIndex(m.In, "tid")
			for _, v := range ins {
				if v.field == k {
					defs = append(defs, defineSegment(m.In[k], v))
				}
			}
		}
		for _, fact := range []bool{true, false} {
			var steps []Step
			steps = append(steps, defs...)
			if fact {
				if fac == nil {
					continue
				}
				linVar := []dvar{{name: "lin", field: 0, width: fac.lin.Bits()}}
				steps = append(steps, stageSteps(fac.inner, ins, linVar, false,
					map[string]string{"lin": "the offset before the swizzle"})...)
				steps = append(steps, stageSteps(fac.swz, linVar, wholeVars(m.Out), false,
					map[string]string{m.Out[0].Name: swizzleWhy(fac)})...)
			} else {
				steps = append(steps, stageSteps(mat, ins, wholeVars(m.Out), isTV, why)...)
			}
			cands = append(cands, &Program{Inputs: m.In, Outputs: m.Out, Steps: prune(steps, m.Out)})
		}
	}
	return cands
}

func swizzleWhy(fac *factoring) string {
	return fmt.Sprintf("%s applied to lin: XOR the bits it names into the lower bits", fac.desc)
}

func inverseCandidates(m Map, inv Inverse, fac *factoring) []*Program {
	why := map[string]string{}
	for _, f := range m.In {
		why[f.Name] = fmt.Sprintf("the %s of the element at this %s", noun(f.Name), fieldNames(m.Out))
	}
	why["tid"] = "the thread that holds this element"
	why["v"] = "which of the thread's values it is"
	why["lane"] = "the lane that holds this element"
	why["wid"] = "the warp that holds this element"
	var cands []*Program
	for _, split := range []bool{true, false} {
		outs := wholeVars(m.In)
		var assemble []Step
		if split {
			var ok bool
			if outs, ok = splitTid(m.In, outs); !ok {
				continue
			}
			k := fieldIndex(m.In, "tid")
			var items []item
			for _, v := range outs {
				if v.field == k {
					items = append(items, item{e: termExpr(v.name, v.width, uint64(1)<<v.width-1, v.lo),
						bits: (uint64(1)<<v.width - 1) << v.lo, note: termNote(v.name, v.width, uint64(1)<<v.width-1, v.lo, "tid")})
				}
			}
			e, notes := combine(items)
			assemble = []Step{{Name: "tid", Expr: e, Terms: notes, Why: why["tid"]}}
		}
		for _, fact := range []bool{true, false} {
			var steps []Step
			if fact {
				if fac == nil || inv.Kind != Bijective {
					continue
				}
				linInv := fac.inner.Invert()
				if linInv.Kind != Bijective {
					continue
				}
				linVar := []dvar{{name: "lin", field: 0, width: fac.lin.Bits()}}
				steps = append(steps, stageSteps(fac.unswz, wholeVars(m.Out), linVar, false,
					map[string]string{"lin": "undo the swizzle (" + fac.desc + " is its own inverse)"})...)
				steps = append(steps, stageSteps(linInv.M, linVar, outs, false, why)...)
			} else {
				steps = append(steps, stageSteps(inv.M, wholeVars(m.Out), outs, false, why)...)
			}
			steps = append(steps, assemble...)
			cands = append(cands, &Program{Inputs: m.Out, Outputs: m.In, Steps: prune(steps, m.In)})
		}
	}
	return cands
}

// noun spells a variable name out for explanations.
func noun(name string) string {
	switch name {
	case "col":
		return "column"
	case "taddr":
		return "TMEM address"
	case "i":
		return "index"
	}
	return name
}

func hasField(fs []Field, name string) bool { return fieldIndex(fs, name) >= 0 }

func fieldIndex(fs []Field, name string) int {
	for k, f := range fs {
		if f.Name == name {
			return k
		}
	}
	return -1
}

func domainNotes(in []Field) []string {
	var notes []string
	for _, f := range in {
		if f.Extent != 1<<f.Bits() {
			notes = append(notes, fmt.Sprintf("%s ranges over 0..%d, not a power of two: the formulas hold on that range only", f.Name, f.Extent-1))
		}
	}
	return notes
}

// inverseNotes says what the inverse of a map that is not a bijection
// returns, and which outputs have no preimage.
func inverseNotes(m Map, mat Matrix, inv Inverse) []string {
	var notes []string
	if inv.Kind == Bijective {
		return nil
	}
	if len(inv.Kernel) > 0 {
		owners := 1 << len(inv.Kernel)
		var ks []string
		for _, k := range inv.Kernel {
			ks = append(ks, mat.inSet(k))
		}
		notes = append(notes, fmt.Sprintf("broadcast: every %s reached has %d preimages; this inverse returns the one with %s = 0, the others differ from it by XOR with any combination of: %s",
			fieldNames(m.Out), owners, labelList(mat, inv.Free), strings.Join(ks, ", ")))
	}
	if len(inv.Constraints) > 0 {
		notes = append(notes, fmt.Sprintf("not onto: the map reaches only outputs where %s; for the others the inverse's result is meaningless",
			mat.constraintText(inv.Constraints)))
	}
	return notes
}

// constraintText describes the image's constraints: single output bits
// that are fixed, grouped into ranges ("C6-C15 and L4 are 0"), then the
// conditions that tie several bits together ("r3 ^ c1 = 0").
func (m Matrix) constraintText(cs []uint64) string {
	var fixed [2]uint64
	var parts []string
	for _, c := range cs {
		par := bits.OnesCount64(c&m.Const) & 1
		if bits.OnesCount64(c) == 1 {
			fixed[par] |= c
			continue
		}
		parts = append(parts, fmt.Sprintf("%s = %d", m.outSet(c), par))
	}
	for v := 1; v >= 0; v-- {
		if fixed[v] != 0 {
			verb := "is"
			if bits.OnesCount64(fixed[v]) > 1 {
				verb = "are"
			}
			parts = append([]string{fmt.Sprintf("%s %s %d", m.outRanges(fixed[v]), verb, v)}, parts...)
		}
	}
	return strings.Join(parts, " and ")
}

// outRanges prints a set of output bits as label ranges, "r3, C6-C15, L4".
func (m Matrix) outRanges(y uint64) string {
	prefix := func(l string) string { return strings.TrimRight(l, "0123456789") }
	var parts []string
	for y != 0 {
		o := bits.TrailingZeros64(y)
		e := o
		for y>>(e+1)&1 == 1 && prefix(m.OutLabel(e+1)) == prefix(m.OutLabel(o)) {
			e++
		}
		if e == o {
			parts = append(parts, m.OutLabel(o))
		} else {
			parts = append(parts, m.OutLabel(o)+"-"+m.OutLabel(e))
		}
		y &^= (uint64(1)<<(e-o+1) - 1) << o
	}
	return strings.Join(parts, ", ")
}

func labelList(mat Matrix, x uint64) string {
	var ls []string
	for ; x != 0; x &= x - 1 {
		ls = append(ls, mat.InLabel(bits.TrailingZeros64(x)))
	}
	return strings.Join(ls, ", ")
}

// outSet prints an XOR of output bits, "r3 ^ c1".
func (m Matrix) outSet(y uint64) string {
	var ls []string
	for ; y != 0; y &= y - 1 {
		ls = append(ls, m.OutLabel(bits.TrailingZeros64(y)))
	}
	return strings.Join(ls, " ^ ")
}

// verify runs both programs over the whole domain: the forward program
// must reproduce m, and the inverse must return, for every output, an
// input that maps to it.
func verify(m Map, fwd, inv *Program) error {
	if err := fwd.bind(nil); err != nil {
		return fmt.Errorf("derived forward program: %w", err)
	}
	if err := inv.bind(nil); err != nil {
		return fmt.Errorf("derived inverse program: %w", err)
	}
	fenv := make([]int64, len(fwd.slots))
	ienv := make([]int64, len(inv.slots))
	fout := make([]int64, len(m.Out))
	iout := make([]int64, len(m.In))
	want := make([]int, len(m.Out))
	back := make([]int, len(m.In))
	got := make([]int, len(m.Out))
	var err error
	m.each(func(in []int) bool {
		m.F(in, want)
		for k, v := range in {
			fenv[k] = int64(v)
		}
		if err = fwd.run(fenv, fout); err != nil {
			return false
		}
		for k := range want {
			if fout[k] != int64(want[k]) {
				err = fmt.Errorf("internal error: derived forward program gives %v at %s, the map gives %s", fout, fmtTuple(m.In, in), fmtTuple(m.Out, want))
				return false
			}
			ienv[k] = int64(want[k])
		}
		if err = inv.run(ienv, iout); err != nil {
			return false
		}
		for k, v := range iout {
			if v < 0 || v >= int64(m.In[k].Extent) {
				err = fmt.Errorf("internal error: derived inverse program gives %v for %s, outside the domain", iout, fmtTuple(m.Out, want))
				return false
			}
			back[k] = int(v)
		}
		m.F(back, got)
		for k := range got {
			if got[k] != want[k] {
				err = fmt.Errorf("internal error: derived inverse program maps %s to %s, which holds %s", fmtTuple(m.Out, want), fmtTuple(m.In, back), fmtTuple(m.Out, got))
				return false
			}
		}
		return true
	})
	return err
}
