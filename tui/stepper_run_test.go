package tui

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// endless is a backend whose runs go on, one instruction at a time, until
// they are interrupted: a run on a kernel too large to finish while the
// test looks at the screen.
type endless struct {
	stepBackend
	halt func() bool
	ran  atomic.Int64
}

func (b *endless) setHalt(h func() bool) { b.halt = h }

func (b *endless) run(breaks []int, hazard bool, _ int64) error {
	for b.halt == nil || !b.halt() {
		if err := b.stepBackend.run(breaks, hazard, 1); err != nil || b.stepBackend.done() {
			return err
		}
		b.ran.Add(1)
		time.Sleep(time.Millisecond)
	}
	return nil
}

func keyMsg(t *testing.T, k string) tea.Msg {
	t.Helper()
	msgs, err := ParseKeys(k)
	if err != nil || len(msgs) != 1 {
		t.Fatal(k, err)
	}
	return msgs[0]
}

// A run goes on behind the screen: Update returns at once, the stepper
// says "running…" over its last frame and takes only esc, which stops the
// run, not the app (golden: the running frame); ctrl+c stops it and quits.
func TestStepperRunIsACmd(t *testing.T) {
	for _, stop := range []string{"esc", "ctrl+c"} {
		m, v := stepper(t, oneCTA(kernelAt(t, gemmLaunch, "")), 100, 30, "s s")
		inner := v.be
		e := &endless{stepBackend: inner}
		v.be = e
		_, cmd := m.Update(keyMsg(t, "r"))
		if cmd == nil || !v.busy() {
			t.Fatalf("r: no command, busy %v", v.busy())
		}
		plain := m.Plain()
		if !strings.Contains(plain, "running… to a breakpoint · esc stops · ctrl+c quits") || !strings.Contains(plain, "running: to a breakpoint · esc stops it") {
			t.Fatalf("the running screen:\n%s", plain)
		}
		if stop == "esc" {
			checkFrame(t, m, 100, 30)
			golden.RequireEqual(t, []byte(plain))
		}
		// Other keys wait; the app stays.
		m.Update(keyMsg(t, "s"))
		m.Update(keyMsg(t, "b"))
		if !v.busy() || len(v.breaks) != 0 {
			t.Fatalf("a key acted during the run")
		}
		for deadline := time.Now().Add(10 * time.Second); e.ran.Load() < 3 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		_, cmd = m.Update(keyMsg(t, stop))
		quit := m.quit && cmd != nil && cmd() == tea.Quit()
		if quit != (stop == "ctrl+c") {
			t.Fatalf("%s: quit %v", stop, quit)
		}
		if !m.views[m.active].(*stepperView).running.stopping {
			t.Fatalf("%s did not ask the run to stop", stop)
		}
		m.settle()
		if v.busy() || inner.steps() <= 2 {
			t.Fatalf("after %s: busy %v, %d steps", stop, v.busy(), inner.steps())
		}
		if stop == "ctrl+c" {
			continue
		}
		// The stepper is itself again: keys act, ctrl+c quits.
		m.Update(keyMsg(t, "s"))
		if _, cmd := m.Update(keyMsg(t, "ctrl+c")); cmd == nil || !m.quit {
			t.Fatalf("ctrl+c after the run does not quit")
		}
	}
}

// An interrupted run stops at an instruction, says so, and replays to
// the same state: stepping back and forth and re-simulating agree.
func TestStepperInterrupt(t *testing.T) {
	k := oneCTA(kernelAt(t, gemmLaunch, ""))
	m, v := stepper(t, k, 100, 30, "")
	be := v.be.(*simBackend)
	n := 0
	be.setHalt(func() bool { n++; return n > 1000 })
	if err := be.run(nil, false, runLimit); err != nil {
		t.Fatal(err)
	}
	be.setHalt(nil)
	s := be.last()
	if s.reason != "interrupted" || s.steps < 900 || s.steps > 1001 || be.done() {
		t.Fatalf("stopped %+v after %d polls", s, n)
	}
	v.report(nil)
	if st := v.status(); !strings.Contains(st, "stopped by esc at line") {
		t.Fatalf("status %q", st)
	}
	want := snapshotState(t, be)
	// A step and a step back: the history replays the interrupted run to
	// the same instruction.
	if err := be.step(); err != nil {
		t.Fatal(err)
	}
	if err := be.back(false); err != nil {
		t.Fatal(err)
	}
	if got := snapshotState(t, be); got != want {
		t.Errorf("step and back differ from the interrupted state:\n%s", lineDiff(got, want))
	}
	// A fresh machine run by as many instructions is the same.
	_, fresh := stepper(t, k, 100, 30, "")
	if err := fresh.be.run(nil, false, s.steps); err != nil {
		t.Fatal(err)
	}
	if got := snapshotState(t, fresh.be); got != want {
		t.Errorf("a fresh run differs:\n%s", lineDiff(got, want))
	}
	_ = m
	// The trace backend stops too.
	tr := traceOf(t, writeTrace(t, k))
	c := 0
	tr.setHalt(func() bool { c++; return c > 100 })
	if err := tr.run(nil, false, 0); err != nil {
		t.Fatal(err)
	}
	if s := tr.last(); s.reason != "interrupted" || tr.done() {
		t.Fatalf("trace: %+v", s)
	}
}

// A step back replays the run on a goroutine as well, and esc stops it:
// the replay gives up and the state stays as it was (both backends).
func TestStepperBackIsACmd(t *testing.T) {
	m, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "s s s")
	_, cmd := m.Update(keyMsg(t, "p"))
	if cmd == nil || !v.busy() {
		t.Fatal("p: no command")
	}
	m.settle()
	if v.busy() || v.be.steps() != 2 {
		t.Fatalf("after p: busy %v, step %d", v.busy(), v.be.steps())
	}
	k := kernelAt(t, tinyLaunch, "")
	for _, be := range []stepBackend{v.be, traceOf(t, writeTrace(t, k))} {
		for i := 0; i < 5; i++ {
			if err := be.step(); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshotState(t, be)
		be.setHalt(func() bool { return true }) // esc, at once
		for _, toStop := range []bool{false, true} {
			if err := be.back(toStop); !errors.Is(err, errStopped) {
				t.Errorf("%s: back(%v) stopped: %v, want errStopped", be.kind(), toStop, err)
			}
			if got := snapshotState(t, be); got != before {
				t.Errorf("%s: a stopped step back changed the state:\n%s", be.kind(), lineDiff(got, before))
			}
		}
		be.setHalt(nil)
		if err := be.back(false); err != nil {
			t.Errorf("%s: back after the stop: %v", be.kind(), err)
		}
	}
	// The stepper says so, in the status line, and keeps its state.
	_, v = stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "s s s")
	v.report(errStopped)
	if st := v.status(); !strings.Contains(st, "step back was stopped") || v.be.steps() != 3 {
		t.Errorf("status %q at step %d", st, v.be.steps())
	}
}

// The end of a run reaches the stepper when another view is on screen.
func TestStepperRunEndsInTheBackground(t *testing.T) {
	m, v := stepper(t, kernelAt(t, tinyLaunch, ""), 100, 30, "")
	_, cmd := m.Update(keyMsg(t, "r"))
	if cmd == nil {
		t.Fatal("r: no command")
	}
	m.Update(keyMsg(t, "1")) // the layout view
	if !v.busy() || m.active != 0 {
		t.Fatalf("busy %v, active view %d", v.busy(), m.active)
	}
	done := <-v.running.done
	m.Update(done)
	if v.busy() || !v.be.done() {
		t.Fatalf("busy %v, done %v", v.busy(), v.be.done())
	}
}
