package tui

import (
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/tcsim/tcsim/render"
)

// Run opens the explorer on the terminal behind in and out and returns
// when the user quits (q or ctrl+c); the terminal is restored. env is the
// process environment (for TERM and the colour profile).
func Run(cfg Config, in io.Reader, out io.Writer, env []string) error {
	m, err := New(cfg)
	if err != nil {
		return err
	}
	opts := append([]tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env)}, ProgramOptions(cfg)...)
	_, err = tea.NewProgram(m, opts...).Run()
	return err
}

// ProgramOptions are the Bubble Tea options cfg asks for: under NoColor,
// the ASCII colour profile, which keeps bold, underline and reverse video
// (the cursor and the selected thread stay marked) and drops every colour.
func ProgramOptions(cfg Config) []tea.ProgramOption {
	if cfg.NoColor {
		return []tea.ProgramOption{tea.WithColorProfile(colorprofile.ASCII)}
	}
	return nil
}

// ANSI is the screen with its styles as escape codes, as an xterm-256
// terminal gets them (the grids' 24-bit colours become the nearest of its
// 256): under NoColor the colours are dropped and the attributes kept.
func (m *Model) ANSI() string {
	p := colorprofile.ANSI256
	if !m.color {
		p = colorprofile.ASCII
	}
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: p}
	_, _ = w.WriteString(m.Content())
	return b.String()
}

// ParseKeys reads a key script, the keys separated by blanks: key names as
// Bubble Tea prints them (a, Q, enter, tab, shift+tab, esc, space, up,
// pgdown, ctrl+c, ...), "text" in double quotes to type text, click:X,Y
// for a left click at column X, row Y of the screen, and wheelup:X,Y or
// wheeldown:X,Y for the mouse wheel.
func ParseKeys(script string) ([]tea.Msg, error) {
	var out []tea.Msg
	s := strings.TrimSpace(script)
	for s != "" {
		var tok string
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("key script: unterminated quote in %q", s)
			}
			for _, r := range s[1 : end+1] {
				out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			s = strings.TrimSpace(s[end+2:])
			continue
		}
		if i := strings.IndexAny(s, " \t\n"); i >= 0 {
			tok, s = s[:i], strings.TrimSpace(s[i:])
		} else {
			tok, s = s, ""
		}
		msg, err := parseKey(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, msg)
	}
	return out, nil
}

var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "space": tea.KeySpace,
	"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "up": tea.KeyUp, "down": tea.KeyDown,
	"left": tea.KeyLeft, "right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
}

func parseKey(tok string) (tea.Msg, error) {
	for _, m := range []struct {
		prefix string
		make   func(x, y int) tea.Msg
	}{
		{"click:", func(x, y int) tea.Msg { return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft} }},
		{"wheelup:", func(x, y int) tea.Msg { return tea.MouseWheelMsg{X: x, Y: y, Button: tea.MouseWheelUp} }},
		{"wheeldown:", func(x, y int) tea.Msg { return tea.MouseWheelMsg{X: x, Y: y, Button: tea.MouseWheelDown} }},
	} {
		if rest, ok := strings.CutPrefix(tok, m.prefix); ok {
			xs, ys, ok := strings.Cut(rest, ",")
			x, err1 := strconv.Atoi(xs)
			y, err2 := strconv.Atoi(ys)
			if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 {
				return nil, fmt.Errorf("key script: %q: want %sX,Y", tok, m.prefix)
			}
			return m.make(x, y), nil
		}
	}
	var mod tea.KeyMod
	name := tok
	for {
		switch {
		case strings.HasPrefix(name, "ctrl+") && len(name) > 5:
			mod |= tea.ModCtrl
			name = name[5:]
			continue
		case strings.HasPrefix(name, "alt+") && len(name) > 4:
			mod |= tea.ModAlt
			name = name[4:]
			continue
		case strings.HasPrefix(name, "shift+") && len(name) > 6:
			mod |= tea.ModShift
			name = name[6:]
			continue
		}
		break
	}
	if code, ok := namedKeys[name]; ok {
		k := tea.KeyPressMsg{Code: code, Mod: mod}
		if code == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k, nil
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError {
		k := tea.KeyPressMsg{Code: r, Mod: mod}
		if mod&^tea.ModShift == 0 {
			k.Text = string(r)
		}
		return k, nil
	}
	return nil, fmt.Errorf("key script: unknown key %q (use names such as enter, tab, up, ctrl+c, or \"text\" in quotes)", tok)
}

// Snapshot runs the app without a terminal: it sizes it to w × h, feeds it
// the messages and returns the model, ready to draw.
func Snapshot(cfg Config, w, h int, msgs []tea.Msg) (*Model, error) {
	if w < 20 || h < 8 || w > 1000 || h > 1000 {
		return nil, fmt.Errorf("size %dx%d: want 20x8 to 1000x1000", w, h)
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, msg := range msgs {
		if _, ok := msg.(tea.MouseMsg); ok {
			// A terminal has drawn the screen the pointer points at.
			m.Content()
		}
		if _, cmd := m.Update(msg); cmd != nil && m.quit {
			break
		}
		m.settle()
	}
	return m, nil
}

// settle waits for the views' long actions (a stepper run) to end and
// applies their results: a snapshot has no event loop to deliver them.
func (m *Model) settle() {
	for _, v := range m.views {
		if s, ok := v.(interface{ settle() bool }); ok {
			s.settle()
		}
	}
}

// Plain is the screen as plain text, styles removed, trailing blanks cut.
func (m *Model) Plain() string {
	lines := strings.Split(ansi.Strip(m.Content()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// The screenshot colours: a dark terminal.
var (
	screenFG = color.RGBA{0xd0, 0xd0, 0xd0, 0xff}
	screenBG = color.RGBA{0x1c, 0x1c, 0x1c, 0xff}
)

// Screen captures the screen as the terminal would show it, colours
// included (or left out under NoColor), for render.WriteScreenPNG.
func (m *Model) Screen() (*render.Screen, error) {
	scr, err := render.NewScreen(m.w, m.h, screenFG, screenBG)
	if err != nil {
		return nil, err
	}
	buf := uv.NewScreenBuffer(m.w, m.h)
	uv.NewStyledString(m.Content()).Draw(buf, buf.Bounds())
	for y := 0; y < m.h; y++ {
		for x := 0; x < m.w; x++ {
			c := buf.CellAt(x, y)
			sc := scr.At(x, y)
			if c == nil {
				continue
			}
			if c.Width == 0 && c.Content == "" {
				sc.Rune = 0
				continue
			}
			r, _ := utf8.DecodeRuneInString(c.Content)
			if c.Content == "" {
				r = ' '
			}
			sc.Rune = r
			fg, bg := screenFG, screenBG
			if m.color {
				if c.Style.Fg != nil {
					fg = rgba(c.Style.Fg)
				}
				if c.Style.Bg != nil {
					bg = rgba(c.Style.Bg)
				}
			}
			if c.Style.Attrs&uv.AttrReverse != 0 {
				fg, bg = bg, fg
			}
			if c.Style.Attrs&uv.AttrFaint != 0 {
				fg = color.RGBA{fg.R / 2, fg.G / 2, fg.B / 2, 0xff}
			}
			sc.FG, sc.BG = fg, bg
			sc.Bold = c.Style.Attrs&uv.AttrBold != 0
			sc.Underline = c.Style.Underline != 0
		}
	}
	return scr, nil
}

func rgba(c color.Color) color.RGBA {
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}
