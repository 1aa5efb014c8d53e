package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/layouts/bitmath"
)

// bitmathView shows the bitmath of the explorer's subject (for an MMA, of
// the operand under the explorer's cursor): the derived formulas in C,
// PTX, Python or Go, the F2 matrix with its thread and value bits
// labelled, and a "check my formula" box.
type bitmathView struct {
	st       *state
	vp       viewport.Model
	input    textinput.Model
	editing  bool
	lang     int // index into bitmath.Langs
	dir      int // 0 both directions, 1 forward, 2 inverse
	inverse  bool
	result   []string
	resultOK bool
	gen      int // the state generation the content was built for
	w, h     int
	keys     bitmathKeys
}

type bitmathKeys struct {
	Lang, Dir, Matrix, Check, Run, Leave, Up, Down, Left, Right, PageUp, PageDown, Top, Bottom key.Binding
}

func newBitmathView(st *state) *bitmathView {
	b := &bitmathView{
		st:    st,
		vp:    viewport.New(),
		input: newTextInput("check> ", "e.g. row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"),
		gen:   -1,
		keys: bitmathKeys{
			Lang:     key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "language C/PTX/Python/Go")),
			Dir:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "direction: both/forward/inverse")),
			Matrix:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "matrix of the map/inverse")),
			Check:    key.NewBinding(key.WithKeys("e", "/"), key.WithHelp("e", "check my formula")),
			Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "check")),
			Leave:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave the box")),
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓/jk", "scroll")),
			Down:     key.NewBinding(key.WithKeys("down", "j")),
			Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←→/hl", "scroll sideways")),
			Right:    key.NewBinding(key.WithKeys("right", "l")),
			PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup/pgdn", "page")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "space", "ctrl+f")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/G", "top/bottom")),
			Bottom:   key.NewBinding(key.WithKeys("end", "G")),
		},
	}
	b.vp.MouseWheelEnabled = false
	return b
}

func (b *bitmathView) title() string { return "Bitmath" }

func (b *bitmathView) setSize(w, h int) {
	if w != b.w {
		b.invalidate() // the summary is wrapped to the width
	}
	b.w, b.h = w, h
	b.vp.SetWidth(w)
	b.vp.SetHeight(max(h-1-1-len(b.resultLines()), 1))
	b.input.SetWidth(max(w-len(b.input.Prompt)-1, 10))
}

func (b *bitmathView) capturing() bool { return b.editing }

func (b *bitmathView) status() string {
	if b.editing {
		return styleDim.Render("names: tid, v, lane, wid, reg; assign row and col (inverse: tid and v from row, col); enter checks")
	}
	return styleDim.Render(fmt.Sprintf("%s · lines %d-%d of %d", b.langName(), b.vp.YOffset()+1, min(b.vp.YOffset()+b.vp.Height(), b.vp.TotalLineCount()), b.vp.TotalLineCount()))
}

func (b *bitmathView) langName() string { return "language " + string(bitmath.Langs[b.lang]) }

func (b *bitmathView) bindings() ([]key.Binding, [][]key.Binding) {
	k := b.keys
	if b.editing {
		return []key.Binding{k.Run, k.Leave}, [][]key.Binding{{k.Run, k.Leave}}
	}
	return []key.Binding{k.Check, k.Lang, k.Dir, k.Matrix, k.Up},
		[][]key.Binding{{k.Check, k.Lang, k.Dir, k.Matrix}, {k.Up, k.Left, k.PageUp, k.Top}}
}

// math returns the panel math the view follows.
func (b *bitmathView) math() (*panelMath, string) {
	s := b.st.subject
	p := max(b.st.panel, 0)
	if s.mma && b.st.panel < 0 {
		p = 2 // the accumulator
	}
	name := s.spec
	if a := s.atomOf(p); a != nil {
		name = a.Name
	}
	return s.mathOf(p), name
}

// refresh rebuilds the content when the subject or the options changed.
func (b *bitmathView) refresh() {
	if b.gen == b.st.gen {
		return
	}
	b.gen = b.st.gen
	pm, _ := b.math()
	b.vp.SetContentLines(b.content(pm))
	b.vp.GotoTop()
}

func (b *bitmathView) invalidate() { b.gen = -1 }

func (b *bitmathView) content(pm *panelMath) []string {
	var out []string
	for _, h := range pm.header {
		out = append(out, styleDim.Render(h))
	}
	if pm.err != nil {
		out = append(out, "")
		out = append(out, wrap(pm.err.Error(), b.w, 2)...)
		var nl *bitmath.NonLinearError
		if errors.As(pm.err, &nl) {
			out = append(out, wrap("the F2 view needs a map that is XOR-linear on its bits; the Layout view still draws it", b.w, 0)...)
		}
		return out
	}
	for _, s := range pm.d.Summary() {
		out = append(out, wrap(s, b.w, 2)...)
	}
	lang := bitmath.Langs[b.lang]
	progs := []*bitmath.Program{pm.d.Forward, pm.d.Inverse}
	switch b.dir {
	case 1:
		progs = progs[:1]
	case 2:
		progs = progs[1:]
	}
	for _, p := range progs {
		out = append(out, "", section(p.Desc+" ("+string(lang)+")"))
		code, err := bitmath.Emit(p, lang)
		if err != nil {
			out = append(out, styleErr.Render(err.Error()))
			continue
		}
		out = append(out, strings.Split(strings.TrimRight(code, "\n"), "\n")...)
	}
	mat, what := pm.d.Matrix, "the map"
	if b.inverse {
		mat, what = pm.d.Inv.M, "the inverse ("+pm.d.Inv.Kind.String()+")"
	}
	out = append(out, "", section("F2 matrix of "+what+" (x: switch)"))
	out = append(out, styleDim.Render("each output bit (a line) is the XOR of the input bits marked 1; l = lane bits, w = warp bits, v = value bits"))
	out = append(out, strings.Split(strings.TrimRight(mat.String(), "\n"), "\n")...)
	return out
}

func (b *bitmathView) update(msg tea.Msg) tea.Cmd {
	b.refresh()
	k := b.keys
	if b.editing {
		if km, ok := msg.(tea.KeyPressMsg); ok {
			switch {
			case key.Matches(km, k.Leave):
				b.editing = false
				b.input.Blur()
				return nil
			case key.Matches(km, k.Run):
				b.check()
				return nil
			}
		}
		var cmd tea.Cmd
		b.input, cmd = b.input.Update(msg)
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Check):
			b.editing = true
			return b.input.Focus()
		case key.Matches(msg, k.Lang):
			b.lang = (b.lang + 1) % len(bitmath.Langs)
			b.invalidate()
		case key.Matches(msg, k.Dir):
			b.dir = (b.dir + 1) % 3
			b.invalidate()
		case key.Matches(msg, k.Matrix):
			b.inverse = !b.inverse
			y := b.vp.YOffset()
			b.invalidate()
			b.refresh()
			b.vp.SetYOffset(y)
			return nil
		case key.Matches(msg, k.Up):
			b.vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			b.vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			b.vp.PageUp()
		case key.Matches(msg, k.PageDown):
			b.vp.PageDown()
		case key.Matches(msg, k.Top):
			b.vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			b.vp.GotoBottom()
		case key.Matches(msg, k.Left):
			b.vp.ScrollLeft(8)
		case key.Matches(msg, k.Right):
			b.vp.ScrollRight(8)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			b.vp.ScrollUp(3)
		case tea.MouseWheelDown:
			b.vp.ScrollDown(3)
		}
	case tea.MouseClickMsg:
		if msg.Y >= b.h-1-len(b.resultLines()) {
			b.editing = true
			return b.input.Focus()
		}
	}
	b.refresh()
	return nil
}

// check runs the formula in the box against the map, every input.
func (b *bitmathView) check() {
	pm, name := b.math()
	src := strings.TrimSpace(b.input.Value())
	if src == "" {
		b.result = []string{"type a formula first"}
		b.setSize(b.w, b.h)
		return
	}
	if pm.err != nil {
		b.result = []string{pm.err.Error()}
		b.setSize(b.w, b.h)
		return
	}
	inverse := false
	if steps, err := bitmath.ParseFormula(src); err == nil {
		assigned := map[string]bool{}
		for _, s := range steps {
			assigned[s.Name] = true
		}
		all := true
		for _, f := range pm.m.Out {
			all = all && assigned[f.Name]
		}
		inverse = !all
	}
	r, err := bitmath.Check(pm.m, src, inverse)
	dir := "forward"
	if inverse {
		dir = "inverse"
	}
	var lines []string
	switch {
	case err != nil:
		var fe *bitmath.FormulaError
		if errors.As(err, &fe) {
			lines = append(lines, "malformed: "+fe.Error())
		} else {
			lines = append(lines, err.Error())
		}
	case r.OK():
		lines = append(lines, fmt.Sprintf("%s formula for %s: %s", dir, name, strings.TrimSpace(r.String())))
	default:
		for i, l := range strings.Split(strings.TrimSpace(r.String()), "\n") {
			if i == 0 {
				l = dir + " formula for " + name + ": " + l
			}
			lines = append(lines, l)
		}
	}
	b.result = lines
	b.resultOK = err == nil && r.OK()
	b.setSize(b.w, b.h)
}

// resultLines is the check result wrapped to the width, at most five
// lines.
func (b *bitmathView) resultLines() []string {
	var out []string
	for _, l := range b.result {
		out = append(out, wrap(l, max(b.w, 20), 2)...)
	}
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

func (b *bitmathView) render() string {
	b.refresh()
	_, name := b.math()
	head := section("Bitmath of "+name) + styleDim.Render("  l: "+string(bitmath.Langs[b.lang])+" · d: "+[]string{"both directions", "forward", "inverse"}[b.dir]+" · x: matrix")
	var sb strings.Builder
	sb.WriteString(fitLine(head, b.w))
	sb.WriteByte('\n')
	sb.WriteString(fitBlock(b.vp.View(), b.w, b.vp.Height()))
	sb.WriteByte('\n')
	in := b.input.View()
	if !b.editing {
		v := b.input.Value()
		if v == "" {
			v = styleDim.Render("press e to check your own formula against every (tid, v)")
		}
		in = b.input.Prompt + v
	}
	sb.WriteString(fitLine(in, b.w))
	st := styleErr
	if b.resultOK {
		st = styleOK
	}
	for i, l := range b.resultLines() {
		sb.WriteByte('\n')
		if i == 0 {
			l = st.Render(l)
		}
		sb.WriteString(fitLine(l, b.w))
	}
	return fitBlock(sb.String(), b.w, b.h)
}
