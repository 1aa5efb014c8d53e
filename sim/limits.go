package sim

import (
	"fmt"
	"time"

	"github.com/tcsim/tcsim/internal/sysmem"
)

// DefaultMaxMemory is the global memory a simulation holds at most unless
// Options.MaxMemory says otherwise: 4 GiB.
const DefaultMaxMemory = 4 << 30

// MemoryLimitError says that a launch's buffers need more global memory
// than Options.MaxMemory allows, or than the machine can allocate now;
// nothing was allocated for them.
type MemoryLimitError struct {
	Need, Limit int64
	// Available, when set, says that Limit is the memory the machine can
	// allocate, and where that figure came from.
	Available string
}

func (e *MemoryLimitError) Error() string {
	if e.Available != "" {
		return fmt.Sprintf("the launch's buffers need %d bytes of global memory, more than the %d bytes this machine can allocate now (%s); the simulator allocates every buffer in full", e.Need, e.Limit, e.Available)
	}
	return fmt.Sprintf("the launch's buffers need %d bytes of global memory; the simulator holds at most %d (--max-memory BYTES raises the limit)", e.Need, e.Limit)
}

// minCheckedMemory is the smallest launch checked against the memory the
// machine has available: the figure is the kernel's estimate, and a small
// launch is never refused on it.
const minCheckedMemory = 256 << 20

// checkAvailable fails, before anything is allocated, a launch whose
// buffers need more memory than the machine can allocate (which would
// end the process with the Go runtime's "out of memory").
func (o Options) checkAvailable(need int64) error {
	if need < minCheckedMemory || o.MemoryAvailable < 0 {
		return nil
	}
	avail, source := o.MemoryAvailable, "Options.MemoryAvailable"
	if avail == 0 {
		var ok bool
		if avail, source, ok = sysmem.Available(sysmem.OS()); !ok {
			return nil
		}
	}
	if need > avail {
		return &MemoryLimitError{Need: need, Limit: avail, Available: source}
	}
	return nil
}

func (o Options) maxMemory() int64 {
	if o.MaxMemory > 0 {
		return o.MaxMemory
	}
	return DefaultMaxMemory
}

// checkLimits stops the run at the step limit or the deadline between
// units: runWarp checks them only every 1024 instructions of a unit, which
// a grid of many short CTAs never reaches. first is the unit's first CTA;
// done says whether the unit has finished or is about to start.
func (m *Machine) checkLimits(total int64, first [3]int, done bool) error {
	unit := "CTA " + fmtID(first)
	if m.Clustered {
		unit = "the cluster of CTA " + fmtID(first)
	}
	where := "before " + unit + " started"
	if done {
		where = "when " + unit + " finished"
	}
	if total > m.maxSteps() {
		return &LimitError{Msg: fmt.Sprintf("stopped at the --max-steps limit of %d warp-instructions (%d executed) %s",
			m.maxSteps(), total, where)}
	}
	if !m.Opts.Deadline.IsZero() && time.Now().After(m.Opts.Deadline) {
		return &LimitError{Msg: fmt.Sprintf("stopped at the time limit (--timeout) after %d warp-instructions, %s",
			total, where)}
	}
	return nil
}
