package numfmt

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in, canon, err string
	}{
		{in: "cvt.rn.satfinite.e4m3x2.f32", canon: "cvt.rn.satfinite.e4m3x2.f32"},
		{in: "cvt.satfinite.rn.e4m3x2.f32", canon: "cvt.rn.satfinite.e4m3x2.f32"},
		{in: "cvt.f64.bf16.rp", canon: "cvt.rp.f64.bf16"}, // the ISA's own example order
		{in: "cvt.rn.relu.satfinite.e5m2x2.f16x2", canon: "cvt.rn.relu.satfinite.e5m2x2.f16x2"},
		{in: "cvt.rna.satfinite.tf32.f32", canon: "cvt.rna.satfinite.tf32.f32"},
		{in: "cvt.rzi.ftz.s32.f32", canon: "cvt.rzi.ftz.s32.f32"},
		{in: "cvt.f32.f32", canon: "cvt.f32.f32"},
		{in: "cvt.rz.satfinite.ue8m0x2.f32", canon: "cvt.rz.satfinite.ue8m0x2.f32"},
		{in: "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32", canon: "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32"},
		{in: "cvt.rs.satfinite.e4m3x4.f32", canon: "cvt.rs.satfinite.e4m3x4.f32"},
		{in: "cvt.rn.e4m3x2.f32", err: ".satfinite is required"},
		{in: "cvt.rm.relu.f16.f32", err: "need .rn or .rz"},
		{in: "cvt.rn.f32.f16", err: "illegal here (the conversion is exact)"},
		{in: "cvt.s32.f32", err: "a rounding modifier is required"},
		{in: "cvt.rn.s32.f32", err: "illegal here (allowed: .rni .rzi .rmi .rpi)"},
		{in: "cvt.rni.sat.s32.bf16", err: ".sat is not allowed"},
		{in: "cvt.rn.ftz.relu.f16.f32", err: "cannot be combined with .ftz"},
		{in: "cvt.rz.relu.ue8m0x2.bf16x2", err: ".relu is not allowed"},
		{in: "cvt.rn.rz.f16.f32", err: "two rounding modifiers"},
		{in: "cvt.rn.rn.f16.f32", err: "given twice"},
		{in: "cvt.rn.f16", err: "want exactly two types"},
		{in: "cvt.rn.f16.f32.f64", err: "want exactly two types"},
		{in: "cvt.rn.e9m9.f32", err: "unknown modifier or type .e9m9"},
		{in: "cvt..rn.f16.f32", err: "empty modifier"},
		{in: "mov.b32", err: "not a cvt opcode"},
		{in: "cvt.rn.e4m3x2.e5m2x2", err: "no cvt converts .e5m2x2 to .e4m3x2"},
		{in: "cvt.rn.scaled::n4::ue8m0.s2f6x2.f32", err: "unknown scale qualifier"},
	}
	for _, tt := range tests {
		s, err := ParseSpec(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSpec(%q) error = %v, want ...%s...", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.in, err)
			continue
		}
		if s.String() != tt.canon {
			t.Errorf("ParseSpec(%q) = %s, want %s", tt.in, s, tt.canon)
		}
	}
}

// Every expanded spec prints and parses back to itself and its form.
func TestAllSpecsRoundTrip(t *testing.T) {
	specs := AllSpecs()
	if len(specs) < 900 {
		t.Fatalf("only %d specs", len(specs))
	}
	seen := map[string]bool{}
	for _, s := range specs {
		text := s.String()
		if seen[text] {
			t.Errorf("%s listed twice", text)
		}
		seen[text] = true
		p, err := ParseSpec(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if p.String() != text || p.Form != s.Form {
			t.Errorf("%s parses back as %s (form %q, want %q)", text, p, p.Form.Syntax, s.Form.Syntax)
		}
	}
}

func TestSupportedOn(t *testing.T) {
	tests := []struct {
		spec, target string
		ptx          int
		ok           bool
	}{
		{"cvt.rn.satfinite.e4m3x2.f32", "sm_90a", 80, true},
		{"cvt.rn.satfinite.e4m3x2.f32", "sm_80", 80, false},
		{"cvt.rn.satfinite.e4m3x2.f32", "sm_90", 77, false},
		{"cvt.rn.satfinite.e2m1x2.f32", "sm_90a", 90, false},
		{"cvt.rn.satfinite.e2m1x2.f32", "sm_100a", 86, true},
		{"cvt.rn.satfinite.e2m1x2.f32", "sm_100f", 86, false}, // the family target needs PTX 8.8
		{"cvt.rn.satfinite.e2m1x2.f32", "sm_103f", 88, true},
		{"cvt.rn.satfinite.e2m1x2.f32", "sm_120a", 86, true},
		{"cvt.rn.satfinite.tf32.f32", "sm_90a", 90, false},
		{"cvt.rn.satfinite.tf32.f32", "sm_100a", 86, true},
		{"cvt.rna.tf32.f32", "sm_80", 70, true},
		{"cvt.rn.bf16.s8", "sm_80", 80, false},
		{"cvt.rs.satfinite.e4m3x4.f32", "sm_100a", 87, true},
		{"cvt.rs.satfinite.e4m3x4.f32", "sm_120a", 90, false},
	}
	for _, tt := range tests {
		err := MustParseSpec(tt.spec).SupportedOn(tt.target, tt.ptx)
		if (err == nil) != tt.ok {
			t.Errorf("%s on %s PTX %d: %v, want ok=%v", tt.spec, tt.target, tt.ptx, err, tt.ok)
		}
	}
	if _, err := ParseTarget("sm_"); err == nil {
		t.Error("ParseTarget(sm_) succeeded")
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"cvt.rn.satfinite.e4m3x2.f32", "cvt.rzi.ftz.s32.f32", "cvt.f64.bf16.rp", "cvt..", "cvt.rn.scaled::n2::ue8m0.s2f6x2.f32", "cvt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		again, err := ParseSpec(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("%q parses as %s, which reparses as %v, %v", text, s, again, err)
		}
		// A legal spec runs on zero operands of the right count.
		in := make([]uint64, len(s.Inputs()))
		if _, err := Cvt(s, in...); err != nil {
			t.Fatalf("%s on zeros: %v", s, err)
		}
	})
}
