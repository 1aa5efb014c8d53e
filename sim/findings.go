package sim

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Finding is one root cause: the observations of one rule joined when they
// share an instruction (the one that shows the problem, the other party,
// or the cause) or a Group. A missing fence read by three wgmmas from
// eight cp.async instructions is one finding with 24 sites, not 24
// findings; a wrong descriptor constant used by eight wgmmas is one
// finding.
type Finding struct {
	Rule     HazardKind
	Severity Severity
	// Msg, Detail and PTXAS are those of the representative site (the
	// first by cause line, then position).
	Msg, Detail, PTXAS string
	// Pos is where the representative shows; Cause is the line to fix
	// (Pos when the observation named no other); Related the other party.
	Pos, Cause, Related ptx.Position
	Sites               []Site
	// Count is the number of observations; CTAs, Warps and Threads count
	// the distinct ones involved (the async proxy counts as no warp);
	// Bytes the distinct shared-memory offsets.
	Count, CTAs, Warps, Threads, Bytes int
}

// Site is one (rule, instruction, related instruction, cause) with how
// often it was seen.
type Site struct {
	Pos, Related, Cause ptx.Position
	Msg                 string
	Count               int
}

// Findings groups the observations into one finding per root cause,
// sorted by severity, then by the line of the cause.
func (m *Machine) Findings() []Finding {
	m.mu.Lock()
	sites := append([]*site(nil), m.hazards.list...)
	m.mu.Unlock()
	// union-find over sites: two sites join when they share a node
	parent := make([]int, len(sites))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	node := func(i int, key string) {
		if j, ok := owner[key]; ok {
			a, b := find(i), find(j)
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
			return
		}
		owner[key] = i
	}
	posKey := func(k HazardKind, p ptx.Position) string {
		return fmt.Sprintf("%s\x00%s:%d:%d", k, p.Filename, p.Line, p.Col)
	}
	for i, s := range sites {
		h := s.h
		if h.PC >= 0 {
			node(i, posKey(h.Kind, h.Pos))
		}
		if h.Related.IsValid() {
			node(i, posKey(h.Kind, h.Related))
		}
		if h.Cause.IsValid() {
			node(i, posKey(h.Kind, h.Cause))
		}
		if h.Group != "" {
			node(i, string(h.Kind)+"\x00g:"+h.Group)
		}
		if h.PC < 0 && !h.Related.IsValid() && !h.Cause.IsValid() && h.Group == "" {
			node(i, string(h.Kind)+"\x00nowhere")
		}
	}
	groups := map[int][]*site{}
	var roots []int
	for i := range sites {
		r := find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], sites[i])
	}
	out := make([]Finding, 0, len(roots))
	for _, r := range roots {
		out = append(out, makeFinding(groups[r]))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Cause.Line != b.Cause.Line {
			return a.Cause.Line < b.Cause.Line
		}
		return a.Rule < b.Rule
	})
	return out
}

func makeFinding(ss []*site) Finding {
	sort.SliceStable(ss, func(i, j int) bool {
		a, b := ss[i].h, ss[j].h
		ca, cb := a.CausePos(), b.CausePos()
		if ca.Line != cb.Line {
			return ca.Line < cb.Line
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		return a.Related.Line < b.Related.Line
	})
	rep := ss[0].h
	f := Finding{Rule: rep.Kind, Severity: rep.Severity, Msg: rep.Msg, Detail: rep.Detail, PTXAS: rep.PTXAS,
		Pos: rep.Pos, Cause: rep.CausePos(), Related: rep.Related}
	lanes := map[[4]int]uint32{}
	ctas := map[[3]int]bool{}
	var by spans
	for _, s := range ss {
		f.Sites = append(f.Sites, Site{Pos: s.h.Pos, Related: s.h.Related, Cause: s.h.Cause, Msg: s.h.Msg, Count: s.h.Count})
		f.Count += s.h.Count
		if s.h.Severity < f.Severity {
			f.Severity = s.h.Severity
		}
		for k, v := range s.lanes {
			lanes[k] |= v
			ctas[[3]int{k[0], k[1], k[2]}] = true
		}
		for _, x := range s.bytes {
			by.add(x.lo, x.hi)
		}
	}
	f.CTAs = len(ctas)
	for k, v := range lanes {
		if k[3] >= 0 {
			f.Warps++
			f.Threads += bits.OnesCount32(v)
		}
	}
	f.Bytes = by.size()
	return f
}
