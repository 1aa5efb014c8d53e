package catalog

import "testing"

// BenchmarkAccumulator64x256 evaluates the whole 64x256 wgmma accumulator
// (128 threads x 128 values) through the catalog's TV layout; the
// "seed-formula" sub-benchmark is the baseline: the hand-written epilogue
// bitmath for the same 16384 cells.
func BenchmarkAccumulator64x256(b *testing.B) {
	a, err := Lookup("wgmma.m64n256.d.f32")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seed-formula", func(b *testing.B) {
		sum := 0
		for b.Loop() {
			for tid := 0; tid < 128; tid++ {
				wid, lane := tid>>5, tid&31
				row, col := (wid<<4)+(lane>>2), (lane&3)<<1
				for v := 0; v < 128; v++ {
					g, i := v>>2, v&3
					sum += row + 8*(i>>1) + 64*(col+8*g+(i&1))
				}
			}
		}
		_ = sum
	})
	b.Run("tv-layout", func(b *testing.B) {
		sum := 0
		for b.Loop() {
			for tid := 0; tid < 128; tid++ {
				for v := 0; v < 128; v++ {
					sum += a.TV.Index(tid, v)
				}
			}
		}
		_ = sum
	})
	b.Run("owners", func(b *testing.B) {
		for b.Loop() {
			a.TV.Owners()
		}
	})
}

// BenchmarkBuild measures building the whole catalog, which every tcsim
// process that touches it pays once.
func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		n := 0
		for _, build := range builders {
			build(func(Atom) { n++ })
		}
		if n != len(All()) {
			b.Fatalf("built %d atoms", n)
		}
	}
}
