package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// The tests in this file restate the ISA's fragment formulas in their own
// words (groupID = lane>>2, threadID_in_group = lane%4, and the seed's
// wgmma epilogue bitmath) and compare every (thread, value) of every atom.

type coordFunc func(thread, value int) (row, col int)

// checkTV compares a TV atom with want for every thread and value.
func checkTV(t *testing.T, name string, want coordFunc) {
	t.Helper()
	a, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != KindTV {
		t.Fatalf("%s is not a TV atom", name)
	}
	bad := 0
	for th := 0; th < a.Threads(); th++ {
		for v := 0; v < a.Values(); v++ {
			r, c := a.TV.Coord(th, v)
			wr, wc := want(th, v)
			if r != wr || c != wc {
				if bad < 3 {
					t.Errorf("%s: thread %d value %d at (%d,%d), want (%d,%d)", name, th, v, r, c, wr, wc)
				}
				bad++
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d mismatches in all", name, bad)
	}
}

// TestWGMMAAccumulatorSeed checks every wgmma accumulator against the
// seed's epilogue bitmath: frag_row = (wid<<4)+(lane>>2), frag_col =
// (lane&3)<<1, acc[g*4+i] -> (frag_row + 8*(i>>1), frag_col + 8*g + (i&1)).
func TestWGMMAAccumulatorSeed(t *testing.T) {
	seed := func(tid, v int) (int, int) {
		wid, lane := tid>>5, tid&31
		fragRow := (wid << 4) + (lane >> 2)
		fragCol := (lane & 3) << 1
		g, i := v/4, v%4
		return fragRow + 8*(i>>1), fragCol + 8*g + (i & 1)
	}
	count := map[string]int{}
	for _, typ := range []string{"f32", "f16", "s32"} {
		for n := 8; n <= 256; n += 8 {
			name := fmt.Sprintf("wgmma.m64n%d.d.%s", n, typ)
			a, err := Lookup(name)
			if typ == "s32" && n > 32 && n%16 != 0 {
				if err == nil {
					t.Errorf("%s exists, but the ISA does not allow .s32 with N=%d", name, n)
				}
				continue
			}
			if err != nil {
				t.Errorf("missing %s: %v", name, err)
				continue
			}
			if a.Threads() != 128 || a.Values() != n/2 || a.Rows != 64 || a.Cols != n {
				t.Errorf("%s: %d threads x %d values on %dx%d", name, a.Threads(), a.Values(), a.Rows, a.Cols)
			}
			checkTV(t, name, seed)
			count[typ]++
		}
	}
	if count["f32"] != 32 || count["f16"] != 32 || count["s32"] != 18 {
		t.Errorf("accumulators checked: %v", count)
	}
}

// TestWGMMARegisterA checks register A: the 16-bit fragment against
// REFERENCES.md fact 3 (verified on an H100), tf32 and 8-bit against the
// ISA's pattern (the mma.sync m16n8k8 tf32 / m16n8k32 A fragments, one per
// warp, 16 rows apart).
func TestWGMMARegisterA(t *testing.T) {
	checkTV(t, "wgmma.m64k16.a.reg.b16", func(tid, v int) (int, int) {
		warp, lane := tid/32, tid%32
		row, k0 := 16*warp+lane/4, 2*(lane%4)
		reg, half := v/2, v%2
		switch reg {
		case 0:
			return row, k0 + half
		case 1:
			return row + 8, k0 + half
		case 2:
			return row, k0 + 8 + half
		default:
			return row + 8, k0 + 8 + half
		}
	})
	checkTV(t, "wgmma.m64k8.a.reg.tf32", func(tid, i int) (int, int) {
		warp, lane := tid/32, tid%32
		row := 16*warp + lane>>2
		if i == 1 || i == 3 {
			row += 8
		}
		col := lane % 4
		if i >= 2 {
			col += 4
		}
		return row, col
	})
	checkTV(t, "wgmma.m64k32.a.reg.b8", func(tid, i int) (int, int) {
		warp, lane := tid/32, tid%32
		row := 16*warp + lane>>2
		if (i >= 4 && i < 8) || i >= 12 {
			row += 8
		}
		col := (lane%4)*4 + (i & 3)
		if i >= 8 {
			col += 16
		}
		return row, col
	})
}

func TestMMASyncISA(t *testing.T) {
	gid := func(lane int) int { return lane >> 2 }
	tig := func(lane int) int { return lane % 4 }
	tests := []struct {
		name string
		f    coordFunc // returns (row, col) in the atom's tile (A: m,k; B: n,k; C: m,n)
	}{
		{"mma.sync.m16k8.a.b16", func(l, i int) (int, int) {
			row := gid(l)
			if i >= 2 {
				row += 8
			}
			return row, tig(l)*2 + (i & 1)
		}},
		{"mma.sync.m16k8.a.tf32", func(l, i int) (int, int) {
			row := gid(l)
			if i == 1 || i == 3 {
				row += 8
			}
			col := tig(l)
			if i >= 2 {
				col += 4
			}
			return row, col
		}},
		{"mma.sync.n8k8.b.b16", func(l, i int) (int, int) { return gid(l), tig(l)*2 + i }},
		{"mma.sync.n8k8.b.tf32", func(l, i int) (int, int) { return gid(l), tig(l) + 4*i }},
		{"mma.sync.m16k16.a.b16", func(l, i int) (int, int) {
			row := gid(l)
			if !(i < 2 || (i >= 4 && i < 6)) {
				row += 8
			}
			col := tig(l)*2 + (i & 1)
			if i >= 4 {
				col += 8
			}
			return row, col
		}},
		{"mma.sync.n8k16.b.b16", func(l, i int) (int, int) {
			k := tig(l)*2 + (i & 1)
			if i >= 2 {
				k += 8
			}
			return gid(l), k
		}},
		{"mma.sync.m16k32.a.b8", func(l, i int) (int, int) {
			row := gid(l)
			if !(i < 4 || (i >= 8 && i < 12)) {
				row += 8
			}
			col := tig(l)*4 + (i & 3)
			if i >= 8 {
				col += 16
			}
			return row, col
		}},
		{"mma.sync.n8k32.b.b8", func(l, i int) (int, int) {
			k := tig(l)*4 + (i & 3)
			if i >= 4 {
				k += 16
			}
			return gid(l), k
		}},
	}
	for _, typ := range []string{"f32", "f16", "s32"} {
		tests = append(tests, struct {
			name string
			f    coordFunc
		}{"mma.sync.m16n8.d." + typ, func(l, i int) (int, int) {
			row := gid(l)
			if i >= 2 {
				row += 8
			}
			return row, tig(l)*2 + (i & 1)
		}})
	}
	for _, tt := range tests {
		checkTV(t, tt.name, tt.f)
	}
}

func TestLdStMatrix(t *testing.T) {
	for _, fam := range []string{"ldmatrix", "stmatrix"} {
		for _, num := range []int{1, 2, 4} {
			for _, trans := range []bool{false, true} {
				name := fmt.Sprintf("%s.m8n8.x%d.b16", fam, num)
				if trans {
					name = fmt.Sprintf("%s.m8n8.x%d.trans.b16", fam, num)
				}
				// Register j holds matrix j; element h of the register is
				// value 2j+h. The ISA: four consecutive lanes cover one
				// 16-byte row, lane 0 gets the first fragment; .trans
				// loads the matrix column-major.
				checkTV(t, name, func(lane, v int) (int, int) {
					j, h := v/2, v%2
					r, c := lane/4, 2*(lane%4)+h
					if trans {
						r, c = c, r
					}
					return 8*j + r, c
				})
				a, _ := Lookup(name)
				if len(a.AddrRows) != 32 {
					t.Fatalf("%s: %d address rows", name, len(a.AddrRows))
				}
				for l, r := range a.AddrRows {
					want := -1
					if l < 8*num { // the ISA's table: x1 lanes 0-7, x2 0-15, x4 0-31
						want = l
					}
					if r != want {
						t.Errorf("%s: lane %d supplies row %d, want %d", name, l, r, want)
					}
				}
			}
		}
	}
}

// TestTcgen05DataPath checks every tcgen05.ld/st atom: the register map of
// each shape (ISA 9.7.16.2.3.1 figures) and that warp w stays inside lanes
// 32w..32w+31 (9.7.16.8.1).
func TestTcgen05DataPath(t *testing.T) {
	shapes := map[string]struct {
		maxNum int
		f      func(l, r, num int) (lane, col int) // within the warp's quarter
	}{
		"32x32b":   {128, func(l, r, num int) (int, int) { return l, r }},
		"16x64b":   {128, func(l, r, num int) (int, int) { return l/4 + 8*(l%2), (l/2)%2 + 2*r }},
		"16x128b":  {64, func(l, r, num int) (int, int) { return l/4 + 8*(r%2), l%4 + 4*(r/2) }},
		"16x256b":  {32, func(l, r, num int) (int, int) { return l/4 + 8*((r/2)%2), r%2 + 2*(l%4) + 8*(r/4) }},
		"16x32bx2": {128, func(l, r, num int) (int, int) { return l % 16, r + num*(l/16) }},
	}
	seen := 0
	for shape, s := range shapes {
		for num := 1; num <= 256; num *= 2 {
			name := fmt.Sprintf("tcgen05.%s.x%d", shape, num)
			a, err := Lookup(name)
			if num > s.maxNum {
				if err == nil {
					t.Errorf("%s exists; the ISA allows at most .x%d", name, s.maxNum)
				}
				continue
			}
			if err != nil {
				t.Error(err)
				continue
			}
			seen++
			if a.Values() > 128 {
				t.Errorf("%s: %d registers per thread, more than 128", name, a.Values())
			}
			checkTV(t, name, func(tid, r int) (int, int) {
				w, l := tid/32, tid%32
				lane, col := s.f(l, r, num)
				return 32*w + lane, col
			})
			for tid := 0; tid < 128; tid++ {
				for v := 0; v < a.Values(); v++ {
					if lane, _ := a.TV.Coord(tid, v); lane/32 != tid/32 {
						t.Fatalf("%s: warp %d reaches lane %d", name, tid/32, lane)
					}
				}
			}
		}
	}
	if seen != 37 {
		t.Errorf("checked %d data-path atoms, want 37", seen)
	}
}

// TestTMEMPlacement checks the accumulator placements against the ISA's
// data-path layouts A, B, D, E, F (9.7.16.10.5) and that within each CTA
// every cell has its own TMEM cell.
func TestTMEMPlacement(t *testing.T) {
	type place func(m, n, N int) (cta, lane, col int)
	layouts := map[string]place{
		"m128.d.cta1": func(m, n, N int) (int, int, int) { return 0, m, n },                                  // D
		"m64.d.cta1":  func(m, n, N int) (int, int, int) { return 0, 32*(m/16) + m%16, n },                   // F
		"m64.d.ws":    func(m, n, N int) (int, int, int) { return 0, m + 64*(n/(N/2)), n % (N / 2) },         // E
		"m128.d.cta2": func(m, n, N int) (int, int, int) { return m / 64, m%64 + 64*(n/(N/2)), n % (N / 2) }, // B
		"m256.d.cta2": func(m, n, N int) (int, int, int) { return m / 128, m % 128, n },                      // A
	}
	for key, f := range layouts {
		for _, N := range []int{64, 128, 256} {
			parts := strings.SplitN(key, ".", 2)
			name := fmt.Sprintf("tcgen05.tmem.%sn%d.%s", parts[0], N, parts[1])
			a, err := Lookup(name)
			if err != nil {
				t.Error(err)
				continue
			}
			if a.Kind != KindTMEM || a.NeedsArch != "sm_100a" {
				t.Errorf("%s: kind %v needs %q", name, a.Kind, a.NeedsArch)
			}
			used := map[[3]int]bool{}
			for m := 0; m < a.Rows; m++ {
				for n := 0; n < a.Cols; n++ {
					cta, lane, col := a.TMEM(m, n)
					wc, wl, wcol := f(m, n, N)
					if cta != wc || lane != wl || col != wcol {
						t.Fatalf("%s: (%d,%d) -> CTA %d lane %d col %d, want CTA %d lane %d col %d", name, m, n, cta, lane, col, wc, wl, wcol)
					}
					if lane < 0 || lane >= 128 || col < 0 || col >= 512 {
						t.Fatalf("%s: (%d,%d) -> lane %d col %d outside TMEM", name, m, n, lane, col)
					}
					k := [3]int{cta, lane, col}
					if used[k] {
						t.Fatalf("%s: two cells at CTA %d lane %d col %d", name, cta, lane, col)
					}
					used[k] = true
				}
			}
		}
	}
}
