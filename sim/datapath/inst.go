package datapath

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// Inst is one MMA instruction as `tcsim mma` runs it: its shape, operand
// formats and the datapath that computes it.
type Inst struct {
	Name    string // the instruction as given
	Family  string // "wgmma", "mma.sync" or "tcgen05.mma"
	M, N, K int
	A, B, C *numfmt.Format // C is also D's format
	Sat     bool
	// Eval computes one element. It is nil for the block-scaled tcgen05
	// kinds, whose datapath (Block) also takes scale factors.
	Eval   Evaluator
	Source Source
	Note   string   // how the datapath was chosen, for the user
	Notes  []string // further remarks: descriptor findings, negation, scale-input-d

	// tcgen05.mma only.
	Kind       string // "f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4" or "mxf4nvf4"
	CTAGroup   int
	NegA, NegB bool // negated by the instruction descriptor
	ScaleD     int  // scale-input-d
	// Block-scaled kinds: the datapath, the scale-factor format, the number
	// of K elements per scale factor and the scale vector size (1X, 2X, 4X).
	Block     *BlockScaled
	Scale     *numfmt.Format
	BlockSize int
	ScaleVec  string
}

// ScalesPerRow is the number of scale factors per row of A (and per
// column of B) of a block-scaled instruction: K / BlockSize.
func (in Inst) ScalesPerRow() int {
	if in.BlockSize == 0 {
		return 0
	}
	return in.K / in.BlockSize
}

var (
	reWGMMA = regexp.MustCompile(`^wgmma\.mma_async(?:\.sp)?\.sync\.aligned\.m64n(\d+)k(\d+)((?:\.satfinite)?)\.(f32|f16|s32)\.(\w+)\.(\w+)((?:\.and\.popc)?)$`)
	reMMA   = regexp.MustCompile(`^mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.row\.col((?:\.satfinite)?)\.(f32|f16|s32)\.(\w+)\.(\w+)\.(f32|f16|s32)$`)
)

// wgmma K by input type, and which accumulators each allows.
var wgmmaK = map[string]int{"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}

// TCOptions carry the tcgen05 fields that the instruction name does not:
// the shape, formats and modifiers of the instruction descriptor (or the
// descriptor itself), and scale-input-d.
type TCOptions struct {
	M, N    int
	A, B, D string // element and accumulator types; D defaults to f32 (s32 for kind::i8)
	// ScaleInputD is scale-input-d: D = A·B + D·2^-ScaleInputD, 0..15,
	// kind::f16 and kind::tf32 only.
	ScaleInputD      int
	Saturate         bool   // kind::i8: saturate instead of wrapping
	NegateA, NegateB bool   // negate A or B (descriptor bits 13, 14)
	ScaleType        string // block-scaled kinds: "ue8m0" (default) or "ue4m3"
	// With HasIDesc, the 32-bit instruction descriptor IDesc gives M, N,
	// the types, negation, saturation and the scale type instead.
	IDesc    uint32
	HasIDesc bool
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
		in.Note = MMASyncNote(in.A)
		return in, nil
	case strings.HasPrefix(name, "tcgen05.mma"):
		return parseTcgen05(name, tc)
	default:
		return in, fmt.Errorf("unknown MMA instruction %q; nearest: %s", name, strings.Join(nearestInst(name, 3), ", "))
	}
	if in.A.IsFloat() {
		in.Eval = Hopper(in.A, in.B, in.C)
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
	for _, cta := range []string{"1", "2"} {
		for _, k := range []string{"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4.block_scale", "mxf8f6f4.block_scale.scale_vec::1X",
			"mxf4.block_scale", "mxf4.block_scale.scale_vec::2X", "mxf4nvf4.block_scale.scale_vec::2X", "mxf4nvf4.block_scale.scale_vec::4X",
			"mxf4nvf4.block_scale.block16", "mxf4nvf4.block_scale.block32"} {
			out = append(out, "tcgen05.mma.cta_group::"+cta+".kind::"+k)
		}
	}
	return out
}

func nearestInst(name string, n int) []string {
	return suggest.Nearest(name, KnownInsts(), n, -1)
}
