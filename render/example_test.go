package render_test

import (
	"fmt"
	"os"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/render"
)

// A thread-value layout drawn as text: two threads, four values each, on
// a 2×2 tile. The thread mode has stride 0, so both threads hold every
// cell (a broadcast), and every cell lists both owners.
func ExampleWriteText() {
	tv, err := layouts.NewTV(layouts.MustParse("(2,4):(0,1)"), 2, 2)
	if err != nil {
		panic(err)
	}
	g, err := render.FromTV(tv, "")
	if err != nil {
		panic(err)
	}
	if err := render.WriteText(os.Stdout, g, render.Options{}); err != nil {
		panic(err)
	}
	// Output:
	// (2,4):(0,1)
	//           0         1
	// 0 T0V0|T1V0 T0V2|T1V2
	// 1 T0V1|T1V1 T0V3|T1V3
	// coverage: 4 cells have several owners (up to 2: a broadcast)
}

// CuTe's print_layout picture of a plain layout, with borders.
func ExampleFromLayout() {
	l, err := layouts.ParseAnyLayout("(2,3):(3,1)")
	if err != nil {
		panic(err)
	}
	g, err := render.FromLayout(l, 0)
	if err != nil {
		panic(err)
	}
	render.WriteText(os.Stdout, g, render.Options{Boxed: true})
	// Output:
	// (2,3):(3,1)
	//     0   1   2
	//   +---+---+---+
	// 0 | 0 | 1 | 2 |
	//   +---+---+---+
	// 1 | 3 | 4 | 5 |
	//   +---+---+---+
}

// Any package can build a grid of its own — here two core matrices of a
// shared-memory tile tagged for colouring — and draw it with every renderer.
func ExampleNewGrid() {
	g, err := render.NewGrid(2, 4)
	if err != nil {
		panic(err)
	}
	if _, err := g.AddPanel(render.Panel{Title: "core matrices", Kind: render.Offsets, Rows: 2, Cols: 4, ElemBits: 16}); err != nil {
		panic(err)
	}
	for r := 0; r < 2; r++ {
		for c := 0; c < 4; c++ {
			cell := g.At(r, c)
			cell.Offset = 4*r + c
			cell.Bank = render.Bank(cell.Offset, 16)
			cell.Tag = c / 2 // which core matrix
			cell.Label = fmt.Sprintf("cm%d", c/2)
		}
	}
	g.Title = "two core matrices"
	render.WriteText(os.Stdout, g, render.Options{Color: render.ColorTag})
	// Output:
	// two core matrices
	//     0   1   2   3
	// 0 cm0 cm0 cm1 cm1
	// 1 cm0 cm0 cm1 cm1
}
