package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/render"
)

// gridPane shows a window of a render.Grid: a cursor cell, a cell width
// (zoom) and scrolling, drawn by render.AppendGrid (the same code as
// `tcsim layout`) with Options.Bare. The explorer, the swizzle view and the
// descriptor view each hold one.
type gridPane struct {
	g      *render.Grid // what is drawn
	cur    render.Pos   // the selected cell
	row0   int          // first row of the window
	col0   int          // first column of the window
	zoom   int          // characters per cell
	color  render.ColorBy
	label  render.LabelMode
	w, h   int // the pane's size in cells
	cursor bool
	sized  bool   // setSize has run: the window keeps its place from now on
	buf    []byte // the last frame's text, reused

	// Conservative frame sizes over the whole grid, so that the window
	// never outgrows the pane: the widest row label and the most header
	// lines any window can need at this zoom.
	labelW, headerH int
}

// maxZoom is the widest cell the zoom keys reach.
const maxZoom = 16

func newGridPane() gridPane { return gridPane{zoom: 6, cursor: true} }

// setGrid shows g, keeping the cursor where it still fits.
func (p *gridPane) setGrid(g *render.Grid) {
	p.g = g
	if g == nil {
		return
	}
	p.cur.Row = clamp(p.cur.Row, 0, g.Rows-1)
	p.cur.Col = clamp(p.cur.Col, 0, g.Cols-1)
	p.measure()
	p.follow()
}

// fitZoom picks the cell width that shows every label of g in full, up to
// limit characters.
func (p *gridPane) fitZoom(limit int) {
	if p.g == nil {
		return
	}
	w := 1
	var buf []byte
	for i := range p.g.Cells {
		c := &p.g.Cells[i]
		n := 0
		switch {
		case c.Label != "":
			n = len([]rune(c.Label))
		case len(c.Owners) > 1:
			buf = render.AppendCompact(buf[:0], c.Owners)
			n = len(buf)
		case len(c.Owners) == 1:
			buf = render.AppendOwners(buf[:0], c.Owners)
			n = len(buf)
		case c.Panel >= 0 && p.g.Panels[c.Panel].TMEM:
			buf = render.AppendTMEM(buf[:0], c, &p.g.Panels[c.Panel])
			n = len(buf)
		case c.Panel >= 0:
			buf = appendInt(buf[:0], c.Offset)
			n = len(buf)
		}
		w = max(w, n)
		if w >= limit {
			break
		}
	}
	p.zoom = clamp(w, 1, limit)
	p.measure()
	p.follow()
}

func appendInt(b []byte, v int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

func (p *gridPane) measure() {
	if p.g == nil {
		return
	}
	p.labelW, p.headerH = p.g.TextFrame(render.Region{Row1: p.g.Rows, Col1: p.g.Cols}, p.zoom)
}

func (p *gridPane) setSize(w, h int) {
	p.w, p.h = max(w, 0), max(h, 0)
	if !p.sized && p.h > 0 {
		// The first real size: show the top left, as far as the cursor allows.
		p.row0, p.col0, p.sized = 0, 0, true
	}
	p.follow()
}

// visible returns how many rows and columns fit the pane.
func (p *gridPane) visible() (rows, cols int) {
	if p.g == nil {
		return 0, 0
	}
	rows = max(p.h-p.headerH, 1)
	cols = max((p.w-p.labelW)/(p.zoom+1), 1)
	return min(rows, p.g.Rows), min(cols, p.g.Cols)
}

// follow scrolls so that the cursor is inside the window.
func (p *gridPane) follow() {
	if p.g == nil {
		return
	}
	rows, cols := p.visible()
	if p.cur.Row < p.row0 {
		p.row0 = p.cur.Row
	}
	if p.cur.Row >= p.row0+rows {
		p.row0 = p.cur.Row - rows + 1
	}
	if p.cur.Col < p.col0 {
		p.col0 = p.cur.Col
	}
	if p.cur.Col >= p.col0+cols {
		p.col0 = p.cur.Col - cols + 1
	}
	p.clampWindow()
}

func (p *gridPane) clampWindow() {
	rows, cols := p.visible()
	p.row0 = clamp(p.row0, 0, max(p.g.Rows-rows, 0))
	p.col0 = clamp(p.col0, 0, max(p.g.Cols-cols, 0))
}

// scroll moves the window without moving the cursor.
func (p *gridPane) scroll(dr, dc int) {
	if p.g == nil {
		return
	}
	p.row0 += dr
	p.col0 += dc
	p.clampWindow()
}

// move moves the cursor by (dr, dc), stopping at the edges.
func (p *gridPane) move(dr, dc int) {
	if p.g == nil {
		return
	}
	p.cur.Row = clamp(p.cur.Row+dr, 0, p.g.Rows-1)
	p.cur.Col = clamp(p.cur.Col+dc, 0, p.g.Cols-1)
	p.follow()
}

// moveTo puts the cursor on (r, c).
func (p *gridPane) moveTo(r, c int) {
	if p.g == nil {
		return
	}
	p.cur = render.Pos{Row: clamp(r, 0, p.g.Rows-1), Col: clamp(c, 0, p.g.Cols-1)}
	p.follow()
}

func (p *gridPane) setZoom(z int) {
	p.zoom = clamp(z, 1, maxZoom)
	p.measure()
	p.follow()
}

// cell returns the cursor cell, or nil.
func (p *gridPane) cell() *render.Cell {
	if p.g == nil {
		return nil
	}
	return p.g.At(p.cur.Row, p.cur.Col)
}

// window is the region the pane draws.
func (p *gridPane) window() render.Region {
	rows, cols := p.visible()
	return render.Region{Row0: p.row0, Row1: p.row0 + rows, Col0: p.col0, Col1: p.col0 + cols}
}

// render draws the window: exactly h lines of exactly w cells.
func (p *gridPane) render() string {
	if p.g == nil || p.w <= 0 || p.h <= 0 {
		return fitBlock("", p.w, p.h)
	}
	o := render.Options{
		Color: p.color, Label: p.label, CellWidth: p.zoom,
		Region: p.window(), Bare: true, NoLegend: true, TrueColor: true,
	}
	if p.cursor {
		c := p.cur
		o.Cursor = &c
	}
	b, err := render.AppendGrid(p.buf[:0], p.g, o, true)
	if err != nil {
		return fitBlock(styleErr.Render(err.Error()), p.w, p.h)
	}
	p.buf = b // reused by the next frame
	return fitBlock(string(b), p.w, p.h)
}

// hit maps a position inside the pane to a grid cell.
func (p *gridPane) hit(x, y int) (render.Pos, bool) {
	if p.g == nil {
		return render.Pos{}, false
	}
	win := p.window()
	labelW, headerH := p.g.TextFrame(win, p.zoom)
	r := win.Row0 + y - headerH
	dx := x - labelW - 1
	if y < headerH || dx < 0 || r >= win.Row1 {
		return render.Pos{}, false
	}
	c := win.Col0 + dx/(p.zoom+1)
	if c >= win.Col1 {
		return render.Pos{}, false
	}
	return render.Pos{Row: r, Col: c}, true
}

// gridKeys are the bindings a grid pane understands: the arrows and vim's
// hjkl, pages, g/G for the first and last row, home/end (0/$) for the
// first and last column, and the cell width.
type gridKeys struct {
	Up, Down, Left, Right, PageUp, PageDown, Top, Bottom, Home, End, ZoomIn, ZoomOut key.Binding
}

var gk = gridKeys{
	Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
	Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
	Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left")),
	Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right")),
	PageUp:   key.NewBinding(key.WithKeys("pgup", "shift+up", "ctrl+b"), key.WithHelp("pgup", "page up")),
	PageDown: key.NewBinding(key.WithKeys("pgdown", "shift+down", "ctrl+f"), key.WithHelp("pgdn", "page down")),
	Top:      key.NewBinding(key.WithKeys("g"), key.WithHelp("g/G", "first/last row")),
	Bottom:   key.NewBinding(key.WithKeys("G")),
	Home:     key.NewBinding(key.WithKeys("home", "shift+left", "0"), key.WithHelp("home/0", "first column")),
	End:      key.NewBinding(key.WithKeys("end", "shift+right", "$"), key.WithHelp("end/$", "last column")),
	ZoomIn:   key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "zoom (cell width)")),
	ZoomOut:  key.NewBinding(key.WithKeys("-", "_")),
}

func (k gridKeys) help() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Left, k.Right, k.PageUp, k.PageDown, k.Top, k.Home, k.End, k.ZoomIn}
}

// handleKey applies a navigation key; it reports whether the key was one.
func (p *gridPane) handleKey(msg tea.KeyPressMsg) bool {
	if p.g == nil {
		return false
	}
	rows, _ := p.visible()
	switch {
	case key.Matches(msg, gk.Up):
		p.move(-1, 0)
	case key.Matches(msg, gk.Down):
		p.move(1, 0)
	case key.Matches(msg, gk.Left):
		p.move(0, -1)
	case key.Matches(msg, gk.Right):
		p.move(0, 1)
	case key.Matches(msg, gk.PageUp):
		p.move(-max(rows-1, 1), 0)
	case key.Matches(msg, gk.PageDown):
		p.move(max(rows-1, 1), 0)
	case key.Matches(msg, gk.Top):
		p.moveTo(0, p.cur.Col)
	case key.Matches(msg, gk.Bottom):
		p.moveTo(p.g.Rows-1, p.cur.Col)
	case key.Matches(msg, gk.Home):
		p.moveTo(p.cur.Row, 0)
	case key.Matches(msg, gk.End):
		p.moveTo(p.cur.Row, p.g.Cols-1)
	case key.Matches(msg, gk.ZoomIn):
		p.setZoom(p.zoom + 1)
	case key.Matches(msg, gk.ZoomOut):
		p.setZoom(p.zoom - 1)
	default:
		return false
	}
	return true
}

// handleMouse selects the clicked cell or scrolls with the wheel (shift +
// wheel, or a horizontal wheel, scrolls columns). x and y are relative to
// the pane. It reports whether the message was for the pane.
func (p *gridPane) handleMouse(msg tea.MouseMsg, x, y int) bool {
	if x < 0 || y < 0 || x >= p.w || y >= p.h {
		return false
	}
	m := msg.Mouse()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if m.Button != tea.MouseLeft {
			return false
		}
		if pos, ok := p.hit(x, y); ok {
			p.cur = pos
			return true
		}
	case tea.MouseWheelMsg:
		shift := m.Mod.Contains(tea.ModShift)
		switch {
		case m.Button == tea.MouseWheelUp && !shift:
			p.scroll(-3, 0)
		case m.Button == tea.MouseWheelDown && !shift:
			p.scroll(3, 0)
		case m.Button == tea.MouseWheelLeft || m.Button == tea.MouseWheelUp:
			p.scroll(0, -3)
		case m.Button == tea.MouseWheelRight || m.Button == tea.MouseWheelDown:
			p.scroll(0, 3)
		}
		return true
	}
	return false
}

// windowLine describes the window, e.g. "rows 0-23 of 64, cols 0-9 of 256".
func (p *gridPane) windowLine() string {
	if p.g == nil {
		return ""
	}
	w := p.window()
	var b strings.Builder
	b.WriteString("rows ")
	b.Write(appendInt(nil, w.Row0))
	b.WriteByte('-')
	b.Write(appendInt(nil, w.Row1-1))
	b.WriteString(" of ")
	b.Write(appendInt(nil, p.g.Rows))
	b.WriteString(", cols ")
	b.Write(appendInt(nil, w.Col0))
	b.WriteByte('-')
	b.Write(appendInt(nil, w.Col1-1))
	b.WriteString(" of ")
	b.Write(appendInt(nil, p.g.Cols))
	return b.String()
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
