package catalog

import "fmt"

// SmemKey identifies a shared-memory layout atom by typed fields, as a
// program that has decoded a descriptor or a tensor map knows them, so that
// it never formats an atom's name to find it.
type SmemKey struct {
	MN bool // MN-major; K-major when false
	// Swizzle is the swizzle span in bytes: 0 for the interleaved
	// (unswizzled) core-matrix layout, or 32, 64, 128.
	Swizzle int
	// Atom32 selects the 128-byte swizzle with 32-byte atomicity
	// (MN-major tf32 operands of tcgen05).
	Atom32 bool
	Bits   int // element width
}

// String is the atom's catalog name, e.g. smem.k.sw128.b16.
func (k SmemKey) String() string {
	major := "k"
	if k.MN {
		major = "mn"
	}
	sw := "inter"
	if k.Swizzle != 0 {
		sw = fmt.Sprintf("sw%d", k.Swizzle)
	}
	if k.Atom32 {
		sw += "a32"
	}
	return fmt.Sprintf("smem.%s.%s.b%d", major, sw, k.Bits)
}

// FindSmem returns the shared-memory atom of k. The error for a key the
// catalog does not hold lists the nearest names.
func FindSmem(k SmemKey) (Atom, error) {
	load()
	if i, ok := bySmem[k]; ok {
		return atoms[i], nil
	}
	_, err := Lookup(k.String())
	return Atom{}, err
}
