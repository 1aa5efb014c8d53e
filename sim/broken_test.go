package sim

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

var update = flag.Bool("update", false, "rewrite generated files (fixtures/sim/broken)")

// A broken variant is a corpus kernel with one bug planted by editing its
// PTX text. Edits keep the line count, so the lines below are those of the
// original file too. Under every schedule (lazy, eager, latest and the
// random seeds of brokenSchedules) the checker must report exactly the
// planted rules (errors and warnings; notes where planted) at exactly
// these cause lines (the line to fix): what the bug makes happen next
// (reads of bytes that had not landed, copies overlapping, lapped
// waiters, a deadlock) is folded into the root finding as its
// consequences, whatever the schedule shows of it.
type brokenCase struct {
	name   string
	base   string // fixtures/kernels file
	launch string // fixtures/sim/launch file (without .json)
	bug    string
	edits  []edit
	want   map[HazardKind][]int // rule → cause lines
	hangs  bool                 // the run ends in a deadlock (checked under the lazy schedule)
	faults bool                 // the run stops with a fault (an instruction the simulator cannot execute as written)
	// anyEnd: the run may end in a deadlock (or not), depending on the
	// schedule; the findings may not.
	anyEnd bool
}

// brokenSchedules are the schedules every variant is checked under.
func brokenSchedules() []Options {
	os := []Options{{Schedule: Lazy}, {Schedule: Eager}, {Schedule: Latest}}
	for _, seed := range []uint64{1, 2, 3, 4, 21} {
		os = append(os, Options{Schedule: Random, Seed: seed})
	}
	return os
}

func schedName(o Options) string {
	if o.Schedule == Random {
		return fmt.Sprintf("seed%d", o.Seed)
	}
	return o.Schedule.String()
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
		want:  map[HazardKind][]int{HzDescLayout: swizzleLines}},
	{name: "gemm_phase_bug", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "the consumers wait on the inverted mbarrier phase parity ((kt/STAGES)&1)^1",
		edits: []edit{{291, "and.b32  \t%r45, %r54, 1;", "\txor.b32  \t%r45, %r54, 1;"}},
		want:  map[HazardKind][]int{HzMbarPhase: {314}}, hangs: true},
	{name: "gemm_missing_wait", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "wgmma.wait_group removed: the next TMA refill overwrites operands of in-flight wgmmas, and the epilogue reads accumulators nobody waited for",
		edits: []edit{{527, "wgmma.wait_group.sync.aligned 0;", ""}},
		// the line to fix: the commit_group of the group no wait covers
		// (the epilogue's accumulator reads at 995 are consequences)
		want: map[HazardKind][]int{HzAsyncRefill: {522}}},
	{name: "gemm_wait_group_one", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "wgmma.wait_group 1 instead of 0: the group just committed stays in flight while its stage is refilled and, after the loop, while the epilogue reads its accumulators",
		edits: []edit{{527, "wgmma.wait_group.sync.aligned 0;", "\twgmma.wait_group.sync.aligned 1;"}},
		// the line to fix: the wait_group whose N leaves the group in flight
		want: map[HazardKind][]int{HzAsyncRefill: {527}}},
	{name: "attention_missing_wait", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "wgmma.wait_group removed after S = QKᵀ: the softmax reads accumulators of an in-flight wgmma",
		edits: []edit{{469, "wgmma.wait_group.sync.aligned 0;", ""}},
		want:  map[HazardKind][]int{HzWgmmaAccRead: {464}}},
	{name: "attention_missing_proxy_fence", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "fence.proxy.async removed between the st.shared staging and the wgmma that reads the tiles",
		edits: []edit{{344, "fence.proxy.async.shared::cta;", ""}},
		want:  map[HazardKind][]int{HzProxyFence: {347}}},
	{name: "attention_missing_fence", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "wgmma.fence removed between packing P into A registers and the register-A wgmma",
		edits: []edit{{1704, "wgmma.fence.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzWgmmaNoFence: {1748}}},
	{name: "epilogue_missing_proxy_fence", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "fence.proxy.async removed between stmatrix and the TMA store that reads the tile",
		edits: []edit{{722, "fence.proxy.async.shared::cta;", ""}},
		want:  map[HazardKind][]int{HzProxyFence: {725}}},
	{name: "epilogue_missing_bulk_wait", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "cp.async.bulk.wait_group.read removed: the CTA exits while the TMA store still reads its shared memory",
		edits: []edit{{752, "cp.async.bulk.wait_group.read 0;", ""}},
		want:  map[HazardKind][]int{HzAsyncExit: {742}}},
	{name: "tcgen05_missing_wait_ld", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.wait::ld removed: the epilogue stores tcgen05.ld destinations before the wait (a portability note: ptxas waits for each register at its use, as CUTLASS's epilogues assume; the TMEM is only released after a fence::before_thread_sync and a barrier)",
		edits: []edit{{615, "tcgen05.wait::ld.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzTcgenLdRead: {0}}},
	{name: "tcgen05_missing_fence", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.fence::after_thread_sync removed after the mbarrier wait for the MMAs' commit (a portability note: the commit's phase says the MMAs are complete, and CUTLASS omits the fence)",
		edits: []edit{{588, "tcgen05.fence::after_thread_sync;", ""}},
		want:  map[HazardKind][]int{HzTcgenFenceNote: {611}}},
	{name: "tcgen05_missing_dealloc", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.dealloc removed: the CTA exits with TMEM allocated",
		edits: []edit{{650, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, %r221;", ""}},
		want:  map[HazardKind][]int{HzTmemAlloc: {63}}},
	{name: "tcgen05_lane_quarter", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "the epilogue's TMEM lane base is (tid/64)*32 instead of (tid/32)*32: warps read lanes outside their quarter",
		edits: []edit{{594, "shl.b32 \t%r184, %r1, 16;", "\tshl.b32 \t%r184, %r1, 15;"}},
		want:  map[HazardKind][]int{HzTmemLane: {594}}},
	// The line to fix: the expect_tx and the mbarrier.init, with their
	// numbers, rather than the wait that hangs or the read that comes early.
	{name: "gemm_expect_tx_short", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "the prologue's expect_tx arms 16384 bytes while its two copies deliver 32768: the phase completes when A has landed, before B",
		edits: []edit{{110, "mov.u32 \t%r27, 32768;", "\tmov.u32 \t%r27, 16384;"}},
		want:  map[HazardKind][]int{HzMbarTxMismatch: {113}}},
	{name: "gemm_expect_tx_long", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "the refill's expect_tx arms 49152 bytes while its two copies deliver 32768: the phase never completes",
		edits: []edit{{799, "mov.u32 \t%r99, 32768;", "\tmov.u32 \t%r99, 49152;"}},
		want:  map[HazardKind][]int{HzMbarTxMismatch: {803}}, hangs: true},
	{name: "gemm_init_count", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "mbarrier.init expects 2 arrivals per phase while only thread 0 arrives (with expect_tx): no phase ever completes",
		edits: []edit{{63, "mov.u32 \t%r22, 1;", "\tmov.u32 \t%r22, 2;"}},
		want:  map[HazardKind][]int{HzMbarArrivals: {65}}, hangs: true},
	// The classes of issue 13, each next to its correct control (the
	// unedited kernel, which TestHazardCorpus runs: TestBrokenControls).
	{name: "tcgen05_refill_before_commit", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug: "thread 0 no longer waits on the stage-free mbarrier before the TMA refill: the copy overwrites sA/sB while the previous slice's tcgen05.mma may still read them",
		edits: []edit{{196, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r8], %r68;", ""}, {197, "@!done bra TC_WAIT_0;", ""},
			{301, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r8], %r95;", ""}, {302, "@!done bra TC_WAIT_2;", ""},
			{403, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r8], %r128;", ""}, {404, "@!done bra TC_WAIT_4;", ""}},
		want: map[HazardKind][]int{HzAsyncRefill: {218, 224, 316, 320}}},
	{name: "tcgen05_uninit_accumulate", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "the first tcgen05.mma of the tile accumulates (enable-input-d true) into freshly allocated TMEM",
		edits: []edit{{250, "setp.ne.b32 p, %r83, 0;", "setp.eq.b32 p, %r83, %r83;"}},
		want:  map[HazardKind][]int{HzTmemUninit: {251}}},
	{name: "gemm_mbarrier_init_unfenced", base: "gemm_tma_wgmma.sm_90a.ptx", launch: "gemm_tma_wgmma",
		bug:   "fence.mbarrier_init removed: the TMA copies complete on mbarriers whose initialization no proxy fence made visible to the async proxy (a portability note: Triton 3.6 emits it)",
		edits: []edit{{74, "fence.mbarrier_init.release.cluster;", ""}},
		want:  map[HazardKind][]int{HzMbarInitFence: {65, 69}}},
	{name: "stage_ldshared_no_release", base: "smem_handoff.sm_90a.ptx", launch: "stage_ldshared",
		bug:   "the CTA barrier that releases a stage after the ld.shared reads is removed: thread 0's TMA refill races with the other warps' reads",
		edits: []edit{{207, "bar.sync \t0;", ""}},
		want:  map[HazardKind][]int{HzAsyncRefill: {233}, HzMbarLapped: {151}}},
	// The copies of stage_ldshared's prologue issued by thread 32 while
	// thread 0 initializes the mbarriers, with no bar.sync between:
	// whichever comes first (the init, or the copy, which then finds the
	// barrier uninitialized), the line to fix is the init (mbar_uninit.go).
	{name: "stage_init_unordered", base: handoffBase, launch: "stage_ldshared",
		bug: "thread 32 issues the prologue copies, and the bar.sync after thread 0's mbarrier.init is removed",
		edits: []edit{{70, "bar.sync \t0;", ""},
			{74, "or.pred  \t%p4, %p1, %p3;", "\tsetp.ne.s32 \t%p4, %r2, 32; or.pred  \t%p4, %p4, %p3;"}},
		want: map[HazardKind][]int{HzMbarInitOrder: {56, 60}}, anyEnd: true},
	{name: "warp_transpose_no_syncwarp", base: "smem_handoff.sm_90a.ptx", launch: "warp_transpose",
		bug:   "bar.warp.sync removed between the lanes' row stores and their column loads",
		edits: []edit{{319, "bar.warp.sync \t-1;", ""}},
		want:  map[HazardKind][]int{HzWarpExchange: {330, 332, 334, 336}}},
	{name: "attention_desc_layout", base: "attention_step_exact.sm_90a.ptx", launch: "attention_step_exact",
		bug:   "the Q descriptor of the first k step says SBO 2048 while the st.shared staging wrote 8-row groups 1024 bytes apart",
		edits: []edit{{359, "or.b64  \t%rd36, %rd48, 274878431232;", "\tor.b64  \t%rd36, %rd48, 549756338176;"}},
		want:  map[HazardKind][]int{HzDescLayout: {359}}},

	// One plant per rule (TestRulesPlanted): the rules that had none.
	{name: "gemm_skip_wait", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the consumers no longer wait on the full mbarrier: the wgmmas read the stage before the TMA copies have landed",
		edits: []edit{{314, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r11], %r45;", ""}, {315, "@!done bra TC_WAIT_0;", ""}},
		want:  map[HazardKind][]int{HzAsyncEarlyRead: {359, 380, 407, 425, 452, 470, 497, 515}}},
	{name: "gemm_copy_overlap", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the prologue's B copy targets A's buffer: two copies in flight write the same shared bytes",
		edits: []edit{{132, "add.s32 \t%r32, %r28, 32768;", "\tadd.s32 \t%r32, %r28, 0;"}},
		want:  map[HazardKind][]int{HzAsyncOverlap: {135}}},
	{name: "gemm_init_count_zero", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "mbarrier.init with an arrival count of 0",
		edits: []edit{{63, "mov.u32 \t%r22, 1;", "\tmov.u32 \t%r22, 0;"}},
		want:  map[HazardKind][]int{HzMbarCount: {65, 69}}},
	{name: "gemm_tx_range", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the prologue's expect_tx arms 2^20 bytes: the tx-count leaves its range (and the phase never completes)",
		edits: []edit{{110, "mov.u32 \t%r27, 32768;", "\tmov.u32 \t%r27, 1048576;"}},
		want:  map[HazardKind][]int{HzMbarTx: {113}}, hangs: true},
	{name: "gemm_uncommitted", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "wgmma.commit_group removed: wgmma.wait_group waits for no group, the wgmmas stay in flight while the stage is refilled and the accumulators are read",
		edits: []edit{{522, "wgmma.commit_group.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzWgmmaCommit: {527}}},
	{name: "gemm_wait_uninit", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the consumers wait on the mbarrier 16 bytes past the stage's: nothing initialized it",
		edits: []edit{{314, "mbarrier.try_wait.parity.shared::cta.b64 done, [%r11], %r45;", "mbarrier.try_wait.parity.shared::cta.b64 done, [%r11+16], %r45;"}},
		want:  map[HazardKind][]int{HzMbarUninit: {314}}, hangs: true},
	{name: "gemm_mbar_overwrite", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "thread 0 stores a word over the first mbarrier right after initializing it",
		edits: []edit{{76, "", "\tst.shared.u32 \t[%r19], %r22;"}},
		want:  map[HazardKind][]int{HzMbarGenericWrite: {76}}},
	{name: "gemm_reinit_live", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the prologue re-initializes the full mbarrier after its expect_tx: the armed bytes are lost and the phase never completes",
		edits: []edit{{116, "shl.b32 \t%r41, %r129, 14;", "\tmbarrier.init.shared::cta.b64 [%r26], %r22; shl.b32 \t%r41, %r129, 14;"}},
		want:  map[HazardKind][]int{HzMbarReinit: {116}}, hangs: true},
	{name: "gemm_acc_write", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "an accumulator register is zeroed between wgmma.commit_group and wgmma.wait_group",
		edits: []edit{{524, ".loc\t1 76 5", "\tmov.f32 \t%f2048, 0f00000000;"}},
		want:  map[HazardKind][]int{HzWgmmaAccWrite: {524}}},
	{name: "gemm_setmaxnreg", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "setmaxnreg.dec to 200 registers, then setmaxnreg.dec to 232: .dec raises the count",
		edits: []edit{{80, ".loc\t1 49 5", "\tsetmaxnreg.dec.sync.aligned.u32 200; setmaxnreg.dec.sync.aligned.u32 232;"}},
		want:  map[HazardKind][]int{HzSetmaxnreg: {80}}},
	{name: "gemm_not_tmap", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "prefetch.tensormap of the tensor map's address plus 64: not a tensor map",
		edits: []edit{{92, "", "\tprefetch.tensormap \t[%rd9+64];"}},
		want:  map[HazardKind][]int{HzTensorMap: {92}}},
	{name: "gemm_wg_divergence", base: gemmBase, launch: "gemm_tma_wgmma",
		bug:   "the first wgmma's A descriptor depends on the warp: the warps of the warpgroup issue it with different operands",
		edits: []edit{{343, "or.b64  \t%rd14, %rd33, 4611686293305360384;", "\tor.b64  \t%rd14, %rd33, 4611686293305360384; cvt.u64.u32 \t%rd33, %r4; shr.u64 \t%rd33, %rd33, 5; add.s64 \t%rd14, %rd14, %rd33;"}},
		want:  map[HazardKind][]int{HzWgmmaAligned: {359}}},
	{name: "gemm_swizzle_base", base: gemmBase, launch: "gemm_tma_wgmma",
		bug: "the shared-memory base is 1024-byte aligned plus 128: the 128B-swizzled TMA destinations start mid-pattern",
		edits: []edit{{58, "and.b64  \t%rd8, %rd7, -1024;", "\tand.b64  \t%rd8, %rd7, -1024; add.s64 \t%rd8, %rd8, 128;"},
			{104, "and.b64  \t%rd13, %rd12, -1024;", "\tand.b64  \t%rd13, %rd12, -1024; add.s64 \t%rd13, %rd13, 128;"},
			{303, "and.b64  \t%rd32, %rd31, -1024;", "\tand.b64  \t%rd32, %rd31, -1024; add.s64 \t%rd32, %rd32, 128;"}},
		want: map[HazardKind][]int{HzTmaSwizzleAlign: {126, 135, 812, 817}}},
	{name: "attention_a_write", base: attnBase, launch: "attention_step_exact",
		bug:   "an A register of the register-A wgmma is overwritten before wgmma.wait_group",
		edits: []edit{{1796, ".loc\t1 130 3", "\tmov.u32 \t%r174, 0;"}},
		want:  map[HazardKind][]int{HzWgmmaAWrite: {1796}}},
	{name: "attention_a_read", base: attnBase, launch: "attention_step_exact",
		bug:   "an A register of the register-A wgmma is read before wgmma.wait_group",
		edits: []edit{{1796, ".loc\t1 130 3", "\tmov.u32 \t%r383, %r174;"}},
		want:  map[HazardKind][]int{HzWgmmaAReadFlight: {1796}}},
	{name: "attention_acc_write", base: attnBase, launch: "attention_step_exact",
		bug:   "an accumulator register of P·V is zeroed before wgmma.wait_group",
		edits: []edit{{1796, ".loc\t1 130 3", "\tmov.f32 \t%f418, 0f00000000;"}},
		want:  map[HazardKind][]int{HzWgmmaAccWrite: {1796}}},
	{name: "attention_exit_inflight", base: attnBase, launch: "attention_step_exact",
		bug:   "the kernel returns right after committing P·V, with the wgmmas in flight",
		edits: []edit{{1796, ".loc\t1 130 3", "\tret;"}},
		want:  map[HazardKind][]int{HzWgmmaExit: {1748, 1761, 1774, 1787}}},
	{name: "epilogue_source_overwrite", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "thread 0 writes the staging tile between the TMA store's commit and its wait_group.read",
		edits: []edit{{749, ".loc\t1 71 5", "\tst.shared.u32 \t[%r280], %r269;"}},
		want:  map[HazardKind][]int{HzAsyncSourceReuse: {749}}},
	{name: "epilogue_divergent_stmatrix", base: "epilogue_stmatrix.sm_90a.ptx", launch: "epilogue_stmatrix",
		bug:   "only lanes 0-15 execute the first stmatrix.sync.aligned",
		edits: []edit{{651, "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r237], {%r233, %r234, %r235, %r236};", "\tsetp.lt.u32 \t%p9, %r270, 16; @%p9 stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r237], {%r233, %r234, %r235, %r236};"}},
		want:  map[HazardKind][]int{HzWarpAligned: {651}}, faults: true},
	{name: "warp_transpose_divergent_syncwarp", base: handoffBase, launch: "warp_transpose",
		bug:   "only lanes 0-15 execute bar.warp.sync -1",
		edits: []edit{{319, "bar.warp.sync \t-1;", "\tsetp.lt.u32 \t%p2, %r2, 16; @%p2 bar.warp.sync \t-1;"}},
		want:  map[HazardKind][]int{HzWarpSyncDiverged: {319}}},
	{name: "warp_transpose_shfl_mask", base: handoffBase, launch: "warp_transpose",
		bug:   "lanes 0-15 execute a shfl.sync whose membermask names all 32 lanes",
		edits: []edit{{316, "cvta.to.global.u64 \t%rd16, %rd8;", "\tsetp.lt.u32 \t%p2, %r2, 16; @%p2 shfl.sync.idx.b32 \t%r29, %r2, 0, 31, -1; cvta.to.global.u64 \t%rd16, %rd8;"}},
		want:  map[HazardKind][]int{HzWarpSync: {316}}},
	{name: "warp_transpose_count_mix", base: handoffBase, launch: "warp_transpose",
		bug:   "warps 0-1 arrive at barrier 1 with no thread count, warps 2-3 with 128: one phase, two counts",
		edits: []edit{{316, "cvta.to.global.u64 \t%rd16, %rd8;", "\tsetp.lt.u32 \t%p2, %r1, 2; @%p2 bar.sync \t1; @!%p2 bar.sync \t1, 128; cvta.to.global.u64 \t%rd16, %rd8;"}},
		want:  map[HazardKind][]int{HzBarrierCount: {316}}},
	{name: "warp_transpose_cross_barriers", base: handoffBase, launch: "warp_transpose",
		bug:   "warps 0-1 wait at barrier 1 and warps 2-3 at barrier 2, each for all 128 threads",
		edits: []edit{{316, "cvta.to.global.u64 \t%rd16, %rd8;", "\tsetp.lt.u32 \t%p2, %r1, 2; @%p2 bar.sync \t1; @!%p2 bar.sync \t2; cvta.to.global.u64 \t%rd16, %rd8;"}},
		want:  map[HazardKind][]int{HzDeadlock: {316}}, hangs: true},
	{name: "warp_transpose_shared_block", base: handoffBase, launch: "warp_transpose",
		bug:   "every warp transposes through the same 32x33 block (the warp's offset multiplier is 0): the warps' stores and loads race",
		edits: []edit{{294, "mad.lo.s32 \t%r19, %r1, 4224, %r18;", "\tmad.lo.s32 \t%r19, %r1, 0, %r18;"}},
		want:  map[HazardKind][]int{HzRace: {302, 304, 306, 308, 330, 332, 334, 336}}},
	{name: "stage_misaligned_copy", base: handoffBase, launch: "stage_ldshared",
		bug:   "the prologue's TMA destination is 16 bytes past the stage: not 128-byte aligned",
		edits: []edit{{101, "add.s32 \t%r25, %r33, %r32;", "\tadd.s32 \t%r25, %r33, %r32; add.s32 \t%r25, %r25, 16;"}},
		want:  map[HazardKind][]int{HzAsyncAlign: {106}}},
	{name: "tcgen05_dealloc_no_fence", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "tcgen05.fence::after_thread_sync removed before tcgen05.dealloc: the warps asked for it with fence::before_thread_sync before the barrier",
		edits: []edit{{645, "tcgen05.fence::after_thread_sync;", ""}},
		want:  map[HazardKind][]int{HzTcgenFence: {650}}},
	{name: "tcgen05_collector_use", base: "tcgen05_gemm.sm_100a.ptx", launch: "tcgen05_gemm",
		bug:   "the first tcgen05.mma uses the collector buffer (.collector::a::use) that no ::fill loaded",
		edits: []edit{{251, "tcgen05.mma.cta_group::1.kind::f16 [%r5], %rd4, %rd5, %r118, p;", "tcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r5], %rd4, %rd5, %r118, p;"}},
		want:  map[HazardKind][]int{HzTcgenCollector: {251}}},
	{name: "pair_cluster_wait_first", base: pairBase, launch: pairLaunch,
		bug:   "a barrier.cluster.wait before the barrier.cluster.arrive it should follow",
		edits: []edit{{202, "// both CTAs are done with the pair's TMEM and with each other's mbarriers", "\tbarrier.cluster.wait.acquire.aligned;"}},
		want:  map[HazardKind][]int{HzClusterBarrier: {202}}},
	{name: "pair_no_cluster", base: pairBase, launch: "../broken/pair_gemm_nocluster",
		bug:  "the CTA-pair kernel (tcgen05 .cta_group::2) is launched without clusters: a CTA has no peer (the launch is the bug: fixtures/sim/broken/pair_gemm_nocluster.json)",
		want: map[HazardKind][]int{HzCtaGroup: {56}}, faults: true},

	// The hand-written CTA-pair kernel (fixtures/sim/blackwell).
	{name: "pair_missing_wait_ld", base: pairBase, launch: pairLaunch,
		bug:   "tcgen05.wait::ld removed: each warp releases the pair's accumulator to the even CTA before its tcgen05.ld has completed",
		edits: []edit{{174, "tcgen05.wait::ld.sync.aligned;", ""}},
		want:  map[HazardKind][]int{HzTcgenWaitLd: {178}}},
	{name: "pair_commit_mask", base: pairBase, launch: pairLaunch,
		bug:   "the pair's tcgen05.commit multicasts to CTA 0 only (ctaMask 1): the odd CTA never learns that its half of the accumulator is ready",
		edits: []edit{{162, "mov.u16 \t%h1, 3;", "\tmov.u16 \t%h1, 1;"}},
		want:  map[HazardKind][]int{HzMulticastMask: {163}}, hangs: true}, // the odd CTA's hang (too few arrivals on its barrier) is a consequence
	// The line to fix is the init count: one round of the pair's 8
	// arrivals completes two phases (the lapped wait at 143, the early MMA
	// at 160 that races with the slow warps, the deadlock are its
	// consequences).
	{name: "pair_release_count", base: pairBase, launch: pairLaunch,
		bug:   "the empty mbarrier expects 4 arrivals instead of 8 (one CTA's warps): the pair's 8 arrivals complete two phases, the even CTA's wait on parity 0 for the next tile laps them and waits for a phase that never completes",
		edits: []edit{{64, "mbarrier.init.shared::cta.b64 \t[%r7], 8;", "\tmbarrier.init.shared::cta.b64 \t[%r7], 4;"}},
		want:  map[HazardKind][]int{HzMbarUnderflow: {64}}, hangs: true},
	{name: "pair_no_release_wait", base: pairBase, launch: pairLaunch,
		bug:   "the even CTA does not wait for the accumulator's release before the next tile's MMA: it overwrites TMEM that the pair's warps are still reading",
		edits: []edit{{143, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r7], 0;", "\tsetp.eq.u32 \t%p6, %r50, %r50;"}},
		want:  map[HazardKind][]int{HzTmemRace: {160, 161}, HzMbarLapped: {168}}, anyEnd: true},
	{name: "pair_lane_quarter", base: pairBase, launch: pairLaunch,
		bug:   "the epilogue's TMEM lane base is 16·warp instead of 32·warp: warps read lanes outside their quarter",
		edits: []edit{{131, "shl.b32 \t%r47, %r2, 21;", "\tshl.b32 \t%r47, %r2, 20;"}},
		// the instruction that computes the TMEM address's lane field
		want: map[HazardKind][]int{HzTmemLane: {131}}},
	{name: "pair_missing_dealloc", base: pairBase, launch: pairLaunch,
		bug:   "tcgen05.dealloc.cta_group::2 removed: both CTAs exit with the pair's TMEM allocated",
		edits: []edit{{207, "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r40, 64;", ""}},
		want:  map[HazardKind][]int{HzTmemAlloc: {56}}},
	{name: "pair_alloc_after_relinquish", base: pairBase, launch: pairLaunch,
		bug: "tcgen05.relinquish_alloc_permit comes before tcgen05.alloc: the CTA gave up its right to allocate",
		edits: []edit{{56, "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r6], 64;", "\ttcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;"},
			{57, "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r6], 64;"}},
		want: map[HazardKind][]int{HzTmemAlloc: {57}}},
	{name: "pair_peer_no_alloc", base: pairBase, launch: pairLaunch,
		bug:   "only the even CTA's warp 0 executes tcgen05.alloc.cta_group::2: the odd CTA never takes part in the collective allocation",
		edits: []edit{{53, "setp.ne.u32 \t%p1, %r2, 0;", "\tor.b32 \t%r6, %r2, %r4; setp.ne.u32 \t%p1, %r6, 0;"}},
		want:  map[HazardKind][]int{HzTmemAlloc: {56}}},

	// The hand-written block-scaled kernel (fixtures/sim/blackwell).
	{name: "mxf8_sf_address", base: mxf8Base, launch: mxf8Launch,
		bug:   "the MMA reads SFB four columns past where tcgen05.cp put it",
		edits: []edit{{119, "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r40], %rd14, %rd15, %r43, [%r41], [%r42], %p5;", "\ttcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r40], %rd14, %rd15, %r43, [%r41], [%r42+4], %p5;"}},
		want:  map[HazardKind][]int{HzTcgenScale: {119}}},
	{name: "mxf8_scale_type", base: mxf8Base, launch: mxf8Launch,
		bug:   "the instruction descriptor says UE4M3 scale factors (bit 23 clear): kind::mxf8f6f4 takes UE8M0 only",
		edits: []edit{{117, "mov.u32 \t%r43, 0x8900000;", "\tmov.u32 \t%r43, 0x8100000;"}},
		want:  map[HazardKind][]int{HzWgmmaDesc: {119}}, faults: true},
	{name: "mxf8_refill_inflight", base: mxf8Base, launch: mxf8Launch,
		bug:   "warp 1 refills the scale factors' TMEM without waiting for the MMA's commit: the in-flight MMA may read the new scale factors",
		edits: []edit{{123, "mbarrier.try_wait.parity.shared::cta.b64 \t%p6, [%r5], 0;", "\tsetp.eq.u32 \t%p6, %r1, %r1;"}},
		// the refill that is not ordered after the MMA's commit, and the
		// loads that read D before it, whatever the schedule ran first
		want: map[HazardKind][]int{HzTmemRace: {129}, HzTcgenInFlight: {138, 139, 140, 141}}},
}

const (
	gemmBase    = "gemm_tma_wgmma.sm_90a.ptx"
	attnBase    = "attention_step_exact.sm_90a.ptx"
	handoffBase = "smem_handoff.sm_90a.ptx"
	pairBase    = "../sim/blackwell/pair_gemm.sm_100a.ptx"
	pairLaunch  = "../blackwell/pair_gemm"
	mxf8Base    = "../sim/blackwell/mxf8_gemm.sm_100a.ptx"
	mxf8Launch  = "../blackwell/mxf8_gemm"
)

// swizzleLines are the descriptor constants of gemm_tma_wgmma's eight
// wgmmas (A and B of each k step; the lines to fix).
var swizzleLines = []int{343, 352, 373, 392, 401, 419, 437, 446, 464, 482, 491, 509}

func swizzleEdits() []edit {
	var es []edit
	for _, l := range swizzleLines {
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

// plantFile is bc's planted file and its text: made from the base PTX,
// written with -update, and otherwise required to be what the generator
// makes (test names the test that refreshes it).
func plantFile(t *testing.T, bc brokenCase, test string) (string, []byte) {
	t.Helper()
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
		t.Fatalf("%v (run go test ./sim -run %s -update)", err, test)
	}
	if string(src) != string(want) {
		t.Fatalf("%s differs from what the generator makes; run go test ./sim -run %s -update", path, test)
	}
	return path, src
}

func TestBrokenVariants(t *testing.T) {
	for _, bc := range brokenCases {
		t.Run(bc.name, func(t *testing.T) {
			path, src := plantFile(t, bc, "TestBrokenVariants")
			for _, o := range brokenSchedules() {
				if testing.Short() && o.Schedule != Lazy {
					continue
				}
				t.Run(schedName(o), func(t *testing.T) {
					m := runBroken(t, bc, path, src, o)
					checkFindings(t, m.Findings(), bc.want, true)
				})
			}
		})
	}
}

func runBroken(t *testing.T, bc brokenCase, path string, src []byte, o Options) *Machine {
	t.Helper()
	l, err := launch.ReadLaunch(filepath.Join("../fixtures/sim/launch", bc.launch+".json"))
	if err != nil {
		t.Fatal(err)
	}
	o.Check = true
	m, err := Prepare(path, src, l, o)
	if err != nil {
		t.Fatal(err)
	}
	err = m.Run()
	var dl *DeadlockError
	switch {
	case (bc.anyEnd || bc.hangs && o.Schedule != Lazy) && (err == nil || errors.As(err, &dl)):
	case bc.hangs && o.Schedule == Lazy && !errors.As(err, &dl):
		t.Errorf("want a deadlock, got %v", err)
	case bc.faults && err == nil:
		t.Errorf("want a fault, the run ended normally")
	case !bc.hangs && !bc.faults && err != nil:
		t.Errorf("run: %v", err)
	}
	return m
}

// checkFindings compares the rules reported (errors and warnings) and the
// cause lines of their sites with want (a line 0 accepts any line). With
// exact, no other rule may be reported.
func checkFindings(t *testing.T, fs []Finding, want map[HazardKind][]int, exact bool) {
	t.Helper()
	seen := map[HazardKind][]int{}
	for _, f := range fs {
		if f.Severity > SevWarning && want[f.Rule] == nil {
			continue // portability notes count where they are planted
		}
		for _, s := range f.Sites {
			c := s.Cause
			if !c.IsValid() {
				c = s.Pos
			}
			if !slices.Contains(seen[f.Rule], int(c.Line)) {
				seen[f.Rule] = append(seen[f.Rule], int(c.Line))
			}
		}
	}
	for k, lines := range seen {
		sort.Ints(lines)
		wl, ok := want[k]
		if !ok {
			if exact {
				for _, f := range fs {
					if f.Rule == k {
						t.Errorf("unexpected finding: %s at %s (cause %s): %s", f.Rule, f.Pos, f.Cause, f.Msg)
					}
				}
			}
			continue
		}
		if len(wl) == 1 && wl[0] == 0 {
			continue
		}
		for _, l := range wl {
			if !slices.Contains(lines, l) {
				t.Errorf("%s reported at cause lines %v, want %v", k, lines, wl)
				break
			}
		}
		if exact && fmt.Sprint(lines) != fmt.Sprint(wl) {
			t.Errorf("%s reported at cause lines %v, want exactly %v", k, lines, wl)
		}
	}
	for k := range want {
		if _, ok := seen[k]; !ok {
			t.Errorf("planted rule %s not reported", k)
		}
	}
}

// TestBrokenControls: every planted variant's correct control (its base
// kernel under its launch) is in the hazard corpus, which must stay silent.
func TestBrokenControls(t *testing.T) {
	corpus := map[string]bool{}
	for _, hc := range hazardCorpus(t) {
		corpus[hc.name] = true
	}
	for _, bc := range brokenCases {
		name := filepath.Base(bc.launch)
		if bc.launch == "../broken/pair_gemm_nocluster" {
			name = "pair_gemm" // the kernel is pair_gemm's; its launch is the bug
		}
		if !corpus[name] {
			t.Errorf("%s: its control %s is not in the hazard corpus (TestHazardCorpus)", bc.name, name)
		}
	}
}
