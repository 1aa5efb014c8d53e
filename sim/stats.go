package sim

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/banks"
)

// Stats collects shared-memory bank-conflict statistics per instruction,
// with the bank model of sim/banks: every warp-level ld.shared,
// st.shared, ldmatrix and stmatrix is one request, served in phases whose
// cost is the most distinct 4-byte words any bank delivers.
type Stats struct {
	mu   sync.Mutex
	bank map[int]*BankStat
}

// BankStat is the bank-conflict record of one instruction.
type BankStat struct {
	PC         int
	Pos        ptx.Position
	Inst       string
	Bytes      int   // bytes each lane accesses (16 for an ldmatrix/stmatrix row)
	Requests   int64 // warp-level executions
	Wavefronts int64 // shared-memory wavefronts they took
	Ideal      int64 // wavefronts without conflicts
	MaxWays    int   // worst bank conflict degree seen
	Conflicted int64 // requests that took more wavefronts than ideal
}

func newStats() *Stats { return &Stats{bank: map[int]*BankStat{}} }

// memAccess records the request of the lanes of m, each accessing size
// bytes at addrs[lane], if it is a shared-memory request.
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
	r := banks.Warp(m, &lanes, size)
	s.mu.Lock()
	b := s.bank[in.PC]
	if b == nil {
		b = &BankStat{PC: in.PC, Inst: in.PTX.String(), Bytes: size}
		s.bank[in.PC] = b
	}
	b.Requests++
	b.Wavefronts += int64(r.Wavefronts)
	b.Ideal += int64(r.Ideal)
	b.MaxWays = max(b.MaxWays, r.MaxWays)
	if r.Conflicted() {
		b.Conflicted++
	}
	s.mu.Unlock()
}

// BankStats returns the bank record of every shared-memory instruction
// that ran (ld.shared, st.shared, ldmatrix, stmatrix), in program order.
// It is nil unless the run had Options.Check.
func (m *Machine) BankStats() []BankStat {
	if m.stats == nil {
		return nil
	}
	m.stats.mu.Lock()
	defer m.stats.mu.Unlock()
	out := make([]BankStat, 0, len(m.stats.bank))
	for _, b := range m.stats.bank {
		c := *b
		c.Pos = m.Prog.pos(&m.Prog.Insts[b.PC])
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PC < out[j].PC })
	return out
}

// BankConflicts returns the instructions with bank conflicts (more
// wavefronts than ideal), worst first. It is nil unless the run had
// Options.Check.
func (m *Machine) BankConflicts() []BankStat {
	var out []BankStat
	for _, b := range m.BankStats() {
		if b.Wavefronts > b.Ideal {
			out = append(out, b)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Wavefronts-out[i].Ideal > out[j].Wavefronts-out[j].Ideal
	})
	return out
}

// String describes the record on one line: where, the instruction, and
// what its requests cost against the ideal for their access width, e.g.
// "k.ptx:11:2: ld.shared.u32 %r9, [%r4]: 1 request of 4-byte accesses took
// 32 wavefronts, ideal 1 (32.00x); worst phase 32-way".
func (b BankStat) String() string {
	what := fmt.Sprintf("%d-byte accesses", b.Bytes)
	if b.Bytes == 16 && (strings.HasPrefix(b.Inst, "ldmatrix") || strings.HasPrefix(b.Inst, "stmatrix")) {
		what = "16-byte rows"
	}
	reqs := fmt.Sprintf("%d requests", b.Requests)
	if b.Requests == 1 {
		reqs = "1 request"
	} else if b.Conflicted < b.Requests {
		reqs += fmt.Sprintf(" (%d with conflicts)", b.Conflicted)
	}
	return fmt.Sprintf("%s: %s: %s of %s took %d wavefronts, ideal %d (%.2fx); worst phase %d-way",
		b.Pos, b.Inst, reqs, what, b.Wavefronts, b.Ideal, float64(b.Wavefronts)/float64(max(b.Ideal, 1)), b.MaxWays)
}
