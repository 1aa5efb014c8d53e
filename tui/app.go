package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// view is one screen of the app, selected by its tab: the explorer, the
// bitmath panel, the swizzle view, the descriptor view and the kernel
// stepper, in the order of the list in New.
//
// The app owns the top line (tabs), the status line and the one-line key
// help at the bottom, and the key page ? opens over the body (help.go); a
// view draws the body between them. Key and mouse messages reach
// the active view only, mouse positions relative to the body's top-left
// corner; window sizes arrive through setSize.
type view interface {
	// title is the tab's name.
	title() string
	// setSize gives the view its body size in cells.
	setSize(w, h int)
	// update handles a message: a tea.KeyPressMsg, a tea.MouseMsg with
	// body-relative coordinates, or any other message.
	update(msg tea.Msg) tea.Cmd
	// render draws the body: exactly h lines of exactly w cells.
	render() string
	// bindings are the view's keys for the help: a short list, and the
	// full list in columns.
	bindings() ([]key.Binding, [][]key.Binding)
	// capturing reports whether a text field has the focus, so that keys
	// such as q, tab and the digits go to it instead of the app.
	capturing() bool
	// status is a one-line message for the status line ("" for none).
	status() string
}

// state is what the views share: the explorer's subject, which the
// bitmath panel derives, and the operand the explorer's cursor is on.
type state struct {
	subject *subject
	panel   int // grid panel of the explorer's cursor (A, B or C of an MMA)
	owner   int // the owner of the cursor cell the side panel follows
	gen     int // bumped whenever subject or panel changes
}

// Model is the Bubble Tea model of the explorer: the tab bar, the active
// view's body, a status line and the key help.
type Model struct {
	views  []view
	active int
	st     *state
	page   helpPage // the key page of ?
	w, h   int
	color  bool
	keys   appKeys
	quit   bool
}

type appKeys struct {
	Next, Prev, Jump, Help, Quit key.Binding
}

func newAppKeys(n int) appKeys {
	return appKeys{
		Next: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		Prev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Jump: key.NewBinding(key.WithKeys(digitKeys(n)...), key.WithHelp(fmt.Sprintf("1-%d", n), "go to view")),
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

func digitKeys(n int) []string {
	var ks []string
	for i := 1; i <= n && i <= 9; i++ {
		ks = append(ks, string(rune('0'+i)))
	}
	return ks
}

// The view names Config.View accepts, in tab order.
var viewNames = []string{"layout", "bitmath", "swizzle", "desc", "stepper"}

// Config sets up the app.
type Config struct {
	// View is the view to open: layout, bitmath, swizzle, desc or stepper
	// (the default when Kernel or Trace is set).
	View string
	// Subject is the explorer's first atom or layout (a catalog name, CuTe
	// notation, or an MMA shape such as mma.sync.m16n8k16 with MMA set).
	Subject string
	// MMA opens the explorer on the MMA of Subject (A, B and C together).
	MMA bool
	// SMEM is the swizzle view's shared-memory layout (an smem atom or a
	// swizzled layout with its element width, e.g. "Sw<3,4,3> o 0 o
	// (8,64):(64,1) b16").
	SMEM string
	// Desc is the descriptor view's first value (hex).
	Desc string
	// Kernel is the PTX kernel and launch the stepper simulates.
	Kernel *KernelConfig
	// Trace is a trace file (tcsim run --trace) the stepper replays.
	Trace string
	// NoColor draws without colours (NO_COLOR): reverse video and
	// underlines still mark the cursor and the selected thread.
	NoColor bool
}

// New builds the app. It fails when a Config field names something that
// does not exist.
func New(cfg Config) (*Model, error) {
	st := &state{}
	ex, err := newExplorer(st, cfg.Subject, cfg.MMA)
	if err != nil {
		return nil, err
	}
	sw, err := newSwizzleView(cfg.SMEM)
	if err != nil {
		return nil, err
	}
	dv, err := newDescView(cfg.Desc)
	if err != nil {
		return nil, err
	}
	sv, err := newStepperView(cfg.Kernel, cfg.Trace)
	if err != nil {
		return nil, err
	}
	m := &Model{
		st:    st,
		views: []view{ex, newBitmathView(st), sw, dv, sv},
		color: !cfg.NoColor,
		w:     80, h: 24,
	}
	m.keys = newAppKeys(len(m.views))
	if cfg.View == "" && (cfg.Kernel != nil || cfg.Trace != "") {
		cfg.View = "stepper"
	}
	if cfg.View != "" {
		i := indexOf(viewNames, strings.ToLower(cfg.View))
		if i < 0 {
			return nil, fmt.Errorf("unknown view %q (want one of %s)", cfg.View, strings.Join(viewNames, ", "))
		}
		m.active = i
	}
	m.resize()
	return m, nil
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return m, m.update(msg)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.resize()
		return nil
	case tea.KeyPressMsg:
		v := m.views[m.active]
		if msg.String() == "ctrl+c" {
			return m.quitNow() // from anywhere, even while a run goes on
		}
		if m.page.on {
			switch {
			case key.Matches(msg, m.keys.Quit):
				return m.quitNow()
			case key.Matches(msg, m.keys.Next):
				m.switchTo((m.active + 1) % len(m.views))
			case key.Matches(msg, m.keys.Prev):
				m.switchTo((m.active + len(m.views) - 1) % len(m.views))
			case key.Matches(msg, m.keys.Jump):
				m.switchTo(int(msg.Code - '1'))
			default:
				m.helpUpdate(msg)
			}
			return nil
		}
		if !v.capturing() {
			switch {
			case key.Matches(msg, m.keys.Quit):
				return m.quitNow()
			case key.Matches(msg, m.keys.Next):
				m.switchTo((m.active + 1) % len(m.views))
				return nil
			case key.Matches(msg, m.keys.Prev):
				m.switchTo((m.active + len(m.views) - 1) % len(m.views))
				return nil
			case key.Matches(msg, m.keys.Jump):
				m.switchTo(int(msg.Code - '1'))
				return nil
			case key.Matches(msg, m.keys.Help):
				m.openHelp()
				return nil
			}
		}
		return v.update(msg)
	case runDoneMsg, runTickMsg:
		// A long action's messages go to the view that runs it, whichever
		// view is on screen.
		var cmds []tea.Cmd
		for _, v := range m.views {
			if b, ok := v.(interface{ busy() bool }); ok && b.busy() {
				cmds = append(cmds, v.update(msg))
			}
		}
		return tea.Batch(cmds...)
	case tea.MouseMsg:
		mouse := msg.Mouse()
		if _, ok := msg.(tea.MouseClickMsg); ok && mouse.Y == 0 {
			if i := m.tabAt(mouse.X); i >= 0 {
				m.switchTo(i)
				return nil
			}
		}
		if m.page.on {
			m.helpUpdate(msg)
			return nil
		}
		return m.views[m.active].update(offsetMouse(msg, 0, -1))
	}
	return m.views[m.active].update(msg)
}

// quitNow ends the program; a view's long action is told to stop first,
// so that its goroutine ends too.
func (m *Model) quitNow() tea.Cmd {
	for _, v := range m.views {
		if b, ok := v.(interface{ busy() bool }); ok && b.busy() {
			v.update(stopMsg{})
		}
	}
	m.quit = true
	return tea.Quit
}

func (m *Model) switchTo(i int) {
	if i < 0 || i >= len(m.views) {
		return
	}
	m.active = i
	m.resize()
	if m.page.on {
		m.syncHelp()
	}
}

// offsetMouse moves a mouse message's position by (dx, dy).
func offsetMouse(msg tea.MouseMsg, dx, dy int) tea.MouseMsg {
	switch e := msg.(type) {
	case tea.MouseClickMsg:
		e.X += dx
		e.Y += dy
		return e
	case tea.MouseReleaseMsg:
		e.X += dx
		e.Y += dy
		return e
	case tea.MouseWheelMsg:
		e.X += dx
		e.Y += dy
		return e
	case tea.MouseMotionMsg:
		e.X += dx
		e.Y += dy
		return e
	}
	return msg
}

// bodyHeight is what is left for the view: the screen less the tab bar,
// the status line and the key line.
func (m *Model) bodyHeight() int {
	return max(m.h-2-m.helpHeight(), 1)
}

// helpHeight is the key line's height: one line, where the screen has
// room for it.
func (m *Model) helpHeight() int {
	if m.h < 4 {
		return 0
	}
	return 1
}

func (m *Model) resize() {
	for _, v := range m.views {
		v.setSize(m.w, m.bodyHeight())
	}
}

// quitTyping is the only app key while a text field has the focus.
var quitTyping = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))

// tabs draws the top line; tabAt finds the tab under column x. The
// names shorten where the screen is narrow (Descriptor to Desc, then the
// others, then only the active view's name), so that the note on the right (the subject or
// the stepper's file) shows whole where it can; a note that still does not
// fit keeps its end, which names the operand or the file.
func (m *Model) tabs() (string, []int) {
	right := ""
	if m.st.subject != nil {
		right = m.st.subject.name()
	}
	if n, ok := m.views[m.active].(interface{ tabNote() string }); ok {
		// A view about something else than the explorer's subject names it.
		right = n.tabNote()
	}
	var labels []string
	var x int
	for form := 0; form < 4; form++ {
		labels, x = labels[:0], 0
		for i, v := range m.views {
			name := v.title()
			switch {
			case form == 3 && i != m.active:
				name = ""
			case form > 0:
				name = shortTitle(name, form)
			}
			l := fmt.Sprintf(" %d %s ", i+1, name)
			if name == "" {
				l = fmt.Sprintf(" %d ", i+1)
			}
			labels = append(labels, l)
			x += len([]rune(l)) + 1
		}
		if right == "" || m.w-x-1 >= len([]rune(right)) {
			break
		}
	}
	var b strings.Builder
	var ends []int
	pos := 0
	for i, l := range labels {
		if i == m.active {
			b.WriteString(styleTabActive.Render(l))
		} else {
			b.WriteString(styleTab.Render(l))
		}
		pos += len([]rune(l))
		ends = append(ends, pos)
		b.WriteString(styleRule.Render("│"))
		pos++
	}
	line := b.String()
	if room := m.w - x - 1; room > 8 && right != "" {
		if n := len([]rune(right)); n > room {
			right = "…" + string([]rune(right)[n-room+1:])
		}
		line += strings.Repeat(" ", max(m.w-x-len([]rune(right)), 1)) + styleDim.Render(right)
	}
	return line, ends
}

// shortTitle is a view's name in a narrow tab bar: Descriptor shortens
// first (level 1), then the others (level 2).
func shortTitle(name string, level int) string {
	if name == "Descriptor" {
		return "Desc"
	}
	if level < 2 {
		return name
	}
	switch name {
	case "Bitmath":
		return "Bits"
	case "Swizzle":
		return "Swiz"
	case "Stepper":
		return "Step"
	}
	return name
}

func (m *Model) tabAt(x int) int {
	_, ends := m.tabs()
	start := 0
	for i, e := range ends {
		if x >= start && x < e {
			return i
		}
		start = e + 1
	}
	return -1
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	if m.quit {
		return tea.NewView("")
	}
	v := tea.NewView(m.Content())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tcsim"
	return v
}

// Content is the whole screen as text with ANSI styles: exactly the
// terminal's height in lines, each exactly its width. After the user quit
// it still draws the last screen (View draws nothing then).
func (m *Model) Content() string {
	tabs, _ := m.tabs()
	bh := m.bodyHeight()
	var body, st string
	if m.page.on {
		body, st = m.helpRender(m.w, bh), m.helpStatus()
	} else {
		body, st = m.views[m.active].render(), m.views[m.active].status()
	}
	if strings.Count(body, "\n")+1 != bh {
		// Views draw exactly their size; this only guards tiny screens.
		body = fitBlock(body, m.w, bh)
	}
	var b strings.Builder
	b.Grow(len(body) + 4*m.w + 1024)
	b.WriteString(fitLine(tabs, m.w))
	b.WriteByte('\n')
	b.WriteString(body)
	b.WriteByte('\n')
	b.WriteString(fitStatus(st, m.w))
	if m.helpHeight() > 0 {
		b.WriteByte('\n')
		b.WriteString(fitLine(m.shortHelp(m.w), m.w))
	}
	if m.h < 3 {
		return fitBlock(b.String(), m.w, max(m.h, 1))
	}
	return b.String()
}
