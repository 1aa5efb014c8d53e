package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// view is one screen of the app, selected by its tab: the explorer, the
// bitmath panel, the swizzle view, the descriptor view and the kernel
// stepper, in the order of the list in New.
//
// The app owns the top line (tabs), the status line and the help at the
// bottom; a view draws the body between them. Key and mouse messages reach
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
	help   help.Model
	w, h   int
	color  bool
	keys   appKeys
	quit   bool
	helpH  int // the help's height when the views were last sized
}

type appKeys struct {
	Next, Prev, Jump, Help, Quit key.Binding
}

func newAppKeys(n int) appKeys {
	return appKeys{
		Next: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		Prev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Jump: key.NewBinding(key.WithKeys(digitKeys(n)...), key.WithHelp(fmt.Sprintf("1-%d", n), "go to view")),
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
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
		help:  help.New(),
		color: !cfg.NoColor,
		w:     80, h: 24,
	}
	m.keys = newAppKeys(len(m.views))
	m.help.Styles = helpStyles()
	m.help.ShortSeparator = " · "
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

func helpStyles() help.Styles {
	k := lipgloss.NewStyle().Bold(true)
	d := lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	s := lipgloss.NewStyle().Foreground(lipgloss.Color("240"))
	return help.Styles{ShortKey: k, ShortDesc: d, ShortSeparator: s, Ellipsis: s, FullKey: k, FullDesc: d, FullSeparator: s}
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
	cmd := m.update(msg)
	// A view's keys decide the height of the help (the full help of a
	// text field is shorter): give the body what is left.
	if m.helpHeight() != m.helpH {
		m.resize()
	}
	return m, cmd
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
			if b, ok := v.(interface{ busy() bool }); ok && b.busy() {
				return v.update(msg) // it stops the view's long action, not the app
			}
			m.quit = true
			return tea.Quit
		}
		if !v.capturing() {
			switch {
			case key.Matches(msg, m.keys.Quit):
				m.quit = true
				return tea.Quit
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
				m.help.ShowAll = !m.help.ShowAll
				m.resize()
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
		return m.views[m.active].update(offsetMouse(msg, 0, -1))
	}
	return m.views[m.active].update(msg)
}

func (m *Model) switchTo(i int) {
	if i < 0 || i >= len(m.views) {
		return
	}
	m.active = i
	m.resize()
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
// the status line and the help.
func (m *Model) bodyHeight() int {
	return max(m.h-2-m.helpHeight(), 1)
}

// helpHeight is the help's height: all of it where it fits, else what
// leaves the tab bar, one line of body and the status line.
func (m *Model) helpHeight() int {
	return max(min(strings.Count(m.helpView(), "\n")+1, m.h-3), 0)
}

func (m *Model) resize() {
	m.help.SetWidth(m.w)
	m.helpH = m.helpHeight()
	for _, v := range m.views {
		v.setSize(m.w, m.bodyHeight())
	}
}

// ShortHelp and FullHelp make the Model a help.KeyMap: the active view's
// keys, then the app's.
func (m *Model) ShortHelp() []key.Binding {
	v := m.views[m.active]
	short, _ := v.bindings()
	if v.capturing() {
		return append(append([]key.Binding{}, short...), quitTyping)
	}
	return append(append([]key.Binding{}, short...), m.keys.Next, m.keys.Help, m.keys.Quit)
}

// quitTyping is the only app key while a text field has the focus.
var quitTyping = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	v := m.views[m.active]
	_, full := v.bindings()
	app := []key.Binding{m.keys.Next, m.keys.Prev, m.keys.Jump, m.keys.Help, m.keys.Quit}
	if v.capturing() {
		app = []key.Binding{quitTyping}
	}
	return append([][]key.Binding{app}, full...)
}

func (m *Model) helpView() string {
	return m.help.View(m)
}

// tabs draws the top line; tabAt finds the tab under column x.
func (m *Model) tabs() (string, []int) {
	var b strings.Builder
	var ends []int
	x := 0
	for i, v := range m.views {
		label := fmt.Sprintf(" %d %s ", i+1, v.title())
		if i == m.active {
			b.WriteString(styleTabActive.Render(label))
		} else {
			b.WriteString(styleTab.Render(label))
		}
		x += len([]rune(label))
		ends = append(ends, x)
		b.WriteString(styleRule.Render("│"))
		x++
	}
	right := ""
	if m.st.subject != nil {
		right = m.st.subject.name()
	}
	if n, ok := m.views[m.active].(interface{ tabNote() string }); ok {
		// A view about something else than the explorer's subject names it.
		right = n.tabNote()
	}
	line := b.String()
	if room := m.w - x - 1; room > 8 && right != "" {
		right = fitLine(right, min(room, len([]rune(right))))
		line += strings.Repeat(" ", max(m.w-x-len([]rune(right)), 1)) + styleDim.Render(right)
	}
	return line, ends
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
	body := m.views[m.active].render()
	if bh := m.bodyHeight(); strings.Count(body, "\n")+1 != bh {
		// Views draw exactly their size; this only guards tiny screens.
		body = fitBlock(body, m.w, bh)
	}
	st := m.views[m.active].status()
	var b strings.Builder
	b.Grow(len(body) + 4*m.w + 1024)
	b.WriteString(fitLine(tabs, m.w))
	b.WriteByte('\n')
	b.WriteString(body)
	b.WriteByte('\n')
	b.WriteString(fitLine(st, m.w))
	if hh := m.helpHeight(); hh > 0 {
		b.WriteByte('\n')
		b.WriteString(fitBlock(m.helpView(), m.w, hh))
	}
	if m.h < 3 {
		return fitBlock(b.String(), m.w, max(m.h, 1))
	}
	return b.String()
}
