package datapath_test

import (
	"fmt"
	"math"

	"github.com/tcsim/tcsim/sim/datapath"
)

// An NVFP4 dot product (tcgen05.mma kind::mxf4nvf4 with 16-element blocks
// and ue4m3 scale factors): each run of 16 e2m1 products is summed exactly
// and scaled by its two scale factors. Not hardware-verified.
func ExampleBlockScaled_Dot() {
	in, err := datapath.ParseInst("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
		datapath.TCOptions{M: 128, N: 8, ScaleType: "ue4m3"})
	if err != nil {
		panic(err)
	}
	a := make([]uint64, in.K)               // one row of A: e2m1 codes
	b := make([]uint64, in.K)               // one column of B
	a[0], b[0] = 0x7, 0x4                   // 6 × 2
	a[16], b[16] = 0x2, 0xa                 // 1 × -1
	sfa := []uint64{0x38, 0x40, 0x38, 0x38} // ue4m3: 1, 2, 1, 1
	sfb := []uint64{0x3c, 0x38, 0x38, 0x38} // 1.5, 1, 1, 1
	d := in.Block.Dot(a, b, sfa, sfb, uint64(math.Float32bits(0.5)))
	fmt.Println(in.Source, math.Float32frombits(uint32(d)))
	// Output: not hardware-verified 16.5
}

// The instruction descriptor can stand in for the shape and type flags.
func ExampleParseInst_idesc() {
	in, err := datapath.ParseInst("tcgen05.mma.cta_group::1.kind::f16",
		datapath.TCOptions{IDesc: 0x08400490, HasIDesc: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("m%dn%dk%d .%s×.%s→.%s (%s)\n", in.M, in.N, in.K, in.A, in.B, in.C, in.Source)
	// Output: m128n256k16 .bf16×.bf16→.f32 (not hardware-verified)
}
