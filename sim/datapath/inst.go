package datapath

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/suggest"
)

// Inst is one MMA instruction as `tcsim mma` runs it: its shape, operand
// formats and the datapath that computes it.
type Inst struct {
	Name    string // the instruction as given
	Family  string // "wgmma", "mma.sync" or "tcgen05.mma"
	M, N, K int
	A, B, C *numfmt.Format // C is also D's format
	Sat     bool
	Eval    Evaluator
	Source  Source
	Note    string // how the datapath was chosen, for the user
}

var (
	reWGMMA = regexp.MustCompile(`^wgmma\.mma_async(?:\.sp)?\.sync\.aligned\.m64n(\d+)k(\d+)((?:\.satfinite)?)\.(f32|f16|s32)\.(\w+)\.(\w+)((?:\.and\.popc)?)$`)
	reMMA   = regexp.MustCompile(`^mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.row\.col((?:\.satfinite)?)\.(f32|f16|s32)\.(\w+)\.(\w+)\.(f32|f16|s32)$`)
	reTC    = regexp.MustCompile(`^tcgen05\.mma\.cta_group::([12])\.kind::(f16|tf32|f8f6f4|i8)$`)
)

// wgmma K by input type, and which accumulators each allows.
var wgmmaK = map[string]int{"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}

// TCOptions carry the tcgen05 fields that the instruction name does not:
// the shape and formats from the instruction descriptor.
type TCOptions struct {
	M, N        int
	A, B, D     string
	ScaleInputD int // 0..15: D = A·B + D·2^-scale (kind::f16/tf32 only)
	Saturate    bool
}

// ParseInst resolves a full PTX MMA instruction name. tcgen05 forms take
// their shape and formats from tc.
func ParseInst(name string, tc TCOptions) (Inst, error) {
	name = strings.TrimSpace(name)
	in := Inst{Name: name}
	f := func(n string) (*numfmt.Format, error) { return numfmt.Lookup(n) }
	switch {
	case reWGMMA.MatchString(name):
		g := reWGMMA.FindStringSubmatch(name)
		n, _ := strconv.Atoi(g[1])
		k, _ := strconv.Atoi(g[2])
		in.Family, in.M, in.N, in.K, in.Sat = "wgmma", 64, n, k, g[3] != ""
		if err := in.setFormats(f, g[5], g[6], g[4]); err != nil {
			return in, err
		}
		if want, ok := wgmmaK[g[5]]; !ok || want != k || wgmmaK[g[6]] != k {
			return in, fmt.Errorf("%s: .%s×.%s takes k%d, not k%d", name, g[5], g[6], wgmmaK[g[5]], k)
		}
		if n < 8 || n > 256 || n%8 != 0 {
			return in, fmt.Errorf("%s: N must be a multiple of 8 from 8 to 256", name)
		}
		if (g[7] != "") != (g[5] == "b1") {
			return in, fmt.Errorf("%s: .b1 operands need .and.popc", name)
		}
		in.Source, in.Note = HardwareVerified, "sm_90a wgmma datapath, fitted to the H100 (fixtures/numerics)"
	case reMMA.MatchString(name):
		g := reMMA.FindStringSubmatch(name)
		m, _ := strconv.Atoi(g[1])
		n, _ := strconv.Atoi(g[2])
		k, _ := strconv.Atoi(g[3])
		in.Family, in.M, in.N, in.K, in.Sat = "mma.sync", m, n, k, g[4] != ""
		if g[5] != g[8] {
			return in, fmt.Errorf("%s: D (.%s) and C (.%s) must have the same type here", name, g[5], g[8])
		}
		if err := in.setFormats(f, g[6], g[7], g[5]); err != nil {
			return in, err
		}
		if !mmaShapeOK(m, n, k, g[6]) {
			return in, fmt.Errorf("%s: m%dn%dk%d is not an mma.sync shape for .%s (m16n8k8/m16n8k16 for f16/bf16, m16n8k4/m16n8k8 for tf32, m16n8k16/m16n8k32 for 8-bit)", name, m, n, k, g[6])
		}
		ev, src := MMASync(in.A, in.B, in.C, in.Sat)
		in.Eval, in.Source = ev, src
		in.Note = "sm_90 mma.sync: the wgmma datapath (bit-exact on 2^20 dot products per type on the H100)"
		if src == Approximate {
			in.Note = "sm_90 mma.sync with FP8 inputs: products summed first and rounded toward zero, then C added with round-to-nearest; differs from the H100 by 1-2 ulps on about 3% of random inputs (fixtures/numerics)"
		}
		return in, nil
	case reTC.MatchString(name):
		g := reTC.FindStringSubmatch(name)
		in.Family, in.M, in.N = "tcgen05.mma", tc.M, tc.N
		kind := g[2]
		if tc.M != 64 && tc.M != 128 && tc.M != 256 {
			return in, fmt.Errorf("%s: --m must be 64, 128 or 256 (got %d)", name, tc.M)
		}
		if tc.N < 8 || tc.N > 256 || tc.N%8 != 0 {
			return in, fmt.Errorf("%s: --n must be a multiple of 8 from 8 to 256 (got %d)", name, tc.N)
		}
		if err := in.setFormats(f, tc.A, tc.B, tc.D); err != nil {
			return in, fmt.Errorf("%s: %w (set --atype, --btype, --dtype)", name, err)
		}
		k, ok := tcK(kind, in.A.Name)
		if !ok {
			return in, fmt.Errorf("%s: .%s is not an A type of kind::%s", name, in.A.Name, kind)
		}
		in.K, in.Sat = k, tc.Saturate
		in.Source = NotHardwareVerified
		in.Note = "sm_100a tcgen05.mma: modelled from public evidence (MMA-Sim's Blackwell model: 25 fraction bits for every kind, no FP8 13-bit accumulator), not hardware-verified"
	default:
		return in, fmt.Errorf("unknown MMA instruction %q; nearest: %s", name, strings.Join(nearestInst(name, 3), ", "))
	}
	if in.A.IsFloat() {
		m := Hopper(in.A, in.B, in.C)
		if in.Family == "tcgen05.mma" {
			m.FracBits, m.OutMantBits = 25, 0
		}
		in.Eval = m
	} else {
		in.Eval = HopperInt(in.A, in.B, in.Sat)
	}
	return in, nil
}

func (in *Inst) setFormats(f func(string) (*numfmt.Format, error), a, b, c string) error {
	var err error
	if in.A, err = f(a); err != nil {
		return err
	}
	if in.B, err = f(b); err != nil {
		return err
	}
	in.C, err = f(c)
	if err != nil {
		return err
	}
	if in.A.IsFloat() != in.C.IsFloat() {
		return fmt.Errorf(".%s inputs cannot accumulate into .%s", in.A.Name, in.C.Name)
	}
	return nil
}

func mmaShapeOK(m, n, k int, a string) bool {
	if m != 16 || n != 8 {
		return false
	}
	switch a {
	case "f16", "bf16":
		return k == 8 || k == 16
	case "tf32":
		return k == 4 || k == 8
	case "s8", "u8", "e4m3", "e5m2":
		return k == 16 || k == 32
	}
	return false
}

func tcK(kind, a string) (int, bool) {
	switch kind {
	case "f16":
		return 16, a == "f16" || a == "bf16"
	case "tf32":
		return 8, a == "tf32"
	case "f8f6f4":
		return 32, a == "e4m3" || a == "e5m2" || a == "e2m3" || a == "e3m2" || a == "e2m1"
	case "i8":
		return 32, a == "s8" || a == "u8"
	}
	return 0, false
}

// KnownInsts lists the instruction names ParseInst accepts without extra
// options, for suggestions (wgmma at N=8/64/256, and mma.sync).
func KnownInsts() []string {
	var out []string
	for _, v := range ProbeVariants() {
		for _, n := range []int{8, 64, 128, 256} {
			out = append(out, v.Inst(n))
		}
	}
	for _, s := range []string{
		"m16n8k16.row.col.f32.f16.f16.f32", "m16n8k16.row.col.f32.bf16.bf16.f32", "m16n8k8.row.col.f32.tf32.tf32.f32",
		"m16n8k16.row.col.f16.f16.f16.f16", "m16n8k32.row.col.s32.s8.s8.s32", "m16n8k32.row.col.f32.e4m3.e4m3.f32",
	} {
		out = append(out, "mma.sync.aligned."+s)
	}
	return append(out, "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma.cta_group::1.kind::tf32",
		"tcgen05.mma.cta_group::1.kind::f8f6f4", "tcgen05.mma.cta_group::1.kind::i8")
}

func nearestInst(name string, n int) []string {
	return suggest.Nearest(name, KnownInsts(), n, -1)
}
