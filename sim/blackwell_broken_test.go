package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// The Blackwell plants beyond those of broken_test.go: the same generator
// (edits of a fixture's PTX that keep its line numbers), checked by
// TestBrokenVariants under every schedule. Each has its correct control:
// the unedited kernel, which TestHazardCorpus (tcgen05_gemm),
// TestPairGemm and TestMxf8Gemm run silent under every schedule.
var blackwellBrokenCases = []brokenCase{
	{name: "tcgen05_epilogue_no_wait", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug: "the epilogue no longer waits on the MMA-done mbarrier before tcgen05.ld: it reads the accumulator while the last tcgen05.mma may still write it",
		edits: []edit{{581, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r178], %r227;", ""},
			{582, "@!done bra TC_WAIT_6;", ""}},
		want: map[HazardKind][]int{HzTcgenInFlight: {611}}},
	{name: "mxf8_epilogue_no_wait", base: mxf8Base, launch: mxf8Launch,
		bug: "no warp waits for the MMA's commit (nor warp 1 for its refill's): the epilogue's tcgen05.ld reads D, and warp 1 refills the scale factors, before the MMA is known to be complete",
		edits: []edit{{123, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r5], 0;", "\tsetp.eq.u32 \t%p6, %r1, %r1;"},
			{132, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r7], 0;", "\tsetp.eq.u32 \t%p6, %r1, %r1;"}},
		want: map[HazardKind][]int{HzTcgenInFlight: {138, 139, 140, 141}, HzTmemRace: {129}}},
	{name: "mxf8_refill_wrong_parity", base: mxf8Base, launch: mxf8Launch,
		bug:   "the wait for the MMA's commit names parity 1, which the fresh mbarrier passes at once: warp 1 refills the scale factors and the warps read D before the MMA is complete",
		edits: []edit{{123, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r5], 0;", "\tmbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r5], 1;"}},
		want:  map[HazardKind][]int{HzMbarPhase: {123}}, anyEnd: true},
	{name: "atmem_reuse_before_commit", base: "../sim/blackwell/atmem_gemm.sm_100a.ptx", launch: "../blackwell/atmem_gemm",
		bug:   "the warps no longer wait for the first MMA's commit before overwriting its A operand in TMEM with tcgen05.st: the in-flight MMA may read the new rows",
		edits: []edit{{113, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r5], 0;", "\tsetp.eq.u32 \t%p6, %r1, %r1;"}},
		want:  map[HazardKind][]int{HzTcgenInFlight: {119}}},
	{name: "atmem_st_no_wait", base: "../sim/blackwell/atmem_gemm.sm_100a.ptx", launch: "../blackwell/atmem_gemm",
		bug:   "tcgen05.wait::st removed after the warps store A0 into TMEM: the fence::before_thread_sync and the barrier order the stores' issue before the first MMA, not their completion",
		edits: []edit{{93, "tcgen05.wait::st.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzTcgenWaitSt: {92}}},
	{name: "pair_tma_multicast_mask", base: "../sim/blackwell/pair_tma.sm_100a.ptx", launch: "../blackwell/pair_tma",
		bug:   "the multicast's ctaMask is 0b101: it names CTA rank 2, which the two-CTA cluster does not have, and the copy to rank 1 that its mbarrier expects is not made",
		edits: []edit{{69, "mov.u16 \t%h1, 3;", "\tmov.u16 \t%h1, 5;"}},
		want:  map[HazardKind][]int{HzMulticastMask: {70}}, hangs: true},
	{name: "pair_tma_own_mbarrier", base: "../sim/blackwell/pair_tma.sm_100a.ptx", launch: "../blackwell/pair_tma",
		bug:   "each CTA's .cta_group::2 copy names its own mbarrier 1 instead of the pair leader's: the odd CTA's bytes never reach the barrier that expects them",
		edits: []edit{{77, "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%r13], [%rd2, {%r11, %r12}], [%r7];", "\tcp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [%r13], [%rd2, {%r11, %r12}], [%r5];"}},
		want:  map[HazardKind][]int{HzMulticastMask: {77}}, hangs: true},
}

func init() { brokenCases = append(brokenCases, blackwellBrokenCases...) }

// The TMEM lifecycle of CTAs sharing an SM: sm_share (fixtures/sim/
// blackwell) run with two CTAs per SM, and its plants, generated and
// checked like broken_test.go's under every schedule, exactly.
const smShareBase, smShareLaunch = "../sim/blackwell/sm_share.sm_100a.ptx", "../blackwell/sm_share"

var smShareCases = []brokenCase{
	{name: "sm_share_no_relinquish", base: smShareBase, launch: smShareLaunch,
		bug:   "tcgen05.relinquish_alloc_permit removed: the CTA keeps the SM's allocation permit, and the other CTA of the SM waits for it until the first exits",
		edits: []edit{{37, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzTmemPermit: {36}}},
	{name: "sm_share_missing_dealloc", base: smShareBase, launch: smShareLaunch,
		bug:   "tcgen05.dealloc removed: the first CTA of each SM exits holding all 512 columns, and the second CTA's tcgen05.alloc never completes",
		edits: []edit{{66, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 512;", ""}},
		want:  map[HazardKind][]int{HzTmemAlloc: {36}}, faults: true},
}

// smShareSchedules are the schedules of the SM-sharing kernel and plants.
var smShareSchedules = []Options{{Schedule: Lazy}, {Schedule: Eager}, {Schedule: Latest},
	{Schedule: Random, Seed: 1}, {Schedule: Random, Seed: 2}, {Schedule: Random, Seed: 21}}

func runSMShare(t *testing.T, path string, src []byte, o Options) (*Machine, error) {
	t.Helper()
	l, err := launch.ReadLaunch("../fixtures/sim/blackwell/sm_share.json")
	if err != nil {
		t.Fatal(err)
	}
	o.Check = true
	m, err := Prepare(path, src, l, o)
	if err != nil {
		t.Fatal(err)
	}
	return m, m.Run()
}

// TestSMShare: the correct kernel, with 1, 2 and 4 CTAs per SM, is silent
// and every CTA reads back its own values (the CTAs of an SM allocate
// all 512 columns one after another).
func TestSMShare(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("../fixtures/kernels", smShareBase))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 2, 4} {
		for _, o := range smShareSchedules {
			o.CTAsPerSM = k
			m, err := runSMShare(t, "sm_share.sm_100a.ptx", src, o)
			if err != nil {
				t.Fatalf("%d per SM, %s: %v", k, o.Schedule, err)
			}
			for _, f := range m.Findings() {
				if f.Severity <= SevWarning {
					t.Errorf("%d per SM, %s: %s %s at %s: %s", k, o.Schedule, f.Severity, f.Rule, f.Pos, f.Msg)
				}
			}
			for i, v := range out32(t, m) {
				cta, tid, j := i/512, i%512/4, i%4
				if want := uint32(cta*1000 + tid*4 + j); v != want {
					t.Fatalf("%d per SM, %s: out[%d] = %d, want %d", k, o.Schedule, i, v, want)
				}
			}
		}
	}
}

// TestSMSharePlants: each plant reports its rule at its cause line, and
// nothing else, under every schedule with two CTAs per SM; with one CTA
// per SM the permit plant is silent (nothing waits) and the dealloc plant
// reports only the CTA's own exit with the columns allocated.
func TestSMSharePlants(t *testing.T) {
	for _, bc := range smShareCases {
		t.Run(bc.name, func(t *testing.T) {
			path, src := plantFile(t, bc, "TestSMSharePlants")
			for _, o := range smShareSchedules {
				o.CTAsPerSM = 2
				m, err := runSMShare(t, path, src, o)
				if bc.faults != (err != nil) {
					t.Errorf("%s: the run ended with %v (faults: %v)", o.Schedule, err, bc.faults)
				}
				checkFindings(t, m.Findings(), bc.want, true)
			}
			m, err := runSMShare(t, path, src, Options{})
			if err != nil {
				t.Fatalf("one CTA per SM: %v", err)
			}
			alone := map[HazardKind][]int{}
			if bc.faults {
				alone[HzTmemAlloc] = []int{36}
			}
			checkFindings(t, m.Findings(), alone, true)
		})
	}
}

// TestSMShareClusters: co-resident CTAs are modelled for launches without
// clusters only; asking for them with a cluster launch is refused, never
// silently run one CTA per SM.
func TestSMShareClusters(t *testing.T) {
	l, err := launch.ReadLaunch("../fixtures/sim/blackwell/pair_gemm.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../fixtures/sim/blackwell/pair_gemm.sm_100a.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Prepare("pair_gemm.sm_100a.ptx", src, l, Options{CTAsPerSM: 2, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err == nil || !strings.Contains(err.Error(), "clusters of 2,1,1") {
		t.Fatalf("--ctas-per-sm 2 on a cluster launch: %v, want the refusal", err)
	}
}
