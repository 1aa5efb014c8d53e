package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/tensormap"
)

// The descriptor view's CUtensorMap mode: a value of 256 hex digits (or
// CUtensorMap's sixteen opaque words) is decoded as the 128 bytes the CUDA
// driver writes (isa/tensormap) instead of as a 64-bit descriptor.

// tmapState is the decoded map and what the user said about it.
type tmapState struct {
	bytes    [tensormap.Size]byte
	expectTx uint64
	report   tensormap.Report
}

var tmapExpectKey = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "expect-tx bytes"))

func (v *descView) setTensorMap(b [tensormap.Size]byte) {
	if v.tmap == nil {
		v.tmap = &tmapState{}
	}
	v.tmap.bytes = b
	v.tmap.report = tensormap.Explain(b, tensormap.Context{ExpectTx: v.tmap.expectTx})
	v.setSize(v.w, v.h)
}

func (v *descView) tmapBindings() ([]key.Binding, [][]key.Binding) {
	k := v.keys
	return []key.Binding{k.Edit, tmapExpectKey}, [][]key.Binding{{k.Edit, tmapExpectKey}}
}

func (v *descView) tmapStatus() string {
	r := v.tmap.report
	return styleDim.Render(fmt.Sprintf("CUtensorMap: %d error(s), %d warning(s) · e: another value · x: the bytes the kernel arms", r.Findings.Count(desc.Error), r.Findings.Count(desc.Warning)))
}

// tmapKey handles a key in CUtensorMap mode.
func (v *descView) tmapKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, v.keys.Edit):
		return v.openInput("hex", "value> ", fmt.Sprintf("%x", v.tmap.bytes[:]))
	case key.Matches(msg, tmapExpectKey):
		cur := ""
		if v.tmap.expectTx != 0 {
			cur = strconv.FormatUint(v.tmap.expectTx, 10)
		}
		return v.openInput("expect-tx", "expect-tx bytes> ", cur)
	}
	return nil
}

// applyExpectTx takes the typed byte count (empty: none).
func (v *descView) applyExpectTx(text string) {
	var n uint64
	if text != "" {
		x, err := strconv.ParseUint(strings.ReplaceAll(text, "_", ""), 0, 64)
		if err != nil {
			v.msg = styleErr.Render(fmt.Sprintf("expect-tx %q: want a byte count", text))
			return
		}
		n = x
	}
	v.tmap.expectTx = n
	v.setTensorMap(v.tmap.bytes)
}

func (v *descView) tmapRender() string {
	r := v.tmap.report
	m := r.Decoded.Map
	head := section("CUtensorMap") + styleDim.Render(fmt.Sprintf("  %s, rank %d, %s", m.Kind, m.Rank(), m.DType))
	if v.target != "" {
		head = v.input.View()
	}
	w := v.w
	var out []string
	add := func(s string, indent int) { out = append(out, wrap(s, w, indent)...) }
	for i := 0; i < tensormap.Size; i += 32 {
		out = append(out, styleDim.Render(fitLine(fmt.Sprintf("%3d: %x", i, r.Bytes[i:i+32]), w)))
	}
	for _, f := range r.Fields {
		out = append(out, fitLine(fmt.Sprintf("  %-20s %-19s %s", f.Bits, f.Name, f.Value), w))
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
	for _, n := range r.Notes {
		add("note: "+n, 2)
	}
	return fitLine(head, v.w) + "\n" + fitBlock(strings.Join(out, "\n"), v.w, v.h-1)
}
