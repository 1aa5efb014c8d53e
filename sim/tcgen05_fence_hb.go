package sim

import "sort"

// The tcgen05 fence rules from happens-before order (Options.Check).
//
// tcgen05.fence::after_thread_sync is needed after a synchronization that
// orders this thread after another thread's tcgen05 work (published with
// fence::before_thread_sync: an error without the after-fence; completed
// by a tcgen05.commit or wait: the portability note). Which other
// threads' work a synchronization orders the warp after is a question of
// the order the kernel establishes, not of what ran first under the
// schedule: a warp that passes an mbarrier wait completed by a TMA copy is
// ordered after the work of the threads the copy's issuer had synchronized
// with, and only that work. So with the checker each warp keeps the clock
// vector it had at its last synchronization (or fence::after_thread_sync),
// and every warp slot the clocks of its tcgen05 operations and of its
// fence::before_thread_sync that published some: a synchronization asks for
// the after-fence when it orders the warp after such a point that the
// last one did not. Without --check, the counts of tcSynced (what ran
// before, under the schedule) remain.

// tcFenceHB is the unit's record of tcgen05 work and before-fences, per
// warp slot (clocks, increasing), and each warp's clock at its last
// synchronization.
type tcFenceHB struct {
	work, before [][]uint32
	seen         [][]uint32
}

func (r *raceState) tcFences() *tcFenceHB {
	if r.tcf == nil {
		n := r.nWarps
		r.tcf = &tcFenceHB{work: make([][]uint32, n), before: make([][]uint32, n), seen: make([][]uint32, n)}
	}
	return r.tcf
}

// addClock appends clock c to an increasing list (once).
func addClock(l []uint32, c uint32) []uint32 {
	if n := len(l); n > 0 && l[n-1] >= c {
		return l
	}
	return append(l, c)
}

// tcWork records a tcgen05 operation of warp w at its current clock.
func (r *raceState) tcWork(w *Warp) {
	f := r.tcFences()
	f.work[w.uid] = addClock(f.work[w.uid], r.vc[w.uid][w.uid])
}

// tcBefore records w's fence::before_thread_sync that published tcgen05
// work.
func (r *raceState) tcBefore(w *Warp) {
	f := r.tcFences()
	f.before[w.uid] = addClock(f.before[w.uid], r.vc[w.uid][w.uid])
}

// tcAfter is w's fence::after_thread_sync: it is ordered after what it has
// acquired so far.
func (r *raceState) tcAfter(w *Warp) {
	f := r.tcFences()
	f.seen[w.uid] = clone(r.vc[w.uid])
}

// tcSync reports, for warp w that has just passed a synchronization,
// whether it is now ordered after another warp's fence::before_thread_sync
// (needAfter) or tcgen05 operation (noteAfter) that its last
// synchronization was not ordered after.
func (r *raceState) tcSync(w *Warp) (needAfter, noteAfter bool) {
	f := r.tcFences()
	v, seen := r.vc[w.uid], f.seen[w.uid]
	for s := 0; s < r.nWarps; s++ {
		if s == w.uid {
			continue
		}
		now, old := get(v, int32(s)), get(seen, int32(s))
		if now <= old {
			continue
		}
		needAfter = needAfter || newlyOrdered(f.before[s], old, now)
		noteAfter = noteAfter || newlyOrdered(f.work[s], old, now)
	}
	f.seen[w.uid] = clone(v)
	return needAfter, noteAfter
}

// newlyOrdered reports whether the increasing list l holds a clock in
// (old, now].
func newlyOrdered(l []uint32, old, now uint32) bool {
	i := sort.Search(len(l), func(i int) bool { return l[i] > old })
	return i < len(l) && l[i] <= now
}
