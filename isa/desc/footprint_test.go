package desc

import (
	"fmt"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// cuteCase is an operand tile laid out by a CuTe shared-memory atom
// (element (mn, k) -> element offset, times the element size in bytes), tiled to the operand's shape
// with tile_to_shape, the way CUTLASS builds the layouts its descriptors
// describe. The reference address of an element is the atom's swizzle
// applied to base + offset, computed with the layouts package: an
// implementation independent of Footprint's formulas.
type cuteCase struct {
	name     string
	major    Major
	swz      Swizzle
	atom     string // "Sw<B,M,S> o LAYOUT": the layout in elements, (MN, K) coordinates; the swizzle on byte addresses
	elemBits int
	mn, k    int // operand tile
	tileK    int // K extent of the whole stored tile (>= k), for K-advance
	kOff     int // first K element the descriptor starts at
	lbo, sbo func(l layouts.Layout, at func(mn, k int) int) uint32
}

func strideAt(from, to [2]int) func(l layouts.Layout, at func(mn, k int) int) uint32 {
	return func(_ layouts.Layout, at func(mn, k int) int) uint32 {
		return uint32(at(to[0], to[1]) - at(from[0], from[1]))
	}
}

func constant(v uint32) func(layouts.Layout, func(int, int) int) uint32 {
	return func(layouts.Layout, func(int, int) int) uint32 { return v }
}

var cuteCases = []cuteCase{
	// K-major: LBO is not used with a swizzle; SBO = the step to the next 8 rows.
	{name: "K SW128 bf16 64x16", major: MajorK, swz: Swizzle128B, atom: "Sw<3,4,3> o (8,64):(64,1)", elemBits: 16, mn: 64, k: 16, tileK: 64,
		lbo: constant(16), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	{name: "K SW128 bf16 64x16 second K block", major: MajorK, swz: Swizzle128B, atom: "Sw<3,4,3> o (8,64):(64,1)", elemBits: 16, mn: 64, k: 16, tileK: 64, kOff: 16,
		lbo: constant(16), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	{name: "K SW128 bf16 64x16 last K block", major: MajorK, swz: Swizzle128B, atom: "Sw<3,4,3> o (8,64):(64,1)", elemBits: 16, mn: 64, k: 16, tileK: 64, kOff: 48,
		lbo: constant(16), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	{name: "K SW64 e4m3 128x32", major: MajorK, swz: Swizzle64B, atom: "Sw<2,4,3> o (8,64):(64,1)", elemBits: 8, mn: 128, k: 32, tileK: 64,
		lbo: constant(16), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	{name: "K SW32 tf32 64x8", major: MajorK, swz: Swizzle32B, atom: "Sw<1,4,3> o (8,8):(8,1)", elemBits: 32, mn: 64, k: 8, tileK: 8,
		lbo: constant(16), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	// K-major no swizzle: the atom is one core matrix; LBO = the step to the next 16 bytes of K.
	{name: "K none bf16 64x16", major: MajorK, swz: SwizzleNone, atom: "(8,8):(8,1)", elemBits: 16, mn: 64, k: 16, tileK: 16,
		lbo: strideAt([2]int{0, 0}, [2]int{0, 8}), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	{name: "K none s8 256x32", major: MajorK, swz: SwizzleNone, atom: "(8,16):(16,1)", elemBits: 8, mn: 256, k: 32, tileK: 32,
		lbo: strideAt([2]int{0, 0}, [2]int{0, 16}), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	// MN-major swizzled: LBO = the step to the next swizzle atom along M/N, SBO = the next 8 K rows.
	{name: "MN SW128 bf16 128x16", major: MajorMN, swz: Swizzle128B, atom: "Sw<3,4,3> o (64,8):(1,64)", elemBits: 16, mn: 128, k: 16, tileK: 16,
		lbo: strideAt([2]int{0, 0}, [2]int{64, 0}), sbo: strideAt([2]int{0, 0}, [2]int{0, 8})},
	{name: "MN SW64 f16 64x16", major: MajorMN, swz: Swizzle64B, atom: "Sw<2,4,3> o (32,8):(1,32)", elemBits: 16, mn: 64, k: 16, tileK: 16,
		lbo: strideAt([2]int{0, 0}, [2]int{32, 0}), sbo: strideAt([2]int{0, 0}, [2]int{0, 8})},
	{name: "MN SW32 bf16 32x32", major: MajorMN, swz: Swizzle32B, atom: "Sw<1,4,3> o (16,8):(1,16)", elemBits: 16, mn: 32, k: 32, tileK: 32,
		lbo: strideAt([2]int{0, 0}, [2]int{16, 0}), sbo: strideAt([2]int{0, 0}, [2]int{0, 8})},
	// MN-major no swizzle: SBO = the step to the next 16 bytes of M/N, LBO = the next 8 K rows.
	{name: "MN none bf16 64x16", major: MajorMN, swz: SwizzleNone, atom: "(8,8):(1,8)", elemBits: 16, mn: 64, k: 16, tileK: 16,
		lbo: strideAt([2]int{0, 0}, [2]int{0, 8}), sbo: strideAt([2]int{0, 0}, [2]int{8, 0})},
	// 128B with 32-byte atomicity: MN-major tf32, 4 K rows per atom; SBO = the next 4 K rows.
	{name: "MN SW128-32A tf32 64x8", major: MajorMN, swz: Swizzle128B32A, atom: "Sw<2,5,2> o (32,4):(1,32)", elemBits: 32, mn: 64, k: 8, tileK: 8,
		lbo: strideAt([2]int{0, 0}, [2]int{32, 0}), sbo: strideAt([2]int{0, 0}, [2]int{0, 4})},
}

func TestFootprintMatchesCuTeLayouts(t *testing.T) {
	for _, c := range cuteCases {
		t.Run(c.name, func(t *testing.T) {
			atom, err := layouts.ParseAnyLayout(c.atom)
			if err != nil {
				t.Fatal(err)
			}
			sw := layouts.Swizzle{}
			if atom.Composed {
				sw = atom.C.Swizzle
			}
			tile, err := layouts.TileToShape(atom.Inner(), layouts.Ints(c.mn, c.tileK))
			if err != nil {
				t.Fatal(err)
			}
			at := func(mn, k int) int {
				off, err := tile.Crd2Idx(layouts.Ints(mn, k))
				if err != nil {
					t.Fatalf("Crd2Idx(%d,%d): %v", mn, k, err)
				}
				return off * c.elemBits / 8
			}
			for _, base := range []uint32{0x0, 0x400, 0x2000, 0x1c000} {
				ref := func(mn, k int) uint32 { return uint32(sw.Apply(int(base) + at(mn, k))) }
				eb := c.elemBits / 8
				start := base + uint32(at(0, c.kOff)) // the descriptor's start: the first element, unswizzled
				l := SmemLayout{Start: start, LBO: c.lbo(tile, at), SBO: c.sbo(tile, at), Swizzle: c.swz}
				reads, err := Footprint(l, Operand{Major: c.major, ElemBits: c.elemBits, MN: c.mn, K: c.k})
				if err != nil {
					t.Fatal(err)
				}
				nMN, nK, _ := Operand{Major: c.major, ElemBits: c.elemBits, MN: c.mn, K: c.k}.Geometry()
				if len(reads) != nMN*nK*8 {
					t.Fatalf("%d reads, want %d", len(reads), nMN*nK*8)
				}
				seen := map[string]bool{}
				for _, r := range reads {
					for mn := r.MN0; mn < r.MN1; mn++ {
						for k := r.K0; k < r.K1; k++ {
							seen[fmt.Sprint(mn, k)] = true
							var off uint32
							if c.major == MajorK {
								off = uint32((k - r.K0) * eb)
							} else {
								off = uint32((mn - r.MN0) * eb)
							}
							if want := ref(mn, k+c.kOff); r.Addr+off != want {
								t.Fatalf("base %#x: core %d row %d element (%d,%d) read at %#x, CuTe layout puts it at %#x",
									base, r.Core, r.Row, mn, k, r.Addr+off, want)
							}
						}
					}
				}
				if len(seen) != c.mn*c.k {
					t.Fatalf("reads cover %d elements, want %d", len(seen), c.mn*c.k)
				}
				if ov := Overlaps(reads); len(ov) != 0 {
					t.Fatalf("canonical layout has %d overlaps", len(ov))
				}
			}
		})
	}
}

// REFERENCES.md fact 4 (checked on an H100): for a K-major operand with
// no swizzle, LBO is the distance between the two core matrices adjacent
// along K.
func TestFootprintLBOIsKStepForKMajorNoSwizzle(t *testing.T) {
	l := SmemLayout{Start: 0x1000, LBO: 0x300, SBO: 0x80, Swizzle: SwizzleNone}
	reads, err := Footprint(l, Operand{Major: MajorK, ElemBits: 16, MN: 8, K: 16})
	if err != nil {
		t.Fatal(err)
	}
	var k0, k1 CoreMatrixRead
	for _, r := range reads {
		if r.Row == 0 && r.CoreK == 0 {
			k0 = r
		}
		if r.Row == 0 && r.CoreK == 1 {
			k1 = r
		}
	}
	if k1.Addr-k0.Addr != 0x300 || k0.K0 != 0 || k1.K0 != 8 {
		t.Errorf("K-adjacent core matrices at %#x and %#x (K %d and %d), want LBO 0x300 apart", k0.Addr, k1.Addr, k0.K0, k1.K0)
	}
}

// Base offset 0 reads the absolute-address pattern (what TMA writes) at
// any start; base offset b reads row r with the phase of row r - b, as the
// H100 does (fixtures/desc/desc_probe_h100.bin, TestProbeRecordedH100).
func TestFootprintBaseOffsetPhase(t *testing.T) {
	op := Operand{Major: MajorK, ElemBits: 16, MN: 8, K: 8}
	for _, start := range []uint32{0x400, 0x480, 0x700} {
		abs := SmemLayout{Start: start, SBO: 1024, Swizzle: Swizzle128B}
		ra, _ := Footprint(abs, op)
		for b := 1; b < 8; b++ {
			shifted := abs
			shifted.BaseOffset = b
			rs, _ := Footprint(shifted, op)
			for i := range ra {
				if want := Swizzle128B.Apply(ra[i].Linear); ra[i].Addr != want {
					t.Fatalf("base 0 at %#x: row %d at %#x, absolute swizzle gives %#x", start, ra[i].Row, ra[i].Addr, want)
				}
				back := rs[i].Linear - uint32(b)*128 // the row b rows below has the phase used
				if want := Swizzle128B.Apply(back) + uint32(b)*128; rs[i].Addr != want {
					t.Fatalf("base %d at %#x: row %d at %#x, want %#x", b, start, rs[i].Row, rs[i].Addr, want)
				}
				if rs[i].Addr == ra[i].Addr {
					t.Fatalf("base %d at %#x: row %d reads the same address %#x as base 0", b, start, rs[i].Row, rs[i].Addr)
				}
			}
		}
	}
}

func TestFootprintRejects(t *testing.T) {
	l := SmemLayout{SBO: 1024, Swizzle: Swizzle128B}
	for _, op := range []Operand{
		{Major: MajorUnknown, ElemBits: 16, MN: 64, K: 16},
		{Major: MajorK, ElemBits: 16, MN: 60, K: 16},
		{Major: MajorK, ElemBits: 16, MN: 64, K: 12},
		{Major: MajorMN, ElemBits: 16, MN: 12, K: 16},
		{Major: MajorMN, ElemBits: 16, MN: 64, K: 12},
		{Major: MajorK, ElemBits: 0, MN: 64, K: 16},
		{Major: MajorK, ElemBits: 6, MN: 64, K: 16},
	} {
		if _, err := Footprint(l, op); err == nil {
			t.Errorf("Footprint(%+v) succeeded", op)
		}
	}
	if _, err := Footprint(SmemLayout{Swizzle: SwizzleUnknown}, Operand{Major: MajorK, ElemBits: 16, MN: 8, K: 8}); err == nil {
		t.Error("unknown swizzle accepted")
	}
	if _, err := Footprint(SmemLayout{Swizzle: Swizzle128B32A}, Operand{Major: MajorK, ElemBits: 32, MN: 8, K: 4}); err == nil {
		t.Error("128B-32A accepted for K-major")
	}
}
