package main

import (
	"strings"
	"testing"
)

func TestBitmathCLI(t *testing.T) {
	const seed = "row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"
	tests := []struct {
		args []string
		code int
		out  []string // substrings of stdout
		not  []string // must not appear in stdout
		err  string   // substring of stderr
	}{
		{[]string{"bitmath", "wgmma.m64n64.d.f32"}, 0,
			[]string{"unsigned frag_row = (wid << 4) + (lane >> 2);", "unsigned frag_col = (lane & 3) << 1;",
				"unsigned row = frag_row + ((v & 2) << 2);", "unsigned col = frag_col + ((v >> 2) << 3) + (v & 1);",
				"static inline void wgmma_m64n64_d_f32_inv(unsigned row, unsigned col, unsigned *out_tid, unsigned *out_v)",
				"//   lane >> 2  lane bits 2-4 -> row bits 0-2 (lane / 4)", "rank 12; bijective"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--lang", "go", "--forward"}, 0,
			[]string{"func wgmma_m64n64_d_f32_fwd(tid, v uint32) (row, col uint32) {", "\tfrag_row := (wid << 4) + (lane >> 2)"},
			[]string{"_inv"}, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--lang", "python", "--inverse"}, 0,
			[]string{"# wgmma.m64n64.d.f32", "def wgmma_m64n64_d_f32_inv(row, col):", "    tid = (wid << 5) + lane"},
			[]string{"_fwd"}, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--lang", "ptx", "--forward"}, 0,
			[]string{".reg .b32 %r_wid, %r_lane", "shr.u32    %r_wid, %r_tid, 5;", "// wid = tid >> 5"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--matrix"}, 0,
			[]string{"l0 l1 l2 l3 l4 w0 w1 v0 v1 v2 v3 v4", "row r0   .  .  1", "kernel: none", "bijective"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--matrix", "--inverse"}, 0,
			[]string{"F2 matrix of the inverse (bijective)", "r0 r1 r2 r3 r4 r5 c0"}, nil, ""},
		{[]string{"bitmath", "smem.k.sw128.b16", "--forward"}, 0,
			[]string{"smem.k.sw128.b16: (row, col) -> offset over a 8x64 tile", "unsigned offset = ((row << 6) + col) ^ (row << 3);"}, nil, ""},
		{[]string{"bitmath", "Sw<3,4,3> o 0 o (8,64):(64,1)", "--lang", "python"}, 0,
			[]string{"def layout_fwd(row, col):", "    lin = (row << 6) + col", "    offset = lin ^ ((lin >> 7) << 4)", "def layout_inv(offset):"}, nil, ""},
		{[]string{"bitmath", "(8,64):(64,1)", "--index", "--forward"}, 0,
			[]string{"layout_fwd(unsigned i, unsigned *out_offset)", "offset = ((i & 7) << 6) + (i >> 3);"}, nil, ""},
		{[]string{"bitmath", "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))", "--tile", "64x16", "--forward"}, 0,
			[]string{"64x16 tile", "unsigned frag_row = (wid << 4) + (lane >> 2);"}, nil, ""},
		{[]string{"bitmath", "(8,2):(1,0)", "--inverse"}, 0,
			[]string{"Note: broadcast: every offset reached has 2 preimages; this inverse returns the one with c0 = 0"}, nil, ""},
		// --check
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--check", seed}, 0,
			[]string{"correct (128 threads × 32 values checked)"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n256.d.f32", "--check", seed}, 0,
			[]string{"correct (128 threads × 128 values checked)"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--check", "row = (wid<<4) + (lane>>2); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)"}, 1,
			[]string{"wrong: at tid=0, v=2 the layout gives (row, col) = (8, 0), your formula (row, col) = (0, 0)", "hint: input bit v1"}, nil,
			"the formula is wrong"},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--inverse", "--check", "tid = 32*(row/16) + 4*(row%8) + (col%8)/2; v = 4*(col/8) + 2*((row/8)%2) + col%2"}, 0,
			[]string{"correct (64 rows × 64 columns checked)"}, nil, ""},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--check", "row = (wid<<4 + (lane>>2); col = 0"}, 2, nil, nil,
			"bad formula: col 7: unclosed '('"},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--check", "row = lane / (tid - 5); col = 0"}, 1,
			[]string{"cannot evaluate the formula: col 12: division by zero in lane / (tid - 5) at tid=5, v=0"}, nil, ""},
		// errors
		{[]string{"bitmath", "(4,4):(1,3)"}, 1, nil, nil, "is not linear over F2: at row=1, col=1 it gives offset=4"},
		{[]string{"bitmath", "(4,4):(1,3"}, 2, nil, nil, "bad layout: col 7: unclosed"},
		{[]string{"bitmath", "wgmma.m64n63.d.f32"}, 2, nil, nil, "unknown atom"},
		{[]string{"bitmath"}, 2, nil, nil, "missing ATOM or LAYOUT"},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--lang", "rust"}, 2, nil, nil, "unknown language"},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--inverse", "--forward"}, 2, nil, nil, "exclude each other"},
		{[]string{"bitmath", "wgmma.m64n64.d.f32", "--tile", "64x64"}, 2, nil, nil, "apply to a plain LAYOUT"},
		{[]string{"bitmath", "(8,8):(8,1)", "--tile", "64"}, 2, nil, nil, "want ROWSxCOLS"},
		{[]string{"bitmath", "(8,8):(8,1)", "--tile", "4x4"}, 2, nil, nil, "outside the 4x4 tile"},
		{[]string{"bitmath", "(8,8):(8,1)", "--tile", "9999999x2"}, 2, nil, nil, "at most 1048576 rows and 1048576 columns"},
		{[]string{"bitmath", "(1048576,1048576):(1,1048576)", "--tile", "1048576x1048576"}, 2, nil, nil, "more (thread, value) pairs than the 16777216"},
	}
	for _, tt := range tests {
		expectCLI(t, tt.args, tt.code, tt.out, tt.not, tt.err)
	}
}

// TestBitmathCLITMEM: tcgen05 atoms are modelled, not hardware-verified,
// and the output says so; TMEM placements print the address bits.
func TestBitmathCLITMEM(t *testing.T) {
	code, out, errs := runCLI(t, "bitmath", "tcgen05.tmem.m64n64.d.cta1", "--forward")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"not hardware-verified", "taddr", "<< 16"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	code, out, _ = runCLI(t, "bitmath", "tcgen05.tmem.m64n64.d.cta1", "--matrix")
	if code != 0 || !strings.Contains(out, "L0") || !strings.Contains(out, "C0") {
		t.Errorf("matrix: %d\n%s", code, out)
	}
}
