package sim

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Severity ranks a hazard.
type Severity uint8

const (
	// SevError: results are wrong or undefined in a way the hardware is
	// known to expose (early reads, reuse before a wait, wrong parity,
	// tx-count mismatches, out-of-bounds, deadlocks, races).
	SevError Severity = iota
	// SevWarning: undefined by the ISA and plausibly exposed.
	SevWarning
	// SevNote is a portability note: undefined by the ISA, but emitted by
	// production compilers and executed correctly by the H100 (the rule's
	// documentation says which compiler and what was measured).
	SevNote
	// SevPerf is a performance finding (bank conflicts), not a bug.
	SevPerf
)

func (s Severity) String() string {
	return [...]string{"error", "warning", "note", "perf"}[s]
}

// HazardKind is a rule's identity, "family/name" (rules.go lists them).
// The names are stable: tests and tools match on them.
type HazardKind string

// Hazard is one observation of the checker: a rule broken at one
// instruction, by one warp (or the async proxy) of one CTA. Observations of
// the same rule at the same instructions are merged into one site (Count
// and the aggregates grow); Machine.Findings groups sites into one finding
// per root cause.
type Hazard struct {
	Kind     HazardKind
	Severity Severity     // set from the rule table when reported
	Pos      ptx.Position // the instruction where it was detected (the symptom)
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
	// Cause is the instruction to change when it is not Pos: the
	// expect_tx whose byte count is wrong, the mbarrier.init whose count
	// is wrong, the refill that lacks a barrier. Zero when Pos is the cause.
	Cause ptx.Position
	// Off and Bytes are the shared-memory bytes involved (Bytes 0: none).
	Off   uint32
	Bytes int
	// Group joins findings at different instructions that share one root
	// cause (for example one descriptor constant); "" for none.
	Group string
	// Count is the number of times it was seen (CTAs, warps, iterations).
	Count int

	// The checker's links from an observation to a root cause (see
	// findings_roots.go). span: warps Warp..Warp+span-1 made the
	// observation together (a warpgroup's wgmma), 0 or 1 for Warp alone;
	// via: the mbarrier whose protocol it concerns; stamp: the observer's
	// happens-before clock (nil: the reporting warp's).
	span  int
	via   *mbarKey
	stamp *hbStamp
}

// CausePos is the line to fix: Cause when set, else Pos.
func (h Hazard) CausePos() ptx.Position {
	if h.Cause.IsValid() {
		return h.Cause
	}
	return h.Pos
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
	if h.Cause.IsValid() {
		fmt.Fprintf(&b, "\n    cause: %s", h.Cause)
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
	cause   ptx.Pos
	group   string
}

// site is one merged observation with its aggregates.
type site struct {
	h     Hazard
	lanes map[[4]int]uint32 // (CTA, warp) -> lanes; warp -1 for the async proxy
	bytes spans
	links siteLinks // to root causes (findings_roots.go)
	// converted counts the observations that turned out to be another
	// finding (mbar_uninit.go); a site all of whose observations did is
	// no finding
	converted int
}

// dropped reports whether every observation of s was converted.
func (s *site) dropped() bool { return s.converted > 0 && s.converted >= s.h.Count }

type hazardSet struct {
	byKey      map[hazardKey]int
	list       []*site
	suppressed map[HazardKind]int
	roots      rootSet
	// leaders marks the program's basic-block starts (hazard_cause.go)
	leadersOnce sync.Once
	leaders     []bool
}

// hazard records an observation (merged by rule, instructions and group).
// Rules the policy allows are counted and dropped.
func (m *Machine) hazard(h Hazard) { m.record(h, nil) }

// record records an observation; root, when not nil, makes its site a
// root cause (findings_roots.go).
func (m *Machine) record(h Hazard, root *rootSpec) *site {
	sev, ok := m.Opts.Policy.Severity(h.Kind, h.Severity)
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := &m.hazards
	if !ok {
		if hs.suppressed == nil {
			hs.suppressed = map[HazardKind]int{}
		}
		hs.suppressed[h.Kind]++
		return nil
	}
	h.Severity = sev
	if hs.byKey == nil {
		hs.byKey = map[hazardKey]int{}
	}
	if h.Pos.Filename == "" && h.Pos.Line == 0 && h.PC >= 0 && h.PC < len(m.Prog.Insts) {
		h.Pos = m.Prog.pos(&m.Prog.Insts[h.PC])
	}
	if h.Pos.Filename == "" {
		h.Pos.Filename = m.Prog.Filename
	}
	k := hazardKey{h.Kind, h.PC, h.Related.Pos, h.Cause.Pos, h.Group}
	if i, ok := hs.byKey[k]; ok {
		// Keep the first instance in grid order as the representative, so
		// that reports do not depend on which CTA ran first.
		old := hs.list[i]
		old.add(h)
		hs.roots.observe(old, &h, root)
		if m.ctaLess(h, old.h) {
			h.Count = old.h.Count
			old.h = h
		}
		old.h.Count++
		return old
	}
	h.Count = 1
	s := &site{h: h}
	s.add(h)
	hs.roots.observe(s, &h, root)
	hs.byKey[k] = len(hs.list)
	hs.list = append(hs.list, s)
	if m.trace != nil {
		m.trace.hazard(h)
	}
	if m.stepper != nil && sev <= SevWarning {
		m.stepper.onHazard(h)
	}
	return s
}

func (s *site) add(h Hazard) {
	if s.lanes == nil {
		s.lanes = map[[4]int]uint32{}
	}
	lanes := h.Lanes
	if lanes == 0 && h.Warp >= 0 {
		lanes = fullMask
	}
	for k := 0; k < max(h.span, 1); k++ {
		key := [4]int{h.CTA[0], h.CTA[1], h.CTA[2], h.Warp + k}
		s.lanes[key] |= lanes
	}
	if h.Bytes > 0 {
		s.bytes.add(h.Off, h.Off+uint32(h.Bytes))
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

// Hazards returns the observations (one per rule and instructions) sorted
// by severity, then position.
func (m *Machine) Hazards() []Hazard {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Hazard, 0, len(m.hazards.list))
	for _, s := range m.hazards.list {
		if s.dropped() {
			continue
		}
		out = append(out, s.h)
	}
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
		if h.Severity <= SevWarning {
			out = append(out, h)
		}
	}
	return out
}

// Suppressed counts the observations of rules the policy allowed.
func (m *Machine) Suppressed() map[HazardKind]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[HazardKind]int{}
	for k, v := range m.hazards.suppressed {
		out[k] = v
	}
	return out
}

// ApproxPCs lists the instructions that ran and whose results are not
// bit-exact (approximate math without a verified model of the special function unit).
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
