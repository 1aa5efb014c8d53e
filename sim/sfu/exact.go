package sfu

import (
	"fmt"
	"strings"
)

// The forms whose model is bit-exact on every input the campaign covers
// (the hashes recorded on the H100 and H200 in fixtures/approx match it
// chunk for chunk).
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

func init() {
	for _, op := range exactForms {
		MustLookup(op).Exact = true
	}
}

// Measured lists the campaigns recorded for the form (fixtures/approx):
// the inputs on which Exact was checked. Every campaign of Domains is
// recorded; RecordedOn says on which GPU.
func (f *Form) Measured() []Domain { return f.Domains() }

// RecordedOn names the GPU whose results a campaign of the form was
// recorded from ("H100" or "H200", both sm_90): the f64 edge campaigns
// (low words 0, 1 and all-ones under every high word, every low word of
// six high words) on an H200 on 2026-12-01, the others on an H100 on
// 2026-11-25. TestRecordedHashes requires every record's provenance to
// name it.
func (f *Form) RecordedOn(d Domain) string {
	if d.gen == "hi-lo" || d.gen == "lo-hi" {
		return "H200"
	}
	return "H100"
}

// A Check is the part of a form's measured inputs whose campaigns were
// recorded on one GPU.
type Check struct {
	GPU      string // as RecordedOn names it
	Coverage string // the inputs, in words
	Domains  []Domain
}

// Checks lists the form's measured inputs by the GPU they were recorded
// on, in the order of Domains: every operand of the 32-bit and 16-bit
// forms (H100); for the f64 forms and the divisions, the parts of their
// 2^64 inputs the campaigns cover.
func (f *Form) Checks() []Check {
	var out []Check
	for _, d := range f.Measured() {
		gpu := f.RecordedOn(d)
		if len(out) == 0 || out[len(out)-1].GPU != gpu {
			out = append(out, Check{GPU: gpu})
		}
		c := &out[len(out)-1]
		c.Domains = append(c.Domains, d)
	}
	for i := range out {
		out[i].Coverage = coverage(out[i].Domains)
	}
	return out
}

// coverage says in words what the domains cover, the f64 edge domains of
// one kind in one phrase.
func coverage(ds []Domain) string {
	var parts []string
	for i := 0; i < len(ds); {
		j := i + 1
		for j < len(ds) && ds[i].gen != "" && ds[j].gen == ds[i].gen {
			j++
		}
		if j == i+1 {
			parts = append(parts, ds[i].Coverage)
			i = j
			continue
		}
		var words []string
		for _, d := range ds[i:j] {
			switch {
			case d.gen == "hi-lo" && d.word < 10:
				words = append(words, fmt.Sprint(d.word))
			case d.gen == "hi-lo":
				words = append(words, fmt.Sprintf("%#x", d.word))
			default:
				words = append(words, fmt.Sprintf("0x%08x", d.word))
			}
		}
		list := strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
		if ds[i].gen == "hi-lo" {
			parts = append(parts, "all 2^32 high words with each of the low words "+list)
		} else {
			parts = append(parts, "all 2^32 low words under each of the high words "+list)
		}
		i = j
	}
	return strings.Join(parts, "; ")
}

// MeasuredInput reports whether operands a, b are among the inputs on
// which the model was checked against the GPUs.
func (f *Form) MeasuredInput(a, b uint64) bool {
	for _, d := range f.Measured() {
		if d.Contains(a, b) {
			return true
		}
	}
	return false
}

// Contains reports whether operands a, b are among the inputs of the
// check c.
func (c Check) Contains(a, b uint64) bool {
	for _, d := range c.Domains {
		if d.Contains(a, b) {
			return true
		}
	}
	return false
}
