package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The descriptor editor opens empty, so that a typed or pasted value
// replaces the old one (a bracketed paste used to be appended to it); tab
// puts the old value back to edit it.
func TestDescEditorReplaces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		paste  string
		want   uint64
	}{
		{"paste into the open editor", "e", "0x4000004000010041", 0x4000004000010041},
		{"paste with the editor closed", "", "0x4000004000010042", 0x4000004000010042},
		{"typed", `e "0x4000004000010043"`, "", 0x4000004000010043},
		{"tab edits the old value", `e tab backspace "9"`, "", 0x4000004000010049},
		{"a field opens empty too", `enter "0x500"`, "", 0x4000004000010050},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := snapshot(t, Config{View: "desc"}, 100, 30, tc.script)
			d := m.views[3].(*descView)
			if tc.paste != "" {
				m.Update(tea.PasteMsg{Content: tc.paste})
			}
			if d.target != "" {
				m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			}
			if d.value != tc.want {
				t.Errorf("value %#x, want %#x\n%s", d.value, tc.want, m.Plain())
			}
		})
	}
	// Opened, the field is empty and shows the old value as its hint.
	m := snapshot(t, Config{View: "desc"}, 100, 30, "e")
	d := m.views[3].(*descView)
	if d.input.Value() != "" || d.input.Placeholder != "0x4000004000010040" {
		t.Errorf("editor opened with %q (placeholder %q), want it empty", d.input.Value(), d.input.Placeholder)
	}
	if st := d.status(); !strings.Contains(st, "it replaces the old one") {
		t.Errorf("status %q", st)
	}
}

// tcsim tui --desc FILE reads a 128-byte CUtensorMap file as tcsim desc
// does (it was: "good.bin" is not a number).
func TestDescFile(t *testing.T) {
	m := snapshot(t, Config{View: "desc", Desc: filepath.Join("testdata", "tmap.bin")}, 100, 30, "")
	if d := m.views[3].(*descView); d.tmap == nil {
		t.Fatalf("the file is not read as a CUtensorMap:\n%s", m.Plain())
	}
	if s := m.Plain(); !strings.Contains(s, "CUtensorMap  tiled, rank 5, u16") || !strings.Contains(s, "0x7f4a12345600") {
		t.Errorf("the map is not decoded:\n%s", s)
	}
	if _, err := New(Config{View: "desc", Desc: "good.bin"}); err == nil || !strings.Contains(err.Error(), "neither a descriptor value nor a file") {
		t.Errorf("a missing file: %v", err)
	}
}
