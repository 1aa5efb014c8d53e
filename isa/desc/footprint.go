package desc

import (
	"fmt"
	"sort"
)

// SmemLayout is a shared-memory descriptor in bytes, independent of its
// encoding: what the tensor core uses to find an operand's core matrices.
type SmemLayout struct {
	Arch        Arch
	Start       uint32 // matrix start address (bytes)
	LBO         uint32 // leading dimension byte offset; an address when LBOAbsolute
	SBO         uint32 // stride dimension byte offset
	LBOAbsolute bool   // tcgen05 bit 52: LBO is the absolute address of the second K chunk
	BaseOffset  int    // the base offset field (swizzle phase at Start, in 128-byte rows)
	Swizzle     Swizzle
}

// Operand is the shape of the operand tile the descriptor describes.
type Operand struct {
	Major    Major
	ElemBits int // bits per element in shared memory (ElemBits)
	MN       int // extent along M (operand A) or N (operand B), in elements
	K        int // extent along K, in elements
}

// CoreMatrixRead is one 16-byte row of one core matrix: the bytes of
// shared memory the tensor core reads for it.
//
// A core matrix is 8 rows of 16 bytes. For a K-major operand its rows are
// 8 consecutive M/N indices and each row holds 16 bytes of K; for an
// MN-major operand its rows are 8 consecutive K indices and each row holds
// 16 bytes of M/N. Core matrices are numbered along M/N first:
// Core = CoreK*(number of core matrices along M/N) + CoreMN.
type CoreMatrixRead struct {
	Core   int    // core matrix number
	CoreMN int    // its index along M/N
	CoreK  int    // its index along K
	Row    int    // row within the core matrix, 0-7
	MN0    int    // first M/N element index of the row's data
	MN1    int    // one past the last M/N element
	K0     int    // first K element
	K1     int    // one past the last K element
	Linear uint32 // the address before the swizzle
	Addr   uint32 // the address read: the first of 16 bytes
	Bytes  int    // 16
}

// Geometry reports how many core matrices the operand has along M/N and K.
func (op Operand) Geometry() (alongMN, alongK int, err error) {
	if op.ElemBits <= 0 || 128%op.ElemBits != 0 {
		return 0, 0, fmt.Errorf("element size %d bits does not divide 16 bytes", op.ElemBits)
	}
	per := 128 / op.ElemBits // elements per 16-byte row
	switch op.Major {
	case MajorK:
		if op.MN%8 != 0 {
			return 0, 0, fmt.Errorf("tile M/N extent %d is not a multiple of 8 rows (a core matrix has 8 rows)", op.MN)
		}
		if op.K%per != 0 {
			return 0, 0, fmt.Errorf("tile K extent %d is not a multiple of %d elements (16 bytes of %d-bit elements)", op.K, per, op.ElemBits)
		}
		return op.MN / 8, op.K / per, nil
	case MajorMN:
		if op.MN%per != 0 {
			return 0, 0, fmt.Errorf("tile M/N extent %d is not a multiple of %d elements (16 bytes of %d-bit elements)", op.MN, per, op.ElemBits)
		}
		if op.K%8 != 0 {
			return 0, 0, fmt.Errorf("tile K extent %d is not a multiple of 8 rows (a core matrix has 8 rows)", op.K)
		}
		return op.MN / per, op.K / 8, nil
	}
	return 0, 0, fmt.Errorf("the operand's major-ness is unknown (say K or MN)")
}

// Footprint computes the shared-memory bytes each core matrix of the
// operand reads under layout l, with the swizzle applied. The result is
// ordered by core matrix and row.
//
// The canonical layouts (PTX ISA 9.7.15.5.1.2 and 9.7.16.3; the same as
// CuTe's make_gmma_desc / make_umma_desc), with W the swizzle width in
// 16-byte units (1, 2, 4, 8), s the strided index (M/N row for K-major, K
// row for MN-major) and c the 16-byte column (along K for K-major, along
// M/N for MN-major):
//
//	K-major,  no swizzle: Start + (s/8)*SBO + (s%8)*16 + c*LBO
//	K-major,  swizzled:   Start + (s/8)*SBO + (s%8)*16W + (c%W)*16 + (c/W)*LBO
//	MN-major, no swizzle: Start + c*SBO + (s/8)*LBO + (s%8)*16
//	MN-major, swizzled:   Start + (c%W)*16 + (c/W)*LBO + (s%8)*16W + (s/8)*SBO
//	MN-major, 128B-32A:   as swizzled with W=8 but 4-row groups: (s%4)*128 + (s/4)*SBO
//
// For K-major swizzled operands the ISA says LBO is unused; the (c/W)*LBO
// term only matters for a K extent wider than the swizzle row, which no
// dense MMA has, and is this model's assumption. With LBOAbsolute,
// K-major columns c >= 2 are read from LBO (an address) instead.
//
// The swizzle XOR takes its row phase from the absolute address minus the
// base offset: ((addr>>7) - BaseOffset) modulo the pattern's rows (8 for
// 128B, 4 for 64B, 2 for 32B). With base offset 0 that is the pattern TMA
// writes, which depends only on the absolute shared-memory address; a base
// offset b shifts the pattern so that the row b rows below the start is
// row 0 (the ISA's value (addr>>7)&7 anchors it at the start address).
// This reading was measured on an H100 (fixtures/desc, tcsim desc probe);
// for tcgen05 (sm_100a) it is assumed the same, not hardware-verified.
func Footprint(l SmemLayout, op Operand) ([]CoreMatrixRead, error) {
	nMN, nK, err := op.Geometry()
	if err != nil {
		return nil, err
	}
	if l.Swizzle == SwizzleUnknown {
		return nil, fmt.Errorf("the swizzle mode is invalid, so the layout is unknown")
	}
	if l.Swizzle == Swizzle128B32A && op.Major == MajorK {
		return nil, fmt.Errorf("128B swizzle with 32-byte atomicity exists only for MN-major operands")
	}
	if nMN*nK*8 > 1<<16 {
		return nil, fmt.Errorf("tile of %d core matrices is too large to draw", nMN*nK)
	}
	per := 128 / op.ElemBits
	w := uint32(l.Swizzle.Bytes() / 16)
	out := make([]CoreMatrixRead, 0, nMN*nK*8)
	for j := 0; j < nK; j++ {
		for i := 0; i < nMN; i++ {
			for r := 0; r < 8; r++ {
				cm := CoreMatrixRead{Core: j*nMN + i, CoreMN: i, CoreK: j, Row: r, Bytes: 16}
				var lin uint32
				if op.Major == MajorK {
					s, c := uint32(8*i+r), uint32(j)
					cm.MN0, cm.MN1 = int(s), int(s)+1
					cm.K0, cm.K1 = j*per, (j+1)*per
					base := l.Start
					if l.LBOAbsolute && c >= 2 {
						base, c = l.LBO, c-2
					}
					if l.Swizzle == SwizzleNone {
						lin = base + s/8*l.SBO + s%8*16 + c*l.LBO
					} else {
						lin = base + s/8*l.SBO + s%8*16*w + c%w*16
						if !l.LBOAbsolute {
							lin += c / w * l.LBO
						}
					}
				} else {
					s, c := uint32(8*j+r), uint32(i)
					cm.K0, cm.K1 = int(s), int(s)+1
					cm.MN0, cm.MN1 = i*per, (i+1)*per
					switch l.Swizzle {
					case SwizzleNone:
						lin = l.Start + c*l.SBO + s/8*l.LBO + s%8*16
					case Swizzle128B32A:
						lin = l.Start + c%8*16 + c/8*l.LBO + s%4*128 + s/4*l.SBO
					default:
						lin = l.Start + c%w*16 + c/w*l.LBO + s%8*16*w + s/8*l.SBO
					}
				}
				cm.Linear = lin
				cm.Addr = l.swizzle(lin)
				out = append(out, cm)
			}
		}
	}
	return out, nil
}

// swizzle applies l's swizzle to a linear address with the phase the base
// offset sets (see Footprint).
func (l SmemLayout) swizzle(lin uint32) uint32 {
	if l.Swizzle.Repeat() == 0 {
		return lin
	}
	phase := int64(lin>>7) - int64(l.BaseOffset)
	return l.Swizzle.applyPhase(lin, uint32(phase&0xFF))
}

// Overlap is two core-matrix rows that read the same 16 bytes.
type Overlap struct{ A, B CoreMatrixRead }

// Overlaps finds rows of different core matrices (or different rows of one
// core matrix) that read the same bytes. A correct descriptor has none:
// every element of the operand lives at its own address.
func Overlaps(reads []CoreMatrixRead) []Overlap {
	idx := make([]int, len(reads))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return reads[idx[a]].Addr < reads[idx[b]].Addr })
	var out []Overlap
	for n := 1; n < len(idx); n++ {
		a, b := reads[idx[n-1]], reads[idx[n]]
		if a.Addr+uint32(a.Bytes) > b.Addr {
			out = append(out, Overlap{a, b})
		}
	}
	return out
}

// Span is the lowest address read and one past the highest.
func Span(reads []CoreMatrixRead) (lo, hi uint32) {
	if len(reads) == 0 {
		return 0, 0
	}
	lo, hi = reads[0].Addr, reads[0].Addr+uint32(reads[0].Bytes)
	for _, r := range reads[1:] {
		lo = min(lo, r.Addr)
		hi = max(hi, r.Addr+uint32(r.Bytes))
	}
	return lo, hi
}
