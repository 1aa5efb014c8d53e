package tensormap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Size is the size of a CUtensorMap in bytes.
const Size = 128

// Align is the alignment the driver and the hardware require of a
// CUtensorMap.
const Align = 64

// Kind says which driver function builds a map.
type Kind uint8

// The kinds of tensor map.
const (
	Tiled      Kind = iota // cuTensorMapEncodeTiled
	Im2col                 // cuTensorMapEncodeIm2col
	Im2colWide             // cuTensorMapEncodeIm2colWide (CUDA 12.8)
)

// DType is CUtensorMapDataType; the values are the driver's.
type DType uint32

// Interleave is CUtensorMapInterleave.
type Interleave uint32

// Swizzle is CUtensorMapSwizzle.
type Swizzle uint32

// L2Promotion is CUtensorMapL2promotion.
type L2Promotion uint32

// OOBFill is CUtensorMapFloatOOBfill.
type OOBFill uint32

// WideMode is CUtensorMapIm2ColWideMode.
type WideMode uint32

// Target is the GPU whose driver a map is encoded and checked for.
type Target uint8

// The targets.
const (
	// SM90 is the H100's driver, whose rules and bytes the recorded
	// campaign (fixtures/tensormaps) measured.
	SM90 Target = iota
	// SM100 is an sm_100a (B200) driver: SM90's rules and encoding, plus
	// the 16U4_ALIGN8B element type and the 128B_atom_32B swizzle that the
	// H100's driver rejects. Their rules and bytes are modelled, not
	// hardware-verified (see NotModelled and codec.go).
	SM100
)

// String is the target's name: sm_90 or sm_100a.
func (t Target) String() string {
	if t == SM100 {
		return "sm_100a"
	}
	return "sm_90"
}

// Modelled reports whether m needs the SM100 target: an element type or a
// swizzle that only sm_100a drivers accept and that tcsim models.
func (m *Map) Modelled() bool {
	return m.DType == U4x16Align8 || m.Swizzle == Swizzle128BAtom32B
}

// The enum values the CUDA 13 driver defines.
const (
	U8 DType = iota
	U16
	U32
	S32
	U64
	S64
	F16
	F32
	F64
	BF16
	F32FTZ
	TF32
	TF32FTZ
	U4x16Align8  // 16U4_ALIGN8B: 16 packed 4-bit values in 8 bytes
	U4x16Align16 // 16U4_ALIGN16B: 16 packed 4-bit values, 16-byte aligned in shared memory
	U6x16Align16 // 16U6_ALIGN16B: 16 packed 6-bit values, 16-byte aligned in shared memory

	InterleaveNone Interleave = 0
	Interleave16B  Interleave = 1
	Interleave32B  Interleave = 2

	SwizzleNone          Swizzle = 0
	Swizzle32B           Swizzle = 1
	Swizzle64B           Swizzle = 2
	Swizzle128B          Swizzle = 3
	Swizzle128BAtom32B   Swizzle = 4
	Swizzle128BAtom32BF8 Swizzle = 5 // 128B_ATOM_32B_FLIP_8B
	Swizzle128BAtom64B   Swizzle = 6

	L2None L2Promotion = 0
	L264B  L2Promotion = 1
	L2128B L2Promotion = 2
	L2256B L2Promotion = 3

	OOBZero OOBFill = 0
	OOBNaN  OOBFill = 1 // NAN_REQUEST_ZERO_FMA

	WideW    WideMode = 0
	WideW128 WideMode = 1
)

var (
	kindNames       = []string{"tiled", "im2col", "im2col_wide"}
	dtypeNames      = []string{"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32ftz", "tf32", "tf32ftz", "16u4_align8b", "16u4_align16b", "16u6_align16b"}
	dtypeBits       = []int{8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6}
	interleaveNames = []string{"none", "16B", "32B"}
	swizzleNames    = []string{"none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B", "128B_atom_64B"}
	l2Names         = []string{"none", "64B", "128B", "256B"}
	oobNames        = []string{"zero", "nan"}
	wideModeNames   = []string{"w", "w128"}
)

func nameOf(names []string, v uint32) string {
	if int(v) < len(names) {
		return names[v]
	}
	return strconv.FormatUint(uint64(v), 10)
}

// lookup parses a name (or a decimal number, for values the driver does not
// define: the campaign records what it says about them).
func lookup(names []string, field, s string) (uint32, error) {
	for i, n := range names {
		if strings.EqualFold(n, s) {
			return uint32(i), nil
		}
	}
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(v), nil
	}
	return 0, fmt.Errorf("%s=%s: want one of %s%s", field, s, strings.Join(names, ", "), suggest.HintSuffix(s, names))
}

func (k Kind) String() string        { return nameOf(kindNames, uint32(k)) }
func (t DType) String() string       { return nameOf(dtypeNames, uint32(t)) }
func (v Interleave) String() string  { return nameOf(interleaveNames, uint32(v)) }
func (s Swizzle) String() string     { return nameOf(swizzleNames, uint32(s)) }
func (l L2Promotion) String() string { return nameOf(l2Names, uint32(l)) }
func (o OOBFill) String() string     { return nameOf(oobNames, uint32(o)) }
func (m WideMode) String() string    { return nameOf(wideModeNames, uint32(m)) }

// MarshalText writes the name (a number for a value with no name).
func (k Kind) MarshalText() ([]byte, error)        { return []byte(k.String()), nil }
func (t DType) MarshalText() ([]byte, error)       { return []byte(t.String()), nil }
func (v Interleave) MarshalText() ([]byte, error)  { return []byte(v.String()), nil }
func (s Swizzle) MarshalText() ([]byte, error)     { return []byte(s.String()), nil }
func (l L2Promotion) MarshalText() ([]byte, error) { return []byte(l.String()), nil }
func (o OOBFill) MarshalText() ([]byte, error)     { return []byte(o.String()), nil }
func (m WideMode) MarshalText() ([]byte, error)    { return []byte(m.String()), nil }

// UnmarshalText reads a name or a decimal number.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := lookup(kindNames, "kind", string(b))
	if err == nil && int(v) >= len(kindNames) {
		err = fmt.Errorf("kind=%s: want one of %s", b, strings.Join(kindNames, ", "))
	}
	*k = Kind(v)
	return err
}

// ParseDType parses a data type name ("bf16") or number.
func ParseDType(s string) (DType, error) {
	v, err := lookup(dtypeNames, "dtype", s)
	return DType(v), err
}

// ParseInterleave parses an interleave name ("none", "16B", "32B").
func ParseInterleave(s string) (Interleave, error) {
	v, err := lookup(interleaveNames, "interleave", s)
	return Interleave(v), err
}

// ParseSwizzle parses a swizzle name ("128B", "128B_atom_32B", …).
func ParseSwizzle(s string) (Swizzle, error) {
	v, err := lookup(swizzleNames, "swizzle", s)
	return Swizzle(v), err
}

// ParseL2 parses an L2 promotion name ("none", "64B", "128B", "256B").
func ParseL2(s string) (L2Promotion, error) {
	v, err := lookup(l2Names, "l2", s)
	return L2Promotion(v), err
}

// ParseOOB parses an out-of-bounds fill name ("zero", "nan").
func ParseOOB(s string) (OOBFill, error) {
	v, err := lookup(oobNames, "oob", s)
	return OOBFill(v), err
}

// ParseWideMode parses an im2col-wide mode ("w", "w128").
func ParseWideMode(s string) (WideMode, error) {
	v, err := lookup(wideModeNames, "mode", s)
	return WideMode(v), err
}

func (t *DType) UnmarshalText(b []byte) (err error) { *t, err = ParseDType(string(b)); return }
func (v *Interleave) UnmarshalText(b []byte) (err error) {
	*v, err = ParseInterleave(string(b))
	return
}
func (s *Swizzle) UnmarshalText(b []byte) (err error)     { *s, err = ParseSwizzle(string(b)); return }
func (l *L2Promotion) UnmarshalText(b []byte) (err error) { *l, err = ParseL2(string(b)); return }
func (o *OOBFill) UnmarshalText(b []byte) (err error)     { *o, err = ParseOOB(string(b)); return }
func (m *WideMode) UnmarshalText(b []byte) (err error)    { *m, err = ParseWideMode(string(b)); return }

// DTypeNames lists the data type names in driver order.
func DTypeNames() []string { return append([]string(nil), dtypeNames...) }

// SwizzleNames lists the swizzle names in driver order.
func SwizzleNames() []string { return append([]string(nil), swizzleNames...) }

// Known reports whether the driver defines the value.
func (t DType) Known() bool { return int(t) < len(dtypeNames) }

// Bits is the size of one element in global memory, in bits (0 for an
// unknown type). The packed types are 4 or 6 bits.
func (t DType) Bits() int {
	if t.Known() {
		return dtypeBits[t]
	}
	return 0
}

// Packed reports whether the type is one of the packed 4/6-bit types.
func (t DType) Packed() bool { return t >= U4x16Align8 && t <= U6x16Align16 }

// IsFloat reports whether the type is a floating-point type (the packed
// types are not: they carry raw bits).
func (t DType) IsFloat() bool { return t >= F16 && t <= TF32FTZ }

// SpanBytes is the span of the swizzle pattern in bytes: 0 for none, 32,
// 64, or 128 for every 128B mode.
func (s Swizzle) SpanBytes() int {
	switch s {
	case SwizzleNone:
		return 0
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	}
	return 128
}

// Known reports whether the driver defines the value.
func (s Swizzle) Known() bool { return int(s) < len(swizzleNames) }

// Known reports whether the driver defines the value.
func (v Interleave) Known() bool { return int(v) < len(interleaveNames) }

// Known reports whether the driver defines the value.
func (l L2Promotion) Known() bool { return int(l) < len(l2Names) }

// Known reports whether the driver defines the value.
func (o OOBFill) Known() bool { return int(o) < len(oobNames) }

// Known reports whether the driver defines the value.
func (m WideMode) Known() bool { return int(m) < len(wideModeNames) }

// Map holds the arguments of the driver call that encodes a tensor map.
// Lists are innermost (contiguous) dimension first, as the driver and PTX
// tensor coordinates list them.
type Map struct {
	Kind        Kind        `json:"kind"`
	DType       DType       `json:"dtype"`
	Address     uint64      `json:"addr"`
	Dims        []uint64    `json:"dims"`              // globalDim, rank entries
	Strides     []uint64    `json:"strides,omitempty"` // globalStrides in bytes, rank-1 entries
	Box         []uint32    `json:"box,omitempty"`     // Tiled: boxDim, rank entries
	ElemStrides []uint32    `json:"estrides"`          // elementStrides, rank entries
	Interleave  Interleave  `json:"interleave"`
	Swizzle     Swizzle     `json:"swizzle"`
	L2          L2Promotion `json:"l2"`
	OOB         OOBFill     `json:"oob"`

	// Im2col: the corners of the bounding box, rank-2 entries each ({W},
	// {W, H} or {W, H, D}: innermost first), the channels per pixel and
	// the pixels per column.
	Lower    []int32 `json:"lower,omitempty"`
	Upper    []int32 `json:"upper,omitempty"`
	Channels uint32  `json:"channels,omitempty"`
	Pixels   uint32  `json:"pixels,omitempty"`

	// Im2colWide: the W offsets of the corners and the mode.
	LowerW int32    `json:"lower_w,omitempty"`
	UpperW int32    `json:"upper_w,omitempty"`
	Mode   WideMode `json:"mode,omitempty"`

	// Target is the driver the map is checked and encoded for (SM90
	// unless a map needs sm_100a: Modelled).
	Target Target `json:"target,omitempty"`
}

// Rank is the number of dimensions.
func (m *Map) Rank() int { return len(m.Dims) }

// Clone returns a deep copy.
func (m *Map) Clone() *Map {
	c := *m
	c.Dims = append([]uint64(nil), m.Dims...)
	c.Strides = append([]uint64(nil), m.Strides...)
	c.Box = append([]uint32(nil), m.Box...)
	c.ElemStrides = append([]uint32(nil), m.ElemStrides...)
	c.Lower = append([]int32(nil), m.Lower...)
	c.Upper = append([]int32(nil), m.Upper...)
	return &c
}

// String returns the map in a compact one-line form.
func (m *Map) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s dtype=%s addr=%#x dims=%s", m.Kind, m.DType, m.Address, list(m.Dims))
	if len(m.Strides) > 0 {
		fmt.Fprintf(&b, " strides=%s", list(m.Strides))
	}
	if m.Kind == Tiled {
		fmt.Fprintf(&b, " box=%s", list(m.Box))
	}
	fmt.Fprintf(&b, " estrides=%s", list(m.ElemStrides))
	switch m.Kind {
	case Im2col:
		fmt.Fprintf(&b, " lower=%s upper=%s channels=%d pixels=%d", list(m.Lower), list(m.Upper), m.Channels, m.Pixels)
	case Im2colWide:
		fmt.Fprintf(&b, " lower_w=%d upper_w=%d channels=%d pixels=%d mode=%s", m.LowerW, m.UpperW, m.Channels, m.Pixels, m.Mode)
	}
	fmt.Fprintf(&b, " interleave=%s swizzle=%s l2=%s oob=%s", m.Interleave, m.Swizzle, m.L2, m.OOB)
	return b.String()
}

func list[T int32 | uint32 | uint64](v []T) string {
	if len(v) == 0 {
		return "-"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, "x")
}
