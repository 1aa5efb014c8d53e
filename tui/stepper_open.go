package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/internal/fileutil"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// The stepper opens files itself (O): a file picker (bubbles' filepicker)
// over the body chooses a kernel (.ptx, then its launch file unless one
// in the same directory names it), a launch file (.json, with the PTX it
// names), a trace (.jsonl) or a case directory written by tcsim capture
// or tcsim record (enter on it; l or → goes into it).

// maxPTX bounds the PTX files the picker reads, as tcsim run does.
const maxPTX = 64 << 20

// openState is the picker while it is open.
type openState struct {
	fp     filepicker.Model
	w, h   int
	ptx    string // a kernel waiting for its launch file ("" when none)
	errMsg string
}

var openKeys = struct {
	Open, Into, Up, Down, Top, Back, Cancel key.Binding
}{
	Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open (a case directory too)")),
	Into:   key.NewBinding(key.WithKeys("l", "right"), key.WithHelp("l/→", "into the directory")),
	Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓/jk", "move")),
	Down:   key.NewBinding(key.WithKeys("down", "j")),
	Top:    key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g/G", "first/last")),
	Back:   key.NewBinding(key.WithKeys("h", "left", "backspace"), key.WithHelp("h/←", "parent directory")),
	Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
}

func (o *openState) bindings() ([]key.Binding, [][]key.Binding) {
	k := openKeys
	return []key.Binding{k.Open, k.Up, k.Back, k.Cancel},
		[][]key.Binding{{k.Open, k.Into, k.Back, k.Up, k.Top, gk.PageUp, k.Cancel}}
}

func (o *openState) status() string {
	if o.errMsg != "" {
		return styleErr.Render(o.errMsg)
	}
	if o.ptx != "" {
		return styleDim.Render("pick the launch file (.json) of " + baseName(o.ptx) + " · esc cancels")
	}
	return styleDim.Render("enter opens a .ptx, .json launch, .jsonl trace or case directory · esc cancels")
}

func (o *openState) setSize(w, h int) {
	o.w, o.h = w, h
	o.fp.SetHeight(max(h-3, 1))
}

// openPicker opens the picker in the open file's directory (else the
// working directory).
func (v *stepperView) openPicker() tea.Cmd {
	dir := "."
	if v.be != nil && v.be.file() != "" {
		dir = filepath.Dir(v.be.file())
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	o := &openState{fp: filepicker.New()}
	o.fp.CurrentDirectory = dir
	o.fp.AllowedTypes = []string{".ptx", ".json", ".jsonl"}
	o.fp.ShowPermissions = false
	o.fp.AutoHeight = false
	o.fp.Cursor = "▶"
	o.fp.KeyMap.Back = openKeys.Back
	o.fp.KeyMap.Open = openKeys.Into
	o.fp.KeyMap.Select = key.NewBinding(key.WithKeys("enter"))
	st := o.fp.Styles
	st.Cursor = lipgloss.NewStyle().Bold(true)
	st.Selected = styleSel
	st.DisabledSelected = styleSel
	st.Directory = lipgloss.NewStyle().Bold(true)
	st.DisabledFile = styleDim
	st.FileSize = styleDim.Width(7).Align(lipgloss.Right)
	st.EmptyDirectory = styleDim.PaddingLeft(2).SetString("no files here (h goes up)")
	o.fp.Styles = st
	v.open = o
	o.setSize(v.w, v.h)
	o.run(o.fp.Init())
	return nil
}

// run applies a command of the picker at once (reading a directory): a
// snapshot has no event loop, and a directory reads fast.
func (o *openState) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	o.fp, _ = o.fp.Update(cmd())
}

// openUpdate handles a message while the picker is open.
func (v *stepperView) openUpdate(msg tea.Msg) tea.Cmd {
	o := v.open
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	o.errMsg = ""
	switch {
	case key.Matches(km, openKeys.Cancel):
		v.open = nil
		return nil
	case key.Matches(km, openKeys.Open):
		p := o.fp.HighlightedPath()
		if p == "" {
			return nil
		}
		st, err := os.Stat(p)
		if err != nil {
			o.errMsg = err.Error()
			return nil
		}
		if st.IsDir() {
			if isCaseDir(p) {
				v.load(p)
				return nil
			}
			o.run(o.into())
			return nil
		}
		v.load(p)
		return nil
	case key.Matches(km, openKeys.Into):
		o.run(o.into())
		return nil
	}
	var cmd tea.Cmd
	o.fp, cmd = o.fp.Update(km)
	o.run(cmd)
	return nil
}

// into goes into the highlighted directory (the picker's own open key).
func (o *openState) into() tea.Cmd {
	var cmd tea.Cmd
	o.fp, cmd = o.fp.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	return cmd
}

// isCaseDir reports whether dir holds a case (tcsim capture or record).
func isCaseDir(dir string) bool {
	for _, f := range []string{fixtures.ManifestFile, fixtures.PTXFile, fixtures.LaunchFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// load opens path as what its name says, replacing what the stepper
// showed; a failure leaves the picker open with the error.
func (v *stepperView) load(path string) {
	o := v.open
	be, err := o.backend(path)
	switch {
	case errors.Is(err, errNeedLaunch):
		o.ptx = path
		o.fp.AllowedTypes = []string{".json"}
		o.errMsg = ""
		return
	case err != nil:
		o.errMsg = firstLine(err.Error())
		return
	}
	w, h := v.w, v.h
	*v = stepperView{breaks: map[int]bool{}, keys: newStepperKeys(be.kind() == "trace"), focus: paneSource, tab: paneRegs,
		frag: newFragState(), be: be, showAll: v.showAll, runSeq: v.runSeq}
	v.setSize(w, h)
	v.refresh()
	v.follow()
	v.msg = styleOK.Render("opened " + baseName(path))
}

// errNeedLaunch says a kernel was picked that needs its launch file.
var errNeedLaunch = errors.New("the kernel needs its launch file")

// backend opens path: a trace, a case, a launch file (with the kernel
// waiting for it, if any), or a kernel with the launch file beside it that
// names it.
func (o *openState) backend(path string) (stepBackend, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case isCaseDir(path):
		if _, err := fixtures.Load(path); err != nil {
			return nil, fmt.Errorf("%s: the case cannot be trusted: %w", baseName(path), err)
		}
		return kernelBackend(filepath.Join(path, fixtures.LaunchFile), filepath.Join(path, fixtures.PTXFile))
	case ext == ".jsonl":
		return newTraceBackend(path)
	case ext == ".json":
		return kernelBackend(path, o.ptx)
	case ext == ".ptx":
		if l := launchFor(path); l != "" {
			return kernelBackend(l, path)
		}
		return nil, errNeedLaunch
	}
	return nil, fmt.Errorf("%s: open a .ptx kernel, a .json launch file, a .jsonl trace or a case directory", baseName(path))
}

// launchFor finds a launch file in the kernel's directory that names it.
func launchFor(ptxPath string) string {
	abs, _ := filepath.Abs(ptxPath)
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(ptxPath), "*.json"))
	for _, f := range files {
		l, err := launch.ReadLaunch(f)
		if err != nil || l.PTX == "" {
			continue
		}
		if p, _ := filepath.Abs(l.PTX); p == abs {
			return f
		}
	}
	return ""
}

// kernelBackend simulates the launch in launchPath, with the kernel
// ptxPath ("" for the one the launch file names).
func kernelBackend(launchPath, ptxPath string) (stepBackend, error) {
	l, err := launch.ReadLaunch(launchPath)
	if err != nil {
		return nil, err
	}
	if ptxPath != "" {
		l.PTX = ptxPath
	}
	if l.PTX == "" {
		return nil, fmt.Errorf("%s names no PTX file: pick the kernel (.ptx) first", baseName(launchPath))
	}
	src, err := fileutil.ReadFile(l.PTX, maxPTX)
	if err != nil {
		return nil, err
	}
	mod, err := ptx.ParseFile(l.PTX, src)
	if err != nil {
		return nil, err
	}
	k, err := launch.FindKernel(mod, l.Kernel)
	if err != nil {
		return nil, err
	}
	l.Kernel = k.Name
	return newSimBackend(KernelConfig{Path: l.PTX, Source: src, Launch: l})
}

// displayDir is a directory as the picker names it: relative to the
// working directory when it is below it or near it, else absolute.
func displayDir(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil || strings.HasPrefix(rel, ".."+string(filepath.Separator)+"..") {
		return dir
	}
	return rel
}

// openView draws the picker in the body.
func (v *stepperView) openView() string {
	o := v.open
	title := "Open a kernel (.ptx), launch (.json), trace (.jsonl) or case directory"
	if o.ptx != "" {
		title = "The launch file (.json) of " + baseName(o.ptx)
	}
	dir := displayDir(o.fp.CurrentDirectory)
	if n := len([]rune(dir)); n > v.w-2 && v.w > 8 {
		dir = "…" + string([]rune(dir)[n-v.w+3:])
	}
	head := fitLine(section(title), v.w) + "\n" + fitLine(styleDim.Render(dir), v.w)
	return head + "\n" + fitBlock(o.fp.View(), v.w, max(v.h-2, 1))
}
