package datapath

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// Family is an MMA instruction family.
type Family uint8

// The MMA families.
const (
	NoFamily      Family = iota
	FamilyWGMMA          // wgmma.mma_async (sm_90a)
	FamilyMMASync        // mma.sync.aligned
	FamilyTcgen05        // tcgen05.mma (sm_100a)
)

var familyNames = [...]string{NoFamily: "none", FamilyWGMMA: "wgmma", FamilyMMASync: "mma.sync", FamilyTcgen05: "tcgen05.mma"}

// String returns "wgmma", "mma.sync" or "tcgen05.mma".
func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// Key is an MMA instruction by its typed fields: what a decoder that has
// the parsed PTX instruction knows. Lookup resolves it to an Inst; the
// compiler checks every field, and no instruction name is formatted and
// parsed back on the way.
type Key struct {
	Family Family
	// wgmma and mma.sync: the shape, the formats of D, A, B and (mma.sync)
	// C, and the modifiers.
	M, N, K    int
	D, A, B, C *numfmt.Format
	Satfinite  bool // .satfinite
	AndPopc    bool // wgmma .b1: .and.popc
	// tcgen05.mma: the CTA group, the kind and the block scaling; the
	// shape and formats come from the instruction descriptor (TCOptions).
	CTAGroup   int
	Kind       desc.Kind
	BlockScale bool
	ScaleVec   ScaleVec
}

// ScaleVec is the scale-vector qualifier of a block-scaled tcgen05.mma as
// written: .scale_vec::1X, 2X, 4X, or the aliases .block32 and .block16.
type ScaleVec uint8

// The scale-vector qualifiers.
const (
	NoScaleVec ScaleVec = iota
	ScaleVec1X
	ScaleVec2X
	ScaleVec4X
	Block16
	Block32
)

var scaleVecNames = [...]string{NoScaleVec: "", ScaleVec1X: "scale_vec::1X", ScaleVec2X: "scale_vec::2X", ScaleVec4X: "scale_vec::4X", Block16: "block16", Block32: "block32"}

// String returns the qualifier without its dot ("scale_vec::4X",
// "block16"), "" for none.
func (v ScaleVec) String() string {
	if int(v) < len(scaleVecNames) {
		return scaleVecNames[v]
	}
	return fmt.Sprintf("ScaleVec(%d)", int(v))
}

// vecSize is the vector size a qualifier names ("1X", "2X", "4X"), or ""
// for the block aliases and none.
func (v ScaleVec) vecSize() string {
	switch v {
	case ScaleVec1X:
		return "1X"
	case ScaleVec2X:
		return "2X"
	case ScaleVec4X:
		return "4X"
	}
	return ""
}

// String returns the PTX instruction name of k, e.g.
// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 or
// tcgen05.mma.cta_group::1.kind::f16. It is for messages; ParseInst reads
// it back, but no program needs to.
func (k Key) String() string {
	name := func(f *numfmt.Format) string {
		if f == nil {
			return "?"
		}
		return f.Name
	}
	sat := ""
	if k.Satfinite {
		sat = ".satfinite"
	}
	switch k.Family {
	case FamilyWGMMA:
		s := fmt.Sprintf("wgmma.mma_async.sync.aligned.m%dn%dk%d%s.%s.%s.%s", k.M, k.N, k.K, sat, name(k.D), name(k.A), name(k.B))
		if k.AndPopc {
			s += ".and.popc"
		}
		return s
	case FamilyMMASync:
		return fmt.Sprintf("mma.sync.aligned.m%dn%dk%d.row.col%s.%s.%s.%s.%s", k.M, k.N, k.K, sat, name(k.D), name(k.A), name(k.B), name(k.C))
	case FamilyTcgen05:
		s := "tcgen05.mma"
		if k.CTAGroup != 0 {
			s += fmt.Sprintf(".cta_group::%d", k.CTAGroup)
		}
		if k.Kind != desc.KindUnknown {
			s += ".kind::" + k.Kind.String()
		}
		if k.BlockScale {
			s += ".block_scale"
		}
		if k.ScaleVec != NoScaleVec {
			s += "." + k.ScaleVec.String()
		}
		return s
	}
	return "unknown MMA instruction"
}
