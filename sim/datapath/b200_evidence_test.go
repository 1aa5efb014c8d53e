package datapath

import (
	"fmt"
	"testing"
)

// Public B200 evidence: result words that sf-tensor/tcgen05
// (tcgen05_model/validation.py, "labeled B200 vectors"; MODEL.md) froze
// from a B200 for tcgen05.mma. The inputs below are the literal ones that
// file lists (its randomly generated vectors come from Python's random
// module and are not reproduced here); the numbers are facts, the code is
// tcsim's. The simulator's tcgen05 datapaths are otherwise not
// hardware-verified.
//
// Each case is one output element: A and B hold K elements (A's first
// element a0, the rest 0 unless given), C the accumulator.
type b200Case struct {
	name   string
	inst   string
	tc     TCOptions
	k      int
	a, b   []uint64 // missing elements are 0
	c      uint64
	sa, sb []uint64 // scale factors (block-scaled kinds)
	want   uint64
}

func b200Cases() []b200Case {
	var cs []b200Case
	one := func(name, kind, a, d string, k int, a0, b0, c, want uint64) b200Case {
		return b200Case{name: name, inst: "tcgen05.mma.cta_group::1.kind::" + kind,
			tc: TCOptions{M: 128, N: 8, A: a, B: a, D: d}, k: k, a: []uint64{a0}, b: []uint64{b0}, c: c, want: want}
	}
	for _, f := range []struct {
		name, kind                    string
		k                             int
		one, sub, nan, inf, subResult uint64
		hasInf                        bool
	}{
		{"tf32", "tf32", 8, 0x3F800000, 0x00002000, 0x7FC00000, 0x7F800000, 0x00002000, true},
		{"bf16", "f16", 16, 0x3F80, 0x0001, 0x7FC0, 0x7F80, 0x00010000, true},
		{"f16", "f16", 16, 0x3C00, 0x0001, 0x7E00, 0x7C00, 0x33800000, true},
		{"e4m3", "f8f6f4", 32, 0x38, 0x01, 0x7F, 0, 0x3B000000, false},
		{"e5m2", "f8f6f4", 32, 0x3C, 0x01, 0x7F, 0x7C, 0x37800000, true},
	} {
		cs = append(cs,
			one(f.name+"-negative-zero", f.kind, f.name, "f32", f.k, 0, 0, 0x80000000, 0),
			one(f.name+"-minimum-subnormal", f.kind, f.name, "f32", f.k, f.sub, f.one, 0, f.subResult),
			one(f.name+"-nan", f.kind, f.name, "f32", f.k, f.nan, f.one, 0, 0x7FFFFFFF))
		if f.hasInf {
			cs = append(cs,
				one(f.name+"-infinity", f.kind, f.name, "f32", f.k, f.inf, f.one, 0, 0x7F800000),
				one(f.name+"-infinity-times-zero", f.kind, f.name, "f32", f.k, f.inf, 0, 0, 0x7FFFFFFF))
		}
	}
	// TF32 and BF16 drop the low bits before classifying: a NaN whose
	// payload is only in those bits is an infinity. (The BF16 input is the
	// 16-bit half of the f32 pattern 0x7F800001; its payload bit is below
	// bf16's, so the element is the infinity 0x7F80.)
	cs = append(cs, one("tf32-low-payload-pretruncate", "tf32", "tf32", "f32", 8, 0x7F800001, 0x3F800000, 0, 0x7F800000))
	ones := func(n int, v uint64) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	cs = append(cs, b200Case{name: "nvfp4-scale-nan", inst: "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
		tc: TCOptions{M: 128, N: 8, A: "e2m1", B: "e2m1", ScaleType: "ue4m3"}, k: 64, a: ones(64, 1), b: ones(64, 1),
		sa: []uint64{0x7F, 0x38, 0x38, 0x38}, sb: ones(4, 0x38), want: 0x7FFFFFFF})
	nib := func(s string) []uint64 {
		var out []uint64
		for i := 0; i+1 < len(s); i += 3 {
			var v uint64
			fmt.Sscanf(s[i:i+2], "%x", &v)
			out = append(out, v)
		}
		return out
	}
	cs = append(cs, b200Case{name: "nvfp4-k4-product-carry", inst: "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
		tc: TCOptions{M: 128, N: 8, A: "e2m1", B: "e2m1", ScaleType: "ue4m3"}, k: 64,
		a: nib("0e 0e 0b 06 00 08 0f 09 0a 0b 03 09 0f 07 0e 00 02 06 01 05 0a 08 06 04 07 0c 06 0b 01 0c 06 0d " +
			"0b 0b 08 06 0c 08 0c 05 00 04 01 0f 01 06 0f 05 02 04 06 05 0a 07 0b 07 00 01 0a 0d 0b 0f 0e 07 "),
		b: nib("06 0c 0b 02 08 09 0b 04 03 0d 02 09 09 0c 01 08 07 02 06 03 0d 02 09 0a 05 09 0f 05 0a 08 06 00 " +
			"08 0d 0d 02 0c 0c 05 02 08 03 04 0f 0f 01 01 0a 0b 0a 05 0b 0f 03 0b 0e 0a 05 07 01 01 07 08 0a "),
		c: 0x094E5986, sa: []uint64{0x09, 0x7C, 0x6D, 0x44}, sb: []uint64{0x07, 0x78, 0x26, 0x79}, want: 0x49FCAFB7})
	cs = append(cs, b200Case{name: "mxf8f6f4-scale-nan", inst: "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",
		tc: TCOptions{M: 128, N: 8, A: "e2m1", B: "e2m1"}, k: 32, a: ones(32, 1), b: ones(32, 1),
		sa: []uint64{0xFF}, sb: []uint64{0x7F}, want: 0x7FFFFFFF})
	mixed := TCOptions{M: 128, N: 8, A: "e2m1", B: "e4m3", D: "f16"}
	cs = append(cs,
		b200Case{name: "mixed-e2m1-e4m3-f16-input-nan", inst: "tcgen05.mma.cta_group::1.kind::f8f6f4", tc: mixed, k: 32,
			a: ones(32, 1), b: []uint64{0x7F}, want: 0x7FFF},
		b200Case{name: "mixed-e2m1-e4m3-f16-c-nan", inst: "tcgen05.mma.cta_group::1.kind::f8f6f4", tc: mixed, k: 32,
			c: 0x7E00, want: 0x7FFF})
	return cs
}

// TestB200Evidence runs the labeled B200 vectors through the datapaths the
// simulator uses for tcgen05.mma.
func TestB200Evidence(t *testing.T) {
	for _, c := range b200Cases() {
		in, err := ParseInst(c.inst, c.tc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a, b := make([]uint64, c.k), make([]uint64, c.k)
		copy(a, c.a)
		copy(b, c.b)
		var got uint64
		if in.Block != nil {
			got = in.Block.Dot(a, b, c.sa, c.sb, c.c)
		} else {
			got = in.Eval.Dot(a, b, c.c)
		}
		if got != c.want {
			t.Errorf("%s: tcsim %#x, the B200 %#x", c.name, got, c.want)
		}
	}
}

// TestB200EvidenceSeparatesModels: the K=4 carry vector is one a datapath
// that truncated every product on its own would miss by one quantum; the
// exact 16-product sums tcsim models keep the carry, as the B200 did.
func TestB200EvidenceSeparatesModels(t *testing.T) {
	for _, c := range b200Cases() {
		if c.name != "nvfp4-k4-product-carry" {
			continue
		}
		in, err := ParseInst(c.inst, c.tc)
		if err != nil {
			t.Fatal(err)
		}
		m := *in.Block
		m.Group = 1 // every product scaled and aligned on its own
		if got := m.Dot(c.a, c.b, c.sa, c.sb, c.c); got == c.want {
			t.Errorf("per-product alignment also gives %#x: the vector does not separate the models", got)
		} else {
			t.Logf("per-product alignment gives %#x, the B200 and tcsim %#x", got, c.want)
		}
	}
}
