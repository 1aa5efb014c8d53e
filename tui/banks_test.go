package tui

import (
	"testing"

	"github.com/tcsim/tcsim/layouts/catalog"
)

func TestWavefronts(t *testing.T) {
	acc := func(addrs []int, n int) []bankAccess {
		var out []bankAccess
		for i, a := range addrs {
			out = append(out, bankAccess{Who: i, Addr: a, Bytes: n})
		}
		return out
	}
	seq := func(n, stride int) []int {
		var out []int
		for i := 0; i < n; i++ {
			out = append(out, i*stride)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		accs      []bankAccess
		want      int
		conflicts int
	}{
		{"32 lanes, consecutive words", acc(seq(32, 4), 4), 1, 0},
		{"32 lanes, one word (broadcast)", acc(make([]int, 32), 4), 1, 0},
		{"32 lanes, stride 128 bytes: one bank", acc(seq(32, 128), 4), 32, 1},
		{"32 lanes, stride 8 bytes: 2-way", acc(seq(32, 8), 4), 2, 16},
		{"two lanes, two bytes of one word", acc([]int{0, 2}, 2), 1, 0},
		{"8 lanes x 16 bytes, consecutive", acc(seq(8, 16), 16), 1, 0},
		{"8 lanes x 16 bytes, rows 128 bytes apart", acc(seq(8, 128), 16), 8, 4},
		{"an 8-byte access spans two banks", acc([]int{124}, 8), 1, 0},
	} {
		p := bankPhase{Accesses: tc.accs}
		finishPhase(&p)
		got, conflicts := p.Wavefronts, p.Conflicts
		if got != tc.want || len(conflicts) != tc.conflicts {
			t.Errorf("%s: %d wavefronts, %d conflicting banks; want %d, %d", tc.name, got, len(conflicts), tc.want, tc.conflicts)
		}
	}
}

func mustSmem(t *testing.T, spec string) smemLayout {
	t.Helper()
	l, err := newSmemTyped(spec)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustAtom(t *testing.T, name string) catalog.Atom {
	t.Helper()
	a, err := catalog.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSmemLayouts(t *testing.T) {
	sw := mustSmem(t, "smem.k.sw128.b16")
	if sw.Major != "k" || sw.Span != 512 || sw.Rows != 8 || sw.Cols != 64 {
		t.Errorf("smem.k.sw128.b16: major %q span %d tile %dx%d", sw.Major, sw.Span, sw.Rows, sw.Cols)
	}
	// Row 1, col 8 of the 128B swizzle: granule 1 ^ row 1 = 0, so
	// element 64 (byte 128); the next atom down starts at 512.
	if got := sw.at(1, 8, 8); got != 64 {
		t.Errorf("at(1, 8) = %d, want 64", got)
	}
	if got := sw.at(9, 8, 16); got != 512+64 {
		t.Errorf("at(9, 8) of a 16-row tile = %d, want 576", got)
	}
	if mn := mustSmem(t, "smem.mn.sw64.b16"); mn.Major != "mn" {
		t.Errorf("smem.mn.sw64.b16: major %q", mn.Major)
	}
	for _, bad := range []string{"(8,8):(8,1)", "(8,8):(8,1) 8x8", "wgmma.m64n64.d.f32", "(2,2,2):(1,2,4) b16"} {
		if _, err := newSmemTyped(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLdShared(t *testing.T) {
	acc := mustAtom(t, "wgmma.m64n64.d.f32")
	g := patternGrid{Rows: 64, Cols: 64}
	for _, tc := range []struct {
		smem   string
		width  int
		cost   string
		widths []int
	}{
		// Each lane stores a bf16 pair; rows are 128 bytes apart, so the
		// eight rows a warp's store touches all hit banks 0-3.
		{"(64,64):(64,1) b16", 4, "16 phases, 128 wavefronts (ideal 16): 8.00x, worst phase 8-way", []int{2, 4}},
		{"smem.k.sw128.b16", 4, "16 phases, 16 wavefronts (ideal 16): conflict-free", []int{2, 4}},
		// Padding each row by 8 bytes moves the next row two banks on:
		// a row's four lanes span four banks, so rows still overlap.
		{"(64,64):(68,1) b16", 4, "16 phases, 32 wavefronts (ideal 16): 2.00x, worst phase 2-way", []int{2, 4}},
		// 16 bytes of padding moves it four banks on: conflict-free.
		{"(64,64):(72,1) b16", 4, "16 phases, 16 wavefronts (ideal 16): conflict-free", []int{2, 4}},
	} {
		l := mustSmem(t, tc.smem)
		ins, err := ldShared(acc, l, g, tc.width, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.smem, err)
		}
		if got := costLine(ins); got != tc.cost {
			t.Errorf("%s: %s, want %s", tc.smem, got, tc.cost)
		}
		if got := validWidths(acc, l, g); !equalInts(got, tc.widths) {
			t.Errorf("%s: widths %v, want %v", tc.smem, got, tc.widths)
		}
	}
	// Values 0 and 1 are adjacent columns: in an MN-major layout they are
	// a row apart, so no access moves both.
	if _, err := ldShared(acc, mustSmem(t, "(64,64):(1,64) b16"), g, 4, 0); err == nil {
		t.Error("a 4-byte access of two non-contiguous values is accepted")
	}
	if _, err := ldShared(acc, mustSmem(t, "smem.k.sw128.b16"), g, 4, 4); err == nil {
		t.Error("warp 4 of a 128-thread fragment is accepted")
	}
}

func TestLdMatrixCoreTMA(t *testing.T) {
	ldm := mustAtom(t, "ldmatrix.m8n8.x4.b16")
	pg := patternGrid{Rows: ldm.Rows, Cols: ldm.Cols}
	for _, tc := range []struct{ smem, cost string }{
		{"smem.k.sw128.b16", "4 phases, 4 wavefronts (ideal 4): conflict-free"},
		// 8 rows of a matrix 128 bytes apart: all in banks 0-3.
		{"(32,64):(64,1) b16", "4 phases, 32 wavefronts (ideal 4): 8.00x, worst phase 8-way"},
		{"(32,8):(8,1) b16", "4 phases, 4 wavefronts (ideal 4): conflict-free"},
	} {
		ins, err := ldMatrix(ldm, mustSmem(t, tc.smem), pg)
		if err != nil {
			t.Fatalf("%s: %v", tc.smem, err)
		}
		if got := costLine(ins); got != tc.cost {
			t.Errorf("ldmatrix on %s: %s, want %s", tc.smem, got, tc.cost)
		}
	}
	if _, err := ldMatrix(ldm, mustSmem(t, "(32,8):(1,32) b16"), pg); err == nil {
		t.Error("ldmatrix rows that are not contiguous are accepted")
	}

	for _, tc := range []struct{ smem, cost string }{
		{"smem.k.sw128.b16", "8 phases, 8 wavefronts (ideal 8): conflict-free"},
		{"smem.mn.sw128.b16", "8 phases, 8 wavefronts (ideal 8): conflict-free"},
		{"smem.k.inter.b16", "1 phases, 1 wavefronts (ideal 1): conflict-free"},
		// Unswizzled 128-byte rows: a core matrix's 8 rows share banks.
		{"(8,64):(64,1) b16", "8 phases, 64 wavefronts (ideal 8): 8.00x, worst phase 8-way"},
	} {
		l := mustSmem(t, tc.smem)
		ins, err := coreMatrices(l, patternGrid{Rows: l.Rows, Cols: l.Cols})
		if err != nil {
			t.Fatalf("%s: %v", tc.smem, err)
		}
		if got := costLine(ins); got != tc.cost {
			t.Errorf("core matrices of %s: %s, want %s", tc.smem, got, tc.cost)
		}
	}

	l := mustSmem(t, "smem.k.sw128.b16")
	ins, err := tmaBox(l, patternGrid{Rows: 8, Cols: 64})
	if err != nil {
		t.Fatal(err)
	}
	if got := costLine(ins); got != "8 phases, 8 wavefronts (ideal 8): conflict-free" {
		t.Errorf("TMA box: %s", got)
	}
	// The box is written in order: phase 1 is the second 128-byte row,
	// its first granule landing at byte 128 + 16 (row 1 XOR granule 0).
	if a := ins[0].Phases[1].Accesses[0]; a.Addr != 144 || len(a.Cells) != 8 || a.Cells[0] != 64 {
		t.Errorf("TMA phase 1 starts with %+v", a)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
