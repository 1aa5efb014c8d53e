package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// drive runs the app in a real Bubble Tea program (teatest) at w × h,
// sends the key script, quits with ctrl+c and returns the final model.
func drive(t *testing.T, cfg Config, w, h int, script string) *Model {
	t.Helper()
	msgs, err := ParseKeys(script)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h), teatest.WithProgramOptions(ProgramOptions(cfg)...))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(60*time.Second)).(*Model)
	if !ok {
		t.Fatal("final model is not a *Model")
	}
	return fm
}

// checkFrame asserts the screen is exactly w × h cells.
func checkFrame(t *testing.T, m *Model, w, h int) {
	t.Helper()
	lines := strings.Split(m.Content(), "\n")
	if len(lines) != h {
		t.Fatalf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

// TestGolden draws every view and the main key paths at fixed sizes and
// compares the plain text with testdata/TestGolden/*.golden (refresh with
// go test ./tui -run TestGolden -update).
func TestGolden(t *testing.T) {
	seed := `"row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"`
	wrong := `"row = (wid<<4) + (lane>>2); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"`
	for _, tc := range []struct {
		name   string
		cfg    Config
		w, h   int
		script string
	}{
		{"layout_default", Config{}, 80, 24, ""},
		{"layout_move", Config{}, 80, 24, "down down down right right pgdown"},
		{"layout_colour_labels", Config{}, 100, 30, "c c v"},
		{"layout_next_cell_of_thread", Config{}, 100, 30, "right right n n"},
		{"layout_pick_filter", Config{}, 80, 24, `/ "ldmatrix x4"`},
		{"layout_pick_fuzzy", Config{}, 80, 24, `/ "ldmx4tr"`},
		{"layout_pick_choose", Config{}, 100, 30, `/ "wgmma m64n256 d" enter`},
		{"layout_typed_tv", Config{}, 100, 30, `/ "((4,8),(2,2,2)):((32,1),(16,8,128)) 16x16" enter`},
		{"layout_typed_swizzle", Config{}, 100, 30, `/ "Sw<3,3,3> o 0 o (8,64):(64,1) b16" enter`},
		{"layout_typed_bad", Config{}, 80, 24, `/ "(8,8):(8,1" enter`},
		{"layout_mma", Config{Subject: "mma.sync.m16n8.d.f32"}, 120, 40, "m"},
		{"layout_mma_flag", Config{Subject: "mma.sync.m16n8k16", MMA: true}, 120, 40, "up up up up up up up up up"},
		{"layout_broadcast", Config{Subject: "wgmma.m64k16.a.smem.b16"}, 100, 30, "o o"},
		{"layout_smem", Config{Subject: "smem.k.sw128.b16"}, 100, 24, "down right right right v"},
		{"layout_tmem", Config{Subject: "tcgen05.tmem.m64n128.d.cta1"}, 100, 24, "down"},
		{"layout_zoom", Config{Subject: "wgmma.m64n256.d.f32"}, 80, 24, "- - - - p"},
		{"layout_help", Config{}, 100, 30, "?"},
		{"bitmath_default", Config{View: "bitmath"}, 100, 30, ""},
		{"bitmath_ptx_inverse", Config{View: "bitmath"}, 100, 30, "L d d"},
		{"bitmath_matrix", Config{View: "bitmath", Subject: "mma.sync.m16n8.d.f32"}, 100, 40, "d pgdown x"},
		{"bitmath_check_correct", Config{View: "bitmath"}, 100, 30, "e " + seed + " enter"},
		{"bitmath_check_wrong", Config{View: "bitmath"}, 100, 30, "e " + wrong + " enter"},
		{"bitmath_check_inverse", Config{View: "bitmath"}, 100, 30, `e "tid = ((row>>4)<<5) + ((row&7)<<2) + ((col>>1)&3); v = ((col>>3)<<2) + ((row&8)>>2) + (col&1)" enter`},
		{"bitmath_check_malformed", Config{View: "bitmath"}, 100, 30, `e "row = (tid <<" enter`},
		{"bitmath_follows_mma_operand", Config{Subject: "mma.sync.m16n8k16", MMA: true}, 100, 30, "left left left left left left left left left 2"},
		{"swizzle_default", Config{View: "swizzle"}, 100, 30, ""},
		{"swizzle_conflicts", Config{View: "swizzle", SMEM: "(64,64):(64,1) b16"}, 100, 30, "] ]"},
		{"swizzle_ldmatrix", Config{View: "swizzle"}, 100, 30, "a"},
		{"swizzle_core_matrices", Config{View: "swizzle"}, 100, 24, "a a ] ]"},
		{"swizzle_tma", Config{View: "swizzle", SMEM: "smem.mn.sw64.b16"}, 100, 30, "a a a"},
		{"swizzle_pick_smem", Config{View: "swizzle"}, 100, 30, `s "sw32 b16 k" enter`},
		{"swizzle_width_warp", Config{View: "swizzle", SMEM: "smem.k.sw64.b32"}, 100, 30, "W w"},
		{"desc_default", Config{View: "desc"}, 100, 30, ""},
		{"desc_bytes", Config{View: "desc"}, 100, 30, "v"},
		{"desc_edit_hex", Config{View: "desc"}, 100, 30, `e tab backspace backspace "41" enter`},
		{"desc_field_bump", Config{View: "desc"}, 100, 30, "down down right right"},
		{"desc_base_offset_shift", Config{View: "desc"}, 100, 30, "right right right right right right right right down down down right"},
		{"desc_sm100", Config{View: "desc", Desc: "0x4000404000010040"}, 100, 30, "a a m"},
		{"desc_idesc", Config{View: "desc", Desc: "0x08400490"}, 100, 30, "i"},
		{"desc_picture_cursor", Config{View: "desc"}, 100, 30, "f down down right"},
		{"tabs", Config{}, 80, 24, "tab tab tab tab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := drive(t, tc.cfg, tc.w, tc.h, tc.script)
			checkFrame(t, m, tc.w, tc.h)
			golden.RequireEqual(t, []byte(m.Plain()))
		})
	}
}

// TestGoldenANSI keeps the escape codes of one screen, as an xterm-256
// terminal gets them: the cells' colours (by warp and lane), the cursor in
// reverse video and the selected thread's cells underlined.
func TestGoldenANSI(t *testing.T) {
	m := drive(t, Config{Subject: "mma.sync.m16n8.d.f32"}, 80, 24, "down right")
	out := m.ANSI()
	for _, want := range []string{"48;5;", "\x1b[7m", "\x1b[1;4m"} {
		if !strings.Contains(out, want) {
			t.Errorf("ANSI screen lacks %q", want)
		}
	}
	golden.RequireEqual(t, []byte(out))
}
