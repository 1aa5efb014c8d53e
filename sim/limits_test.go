package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tcsim/tcsim/launch"
)

// oneInstruction is a kernel of one instruction: its CTAs never reach the
// 1024-instruction points where runWarp checks the limits.
const oneInstruction = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry one()
{
	ret;
}
`

// A grid of 65535^3 one-instruction CTAs stops at the deadline and at the
// default step limit: both are checked as units start and finish, not only
// every 1024 instructions of a unit.
func TestLimitsBetweenUnits(t *testing.T) {
	for _, tc := range []struct {
		name string
		prep func(m *Machine)
		want string
	}{
		{"deadline passed", func(m *Machine) { m.Opts.Deadline = time.Now().Add(-time.Second) },
			"stopped at the time limit (--timeout) after 0 warp-instructions, before CTA (0,0,0) started"},
		{"deadline during the run", func(m *Machine) { m.Opts.Deadline = time.Now().Add(50 * time.Millisecond) },
			"stopped at the time limit (--timeout)"},
		// the default limit (2^32), reached by units of one warp-instruction
		{"default step limit", func(m *Machine) { m.steps.Store(1<<32 - 3) },
			"stopped at the --max-steps limit of 4294967296 warp-instructions (4294967297 executed) when CTA (3,0,0) finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &launch.Launch{Grid: launch.Dim3{65535, 65535, 65535}, Block: launch.Dim3{32, 1, 1}}
			m, err := Prepare("one.ptx", []byte(oneInstruction), l, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			tc.prep(m)
			err = m.Run()
			var le *LimitError
			if !errors.As(err, &le) {
				t.Fatalf("Run = %v, want a LimitError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %q, want %q", err, tc.want)
			}
		})
	}
}

// A launch whose buffers need more memory than the machine can allocate
// fails before anything is allocated, even under a raised MaxMemory; a
// small launch is never refused on the estimate.
func TestMemoryAvailable(t *testing.T) {
	for _, tc := range []struct {
		size      string
		available int64
		want      string
	}{
		{"68719476736", 8 << 30, "the launch's buffers need 68719476736 bytes of global memory, more than the 8589934592 bytes this machine can allocate now (Options.MemoryAvailable); the simulator allocates every buffer in full"},
		{"1048576", 1, ""}, // below the size that is checked
	} {
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1}}
		p, err := launch.ParseParam("out=buf:size=" + tc.size)
		if err != nil {
			t.Fatal(err)
		}
		l.Buffers = append(l.Buffers, p)
		_, err = Prepare("one.ptx", []byte(oneInstruction), l, Options{MaxMemory: 1 << 40, MemoryAvailable: tc.available})
		var me *MemoryLimitError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("size %s: %v", tc.size, err)
		case tc.want != "" && (!errors.As(err, &me) || err.Error() != tc.want):
			t.Errorf("size %s: Prepare = %v, want %q", tc.size, err, tc.want)
		}
	}
}
