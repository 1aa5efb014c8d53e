package sim

import (
	"fmt"
	"time"
)

// DefaultMaxMemory is the global memory a simulation holds at most unless
// Options.MaxMemory says otherwise: 4 GiB.
const DefaultMaxMemory = 4 << 30

// MemoryLimitError says that a launch's buffers need more global memory
// than Options.MaxMemory allows; nothing was allocated for them.
type MemoryLimitError struct{ Need, Limit int64 }

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("the launch's buffers need %d bytes of global memory; the simulator holds at most %d (--max-memory BYTES raises the limit)", e.Need, e.Limit)
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
