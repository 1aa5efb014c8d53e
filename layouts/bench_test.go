package layouts

import "testing"

// The wgmma f32 accumulator for N=256: 128 threads x 128 values over the
// 64x256 tile.
var acc256 = MustParse("((4,8,4),(2,2,32)):((128,1,16),(64,8,512))")

var sink int

// BenchmarkTV256 evaluates every (thread, value) pair of the N=256
// accumulator. "seed-formula" is the baseline: the hand-written bitmath from
// the wgmma guide in a plain loop. The ratio layout/seed-formula is the cost
// of evaluating through the generic layout.
func BenchmarkTV256(b *testing.B) {
	tv, err := NewTV(acc256, 64, 256)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seed-formula", func(b *testing.B) {
		for b.Loop() {
			s := 0
			for tid := 0; tid < 128; tid++ {
				wid, lane := tid>>5, tid&31
				fr, fc := (wid<<4)+(lane>>2), (lane&3)<<1
				for v := 0; v < 128; v++ {
					g, i := v>>2, v&3
					s += fr + 8*(i>>1) + 64*(fc+8*g+(i&1))
				}
			}
			sink = s
		}
	})
	b.Run("layout-eval", func(b *testing.B) {
		for b.Loop() {
			s := 0
			for tid := 0; tid < 128; tid++ {
				for v := 0; v < 128; v++ {
					s += acc256.Eval(tid + 128*v)
				}
			}
			sink = s
		}
	})
	b.Run("evaluator", func(b *testing.B) {
		ev := acc256.Evaluator()
		for b.Loop() {
			s := 0
			for tid := 0; tid < 128; tid++ {
				for v := 0; v < 128; v++ {
					s += ev.Eval(tid + 128*v)
				}
			}
			sink = s
		}
	})
	b.Run("tv-coord", func(b *testing.B) {
		for b.Loop() {
			s := 0
			for tid := 0; tid < 128; tid++ {
				for v := 0; v < 128; v++ {
					r, c := tv.Coord(tid, v)
					s += r + 64*c
				}
			}
			sink = s
		}
	})
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			sink = len(acc256.Table())
		}
	})
	b.Run("owners", func(b *testing.B) {
		for b.Loop() {
			sink = len(tv.Owners())
		}
	})
}

func BenchmarkAlgebra(b *testing.B) {
	tile := MustParse("(64,256):(1,64)")
	t816 := ShapeTiler(Ints(8, 16))
	atom := MustParse("(8,64):(64,1)")
	b.Run("composition", func(b *testing.B) {
		t := MustParse("(16,8):(8,1)")
		for b.Loop() {
			if _, err := Composition(acc256, t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("coalesce", func(b *testing.B) {
		for b.Loop() {
			if _, err := Coalesce(acc256); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("complement", func(b *testing.B) {
		l := MustParse("(4,8):(1,64)")
		for b.Loop() {
			if _, err := Complement(l, Int(16384)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("right_inverse", func(b *testing.B) {
		for b.Loop() {
			if _, err := RightInverse(acc256); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("left_inverse", func(b *testing.B) {
		for b.Loop() {
			if _, err := LeftInverse(acc256); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("logical_divide", func(b *testing.B) {
		for b.Loop() {
			if _, err := LogicalDivide(tile, t816); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("zipped_divide", func(b *testing.B) {
		for b.Loop() {
			if _, err := ZippedDivide(tile, t816); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("blocked_product", func(b *testing.B) {
		t := MustParse("(8,4):(1,8)")
		for b.Loop() {
			if _, err := BlockedProduct(atom, t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tile_to_shape", func(b *testing.B) {
		for b.Loop() {
			if _, err := TileToShape(atom, Ints(64, 256)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
