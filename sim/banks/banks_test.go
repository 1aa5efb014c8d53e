package banks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestWavefronts(t *testing.T) {
	lanes := func(n, bytes int, addr func(l int) uint64) []Access {
		var out []Access
		for l := 0; l < n; l++ {
			out = append(out, Access{Addr: addr(l), Bytes: bytes})
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		accs      []Access
		want      int
		conflicts []int
	}{
		{"none", nil, 0, nil},
		{"consecutive words", lanes(32, 4, func(l int) uint64 { return 4 * uint64(l) }), 1, nil},
		{"broadcast", lanes(32, 4, func(int) uint64 { return 64 }), 1, nil},
		{"stride 128: 32-way", lanes(32, 4, func(l int) uint64 { return 128 * uint64(l) }), 32, []int{0}},
		{"stride 8: 2-way", lanes(32, 4, func(l int) uint64 { return 8 * uint64(l) }), 2, evens()},
		{"bytes of one word", lanes(32, 1, func(l int) uint64 { return uint64(l % 4) }), 1, nil},
		{"16-byte rows, 8 lanes", lanes(8, 16, func(l int) uint64 { return 16 * uint64(l) }), 1, nil},
		{"16-byte rows 128 apart", lanes(8, 16, func(l int) uint64 { return 128 * uint64(l) }), 8, []int{0, 1, 2, 3}},
		{"16-byte rows, 128B swizzle", lanes(8, 16, func(l int) uint64 { return 128*uint64(l) + 16*uint64(l) }), 1, nil},
		{"unaligned span", []Access{{Addr: 2, Bytes: 4}, {Addr: 130, Bytes: 4}}, 2, []int{0, 1}},
	} {
		w, c := Wavefronts(tt.accs)
		if w != tt.want || !slices.Equal(c, tt.conflicts) {
			t.Errorf("%s: %d wavefronts, conflicts %v; want %d, %v", tt.name, w, c, tt.want, tt.conflicts)
		}
	}
}

func evens() []int {
	var out []int
	for b := 0; b < Count; b += 2 {
		out = append(out, b)
	}
	return out
}

func TestWarp(t *testing.T) {
	all := ^uint32(0)
	addrs := func(f func(l int) uint64) *[32]uint64 {
		var a [32]uint64
		for l := range a {
			a[l] = f(l)
		}
		return &a
	}
	for _, tt := range []struct {
		name  string
		mask  uint32
		addrs *[32]uint64
		size  int
		want  Request
	}{
		{"4-byte consecutive", all, addrs(func(l int) uint64 { return 4 * uint64(l) }), 4, Request{1, 1, 1}},
		{"4-byte stride 128", all, addrs(func(l int) uint64 { return 128 * uint64(l) }), 4, Request{32, 1, 32}},
		{"8-byte consecutive: two half-warps", all, addrs(func(l int) uint64 { return 8 * uint64(l) }), 8, Request{2, 2, 1}},
		{"16-byte consecutive: four quarters", all, addrs(func(l int) uint64 { return 16 * uint64(l) }), 16, Request{4, 4, 1}},
		{"16-byte stride 256", all, addrs(func(l int) uint64 { return 256 * uint64(l) }), 16, Request{32, 4, 8}},
		{"one lane", 1 << 5, addrs(func(l int) uint64 { return 4 * uint64(l) }), 4, Request{1, 1, 1}},
		{"upper half-warp only", 0xffff0000, addrs(func(l int) uint64 { return 8 * uint64(l) }), 8, Request{1, 1, 1}},
		{"no lanes", 0, addrs(func(int) uint64 { return 0 }), 4, Request{}},
	} {
		if got := Warp(tt.mask, tt.addrs, tt.size); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestLanesPerPhase(t *testing.T) {
	for n, want := range map[int]int{1: 32, 2: 32, 4: 32, 8: 16, 16: 8} {
		if got := LanesPerPhase(n); got != want || got*n > PhaseBytes {
			t.Errorf("LanesPerPhase(%d) = %d, want %d", n, got, want)
		}
	}
}

func ExampleWarp() {
	// Lane l reads the 4-byte word at 128*l: every lane hits bank 0.
	var addrs [32]uint64
	for l := range addrs {
		addrs[l] = 128 * uint64(l)
	}
	r := Warp(^uint32(0), &addrs, 4)
	fmt.Printf("%d wavefronts, ideal %d, %d-way\n", r.Wavefronts, r.Ideal, r.MaxWays)
	// Output: 32 wavefronts, ideal 1, 32-way
}

func BenchmarkWarp(b *testing.B) {
	var addrs [32]uint64
	for l := range addrs {
		addrs[l] = 4 * uint64(l)
	}
	for i := 0; i < b.N; i++ {
		Warp(^uint32(0), &addrs, 4)
	}
}

// mapWarp is the cost model as the simulator computed it before this
// package (a map of distinct words per bank and phase): the baseline of
// BenchmarkWarp, and a second opinion in TestWarpAgainstMaps.
func mapWarp(mask uint32, addrs *[32]uint64, size int) Request {
	per := LanesPerPhase(size)
	words := (size + 3) / 4
	var r Request
	for p := 0; p < 32; p += per {
		var banks [32]map[uint64]bool
		any := false
		for l := p; l < p+per; l++ {
			if mask>>l&1 == 0 {
				continue
			}
			any = true
			for k := 0; k < words; k++ {
				word := addrs[l]/4 + uint64(k)
				b := word % 32
				if banks[b] == nil {
					banks[b] = map[uint64]bool{}
				}
				banks[b][word] = true
			}
		}
		if !any {
			continue
		}
		worst := 1
		for _, bm := range banks {
			worst = max(worst, len(bm))
		}
		r.Wavefronts += worst
		r.Ideal++
		r.MaxWays = max(r.MaxWays, worst)
	}
	return r
}

// TestWarpAgainstMaps compares Warp with the map-based model on random
// aligned requests of every width.
func TestWarpAgainstMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		size := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		var addrs [32]uint64
		span := uint64(1) << (5 + rng.IntN(10))
		for l := range addrs {
			addrs[l] = rng.Uint64N(span) / uint64(size) * uint64(size)
		}
		mask := rng.Uint32()
		if got, want := Warp(mask, &addrs, size), mapWarp(mask, &addrs, size); got != want {
			t.Fatalf("size %d mask %#x addrs %v: %+v, the map model %+v", size, mask, addrs, got, want)
		}
	}
}

// BenchmarkWarpVsMaps reports Warp's time as a multiple of the map-based
// model's, in the same run (x-maps below 1: faster).
func BenchmarkWarpVsMaps(b *testing.B) {
	var addrs [32]uint64
	for l := range addrs {
		addrs[l] = 128*uint64(l%8) + 4*uint64(l)
	}
	timeOf := func(f func(uint32, *[32]uint64, int) Request) float64 {
		const n = 20000
		start := time.Now()
		for i := 0; i < n; i++ {
			f(^uint32(0), &addrs, 4)
		}
		return float64(time.Since(start)) / n
	}
	for i := 0; i < b.N; i++ {
		b.ReportMetric(timeOf(Warp)/timeOf(mapWarp), "x-maps")
	}
}
