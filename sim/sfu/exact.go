package sfu

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

func init() {
	for _, op := range exactForms {
		MustLookup(op).Exact = true
	}
}
