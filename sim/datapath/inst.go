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
	Name    string // the instruction as given (ParseInst) or as its Key spells it (Lookup)
	Family  Family
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

// ParseInst resolves a full PTX MMA instruction name, as a user types it
// on the `tcsim mma` command line. tcgen05 forms take their shape and
// formats from tc. Programs that have the instruction's fields use
// Lookup with a Key instead.
func ParseInst(name string, tc TCOptions) (Inst, error) {
	name = strings.TrimSpace(name)
	k, err := parseName(name)
	if err != nil {
		return Inst{Name: name}, err
	}
	return resolve(k, name, tc)
}

// Lookup resolves the instruction k: its shape, formats and datapath.
// tcgen05.mma keys take their shape and formats from tc (usually an
// instruction descriptor, tc.HasIDesc). Errors name the instruction as
// k.String() spells it.
func Lookup(k Key, tc TCOptions) (Inst, error) {
	return resolve(k, k.String(), tc)
}

// parseName reads an instruction name into a Key: the regular
// expressions of the wgmma and mma.sync forms, parseTCName for tcgen05.
func parseName(name string) (Key, error) {
	f := numfmt.Lookup
	switch {
	case reWGMMA.MatchString(name):
		g := reWGMMA.FindStringSubmatch(name)
		n, _ := strconv.Atoi(g[1])
		k, _ := strconv.Atoi(g[2])
		key := Key{Family: FamilyWGMMA, M: 64, N: n, K: k, Satfinite: g[3] != "", AndPopc: g[7] != ""}
		return key, lookupFormats(f, []**numfmt.Format{&key.A, &key.B, &key.D}, g[5], g[6], g[4])
	case reMMA.MatchString(name):
		g := reMMA.FindStringSubmatch(name)
		m, _ := strconv.Atoi(g[1])
		n, _ := strconv.Atoi(g[2])
		k, _ := strconv.Atoi(g[3])
		if g[5] != g[8] {
			return Key{}, fmt.Errorf("%s: D (.%s) and C (.%s) must have the same type here", name, g[5], g[8])
		}
		key := Key{Family: FamilyMMASync, M: m, N: n, K: k, Satfinite: g[4] != ""}
		return key, lookupFormats(f, []**numfmt.Format{&key.A, &key.B, &key.D, &key.C}, g[6], g[7], g[5], g[8])
	case strings.HasPrefix(name, "tcgen05.mma"):
		key, err := parseTCName(name)
		if err != nil {
			if strings.Contains(err.Error(), "unknown") {
				return key, fmt.Errorf("%s: %w; nearest: %s", name, err, strings.Join(nearestInst(name, 3), ", "))
			}
			return key, fmt.Errorf("%s: %w", name, err)
		}
		return key, nil
	}
	return Key{}, fmt.Errorf("unknown MMA instruction %q; nearest: %s", name, strings.Join(nearestInst(name, 3), ", "))
}

// lookupFormats looks up the named formats into dst, in order.
func lookupFormats(f func(string) (*numfmt.Format, error), dst []**numfmt.Format, names ...string) error {
	for i, n := range names {
		x, err := f(n)
		if err != nil {
			return err
		}
		*dst[i] = x
	}
	return nil
}

// resolve checks k and builds its Inst; name is how errors name it.
func resolve(k Key, name string, tc TCOptions) (Inst, error) {
	in := Inst{Name: name, Family: k.Family}
	switch k.Family {
	case FamilyWGMMA:
		if k.D == nil || k.A == nil || k.B == nil {
			return in, fmt.Errorf("%s: the key lacks a format", name)
		}
		in.M, in.N, in.K, in.Sat = k.M, k.N, k.K, k.Satfinite
		if err := in.setFormats(k.A, k.B, k.D); err != nil {
			return in, err
		}
		a, b := k.A.Name, k.B.Name
		if want, ok := wgmmaK[a]; !ok || want != k.K || wgmmaK[b] != k.K {
			return in, fmt.Errorf("%s: .%s×.%s takes k%d, not k%d", name, a, b, wgmmaK[a], k.K)
		}
		if k.M != 64 {
			return in, fmt.Errorf("%s: wgmma has M = 64", name)
		}
		if k.N < 8 || k.N > 256 || k.N%8 != 0 {
			return in, fmt.Errorf("%s: N must be a multiple of 8 from 8 to 256", name)
		}
		if k.AndPopc != (a == "b1") {
			return in, fmt.Errorf("%s: .b1 operands need .and.popc", name)
		}
		in.Source, in.Note = HardwareVerified, "sm_90a wgmma datapath, fitted to the H100 (fixtures/numerics)"
		if in.A.IsFloat() {
			in.Eval = Hopper(in.A, in.B, in.C)
		} else {
			in.Eval = HopperInt(in.A, in.B, in.Sat)
		}
		return in, nil
	case FamilyMMASync:
		if k.D == nil || k.A == nil || k.B == nil || k.C == nil {
			return in, fmt.Errorf("%s: the key lacks a format", name)
		}
		in.M, in.N, in.K, in.Sat = k.M, k.N, k.K, k.Satfinite
		if k.D != k.C {
			return in, fmt.Errorf("%s: D (.%s) and C (.%s) must have the same type here", name, k.D.Name, k.C.Name)
		}
		if err := in.setFormats(k.A, k.B, k.D); err != nil {
			return in, err
		}
		if !mmaShapeOK(k.M, k.N, k.K, k.A.Name) {
			return in, fmt.Errorf("%s: m%dn%dk%d is not an mma.sync shape for .%s (m16n8k8/m16n8k16 for f16/bf16, m16n8k4/m16n8k8 for tf32, m16n8k16/m16n8k32 for 8-bit)", name, k.M, k.N, k.K, k.A.Name)
		}
		ev, src := MMASync(in.A, in.B, in.C, in.Sat)
		in.Eval, in.Source = ev, src
		in.Note = MMASyncNote(in.A)
		return in, nil
	case FamilyTcgen05:
		return resolveTcgen05(k, name, tc)
	}
	return in, fmt.Errorf("%s: not an MMA instruction family", name)
}

func (in *Inst) setFormats(a, b, c *numfmt.Format) error {
	in.A, in.B, in.C = a, b, c
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
