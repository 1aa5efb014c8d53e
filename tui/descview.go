package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/render"
)

// DefaultDesc is the descriptor view's first value: a wgmma descriptor of
// a K-major bf16 operand with the 128-byte swizzle at 0x400.
const DefaultDesc = "0x4000004000010040"

var descDTypes = []string{"bf16", "f16", "tf32", "e4m3", "s8", "e2m1"}

// descView decodes a descriptor pasted in hex, or built by editing its
// fields: the decoded fields, the validation findings and the core
// matrices it reads, drawn over the operand tile or the shared-memory
// bytes.
type descView struct {
	value  uint64
	arch   desc.Arch // ArchUnknown: detect
	idesc  bool
	kind   int // index into desc.Kinds
	ctx    desc.Context
	report desc.Report
	fpErr  error

	field  int // the selected editable field
	input  textinput.Model
	target string // what the input edits: "hex", "tile" or a field key; "" when closed
	old    string // the value the input replaces (tab puts it back to edit)
	memory bool   // draw the shared-memory bytes instead of the operand tile
	inGrid bool   // the arrows move in the picture instead of the fields
	pane   gridPane
	msg    string
	w, h   int
	keys   descKeys
	tmap   *tmapState // a CUtensorMap is shown instead (descview_tmap.go)
}

type descKeys struct {
	Edit, Field, Change, Enter, Major, DType, Tile, Arch, IDesc, Kind, Picture, Focus, Cancel key.Binding
}

// The editor's keys: enter applies, tab (in the empty field) edits the
// old value.
var (
	applyKey   = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply"))
	editOldKey = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "edit the old value"))
)

// descField is an editable field of a shared-memory descriptor.
type descField struct {
	key, name string
}

var smemFields = []descField{{"start", "start address"}, {"lbo", "leading byte offset"}, {"sbo", "stride byte offset"}, {"base_offset", "base offset"}, {"swizzle", "swizzle"}}

func newDescView(value string) (*descView, error) {
	v := &descView{
		ctx:  desc.Context{Major: desc.MajorK, DType: "bf16", TileMN: 64, TileK: 16},
		pane: newGridPane(),
		keys: descKeys{
			Edit:    key.NewBinding(key.WithKeys("e", "/"), key.WithHelp("e", "paste/type a value")),
			Field:   key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓/jk", "field")),
			Change:  key.NewBinding(key.WithKeys("left", "right", "h", "l"), key.WithHelp("←→/hl", "change field")),
			Enter:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "type the field")),
			Major:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "major K/MN")),
			DType:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "element type")),
			Tile:    key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "operand tile")),
			Arch:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "arch auto/sm_90a/sm_100a")),
			IDesc:   key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "instruction descriptor")),
			Kind:    key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "idesc kind")),
			Picture: key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "tile/bytes picture")),
			Focus:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "arrows: fields/picture")),
			Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		},
	}
	v.pane.color = render.ColorTag
	v.pane.zoom = 3
	if value == "" {
		value = DefaultDesc
	}
	// As tcsim desc reads its argument: a value, a CUtensorMap in hex,
	// or a file holding one (128 bytes).
	d, err := input.ReadDescriptor(value)
	if err != nil {
		return nil, fmt.Errorf("descriptor view: %w", err)
	}
	if d.TensorMap != nil {
		v.recompute()
		v.setTensorMap(*d.TensorMap)
		return v, nil
	}
	v.value = d.Value
	v.recompute()
	return v, nil
}

// fieldValue reads a field's number: decimal, or hex with 0x (binary
// 0b, octal 0o), '_' between digits. Unlike a descriptor value
// (input.ParseValue) there is no bare hex: "64B" is a swizzle mode, not
// 0x64b.
func fieldValue(s string) (uint64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	x, err := strconv.ParseUint(t, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a number, decimal or hex with 0x", s)
	}
	return x, nil
}

func (v *descView) title() string { return "Descriptor" }

func (v *descView) setSize(w, h int) {
	v.w, v.h = w, h
	v.input.SetWidth(max(w-20, 10))
	lw := v.leftWidth()
	v.pane.setSize(max(w-lw-1, 1), h-1)
}

func (v *descView) leftWidth() int {
	if v.idesc || v.tmap != nil || v.w < 70 {
		return v.w
	}
	return clamp(v.w/2, 34, 70)
}

func (v *descView) capturing() bool { return v.target != "" }

func (v *descView) status() string {
	if v.msg != "" {
		return v.msg
	}
	if v.target != "" {
		if v.input.Value() == "" && v.input.Placeholder != "" {
			return styleDim.Render("type or paste a new value (it replaces the old one) · tab edits the old one · enter applies, esc cancels")
		}
		return styleDim.Render("enter applies, esc cancels")
	}
	if v.tmap != nil {
		return v.tmapStatus()
	}
	if v.idesc {
		return styleDim.Render("tcgen05 instruction descriptor, kind::" + desc.Kinds[v.kind].String() + " (K: kind)")
	}
	return styleDim.Render(v.pane.windowLine() + " · colour: core matrix")
}

func (v *descView) bindings() ([]key.Binding, [][]key.Binding) {
	k := v.keys
	if v.target != "" {
		return []key.Binding{applyKey, editOldKey, k.Cancel}, [][]key.Binding{{applyKey, editOldKey, k.Cancel}}
	}
	if v.tmap != nil {
		return v.tmapBindings()
	}
	if v.idesc {
		return []key.Binding{k.Edit, k.Kind, k.IDesc}, [][]key.Binding{{k.Edit, k.Kind, k.IDesc}}
	}
	if v.inGrid {
		return []key.Binding{k.Focus, gk.Up, gk.Left, gk.ZoomIn, k.Picture},
			[][]key.Binding{gk.help(), {k.Focus, k.Picture, k.Edit}}
	}
	return []key.Binding{k.Edit, k.Field, k.Change, k.Focus, k.Major, k.DType},
		[][]key.Binding{{k.Edit, k.Field, k.Change, k.Enter}, {k.Major, k.DType, k.Tile, k.Arch}, {k.IDesc, k.Kind, k.Picture, k.Focus}}
}

// recompute decodes the value and redraws the picture.
func (v *descView) recompute() {
	v.fpErr = nil
	if v.idesc {
		v.report = desc.ExplainIDesc(uint32(v.value), desc.Kinds[v.kind], desc.IDescContext{})
		v.pane.setGrid(nil)
		return
	}
	v.report = desc.ExplainSmem(v.value, v.arch, v.ctx)
	r, err := v.report.WithFootprint()
	if err != nil {
		v.fpErr = err
		v.pane.setGrid(nil)
		return
	}
	v.report = r
	var g *render.Grid
	if v.memory {
		g, err = render.FootprintMemoryGrid(r.Footprint)
	} else {
		g, err = render.FootprintTileGrid(r.Footprint, r.Operand)
	}
	if err != nil {
		v.fpErr = err
		v.pane.setGrid(nil)
		return
	}
	cur := v.pane.cur
	v.pane.setGrid(g)
	v.pane.moveTo(cur.Row, cur.Col)
}

func (v *descView) update(msg tea.Msg) tea.Cmd {
	k := v.keys
	if v.target != "" {
		if km, ok := msg.(tea.KeyPressMsg); ok {
			switch {
			case key.Matches(km, k.Cancel):
				v.closeInput()
				return nil
			case km.String() == "enter":
				v.apply()
				return nil
			case km.String() == "tab" && v.input.Value() == "":
				// Edit the old value instead of replacing it.
				v.input.SetValue(v.old)
				v.input.CursorEnd()
				return nil
			}
		}
		var cmd tea.Cmd
		v.input, cmd = v.input.Update(msg)
		return cmd
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		v.openInput("hex", "value> ", "")
		v.input.SetValue(strings.TrimSpace(msg.Content))
		v.apply()
	case tea.KeyPressMsg:
		v.msg = ""
		if v.tmap != nil {
			return v.tmapKey(msg)
		}
		switch {
		case key.Matches(msg, k.Edit):
			return v.openInput("hex", "value> ", fmt.Sprintf("%#x", v.value))
		case key.Matches(msg, k.Focus):
			v.inGrid = !v.inGrid && v.pane.g != nil
		case v.inGrid && v.pane.handleKey(msg):
		case msg.String() == "up" || msg.String() == "k":
			v.field = max(v.field-1, 0)
		case msg.String() == "down" || msg.String() == "j":
			v.field = min(v.field+1, len(v.fields())-1)
		case msg.String() == "left" || msg.String() == "h":
			v.bump(-1)
		case msg.String() == "right" || msg.String() == "l":
			v.bump(1)
		case key.Matches(msg, k.Enter):
			if !v.idesc {
				f := v.fields()[v.field]
				return v.openInput(f.key, f.name+"> ", v.fieldText(f.key))
			}
		case key.Matches(msg, k.Major):
			v.ctx.Major = map[desc.Major]desc.Major{desc.MajorK: desc.MajorMN, desc.MajorMN: desc.MajorK}[v.ctx.Major]
			v.recompute()
		case key.Matches(msg, k.DType):
			i := (indexOf(descDTypes, v.ctx.DType) + 1) % len(descDTypes)
			v.ctx.DType = descDTypes[i]
			v.recompute()
		case key.Matches(msg, k.Tile):
			return v.openInput("tile", "tile MNxK> ", fmt.Sprintf("%dx%d", v.ctx.TileMN, v.ctx.TileK))
		case key.Matches(msg, k.Arch):
			v.arch = (v.arch + 1) % 3
			v.recompute()
		case key.Matches(msg, k.IDesc):
			v.idesc = !v.idesc
			v.field = 0
			if v.idesc {
				v.value &= 0xFFFFFFFF
			}
			v.setSize(v.w, v.h)
			v.recompute()
		case key.Matches(msg, k.Kind):
			v.kind = (v.kind + 1) % len(desc.Kinds)
			v.recompute()
		case key.Matches(msg, k.Picture):
			v.memory = !v.memory
			v.pane.cur = render.Pos{}
			v.pane.setZoom(map[bool]int{false: 3, true: 5}[v.memory])
			v.recompute()
		default:
			v.pane.handleKey(msg)
		}
	case tea.MouseMsg:
		m := msg.Mouse()
		v.pane.handleMouse(msg, m.X-v.leftWidth()-1, m.Y-1)
	}
	return nil
}

// openInput opens the text field for target with its text empty, so that
// what the user types or pastes replaces the old value (a bracketed paste
// used to be appended to it); the old value shows as the placeholder, and
// tab puts it in the field to edit it.
func (v *descView) openInput(target, prompt, old string) tea.Cmd {
	v.target, v.old = target, old
	v.input = newTextInput(prompt, old)
	v.input.SetWidth(max(v.w-20, 10))
	return v.input.Focus()
}

func (v *descView) closeInput() {
	v.target = ""
	v.input.Blur()
}

// apply takes the typed text.
func (v *descView) apply() {
	text := strings.TrimSpace(v.input.Value())
	target := v.target
	v.closeInput()
	switch target {
	case "expect-tx":
		v.applyExpectTx(text)
		return
	case "hex":
		d, err := input.ParseDescriptor(text)
		if err != nil {
			v.msg = styleErr.Render(err.Error())
			return
		}
		if d.TensorMap != nil {
			v.setTensorMap(*d.TensorMap)
			return
		}
		x := d.Value
		if v.idesc && x > 0xFFFFFFFF {
			// CUTLASS's runtime instruction descriptor keeps it in the upper half.
			x >>= 32
		}
		v.value = x
		if v.tmap != nil {
			v.tmap = nil
			v.setSize(v.w, v.h)
		}
	case "tile":
		mn, k, err := desc.ParseTile(text)
		if err != nil {
			v.msg = styleErr.Render(err.Error())
			return
		}
		v.ctx.TileMN, v.ctx.TileK = mn, k
	default:
		x, err := fieldValue(text)
		if err != nil && target == "swizzle" {
			var swz desc.Swizzle
			if swz, err = desc.ParseSwizzle(text); err == nil {
				v.setField(target, 0, swz)
				return
			}
		}
		if err != nil {
			v.msg = styleErr.Render(err.Error())
			return
		}
		v.setField(target, int64(x), desc.SwizzleUnknown)
		return
	}
	v.recompute()
}

func (v *descView) fields() []descField {
	if v.idesc {
		return []descField{{"value", "value"}}
	}
	return smemFields
}

// layout is the current shared-memory descriptor in bytes.
func (v *descView) layout() desc.SmemLayout { return v.report.Layout }

func (v *descView) fieldText(k string) string {
	l := v.layout()
	switch k {
	case "start":
		return fmt.Sprintf("%#x", l.Start)
	case "lbo":
		return strconv.Itoa(int(l.LBO))
	case "sbo":
		return strconv.Itoa(int(l.SBO))
	case "base_offset":
		return strconv.Itoa(l.BaseOffset)
	case "swizzle":
		return l.Swizzle.String()
	}
	return ""
}

// bump changes the selected field by one step: 16 bytes for the address
// and offsets, 1 for the base offset, the next mode for the swizzle.
func (v *descView) bump(dir int) {
	if v.idesc {
		return
	}
	l := v.layout()
	switch k := v.fields()[v.field].key; k {
	case "start":
		v.setField(k, int64(l.Start)+int64(16*dir), 0)
	case "lbo":
		v.setField(k, int64(l.LBO)+int64(16*dir), 0)
	case "sbo":
		v.setField(k, int64(l.SBO)+int64(16*dir), 0)
	case "base_offset":
		v.setField(k, int64((l.BaseOffset+dir+8)%8), 0)
	case "swizzle":
		modes := []desc.Swizzle{desc.SwizzleNone, desc.Swizzle32B, desc.Swizzle64B, desc.Swizzle128B}
		if v.report.Arch == desc.SM100 {
			modes = append(modes, desc.Swizzle128B32A)
		}
		i := 0
		for j, m := range modes {
			if m == l.Swizzle {
				i = j
			}
		}
		v.setField(k, 0, modes[(i+dir+len(modes))%len(modes)])
	}
}

// setField re-encodes the descriptor with one field changed (x in bytes,
// or the swizzle swz), keeping the others.
func (v *descView) setField(k string, x int64, swz desc.Swizzle) {
	l := v.layout()
	addr, lbo, sbo, bo, sw := int64(l.Start), int64(l.LBO), int64(l.SBO), l.BaseOffset, l.Swizzle
	switch k {
	case "start":
		addr = x
	case "lbo":
		lbo = x
	case "sbo":
		sbo = x
	case "base_offset":
		bo = int(x)
	case "swizzle":
		sw = swz
	}
	if addr < 0 || lbo < 0 || sbo < 0 || bo < 0 {
		v.msg = styleErr.Render(k + ": must not be negative")
		return
	}
	if sw == desc.SwizzleUnknown {
		sw = desc.SwizzleNone
	}
	var val uint64
	var err error
	if v.report.Arch == desc.SM100 {
		var d desc.TCGen05Smem
		if d, err = desc.NewTCGen05Smem(uint32(addr), uint32(lbo), uint32(sbo), sw, bo); err == nil {
			d.LBOMode = map[bool]uint8{false: 0, true: 1}[l.LBOAbsolute]
			val, err = d.Encode()
		}
	} else {
		var d desc.WGMMA
		if d, err = desc.NewWGMMA(uint32(addr), uint32(lbo), uint32(sbo), sw, bo); err == nil {
			val, err = d.Encode()
		}
	}
	if err != nil {
		v.msg = styleErr.Render(err.Error())
		return
	}
	v.value = val
	v.recompute()
}

func (v *descView) render() string {
	if v.tmap != nil {
		return v.tmapRender()
	}
	if v.target != "" {
		// The input replaces the title line.
		return fitLine(v.input.View(), v.w) + "\n" + v.body()
	}
	r := v.report
	head := section(fmt.Sprintf("Descriptor 0x%0*x", r.Width/4, r.Value)) + styleDim.Render("  "+r.Title)
	return fitLine(head, v.w) + "\n" + v.body()
}

func (v *descView) body() string {
	lw := v.leftWidth()
	left := v.leftText(lw)
	if lw >= v.w {
		return fitBlock(left, v.w, v.h-1)
	}
	var right string
	if v.fpErr != nil {
		right = strings.Join(wrap("no footprint: "+v.fpErr.Error(), v.pane.w, 2), "\n")
	} else {
		right = v.pane.render()
	}
	return sideBySide(left, right, lw, v.pane.w, v.h-1)
}

// leftText lists the fields (the selected one marked, with its meaning),
// the findings and the cursor cell.
func (v *descView) leftText(w int) string {
	r := v.report
	var out []string
	add := func(s string, indent int) { out = append(out, wrap(s, w, indent)...) }
	if !v.idesc {
		out = append(out, styleDim.Render(fitLine(fmt.Sprintf("%s · %s-major %s, tile %dx%d", r.Arch, v.ctx.Major, v.ctx.DType, v.ctx.TileMN, v.ctx.TileK), w)))
	}
	sel := ""
	if !v.idesc {
		sel = v.fields()[v.field].key
	}
	var meaning string
	for _, f := range r.Fields {
		line := fmt.Sprintf("%-5s %-11s %s", f.Bits(), f.Key, f.Value)
		if f.Key == sel || (sel == "swizzle" && f.Key == "swizzle") {
			out = append(out, styleSel.Render(fitLine("▶ "+line, w)))
			meaning = f.Meaning
		} else {
			out = append(out, fitLine("  "+line, w))
		}
	}
	switch {
	case len(r.Findings) == 0:
		out = append(out, styleOK.Render("checks: no findings"))
	default:
		out = append(out, section(fmt.Sprintf("checks: %d error(s), %d warning(s), %d info", r.Findings.Count(desc.Error), r.Findings.Count(desc.Warning), r.Findings.Count(desc.Info))))
		for _, f := range r.Findings {
			st := styleDim
			switch f.Severity {
			case desc.Error:
				st = styleErr
			case desc.Warning:
				st = styleWarn
			}
			for i, l := range wrap(fmt.Sprintf("%s: %s: %s", f.Severity, f.Field, f.Msg), w, 2) {
				if i == 0 {
					l = st.Render(l)
				}
				out = append(out, l)
			}
		}
	}
	if meaning != "" {
		out = append(out, section(sel+":"))
		add(meaning, 2)
	}
	for _, n := range r.Notes {
		add("note: "+n, 2)
	}
	if c := v.pane.cell(); c != nil && !v.idesc && v.fpErr == nil && len(c.Owners) > 0 {
		o := c.Owners[0]
		out = append(out, "", section(fmt.Sprintf("cell (%d, %d)", v.pane.cur.Row, v.pane.cur.Col)))
		if v.memory {
			add(fmt.Sprintf("bytes %#x-%#x (banks %d-%d): core matrix %d, row %d", c.Offset, c.Offset+15, c.Bank, c.Bank+3, o.Thread, o.Value), 2)
			if len(c.Owners) > 1 {
				add(fmt.Sprintf("also read by %d more rows: the descriptor's core matrices overlap", len(c.Owners)-1), 2)
			}
		} else {
			add(fmt.Sprintf("element mn %d, k %d: core matrix %d, row %d, byte %#x (bank %d)", v.pane.cur.Row, v.pane.cur.Col, o.Thread, o.Value, c.Offset, c.Bank), 2)
		}
	}
	return strings.Join(out, "\n")
}
