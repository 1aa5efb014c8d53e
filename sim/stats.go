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
	mu       sync.Mutex
	bank     map[int]*BankStat
	reported bool // reportBankConflicts has run
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
	// warps holds, per (CTA, warp), the lanes of its conflicted requests.
	warps map[[4]int]uint32
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
		if b.warps == nil {
			b.warps = map[[4]int]uint32{}
		}
		id := w.cta.ID
		b.warps[[4]int{id[0], id[1], id[2], w.ID}] |= m
	}
	s.mu.Unlock()
}

// reportBankConflicts turns the statistics into performance findings (rule
// perf/bank-conflict, severity perf): one site per instruction whose
// requests took more wavefronts than ideal, observed by every warp that
// made such a request, with the instruction's totals as its message; the
// sites of one kernel-source line (by .loc) form one finding. The run
// calls it once, when the grid has finished.
func (m *Machine) reportBankConflicts() {
	if m.stats == nil || m.stats.reported {
		return
	}
	m.stats.reported = true
	for _, b := range m.BankConflicts() {
		msg := b.summary()
		var keys [][4]int
		m.stats.mu.Lock()
		for k := range m.stats.bank[b.PC].warps {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			for x := 0; x < 4; x++ {
				if keys[i][x] != keys[j][x] {
					return keys[i][x] < keys[j][x]
				}
			}
			return false
		})
		lanes := m.stats.bank[b.PC].warps
		m.stats.mu.Unlock()
		in := &m.Prog.Insts[b.PC]
		pos := m.Prog.pos(in)
		// The instructions of one kernel-source line (the one store an
		// unrolled loop repeats) are one finding; each keeps its own
		// site and message.
		group := ""
		if src, ok := m.Prog.SourceOf(int(pos.Line)); ok {
			group = fmt.Sprintf("bank %s:%d", src.File, src.Line)
		}
		for _, k := range keys {
			m.hazard(Hazard{Kind: HzBankConflict, Severity: SevPerf, Pos: pos, PC: b.PC, Group: group,
				CTA: [3]int{k[0], k[1], k[2]}, Warp: k[3], Lanes: lanes[k], Msg: msg})
		}
	}
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
	return fmt.Sprintf("%s: %s: %s", b.Pos, b.Inst, b.summary())
}

// summary is the cost part of String: "1 request of 4-byte accesses took
// 32 wavefronts, ideal 1 (32.00x); worst phase 32-way".
func (b BankStat) summary() string {
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
	return fmt.Sprintf("%s of %s took %d wavefronts, ideal %d (%.2fx); worst phase %d-way",
		reqs, what, b.Wavefronts, b.Ideal, float64(b.Wavefronts)/float64(max(b.Ideal, 1)), b.MaxWays)
}
