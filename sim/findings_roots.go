package sim

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Root causes and their consequences.
//
// Some errors desynchronize a pipeline: an expect_tx that arms fewer bytes
// than its copies deliver, a wait on the wrong parity, an mbarrier whose
// count is smaller than one round of arrivals. What follows depends on the
// schedule: reads of bytes that had not landed, copies overlapping in
// flight, extra arrivals, lapped waiters, a deadlock. Those observations
// are consequences, not root causes: Findings folds them into the root's
// finding (Finding.Consequences) so that the set of findings, and their
// lines to fix, do not depend on --schedule.
//
// An observation is a consequence of root R when
//   - it concerns one of R's mbarriers (an access to a copy that completes
//     on it, an arrival on it, a waiter stuck on it: Hazard.via), or
//   - it is of a rule that describes a protocol symptom (consequenceRule)
//     and happens after a wait that passed on one of R's phases, in the
//     happens-before order: the observer's vector clock at the
//     observation (its stamp) covers one of R's taint points.
//
// Taint points are (unit, warp slot, clock) triples: the clock of a warp
// right after it acquired a tainted phase. They are recorded when the
// root is found (the acquires already made) and afterwards (every later
// acquire on a tainted barrier), so an observation made before the root
// was found is still judged by what it was ordered after.

// mbarKey names an mbarrier independently of the simulator's objects.
type mbarKey struct {
	cta  [3]int
	addr uint32
}

func keyOf(mb *mbarrier) mbarKey { return mbarKey{cta: mb.cta.ID, addr: mb.addr} }

// hbStamp is an observer's vector clock over the warp slots of its unit.
type hbStamp struct {
	unit uint64
	v    []uint32
}

// rootRec is one root cause: its site, and the points after which an
// observation is its consequence (unit → warp slot → smallest clock).
type rootRec struct {
	id     int
	site   *site
	taints map[uint64]map[int32]uint32
	// only, when not nil, lists the rules whose observations the root
	// explains (of consequenceRule's): a warp that read TMEM early goes on
	// out of step with the pipeline's barriers, but does not make other
	// threads race
	only []HazardKind
}

// rootSpec asks record to make a site a root cause.
type rootSpec struct {
	mbs    []*mbarrier
	points []taintPoint
	only   []HazardKind
}

type taintPoint struct {
	unit  uint64
	slot  int32
	clock uint32
}

// siteLinks are a site's links to root causes.
type siteLinks struct {
	root   *rootRec // the site is this root cause
	linked *rootRec // observations linked through their mbarrier (the first root)
	// free counts observations not linked through an mbarrier; stamps
	// keeps the clock of the first of them per unit; unstamped: one had
	// no clock (or the list was full)
	free      int
	stamps    []hbStamp
	unstamped bool
}

// maxStamps bounds the clocks a site keeps (one per unit).
const maxStamps = 4096

// rootSet is the machine's root causes and the registry of running units
// (for the clocks of observations reported by warp).
type rootSet struct {
	list   []*rootRec
	byMbar map[mbarKey]*rootRec
	units  map[[3]int]*raceState
}

var unitIDs atomic.Uint64

// registerUnit makes a unit's clocks available to observations of its
// CTAs (called from newRaceState).
func (m *Machine) registerUnit(r *raceState) {
	r.id = unitIDs.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := &m.hazards.roots
	if rs.units == nil {
		rs.units = map[[3]int]*raceState{}
	}
	for _, c := range r.u.ctas {
		rs.units[c.ID] = r
	}
}

// unregisterUnit forgets a finished unit.
func (m *Machine) unregisterUnit(r *raceState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range r.u.ctas {
		if m.hazards.roots.units[c.ID] == r {
			delete(m.hazards.roots.units, c.ID)
		}
	}
}

// stampOf is the clock of the warp that reports h (m.mu held; the unit's
// own goroutine reports it, so its clocks are not changing).
func (rs *rootSet) stampOf(h *Hazard) *hbStamp {
	if h.stamp != nil {
		return h.stamp
	}
	r := rs.units[h.CTA]
	if r == nil || h.Warp < 0 {
		return nil
	}
	for _, c := range r.u.ctas {
		if c.ID != h.CTA {
			continue
		}
		if h.Warp >= len(c.Warps) {
			return nil
		}
		var v []uint32
		for k := 0; k < max(h.span, 1) && h.Warp+k < len(c.Warps); k++ {
			uid := c.Warps[h.Warp+k].uid
			join(&v, r.vc[uid][:r.nWarps])
		}
		return &hbStamp{unit: r.id, v: v}
	}
	return nil
}

// observe links one observation of site s (m.mu held).
func (rs *rootSet) observe(s *site, h *Hazard, spec *rootSpec) {
	if spec != nil {
		rec := s.links.root
		if rec == nil {
			rec = &rootRec{id: len(rs.list), site: s, taints: map[uint64]map[int32]uint32{}, only: spec.only}
			rs.list = append(rs.list, rec)
			s.links.root = rec
		}
		if rs.byMbar == nil {
			rs.byMbar = map[mbarKey]*rootRec{}
		}
		for _, mb := range spec.mbs {
			k := keyOf(mb)
			if _, ok := rs.byMbar[k]; !ok {
				rs.byMbar[k] = rec
			}
		}
		for _, p := range spec.points {
			rec.taint(p)
		}
	}
	if h.via != nil {
		if rec := rs.byMbar[*h.via]; rec != nil && rec != s.links.root {
			if s.links.linked == nil {
				s.links.linked = rec
			}
			return
		}
	}
	s.links.free++
	if !consequenceRule(h.Kind) {
		return
	}
	st := rs.stampOf(h)
	switch {
	case st == nil:
		s.links.unstamped = true
	case slices.ContainsFunc(s.links.stamps, func(x hbStamp) bool { return x.unit == st.unit }):
	case len(s.links.stamps) >= maxStamps:
		s.links.unstamped = true
	default:
		s.links.stamps = append(s.links.stamps, hbStamp{unit: st.unit, v: clone(st.v)})
	}
}

func (rec *rootRec) taint(p taintPoint) {
	m := rec.taints[p.unit]
	if m == nil {
		m = map[int32]uint32{}
		rec.taints[p.unit] = m
	}
	if c, ok := m[p.slot]; !ok || p.clock < c {
		m[p.slot] = p.clock
	}
}

// downstream reports whether a clock is ordered after one of rec's taint
// points.
func (rec *rootRec) downstream(st hbStamp) bool {
	for slot, c := range rec.taints[st.unit] {
		if get(st.v, slot) >= c {
			return true
		}
	}
	return false
}

// consequenceRule lists the rules whose observations can be the symptoms
// of a desynchronized pipeline (so a root cause upstream explains them).
func consequenceRule(k HazardKind) bool {
	switch k {
	case HzAsyncEarlyRead, HzAsyncOverlap, HzAsyncRefill, HzAsyncSourceReuse, HzRace,
		HzMbarLapped, HzMbarUnderflow, HzMbarArrivals, HzMbarPhase, HzMbarTxMismatch, HzDeadlock,
		HzTmemRace, HzTcgenInFlight,
		HzWgmmaAccRead, HzWgmmaAccWrite, HzWgmmaAReadFlight, HzWgmmaAWrite, HzWgmmaExit:
		return true
	}
	return false
}

// rootOf is the root cause site s is a consequence of, or nil; the roots
// in skip explain nothing.
func (rs *rootSet) rootOf(s *site, skip map[*rootRec]bool) *rootRec {
	l := &s.links
	linked := l.linked
	if linked != nil && skip[linked] && s.h.via != nil {
		// linked to a root that turned out to be another finding: to the
		// barrier's root cause now (mbar_uninit.go)
		linked = rs.byMbar[*s.h.via]
		if linked == nil || skip[linked] {
			linked = nil
		}
	}
	if linked == nil && (l.free == 0 || !consequenceRule(s.h.Kind)) {
		return nil
	}
	for _, rec := range rs.list {
		if rec == l.root {
			break // a root is only explained by an earlier one
		}
		if linked != nil && linked != rec {
			continue
		}
		if skip[rec] || rec.only != nil && !slices.Contains(rec.only, s.h.Kind) {
			continue
		}
		if l.free > 0 && (l.unstamped || len(l.stamps) == 0 || !allDownstream(rec, l.stamps)) {
			continue
		}
		return rec
	}
	return nil
}

func allDownstream(rec *rootRec, sts []hbStamp) bool {
	for _, st := range sts {
		if !rec.downstream(st) {
			return false
		}
	}
	return true
}

// root records h as a root cause whose mbarriers are mbs: every later
// observation concerning them, and every observation ordered after an
// acquire of their phases from phase from on (earlier acquires included),
// is its consequence. points are further taint points (a waiter that
// passed early).
func (r *raceState) root(h Hazard, from int64, mbs []*mbarrier, points ...taintPoint) *site {
	return r.rootOnly(h, from, mbs, nil, points...)
}

// rootOnly is root for a root cause that explains only the observations
// of the rules only (nil: every consequence rule).
func (r *raceState) rootOnly(h Hazard, from int64, mbs []*mbarrier, only []HazardKind, points ...taintPoint) *site {
	for _, mb := range mbs {
		mb.tainted = true
		if hb := mb.hb; hb != nil {
			for ph, acqs := range hb.acq {
				if int64(ph) >= from {
					for _, a := range acqs {
						points = append(points, taintPoint{unit: r.id, slot: a.slot, clock: a.clock})
					}
				}
			}
		}
	}
	return r.u.m.record(h, &rootSpec{mbs: mbs, points: points, only: only})
}

// rootHazard records h as a root cause on mb when the checker runs (and as
// a plain finding otherwise).
func (m *Machine) rootHazard(h Hazard, mb *mbarrier, from int64) {
	if r := mb.cta.u.race; r != nil {
		r.root(h, from, []*mbarrier{mb})
		return
	}
	mb.tainted = true
	m.hazard(h)
}

// mbarRoot reports a broken rule of mb's protocol by lane mask lanes of w
// as a root cause on mb (what its waiters do next are consequences).
func (m *Machine) mbarRoot(mb *mbarrier, w *Warp, in *Inst, lanes uint32, kind HazardKind, format string, args ...any) {
	m.rootHazard(Hazard{Kind: kind, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: lanes, Msg: fmt.Sprintf(format, args...)}, mb, 0)
}

// warpRoot reports h, observed by warp w, as a root cause: what w does
// next, and what is ordered after it, is out of step (a wait_group that
// waited for nothing leaves the wgmmas in flight).
func (m *Machine) warpRoot(w *Warp, h Hazard) {
	if r := w.cta.u.race; r != nil {
		r.root(h, 1<<62, nil, r.pointOf(w))
		return
	}
	m.hazard(h)
}

// taintAcquire extends mb's root cause with an acquire of one of its
// phases by warp slot at clock.
func (r *raceState) taintAcquire(mb *mbarrier, slot int, clock uint32) {
	m := r.u.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec := m.hazards.roots.byMbar[keyOf(mb)]; rec != nil {
		rec.taint(taintPoint{unit: r.id, slot: int32(slot), clock: clock})
	}
}

// linkStuck links the deadlock report h to the root causes of the
// barriers its warps wait on, and stamps it with their clocks.
func (u *unit) linkStuck(h *Hazard) {
	r := u.race
	if r == nil {
		return
	}
	st := &hbStamp{unit: r.id}
	for _, w := range u.warps {
		if w.state == warpDone {
			continue
		}
		join(&st.v, r.vc[w.uid][:r.nWarps])
		if h.via == nil && w.wait.kind == waitMbar {
			for _, mw := range w.wait.mbar {
				if mb := mw.cta.mbars[mw.addr]; mb != nil && mb.tainted {
					k := keyOf(mb)
					h.via = &k
					break
				}
			}
		}
	}
	h.stamp = st
}
