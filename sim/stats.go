package sim

import (
	"sort"
	"sync"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Stats collects shared-memory bank-conflict statistics per instruction.
// The model: 32 banks of 4 bytes; a warp's request is split into phases
// (all 32 lanes for accesses up to 4 bytes, half-warps for 8 bytes,
// quarter-warps for 16 bytes); in each phase, lanes that touch distinct
// 4-byte words of one bank are serialized (the same word is a broadcast).
// The cost of a request is the sum over phases of the largest number of
// distinct words any bank serves.
type Stats struct {
	mu   sync.Mutex
	bank map[int]*BankStat
}

// BankStat is the bank-conflict record of one instruction.
type BankStat struct {
	PC         int
	Pos        ptx.Position
	Inst       string
	Requests   int64 // warp-level executions
	Wavefronts int64 // shared-memory wavefronts they took
	Ideal      int64 // wavefronts without conflicts
	MaxWays    int   // worst bank conflict degree seen
}

func newStats() *Stats { return &Stats{bank: map[int]*BankStat{}} }

func (s *Stats) memAccess(w *Warp, in *Inst, m uint32, addrs *[32]uint64, size int) {
	var lanes [32]uint64
	n := 0
	for l := 0; l < 32; l++ {
		if m>>l&1 == 0 {
			continue
		}
		ms, a := resolve(in.space, addrs[l])
		if ms != msShared {
			return
		}
		lanes[l] = a
		n++
	}
	if n == 0 {
		return
	}
	per := 32
	switch {
	case size == 8:
		per = 16
	case size >= 16:
		per = 8
	}
	words := (size + 3) / 4
	var waves, ideal int64
	maxWays := 1
	for p := 0; p < 32; p += per {
		var banks [32]map[uint64]bool
		any := false
		for l := p; l < p+per; l++ {
			if m>>l&1 == 0 {
				continue
			}
			any = true
			for k := 0; k < words; k++ {
				word := lanes[l]/4 + uint64(k)
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
			if len(bm) > worst {
				worst = len(bm)
			}
		}
		waves += int64(worst)
		ideal++
		maxWays = max(maxWays, worst)
	}
	s.mu.Lock()
	b := s.bank[in.PC]
	if b == nil {
		b = &BankStat{PC: in.PC, Inst: in.PTX.String()}
		s.bank[in.PC] = b
	}
	b.Requests++
	b.Wavefronts += waves
	b.Ideal += ideal
	b.MaxWays = max(b.MaxWays, maxWays)
	s.mu.Unlock()
}

// BankConflicts returns the instructions with bank conflicts, worst first.
// It is nil unless the run had Options.Check.
func (m *Machine) BankConflicts() []BankStat {
	if m.stats == nil {
		return nil
	}
	m.stats.mu.Lock()
	defer m.stats.mu.Unlock()
	var out []BankStat
	for _, b := range m.stats.bank {
		if b.Wavefronts > b.Ideal {
			c := *b
			c.Pos = m.Prog.pos(&m.Prog.Insts[b.PC])
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Wavefronts-out[i].Ideal > out[j].Wavefronts-out[j].Ideal
	})
	return out
}
