package ptx

import (
	"strconv"
	"strings"
)

// Type is a PTX fundamental or instruction type (.b32, .f16x2, .e4m3 ...).
type Type uint8

// The PTX types. Packed and narrow formats appear only as instruction
// types; registers are declared with the first group.
const (
	TypeNone Type = iota
	Pred
	B8
	B16
	B32
	B64
	B128
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F16x2
	BF16
	BF16x2
	TF32
	F32
	F32x2
	F64
	U16x2
	S16x2
	B1
	U4
	S4
	U2
	S2
	E4M3
	E5M2
	E2M3
	E3M2
	E2M1
	E4M3x2
	E5M2x2
	E2M3x2
	E3M2x2
	E2M1x2
	E4M3x4
	E5M2x4
	E2M3x4
	E3M2x4
	E2M1x4
	UE8M0
	UE8M0x2
	UE4M3
	B8x16
	B6x16P32
	B4x16P64
	TexRef
	SamplerRef
	SurfRef
	numTypes
)

// TypeKind groups types for operand compatibility checks.
type TypeKind uint8

// The kinds of types.
const (
	KindNone     TypeKind = iota
	KindPred              // .pred
	KindBit               // .b8 ... .b128 and the raw formats
	KindUnsigned          // .u8 ... .u64, .u16x2
	KindSigned            // .s8 ... .s64, .s16x2
	KindFloat             // .f16 ... .f64, packed halves, narrow floats
	KindOpaque            // .texref, .samplerref, .surfref
)

type typeInfo struct {
	name string
	bits int
	kind TypeKind
}

var typeTable = [numTypes]typeInfo{
	Pred: {"pred", 1, KindPred},
	B8:   {"b8", 8, KindBit}, B16: {"b16", 16, KindBit}, B32: {"b32", 32, KindBit},
	B64: {"b64", 64, KindBit}, B128: {"b128", 128, KindBit},
	U8: {"u8", 8, KindUnsigned}, U16: {"u16", 16, KindUnsigned}, U32: {"u32", 32, KindUnsigned},
	U64: {"u64", 64, KindUnsigned},
	S8:  {"s8", 8, KindSigned}, S16: {"s16", 16, KindSigned}, S32: {"s32", 32, KindSigned},
	S64: {"s64", 64, KindSigned},
	F16: {"f16", 16, KindFloat}, F16x2: {"f16x2", 32, KindFloat},
	BF16: {"bf16", 16, KindFloat}, BF16x2: {"bf16x2", 32, KindFloat},
	TF32: {"tf32", 32, KindFloat}, F32: {"f32", 32, KindFloat}, F32x2: {"f32x2", 64, KindFloat},
	F64:   {"f64", 64, KindFloat},
	U16x2: {"u16x2", 32, KindUnsigned}, S16x2: {"s16x2", 32, KindSigned},
	B1: {"b1", 1, KindBit}, U4: {"u4", 4, KindUnsigned}, S4: {"s4", 4, KindSigned},
	U2: {"u2", 2, KindUnsigned}, S2: {"s2", 2, KindSigned},
	E4M3: {"e4m3", 8, KindFloat}, E5M2: {"e5m2", 8, KindFloat}, E2M3: {"e2m3", 6, KindFloat},
	E3M2: {"e3m2", 6, KindFloat}, E2M1: {"e2m1", 4, KindFloat},
	E4M3x2: {"e4m3x2", 16, KindFloat}, E5M2x2: {"e5m2x2", 16, KindFloat},
	E2M3x2: {"e2m3x2", 16, KindFloat}, E3M2x2: {"e3m2x2", 16, KindFloat},
	E2M1x2: {"e2m1x2", 8, KindFloat},
	E4M3x4: {"e4m3x4", 32, KindFloat}, E5M2x4: {"e5m2x4", 32, KindFloat},
	E2M3x4: {"e2m3x4", 32, KindFloat}, E3M2x4: {"e3m2x4", 32, KindFloat},
	E2M1x4: {"e2m1x4", 16, KindFloat},
	UE8M0:  {"ue8m0", 8, KindFloat}, UE8M0x2: {"ue8m0x2", 16, KindFloat}, UE4M3: {"ue4m3", 8, KindFloat},
	B8x16: {"b8x16", 128, KindBit}, B6x16P32: {"b6x16_p32", 128, KindBit}, B4x16P64: {"b4x16_p64", 128, KindBit},
	TexRef: {"texref", 64, KindOpaque}, SamplerRef: {"samplerref", 64, KindOpaque}, SurfRef: {"surfref", 64, KindOpaque},
}

var typeByName = func() map[string]Type {
	m := make(map[string]Type, numTypes)
	for t := Type(1); t < numTypes; t++ {
		m[typeTable[t].name] = t
	}
	return m
}()

// LookupType returns the type named name (without the dot), or TypeNone.
func LookupType(name string) Type { return typeByName[name] }

// String returns the type's name without the leading dot ("b32").
func (t Type) String() string {
	if t > 0 && t < numTypes {
		return typeTable[t].name
	}
	return "none"
}

// Bits returns the size of the type in bits (1 for .pred).
func (t Type) Bits() int {
	if t < numTypes {
		return typeTable[t].bits
	}
	return 0
}

// Kind returns the type's kind.
func (t Type) Kind() TypeKind {
	if t < numTypes {
		return typeTable[t].kind
	}
	return KindNone
}

// IsRegType reports whether registers may be declared with type t.
func (t Type) IsRegType() bool {
	switch t {
	case Pred, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, BF16x2, F32, F64:
		return true
	}
	return false
}

// regBits is the storage size of a value of type t in a register: narrow
// floats and sub-byte integers live in at least a byte.
func (t Type) regBits() int {
	b := t.Bits()
	if b < 8 && t != Pred {
		return 8
	}
	return b
}

// Space is a PTX state space.
type Space uint8

// The state spaces, including the sub-spaces of .shared and .param.
const (
	SpaceNone Space = iota
	SpaceReg
	SpaceSReg
	SpaceConst
	SpaceGlobal
	SpaceLocal
	SpaceParam
	SpaceParamEntry
	SpaceParamFunc
	SpaceShared
	SpaceSharedCTA
	SpaceSharedCluster
	SpaceTex
	numSpaces
)

var spaceNames = [numSpaces]string{
	SpaceReg: "reg", SpaceSReg: "sreg", SpaceConst: "const", SpaceGlobal: "global",
	SpaceLocal: "local", SpaceParam: "param", SpaceParamEntry: "param::entry",
	SpaceParamFunc: "param::func", SpaceShared: "shared", SpaceSharedCTA: "shared::cta",
	SpaceSharedCluster: "shared::cluster", SpaceTex: "tex",
}

var spaceByName = func() map[string]Space {
	m := make(map[string]Space, numSpaces)
	for s := Space(1); s < numSpaces; s++ {
		m[spaceNames[s]] = s
	}
	return m
}()

// LookupSpace returns the state space named name (without the dot), or
// SpaceNone.
func LookupSpace(name string) Space { return spaceByName[name] }

// String returns the space's name without the dot ("shared::cta").
func (s Space) String() string {
	if s > 0 && s < numSpaces {
		return spaceNames[s]
	}
	return "generic"
}

// Base returns the space without its sub-space: .shared for .shared::cta
// and .shared::cluster, .param for .param::entry and .param::func.
func (s Space) Base() Space {
	switch s {
	case SpaceSharedCTA, SpaceSharedCluster:
		return SpaceShared
	case SpaceParamEntry, SpaceParamFunc:
		return SpaceParam
	}
	return s
}

// Shape is an MMA shape such as m64n128k16. The zero Shape means none.
type Shape struct{ M, N, K int }

// IsZero reports whether s is the zero Shape.
func (s Shape) IsZero() bool { return s == Shape{} }

// String formats the shape as "m64n128k16" (or "m8n8" when K is 0).
func (s Shape) String() string {
	if s.IsZero() {
		return ""
	}
	out := "m" + strconv.Itoa(s.M) + "n" + strconv.Itoa(s.N)
	if s.K > 0 {
		out += "k" + strconv.Itoa(s.K)
	}
	return out
}

// ParseShape decodes a modifier such as "m64n128k16" or "m8n8". It reports
// false if name is not a shape.
func ParseShape(name string) (Shape, bool) {
	var s Shape
	rest := name
	num := func(prefix byte) (int, bool) {
		if len(rest) < 2 || rest[0] != prefix || !isDigit(rest[1]) {
			return 0, false
		}
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		v, err := strconv.Atoi(rest[1:i])
		if err != nil || v <= 0 || v > 1<<16 {
			return 0, false
		}
		rest = rest[i:]
		return v, true
	}
	var ok bool
	if s.M, ok = num('m'); !ok {
		return Shape{}, false
	}
	if s.N, ok = num('n'); !ok {
		return Shape{}, false
	}
	if rest != "" {
		if s.K, ok = num('k'); !ok || rest != "" {
			return Shape{}, false
		}
	}
	return s, true
}

// vecWidth decodes ".v2", ".v4", ".v8" modifiers.
func vecWidth(mod string) int {
	switch mod {
	case "v2":
		return 2
	case "v4":
		return 4
	case "v8":
		return 8
	}
	return 0
}

// SpecialReg describes a PTX special register.
type SpecialReg struct {
	Name  string // "%tid"
	Type  Type   // the type of one component
	Comps string // the allowed components ("xyz"); empty for scalars
}

var specialRegs = func() map[string]SpecialReg {
	m := map[string]SpecialReg{}
	add := func(t Type, comps string, names ...string) {
		for _, n := range names {
			m[n] = SpecialReg{Name: n, Type: t, Comps: comps}
		}
	}
	add(U32, "xyz", "%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
		"%cluster_ctaid", "%cluster_nctaid")
	add(U32, "", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%cluster_ctarank",
		"%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
		"%lanemask_gt", "%clock", "%clock_hi", "%globaltimer_lo", "%globaltimer_hi",
		"%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size",
		"%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
		"%reserved_smem_offset_0", "%reserved_smem_offset_1")
	add(U64, "", "%clock64", "%globaltimer", "%gridid", "%current_graph_exec")
	add(Pred, "", "%is_explicit_cluster")
	for i := 0; i < 8; i++ {
		add(U32, "", "%pm"+strconv.Itoa(i))
		add(U64, "", "%pm"+strconv.Itoa(i)+"_64")
	}
	for i := 0; i < 32; i++ {
		add(B32, "", "%envreg"+strconv.Itoa(i))
	}
	return m
}()

// LookupSpecialReg returns the special register named name ("%tid", without
// a component), if there is one.
func LookupSpecialReg(name string) (SpecialReg, bool) {
	r, ok := specialRegs[name]
	return r, ok
}

// splitComponent splits "%tid.x" into "%tid" and "x".
func splitComponent(name string) (base, comp string) {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return name, ""
}
