// Package numfmt decodes and encodes every number format that PTX tensor-core
// code touches, exactly, and models the cvt instruction bit for bit.
//
// A bit pattern decodes to a Value: a class (zero, subnormal, normal,
// infinity, NaN), a sign, and for finite values an integer significand and a
// power-of-two exponent, so that no information is lost. Encoding rounds an
// exact Value into a format under one of PTX's rounding modes, with the
// .satfinite, .relu, .sat and .ftz modifiers.
//
// The cvt model (Spec, Cvt) is driven by a data table of legal forms (Forms)
// that the PTX validator shares. The GPU probes (Probe, Check) turn every
// form into a PTX kernel and compare what an H100 computes with the model.
package numfmt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Kind says how a format's bits are read.
type Kind uint8

// The kinds of format.
const (
	FloatKind Kind = iota // sign, exponent, mantissa
	IntKind               // two's complement or unsigned integer
	BitKind               // a single bit (b1)
	FixedKind             // two's complement fixed point (s2f6)
)

// NaNStyle says which bit patterns of a float format are NaN.
type NaNStyle uint8

// The NaN encodings.
const (
	NoNaN      NaNStyle = iota // every pattern is a number (e2m1, e2m3, e3m2)
	IEEENaN                    // all-ones exponent, nonzero mantissa (f16, f32, e5m2, ...)
	AllOnesNaN                 // only exponent and mantissa all ones (e4m3, ue4m3, ue8m0)
)

// Format describes one number format.
type Format struct {
	Name string // PTX name without the dot, e.g. "e4m3"
	Kind Kind
	// Bits is the number of meaningful bits of one element. Formats narrower
	// than their container (e2m3, e3m2 in a byte, ue4m3 in a byte, tf32 in a
	// 32-bit word) say so with Container and Shift.
	Bits      int
	Container int // bits of the storage unit of one element: 8, 16, 32 or 64 (4 for e2m1)
	Shift     int // the element sits at bits [Shift, Shift+Bits) of its container (tf32: 13)
	Signed    bool
	ExpBits   int
	MantBits  int
	Bias      int
	HasInf    bool
	NaN       NaNStyle
	// NoSubnormal means exponent field 0 is an ordinary binade (ue8m0: code
	// 0 is 2^-127); the format then has no zero.
	NoSubnormal bool
	// FracBits is the number of fraction bits of a fixed-point format.
	FracBits int
	Doc      string
}

var formats = []*Format{
	{Name: "f64", Kind: FloatKind, Bits: 64, Container: 64, Signed: true, ExpBits: 11, MantBits: 52, Bias: 1023, HasInf: true, NaN: IEEENaN, Doc: "IEEE binary64"},
	{Name: "f32", Kind: FloatKind, Bits: 32, Container: 32, Signed: true, ExpBits: 8, MantBits: 23, Bias: 127, HasInf: true, NaN: IEEENaN, Doc: "IEEE binary32"},
	{Name: "tf32", Kind: FloatKind, Bits: 19, Container: 32, Shift: 13, Signed: true, ExpBits: 8, MantBits: 10, Bias: 127, HasInf: true, NaN: IEEENaN, Doc: "TensorFloat-32: an f32 bit pattern whose 13 low mantissa bits are zero (the low bits are ignored when decoding)"},
	{Name: "f16", Kind: FloatKind, Bits: 16, Container: 16, Signed: true, ExpBits: 5, MantBits: 10, Bias: 15, HasInf: true, NaN: IEEENaN, Doc: "IEEE binary16"},
	{Name: "bf16", Kind: FloatKind, Bits: 16, Container: 16, Signed: true, ExpBits: 8, MantBits: 7, Bias: 127, HasInf: true, NaN: IEEENaN, Doc: "bfloat16: the top half of an f32"},
	{Name: "e4m3", Kind: FloatKind, Bits: 8, Container: 8, Signed: true, ExpBits: 4, MantBits: 3, Bias: 7, NaN: AllOnesNaN, Doc: "OCP FP8 E4M3: no infinity, NaN only S.1111.111, max 448"},
	{Name: "e5m2", Kind: FloatKind, Bits: 8, Container: 8, Signed: true, ExpBits: 5, MantBits: 2, Bias: 15, HasInf: true, NaN: IEEENaN, Doc: "OCP FP8 E5M2: IEEE-like with infinities, max 57344"},
	{Name: "e2m3", Kind: FloatKind, Bits: 6, Container: 8, Signed: true, ExpBits: 2, MantBits: 3, Bias: 1, NaN: NoNaN, Doc: "OCP FP6 E2M3 (in a byte, 2 high bits zero): no infinity or NaN, max 7.5"},
	{Name: "e3m2", Kind: FloatKind, Bits: 6, Container: 8, Signed: true, ExpBits: 3, MantBits: 2, Bias: 3, NaN: NoNaN, Doc: "OCP FP6 E3M2 (in a byte, 2 high bits zero): no infinity or NaN, max 28"},
	{Name: "e2m1", Kind: FloatKind, Bits: 4, Container: 4, Signed: true, ExpBits: 2, MantBits: 1, Bias: 1, NaN: NoNaN, Doc: "OCP FP4 E2M1: no infinity or NaN, values 0 0.5 1 1.5 2 3 4 6"},
	{Name: "ue8m0", Kind: FloatKind, Bits: 8, Container: 8, ExpBits: 8, MantBits: 0, Bias: 127, NaN: AllOnesNaN, NoSubnormal: true, Doc: "unsigned exponent-only scale: code e is 2^(e-127), 0xff is NaN, no zero"},
	{Name: "ue4m3", Kind: FloatKind, Bits: 7, Container: 8, ExpBits: 4, MantBits: 3, Bias: 7, NaN: AllOnesNaN, Doc: "unsigned E4M3 scale (in a byte, high bit zero): NaN only 0x7f, max 448"},
	{Name: "s2f6", Kind: FixedKind, Bits: 8, Container: 8, Signed: true, FracBits: 6, Doc: "fixed point: an s8 times 2^-6, range [-2, 1.984375]"},
	{Name: "s64", Kind: IntKind, Bits: 64, Container: 64, Signed: true, Doc: "signed 64-bit integer"},
	{Name: "s32", Kind: IntKind, Bits: 32, Container: 32, Signed: true, Doc: "signed 32-bit integer"},
	{Name: "s16", Kind: IntKind, Bits: 16, Container: 16, Signed: true, Doc: "signed 16-bit integer"},
	{Name: "s8", Kind: IntKind, Bits: 8, Container: 8, Signed: true, Doc: "signed 8-bit integer"},
	{Name: "s4", Kind: IntKind, Bits: 4, Container: 4, Signed: true, Doc: "signed 4-bit integer (mma operands)"},
	{Name: "u64", Kind: IntKind, Bits: 64, Container: 64, Doc: "unsigned 64-bit integer"},
	{Name: "u32", Kind: IntKind, Bits: 32, Container: 32, Doc: "unsigned 32-bit integer"},
	{Name: "u16", Kind: IntKind, Bits: 16, Container: 16, Doc: "unsigned 16-bit integer"},
	{Name: "u8", Kind: IntKind, Bits: 8, Container: 8, Doc: "unsigned 8-bit integer"},
	{Name: "u4", Kind: IntKind, Bits: 4, Container: 4, Doc: "unsigned 4-bit integer (mma operands)"},
	{Name: "b1", Kind: BitKind, Bits: 1, Container: 1, Doc: "single bit (mma .b1 operands)"},
}

var byName = map[string]*Format{}

// The formats, by name, for callers that need one directly.
var (
	F64, F32, TF32, F16, BF16, E4M3, E5M2, E2M3, E3M2, E2M1, UE8M0, UE4M3, S2F6 *Format
	S64, S32, S16, S8, S4, U64, U32, U16, U8, U4, B1                            *Format
)

func init() {
	for _, f := range formats {
		byName[f.Name] = f
	}
	F64, F32, TF32, F16, BF16 = byName["f64"], byName["f32"], byName["tf32"], byName["f16"], byName["bf16"]
	E4M3, E5M2, E2M3, E3M2, E2M1 = byName["e4m3"], byName["e5m2"], byName["e2m3"], byName["e3m2"], byName["e2m1"]
	UE8M0, UE4M3, S2F6 = byName["ue8m0"], byName["ue4m3"], byName["s2f6"]
	S64, S32, S16, S8, S4 = byName["s64"], byName["s32"], byName["s16"], byName["s8"], byName["s4"]
	U64, U32, U16, U8, U4, B1 = byName["u64"], byName["u32"], byName["u16"], byName["u8"], byName["u4"], byName["b1"]
}

// Formats returns every format, widest floats first.
func Formats() []*Format { return append([]*Format(nil), formats...) }

// Lookup finds a format by name ("e4m3", ".e4m3" and "E4M3" all work).
func Lookup(name string) (*Format, error) {
	n := strings.ToLower(strings.TrimPrefix(name, "."))
	if f, ok := byName[n]; ok {
		return f, nil
	}
	names := make([]string, 0, len(byName))
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown number format %q (known: %s)%s", name, strings.Join(names, " "), suggest.HintSuffix(n, names))
}

// String returns the format's name.
func (f *Format) String() string { return f.Name }

// IsFloat reports whether f is a floating-point format.
func (f *Format) IsFloat() bool { return f.Kind == FloatKind }

// IsInt reports whether f is an integer format.
func (f *Format) IsInt() bool { return f.Kind == IntKind }

// Mask is the mask of f's meaningful bits, in place in its container.
func (f *Format) Mask() uint64 { return lowMask(f.Bits) << f.Shift }

func lowMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

func (f *Format) signBit() uint64 {
	if !f.Signed {
		return 0
	}
	return 1 << (f.Bits - 1)
}

func (f *Format) expMax() uint64 { return 1<<f.ExpBits - 1 }

// CanonicalNaN is the pattern PTX calls the canonical NaN of f: the positive
// quiet NaN with every mantissa bit set (0x7fff for f16 and bf16,
// 0x7fffffff for f32, 0x7f for e4m3 and e5m2, 0xff for ue8m0). Formats with
// no NaN report ok=false.
func (f *Format) CanonicalNaN() (bits uint64, ok bool) {
	if f.Kind != FloatKind || f.NaN == NoNaN {
		return 0, false
	}
	b := f.expMax()<<f.MantBits | lowMask(f.MantBits)
	return b << f.Shift, true
}

// Inf returns the pattern of the infinity of the given sign.
func (f *Format) Inf(neg bool) (bits uint64, ok bool) {
	if !f.HasInf {
		return 0, false
	}
	b := f.expMax() << f.MantBits
	if neg {
		b |= f.signBit()
	}
	return b << f.Shift, true
}

// MaxFinite returns the pattern of the largest finite value of the given sign
// (MAX_NORM in the PTX ISA). For integers it is MAXINT or MININT.
func (f *Format) MaxFinite(neg bool) uint64 {
	switch f.Kind {
	case IntKind, FixedKind:
		if !f.Signed {
			if neg {
				return 0
			}
			return lowMask(f.Bits)
		}
		if neg {
			return 1 << (f.Bits - 1)
		}
		return lowMask(f.Bits - 1)
	case BitKind:
		if neg {
			return 0
		}
		return 1
	}
	var b uint64
	switch {
	case f.HasInf:
		b = (f.expMax()-1)<<f.MantBits | lowMask(f.MantBits)
	case f.NaN == AllOnesNaN && f.MantBits > 0:
		b = f.expMax()<<f.MantBits | (lowMask(f.MantBits) - 1)
	case f.NaN == AllOnesNaN: // ue8m0
		b = f.expMax() - 1
	default:
		b = f.expMax()<<f.MantBits | lowMask(f.MantBits)
	}
	if neg {
		b |= f.signBit()
	}
	return b << f.Shift
}

// Zero returns the pattern of the zero of the given sign; formats without a
// signed zero return +0, and ue8m0 (which has no zero) reports ok=false.
func (f *Format) Zero(neg bool) (bits uint64, ok bool) {
	if f.NoSubnormal {
		return 0, false
	}
	if neg && f.Kind == FloatKind && f.Signed {
		return f.signBit() << f.Shift, true
	}
	return 0, true
}
