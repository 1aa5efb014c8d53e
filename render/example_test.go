package render_test

import (
	"fmt"
	"os"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
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

// An atom from the catalog, drawn for a region of its tile: rows 0-3 and
// columns 0-3 of the mma.sync m16n8 f32 accumulator (row = lane/4, column
// = 2·(lane%4) + v%2, as the PTX ISA lays it out). Bare leaves out the
// title, notes and legend.
func ExampleFromAtom() {
	a, err := catalog.Lookup("mma.sync.m16n8.d.f32")
	if err != nil {
		panic(err)
	}
	g, err := render.FromAtom(a)
	if err != nil {
		panic(err)
	}
	r, err := render.ParseRegion("0:4,0:4")
	if err != nil {
		panic(err)
	}
	if err := render.WriteText(os.Stdout, g, render.Options{Region: r, Bare: true}); err != nil {
		panic(err)
	}
	// Output:
	// m/n     0     1     2     3
	//   0  T0V0  T0V1  T1V0  T1V1
	//   1  T4V0  T4V1  T5V0  T5V1
	//   2  T8V0  T8V1  T9V0  T9V1
	//   3 T12V0 T12V1 T13V0 T13V1
}

// Which shared-memory chunks do the first four rows of a 8x16 bf16
// K-major tile read under 128-byte swizzle?
func ExampleDrawFootprint() {
	r, _ := desc.ExplainSmem(0x4000004000010040, desc.SM90, desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 8, TileK: 16}).WithFootprint()
	render.DrawFootprint(os.Stdout, r.Footprint[:4], r.Operand, render.FootprintOptions{})
	// Output:
	// shared memory 0x00400-0x005bf (448 bytes)
	// one line per 128 bytes (32 banks), one cell per 16-byte chunk, labeled core.row
	//   offset  +0    +16   +32   +48   +64   +80   +96   +112
	//   banks   0-3   4-7   8-11  12-15 16-19 20-23 24-27 28-31
	//   0x00400 0.0   .     .     .     .     .     .     .
	//   0x00480 .     0.1   .     .     .     .     .     .
	//   0x00500 .     .     0.2   .     .     .     .     .
	//   0x00580 .     .     .     0.3   .     .     .     .
	//
	// core matrices (K-major: 8 M/N rows x 16 bytes = 8 elements of K each):
	//   core  M/N       K         address of row 0 .. row 7
	//   0     0-3       0-7       0x00400 0x00490 0x00520 0x005b0
}
