package desc

import (
	"fmt"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Kind is the .kind qualifier of tcgen05.mma; it selects the layout of
// the instruction descriptor.
type Kind int

const (
	KindUnknown  Kind = iota // not given, or not a kind
	KindF16                  // .kind::f16: f16/bf16 inputs, f16/f32 accumulate
	KindTF32                 // .kind::tf32
	KindF8F6F4               // .kind::f8f6f4: fp8/fp6/fp4 inputs, no scale
	KindI8                   // .kind::i8: s8/u8 inputs, s32 accumulate
	KindMXF8F6F4             // .kind::mxf8f6f4.block_scale
	KindMXF4                 // .kind::mxf4.block_scale
	KindMXF4NVF4             // .kind::mxf4nvf4.block_scale
)

var kindNames = [...]string{"unknown", "f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"}

// Kinds lists every kind, in the order of the ISA's tables.
var Kinds = []Kind{KindF16, KindTF32, KindF8F6F4, KindI8, KindMXF8F6F4, KindMXF4, KindMXF4NVF4}

// String returns the kind as PTX spells it after "kind::".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind reads f16, kind::f16, .kind::f16 and so on.
func ParseKind(s string) (Kind, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(strings.TrimPrefix(t, "."), "kind::")
	for i, n := range kindNames {
		if i > 0 && t == n {
			return Kind(i), nil
		}
	}
	return KindUnknown, fmt.Errorf("unknown tcgen05 kind %q (want one of %s)%s", s, strings.Join(kindNames[1:], ", "), suggest.HintSuffix(t, kindNames[1:]))
}

// BlockScaled reports whether k is one of the .block_scale kinds, whose
// descriptors carry scale-factor fields instead of dtype, saturate,
// sparsity selector and max shift.
func (k Kind) BlockScaled() bool { return k == KindMXF8F6F4 || k == KindMXF4 || k == KindMXF4NVF4 }

func (k Kind) fp4Only() bool { return k == KindMXF4 || k == KindMXF4NVF4 }

// IDesc is the 32-bit tcgen05.mma instruction descriptor (PTX ISA
// 9.7.16.4.2). Its layout depends on the kind:
//
//	bits   f16, tf32, f8f6f4, i8          mxf8f6f4              mxf4, mxf4nvf4
//	0-1    SparseSelector                 (0)                   (0)
//	2      Sparse                         Sparse                Sparse
//	3      Saturate (i8 only)             (0)                   (0)
//	4-5    DType                          ScaleBID              ScaleBID (0 or 2)
//	6      (0)                            (0)                   (0)
//	7-9    AType                          AType                 AType (e2m1 = 1)
//	10-12  BType                          BType                 BType in 10-11, bit 12 (0)
//	13     NegateA                        NegateA               NegateA
//	14     NegateB                        NegateB               NegateB
//	15     TransposeA (1 = MN-major)      TransposeA            TransposeA (must be 0)
//	16     TransposeB (1 = MN-major)      TransposeB            TransposeB (must be 0)
//	17-22  NField = N >> 3                NField                NField
//	23     (0)                            ScaleType (ue8m0 = 1) ScaleType (ue4m3 0, ue8m0 1)
//	24-28  MField = M >> 4                24-26 (0), 27-28 MField = M >> 7
//	29     (0)                            29-30 ScaleAID        29-30 ScaleAID (0 or 2)
//	30-31  MaxShift (.ws)                 31 (0)                31 KSize (1 = K 96, sm_103a)
//
// Fields a kind does not have must be zero. Reserved keeps, in place, any
// bits a decoded value had in the kind's reserved positions, so decoding
// and encoding round-trip every 32-bit value.
type IDesc struct {
	Kind           Kind  // not encoded: selects the layout
	SparseSelector uint8 // 2 bits
	Sparse         bool
	Saturate       bool
	DType          uint8 // 2 bits: D format code
	AType          uint8 // 3 bits: A format code
	BType          uint8 // 3 bits (2 for mxf4 kinds): B format code
	NegateA        bool
	NegateB        bool
	TransposeA     bool  // A is MN-major
	TransposeB     bool  // B is MN-major
	NField         uint8 // 6 bits: N >> 3
	MField         uint8 // 5 bits M >> 4, or 2 bits M >> 7 for block-scaled kinds
	MaxShift       uint8 // 2 bits: 0 none, 1 8, 2 16, 3 32
	ScaleAID       uint8 // 2 bits
	ScaleBID       uint8 // 2 bits
	ScaleType      uint8 // 1 bit: 0 ue4m3, 1 ue8m0
	KSize          uint8 // 1 bit (mxf4 kinds): 1 = dense K 96
	Reserved       uint32
}

// reservedMask is the set of bits the kind reserves (must be 0).
func (k Kind) reservedMask() uint32 {
	switch {
	case k == KindMXF8F6F4:
		return 3 | 1<<3 | 1<<6 | 7<<24 | 1<<31
	case k.fp4Only():
		return 3 | 1<<3 | 1<<6 | 1<<12 | 7<<24
	}
	return 1<<6 | 1<<23 | 1<<29
}

// DecodeIDesc splits a 32-bit instruction descriptor under the layout of
// kind k. Every value decodes; Check says what is wrong with it.
func DecodeIDesc(v uint32, k Kind) IDesc {
	d := IDesc{
		Kind:       k,
		Sparse:     v>>2&1 == 1,
		AType:      uint8(v >> 7 & 7),
		NegateA:    v>>13&1 == 1,
		NegateB:    v>>14&1 == 1,
		TransposeA: v>>15&1 == 1,
		TransposeB: v>>16&1 == 1,
		NField:     uint8(v >> 17 & 0x3F),
		Reserved:   v & k.reservedMask(),
	}
	if k.BlockScaled() {
		d.ScaleBID = uint8(v >> 4 & 3)
		d.ScaleType = uint8(v >> 23 & 1)
		d.MField = uint8(v >> 27 & 3)
		d.ScaleAID = uint8(v >> 29 & 3)
		if k.fp4Only() {
			d.BType = uint8(v >> 10 & 3)
			d.KSize = uint8(v >> 31 & 1)
		} else {
			d.BType = uint8(v >> 10 & 7)
		}
		return d
	}
	d.SparseSelector = uint8(v & 3)
	d.Saturate = v>>3&1 == 1
	d.DType = uint8(v >> 4 & 3)
	d.BType = uint8(v >> 10 & 7)
	d.MField = uint8(v >> 24 & 0x1F)
	d.MaxShift = uint8(v >> 30 & 3)
	return d
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Encode packs d under the layout of d.Kind. It fails, naming the field,
// when a field does not fit its bits, when a field the kind does not have
// is set, or when Reserved has bits outside the kind's reserved positions.
func (d IDesc) Encode() (uint32, error) {
	k := d.Kind
	if k <= KindUnknown || int(k) >= len(kindNames) {
		return 0, fmt.Errorf("instruction descriptor: the kind is not set (it selects the layout)")
	}
	fail := func(format string, args ...any) (uint32, error) {
		return 0, fmt.Errorf("instruction descriptor (kind::%s): "+format, append([]any{k}, args...)...)
	}
	widths := []fieldWidth{
		{"atype", uint64(d.AType), 3},
		{"N field (N >> 3)", uint64(d.NField), 6},
	}
	if k.BlockScaled() {
		bw := 3
		if k.fp4Only() {
			bw = 2
		}
		widths = append(widths,
			fieldWidth{"btype", uint64(d.BType), bw},
			fieldWidth{"M field (M >> 7)", uint64(d.MField), 2},
			fieldWidth{"scale factor A id", uint64(d.ScaleAID), 2},
			fieldWidth{"scale factor B id", uint64(d.ScaleBID), 2},
			fieldWidth{"scale type", uint64(d.ScaleType), 1},
			fieldWidth{"K size", uint64(d.KSize), 1},
		)
		for _, f := range []struct {
			name string
			set  bool
		}{{"sparsity selector", d.SparseSelector != 0}, {"saturate", d.Saturate}, {"dtype", d.DType != 0}, {"max shift", d.MaxShift != 0}} {
			if f.set {
				return fail("%s: block-scaled kinds have no such field (its bits hold other fields or are reserved)", f.name)
			}
		}
		if !k.fp4Only() && d.KSize != 0 {
			return fail("K size: only kind::mxf4 and kind::mxf4nvf4 have the K size bit")
		}
	} else {
		widths = append(widths,
			fieldWidth{"sparsity selector", uint64(d.SparseSelector), 2},
			fieldWidth{"dtype", uint64(d.DType), 2},
			fieldWidth{"btype", uint64(d.BType), 3},
			fieldWidth{"M field (M >> 4)", uint64(d.MField), 5},
			fieldWidth{"max shift", uint64(d.MaxShift), 2},
		)
		for _, f := range []struct {
			name string
			set  bool
		}{{"scale factor A id", d.ScaleAID != 0}, {"scale factor B id", d.ScaleBID != 0}, {"scale type", d.ScaleType != 0}, {"K size", d.KSize != 0}} {
			if f.set {
				return fail("%s: only the block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4) have this field", f.name)
			}
		}
	}
	if err := checkWidths(widths); err != nil {
		return fail("%v", err)
	}
	if d.Reserved&^k.reservedMask() != 0 {
		return fail("Reserved has bits outside the kind's reserved positions (%#x)", d.Reserved&^k.reservedMask())
	}
	v := b2u(d.Sparse)<<2 | uint32(d.AType)<<7 | b2u(d.NegateA)<<13 | b2u(d.NegateB)<<14 |
		b2u(d.TransposeA)<<15 | b2u(d.TransposeB)<<16 | uint32(d.NField)<<17 | d.Reserved
	if k.BlockScaled() {
		v |= uint32(d.ScaleBID)<<4 | uint32(d.BType)<<10 | uint32(d.ScaleType)<<23 |
			uint32(d.MField)<<27 | uint32(d.ScaleAID)<<29 | uint32(d.KSize)<<31
	} else {
		v |= uint32(d.SparseSelector) | b2u(d.Saturate)<<3 | uint32(d.DType)<<4 |
			uint32(d.BType)<<10 | uint32(d.MField)<<24 | uint32(d.MaxShift)<<30
	}
	return v, nil
}

// M is the M dimension the descriptor encodes.
func (d IDesc) M() int {
	if d.Kind.BlockScaled() {
		return int(d.MField) << 7
	}
	return int(d.MField) << 4
}

// N is the N dimension the descriptor encodes.
func (d IDesc) N() int { return int(d.NField) << 3 }

// MaxShiftColumns is the maximum shift the MaxShift code allows: 0, 8, 16
// or 32.
func (d IDesc) MaxShiftColumns() int { return [4]int{0, 8, 16, 32}[d.MaxShift&3] }

// abFormats maps the A/B format codes of kind k to names.
func abFormats(k Kind) map[uint8]string {
	switch k {
	case KindF16:
		return map[uint8]string{0: "f16", 1: "bf16"}
	case KindTF32:
		return map[uint8]string{2: "tf32"}
	case KindF8F6F4, KindMXF8F6F4:
		return map[uint8]string{0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}
	case KindI8:
		return map[uint8]string{0: "u8", 1: "s8"}
	case KindMXF4, KindMXF4NVF4:
		return map[uint8]string{1: "e2m1"}
	}
	return nil
}

// dFormats maps the D format codes of kind k to names (nil for the
// block-scaled kinds, which always accumulate in f32 and have no field).
func dFormats(k Kind) map[uint8]string {
	switch k {
	case KindF16, KindF8F6F4:
		return map[uint8]string{0: "f16", 1: "f32"}
	case KindTF32:
		return map[uint8]string{1: "f32"}
	case KindI8:
		return map[uint8]string{2: "s32"}
	}
	return nil
}

var scaleTypes = map[uint8]string{0: "ue4m3", 1: "ue8m0"}

// FormatName names the A/B format code of kind k ("" if invalid).
func FormatName(k Kind, code uint8) string { return abFormats(k)[code] }

// formatCode finds the code of a format name in m.
func formatCode(m map[uint8]string, name string) (uint8, bool) {
	n := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "."))
	switch n {
	case "fp16", "half":
		n = "f16"
	case "s8", "i8", "int8":
		n = "s8"
	case "uint8":
		n = "u8"
	case "fp4", "nvf4", "mxf4":
		n = "e2m1"
	case "float32", "fp32":
		n = "f32"
	case "int32", "i32":
		n = "s32"
	}
	for c, v := range m {
		if v == n {
			return c, true
		}
	}
	return 0, false
}

// formatList lists "0 f16, 1 bf16" in code order.
func formatList(m map[uint8]string) string {
	var parts []string
	for c := uint8(0); c < 8; c++ {
		if n, ok := m[c]; ok {
			parts = append(parts, fmt.Sprintf("%d %s", c, n))
		}
	}
	return strings.Join(parts, ", ")
}

// IDescSpec is an instruction descriptor in words, for NewIDesc.
type IDescSpec struct {
	Kind             Kind
	D, A, B          string // D, A and B types: "f32", "bf16", ... (D is ignored for block-scaled kinds)
	M, N             int
	Sparse           bool
	SparseSelector   int
	Saturate         bool
	NegateA, NegateB bool
	MajorA, MajorB   Major  // MN-major sets the transpose bit; unknown means K-major
	MaxShift         int    // 0, 8, 16 or 32 (.ws)
	ScaleType        string // ue8m0 or ue4m3 (block-scaled kinds; default ue8m0)
	ScaleAID         int
	ScaleBID         int
	K96              bool // mxf4 kinds: dense K = 96 (sm_103a)
}

// NewIDesc builds the descriptor that spec describes. It fails, naming
// the field, for types the kind lacks and for values that do not fit;
// legality of shapes and combinations is Check's job.
func NewIDesc(s IDescSpec) (IDesc, error) {
	k := s.Kind
	if k <= KindUnknown || int(k) >= len(kindNames) {
		return IDesc{}, fmt.Errorf("kind: not set (want one of %s)", strings.Join(kindNames[1:], ", "))
	}
	d := IDesc{Kind: k, Sparse: s.Sparse, Saturate: s.Saturate, NegateA: s.NegateA, NegateB: s.NegateB,
		TransposeA: s.MajorA == MajorMN, TransposeB: s.MajorB == MajorMN}
	ab := abFormats(k)
	var ok bool
	if d.AType, ok = formatCode(ab, s.A); !ok {
		return IDesc{}, fmt.Errorf("atype: %q is not an A type of kind::%s (%s)", s.A, k, formatList(ab))
	}
	if d.BType, ok = formatCode(ab, s.B); !ok {
		return IDesc{}, fmt.Errorf("btype: %q is not a B type of kind::%s (%s)", s.B, k, formatList(ab))
	}
	if !k.BlockScaled() {
		df := dFormats(k)
		if d.DType, ok = formatCode(df, s.D); !ok {
			return IDesc{}, fmt.Errorf("dtype: %q is not a D type of kind::%s (%s)", s.D, k, formatList(df))
		}
	}
	if s.N <= 0 || s.N%8 != 0 || s.N>>3 > 63 {
		return IDesc{}, fmt.Errorf("n: %d cannot be encoded: the field holds N >> 3 in 6 bits, so N must be a multiple of 8 from 8 to 504", s.N)
	}
	d.NField = uint8(s.N >> 3)
	if k.BlockScaled() {
		if s.M <= 0 || s.M%128 != 0 || s.M>>7 > 3 {
			return IDesc{}, fmt.Errorf("m: %d cannot be encoded for kind::%s: the field holds M >> 7 in 2 bits (M = 128 or 256)", s.M, k)
		}
		d.MField = uint8(s.M >> 7)
		st := s.ScaleType
		if st == "" {
			st = "ue8m0"
		}
		if d.ScaleType, ok = formatCode(scaleTypes, st); !ok {
			return IDesc{}, fmt.Errorf("scale type: %q is not ue8m0 or ue4m3", s.ScaleType)
		}
		if s.ScaleAID < 0 || s.ScaleAID > 3 || s.ScaleBID < 0 || s.ScaleBID > 3 {
			return IDesc{}, fmt.Errorf("scale factor ids: %d and %d do not fit 2 bits (0-3)", s.ScaleAID, s.ScaleBID)
		}
		d.ScaleAID, d.ScaleBID = uint8(s.ScaleAID), uint8(s.ScaleBID)
		if s.K96 {
			if !k.fp4Only() {
				return IDesc{}, fmt.Errorf("k96: only kind::mxf4 and kind::mxf4nvf4 have K = 96")
			}
			d.KSize = 1
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"sparse selector", s.SparseSelector != 0}, {"saturate", s.Saturate}, {"max shift", s.MaxShift != 0}} {
			if f.set {
				return IDesc{}, fmt.Errorf("%s: kind::%s has no such field", f.name, k)
			}
		}
	} else {
		if s.M <= 0 || s.M%16 != 0 || s.M>>4 > 31 {
			return IDesc{}, fmt.Errorf("m: %d cannot be encoded: the field holds M >> 4 in 5 bits, so M must be a multiple of 16 up to 496", s.M)
		}
		d.MField = uint8(s.M >> 4)
		if s.SparseSelector < 0 || s.SparseSelector > 3 {
			return IDesc{}, fmt.Errorf("sparse selector: %d does not fit 2 bits (0-3)", s.SparseSelector)
		}
		d.SparseSelector = uint8(s.SparseSelector)
		switch s.MaxShift {
		case 0, 8, 16, 32:
			d.MaxShift = map[int]uint8{0: 0, 8: 1, 16: 2, 32: 3}[s.MaxShift]
		default:
			return IDesc{}, fmt.Errorf("max shift: %d is not 0, 8, 16 or 32", s.MaxShift)
		}
		if s.ScaleType != "" || s.ScaleAID != 0 || s.ScaleBID != 0 || s.K96 {
			return IDesc{}, fmt.Errorf("scale fields: kind::%s is not block-scaled", k)
		}
	}
	return d, nil
}
