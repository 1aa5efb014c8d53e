package tui

import (
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/tcsim/tcsim/render"
)

// The redraw benchmarks draw the explorer on the 64×256 wgmma accumulator
// (128 threads × 128 values, 16384 cells). The target is a full
// redraw under 16 ms on one core (go test -bench Redraw -cpu 1).
//
// x-appendgrid is each redraw's cost as a multiple of the baseline,
// measured in the same run: render.AppendGrid drawing the same cells in
// ANSI, the shared text path every view uses, with nothing around it.

// nsPerOp times f over enough runs to last about 100 ms.
func nsPerOp(f func()) float64 {
	n := 1
	for {
		st := time.Now()
		for range n {
			f()
		}
		if d := time.Since(st); d > 100*time.Millisecond || n > 1<<20 {
			return float64(d.Nanoseconds()) / float64(n)
		}
		n *= 2
	}
}

// fullScreen is the explorer in a terminal large enough to show every cell
// of the 64×256 tile at the narrowest zoom: one character per cell.
func fullScreen(b *testing.B) (*Model, *explorer) {
	m, err := Snapshot(Config{Subject: "wgmma.m64n256.d.f32"}, 560, 72, nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs, _ := ParseKeys("p " + strings.Repeat("- ", 8))
	for _, msg := range msgs {
		m.Update(msg)
	}
	e := m.views[0].(*explorer)
	if r, c := e.pane.visible(); r != 64 || c != 256 {
		b.Fatalf("the window shows %dx%d cells, want all 64x256", r, c)
	}
	return m, e
}

func BenchmarkRedraw(b *testing.B) {
	m, e := fullScreen(b)
	g := e.pane.g
	o := render.Options{Color: e.pane.color, CellWidth: e.pane.zoom, Bare: true, NoLegend: true, Cursor: &render.Pos{}}
	buf := make([]byte, 0, 1<<20)
	baseline := func() {
		var err error
		if buf, err = render.AppendGrid(buf[:0], g, o, true); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("baseline-appendgrid-64x256", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			baseline()
		}
	})
	// The whole screen: tab bar, grid, status line and help, as View
	// returns it to Bubble Tea on every update.
	b.Run("view-64x256", func(b *testing.B) {
		base := nsPerOp(baseline)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			_ = m.View()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-appendgrid")
	})
	// View plus what the renderer does next with the frame: parse the
	// styled text into a cell buffer (Bubble Tea then diffs the buffer
	// against the previous frame).
	b.Run("view+parse-64x256", func(b *testing.B) {
		base := nsPerOp(baseline)
		scr := uv.NewScreenBuffer(m.w, m.h)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			uv.NewStyledString(m.View().Content).Draw(scr, scr.Bounds())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-appendgrid")
	})
	// The common case: an 80x24 terminal showing a window of the tile
	// with the side panel and its bitmath.
	b.Run("view-80x24", func(b *testing.B) {
		small, err := Snapshot(Config{Subject: "wgmma.m64n256.d.f32"}, 80, 24, nil)
		if err != nil {
			b.Fatal(err)
		}
		base := nsPerOp(baseline)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			_ = small.View()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-appendgrid")
	})
}

// BenchmarkSubject is what picking the 64×256 atom costs: the grid and,
// on first use, the bitmath derivation the side panel shows.
func BenchmarkSubject(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := newSubject("wgmma.m64n256.d.f32")
		if err != nil {
			b.Fatal(err)
		}
		if pm := s.mathOf(0); pm.err != nil {
			b.Fatal(pm.err)
		}
	}
}
