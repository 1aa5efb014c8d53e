package desc

import (
	"fmt"
	"strings"
)

// Arch names the descriptor family: the sm_90a wgmma descriptor or the
// sm_100a tcgen05 descriptors.
type Arch int

const (
	ArchUnknown Arch = iota // not given: detect it
	SM90                    // sm_90a: wgmma.mma_async shared-memory matrix descriptor
	SM100                   // sm_100a: tcgen05.mma shared-memory and instruction descriptors
)

// String returns "sm_90a", "sm_100a" or "unknown".
func (a Arch) String() string {
	switch a {
	case SM90:
		return "sm_90a"
	case SM100:
		return "sm_100a"
	}
	return "unknown"
}

// ParseArch reads an architecture name: sm_90a, sm_90, sm90, 90, hopper,
// wgmma; sm_100a, sm_100, sm100, 100, blackwell, tcgen05 (any case).
func ParseArch(s string) (Arch, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sm_90a", "sm_90", "sm90a", "sm90", "90", "90a", "hopper", "wgmma":
		return SM90, nil
	case "sm_100a", "sm_100", "sm100a", "sm100", "100", "100a", "sm_100f", "sm_103a", "blackwell", "tcgen05", "umma":
		return SM100, nil
	}
	return ArchUnknown, fmt.Errorf("unknown architecture %q (want sm_90a or sm_100a)", s)
}

// Major is the major-ness of an operand in shared memory: which of its
// dimensions is contiguous.
type Major int

const (
	MajorUnknown Major = iota // not given
	MajorK                    // K-major: K is contiguous ("no transpose")
	MajorMN                   // MN-major: M (for A) or N (for B) is contiguous ("transpose")
)

// String returns "K", "MN" or "unknown".
func (m Major) String() string {
	switch m {
	case MajorK:
		return "K"
	case MajorMN:
		return "MN"
	}
	return "unknown"
}

// ParseMajor reads K, MN, M or N (any case; "k-major" and "row"/"col" are
// not accepted because their meaning differs between A and B).
func ParseMajor(s string) (Major, error) {
	switch strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "-major"), "-MAJOR")) {
	case "K":
		return MajorK, nil
	case "MN", "M", "N":
		return MajorMN, nil
	}
	return MajorUnknown, fmt.Errorf("unknown major-ness %q (want K or MN)", s)
}

// Swizzle is a shared-memory swizzling mode, independent of how a given
// descriptor encodes it (the sm_90 and sm_100 codes differ).
type Swizzle int

const (
	SwizzleUnknown Swizzle = iota // not given, or an invalid code
	SwizzleNone                   // no swizzle ("interleave" in CUTLASS's sm_90 names)
	Swizzle32B                    // 32-byte swizzle
	Swizzle64B                    // 64-byte swizzle
	Swizzle128B                   // 128-byte swizzle
	Swizzle128B32A                // sm_100 only: 128-byte swizzle with 32-byte atomicity
)

// String returns the mode as the CLI spells it: none, 32B, 64B, 128B,
// 128B-32A.
func (s Swizzle) String() string {
	switch s {
	case SwizzleNone:
		return "none"
	case Swizzle32B:
		return "32B"
	case Swizzle64B:
		return "64B"
	case Swizzle128B:
		return "128B"
	case Swizzle128B32A:
		return "128B-32A"
	}
	return "unknown"
}

// Describe is a longer name for explanations.
func (s Swizzle) Describe() string {
	switch s {
	case SwizzleNone:
		return "no swizzle"
	case Swizzle32B:
		return "32-byte swizzle"
	case Swizzle64B:
		return "64-byte swizzle"
	case Swizzle128B:
		return "128-byte swizzle"
	case Swizzle128B32A:
		return "128-byte swizzle with 32-byte atomicity"
	}
	return "invalid swizzle"
}

// ParseSwizzle reads none (or 0, interleave, inter), 32B, 64B, 128B, and
// 128B-32A (or 128B_base32B, 128b32). Case and a trailing "swizzle" are
// ignored, as is the letter B ("128" means 128B).
func ParseSwizzle(s string) (Swizzle, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "swizzle_")
	t = strings.TrimPrefix(t, "sw")
	t = strings.NewReplacer("_", "", "-", "", " ", "").Replace(t)
	switch t {
	case "none", "0", "no", "interleave", "inter", "interleaved":
		return SwizzleNone, nil
	case "32b", "32":
		return Swizzle32B, nil
	case "64b", "64":
		return Swizzle64B, nil
	case "128b", "128":
		return Swizzle128B, nil
	case "128b32a", "128bbase32b", "128b32b", "128b32", "128base32b", "12832a", "12832":
		return Swizzle128B32A, nil
	}
	return SwizzleUnknown, fmt.Errorf("unknown swizzle %q (want none, 32B, 64B, 128B or 128B-32A)", s)
}

// Bytes is the width of the swizzle atom's rows: 16 (no swizzle: one
// 16-byte core-matrix row), 32, 64 or 128.
func (s Swizzle) Bytes() int {
	switch s {
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	case Swizzle128B, Swizzle128B32A:
		return 128
	}
	return 16
}

// Repeat is the size in bytes after which the XOR pattern repeats, which
// is also the alignment at which a base offset of 0 is right: 256, 512,
// 1024 and 512 (128B with 32-byte atomicity: four 128-byte rows). It is 0
// for no swizzle.
func (s Swizzle) Repeat() int {
	switch s {
	case Swizzle32B:
		return 256
	case Swizzle64B:
		return 512
	case Swizzle128B:
		return 1024
	case Swizzle128B32A:
		return 512
	}
	return 0
}

// patternRows is the number of 128-byte rows in one repeat of the pattern.
func (s Swizzle) patternRows() int { return s.Repeat() / 128 }

// unitShift is log2 of the swizzled unit: 16 bytes, or 32 for 32-byte
// atomicity.
func (s Swizzle) unitShift() uint {
	if s == Swizzle128B32A {
		return 5
	}
	return 4
}

// Apply swizzles an absolute shared-memory byte address: 128B XORs bits
// [4,7) with bits [7,10) (CuTe Sw<3,4,3>), 64B bits [4,6) with [7,9)
// (Sw<2,4,3>), 32B bit 4 with bit 7 (Sw<1,4,3>), and 128B with 32-byte
// atomicity bits [5,7) with [7,9) (Sw<2,5,2>).
func (s Swizzle) Apply(addr uint32) uint32 {
	return s.applyPhase(addr, addr>>7)
}

// applyPhase XORs the swizzled-unit bits of addr with the low bits of
// rows, the 128-byte row number the pattern is in phase with.
func (s Swizzle) applyPhase(addr, rows uint32) uint32 {
	n := s.patternRows()
	if n == 0 {
		return addr
	}
	return addr ^ ((rows & uint32(n-1)) << s.unitShift())
}

// CuTe returns the swizzle as CuTe's Swizzle<B,M,S> on byte offsets.
func (s Swizzle) CuTe() string {
	switch s {
	case Swizzle32B:
		return "Sw<1,4,3>"
	case Swizzle64B:
		return "Sw<2,4,3>"
	case Swizzle128B:
		return "Sw<3,4,3>"
	case Swizzle128B32A:
		return "Sw<2,5,2>"
	}
	return "Sw<0,4,3>"
}

// xorRule says in words which address bits the swizzle XORs.
func (s Swizzle) xorRule() string {
	switch s {
	case Swizzle32B:
		return "XOR of address bit 4 with bit 7, repeating every 256 B"
	case Swizzle64B:
		return "XOR of address bits [4,6) with bits [7,9), repeating every 512 B"
	case Swizzle128B:
		return "XOR of address bits [4,7) with bits [7,10), repeating every 1024 B"
	case Swizzle128B32A:
		return "XOR of address bits [5,7) with bits [7,9) (32-byte units), repeating every 512 B"
	}
	return "addresses are used as computed"
}

// SM90Code is the 2-bit layout-type code of s in a wgmma descriptor (bits
// 62-63): none 0, 128B 1, 64B 2, 32B 3. ok is false for modes sm_90 lacks.
func (s Swizzle) SM90Code() (code uint8, ok bool) {
	switch s {
	case SwizzleNone:
		return 0, true
	case Swizzle128B:
		return 1, true
	case Swizzle64B:
		return 2, true
	case Swizzle32B:
		return 3, true
	}
	return 0, false
}

// SwizzleFromSM90 decodes a wgmma layout-type code (only the low 2 bits
// are used).
func SwizzleFromSM90(code uint8) Swizzle {
	return [4]Swizzle{SwizzleNone, Swizzle128B, Swizzle64B, Swizzle32B}[code&3]
}

// SM100Code is the 3-bit swizzle code of s in a tcgen05 shared-memory
// descriptor (bits 61-63): none 0, 128B-32A 1, 128B 2, 64B 4, 32B 6.
func (s Swizzle) SM100Code() (code uint8, ok bool) {
	switch s {
	case SwizzleNone:
		return 0, true
	case Swizzle128B32A:
		return 1, true
	case Swizzle128B:
		return 2, true
	case Swizzle64B:
		return 4, true
	case Swizzle32B:
		return 6, true
	}
	return 0, false
}

// SwizzleFromSM100 decodes a tcgen05 swizzle code; the codes 3, 5 and 7
// are invalid and give SwizzleUnknown.
func SwizzleFromSM100(code uint8) Swizzle {
	switch code & 7 {
	case 0:
		return SwizzleNone
	case 1:
		return Swizzle128B32A
	case 2:
		return Swizzle128B
	case 4:
		return Swizzle64B
	case 6:
		return Swizzle32B
	}
	return SwizzleUnknown
}

// Tri is a yes/no answer that may be unknown.
type Tri int8

// The values of a Tri.
const (
	Unknown Tri = iota // not said
	No
	Yes
)

// String returns "unknown", "no" or "yes".
func (t Tri) String() string { return [...]string{"unknown", "no", "yes"}[t] }
