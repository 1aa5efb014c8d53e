package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
)

// The key help: one line at the bottom of the screen with the active
// view's most used keys and the app's, and the page that ? opens over the
// body, which lists every key of the active view first, then the app's,
// and scrolls (a bubbles viewport) so that nothing is hidden at 80×24.

// helpPage is the full key list.
type helpPage struct {
	on   bool
	vp   viewport.Model
	view int // the view whose keys it lists
	w, h int
}

// helpKeys scroll and close the page.
var helpKeys = struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding
}{
	Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓/jk", "scroll")),
	Down:     key.NewBinding(key.WithKeys("down", "j")),
	PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b", "b"), key.WithHelp("pgup/pgdn", "page")),
	PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space", "f")),
	Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/G", "top/bottom")),
	Bottom:   key.NewBinding(key.WithKeys("G", "end")),
	Close:    key.NewBinding(key.WithKeys("esc", "?"), key.WithHelp("esc/?", "close")),
}

// openHelp shows the page for the active view, at its top.
func (m *Model) openHelp() {
	m.page.on = true
	m.page.vp = viewport.New()
	m.page.vp.MouseWheelEnabled = false
	m.page.view = -1
	m.syncHelp()
	m.page.vp.GotoTop()
}

// syncHelp rebuilds the page's text when the view or the size changed.
func (m *Model) syncHelp() {
	p := &m.page
	w, h := m.w, m.bodyHeight()
	if p.view == m.active && p.w == w && p.h == h {
		return
	}
	y := p.vp.YOffset()
	if p.view != m.active {
		y = 0
	}
	p.view, p.w, p.h = m.active, w, h
	p.vp.SetWidth(w)
	p.vp.SetHeight(max(h-1, 1))
	p.vp.SetContentLines(m.helpLines(w))
	p.vp.SetYOffset(y)
}

// helpUpdate handles a key or the wheel while the page is open; it
// reports whether the message was for the page.
func (m *Model) helpUpdate(msg tea.Msg) bool {
	vp := &m.page.vp
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, helpKeys.Close):
			m.page.on = false
		case key.Matches(msg, helpKeys.Up):
			vp.ScrollUp(1)
		case key.Matches(msg, helpKeys.Down):
			vp.ScrollDown(1)
		case key.Matches(msg, helpKeys.PageUp):
			vp.PageUp()
		case key.Matches(msg, helpKeys.PageDown):
			vp.PageDown()
		case key.Matches(msg, helpKeys.Top):
			vp.GotoTop()
		case key.Matches(msg, helpKeys.Bottom):
			vp.GotoBottom()
		default:
			return false
		}
		return true
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			vp.ScrollUp(3)
		} else {
			vp.ScrollDown(3)
		}
		return true
	case tea.MouseMsg:
		return true // clicks on the page do nothing
	}
	return false
}

// helpLines is the page's text in w cells: the view's keys, then the
// app's.
func (m *Model) helpLines(w int) []string {
	v := m.views[m.active]
	_, full := v.bindings()
	var own []key.Binding
	for _, grp := range full {
		own = append(own, grp...)
	}
	app := []key.Binding{m.keys.Next, m.keys.Prev, m.keys.Jump,
		key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "this help (esc or ? closes it)")),
		key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit (ctrl+c quits from anywhere, even while a run goes on)"))}
	if v.capturing() {
		app = []key.Binding{quitTyping}
	}
	keyW := 0
	for _, b := range append(append([]key.Binding{}, own...), app...) {
		keyW = max(keyW, cellWidth(b.Help().Key))
	}
	keyW = min(keyW, 16)
	var out []string
	add := func(title string, bs []key.Binding) {
		out = append(out, section(title))
		n := 0
		for _, b := range bs {
			h := b.Help()
			if h.Key == "" && h.Desc == "" {
				continue
			}
			n++
			k := h.Key + strings.Repeat(" ", max(keyW-cellWidth(h.Key), 0))
			for i, l := range wrap(h.Desc, max(w-keyW-4, 10), 0) {
				if i == 0 {
					out = append(out, "  "+styleKey.Render(k)+"  "+l)
				} else {
					out = append(out, strings.Repeat(" ", keyW+4)+l)
				}
			}
		}
		if n == 0 {
			out = append(out, styleDim.Render("  (none here)"))
		}
		out = append(out, "")
	}
	add(v.title()+" keys", own)
	add("Global keys", app)
	for _, l := range wrap("Mouse: a click selects a cell, a pane or a tab; the wheel scrolls (shift+wheel sideways).", w, 2) {
		out = append(out, styleDim.Render(l))
	}
	return out
}

// helpRender draws the page in the body: a title line and the viewport.
func (m *Model) helpRender(w, h int) string {
	m.syncHelp()
	vp := &m.page.vp
	head := section("Keys") + styleDim.Render(fmt.Sprintf("  the %s view's first, then the global ones", m.views[m.active].title()))
	return fitLine(head, w) + "\n" + fitBlock(vp.View(), w, max(h-1, 1))
}

// helpStatus is the status line while the page is open.
func (m *Model) helpStatus() string {
	vp := &m.page.vp
	n := vp.TotalLineCount()
	return styleDim.Render(fmt.Sprintf("keys: lines %d-%d of %d", min(vp.YOffset()+1, n), min(vp.YOffset()+vp.Height(), n), n))
}

// shortHelp is the bottom line: the view's keys that fit, then the app's,
// which always show (they say how to see the rest and how to quit).
func (m *Model) shortHelp(w int) string {
	var own, app []key.Binding
	switch v := m.views[m.active]; {
	case m.page.on:
		own = []key.Binding{helpKeys.Up, helpKeys.PageUp, helpKeys.Top, helpKeys.Close}
		app = []key.Binding{m.keys.Quit}
	case v.capturing():
		own, _ = v.bindings()
		app = []key.Binding{quitTyping}
	default:
		own, _ = v.bindings()
		app = []key.Binding{m.keys.Next, m.keys.Help, m.keys.Quit}
	}
	sep := styleRule.Render(" · ")
	item := func(b key.Binding) string {
		h := b.Help()
		return styleKey.Render(h.Key) + " " + styleDim.Render(h.Desc)
	}
	var tail []string
	for _, b := range app {
		tail = append(tail, item(b))
	}
	tailS := strings.Join(tail, sep)
	if cellWidth(tailS) > w && len(tail) > 2 {
		tail = tail[1:] // tab is on the tab bar
		tailS = strings.Join(tail, sep)
	}
	var parts []string
	used := cellWidth(tailS)
	for _, b := range own {
		if b.Help().Key == "" {
			continue
		}
		s := item(b)
		if used+cellWidth(s)+3 > w {
			continue // a shorter one may still fit
		}
		parts = append(parts, s)
		used += cellWidth(s) + 3
	}
	return strings.Join(append(parts, tail...), sep)
}
