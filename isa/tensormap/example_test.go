package tensormap_test

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/tensormap"
)

func Example() {
	m := &tensormap.Map{
		Kind: tensormap.Tiled, DType: tensormap.BF16, Address: 0x7f3a_0000_0000,
		Dims: []uint64{4096, 4096}, Strides: []uint64{8192},
		Box: []uint32{64, 128}, ElemStrides: []uint32{1, 1},
		Swizzle: tensormap.Swizzle128B, L2: tensormap.L2256B,
	}
	b, err := tensormap.Encode(m)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b[:16])
	d, _ := tensormap.Decode(b)
	fmt.Println(d.Map)
	fmt.Println("unknown bits:", len(d.Unknown), "- bytes per load:", d.Map.TransferBytes())
	// Output:
	// 00 00 00 00 3a 7f 00 00 10 65 06 00 00 02 00 00
	// tiled dtype=bf16 addr=0x7f3a00000000 dims=4096x4096 strides=8192 box=64x128 estrides=1x1 interleave=none swizzle=128B l2=256B oob=zero
	// unknown bits: 0 - bytes per load: 16384
}
