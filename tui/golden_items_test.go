package tui

import (
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

var (
	tinyLocLaunch = filepath.Join("testdata", "stepper", "tiny_loc.json")
	tmapFile      = filepath.Join("testdata", "tmap.bin")
)

// TestGoldenSizes draws each of the explorer's screens that 80×24 used to
// cut, at 80×24 and at 200×60: the key page (scrolled too), vim keys,
// the picker's ctrl+j, the thread colours' name, TMEM cells of a CTA pair
// and of block-scale bytes, the stacked and the wide stepper (its source
// mapping, hidden lines, search, run to the cursor, a hazard with its
// source line, the file picker, opening a launch file and a kernel that
// needs one), the empty descriptor editor and a CUtensorMap file
// (refresh with go test ./tui -run TestGoldenSizes -update).
func TestGoldenSizes(t *testing.T) {
	tinyLoc := func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLocLaunch, "") }
	tiny := func(t *testing.T) *KernelConfig { return kernelAt(t, tinyLaunch, "") }
	gemmHazard := func(t *testing.T) *KernelConfig { return oneCTA(kernelAt(t, gemmLaunch, gemmWait)) }
	for _, tc := range []struct {
		name   string
		cfg    Config
		kernel func(t *testing.T) *KernelConfig
		script string
	}{
		{"layout_help", Config{}, nil, "?"},
		{"layout_help_end", Config{}, nil, "? G"},
		{"layout_vim", Config{}, nil, "j j j l l"},
		{"layout_vim_ends", Config{}, nil, "l G $"},
		{"layout_picker_ctrl_j", Config{}, nil, `/ "ldmatrix" ctrl+j ctrl+j`},
		{"layout_colour_warp", Config{}, nil, "c c"},
		{"layout_tmem_cta2", Config{Subject: "tcgen05.tmem.m256n64.d.cta2"}, nil, "G"},
		{"layout_tmem_sf", Config{Subject: "tcgen05.tmem.sf.m128"}, nil, "l l l j"},
		{"bitmath_vim", Config{View: "bitmath"}, nil, "j j j L"},
		{"stepper_empty", Config{View: "stepper"}, nil, ""},
		{"stepper_loc", Config{}, tinyLoc, "s s s s"},
		{"stepper_loc_shown", Config{}, tinyLoc, "s s s s L"},
		{"stepper_search", Config{}, tinyLoc, `/ "bar.sync" enter n`},
		{"stepper_search_hidden", Config{}, tinyLoc, `/ ".loc 1 19" enter`},
		{"stepper_run_to_cursor", Config{}, tinyLoc, `: "47" enter u`},
		{"stepper_vim", Config{}, tinyLoc, "j j j G k k"},
		{"stepper_help", Config{}, tinyLoc, "?"},
		{"stepper_hazard_source", Config{}, gemmHazard, "H"},
		{"stepper_open", Config{}, tiny, "O"},
		{"stepper_open_launch", Config{}, tiny, "O j j j j j enter"},
		{"stepper_open_needs_launch", Config{}, tiny, "O G enter"},
		{"desc_editor", Config{View: "desc"}, nil, "e"},
		{"desc_file", Config{View: "desc", Desc: tmapFile}, nil, ""},
	} {
		for _, sz := range [][2]int{{80, 24}, {200, 60}} {
			name := tc.name + "_" + itoa(sz[0]) + "x" + itoa(sz[1])
			t.Run(name, func(t *testing.T) {
				cfg := tc.cfg
				if tc.kernel != nil {
					cfg.Kernel = tc.kernel(t)
				}
				m := snapshot(t, cfg, sz[0], sz[1], tc.script)
				checkFrame(t, m, sz[0], sz[1])
				golden.RequireEqual(t, []byte(m.Plain()))
			})
		}
	}
}
