package tui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Long stepper actions (run to a breakpoint, a hazard or the cursor, step
// back, which replays the history) run as a tea.Cmd: Update hands the
// action to a goroutine and returns at once; while it runs the stepper
// shows the last frame with "running…" and takes only esc, which stops it
// at the next instruction: a run keeps the state it reached, a step back
// leaves the state as it was before. ctrl+c stops it and quits the app.
// The backend is touched by that goroutine only until its runDoneMsg
// arrives.

// runDoneMsg ends a long action.
type runDoneMsg struct {
	id  int
	err error
}

// runTickMsg redraws the running status (the elapsed time).
type runTickMsg struct{ id int }

// stopMsg asks a view's long action to stop (the app sends it before it
// quits on ctrl+c).
type stopMsg struct{}

// runState is a long action in progress.
type runState struct {
	id       int
	label    string       // what runs, for the status line
	stop     *atomic.Bool // set by esc (or ctrl+c, which also quits)
	done     chan tea.Msg // the runDoneMsg
	after    func()       // the messages to show once it is done
	start    time.Time
	frame    string // the screen before it started
	fw, fh   int    // the frame's size
	kernel   string
	stopping bool
}

var stopRunKey = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop it (ctrl+c quits)"))

// busy reports whether a long action is running: the app then sends it a
// stopMsg before it quits on ctrl+c.
func (v *stepperView) busy() bool { return v.running != nil }

// start runs f on a goroutine as the long action label; it stops when
// the backend's halt function says so (esc). after runs once f has
// returned and the state is refreshed.
func (v *stepperView) start(label string, f func() error, after func()) tea.Cmd {
	r := &runState{label: label, done: make(chan tea.Msg, 1), after: after, start: time.Now(),
		frame: v.render(), fw: v.w, fh: v.h, kernel: v.kernelTitle(), stop: new(atomic.Bool)}
	v.runSeq++
	r.id = v.runSeq
	v.be.setHalt(r.stop.Load)
	v.running = r
	be := v.be
	go func() {
		err := f()
		be.setHalt(nil)
		r.done <- runDoneMsg{id: r.id, err: err}
	}()
	return tea.Batch(func() tea.Msg { return <-r.done }, v.tick(r.id))
}

func (v *stepperView) tick(id int) tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return runTickMsg{id} })
}

// settle waits for a running action and applies its end, for a caller
// with no event loop (Snapshot, tests). It reports whether there was one.
func (v *stepperView) settle() bool {
	r := v.running
	if r == nil {
		return false
	}
	v.finish((<-r.done).(runDoneMsg))
	return true
}

// finish applies the end of the long action: the error, the new state,
// the cursor on the stop.
func (v *stepperView) finish(msg runDoneMsg) {
	r := v.running
	if r == nil || msg.id != r.id {
		return
	}
	v.running = nil
	v.msg = ""
	v.report(msg.err)
	if r.after != nil {
		r.after()
	}
}

// runUpdate handles a message while a long action runs.
func (v *stepperView) runUpdate(msg tea.Msg) tea.Cmd {
	r := v.running
	switch msg := msg.(type) {
	case runDoneMsg:
		v.finish(msg)
	case runTickMsg:
		if msg.id == r.id {
			return v.tick(r.id)
		}
	case stopMsg:
		r.stop.Store(true)
		r.stopping = true
	case tea.KeyPressMsg:
		if key.Matches(msg, stopRunKey) {
			r.stop.Store(true)
			r.stopping = true
		}
	}
	return nil
}

// runFrame is the screen while a long action runs: the frame from before
// it, under a header that says so (blank panes after a resize).
func (v *stepperView) runFrame() string {
	r := v.running
	head := section(r.kernel) + " " + styleWarn.Render("running… "+r.label+" · esc stops · ctrl+c quits")
	body := fitBlock("", v.w, max(v.h-1, 1))
	if r.fw == v.w && r.fh == v.h {
		if _, rest, ok := strings.Cut(r.frame, "\n"); ok {
			body = rest
		}
	}
	return fitLine(head, v.w) + "\n" + body
}

// runStatus is the status line while a long action runs.
func (v *stepperView) runStatus() string {
	r := v.running
	s := "running: " + r.label
	if d := time.Since(r.start); d >= time.Second {
		s += fmt.Sprintf(" for %.0f s", d.Seconds())
	}
	if r.stopping {
		s += " · stopping…"
	} else {
		s += " · esc stops it"
	}
	return styleWarn.Render(s)
}
