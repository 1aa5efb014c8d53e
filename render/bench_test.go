package render

import (
	"fmt"
	"io"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// Benchmarks for the 64×256 wgmma accumulator (128 threads × 128 values,
// 16384 cells). Compare each against the baselines in the same run:
// BenchmarkBaselineOwners (layouts.TV.Owners, the straightforward
// evaluation) for building the grid, and BenchmarkBaselineSprintf
// (formatting one "T%dV%d" string per cell) for drawing it.

func BenchmarkFromTV64x256(b *testing.B) {
	tv := accTV(b, 256)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromTV(tv, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineOwners64x256(b *testing.B) {
	tv := accTV(b, 256)
	b.ReportAllocs()
	for b.Loop() {
		_ = tv.Owners()
	}
}

func BenchmarkBaselineSprintf64x256(b *testing.B) {
	tv := accTV(b, 256)
	owners := tv.Owners()
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, os := range owners {
			buf = append(buf, fmt.Sprintf("T%dV%d ", os[0].Thread, os[0].Value)...)
		}
	}
}

func benchText(b *testing.B, ansi bool, o Options) {
	g := mustGrid(FromTV(accTV(b, 256), "acc"))
	buf := make([]byte, 0, 1<<21)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendGrid(buf[:0], g, o, ansi); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText64x256(b *testing.B) { benchText(b, false, Options{}) }
func BenchmarkANSI64x256(b *testing.B) { benchText(b, true, Options{}) }

// A terminal-sized window with a cursor, as the TUI redraws it.
func BenchmarkANSIWindow64x256(b *testing.B) {
	benchText(b, true, Options{Region: Region{Row0: 16, Row1: 40, Col0: 64, Col1: 76}, Cursor: &Pos{20, 70}})
}

func BenchmarkSVG64x256(b *testing.B) {
	g := mustGrid(FromTV(accTV(b, 256), "acc"))
	for b.Loop() {
		if err := WriteSVG(io.Discard, g, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPNG64x256(b *testing.B) {
	g := mustGrid(FromTV(accTV(b, 256), "acc"))
	for b.Loop() {
		if err := WritePNG(io.Discard, g, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = layouts.Owner{}
