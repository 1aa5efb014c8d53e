package tui

import (
	"strings"
	"testing"
)

// tmapHex is a CUtensorMap the H100's driver writes (bf16 4096x4096, box
// 64x128, 128B swizzle, L2 256B).
const tmapHex = "000000103a7f0000106506000002000000000000000000000000000000000000ff0f0000ff0f00000000000000000000000000000000003f7f0000000000000000400000000000000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"

func TestDescTensorMap(t *testing.T) {
	m := snapshot(t, Config{View: "desc", Desc: tmapHex}, 110, 60, "")
	s := m.Plain()
	for _, want := range []string{"CUtensorMap", "tiled, rank 2, bf16", "w6[56:63]", "box[0]", "bytes per load", "16384", "1024-byte aligned"} {
		if !strings.Contains(s, want) {
			t.Errorf("the view lacks %q:\n%s", want, s)
		}
	}
	m = snapshot(t, Config{View: "desc", Desc: tmapHex}, 110, 60, `x "8192" enter`)
	if s := m.Plain(); !strings.Contains(s, "the kernel arms 8192 bytes") {
		t.Errorf("expect-tx is not checked:\n%s", s)
	}
	// Pasting a map into the descriptor view switches to it; a 64-bit value
	// switches back.
	m = snapshot(t, Config{View: "desc"}, 110, 60, `e ctrl+u "`+tmapHex+`" enter`)
	if d := m.views[3].(*descView); d.tmap == nil || !strings.Contains(m.Plain(), "tiled, rank 2, bf16") {
		t.Errorf("a typed CUtensorMap is not decoded:\n%s", m.Plain())
	}
	m = snapshot(t, Config{View: "desc", Desc: tmapHex}, 110, 60, `e ctrl+u "0x4000004000010040" enter`)
	if d := m.views[3].(*descView); d.tmap != nil || d.value != 0x4000004000010040 {
		t.Errorf("a 64-bit value did not leave the CUtensorMap mode")
	}
	m = snapshot(t, Config{View: "desc"}, 110, 60, `e ctrl+u "`+tmapHex[:200]+`" enter`)
	if s := m.Plain(); !strings.Contains(s, "want 256 hex digits") {
		t.Errorf("a short map is not reported:\n%s", s)
	}
	if _, err := New(Config{Desc: tmapHex[:200]}); err == nil {
		t.Error("a short --desc map is accepted")
	}
}
