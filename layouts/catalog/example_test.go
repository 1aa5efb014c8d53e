package catalog_test

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts/catalog"
)

func ExampleLookup() {
	a, err := catalog.Lookup("wgmma.m64n64.d.f32")
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Section, a.Threads(), a.Values(), a.TV.Layout)
	// Thread 37 is lane 5 of warp 1; its value 6 is accumulator register 6.
	fmt.Println(a.TV.Coord(37, 6))
	// Output:
	// 9.7.15.5.1.1 128 32 ((4,8,4),(2,2,8)):((128,1,16),(64,8,512))
	// 25 10
}

func ExampleLookup_error() {
	_, err := catalog.Lookup("wgmma.m64n64.f32")
	fmt.Println(err)
	// Output:
	// unknown atom "wgmma.m64n64.f32"; nearest: wgmma.m64n64.d.f32, wgmma.m64n8.d.f32, wgmma.m64n16.d.f32, wgmma.m64n24.d.f32, wgmma.m64n56.d.f32
}

func ExampleFilter() {
	for _, a := range catalog.Filter("ldmatrix x4") {
		fmt.Println(a.Name, a.TV.Layout)
	}
	// Output:
	// ldmatrix.m8n8.x4.b16 ((4,8),(2,4)):((64,1),(32,8))
	// ldmatrix.m8n8.x4.trans.b16 ((4,8),(2,4)):((2,32),(1,8))
}

func ExampleAtom_TMEM() {
	a, _ := catalog.Lookup("tcgen05.tmem.m64n128.d.cta1")
	for _, m := range []int{0, 15, 16, 63} {
		cta, lane, col := a.TMEM(m, 5)
		fmt.Printf("row %d, col 5 -> CTA %d, lane %d, column %d\n", m, cta, lane, col)
	}
	// Output:
	// row 0, col 5 -> CTA 0, lane 0, column 5
	// row 15, col 5 -> CTA 0, lane 15, column 5
	// row 16, col 5 -> CTA 0, lane 32, column 5
	// row 63, col 5 -> CTA 0, lane 111, column 5
}

func ExampleAtom_Offset() {
	a, _ := catalog.Lookup("smem.k.sw128.b16")
	fmt.Println(a.Offsets)
	// Row 1 of the atom: its 16-byte granules (8 elements each) are
	// XOR-ed with 1, so k = 0..7 lands at elements 72..79.
	fmt.Println(a.Offset(1, 0), a.Offset(1, 8))
	// Output:
	// Sw<3,3,3> o 0 o (8,64):(64,1)
	// 72 64
}
