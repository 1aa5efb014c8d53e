package tui

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// picker chooses a catalog atom with a fuzzy filter, or takes the typed
// text itself (a layout) when allowed. It is drawn over a view's body.
type picker struct {
	title  string
	input  textinput.Model
	items  []catalog.Atom
	shown  []int // indices into items, best match first
	sel    int   // index into shown
	top    int   // first shown line
	typed  bool  // the typed text may be taken as is (a layout)
	active bool
	rows   int // list lines on the screen, for a page
}

// pickResult is what a picker returns when the user presses enter.
type pickResult struct {
	atom  *catalog.Atom // the chosen atom, or nil for typed text
	typed string        // the typed text, when no atom was chosen
}

// pk are the picker's keys: letters go to the filter box, so the list
// moves with the arrows or ctrl+j/ctrl+k (ctrl+n/ctrl+p), as in fzf.
var pk = struct {
	Up, Down, PageUp, PageDown, Enter, Cancel key.Binding
}{
	Up:       key.NewBinding(key.WithKeys("up", "ctrl+p", "ctrl+k"), key.WithHelp("↑/ctrl+k", "previous")),
	Down:     key.NewBinding(key.WithKeys("down", "ctrl+n", "ctrl+j"), key.WithHelp("↓/ctrl+j", "next")),
	PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
	PageDown: key.NewBinding(key.WithKeys("pgdown")),
	Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
}

func newTextInput(prompt, placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.Placeholder = placeholder
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	return in
}

// open shows the picker over items, with the text field empty.
func (p *picker) open(title, placeholder string, items []catalog.Atom, typed bool) tea.Cmd {
	p.title, p.items, p.typed, p.active = title, items, typed, true
	p.input = newTextInput("filter> ", placeholder)
	p.sel, p.top = 0, 0
	p.refilter()
	return p.input.Focus()
}

func (p *picker) close() {
	p.active = false
	p.input.Blur()
}

// update handles a key; it returns a result when the user chose.
func (p *picker) update(msg tea.Msg) (*pickResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, pk.Cancel):
			p.close()
			return nil, nil
		case key.Matches(k, pk.Up):
			p.sel = max(p.sel-1, 0)
			return nil, nil
		case key.Matches(k, pk.Down):
			p.sel = min(p.sel+1, max(len(p.shown)-1, 0))
			return nil, nil
		case key.Matches(k, pk.PageUp):
			p.sel = max(p.sel-p.rows, 0)
			return nil, nil
		case key.Matches(k, pk.PageDown):
			p.sel = min(p.sel+p.rows, max(len(p.shown)-1, 0))
			return nil, nil
		case key.Matches(k, pk.Enter):
			return p.choose(), nil
		}
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.sel, p.top = 0, 0
		p.refilter()
	}
	return nil, cmd
}

// choose returns the exact atom typed, else the typed text when it is not
// a filter of atom names, else the highlighted atom.
func (p *picker) choose() *pickResult {
	q := strings.TrimSpace(p.input.Value())
	for i := range p.items {
		if strings.EqualFold(p.items[i].Name, q) {
			p.close()
			return &pickResult{atom: &p.items[i]}
		}
	}
	if p.typed && q != "" && (!input.LooksLikeName(q) || strings.ContainsAny(q, "(:")) {
		p.close()
		return &pickResult{typed: q}
	}
	if len(p.shown) > 0 {
		p.close()
		return &pickResult{atom: &p.items[p.shown[p.sel]]}
	}
	if p.typed && q != "" {
		p.close()
		return &pickResult{typed: q}
	}
	return nil
}

// refilter ranks the items against the query: every word of the query
// must occur in the atom's name, shapes, summary or section, as a
// substring (catalog.Filter's rule) or, failing that, as a subsequence of
// the name; substring matches rank first, then tighter subsequences, then
// catalog order.
func (p *picker) refilter() {
	// Dots separate words too, so that "mma.sync.m16n8k16" finds the
	// atoms whose PTX shapes include m16n8k16.
	words := strings.Fields(strings.ReplaceAll(strings.ToLower(p.input.Value()), ".", " "))
	type scored struct{ i, score int }
	var out []scored
	for i := range p.items {
		a := &p.items[i]
		hay := strings.ToLower(strings.Join([]string{a.Name, a.Family, a.Operand, a.Summary, a.Arch, a.Section, strings.Join(a.Shapes, " ")}, " "))
		name := strings.ToLower(a.Name)
		score, ok := 0, true
		for _, w := range words {
			switch {
			case strings.Contains(name, w):
				score += 3 * len(w)
			case strings.Contains(hay, w):
				score += 2 * len(w)
			default:
				gaps, sub := subsequence(name, w)
				if !sub {
					ok = false
				}
				score += len(w) - gaps
			}
			if !ok {
				break
			}
		}
		if ok {
			out = append(out, scored{i, score})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	p.shown = p.shown[:0]
	for _, s := range out {
		p.shown = append(p.shown, s.i)
	}
}

// subsequence reports whether w's letters occur in s in order, and how
// many letters of s lie between the first and last matched letter and do
// not match (fewer gaps rank higher).
func subsequence(s, w string) (gaps int, ok bool) {
	j, first := 0, -1
	for i := 0; i < len(s) && j < len(w); i++ {
		if s[i] == w[j] {
			if first < 0 {
				first = i
			} else {
				gaps += i - first - 1
			}
			first = i
			j++
		}
	}
	return gaps, j == len(w)
}

// view draws the picker in w × h cells.
func (p *picker) view(w, h int) string {
	var b strings.Builder
	b.WriteString(section(p.title))
	b.WriteByte('\n')
	p.input.SetWidth(max(w-len(p.input.Prompt)-1, 10))
	b.WriteString(p.input.View())
	b.WriteByte('\n')
	n := len(p.shown)
	info := ""
	switch {
	case n == 0 && p.typed:
		info = "no atom matches; enter takes the text as a layout (e.g. (8,8):(8,1), add 64x16 for a thread-value tile, b16 for banks)"
	case n == 0:
		info = "no atom matches"
	default:
		info = strings.Join([]string{itoa(n), " of ", itoa(len(p.items)), " atoms; ↑↓ or ctrl+j/k choose, enter select, esc cancel"}, "")
	}
	b.WriteString(styleDim.Render(fitLine(info, w)))
	b.WriteByte('\n')
	rows := max(h-3, 1)
	p.rows = rows
	if p.sel < p.top {
		p.top = p.sel
	}
	if p.sel >= p.top+rows {
		p.top = p.sel - rows + 1
	}
	nameW := 0
	for _, i := range p.shown {
		nameW = max(nameW, len(p.items[i].Name))
	}
	nameW = min(nameW, max(w/2, 20))
	for k := p.top; k < min(n, p.top+rows); k++ {
		a := &p.items[p.shown[k]]
		line := fitLine(fitLine(a.Name, nameW)+"  "+styleDim.Render(a.Summary), w)
		if k == p.sel {
			line = styleSel.Render(fitLine(fitLine(a.Name, nameW)+"  "+a.Summary, w))
		}
		b.WriteString(line)
		if k+1 < min(n, p.top+rows) {
			b.WriteByte('\n')
		}
	}
	return fitBlock(b.String(), w, h)
}

func itoa(v int) string { return string(appendInt(nil, v)) }
