package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tcsim/tcsim/isa/desc"
)

// tma/swizzle-alignment looks at the tile a phase of an mbarrier brings
// in, not at each copy alone. TMA swizzles by absolute shared address, so
// a copy whose destination is off the pattern's repeat starts mid-pattern;
// that is what the rule notes when the tile's own start is there.
// But a tile is often several copies completing on one phase: CUTLASS's
// multicast loads split each operand tile among the CTAs of a cluster, so
// the CTA of rank 3 writes its slice at 0x180 of a tile that starts at a
// 1024-byte boundary, and each row still lands on its row of the pattern.
// So a swizzled copy's destination d off the repeat R is reported only if
// the bytes [d - d mod R, d) are not all written by swizzled copies with
// the same repeat that complete on the same phase of the same mbarrier
// (decided when the phase completes, or when the CTA ends or the barrier
// is initialized again).

// swzWrite is a swizzled TMA write counted on a phase of an mbarrier.
type swzWrite struct {
	phase       uint64
	off, n, rep uint32
	h           *Hazard // the note, for a destination off the repeat
}

// noteSwizzled records a swizzled TMA write of n bytes at off that
// counts on phase of mb; h is its note when off is not a multiple of
// the repeat rep.
func (mb *mbarrier) noteSwizzled(phase uint64, off, n, rep uint32, h *Hazard) {
	if len(mb.swz) >= maxSwzWrites {
		mb.checkSwizzled(0, true) // phases that never complete: decide now
	}
	mb.swz = append(mb.swz, swzWrite{phase: phase, off: off, n: n, rep: rep, h: h})
}

// maxSwzWrites bounds the writes a barrier keeps for its open phases.
const maxSwzWrites = 4096

// checkSwizzled reports the off-repeat writes of phase (every phase: all)
// that the phase's other writes do not continue, and forgets the phase.
func (mb *mbarrier) checkSwizzled(phase uint64, all bool) {
	if len(mb.swz) == 0 {
		return
	}
	var keep []swzWrite
	for _, w := range mb.swz {
		if !all && w.phase != phase {
			keep = append(keep, w)
			continue
		}
		if w.h == nil {
			continue
		}
		if !mb.swizzleCovered(w) {
			mb.cta.u.m.hazard(*w.h)
		}
	}
	mb.swz = keep
}

// swizzleCovered reports whether the writes of w's phase with w's repeat
// cover the bytes from w's repeat boundary up to w.
func (mb *mbarrier) swizzleCovered(w swzWrite) bool {
	var set spans
	for _, o := range mb.swz {
		if o.rep == w.rep && o.phase == w.phase {
			set.add(o.off, o.off+o.n)
		}
	}
	return set.covers(w.off-w.off%w.rep, w.off)
}

// flushSwizzled decides every write still waiting for its phase (the CTA
// ended, or its barriers are set up again).
func (c *CTA) flushSwizzled() {
	for _, off := range slices.Sorted(maps.Keys(c.mbars)) {
		if mb := c.mbars[off]; mb != nil {
			mb.checkSwizzled(0, true)
		}
	}
}

// swizzleNote is the tma/swizzle-alignment note for lane l's copy to off
// with swizzle swz of repeat align, or nil when off is on the repeat (or
// not even 128-byte aligned, an error of its own).
func swizzleNote(w *Warp, in *Inst, l int, off uint32, swz desc.Swizzle, align uint32) *Hazard {
	if off%128 != 0 || off%align == 0 {
		return nil
	}
	return &Hazard{Kind: HzTmaSwizzleAlign, Severity: SevNote, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
		Msg: fmt.Sprintf("the tile at %#x starts off the %s swizzle's %d-byte repeat (no copy completing on the same mbarrier phase writes its bytes from %#x): its first row is row %d of the pattern. TMA and wgmma descriptors with base offset 0 swizzle by address and agree (measured on the H100); a reader that swizzles offsets relative to the tile's start does not", off, swz, align, off-off%align, off%align/128)}
}

// swizzledLanded records a swizzled copy that landed on phase of mb (h:
// its note, if off the repeat); with no live barrier to decide it on, the
// note is reported at once.
func (m *Machine) swizzledLanded(mb *mbarrier, phase uint64, off, n, rep uint32, h *Hazard) {
	if mb != nil && mb.live {
		mb.noteSwizzled(phase, off, n, rep, h)
	} else if h != nil {
		m.hazard(*h)
	}
}
