package sfu_test

import (
	"fmt"
	"math"

	"github.com/tcsim/tcsim/sim/sfu"
)

// The softmax's exp2 as the H100 computes it, and the steps of the model.
func ExampleForm_Explain() {
	f := sfu.Lookup("ex2.approx.ftz.f32")
	r, steps := f.Explain(uint64(math.Float32bits(0.37)), 0)
	fmt.Printf("%#x %s\n", r, f.Status())
	for _, s := range steps {
		fmt.Println(s.Unit)
	}
	// Output:
	// 0x3fa56bd2 bit-exact
	// fixed point
	// table
	// MUFU.EX2
}

// div.full.f32 is MUFU.RCP and a multiplication.
func ExampleLookup() {
	f := sfu.Lookup("div.full.f32")
	q := f.Eval(uint64(math.Float32bits(1)), uint64(math.Float32bits(3)))
	fmt.Println(math.Float32frombits(uint32(q)), f.Lowering)
	// Output: 0.33333334 |b| > 2^126: a, b scaled by 1/4; |b| < 2^-126: by 2^24; MUFU.RCP(b)·a
}
