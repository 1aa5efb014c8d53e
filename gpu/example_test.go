package gpu_test

import (
	"errors"
	"fmt"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/launch"
)

// Run a PTX kernel once, as 'tcsim gpu run' does: describe the launch with
// package launch, hand it with the PTX to Device.Run and read the
// output buffer back. (No output is checked: it needs an NVIDIA GPU.)
func ExampleDevice_Run() {
	ptx := []byte(`.version 8.0
.target sm_80
.address_size 64
.visible .entry iota(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
`)
	p, err := launch.ParseParam("out=buf:size=512")
	if err != nil {
		panic(err)
	}
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1}, Params: []launch.Param{p},
		Outputs: []launch.Output{{Param: "out", Type: launch.U32}}}
	d, err := gpu.Open(0)
	if errors.Is(err, gpu.ErrNoDriver) {
		fmt.Println(err)
		return
	} else if err != nil {
		panic(err)
	}
	defer d.Close()
	res, err := d.Run("iota.ptx", ptx, l, gpu.RunOptions{})
	if err != nil {
		panic(err)
	}
	out, err := res.Output("out")
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Data[:8])
}
