package sim

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

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
	// Consequences are observations of other rules that this root cause
	// made happen (reads of bytes that had not landed, copies overlapping,
	// extra arrivals, lapped waiters, the deadlock). Which of them a run
	// shows depends on the schedule, so they are listed here and are not
	// findings of their own (findings_roots.go).
	Consequences []Consequence
}

// Consequence is a site of another rule that a root cause explains.
type Consequence struct {
	Rule HazardKind
	Site
}

// Site is one (rule, instruction, related instruction, cause) with how
// often it was seen.
type Site struct {
	Pos, Related, Cause ptx.Position
	Msg                 string
	Count               int
}

// Findings groups the observations into one finding per root cause,
// sorted by severity, then by the line of the cause. Observations of one
// rule join when they share an instruction (where it shows, the other
// party, the line to fix) or a Group, or when they were made at
// instructions of one straight stretch of code with no synchronization
// between them (one missing wait before four tcgen05.ld is one finding).
// Observations that a root cause explains become its Consequences.
func (m *Machine) Findings() []Finding {
	m.mu.Lock()
	var all []*site
	for _, s := range m.hazards.list {
		if !s.dropped() {
			all = append(all, s)
		}
	}
	folded, same := m.hazards.roots.classify(all)
	m.mu.Unlock()
	var sites []*site
	index := map[*site]int{}
	for _, s := range all {
		if folded[s] == nil {
			index[s] = len(sites)
			sites = append(sites, s)
		}
	}
	u := newUnion(len(sites))
	u.joinShared(sites)
	for s, r := range same {
		if i, ok := index[s]; ok {
			if j, ok := index[r]; ok {
				u.join(i, j)
			}
		}
	}
	for _, pair := range m.Prog.stretchPairs(m.leaderMap(), sites) {
		u.join(pair[0], pair[1])
	}
	groups := map[int][]*site{}
	var roots []int
	for i := range sites {
		r := u.find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], sites[i])
	}
	out := make([]Finding, 0, len(roots))
	findingOf := map[*site]int{}
	for _, r := range roots {
		for _, s := range groups[r] {
			findingOf[s] = len(out)
		}
		out = append(out, makeFinding(groups[r]))
	}
	for _, s := range all {
		root := folded[s]
		for n := 0; root != nil && folded[root] != nil && n < len(all); n++ {
			root = folded[root]
		}
		if root != nil {
			out[findingOf[root]].addConsequence(s)
		}
	}
	for i := range out {
		cs := out[i].Consequences
		sort.SliceStable(cs, func(a, b int) bool {
			if cs[a].Rule != cs[b].Rule {
				return cs[a].Rule < cs[b].Rule
			}
			return cs[a].Pos.Line < cs[b].Pos.Line
		})
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

// classify decides which sites are consequences of a root cause (folded:
// site -> the root's site) and which are the root cause seen again at
// another instruction (same: site -> the root's site, of the same rule),
// m.mu held.
func (rs *rootSet) classify(all []*site) (folded, same map[*site]*site) {
	folded, same = map[*site]*site{}, map[*site]*site{}
	lappedAt := map[ptx.Position]*site{}
	for _, s := range all {
		if s.h.Kind == HzMbarLapped {
			if _, ok := lappedAt[s.h.Pos]; !ok {
				lappedAt[s.h.Pos] = s
			}
		}
	}
	// A wrong parity at a lapped wait is the lapping seen from the waiter:
	// it explains nothing of its own.
	demoted := map[*rootRec]bool{}
	for _, rec := range rs.list {
		if rec.site.dropped() {
			demoted[rec] = true // it turned out to be another finding
		}
	}
	for _, s := range all {
		if s.links.root != nil && s.h.Kind == HzMbarPhase && lappedAt[s.h.CausePos()] != nil {
			demoted[s.links.root] = true
		}
	}
	for _, s := range all {
		if rec := rs.rootOf(s, demoted); rec != nil {
			if rec.site.h.Kind == s.h.Kind {
				same[s] = rec.site
			} else {
				folded[s] = rec.site
			}
		}
	}
	for _, s := range all {
		// A lapped waiter's parity wait passes on the wrong phase: that
		// wrong parity is the lapping's consequence, not a second bug
		// (even where it was reported as a root cause: what it explained,
		// the lapping explains).
		if l := lappedAt[s.h.CausePos()]; l != nil && s.h.Kind == HzMbarPhase && folded[s] == nil {
			folded[s] = l
			if folded[l] == s {
				delete(folded, l)
			}
		}
	}
	for s, r := range same {
		if folded[r] != nil {
			// the root is itself a consequence: so are its other sites
			folded[s] = r
			delete(same, s)
		}
	}
	return folded, same
}

// addConsequence lists site s under f, merged with the consequences of
// the same rule at the same instruction.
func (f *Finding) addConsequence(s *site) {
	for i := range f.Consequences {
		if c := &f.Consequences[i]; c.Rule == s.h.Kind && c.Pos == s.h.Pos {
			c.Count += s.h.Count
			return
		}
	}
	f.Consequences = append(f.Consequences, Consequence{Rule: s.h.Kind,
		Site: Site{Pos: s.h.Pos, Related: s.h.Related, Cause: s.h.Cause, Msg: s.h.Msg, Count: s.h.Count}})
}

// union is a union-find over site indices.
type union []int

func newUnion(n int) union {
	u := make(union, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u union) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u union) join(i, j int) {
	if a, b := u.find(i), u.find(j); a != b {
		u[max(a, b)] = min(a, b)
	}
}

// joinShared joins sites of one rule that share an instruction (where it
// shows, the other party, the cause) or a Group.
func (u union) joinShared(sites []*site) {
	owner := map[string]int{}
	node := func(i int, key string) {
		if j, ok := owner[key]; ok {
			u.join(i, j)
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
}

// stretchPairs lists pairs of sites (indices) of one rule at
// instructions of one straight stretch of code: no branch, label or
// synchronization between them (performance findings stay per line).
func (p *Program) stretchPairs(leader []bool, sites []*site) [][2]int {
	byRule := map[HazardKind][]int{}
	for i, s := range sites {
		if s.h.PC >= 0 && s.h.PC < len(p.Insts) && s.h.Severity != SevPerf {
			byRule[s.h.Kind] = append(byRule[s.h.Kind], i)
		}
	}
	var out [][2]int
	for _, is := range byRule {
		if len(is) < 2 {
			continue
		}
		sort.Slice(is, func(a, b int) bool { return sites[is[a]].h.PC < sites[is[b]].h.PC })
		for k := 1; k < len(is); k++ {
			if p.straight(leader, sites[is[k-1]].h.PC, sites[is[k]].h.PC) {
				out = append(out, [2]int{is[k-1], is[k]})
			}
		}
	}
	return out
}

// leaders marks the first instruction of every basic block.
func (p *Program) leaders() []bool {
	l := make([]bool, len(p.Insts)+1)
	for pc := range p.Insts {
		in := &p.Insts[pc]
		switch in.PTX.Opcode {
		case "bra", "brx.idx", "exit", "ret", "trap":
			l[pc+1] = true
			if in.target >= 0 && in.target < len(l) {
				l[in.target] = true
			}
		}
	}
	return l
}

// straight reports whether the instructions a < b are in one basic block
// with no synchronization strictly between them.
func (p *Program) straight(leader []bool, a, b int) bool {
	if a >= b || p.Insts[a].Func != p.Insts[b].Func {
		return a == b
	}
	for pc := a + 1; pc <= b; pc++ {
		if leader[pc] || pc < b && isSyncOp(p.Insts[pc].PTX.Opcode) {
			return false
		}
	}
	return true
}

// isSyncOp reports whether an opcode synchronizes, waits, fences or
// commits: a missing one of them is what a stretch of findings shares.
func isSyncOp(op string) bool {
	for _, pre := range []string{"bar.", "barrier.", "mbarrier.", "fence.", "membar", "tcgen05.wait", "tcgen05.fence", "tcgen05.commit",
		"wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "cp.async.wait", "cp.async.bulk.wait", "cp.async.bulk.commit", "cp.async.commit", "cp.async.mbarrier", "griddepcontrol"} {
		if strings.HasPrefix(op, pre) {
			return true
		}
	}
	switch op {
	case "bar", "barrier", "fence", "membar":
		return true
	}
	return false
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
