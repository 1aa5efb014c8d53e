// Package banks is tcsim's one model of the shared-memory banks: the
// simulator counts the wavefronts of every ld.shared, st.shared, ldmatrix
// and stmatrix with it (tcsim run --check reports the conflicts), and the
// TUI's swizzle view draws it.
//
// Shared memory has 32 banks of 4 bytes: byte address a is in bank
// (a/4) mod 32. The accesses the hardware serves together (a phase) take
// as many wavefronts as the largest number of distinct 4-byte words any
// one bank must deliver; accesses to the same word are a broadcast and
// cost nothing extra, so a phase of one wavefront is conflict-free.
//
// A warp's ld.shared or st.shared is served in phases of 128 bytes: all
// 32 lanes for accesses of up to 4 bytes, half-warps for 8 bytes, quarter
// warps for 16 bytes. ldmatrix and stmatrix move 16-byte rows, so each of
// their 8x8 matrices (the rows whose addresses lanes 8j..8j+7 supply) is
// one phase. The ideal cost of a request is one wavefront per phase that
// has an active lane.
package banks

// The geometry of shared memory.
const (
	Count      = 32  // banks
	WordBytes  = 4   // bytes of one bank word
	PhaseBytes = 128 // bytes one wavefront delivers, one word per bank
)

// Bank is the bank of byte address a.
func Bank(a uint64) int { return int(a / WordBytes % Count) }

// Access is one access of a phase: Bytes bytes from byte address Addr.
type Access struct {
	Addr  uint64
	Bytes int
}

// maxWords bounds the words of one phase: 32 accesses of 16 bytes.
const maxWords = 32 * 4

// Wavefronts is what one phase costs: the largest number of distinct
// 4-byte words any bank delivers (0 for no access), and the banks that
// deliver more than one word, in increasing order.
func Wavefronts(accs []Access) (wavefronts int, conflicts []int) {
	var perBank [Count]int
	words := make([]uint64, 0, maxWords)
	for _, a := range accs {
		n := uint64(max(a.Bytes, 1))
		for w := a.Addr / WordBytes; w <= (a.Addr+n-1)/WordBytes; w++ {
			words = append(words, w)
		}
	}
	// Distinct words: a small insertion sort (at most 128 words, and
	// mostly in order) beats a map.
	for i := 1; i < len(words); i++ {
		for j := i; j > 0 && words[j] < words[j-1]; j-- {
			words[j], words[j-1] = words[j-1], words[j]
		}
	}
	for i, w := range words {
		if i == 0 || w != words[i-1] {
			perBank[w%Count]++
		}
	}
	for b, n := range perBank {
		wavefronts = max(wavefronts, n)
		if n > 1 {
			conflicts = append(conflicts, b)
		}
	}
	return wavefronts, conflicts
}

// LanesPerPhase is how many lanes of a warp one phase of an ld.shared or
// st.shared of n bytes per lane serves: 32 up to 4 bytes, 16 for 8 bytes,
// 8 for 16 bytes (128 bytes a phase).
func LanesPerPhase(n int) int {
	switch {
	case n >= 16:
		return 8
	case n >= 8:
		return 16
	}
	return 32
}

// Request is the cost of one warp's shared-memory request.
type Request struct {
	Wavefronts int // the wavefronts its phases took
	Ideal      int // the wavefronts without conflicts: one per phase with an active lane
	MaxWays    int // the worst phase's wavefronts (1: conflict-free)
}

// Conflicted reports whether the request took more wavefronts than ideal.
func (r Request) Conflicted() bool { return r.Wavefronts > r.Ideal }

// Warp is the cost of a warp's request in which every lane of mask
// accesses size bytes at addrs[lane] (an ld.shared or st.shared of size
// bytes, or an ldmatrix/stmatrix with size 16 and the lanes that supply
// row addresses).
func Warp(mask uint32, addrs *[32]uint64, size int) Request {
	per := LanesPerPhase(size)
	var r Request
	var buf [32]Access
	for p := 0; p < 32; p += per {
		accs := buf[:0]
		for l := p; l < p+per; l++ {
			if mask>>l&1 != 0 {
				accs = append(accs, Access{Addr: addrs[l], Bytes: size})
			}
		}
		if len(accs) == 0 {
			continue
		}
		w, _ := Wavefronts(accs)
		r.Wavefronts += w
		r.Ideal++
		r.MaxWays = max(r.MaxWays, w)
	}
	return r
}
