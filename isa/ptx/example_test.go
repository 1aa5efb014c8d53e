package ptx_test

import (
	"fmt"
	"os"

	"github.com/tcsim/tcsim/isa/ptx"
)

func Example() {
	src := `.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .f32 %f<5>;
	.reg .b64 %rd<3>;
	wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;
}
`
	_, errs := ptx.Check("k.ptx", []byte(src))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// k.ptx:8:31: wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16: wgmma m64n12k16: N must be a multiple of 8 from 8 to 256 for .f16 (N = 8, 16, 24, ..., 256)
}

func ExampleParseInstruction() {
	in, err := ptx.ParseInstruction("@!%p1 ld.global.nc.v2.f32 {%f1, %f2}, [%rd4+-8];")
	if err != nil {
		panic(err)
	}
	fmt.Println(in.Opcode, in.Space(), in.Vec(), in.Types)
	addr := in.Operands[1].(*ptx.Address)
	fmt.Println(addr.Base.(*ptx.Reg).Name, addr.Offset, in.Guard.Not)
	fmt.Println(in)
	// Output:
	// ld global 2 [f32]
	// %rd4 -8 true
	// @!%p1 ld.global.nc.v2.f32 {%f1, %f2}, [%rd4+-8]
}

func ExampleFprint() {
	m, err := ptx.ParseString("x.ptx", ".version 8.7 .target sm_90a .address_size 64 .entry k() { .reg .b32 %r<2>; mov.b32 %r1, 0x0F; ret; }")
	if err != nil {
		panic(err)
	}
	ptx.Fprint(os.Stdout, m)
	// Output:
	// .version 8.7
	// .target sm_90a
	// .address_size 64
	//
	// .entry k()
	// {
	// 	.reg .b32 %r<2>;
	// 	mov.b32 %r1, 0xf;
	// 	ret;
	// }
}
