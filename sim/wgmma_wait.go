package sim

import "fmt"

// The line to fix of a wgmma that no wgmma.wait_group covered.
//
// A wgmma.mma_async reads its shared-memory operands and writes its
// accumulators until a wgmma.wait_group of each warp covers the group it
// was committed in. When the warpgroup goes on without that wait, the
// problem shows where the operation is still in flight: a TMA refill of
// the stage it reads (async/refill-before-release), an ordinary read of
// its accumulators (wgmma/acc-read-before-wait). The line to fix is the
// same for both: the wgmma.commit_group of the group, after which a wait
// belongs, or the wgmma.wait_group after it whose N leaves the group in
// flight. The refill, the first place a missing wait is felt, is reported
// as the root cause (what the warps do after it is out of step); the
// accumulator reads ordered after it are its consequences.

// waitMark is a warp's last wgmma.wait_group: its instruction, its N and
// how many groups the warp had committed then.
type waitMark struct {
	pc        int32
	n         int
	committed int
	valid     bool
}

// noteWait records warp k's wgmma.wait_group n at pc.
func (wg *warpgroup) noteWait(k int, pc int32, n int) {
	wg.waits[k] = waitMark{pc: pc, n: n, committed: wg.committed[k], valid: true}
}

// uncoveredFix says why op, committed in a group that no wgmma.wait_group
// of the warpgroup has covered, is still in flight at the instruction at
// pc (executed by warp by, nil when it is no warp of the warpgroup's):
// the line to fix (the group's wgmma.commit_group, or the warp's later
// wgmma.wait_group whose N is too large) and the fix in words. ok is false
// when op was never committed (wgmma/uncommitted is then the cause).
func (wg *warpgroup) uncoveredFix(op *wgmmaOp, by *Warp, pc int) (cause int, fix string, ok bool) {
	if op == nil || op.group < 0 || op.group >= len(wg.groups) {
		return -1, "", false
	}
	g := op.group
	grp := wg.groups[g]
	k := -1
	if by != nil && by.cta == wg.cta && by.ID/4 == wg.idx && grp.committedBy>>(by.ID%4)&1 == 1 {
		k = by.ID % 4
	}
	for j := 0; k < 0 && j < 4; j++ {
		if grp.committedBy>>j&1 == 1 {
			k = j
		}
	}
	if k < 0 || grp.commitPC[k] < 0 {
		return -1, "", false
	}
	prog := wg.cta.u.m.Prog
	line := func(pc int) int { return int(prog.pos(&prog.Insts[pc]).Line) }
	commit := int(grp.commitPC[k])
	if lw := wg.waits[k]; lw.valid && lw.committed > g {
		// a wait after the commit that leaves the group in flight
		return int(lw.pc), fmt.Sprintf("the wgmma.wait_group %d at line %d leaves the group committed at line %d in flight: wait with wgmma.wait_group %d there",
			lw.n, line(int(lw.pc)), line(commit), lw.committed-g-1), true
	}
	n := max(wg.committed[k]-g-1, 0)
	where := fmt.Sprintf("before line %d", line(pc))
	if by == nil || by.cta != wg.cta || by.ID/4 != wg.idx {
		where = fmt.Sprintf("before the warpgroup releases the buffer to line %d", line(pc))
	}
	return commit, fmt.Sprintf("no wgmma.wait_group covers the group committed at line %d; wait for it with wgmma.wait_group %d after line %d and %s",
		line(commit), n, line(commit), where), true
}

// inflightOp is the latest wgmma of warp w's warpgroup, issued by w at in,
// whose registers w has not got back, or nil.
func (wg *warpgroup) inflightOp(w *Warp, in *Inst) *wgmmaOp {
	k := w.ID % 4
	var last *wgmmaOp
	for _, op := range wg.allOps {
		if op != nil && op.in[k] == in && !op.cleared[k] && (last == nil || op.idx > last.idx) {
			last = op
		}
	}
	return last
}

// uncoveredRead makes the findings of kind about the asynchronous read a
// (a wgmma's operands that nothing released) name the wgmma's missing
// wait as their line to fix, and a root cause observed by warp w.
func (r *raceState) uncoveredRead(a *asyncRead, kind HazardKind, w *Warp, pc int32, fs findings) {
	if a.wgop == nil || len(a.releases) > 0 || w == nil {
		return
	}
	cause, fix, ok := a.wg.uncoveredFix(a.wgop, w, int(pc))
	if !ok {
		return
	}
	for i := range fs {
		f := &fs[i]
		if f.kind != kind || f.related != a.pc || f.root {
			continue
		}
		what := a.what
		f.cause = int32(cause)
		f.msg = func(lo uint32) string {
			return fmt.Sprintf("overwrites shared bytes (from %#x) that the %s may still read: %s", lo, what, fix)
		}
		f.root, f.rootFrom, f.point = true, 1<<62, r.pointOf(w)
	}
}
