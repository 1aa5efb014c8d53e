package expr_test

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts/expr"
)

func ExampleEval() {
	for _, src := range []string{
		"composition((4,2):(1,4), (2,2):(2,1))",
		"complement((2,2):(1,6), 24)",
		"logical_divide((16,8):(1,16), <4:1,2:1>)",
		"size<1>(((4,8,4),(2,2,32)):((128,1,16),(64,8,512)))",
		"tiled_divide(Sw<3,4,3> o 0 o (8,64):(64,1), (4,8))",
	} {
		v, err := expr.Eval(src)
		fmt.Println(v, err)
	}
	// Output:
	// (2,2):(2,1) <nil>
	// (3,2):(2,12) <nil>
	// ((4,4),(2,4)):((1,4),(16,32)) <nil>
	// 128 <nil>
	// Sw<3,4,3> o 0 o ((4,8),2,8):((64,1),256,8) <nil>
}

func ExampleError_Caret() {
	_, err := expr.Eval("complement((2,2):(1,6) 24)")
	if e, ok := err.(*expr.Error); ok {
		fmt.Println(e)
		fmt.Println(e.Caret())
	}
	// Output:
	// col 24: expected ',' or ')', found '2'
	// complement((2,2):(1,6) 24)
	//                        ^
}
