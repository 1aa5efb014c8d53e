package layouts_test

import (
	"errors"
	"fmt"

	"github.com/tcsim/tcsim/layouts"
)

func ExampleComposition() {
	a := layouts.MustParse("(6,2):(8,2)")
	b := layouts.MustParse("(4,3):(3,1)")
	r, err := layouts.Composition(a, b)
	fmt.Println(r, err)
	// Output: ((2,2),3):((24,2),8) <nil>
}

func ExampleComposition_rejected() {
	_, err := layouts.Composition(layouts.MustParse("(4,3):(1,10)"), layouts.MustParse("5:1"))
	var ce *layouts.ConditionError
	fmt.Println(errors.As(err, &ce), ce.Condition)
	// Output: true shape divisibility condition
}

func ExampleCompositionTiler() {
	a := layouts.MustParse("(12,(4,8)):(59,(13,1))")
	t := layouts.TupleTiler(layouts.LayoutTiler(layouts.MustParse("3:4")), layouts.LayoutTiler(layouts.MustParse("8:2")))
	r, _ := layouts.CompositionTiler(a, t)
	fmt.Println(t, "->", r)
	// Output: <3:4,8:2> -> (3,(2,4)):(236,(26,1))
}

func ExampleComplement() {
	r, _ := layouts.Complement(layouts.MustParse("(2,2):(1,6)"), layouts.Int(24))
	fmt.Println(r)
	// Output: (3,2):(2,12)
}

func ExampleRightInverse() {
	// The wgmma f32 accumulator for N=256: (thread, value) -> column-major
	// index in the 64x256 tile. Its right inverse maps a tile index back to
	// the (thread, value) pair, as a linear index into the TV layout.
	acc := layouts.MustParse("((4,8,4),(2,2,32)):((128,1,16),(64,8,512))")
	inv, _ := layouts.RightInverse(acc)
	fmt.Println(inv)
	fmt.Println(acc.Eval(inv.Eval(1000)))
	// Output:
	// (8,2,8,4,32):(4,256,32,1,512)
	// 1000
}

func ExampleLogicalDivide() {
	r, _ := layouts.LogicalDivide(layouts.MustParse("(16,8):(1,16)"), layouts.ShapeTiler(layouts.Ints(4, 2)))
	fmt.Println(r)
	// Output: ((4,4),(2,4)):((1,4),(16,32))
}

func ExampleZippedDivide() {
	r, _ := layouts.ZippedDivide(layouts.MustParse("(64,256):(1,64)"), layouts.ShapeTiler(layouts.Ints(8, 16)))
	fmt.Println(r)
	// Output: ((8,16),(8,16)):((1,64),(8,1024))
}

func ExampleBlockedProduct() {
	r, _ := layouts.BlockedProduct(layouts.MustParse("(2,5):(5,1)"), layouts.MustParse("(3,4):(1,3)"))
	fmt.Println(r)
	// Output: ((2,3),(5,4)):((5,10),(1,30))
}

func ExampleTileToShape() {
	atom, _ := layouts.ParseAnyLayout("Sw<3,4,3> o 0 o (8,64):(64,1)")
	r, _ := atom.MapInner(func(l layouts.Layout) (layouts.Layout, error) {
		return layouts.TileToShape(l, layouts.Ints(64, 128))
	})
	fmt.Println(r)
	// Output: Sw<3,4,3> o 0 o ((8,8),(64,2)):((64,512),(1,4096))
}
