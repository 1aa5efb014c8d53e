package bitmath

import (
	"fmt"
	"sort"
	"strings"
)

// CheckResult is the outcome of checking a user's formula against a map.
type CheckResult struct {
	Map     string
	Inverse bool
	// Fields are what the check iterates over: the map's inputs, or for
	// an inverse check its outputs.
	Fields []Field
	// Results are what the formula computes: the map's outputs, or its
	// inputs for an inverse check.
	Results []Field
	Checked int // tuples checked
	Skipped int // inverse: outputs that no input produces, not checked
	Wrong   int // tuples where the formula is wrong
	// First is the first wrong tuple (in row-major order: the first
	// field slowest), or nil when the formula is correct.
	First *Mismatch
	// EvalErr is set when the formula cannot be evaluated at First.At,
	// e.g. a division by zero; the check stops there.
	EvalErr *FormulaError
	// Hints say which input bits the formula moves to the wrong output
	// bits, when the formula is itself linear over F2.
	Hints []string
}

// Mismatch is one tuple where a formula is wrong.
type Mismatch struct {
	At   []int   // the tuple checked
	Want []int   // forward: the map's output; inverse: one correct preimage
	Got  []int64 // what the formula gives (nil after an evaluation error)
	// Inverse only: Owners is the number of correct preimages, and Holds
	// is what the map gives at Got (nil when Got is outside the domain).
	Owners int
	Holds  []int
}

// OK reports whether the formula is correct everywhere.
func (r *CheckResult) OK() bool { return r.First == nil && r.EvalErr == nil }

// aliases are the extra names a formula may use: lane and wid for the
// thread index, reg and r for the value index.
func aliases(in []Field) ([]string, func(env []int64)) {
	var names []string
	var fills []func(env []int64)
	if k := fieldIndex(in, "tid"); k >= 0 {
		names = append(names, "lane", "wid")
		base := len(in)
		fills = append(fills, func(env []int64) {
			env[base] = env[k] & (1<<LaneBits - 1)
			env[base+1] = env[k] >> LaneBits
		})
	}
	if k := fieldIndex(in, "v"); k >= 0 {
		base := len(in) + len(names)
		names = append(names, "reg", "r")
		fills = append(fills, func(env []int64) { env[base], env[base+1] = env[k], env[k] })
	}
	return names, func(env []int64) {
		for _, f := range fills {
			f(env)
		}
	}
}

// completeOutputs lets an inverse formula assign lane and wid instead of
// tid, or reg/r instead of v, by appending the step that combines them.
func completeOutputs(steps []Step, outs []Field) []Step {
	assigned := map[string]bool{}
	for _, s := range steps {
		assigned[s.Name] = true
	}
	if hasField(outs, "tid") && !assigned["tid"] && assigned["lane"] && assigned["wid"] {
		steps = append(steps, Step{Name: "tid", Expr: Bin(OpAdd, Bin(OpShl, Var("wid"), Const(LaneBits)), Var("lane"))})
	}
	if hasField(outs, "v") && !assigned["v"] {
		for _, n := range []string{"reg", "r"} {
			if assigned[n] {
				steps = append(steps, Step{Name: "v", Expr: Var(n)})
				break
			}
		}
	}
	return steps
}

// Check evaluates the user's formula src against m on every input: a
// forward formula assigns m's outputs (row and col) from its inputs (tid
// and v, or lane, wid, reg, r); an inverse formula assigns m's inputs (tid
// and v, or lane and wid, or reg) from its outputs, and must return, for
// every output the map produces, an input that produces it.
//
// A malformed formula gives a *FormulaError. A wrong one gives a result
// whose First names the first tuple where it differs.
func Check(m Map, src string, inverse bool) (*CheckResult, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	steps, err := ParseFormula(src)
	if err != nil {
		return nil, err
	}
	r := &CheckResult{Map: m.Name, Inverse: inverse, Fields: m.In, Results: m.Out}
	var extra []string
	fill := func([]int64) {}
	if inverse {
		r.Fields, r.Results = m.Out, m.In
		steps = completeOutputs(steps, m.In)
	} else {
		extra, fill = aliases(m.In)
	}
	prog := &Program{Name: "formula", Inputs: r.Fields, Outputs: r.Results, Steps: steps}
	if err := prog.bind(extra); err != nil {
		if ee, ok := err.(*EvalError); ok {
			return nil, formulaErr(src, ee.Pos, "%s", ee.Msg)
		}
		var as []string
		for _, s := range steps {
			as = append(as, s.Name)
		}
		return nil, formulaErr(src, len(src), "the formula must assign %s (it assigns %s)",
			strings.Join(names(r.Results), " and "), strings.Join(as, ", "))
	}
	if inverse {
		return r, checkInverse(m, prog, src, r)
	}
	return r, checkForward(m, prog, src, r, fill)
}

// eachLex calls f for every tuple of fs in row-major order (the first
// field slowest), so that "first" means the lowest thread, then value.
func eachLex(fs []Field, f func(t []int) bool) {
	t := make([]int, len(fs))
	for _, x := range fs {
		if x.Extent <= 0 {
			return
		}
	}
	for {
		if !f(t) {
			return
		}
		k := len(t) - 1
		for ; k >= 0; k-- {
			t[k]++
			if t[k] < fs[k].Extent {
				break
			}
			t[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

func evalErr(src string, err error, fs []Field, at []int) *FormulaError {
	pos := 0
	msg := err.Error()
	if ee, ok := err.(*EvalError); ok {
		pos = ee.Pos
	}
	return formulaErr(src, pos, "%s at %s", msg, fmtTuple(fs, at))
}

func checkForward(m Map, prog *Program, src string, r *CheckResult, fill func([]int64)) error {
	env := make([]int64, len(prog.slots))
	got := make([]int64, len(m.Out))
	want := make([]int, len(m.Out))
	eachLex(m.In, func(in []int) bool {
		for k, v := range in {
			env[k] = int64(v)
		}
		fill(env)
		if err := prog.run(env, got); err != nil {
			r.EvalErr = evalErr(src, err, m.In, in)
			r.First = &Mismatch{At: append([]int(nil), in...)}
			return false
		}
		r.Checked++
		m.F(in, want)
		for k := range want {
			if got[k] != int64(want[k]) {
				r.Wrong++
				if r.First == nil {
					r.First = &Mismatch{At: append([]int(nil), in...), Want: append([]int(nil), want...), Got: append([]int64(nil), got...)}
				}
				break
			}
		}
		return true
	})
	if r.Wrong > 0 && r.EvalErr == nil {
		r.Hints = hints(m, prog, fill)
	}
	return nil
}

// maxHints bounds the hint lines of a check.
const maxHints = 6

// hints probes the formula with single-bit inputs (one input bit set, the
// rest zero) and names the bits it sends somewhere other than the layout
// does. When every single bit lands right but the formula is still wrong,
// the fault is in how its terms combine.
func hints(m Map, prog *Program, fill func([]int64)) []string {
	mat, err := Analyze(m)
	if err != nil {
		return nil
	}
	env := make([]int64, len(prog.slots))
	got := make([]int64, len(m.Out))
	want := make([]int, len(m.Out))
	in := make([]int, len(m.In))
	var out []string
	more := 0
	probe := func(label string) {
		for k, v := range in {
			env[k] = int64(v)
		}
		fill(env)
		if prog.run(env, got) != nil {
			return
		}
		m.F(in, want)
		for k := range want {
			if int64(want[k]) != got[k] {
				if len(out) == maxHints {
					more++
					return
				}
				out = append(out, fmt.Sprintf("%s, at %s: the layout gives %s, your formula %s",
					label, fmtTuple(m.In, in), fmtValues(m.Out, want), fmtValues64(m.Out, got)))
				return
			}
		}
	}
	probe("all input bits zero")
	for j := range mat.Cols {
		unpack(m.In, 1<<j, in)
		probe("input bit " + describeBit(mat, j))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("... and %d more input bits", more))
	}
	if len(out) == 0 {
		out = append(out, "every single input bit lands where the layout puts it, so the fault is in how the terms combine: terms joined by + must not share bits (or they carry), and a missing mask lets bits spill")
	}
	return out
}

// describeBit names input bit j: "v2", or for the thread index "l3 (lane
// bit 3)" and "w0 (warp bit 0)".
func describeBit(m Matrix, j int) string {
	l := m.InLabel(j)
	switch {
	case strings.HasPrefix(l, "l") && hasField(m.In, "tid"):
		return l + " (lane bit " + l[1:] + ")"
	case strings.HasPrefix(l, "w") && hasField(m.In, "tid"):
		return l + " (warp bit " + l[1:] + ")"
	}
	return l
}

func checkInverse(m Map, prog *Program, src string, r *CheckResult) error {
	// Find every output the map produces and one preimage of each.
	type owners struct {
		first []int
		n     int
	}
	seen := map[uint64]*owners{}
	var keys [][]int
	out := make([]int, len(m.Out))
	m.each(func(in []int) bool {
		m.F(in, out)
		key := pack(m.Out, out)
		if o, ok := seen[key]; ok {
			o.n++
			return true
		}
		seen[key] = &owners{first: append([]int(nil), in...), n: 1}
		keys = append(keys, append([]int(nil), out...))
		return true
	})
	sort.Slice(keys, func(a, b int) bool {
		for k := range keys[a] {
			if keys[a][k] != keys[b][k] {
				return keys[a][k] < keys[b][k]
			}
		}
		return false
	})
	total := 1
	for _, f := range m.Out {
		total *= f.Extent
	}
	r.Skipped = total - len(keys)
	env := make([]int64, len(prog.slots))
	got := make([]int64, len(m.In))
	back := make([]int, len(m.In))
	holds := make([]int, len(m.Out))
	for _, cell := range keys {
		for k, v := range cell {
			env[k] = int64(v)
		}
		if err := prog.run(env, got); err != nil {
			r.EvalErr = evalErr(src, err, m.Out, cell)
			r.First = &Mismatch{At: cell}
			return nil
		}
		r.Checked++
		ok := true
		inRange := true
		for k, v := range got {
			if v < 0 || v >= int64(m.In[k].Extent) {
				inRange = false
				break
			}
			back[k] = int(v)
		}
		if inRange {
			m.F(back, holds)
			for k := range holds {
				if holds[k] != cell[k] {
					ok = false
				}
			}
		} else {
			ok = false
		}
		if ok {
			continue
		}
		r.Wrong++
		if r.First == nil {
			o := seen[pack(m.Out, cell)]
			mm := &Mismatch{At: cell, Want: o.first, Got: append([]int64(nil), got...), Owners: o.n}
			if inRange {
				mm.Holds = append([]int(nil), holds...)
			}
			r.First = mm
		}
	}
	return nil
}

// plural names what a field counts: "threads" for tid, and so on.
func plural(f Field) string {
	switch f.Name {
	case "tid":
		return "threads"
	case "v":
		return "values"
	case "row":
		return "rows"
	case "col":
		return "columns"
	case "offset":
		return "offsets"
	case "i":
		return "indices"
	}
	return f.Name + " values"
}

func fmtValues(fs []Field, v []int) string {
	vals := make([]string, len(v))
	for k := range v {
		vals[k] = fmt.Sprint(v[k])
	}
	if len(v) == 1 {
		return fmt.Sprintf("%s = %s", fs[0].Name, vals[0])
	}
	return fmt.Sprintf("%s = (%s)", fieldNames(fs), strings.Join(vals, ", "))
}

func fmtValues64(fs []Field, v []int64) string {
	w := make([]int, len(v))
	for k := range v {
		w[k] = int(v[k])
	}
	return fmtValues(fs, w)
}

// String reports the result in a few lines: "correct (128 threads × 128
// values checked)", or where the formula first goes wrong and why.
func (r *CheckResult) String() string {
	var b strings.Builder
	var dims []string
	for _, f := range r.Fields {
		dims = append(dims, fmt.Sprintf("%d %s", f.Extent, plural(f)))
	}
	what := strings.Join(dims, " × ")
	switch {
	case r.EvalErr != nil:
		fmt.Fprintf(&b, "cannot evaluate the formula: %v\n", r.EvalErr)
	case r.OK():
		if r.Skipped > 0 {
			fmt.Fprintf(&b, "correct (%d of the %s checked; the other %d have no owner)\n", r.Checked, what, r.Skipped)
		} else {
			fmt.Fprintf(&b, "correct (%s checked)\n", what)
		}
	case !r.Inverse:
		f := r.First
		fmt.Fprintf(&b, "wrong: at %s the layout gives %s, your formula %s\n",
			fmtTuple(r.Fields, f.At), fmtValues(r.Results, f.Want), fmtValues64(r.Results, f.Got))
		fmt.Fprintf(&b, "%d of the %d %s differ\n", r.Wrong, r.Checked, fieldNames(r.Fields))
	default:
		f := r.First
		owner := fmtValues(r.Results, f.Want)
		if f.Owners > 1 {
			owner = fmt.Sprintf("%s (one of %d owners)", owner, f.Owners)
		}
		fmt.Fprintf(&b, "wrong: %s is held by %s, your formula gives %s", fmtValues(r.Fields, f.At), owner, fmtValues64(r.Results, f.Got))
		if f.Holds != nil {
			fmt.Fprintf(&b, ", which holds %s\n", fmtValues(r.Fields, f.Holds))
		} else {
			b.WriteString(", outside the domain\n")
		}
		fmt.Fprintf(&b, "%d of the %d %s checked are wrong\n", r.Wrong, r.Checked, fieldNames(r.Fields))
	}
	for _, h := range r.Hints {
		fmt.Fprintf(&b, "hint: %s\n", h)
	}
	return b.String()
}
