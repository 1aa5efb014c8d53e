package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Severity ranks a hazard.
type Severity uint8

const (
	// SevError is a violation of the PTX ISA's rules: undefined behavior
	// that may or may not show on a given GPU, compiler or run.
	SevError Severity = iota
	// SevWarning is legal but suspicious, or depends on what ptxas does.
	SevWarning
	// SevPerf is a performance finding (bank conflicts), not a bug.
	SevPerf
)

func (s Severity) String() string {
	return [...]string{"error", "warning", "perf"}[s]
}

// HazardKind names a class of hazard. The names are stable: tests and
// tools match on them.
type HazardKind string

// The hazard kinds.
const (
	HzWgmmaAccRead     HazardKind = "wgmma-acc-read"       // accumulator of an in-flight wgmma read before wait_group
	HzWgmmaAccWrite    HazardKind = "wgmma-acc-write"      // accumulator of an in-flight wgmma written
	HzWgmmaAWrite      HazardKind = "wgmma-a-write"        // register-A fragment of an in-flight wgmma written
	HzWgmmaAReadFlight HazardKind = "wgmma-a-read"         // register-A fragment read while its wgmma is in flight
	HzWgmmaNoFence     HazardKind = "wgmma-missing-fence"  // registers written, then a wgmma reads them with no wgmma.fence between
	HzWgmmaAligned     HazardKind = "wgmma-aligned"        // warps of a warpgroup disagree on a .sync.aligned wgmma instruction
	HzWgmmaExit        HazardKind = "wgmma-in-flight-exit" // a warp exits with wgmma operations not waited for
	HzWgmmaDesc        HazardKind = "wgmma-descriptor"     // a descriptor is invalid or reads outside shared memory
	HzWgmmaCommit      HazardKind = "wgmma-uncommitted"    // wait_group with wgmma operations never committed
	HzProxyFence       HazardKind = "async-proxy-fence"    // generic-proxy SMEM writes read by the async proxy without fence.proxy.async
	HzAsyncEarlyRead   HazardKind = "async-early-read"     // a TMA/bulk destination read before its completion was observed
	HzAsyncSourceReuse HazardKind = "async-source-reuse"   // SMEM an in-flight async operation reads is overwritten
	HzAsyncAlign       HazardKind = "async-alignment"      // alignment or size rules of cp.async.bulk / TMA
	HzAsyncOverlap     HazardKind = "async-overlap"        // two copies in one group write the same bytes
	HzAsyncExit        HazardKind = "async-in-flight-exit" // a CTA exits with bulk copies still reading its shared memory
	HzMbarUninit       HazardKind = "mbarrier-uninit"      // mbarrier used before mbarrier.init
	HzMbarReinit       HazardKind = "mbarrier-reinit"      // mbarrier.init on a live barrier
	HzMbarUnderflow    HazardKind = "mbarrier-underflow"   // more arrivals than the expected count
	HzMbarTx           HazardKind = "mbarrier-tx-range"    // tx-count out of range
	HzMbarPhase        HazardKind = "mbarrier-phase"       // a wait that can never succeed, or succeeds on a stale phase
	HzMbarGenericWrite HazardKind = "mbarrier-overwrite"   // generic store over a live mbarrier object
	HzDeadlock         HazardKind = "deadlock"             // no warp can make progress
	HzRace             HazardKind = "smem-race"            // shared-memory accesses not ordered by synchronization
	HzBankConflict     HazardKind = "bank-conflict"        // shared-memory bank conflicts (performance)
	HzBarrierCount     HazardKind = "barrier-count"        // arrivals of one barrier phase disagree on the thread count
	HzWarpSync         HazardKind = "warp-sync"            // a .sync warp instruction whose membermask is not all executing
	HzClusterBarrier   HazardKind = "cluster-barrier"      // barrier.cluster misuse
	HzSetmaxnreg       HazardKind = "setmaxnreg"           // setmaxnreg rules
	HzTmemAlloc        HazardKind = "tmem-alloc"           // tcgen05.alloc/dealloc rules
	HzTmemLane         HazardKind = "tmem-lane"            // a warp touches TMEM lanes outside its quarter
	HzTcgenWaitLd      HazardKind = "tcgen05-wait-ld"      // tcgen05.ld results used without tcgen05.wait::ld
	HzTcgenWaitSt      HazardKind = "tcgen05-wait-st"      // TMEM reused after tcgen05.st without tcgen05.wait::st
	HzTcgenFence       HazardKind = "tcgen05-fence"        // cross-thread TMEM handoff without tcgen05.fence
	HzCtaGroup         HazardKind = "tcgen05-cta-group"    // .cta_group::1 and ::2 mixed in one kernel
	HzTcgenInFlight    HazardKind = "tcgen05-in-flight"    // TMEM read while a tcgen05.mma writing it is in flight
	HzTensorMap        HazardKind = "tensormap"            // prefetch.tensormap of bytes that are not a CUtensorMap the driver writes
)

// Hazard is one finding of the checker.
type Hazard struct {
	Kind     HazardKind
	Severity Severity
	Pos      ptx.Position // the instruction where it was detected
	PC       int
	CTA      [3]int
	Warp     int    // warp in the CTA, or -1
	Lanes    uint32 // lanes involved, 0 when not lane-specific
	Msg      string // one line: what happened
	Detail   string // more lines: why it is a problem, where the other party is
	// PTXAS says what ptxas does with the pattern, where it repairs or
	// serializes it (advisories C7509-C7520), or "".
	PTXAS string
	// Related is the other instruction involved (the wgmma, the writer).
	Related ptx.Position
	// Count is the number of times it was seen (CTAs, warps, iterations).
	Count int
}

func (h Hazard) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s [%s]: %s", h.Pos, h.Severity, h.Kind, h.Msg)
	if h.Warp >= 0 {
		fmt.Fprintf(&b, " (CTA %s warp %d", fmtID(h.CTA), h.Warp)
		if h.Lanes != 0 && h.Lanes != fullMask {
			fmt.Fprintf(&b, " lanes %#08x", h.Lanes)
		}
		b.WriteString(")")
	}
	if h.Count > 1 {
		fmt.Fprintf(&b, " ×%d", h.Count)
	}
	if h.Related.IsValid() {
		fmt.Fprintf(&b, "\n    related: %s", h.Related)
	}
	if h.Detail != "" {
		for _, l := range strings.Split(h.Detail, "\n") {
			b.WriteString("\n    " + l)
		}
	}
	if h.PTXAS != "" {
		b.WriteString("\n    ptxas: " + h.PTXAS)
	}
	return b.String()
}

type hazardKey struct {
	kind    HazardKind
	pc      int
	related ptx.Pos
}

type hazardSet struct {
	byKey map[hazardKey]int
	list  []Hazard
}

// hazard records a finding (deduplicated by kind, instruction and message).
func (m *Machine) hazard(h Hazard) {
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := &m.hazards
	if hs.byKey == nil {
		hs.byKey = map[hazardKey]int{}
	}
	if h.Pos.Filename == "" && h.Pos.Line == 0 && h.PC >= 0 && h.PC < len(m.Prog.Insts) {
		h.Pos = m.Prog.pos(&m.Prog.Insts[h.PC])
	}
	if h.Pos.Filename == "" {
		h.Pos.Filename = m.Prog.Filename
	}
	k := hazardKey{h.Kind, h.PC, h.Related.Pos}
	if i, ok := hs.byKey[k]; ok {
		// Keep the first instance in grid order as the representative, so
		// that reports do not depend on which CTA ran first.
		old := &hs.list[i]
		if m.ctaLess(h, *old) {
			h.Count = old.Count
			*old = h
		}
		old.Count++
		return
	}
	h.Count = 1
	hs.byKey[k] = len(hs.list)
	hs.list = append(hs.list, h)
	if m.trace != nil {
		m.trace.hazard(h)
	}
	if m.stepper != nil {
		m.stepper.onHazard(h)
	}
}

func (m *Machine) ctaLess(a, b Hazard) bool {
	la := a.CTA[0] + m.Grid[0]*(a.CTA[1]+m.Grid[1]*a.CTA[2])
	lb := b.CTA[0] + m.Grid[0]*(b.CTA[1]+m.Grid[1]*b.CTA[2])
	if la != lb {
		return la < lb
	}
	return a.Warp < b.Warp
}

// Hazards returns the findings sorted by position, errors first.
func (m *Machine) Hazards() []Hazard {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]Hazard(nil), m.hazards.list...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity < out[j].Severity
		}
		a, b := out[i].Pos, out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

// Errors returns the hazards of severity error and warning.
func (m *Machine) Errors() []Hazard {
	var out []Hazard
	for _, h := range m.Hazards() {
		if h.Severity != SevPerf {
			out = append(out, h)
		}
	}
	return out
}

// ApproxPCs lists the instructions that ran and whose results are not
// bit-exact (approximate math computed in float64).
func (m *Machine) ApproxPCs() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for pc := range m.approx {
		out = append(out, pc)
	}
	sort.Ints(out)
	return out
}

// ptxas advisories (messages ptxas prints for wgmma pipelines; the codes
// are ptxas's).
const (
	ptxasC7513 = "C7513: ptxas serializes the wgmma pipeline (non-wgmma instructions defining input registers of a wgmma between start and end of the pipeline stage)"
	ptxasC7514 = "C7514: ptxas serializes the wgmma pipeline (non-wgmma instructions reading accumulator registers of a wgmma between start and end of the pipeline stage), or injects a warpgroup.wait (C7517) where it can"
	ptxasC7515 = "C7515: ptxas serializes the wgmma pipeline (non-wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage)"
	ptxasC7517 = "C7517: ptxas injects a warpgroup.wait before this use of registers defined by wgmma, so compiled code usually works; the PTX is still wrong and another compiler or version may not repair it"
	ptxasC7519 = "C7519: ptxas injects a warpgroup.arrive (wgmma.fence) before the wgmma to allow use of these registers; the PTX relies on the compiler's repair"
	ptxasC7516 = "C7516: an ill-formed pipeline stage (fence/mma/commit/wait not matched on every path) makes ptxas serialize the wgmma pipeline"
)
