package sfu

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is the operand shape of a form.
type Kind int

// The operand shapes.
const (
	Unary32   Kind = iota // one f32 operand, f32 result
	Unary16               // one f16 or bf16 operand
	Unary16x2             // one packed f16x2 or bf16x2 operand (two independent lanes)
	Unary64               // one f64 operand
	Binary32              // two f32 operands (division)
)

// InBytes is the size of one operand.
func (k Kind) InBytes() int {
	switch k {
	case Unary16:
		return 2
	case Unary64:
		return 8
	}
	return 4
}

// OutBytes is the size of the result.
func (k Kind) OutBytes() int { return k.InBytes() }

// Form is one approximate PTX math instruction, as ptxas lowers it for
// sm_90a and the H100 executes it.
type Form struct {
	Op   string // the PTX opcode, e.g. "ex2.approx.ftz.f32"
	Kind Kind
	// Eval computes the result bits from the operand bits (b is unused by
	// unary forms). It is the bit-exact model where Exact is set.
	Eval func(a, b uint64) uint64
	run  func(a, b uint64, t *tracer) uint64 // Eval, recording its steps
	ref  func(a, b uint64) uint64            // Reference
	// Lowering is what ptxas emits for it on sm_90a, in SASS words.
	Lowering string
	// Exact says that the model agreed with the GPU bit for bit on every
	// input of the campaigns recorded for the form (Measured; Checks says
	// it in words, with the GPU of each: RecordedOn): every operand of the
	// f32, f16, bf16 and x2 forms; for the f64 forms 2^32 high words × 1
	// pseudo-random low word, every high word with low words 0, 1 and
	// 0xffffffff, and every low word under six high words; for the
	// divisions 2^32 random pairs, a = 1 with every divisor and 1024² edge
	// pairs. MeasuredInput tells whether a given input was among them.
	Exact bool
	// Agreement describes the measured agreement where the model is not
	// exact ("" when exact).
	Agreement string
}

// Half reports the 16-bit format of a 16-bit form: "f16" or "bf16" ("" otherwise).
func (f *Form) Half() string {
	switch {
	case strings.HasSuffix(f.Op, ".bf16"), strings.HasSuffix(f.Op, ".bf16x2"):
		return "bf16"
	case strings.HasSuffix(f.Op, ".f16"), strings.HasSuffix(f.Op, ".f16x2"):
		return "f16"
	}
	return ""
}

// Base is the operation's name: ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh or div.
func (f *Form) Base() string { op, _, _ := strings.Cut(f.Op, "."); return op }

// FTZ reports the .ftz modifier.
func (f *Form) FTZ() bool { return strings.Contains(f.Op, ".ftz") }

var forms = makeForms()

// Lookup returns the form for a PTX opcode (modifiers in any order the
// ISA allows are not normalized: give them as PTX writes them), or nil.
func Lookup(op string) *Form { return forms[op] }

// Forms lists every modelled form, sorted by opcode.
func Forms() []*Form {
	out := make([]*Form, 0, len(forms))
	for _, f := range forms {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Op < out[j].Op })
	return out
}

// MustLookup is Lookup for opcodes known to exist.
func MustLookup(op string) *Form {
	f := Lookup(op)
	if f == nil {
		panic(fmt.Sprintf("sfu: no form %q", op))
	}
	return f
}
