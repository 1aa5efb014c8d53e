package desc_test

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/desc"
)

// Build the descriptor of a K-major bf16 operand stored with 128-byte
// swizzle at shared address 0x400: 8-row groups 1024 bytes apart.
func ExampleNewWGMMA() {
	d, err := desc.NewWGMMA(0x400, 16, 1024, desc.Swizzle128B, 0)
	if err != nil {
		panic(err)
	}
	v, _ := d.Encode()
	fmt.Printf("%#x\n", v)
	fmt.Println(d.StartAddr, d.LBO, d.SBO, d.BaseOffset, d.Swizzle())
	// Output:
	// 0x4000004000010040
	// 64 1 64 0 128B
}

// The same operand for tcgen05: other swizzle codes, and the version bits.
func ExampleNewTCGen05Smem() {
	d, _ := desc.NewTCGen05Smem(0x400, 16, 1024, desc.Swizzle128B, 0)
	v, _ := d.Encode()
	fmt.Printf("%#x version=%d swizzle code=%d\n", v, d.Version, d.SwizzleCode)
	// Output:
	// 0x4000404000010040 version=1 swizzle code=2
}

func ExampleWGMMA_Check() {
	// The tile starts 128 bytes past a 1024-byte boundary and the base
	// offset is the ISA's (addr >> 7) & 7 = 1: the tensor core then reads
	// the swizzle pattern one row off the one TMA wrote there.
	d := desc.DecodeWGMMA(0x4002004000010048)
	for _, f := range d.Check(desc.Context{Major: desc.MajorK}) {
		fmt.Println(f.Severity, f.Field, f.Rule)
	}
	// Output:
	// warning base_offset base-offset-shift
}

func ExampleDecodeIDesc() {
	d := desc.DecodeIDesc(0x08400490, desc.KindF16)
	fmt.Println(d.M(), d.N(), desc.FormatName(d.Kind, d.AType), d.TransposeA, d.Check(desc.IDescContext{}).HasErrors())
	// Output:
	// 128 256 bf16 false false
}

func ExampleNewIDesc() {
	d, err := desc.NewIDesc(desc.IDescSpec{Kind: desc.KindMXF8F6F4, A: "e4m3", B: "e5m2", M: 128, N: 128, ScaleBID: 1})
	if err != nil {
		panic(err)
	}
	v, _ := d.Encode()
	fmt.Printf("%#08x\n", v)
	// Output:
	// 0x08a00410
}

// Which shared-memory bytes does each core matrix of a 16x16 bf16
// K-major tile read under 128-byte swizzle?
func ExampleFootprint() {
	l := desc.DecodeWGMMA(0x4000004000010040).Layout()
	reads, _ := desc.Footprint(l, desc.Operand{Major: desc.MajorK, ElemBits: 16, MN: 8, K: 16})
	for _, r := range reads[:3] {
		fmt.Printf("core %d row %d: M %d, K %d-%d at %#x\n", r.Core, r.Row, r.MN0, r.K0, r.K1-1, r.Addr)
	}
	// Output:
	// core 0 row 0: M 0, K 0-7 at 0x400
	// core 0 row 1: M 1, K 0-7 at 0x490
	// core 0 row 2: M 2, K 0-7 at 0x520
}

// ExplainSmem decodes a descriptor, detecting its family (bits 46-48 are
// 0: wgmma), and checks it against what the kernel expects: here a K-major
// bf16 operand under a TMA map with 128-byte swizzle, whose descriptor
// says "no swizzle".
func ExampleExplainSmem() {
	ctx := desc.Context{Major: desc.MajorK, Swizzle: desc.Swizzle128B, DType: "bf16"}
	r := desc.ExplainSmem(0x0000040000100040, desc.ArchUnknown, ctx)
	fmt.Println(r.Title)
	for _, f := range r.Findings {
		fmt.Printf("%s %s [%s]\n", f.Severity, f.Field, f.Rule)
	}
	// Output:
	// wgmma shared-memory matrix descriptor (sm_90a)
	// error swizzle [swizzle-mismatch]
}
