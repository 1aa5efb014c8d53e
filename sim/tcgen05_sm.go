package sim

import "fmt"

// CTAs that share an SM (Options.CTAsPerSM, tcsim run --ctas-per-sm N).
// An SM has one Tensor Memory of 128 lanes × 512 columns, and the CTAs
// resident on it allocate their columns from it: a tcgen05.alloc blocks
// until enough columns are free. The simulator runs CTAsPerSM CTAs of a
// launch without clusters together, interleaved warp by warp, sharing the
// columns and the SM's allocation permit: a CTA takes the permit with its
// first tcgen05.alloc and keeps it until tcgen05.relinquish_alloc_permit
// (which gives up the right to allocate so that the other CTAs of the SM
// can) or until it exits; another CTA's tcgen05.alloc waits for it. This
// follows the ISA's description of tcgen05.alloc (blocking) and
// tcgen05.relinquish_alloc_permit, and CUTLASS's use of it (relinquish
// right after the allocation); it is not hardware-verified.
//
// The lifecycle rules it adds (tcgen05/alloc): a CTA that waits in
// tcgen05.alloc for the permit that a co-resident CTA holds without ever
// relinquishing it (a warning: the CTAs of the SM allocate, and so run
// their mainloops, one after another; it deadlocks if the holder waits for
// the waiter), and a tcgen05.alloc that can never complete because the
// columns it needs belong to a co-resident CTA that exited without
// tcgen05.dealloc (an error; the run ends in a deadlock).

// smState is the state of one SM's Tensor Memory allocator.
type smState struct {
	permit   *CTA           // the CTA that holds the allocation permit
	permitPC int            // the tcgen05.alloc at which it took it
	reported map[*CTA]uint8 // per waiting CTA: reportedPermit, reportedLeak
}

const (
	reportedPermit uint8 = 1 << iota
	reportedLeak
)

// colocated reports whether m runs several CTAs on one SM.
func (m *Machine) colocated() bool { return m.Opts.CTAsPerSM > 1 && !m.Clustered }

// checkColocation refuses what the co-scheduling does not model.
func (m *Machine) checkColocation() error {
	if m.Opts.CTAsPerSM < 0 {
		return fmt.Errorf("CTAs per SM %d: want 1 or more", m.Opts.CTAsPerSM)
	}
	if m.Opts.CTAsPerSM > 1 && m.Clustered {
		return fmt.Errorf("%d CTAs per SM: co-resident CTAs are modelled for launches without clusters, and this one has clusters of %d,%d,%d (each cluster runs as one unit, its CTAs on SMs of their own); run it with one CTA per SM", m.Opts.CTAsPerSM, m.Cluster[0], m.Cluster[1], m.Cluster[2])
	}
	if !m.colocated() {
		return nil
	}
	for i := range m.Prog.Insts {
		if x := m.Prog.Insts[i].PTX; x != nil && x.Opcode == "barrier.cluster" {
			return fmt.Errorf("%d CTAs per SM: the kernel uses barrier.cluster, which the simulator would let span the CTAs of an SM; run it with one CTA per SM", m.Opts.CTAsPerSM)
		}
	}
	return nil
}

// smList groups the units of a grid by SM: CTAsPerSM consecutive CTAs
// run together (each unit alone without co-scheduling).
type smList struct {
	m     *Machine
	units unitList
	k     int
}

func (m *Machine) smUnits(units unitList) smList {
	k := 1
	if m.colocated() {
		k = m.Opts.CTAsPerSM
	}
	return smList{m: m, units: units, k: k}
}

// Len is the number of groups.
func (s smList) Len() int { return (s.units.Len() + s.k - 1) / s.k }

// claim starts the units of group i and returns their CTAs (nil when
// clusterlaunchcontrol cancelled them all, or they ran).
func (s smList) claim(i int) [][3]int {
	var ids [][3]int
	for j := i * s.k; j < min((i+1)*s.k, s.units.Len()); j++ {
		if s.m.claimUnit(j) {
			ids = append(ids, s.units.At(j)...)
		}
	}
	return ids
}

// clusterCTAs are the CTAs of c's cluster, by rank (c alone when its unit
// holds the CTAs of an SM instead).
func (c *CTA) clusterCTAs() []*CTA {
	if c.u.sm != nil {
		return []*CTA{c}
	}
	return c.u.ctas
}

// smFree reports whether columns [col, col+n) are free in the TMEM of c's
// SM: no co-resident CTA holds them.
func (c *CTA) smFree(col, n int) bool {
	if c.u.sm == nil {
		return true
	}
	for _, o := range c.u.ctas {
		if o != c && o.tmem != nil && !o.tmem.free(col, n) {
			return false
		}
	}
	return true
}

// smPermit takes the SM's allocation permit for c's tcgen05.alloc at in,
// or reports why it must wait (false: the warp blocks).
func (w *Warp) smPermit(in *Inst) bool {
	c := w.cta
	sm := c.u.sm
	if sm == nil {
		return true
	}
	if h := sm.permit; h != nil && h != c && h.live > 0 {
		// a holder still waiting for its own columns is ahead in the
		// queue; one that allocated and goes on without relinquishing
		// keeps every other CTA of the SM out
		if held := h.tmem != nil && len(h.tmem.allocs) > 0 && !h.tmem.relinquish; held && sm.reported[c]&reportedPermit == 0 {
			sm.reported[c] |= reportedPermit
			prog := c.u.m.Prog
			c.u.m.hazard(Hazard{Kind: HzTmemPermit, Severity: SevWarning, PC: in.PC, CTA: c.ID, Warp: w.ID,
				Msg: fmt.Sprintf("tcgen05.alloc of CTA %s waits for the SM's allocation permit, which co-resident CTA %s took with its tcgen05.alloc and does not give up: it executes no tcgen05.relinquish_alloc_permit, so the CTAs of the SM allocate (and run) one after another",
					fmtID(c.ID), fmtID(h.ID)),
				Detail:  "relinquish the permit right after the allocations (tcgen05.relinquish_alloc_permit, as CUTLASS does) so that the other CTAs resident on the SM can allocate their columns; a holder that waits for the waiting CTA deadlocks",
				Cause:   prog.pos(&prog.Insts[sm.permitPC]),
				Related: prog.pos(&prog.Insts[sm.permitPC])})
		}
		return false
	}
	if sm.permit != c {
		sm.permit, sm.permitPC = c, in.PC
	}
	return true
}

// smRelinquish gives up c's permit.
func (c *CTA) smRelinquish() {
	if sm := c.u.sm; sm != nil && sm.permit == c {
		sm.permit = nil
		c.u.progress++
	}
}

// smLeaked reports, for a tcgen05.alloc of n columns by w that cannot be
// satisfied, co-resident CTAs that exited holding columns: they never
// free them, so the allocation never completes (true: the warp faults
// rather than hang).
func (w *Warp) smLeaked(in *Inst, n int) bool {
	c := w.cta
	sm := c.u.sm
	if sm == nil || sm.reported[c]&reportedLeak != 0 {
		return false
	}
	var live int
	var leak *CTA
	var leakAlloc tmemAlloc
	for _, o := range c.u.ctas {
		if o == c || o.tmem == nil {
			continue
		}
		for _, a := range o.tmem.allocs {
			switch {
			case o.live > 0:
				live += a.n
			case leak == nil || a.pc < leakAlloc.pc:
				leak, leakAlloc = o, a
			}
		}
	}
	own := 0
	for _, a := range c.tmemState().allocs {
		own += a.n
	}
	if leak == nil || own+live+n > tmemCols {
		return false // nothing leaked, or the live CTAs may still free enough
	}
	sm.reported[c] |= reportedLeak
	prog := c.u.m.Prog
	c.u.m.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
		Msg: fmt.Sprintf("tcgen05.alloc of %d columns by CTA %s can never complete: co-resident CTA %s exited holding TMEM columns [%d, %d) of the SM without tcgen05.dealloc, and they are never freed",
			n, fmtID(c.ID), fmtID(leak.ID), leakAlloc.col, leakAlloc.col+leakAlloc.n),
		Detail:  "every tcgen05.alloc needs a tcgen05.dealloc before the CTA exits: the SM's Tensor Memory is shared by the CTAs resident on it, and columns a CTA leaves allocated are lost to every later CTA",
		Cause:   prog.pos(&prog.Insts[leakAlloc.pc]),
		Related: prog.pos(&prog.Insts[leakAlloc.pc])})
	return true
}
