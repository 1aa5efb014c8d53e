package bitmath_test

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/bitmath"
)

// The wgmma m64n64 f32 accumulator, as CuTe writes it, over its 64x64 tile.
func accumulator() bitmath.Map {
	l := layouts.MustParse("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))")
	tv, err := layouts.NewTV(l, 64, 64)
	if err != nil {
		panic(err)
	}
	return bitmath.FromTV("acc", tv)
}

// Derive rediscovers the seed's epilogue bitmath from the layout alone.
func ExampleDerive() {
	d, err := bitmath.Derive(accumulator())
	if err != nil {
		panic(err)
	}
	for _, s := range d.Forward.Steps {
		fmt.Printf("%s = %s\n", s.Name, s.Expr)
	}
	fmt.Println("--")
	for _, s := range d.Inverse.Steps {
		fmt.Printf("%s = %s\n", s.Name, s.Expr)
	}
	// Output:
	// wid = tid >> 5
	// lane = tid & 31
	// frag_row = (wid << 4) + (lane >> 2)
	// frag_col = (lane & 3) << 1
	// row = frag_row + ((v & 2) << 2)
	// col = frag_col + ((v >> 2) << 3) + (v & 1)
	// --
	// wid = row >> 4
	// lane = ((row & 7) << 2) + ((col >> 1) & 3)
	// v = ((col >> 3) << 2) + ((row & 8) >> 2) + (col & 1)
	// tid = (wid << 5) + lane
}

// Check evaluates a user's formula for every thread and value.
func ExampleCheck() {
	m := accumulator()
	r, err := bitmath.Check(m, "row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)", false)
	if err != nil {
		panic(err)
	}
	fmt.Print(r)
	r, _ = bitmath.Check(m, "row = (wid<<4) + (lane>>2); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)", false)
	fmt.Print(r)
	// Output:
	// correct (128 threads × 32 values checked)
	// wrong: at tid=0, v=2 the layout gives (row, col) = (8, 0), your formula (row, col) = (0, 0)
	// 2048 of the 4096 (tid, v) differ
	// hint: input bit v1, at tid=0, v=2: the layout gives (row, col) = (8, 0), your formula (row, col) = (0, 0)
}

// The F2 matrix of a 128-byte-swizzled tile of 16-bit elements: the row
// bits land twice, once as the row and once XORed into the 16-byte chunk.
func ExampleMatrix_String() {
	a, err := layouts.ParseAnyLayout("Sw<3,3,3> o 0 o (8,64):(64,1)")
	if err != nil {
		panic(err)
	}
	m, err := bitmath.FromLayout("sw128", a, true)
	if err != nil {
		panic(err)
	}
	mat, err := bitmath.Analyze(m)
	if err != nil {
		panic(err)
	}
	fmt.Print(mat)
	// Output:
	//            row      col
	//            r0 r1 r2 c0 c1 c2 c3 c4 c5
	// offset o0   .  .  .  1  .  .  .  .  .
	//        o1   .  .  .  .  1  .  .  .  .
	//        o2   .  .  .  .  .  1  .  .  .
	//        o3   1  .  .  .  .  .  1  .  .
	//        o4   .  1  .  .  .  .  .  1  .
	//        o5   .  .  1  .  .  .  .  .  1
	//        o6   1  .  .  .  .  .  .  .  .
	//        o7   .  1  .  .  .  .  .  .  .
	//        o8   .  .  1  .  .  .  .  .  .
}

// Emit writes a derived program as code; here the swizzled tile's
// forward map in Python.
func ExampleEmit() {
	a, _ := layouts.ParseAnyLayout("Sw<3,3,3> o 0 o (8,64):(64,1)")
	m, _ := bitmath.FromLayout("sw128", a, true)
	d, err := bitmath.Derive(m)
	if err != nil {
		panic(err)
	}
	code, _ := bitmath.Emit(d.Forward, bitmath.Python)
	fmt.Print(code)
	// Output:
	// def sw128_fwd(row, col):
	//     # sw128: (row, col) -> offset
	//     # offset: the offset of (row, col)
	//     #   row << 6  row bits 0-2 -> offset bits 6-8 (row * 64)
	//     #   col       col bits 0-5 -> offset bits 0-5
	//     #   row << 3  row bits 0-2 -> offset bits 3-5 (row * 8); joined with ^: it overlaps bits of the terms before
	//     offset = ((row << 6) + col) ^ (row << 3)
	//     return offset
}

// FromTVLayout reads a plain layout as a thread-value layout over a tile,
// as 'tcsim bitmath LAYOUT --tile RxC' does (here the mma.sync m16n8 f32
// accumulator), and refuses layouts too large for the F2 view before
// walking them.
func ExampleFromTVLayout() {
	for _, src := range []string{"((4,8),(2,2)):((32,1),(16,8))", "(1048576,1048576):(0,0)"} {
		m, err := bitmath.FromTVLayout(src, layouts.MustParse(src), 16, 8)
		if err != nil {
			fmt.Println(err)
			continue
		}
		d, err := bitmath.Derive(m)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(m.Desc)
		for _, s := range d.Forward.Steps {
			fmt.Printf("%s = %s\n", s.Name, s.Expr)
		}
	}
	// Output:
	// (tid, v) -> (row, col): 32 threads x 4 values over a 16x8 tile
	// frag_row = tid >> 2
	// frag_col = (tid & 3) << 1
	// row = frag_row + ((v >> 1) << 3)
	// col = frag_col + (v & 1)
	// (1048576,1048576):(0,0): more (thread, value) pairs than the 16777216 the F2 view checks
}
