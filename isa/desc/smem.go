package desc

import (
	"fmt"
	"math/bits"
	"strings"
)

// SmemLimit is the shared memory of one sm_90 or sm_100 SM: 228 KiB. A
// descriptor that reaches past it makes the MMA fault with an illegal
// memory access (REFERENCES.md fact 4: it does not read garbage).
const SmemLimit = 228 << 10

// encodeAddr is the ISA's matrix-descriptor-encode: (x & 0x3FFFF) >> 4.
func encodeAddr(x uint32) uint16 { return uint16((x & 0x3FFFF) >> 4) }

// WGMMA is the 64-bit shared-memory matrix descriptor that
// wgmma.mma_async takes for an operand in shared memory on sm_90a (PTX ISA
// 9.7.15.5.1.2.2, "Matrix Descriptor Format").
//
//	bits   field
//	0-13   StartAddr   matrix start address: (addr & 0x3FFFF) >> 4
//	16-29  LBO         leading dimension byte offset >> 4
//	32-45  SBO         stride dimension byte offset >> 4
//	49-51  BaseOffset  phase of the swizzle pattern at the start address
//	62-63  LayoutType  swizzle: 0 none, 1 128B, 2 64B, 3 32B
//
// Bits 14-15, 30-31, 46-48 and 52-61 are unused and must be 0; Reserved
// keeps whatever a decoded value had there, so that decoding and encoding
// round-trip every 64-bit value.
type WGMMA struct {
	StartAddr  uint16 // 14 bits: byte address >> 4
	LBO        uint16 // 14 bits: leading dimension byte offset >> 4
	SBO        uint16 // 14 bits: stride dimension byte offset >> 4
	BaseOffset uint8  // 3 bits
	LayoutType uint8  // 2 bits: 0 none, 1 128B, 2 64B, 3 32B
	Reserved   uint64 // bits outside the fields, in place; must be 0
}

const (
	wgmmaFieldMask   = 0x3FFF | 0x3FFF<<16 | 0x3FFF<<32 | 7<<49 | 3<<62
	wgmmaReservedMsk = ^uint64(wgmmaFieldMask)
)

// DecodeWGMMA splits a wgmma descriptor into its fields. Every value
// decodes; Check says what is wrong with it.
func DecodeWGMMA(v uint64) WGMMA {
	return WGMMA{
		StartAddr:  uint16(v & 0x3FFF),
		LBO:        uint16(v >> 16 & 0x3FFF),
		SBO:        uint16(v >> 32 & 0x3FFF),
		BaseOffset: uint8(v >> 49 & 7),
		LayoutType: uint8(v >> 62 & 3),
		Reserved:   v & wgmmaReservedMsk,
	}
}

// Encode packs d into its 64-bit value. It fails, naming the field, when
// a field does not fit its bits or Reserved has bits inside a field.
func (d WGMMA) Encode() (uint64, error) {
	if err := checkWidths([]fieldWidth{
		{"start address", uint64(d.StartAddr), 14},
		{"leading byte offset", uint64(d.LBO), 14},
		{"stride byte offset", uint64(d.SBO), 14},
		{"base offset", uint64(d.BaseOffset), 3},
		{"layout type", uint64(d.LayoutType), 2},
	}); err != nil {
		return 0, fmt.Errorf("wgmma descriptor: %w", err)
	}
	if d.Reserved&^wgmmaReservedMsk != 0 {
		return 0, fmt.Errorf("wgmma descriptor: Reserved has bits inside fields (%#x)", d.Reserved&^wgmmaReservedMsk)
	}
	return uint64(d.StartAddr) | uint64(d.LBO)<<16 | uint64(d.SBO)<<32 |
		uint64(d.BaseOffset)<<49 | uint64(d.LayoutType)<<62 | d.Reserved, nil
}

// Swizzle is the swizzle mode the layout type selects.
func (d WGMMA) Swizzle() Swizzle { return SwizzleFromSM90(d.LayoutType) }

// Layout is d in bytes, as the footprint computation uses it.
func (d WGMMA) Layout() SmemLayout {
	return SmemLayout{
		Arch: SM90, Start: uint32(d.StartAddr) << 4, LBO: uint32(d.LBO) << 4, SBO: uint32(d.SBO) << 4,
		BaseOffset: int(d.BaseOffset), Swizzle: d.Swizzle(),
	}
}

// NewWGMMA builds a wgmma descriptor from byte values: the shared-memory
// start address and the leading and stride byte offsets. The address is
// reduced as the ISA's matrix-descriptor-encode does ((x & 0x3FFFF) >> 4);
// the offsets must be 16-byte multiples below 256 KiB. The base offset
// (0-7) shifts the swizzle pattern by that many 128-byte rows; 0 reads the
// pattern TMA writes (see Footprint).
func NewWGMMA(addr, lbo, sbo uint32, swz Swizzle, baseOffset int) (WGMMA, error) {
	code, ok := swz.SM90Code()
	if !ok {
		return WGMMA{}, fmt.Errorf("swizzle: %s does not exist on sm_90a (wgmma has none, 32B, 64B and 128B)", swz)
	}
	if err := checkByteFields(addr, lbo, sbo); err != nil {
		return WGMMA{}, err
	}
	bo, err := baseOffsetBits(baseOffset)
	if err != nil {
		return WGMMA{}, err
	}
	return WGMMA{StartAddr: encodeAddr(addr), LBO: uint16(lbo >> 4), SBO: uint16(sbo >> 4), BaseOffset: bo, LayoutType: code}, nil
}

// TCGen05Smem is the 64-bit shared-memory descriptor that tcgen05.mma and
// tcgen05.cp take on sm_100a (PTX ISA 9.7.16.4.1, "Shared memory
// descriptor").
//
//	bits   field
//	0-13   StartAddr   matrix start address: (addr & 0x3FFFF) >> 4
//	16-29  LBO         leading dimension byte offset >> 4 (or byte address >> 4 in absolute mode)
//	32-45  SBO         stride dimension byte offset >> 4
//	46-48  Version     fixed 0b001
//	49-51  BaseOffset  phase of the swizzle pattern at the start address
//	52     LBOMode     0 relative offset, 1 absolute address (sm_103a only)
//	53-60  (fixed 0)
//	61-63  Swizzle     0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B
//
// Bits 14-15, 30-31 and 53-60 must be 0; Reserved keeps what a decoded
// value had there.
type TCGen05Smem struct {
	StartAddr   uint16 // 14 bits: byte address >> 4
	LBO         uint16 // 14 bits
	SBO         uint16 // 14 bits
	Version     uint8  // 3 bits: must be 1
	BaseOffset  uint8  // 3 bits
	LBOMode     uint8  // 1 bit: 0 relative, 1 absolute
	SwizzleCode uint8  // 3 bits: 0, 1, 2, 4, 6 (3, 5, 7 invalid)
	Reserved    uint64 // bits outside the fields, in place; must be 0
}

const (
	tcFieldMask   = 0x3FFF | 0x3FFF<<16 | 0x3FFF<<32 | 7<<46 | 7<<49 | 1<<52 | 7<<61
	tcReservedMsk = ^uint64(tcFieldMask)
	// TCGen05Version is the value bits 46-48 must hold.
	TCGen05Version = 1
)

// DecodeTCGen05Smem splits a tcgen05 shared-memory descriptor into its
// fields. Every value decodes; Check says what is wrong with it.
func DecodeTCGen05Smem(v uint64) TCGen05Smem {
	return TCGen05Smem{
		StartAddr:   uint16(v & 0x3FFF),
		LBO:         uint16(v >> 16 & 0x3FFF),
		SBO:         uint16(v >> 32 & 0x3FFF),
		Version:     uint8(v >> 46 & 7),
		BaseOffset:  uint8(v >> 49 & 7),
		LBOMode:     uint8(v >> 52 & 1),
		SwizzleCode: uint8(v >> 61 & 7),
		Reserved:    v & tcReservedMsk,
	}
}

// Encode packs d into its 64-bit value. It fails, naming the field, when
// a field does not fit its bits or Reserved has bits inside a field.
func (d TCGen05Smem) Encode() (uint64, error) {
	if err := checkWidths([]fieldWidth{
		{"start address", uint64(d.StartAddr), 14},
		{"leading byte offset", uint64(d.LBO), 14},
		{"stride byte offset", uint64(d.SBO), 14},
		{"version", uint64(d.Version), 3},
		{"base offset", uint64(d.BaseOffset), 3},
		{"LBO mode", uint64(d.LBOMode), 1},
		{"swizzle", uint64(d.SwizzleCode), 3},
	}); err != nil {
		return 0, fmt.Errorf("tcgen05 shared-memory descriptor: %w", err)
	}
	if d.Reserved&^tcReservedMsk != 0 {
		return 0, fmt.Errorf("tcgen05 shared-memory descriptor: Reserved has bits inside fields (%#x)", d.Reserved&^tcReservedMsk)
	}
	return uint64(d.StartAddr) | uint64(d.LBO)<<16 | uint64(d.SBO)<<32 | uint64(d.Version)<<46 |
		uint64(d.BaseOffset)<<49 | uint64(d.LBOMode)<<52 | uint64(d.SwizzleCode)<<61 | d.Reserved, nil
}

// Swizzle is the swizzle mode of the code, or SwizzleUnknown for the
// invalid codes 3, 5 and 7.
func (d TCGen05Smem) Swizzle() Swizzle { return SwizzleFromSM100(d.SwizzleCode) }

// Layout is d in bytes, as the footprint computation uses it.
func (d TCGen05Smem) Layout() SmemLayout {
	return SmemLayout{
		Arch: SM100, Start: uint32(d.StartAddr) << 4, LBO: uint32(d.LBO) << 4, SBO: uint32(d.SBO) << 4,
		LBOAbsolute: d.LBOMode == 1, BaseOffset: int(d.BaseOffset), Swizzle: d.Swizzle(),
	}
}

// NewTCGen05Smem builds a tcgen05 shared-memory descriptor from byte
// values, with the version bits set and relative LBO mode. The address is
// reduced as matrix-descriptor-encode does; the offsets must be 16-byte
// multiples below 256 KiB. The base offset (0-7) is as for NewWGMMA.
func NewTCGen05Smem(addr, lbo, sbo uint32, swz Swizzle, baseOffset int) (TCGen05Smem, error) {
	code, ok := swz.SM100Code()
	if !ok {
		return TCGen05Smem{}, fmt.Errorf("swizzle: %s is not a tcgen05 swizzle mode", swz)
	}
	if err := checkByteFields(addr, lbo, sbo); err != nil {
		return TCGen05Smem{}, err
	}
	bo, err := baseOffsetBits(baseOffset)
	if err != nil {
		return TCGen05Smem{}, err
	}
	return TCGen05Smem{StartAddr: encodeAddr(addr), LBO: uint16(lbo >> 4), SBO: uint16(sbo >> 4),
		Version: TCGen05Version, BaseOffset: bo, SwizzleCode: code}, nil
}

// ISABaseOffset is the base offset the PTX ISA's formula gives for a
// matrix that starts at addr: the pattern's phase at addr in 128-byte rows,
// (addr % repeat) >> 7 (the ISA writes (addr >> 7) & 7, which agrees
// modulo the pattern's row count), 0 for no swizzle. The H100 takes the
// phase from ((addr >> 7) - base offset), so this value anchors the
// pattern at the start address: right for a tile written with its pattern
// starting there, wrong for a tile TMA wrote (TMA's pattern follows the
// absolute address, which base offset 0 reads).
func ISABaseOffset(addr uint32, swz Swizzle) int {
	if swz.Repeat() == 0 {
		return 0
	}
	return int(addr%uint32(swz.Repeat())) >> 7
}

func baseOffsetBits(want int) (uint8, error) {
	if want < 0 || want > 7 {
		return 0, fmt.Errorf("base offset: %d does not fit its 3 bits (0-7)", want)
	}
	return uint8(want), nil
}

func checkByteFields(addr, lbo, sbo uint32) error {
	for _, f := range []struct {
		name string
		v    uint32
	}{{"start address", addr}, {"leading byte offset", lbo}, {"stride byte offset", sbo}} {
		if f.v%16 != 0 {
			return fmt.Errorf("%s: %#x (%d) is not a multiple of 16; the descriptor stores bytes >> 4, so it must be 16-byte aligned", f.name, f.v, f.v)
		}
		if f.name != "start address" && f.v >= 1<<18 {
			return fmt.Errorf("%s: %d bytes does not fit the 14-bit field (bytes >> 4 must be below 16384, so bytes below 262144)", f.name, f.v)
		}
	}
	return nil
}

type fieldWidth struct {
	name  string
	v     uint64
	width int
}

func checkWidths(fs []fieldWidth) error {
	for _, f := range fs {
		if bits.Len64(f.v) > f.width {
			return fmt.Errorf("%s: %d (%#x) does not fit its %d bits (max %d)", f.name, f.v, f.v, f.width, uint64(1)<<f.width-1)
		}
	}
	return nil
}

// bitList names the set bits of v as ranges: "14-15, 46".
func bitList(v uint64) string {
	var parts []string
	for i := 0; i < 64; {
		if v>>i&1 == 0 {
			i++
			continue
		}
		j := i
		for j+1 < 64 && v>>(j+1)&1 == 1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(i))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", i, j))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
