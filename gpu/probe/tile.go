package probe

import (
	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// operandLayout places an MN×K operand tile in shared memory: a catalog
// shared-memory atom (smem.<major>.<swizzle>.b<bits>) repeated as a
// descriptor's leading and stride byte offsets say. It is the probe's
// prediction of where the hardware reads each (mn, k), built from the
// catalog atom under test.
//
// Atoms repeat along M/N and K with these strides (PTX ISA 9.7.15.5.1.2;
// isa/desc documents the same rules):
//
//	no swizzle (both majors): SBO along M/N, LBO along K
//	K-major, swizzled:        SBO along M/N (LBO along K, never needed here)
//	MN-major, swizzled:       LBO along M/N, SBO along K
type operandLayout struct {
	atom     catalog.Atom
	major    desc.Major
	swz      desc.Swizzle
	lbo, sbo int // bytes
}

// elemBytes is the atom's element size in bytes.
func (l operandLayout) elemBytes() int { return l.atom.ElemBits / 8 }

// byteOffset is where cell (mn, k) of the operand lies, in bytes from the
// region's start (aligned to the swizzle's repeat).
func (l operandLayout) byteOffset(mn, k int) int {
	i, j := mn/l.atom.Rows, k/l.atom.Cols
	var base int
	if l.major == desc.MajorMN && l.swz != desc.SwizzleNone {
		base = i*l.lbo + j*l.sbo
	} else {
		base = i*l.sbo + j*l.lbo
	}
	return base + l.atom.Offset(mn%l.atom.Rows, k%l.atom.Cols)*l.elemBytes()
}

// smemGeometry is one way a probe lays out a 64×K (or N×K) operand.
type smemGeometry struct {
	major    desc.Major
	swz      desc.Swizzle
	lbo, sbo int
	// slices is the number of K slices of one instruction's K (32 bytes)
	// that cover the atom along K: 2 for K-major 64B, 4 for K-major 128B.
	slices int
}

// swizzleBytes is the swizzle row width in bytes (16 for none).
func swizzleBytes(s desc.Swizzle) int {
	if s == desc.SwizzleNone {
		return 16
	}
	return s.Bytes()
}

// geometry returns the dense layout the probes use for an operand of 64
// (A) rows along M/N, 32 bytes along K, in major m with swizzle s. Every
// atom starts on a multiple of the swizzle's repeat.
func geometry(m desc.Major, s desc.Swizzle) smemGeometry {
	w := swizzleBytes(s)
	switch {
	case s == desc.SwizzleNone && m == desc.MajorK:
		// Core matrices 8 rows x 16 bytes: the two along K side by side.
		return smemGeometry{m, s, 128, 256, 1}
	case s == desc.SwizzleNone:
		// MN-major core matrices 16 bytes of M/N x 8 rows of K: eight
		// along M/N 128 bytes apart, the two K groups 1024 apart.
		return smemGeometry{m, s, 1024, 128, 1}
	case m == desc.MajorK:
		// 8-row atoms of w-byte rows stacked along M/N; LBO is unused.
		return smemGeometry{m, s, 16, 8 * w, w / 32}
	}
	// MN-major: atoms of w bytes of M/N x 8 rows of K; the two K groups of
	// an atom 8w apart, atoms along M/N 16w apart.
	return smemGeometry{m, s, 16 * w, 8 * w, 1}
}

// smemKey is the catalog key of a shared-memory atom.
func smemKey(m desc.Major, s desc.Swizzle, bits int) catalog.SmemKey {
	k := catalog.SmemKey{MN: m == desc.MajorMN, Atom32: s == desc.Swizzle128B32A, Bits: bits}
	if s != desc.SwizzleNone {
		k.Swizzle = s.Bytes()
	}
	return k
}

// layoutFor builds the prediction for geometry g with the catalog's atom
// for elements of the given width.
func layoutFor(g smemGeometry, bits int) (operandLayout, error) {
	a, err := catalog.FindSmem(smemKey(g.major, g.swz, bits))
	if err != nil {
		return operandLayout{}, err
	}
	return operandLayout{atom: a, major: g.major, swz: g.swz, lbo: g.lbo, sbo: g.sbo}, nil
}

// descriptor encodes a wgmma descriptor for g at start (relative to the
// 1024-byte-aligned shared buffer), with the ISA's base offset.
func (g smemGeometry) descriptor(start int) uint64 {
	d, err := desc.NewWGMMA(uint32(start), uint32(g.lbo), uint32(g.sbo), g.swz, 0)
	if err != nil {
		panic("probe: " + err.Error())
	}
	v, err := d.Encode()
	if err != nil {
		panic("probe: " + err.Error())
	}
	return v
}
