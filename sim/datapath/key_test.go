package datapath

import (
	"reflect"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// TestLookupMatchesParseInst checks that the typed path and the command
// line's name path agree: for every instruction name ParseInst knows,
// the key it reads spells the same name back, and Lookup of that key
// builds the same Inst (datapath included) as ParseInst of the name.
func TestLookupMatchesParseInst(t *testing.T) {
	tc := TCOptions{M: 128, N: 64, A: "e2m1", B: "e2m1", ScaleType: "ue8m0"}
	n := 0
	for _, name := range KnownInsts() {
		k, err := parseName(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if k.String() != name {
			t.Errorf("%s: the key spells %s", name, k)
		}
		opts := TCOptions{}
		if k.Family == FamilyTcgen05 {
			opts = tc
			if !k.Kind.BlockScaled() {
				opts = TCOptions{M: 128, N: 64, A: map[desc.Kind]string{desc.KindF16: "bf16", desc.KindTF32: "tf32", desc.KindF8F6F4: "e4m3", desc.KindI8: "s8"}[k.Kind]}
				opts.B = opts.A
			}
			if k.Kind == desc.KindMXF8F6F4 {
				opts.A, opts.B = "e4m3", "e5m2"
			}
		}
		byName, err1 := ParseInst(name, opts)
		byKey, err2 := Lookup(k, opts)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Errorf("%s: ParseInst: %v; Lookup: %v", name, err1, err2)
			continue
		}
		if err1 != nil {
			continue
		}
		n++
		if !reflect.DeepEqual(byName, byKey) {
			t.Errorf("%s: ParseInst and Lookup differ:\n%+v\n%+v", name, byName, byKey)
		}
	}
	if n < 40 {
		t.Errorf("only %d instructions resolved", n)
	}
}

// TestLookupErrors checks the checks of the typed path, which the regular
// expressions of ParseInst do not make for it.
func TestLookupErrors(t *testing.T) {
	for _, k := range []Key{
		{Family: FamilyWGMMA, M: 64, N: 64, K: 16, D: numfmt.F32, A: numfmt.F16},                                // no B
		{Family: FamilyWGMMA, M: 128, N: 64, K: 16, D: numfmt.F32, A: numfmt.F16, B: numfmt.F16},                // M
		{Family: FamilyWGMMA, M: 64, N: 64, K: 32, D: numfmt.F32, A: numfmt.F16, B: numfmt.F16},                 // K
		{Family: FamilyWGMMA, M: 64, N: 64, K: 16, D: numfmt.S32, A: numfmt.F16, B: numfmt.F16},                 // accumulator
		{Family: FamilyMMASync, M: 16, N: 8, K: 16, D: numfmt.F32, A: numfmt.F16, B: numfmt.F16, C: numfmt.F16}, // C != D
		{Family: FamilyTcgen05, Kind: desc.KindF16},                                                             // no CTA group
		{Family: FamilyTcgen05, CTAGroup: 3, Kind: desc.KindF16},
		{Family: FamilyTcgen05, CTAGroup: 1, Kind: desc.KindMXF4}, // no .block_scale
		{},
	} {
		if _, err := Lookup(k, TCOptions{M: 128, N: 64, A: "f16", B: "f16"}); err == nil {
			t.Errorf("Lookup(%s) succeeded", k)
		}
	}
}
