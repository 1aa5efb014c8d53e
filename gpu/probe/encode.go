package probe

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// elem is an element type a probe feeds to, or reads from, the tensor
// cores.
type elem int

const (
	elemF16  elem = iota // f16 operand or accumulator
	elemTF32             // tf32 operand: f32 bits with the low 13 bits zero
	elemU8               // u8 operand
	elemF32              // f32 accumulator
	elemS32              // s32 accumulator
	elemB16              // raw 16-bit data (ldmatrix, stmatrix)
	elemE4M3             // e4m3 operand (OCP fp8)
)

// bits is the element's width.
func (e elem) bits() int {
	switch e {
	case elemF16, elemB16:
		return 16
	case elemU8, elemE4M3:
		return 8
	}
	return 32
}

// digitBits is how many bits of a code one value of e carries exactly:
// codes wider than that are split into digits, one per pass.
func (e elem) digitBits() int {
	if e == elemE4M3 {
		return 4 // e4m3 holds every integer 0..16 exactly, not 17
	}
	return 8
}

func (e elem) String() string {
	return [...]string{"f16", "tf32", "u8", "f32", "s32", "b16", "e4m3"}[e]
}

// encode returns the bits of the small non-negative integer v in e. Every
// probe value is exact: below 2048 for f16 and tf32, below 256 for u8.
func (e elem) encode(v int) uint32 {
	switch e {
	case elemF16:
		return uint32(f16Bits(v))
	case elemTF32, elemF32:
		return math.Float32bits(float32(v))
	case elemU8:
		return uint32(v) & 0xFF
	case elemE4M3:
		return uint32(e4m3Bits(v))
	}
	return uint32(v)
}

// e4m3Bits encodes an integer 0..16 as OCP e4m3 (bias 7, 3 fraction bits).
func e4m3Bits(v int) uint8 {
	if v < 0 || v > 16 {
		panic(fmt.Sprintf("probe: %d is not exact in e4m3", v))
	}
	if v == 0 {
		return 0
	}
	e := 0
	for x := v; x > 1; x >>= 1 {
		e++
	}
	return uint8((e+7)<<3 | (v<<(3-e))&7)
}

// decode returns the integer that bits of type e hold, or an error when
// they are not an integer.
func (e elem) decode(bits uint32) (int, error) {
	var f float64
	switch e {
	case elemF16:
		f = f16Value(uint16(bits))
	case elemF32, elemTF32:
		f = float64(math.Float32frombits(bits))
	case elemS32:
		return int(int32(bits)), nil
	default:
		return int(bits), nil
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s %#x (%v) is not an integer", e, bits, f)
	}
	return int(f), nil
}

// f16Bits encodes a non-negative integer that f16 holds exactly (every
// integer below 2048, even ones below 4096, ...) with isa/numfmt's codec.
func f16Bits(v int) uint16 {
	b := numfmt.F16.RoundFloat64(float64(v))
	if v < 0 || numfmt.F16.Float64(b) != float64(v) {
		panic(fmt.Sprintf("probe: %d is not exact in f16", v))
	}
	return uint16(b)
}

// f16Value decodes IEEE half.
func f16Value(h uint16) float64 { return numfmt.F16.Float64(uint64(h)) }

// pack puts vals (each of e's width) into one 32-bit register, the first
// value in the low bits.
func pack(e elem, vals []int) uint32 {
	var r uint32
	w := e.bits()
	for i, v := range vals {
		r |= e.encode(v) << (w * i)
	}
	return r
}

// unpack returns element i of a 32-bit register holding 32/bits(e) values.
func unpack(e elem, reg uint32, i int) uint32 {
	w := e.bits()
	if w == 32 {
		return reg
	}
	return reg >> (w * i) & (1<<w - 1)
}

func le32(b []byte, off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }

func put32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }

func put64(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }
