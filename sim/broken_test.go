package sim

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

var update = flag.Bool("update", false, "rewrite generated files (fixtures/sim/broken)")

// A broken variant is a corpus kernel with one bug planted by editing its
// PTX text. Edits keep the line count, so the lines below are those of the
// original file too. The checker must report exactly the planted hazard
// (and its direct consequence where the bug has two), at these lines.
type brokenCase struct {
	name   string
	base   string // fixtures/kernels file
	launch string // fixtures/sim/launch file (without .json)
	bug    string
	edits  []edit
	want   map[HazardKind][]int // kind → lines
	hangs  bool                 // the run ends in a deadlock
}

type edit struct {
	line     int    // 1-based
	old, new string // old must be the trimmed line; new "" comments it out
}

var brokenCases = []brokenCase{
	{name: "gemm_missing_fence", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "wgmma.fence removed before the warpgroup's first wgmma.mma_async",
		edits: []edit{{322, "wgmma.fence.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzWgmmaNoFence: {359}}},
	{name: "gemm_wrong_swizzle", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "the wgmma descriptors say 64B swizzle while the TMA tensor maps write 128B",
		edits: swizzleEdits(),
		want:  map[HazardKind][]int{HzDescLayout: {359, 380, 407, 425, 452, 470, 497, 515}}},
	{name: "gemm_phase_bug", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "the consumers wait on the inverted mbarrier phase parity ((kt/STAGES)&1)^1",
		edits: []edit{{291, "and.b32  \t%r45, %r54, 1;", "\txor.b32  \t%r45, %r54, 1;"}},
		want:  map[HazardKind][]int{HzMbarPhase: {314}}, hangs: true},
	{name: "gemm_missing_wait", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "wgmma.wait_group removed: the next TMA refill overwrites operands of in-flight wgmmas, and the epilogue reads accumulators nobody waited for",
		edits: []edit{{527, "wgmma.wait_group.sync.aligned 0;", ""}},
		want:  map[HazardKind][]int{HzAsyncSourceReuse: {812, 817}, HzWgmmaAccRead: {995}}},
	{name: "attention_missing_wait", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "wgmma.wait_group removed after S = QKᵀ: the softmax reads accumulators of an in-flight wgmma",
		edits: []edit{{469, "wgmma.wait_group.sync.aligned 0;", ""}},
		want:  map[HazardKind][]int{HzWgmmaAccRead: {0}}},
	{name: "attention_missing_proxy_fence", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "fence.proxy.async removed between the st.shared staging and the wgmma that reads the tiles",
		edits: []edit{{344, "fence.proxy.async.shared::cta;", ""}},
		want:  map[HazardKind][]int{HzProxyFence: {0}}},
	{name: "attention_missing_fence", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "wgmma.fence removed between packing P into A registers and the register-A wgmma",
		edits: []edit{{1704, "wgmma.fence.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzWgmmaNoFence: {0}}},
	{name: "epilogue_missing_proxy_fence", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "fence.proxy.async removed between stmatrix and the TMA store that reads the tile",
		edits: []edit{{722, "fence.proxy.async.shared::cta;", ""}},
		want:  map[HazardKind][]int{HzProxyFence: {742}}},
	{name: "epilogue_missing_bulk_wait", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "cp.async.bulk.wait_group.read removed: the CTA exits while the TMA store still reads its shared memory",
		edits: []edit{{752, "cp.async.bulk.wait_group.read 0;", ""}},
		want:  map[HazardKind][]int{HzAsyncExit: {742}}},
	{name: "tcgen05_missing_wait_ld", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.wait::ld removed: the epilogue stores tcgen05.ld destinations before they are defined",
		edits: []edit{{562, "tcgen05.wait::ld.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzTcgenWaitLd: {0}}},
	{name: "tcgen05_missing_fence", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.fence::after_thread_sync removed after the mbarrier wait for the MMAs: the epilogue's tcgen05.ld is not ordered after them",
		edits: []edit{{355, "tcgen05.fence::after_thread_sync;", ""}},
		want:  map[HazardKind][]int{HzTcgenFence: {558}}},
	{name: "tcgen05_missing_dealloc", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.dealloc removed: the CTA exits with TMEM allocated",
		edits: []edit{{597, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, %r208;", ""}},
		want:  map[HazardKind][]int{HzTmemAlloc: {63}}},
	{name: "tcgen05_lane_quarter", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "the epilogue's TMEM lane base is (tid/64)*32 instead of (tid/32)*32: warps read lanes outside their quarter",
		edits: []edit{{540, "shl.b32 \t%r171, %r1, 16;", "\tshl.b32 \t%r171, %r1, 15;"}},
		want:  map[HazardKind][]int{HzTmemLane: {558}}},
}

func swizzleEdits() []edit {
	var es []edit
	for _, l := range []int{343, 352, 373, 392, 401, 419, 437, 446, 464, 482, 491, 509} {
		es = append(es, edit{l, "", ""})
	}
	return es
}

const brokenDir = "../fixtures/sim/broken"

// apply makes the broken text from the base PTX.
func (bc brokenCase) apply(src []byte) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	for _, e := range bc.edits {
		if e.line < 1 || e.line > len(lines) {
			return nil, fmt.Errorf("%s: line %d out of range", bc.name, e.line)
		}
		cur := lines[e.line-1]
		if bc.name == "gemm_wrong_swizzle" {
			const sw128, sw64 = "4611686293305360384", "9223372311732748288"
			if !strings.Contains(cur, sw128) {
				return nil, fmt.Errorf("%s: line %d has no 128B descriptor constant: %q", bc.name, e.line, cur)
			}
			lines[e.line-1] = strings.Replace(cur, sw128, sw64, 1)
			continue
		}
		if strings.TrimSpace(cur) != strings.TrimSpace(e.old) {
			return nil, fmt.Errorf("%s: line %d is %q, want %q", bc.name, e.line, strings.TrimSpace(cur), e.old)
		}
		if e.new == "" {
			lines[e.line-1] = "\t// tcsim broken variant: removed " + strings.TrimSpace(cur)
		} else {
			lines[e.line-1] = e.new
		}
	}
	out := strings.Join(lines, "\n")
	out = strings.TrimRight(out, "\n") + "\n// tcsim broken variant " + bc.name + " of " + bc.base + ": " + bc.bug + ".\n" +
		"// Generated by sim/broken_test.go (go test ./sim -run TestBrokenVariants -update); edits keep the line numbers.\n"
	return []byte(out), nil
}

func TestBrokenVariants(t *testing.T) {
	for _, bc := range brokenCases {
		t.Run(bc.name, func(t *testing.T) {
			base, err := os.ReadFile(filepath.Join("../fixtures/kernels", bc.base))
			if err != nil {
				t.Fatal(err)
			}
			want, err := bc.apply(base)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(brokenDir, bc.name+".ptx")
			if *update {
				if err := os.MkdirAll(brokenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./sim -run TestBrokenVariants -update)", err)
			}
			if string(src) != string(want) {
				t.Fatalf("%s differs from what the generator makes; run with -update", path)
			}
			got := runBroken(t, bc, path, src)
			checkHazards(t, got, bc.want)
		})
	}
}

func runBroken(t *testing.T, bc brokenCase, path string, src []byte) []Hazard {
	t.Helper()
	l, err := launch.ReadLaunch(filepath.Join("../fixtures/sim/launch", bc.launch+".json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Prepare(path, src, l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Run()
	var dl *DeadlockError
	switch {
	case bc.hangs && !errors.As(err, &dl):
		t.Errorf("want a deadlock, got %v", err)
	case !bc.hangs && err != nil:
		t.Errorf("run: %v", err)
	}
	return m.Errors()
}

// checkHazards compares the reported (kind, line) set with want (a line 0
// accepts any line).
func checkHazards(t *testing.T, got []Hazard, want map[HazardKind][]int) {
	t.Helper()
	seen := map[HazardKind][]int{}
	for _, h := range got {
		seen[h.Kind] = append(seen[h.Kind], int(h.Pos.Line))
	}
	for k, lines := range seen {
		sort.Ints(lines)
		wl, ok := want[k]
		if !ok {
			for _, h := range got {
				if h.Kind == k {
					t.Errorf("unexpected hazard: %s", h)
				}
			}
			continue
		}
		if len(wl) == 1 && wl[0] == 0 {
			continue
		}
		if fmt.Sprint(lines) != fmt.Sprint(wl) {
			t.Errorf("%s reported at lines %v, want %v", k, lines, wl)
		}
	}
	for k := range want {
		if _, ok := seen[k]; !ok {
			t.Errorf("planted hazard %s not reported", k)
		}
	}
}
