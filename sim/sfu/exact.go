package sfu

import "strings"

// The forms whose model is bit-exact on every input the campaign covers
// (the recorded H100 hashes in fixtures/approx match it chunk for chunk).
var exactForms = []string{
	"ex2.approx.f32", "ex2.approx.ftz.f32",
	"ex2.approx.f16", "ex2.approx.f16x2", "ex2.approx.ftz.bf16", "ex2.approx.ftz.bf16x2",
	"lg2.approx.f32", "lg2.approx.ftz.f32",
	"rcp.approx.f32", "rcp.approx.ftz.f32", "rcp.approx.ftz.f64",
	"rsqrt.approx.f32", "rsqrt.approx.ftz.f32", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64",
	"sqrt.approx.f32", "sqrt.approx.ftz.f32",
	"div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32",
	"sin.approx.f32", "sin.approx.ftz.f32", "cos.approx.f32", "cos.approx.ftz.f32",
	"tanh.approx.f32", "tanh.approx.f16", "tanh.approx.f16x2", "tanh.approx.bf16", "tanh.approx.bf16x2",
}

// unrecorded reports the campaigns that the GPU campaign runs but
// fixtures/approx does not hold yet: the f64 edge campaigns (every high
// word with low words 0, 1 and all-ones; every low word of a few high
// words), pending their recording on the H100. TestRecordedHashes
// requires the fixture to hold exactly the other campaigns of every exact
// form.
func unrecorded(d Domain) bool { return d.gen == "hi-lo" || d.gen == "lo-hi" }

func init() {
	for _, op := range exactForms {
		MustLookup(op).Exact = true
	}
}

// Measured lists the campaigns recorded on the H100 for the form
// (fixtures/approx): the inputs on which Exact was checked.
func (f *Form) Measured() []Domain {
	var out []Domain
	for _, d := range f.Domains() {
		if !unrecorded(d) {
			out = append(out, d)
		}
	}
	return out
}

// Coverage says, in words, on which inputs the model was checked against
// the H100: every operand of the 32-bit and 16-bit forms; for the f64
// forms and the divisions, which part of their 2^64 inputs.
func (f *Form) Coverage() string {
	var parts []string
	for _, d := range f.Measured() {
		parts = append(parts, d.Coverage)
	}
	return strings.Join(parts, "; ")
}

// MeasuredInput reports whether operands a, b are among the inputs on
// which the model was checked against the H100.
func (f *Form) MeasuredInput(a, b uint64) bool {
	for _, d := range f.Measured() {
		if d.Contains(a, b) {
			return true
		}
	}
	return false
}
