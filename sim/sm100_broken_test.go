package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// Bugs planted in tcsim's own persistent sm_100a GEMMs
// (fixtures/kernels/sm100_gemm.cu, the nvcc 13 PTX): edits of
// sm100_gemm.sm_100a.ptx that keep its line numbers, generated into
// fixtures/sim/broken and checked by TestBrokenVariants under every
// schedule like broken_test.go's. Their correct controls, the unedited
// kernels, are in the hazard corpus (sm100CorpusCase). Not
// hardware-verified: no Blackwell GPU.
const sm100Base = "sm100_gemm.sm_100a.ptx"

// sm100BrokenLaunch is kernel sm100_NAME's launch, relative to
// fixtures/sim/launch (runBroken's directory).
func sm100BrokenLaunch(name string) string { return "../../kernels/sm100_" + name }

var sm100BrokenCases = []brokenCase{
	{name: "sm100_acc_empty_no_wait", base: sm100Base, launch: sm100BrokenLaunch("bf16_1sm"),
		bug: "the MMA thread no longer waits on the accumulator-empty mbarrier (sm100_gemm.cu:560) before it reuses a TMEM accumulator: " +
			"the MMAs of the third tile overwrite accumulator 0 while the epilogue warps may still read the first tile from it, " +
			"and the accumulator-full mbarrier can complete twice before the epilogue waits on it",
		edits: []edit{{816, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r53], %r242;", ""},
			{817, "@!done bra SM100_WAIT_12;", ""}},
		// every MMA of the tile's first four stages (4 per stage)
		want: map[HazardKind][]int{HzTmemRace: {969, 980, 988, 996, 1029, 1037, 1045, 1053, 1085, 1093, 1101, 1109, 1141, 1149, 1157, 1165},
			HzMbarLapped: {1702}}},
	{name: "sm100_epilogue_no_proxy_fence", base: sm100Base, launch: sm100BrokenLaunch("bf16_1sm"),
		bug:   "the epilogue's fence.proxy.async.shared::cta (sm100_gemm.cu:652) is removed: the TMA store reads the staging tile that st.shared wrote in the generic proxy",
		edits: []edit{{2060, "fence.proxy.async.shared::cta;", ""}},
		want:  map[HazardKind][]int{HzProxyFence: {2065}}},
	{name: "sm100_epilogue_no_wait_read", base: sm100Base, launch: sm100BrokenLaunch("bf16_1sm"),
		bug:   "the storing thread no longer waits (cp.async.bulk.wait_group.read 1, sm100_gemm.cu:643) for the TMA store that last read a staging buffer: the epilogue warps overwrite it while the store may still read it",
		edits: []edit{{1775, "cp.async.bulk.wait_group.read 1;", ""}},
		// the eight st.shared.v4 of a row of the staging tile
		want: map[HazardKind][]int{HzAsyncSourceReuse: {1824, 1857, 1890, 1923, 1956, 1989, 2022, 2055}}},
	{name: "sm100_mxf8_epilogue_no_fence", base: sm100Base, launch: sm100BrokenLaunch("mxf8_1sm"),
		bug:   "the MXFP8 epilogue's tcgen05.fence::after_thread_sync (sm100_gemm.cu:626) is removed: its tcgen05.ld follows the accumulator-full wait and the named barrier unordered",
		edits: []edit{{6151, "tcgen05.fence::after_thread_sync;", ""}},
		want:  map[HazardKind][]int{HzTcgenFence: {6158}}},
	{name: "sm100_acc_full_no_wait", base: sm100Base, launch: sm100BrokenLaunch("bf16_1sm"),
		bug: "the epilogue no longer waits on the accumulator-full mbarrier (sm100_gemm.cu:620) before its tcgen05.ld: it reads the accumulator before the tile's MMAs are complete, " +
			"then releases the accumulator and takes the next tile ahead of the MMA thread",
		edits: []edit{{1702, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r643], %r644;", ""},
			{1703, "@!done bra SM100_WAIT_23;", ""}},
		// the two loads of the chunk; what the epilogue running ahead makes
		// happen (the accumulator-empty barrier lapping the MMA thread's
		// wait at 816, a producer's wait at 353 that can no longer
		// complete) are consequences
		want: map[HazardKind][]int{HzTcgenInFlight: {1731, 1739}}, anyEnd: true},
	{name: "sm100_pair_no_first_cluster_barrier", base: sm100Base, launch: sm100BrokenLaunch("bf16_2sm"),
		bug: "the CTA pair's first barrier.cluster (sm100_gemm.cu:711) is removed: nothing orders thread 0's mbarrier.init (and the TMEM allocation's address in shared memory) " +
			"before the other warps and the peer CTA use them",
		edits: []edit{{2436, "barrier.cluster.arrive.release.aligned;", ""}, {2437, "barrier.cluster.wait.acquire.aligned;", ""}},
		// every barrier's init (whether its first use finds it initialized
		// or not), and the read of the allocation's TMEM address; the hang
		// and the lost bytes are consequences
		want:   map[HazardKind][]int{HzMbarInitOrder: {2271, 2289, 2301, 2313, 2328, 2338, 2359, 2369, 2375, 2381}, HzRace: {2450}},
		anyEnd: true},
	{name: "sm100_pair_acc_commit_mask", base: sm100Base, launch: sm100BrokenLaunch("bf16_2sm"),
		bug:   "the pair's accumulator-full tcgen05.commit multicasts to CTA 0 only (ctaMask 0x1, sm100_gemm.cu:588): the odd CTA's epilogue never learns that its half of the accumulator is ready",
		edits: []edit{{3754, "mov.b16 \t%rs8, 3;", "\tmov.b16 \t%rs8, 1;"}},
		// the waits that then hang are its consequences
		want: map[HazardKind][]int{HzMulticastMask: {3756}}, hangs: true},
	{name: "sm100_pair_no_last_cluster_barrier", base: sm100Base, launch: sm100BrokenLaunch("bf16_2sm"),
		bug: "the CTA pair's barrier.cluster before tcgen05.dealloc (sm100_gemm.cu:733) is removed: the odd CTA frees its TMEM while the even CTA's MMAs still write it " +
			"and its own epilogue still reads it",
		edits: []edit{{4496, "barrier.cluster.arrive.release.aligned;", ""}, {4497, "barrier.cluster.wait.acquire.aligned;", ""}},
		// the early dealloc, not the MMAs and loads that find the columns
		// freed
		want: map[HazardKind][]int{HzTmemAlloc: {4510}}},
}

func init() { brokenCases = append(brokenCases, sm100BrokenCases...) }

// TestSm100RedundantFences: the MXFP8 MMA thread's
// tcgen05.fence::after_thread_sync after its stage-full waits
// (sm100_gemm.cu:566) removed. Those waits order the thread after the TMA
// copies and after the producer's arrivals, and through them after no
// other thread's tcgen05 work that the thread's accumulator-empty wait and
// the fence after it (kept) had not already ordered it after: by the
// order the kernel establishes the fences are redundant, and the checker
// is silent under every schedule. (It used to report
// tcgen05/missing-fence at 5542 or 5687 under some schedules and nothing
// under lazy: what ran first decided.)
func TestSm100RedundantFences(t *testing.T) {
	bc := brokenCase{name: "sm100_mxf8_mma_no_fence", base: sm100Base, launch: sm100BrokenLaunch("mxf8_1sm"),
		bug: "the MMA thread's tcgen05.fence::after_thread_sync after each stage-full wait removed",
		edits: []edit{{5522, "tcgen05.fence::after_thread_sync;", ""}, {5671, "tcgen05.fence::after_thread_sync;", ""},
			{5803, "tcgen05.fence::after_thread_sync;", ""}}}
	base, err := os.ReadFile(filepath.Join("../fixtures/kernels", bc.base))
	if err != nil {
		t.Fatal(err)
	}
	src, err := bc.apply(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range brokenSchedules() {
		if testing.Short() && o.Schedule != Lazy {
			continue
		}
		t.Run(schedName(o), func(t *testing.T) {
			m := runBroken(t, bc, bc.name+".ptx", src, o)
			for _, f := range m.Findings() {
				if f.Severity <= SevNote {
					t.Errorf("%s %s at %d: %s", f.Severity, f.Rule, f.Pos.Line, f.Msg)
				}
			}
		})
	}
}
