package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Rules: every finding of the hazard checker names one rule. A rule has a
// stable identity ("family/name"), a severity, the section of the PTX ISA
// (9.1 numbering) it rests on, and documentation that says what is wrong,
// why, and how to fix it. `tcsim run --rules` prints the table; the README
// lists it; SARIF output carries it.
//
// How to add a rule:
//
//  1. Declare its identity beside the others below (a HazardKind constant,
//     Hz..., whose value is "family/name"; families: wgmma, desc, proxy,
//     async, tma, mbarrier, smem, sync, warp, cluster, setmaxnreg, tcgen05,
//     perf).
//  2. Add its Rule to ruleTable: severity, ISA section, a one-line summary,
//     a Doc (the rule, the evidence for its severity, the fix).
//  3. Report it with Machine.hazard(Hazard{Kind: HzYourRule, PC: ..., ...}).
//     The severity comes from the table. Fill Cause (the instruction to
//     change) when it differs from where the problem shows (PC), Related
//     (the other party), Off/Bytes (shared bytes involved), and Group when
//     findings at different instructions share one root cause.
//     A finding that desynchronizes the pipeline (what follows it depends
//     on the schedule) is a root cause: report it with Machine.rootHazard,
//     raceState.root or Machine.warpRoot (findings_roots.go), and its
//     consequences are folded into it.
//  4. Plant it: a variant in fixtures/sim/broken (sim/broken_test.go) that
//     reports the rule, and only it, at its cause line under every schedule,
//     next to a correct control in the hazard corpus that stays silent; or
//     say in unplantedRules (sim/rules_planted_test.go) why it has none.
//
// TestRulesDocumented fails when a declared rule has no table entry,
// TestRulesPlanted when it has neither a plant nor a reason.

// The rules' identities. The values are stable: tests, tools, --allow and
// SARIF match on them.
const (
	// wgmma register protocol
	HzWgmmaAccRead     HazardKind = "wgmma/acc-read-before-wait"
	HzWgmmaAccWrite    HazardKind = "wgmma/acc-write-before-wait"
	HzWgmmaAWrite      HazardKind = "wgmma/a-write-before-wait"
	HzWgmmaAReadFlight HazardKind = "wgmma/a-read-before-wait"
	HzWgmmaNoFence     HazardKind = "wgmma/missing-fence"
	HzWgmmaAligned     HazardKind = "wgmma/warpgroup-divergence"
	HzWgmmaExit        HazardKind = "wgmma/exit-in-flight"
	HzWgmmaCommit      HazardKind = "wgmma/uncommitted"
	// matrix descriptors (wgmma and tcgen05)
	HzWgmmaDesc  HazardKind = "desc/invalid"
	HzDescLayout HazardKind = "desc/layout-mismatch"
	// proxies
	HzProxyFence   HazardKind = "proxy/generic-to-async"
	HzProxyCpAsync HazardKind = "proxy/cp-async-to-wgmma"
	// asynchronous copies
	HzAsyncEarlyRead   HazardKind = "async/read-before-complete"
	HzAsyncSourceReuse HazardKind = "async/source-overwritten"
	HzAsyncRefill      HazardKind = "async/refill-before-release"
	HzAsyncAlign       HazardKind = "async/alignment"
	HzTmaSwizzleAlign  HazardKind = "tma/swizzle-alignment"
	HzTensorMap        HazardKind = "tma/not-a-tensormap"
	HzAsyncOverlap     HazardKind = "async/overlapping-writes"
	HzAsyncExit        HazardKind = "async/exit-in-flight"
	// mbarrier
	HzMbarUninit       HazardKind = "mbarrier/uninitialized"
	HzMbarInitFence    HazardKind = "mbarrier/init-not-fenced"
	HzMbarInitOrder    HazardKind = "mbarrier/init-unordered"
	HzMbarReinit       HazardKind = "mbarrier/reinit-live"
	HzMbarCount        HazardKind = "mbarrier/count-range"
	HzMbarUnderflow    HazardKind = "mbarrier/too-many-arrivals"
	HzMbarArrivals     HazardKind = "mbarrier/too-few-arrivals"
	HzMbarTx           HazardKind = "mbarrier/tx-range"
	HzMbarTxMismatch   HazardKind = "mbarrier/tx-mismatch"
	HzMbarPhase        HazardKind = "mbarrier/wrong-parity"
	HzMbarLapped       HazardKind = "mbarrier/phase-lapped"
	HzMbarGenericWrite HazardKind = "mbarrier/overwritten"
	// shared memory and synchronization
	HzRace             HazardKind = "smem/race"
	HzWarpExchange     HazardKind = "smem/warp-exchange-without-sync"
	HzDeadlock         HazardKind = "sync/deadlock"
	HzBarrierCount     HazardKind = "sync/barrier-count"
	HzWarpSync         HazardKind = "warp/membermask"
	HzWarpSyncDiverged HazardKind = "warp/syncwarp-divergent"
	HzWarpAligned      HazardKind = "warp/aligned-divergent"
	HzClusterBarrier   HazardKind = "cluster/barrier"
	HzSetmaxnreg       HazardKind = "setmaxnreg/count"
	// tcgen05 and Tensor Memory
	HzTmemAlloc      HazardKind = "tcgen05/alloc"
	HzTmemPermit     HazardKind = "tcgen05/alloc-permit"
	HzTmemLane       HazardKind = "tcgen05/lane-quarter"
	HzTcgenWaitLd    HazardKind = "tcgen05/ld-before-wait"
	HzTcgenWaitSt    HazardKind = "tcgen05/st-before-wait"
	HzTcgenFence     HazardKind = "tcgen05/missing-fence"
	HzCtaGroup       HazardKind = "tcgen05/cta-group-mixed"
	HzTcgenInFlight  HazardKind = "tcgen05/read-in-flight"
	HzTmemUninit     HazardKind = "tcgen05/uninitialized-accumulate"
	HzTcgenLdRead    HazardKind = "tcgen05/ld-read-before-wait"
	HzTcgenFenceNote HazardKind = "tcgen05/sync-without-fence"
	HzTmemRace       HazardKind = "tcgen05/tmem-race"
	HzTcgenScale     HazardKind = "tcgen05/scale-factors"
	HzTcgenCollector HazardKind = "tcgen05/collector"
	HzMulticastMask  HazardKind = "cluster/multicast-mask"
	// performance
	HzBankConflict HazardKind = "perf/bank-conflict"
)

// Rule documents one hazard rule.
type Rule struct {
	ID       HazardKind
	Severity Severity
	// ISA is the section of the PTX ISA (9.1) the rule rests on.
	ISA string
	// Summary is one line: what the rule reports.
	Summary string
	// Doc explains the rule: why it matters, the evidence for its
	// severity (for portability notes: which compiler emits the pattern
	// and what the H100 did with it), and the fix.
	Doc string
}

// NotHardwareVerified reports whether the evidence for the rule's severity
// includes no hardware measurement (sm_100a: tcsim has no B200). Reports
// say so next to every finding of the rule.
func (r Rule) NotHardwareVerified() bool { return notHardwareVerified[r.ID] }

const (
	isaWgmmaFence  = "9.7.15.7.1 (wgmma.fence)"
	isaWgmmaWait   = "9.7.15.7.3 (wgmma.wait_group)"
	isaWgmmaProxy  = "9.7.15.4 (async proxy), 9.7.15.7.1 (wgmma.fence)"
	isaWgmmaDesc   = "9.7.15.5.1 (matrix descriptor)"
	isaProxy       = "8.6 (proxies), 9.7.13.4 (membar/fence: fence.proxy.async)"
	isaBulk        = "9.7.9.25 (cp.async.bulk, cp.async.bulk.tensor)"
	isaCpAsync     = "9.7.9.24 (cp.async, cp.async.wait_group, cp.async.mbarrier.arrive)"
	isaMbar        = "9.7.13.15 (mbarrier)"
	isaMemModel    = "8 (memory consistency model), 9.7.13.1 (bar.sync)"
	isaWarpSync    = "9.7.13.2 (bar.warp.sync), 8 (memory consistency model)"
	isaTcgen05     = "9.7.16 (tcgen05)"
	isaTcgen05Sync = "9.7.16.6 (tcgen05 memory consistency: fence::before/after_thread_sync)"
)

var ruleTable = []Rule{
	// wgmma
	{HzWgmmaAccRead, SevError, isaWgmmaWait, "an accumulator register of an in-flight wgmma is read",
		"Until a wgmma.wait_group covers a wgmma.mma_async, its accumulator registers belong to the tensor core and their contents are undefined. ptxas usually repairs the PTX by injecting a warpgroup.wait (C7517), so the GPU may compute the right numbers, but another compiler or version may not. Fix: wgmma.commit_group, then wgmma.wait_group N covering the op, before the first use."},
	{HzWgmmaAccWrite, SevError, isaWgmmaWait, "an accumulator register of an in-flight wgmma is written",
		"Writing an accumulator of an in-flight wgmma races with the tensor core's own write: the result is undefined (ptxas serializes the pipeline, C7515). Fix: wait for the group before reusing the registers."},
	{HzWgmmaAWrite, SevError, isaWgmmaWait, "a register-A fragment of an in-flight wgmma is written",
		"The A registers of a register-A wgmma are read asynchronously until the op completes; overwriting them is undefined (C7513). Fix: wait_group before writing them, or use other registers."},
	{HzWgmmaAReadFlight, SevError, isaWgmmaWait, "a register-A fragment of an in-flight wgmma is read",
		"Any access to the A registers of an in-flight wgmma is undefined by the ISA. Fix: wait_group first."},
	{HzWgmmaNoFence, SevError, isaWgmmaFence, "registers a wgmma uses were accessed with no wgmma.fence in between",
		"wgmma.fence must come before the warpgroup's first wgmma and between any register access and a wgmma using the same accumulator or A registers. ptxas injects the missing warpgroup.arrive (C7519) in many cases. Fix: wgmma.fence.sync.aligned after the register writes."},
	{HzWgmmaAligned, SevError, "9.7.15.7 (.sync.aligned wgmma instructions)", "the warps of a warpgroup disagree on a .sync.aligned wgmma instruction",
		"Every warp of the warpgroup must execute the same wgmma instructions, with every thread and uniform operands; divergence is undefined (C7516)."},
	{HzWgmmaExit, SevError, isaWgmmaWait, "a warp exits with a wgmma in flight",
		"The accumulators of a wgmma nobody waited for are undefined. Fix: wgmma.wait_group 0 before the end."},
	{HzWgmmaCommit, SevError, "9.7.15.7.2 (wgmma.commit_group)", "wgmma.wait_group while wgmma ops are not committed",
		"wait_group waits only for committed groups; uncommitted wgmmas stay in flight. Fix: wgmma.commit_group after the last wgmma of the stage."},
	{HzWgmmaDesc, SevError, isaWgmmaDesc + ", 9.7.16.4.1 (tcgen05 shared memory descriptor)", "a matrix descriptor is invalid or reads outside shared memory",
		"A descriptor field is out of range, or the matrix it describes runs past the CTA's shared memory (the H100 faults with an illegal memory access)."},
	{HzDescLayout, SevError, isaWgmmaDesc, "a descriptor reads a tile in a different layout than the one written into shared memory",
		"The descriptor's swizzle, leading byte offset or stride byte offset disagrees with the layout the tile was written in: by a TMA copy (its tensor map) or by ordinary stores and cp.async (tcsim follows every element back to the global address it was loaded from). A correct descriptor reads each row of the operand from one row of the source tensor; this one mixes rows, so the MMA computes with scrambled operands and gives silently wrong numbers. Fix: make the descriptor's swizzle mode, LBO and SBO match the writer's layout (tcsim desc decodes both)."},
	// proxies
	{HzProxyFence, SevError, isaWgmmaProxy + "; " + isaProxy, "shared memory written in the generic proxy is read by the async proxy without fence.proxy.async",
		"st.shared, stmatrix and other generic-proxy writes become visible to the async proxy (wgmma operands, TMA stores, tcgen05.mma) only after the writing thread executes fence.proxy.async and then synchronizes with the issuing thread. Without the fence the async unit may read stale bytes; TMA stores are known to do so on the H100. Fix: fence.proxy.async.shared::cta after the stores, before the barrier that hands the tile to the issuing thread."},
	{HzProxyCpAsync, SevNote, isaWgmmaProxy + "; " + isaCpAsync, "portability: cp.async writes read by wgmma without fence.proxy.async",
		"The ISA asks for an async-proxy fence between prior writes to shared-memory matrices and their reads by wgmma.mma_async (9.7.15.7.1), and cp.async writes shared memory in the generic proxy. Production compilers do not emit that fence after cp.async: Triton's fence-insertion pass (lib/Dialect/TritonNvidiaGPU/Transforms/FenceInsertion.cpp) inserts fence.proxy.async only when a dot operand comes from a register-to-shared store (local_alloc with a source, local_store) and never looks at copies from global memory; CUTLASS's cp.async + GMMA mainloops (sm90_mma_multistage_gmma_ss/rs_warpspecialized) release the stage with cp.async.mbarrier.arrive and issue warpgroup_arrive and the GMMAs with no proxy fence. The H100 computes those kernels correctly: Triton 3.6's bf16 and fp8 matmuls and attention forward, recorded on the H100 (fixtures/captures), replay bit-exactly. Measured at scale on an H200 (the H100's GH100 chip, sm_90; fixtures/proxyfence, driver 580.159.04, CUDA 13.0): 200 launches of 16,384 one-warpgroup CTAs, each running 32 tiles through one 4 KiB stage (cp.async.cg, cp.async.wait_group, bar.sync, 8 wgmma m64n64k16 a tile, every accumulator checked), got all 104,857,600 tiles right with no fence, as with it; the control that overwrites A before waiting for the wgmmas got 93,629,022 tiles wrong, and the same loop with the operands written by ld.global + st.shared and no fence 9,432,752 (so register-to-shared stores do need the fence on this hardware, proxy/generic-to-async, while cp.async writes were never read stale). So the pattern is reported as a portability note, once per kernel, not as an error: it relies on Hopper's implementation rather than on the ISA. --strict makes it a warning; --allow proxy/cp-async-to-wgmma silences it. Fix for strict ISA conformance: fence.proxy.async.shared::cta after cp.async.wait_group (or after the mbarrier wait) and before the wgmma."},
	// async copies
	{HzAsyncEarlyRead, SevError, isaBulk + "; " + isaCpAsync + "; " + isaMbar, "the destination of an asynchronous copy is read before its completion was observed",
		"A TMA, bulk or cp.async copy's destination is undefined until the reader is ordered after the copy's completion: an mbarrier wait on the phase the copy completes (then a barrier for other threads), or cp.async.wait_group by the issuing thread. tcsim decides this from the order the kernel establishes, not from when the simulated copy landed, so the finding does not depend on --schedule. Fix: wait on the right mbarrier phase (or group) before reading."},
	{HzAsyncSourceReuse, SevError, isaBulk + "; " + isaWgmmaWait, "shared memory an asynchronous operation still reads is overwritten",
		"The source of a TMA store or bulk copy, and the shared-memory operands of wgmma and tcgen05.mma, are read asynchronously until the operation is known to be done (cp.async.bulk.wait_group.read, wgmma.wait_group, the tcgen05.commit's mbarrier phase). Overwriting them earlier is a race with the tensor core or the copy engine. Fix: wait (and release the buffer through a barrier) before writing."},
	{HzAsyncRefill, SevError, isaBulk + "; " + isaMbar + "; " + isaMemModel, "a buffer is refilled by an asynchronous copy before its readers released it",
		"A TMA, bulk or cp.async copy overwrites shared bytes that earlier readers (ld.shared, ldmatrix, wgmma or tcgen05.mma operands) are not ordered before: nothing (barrier, mbarrier arrive on an 'empty' barrier, tcgen05.commit) releases the stage to the producer before it refills it. The copy can land while the reader still reads. The finding names the refill (the line to fix) and the read it races with. Fix: have the readers release the stage (bar.sync, or mbarrier.arrive / tcgen05.commit on an 'empty' barrier the producer waits on) before the refill is issued."},
	{HzAsyncAlign, SevError, isaBulk + "; " + isaCpAsync, "an asynchronous copy breaks an alignment or size rule",
		"cp.async.bulk needs 16-byte aligned addresses and sizes; TMA shared-memory destinations need 128-byte alignment; cp.async needs addresses aligned to its size."},
	{HzTmaSwizzleAlign, SevNote, "5.5.7 (swizzling modes), " + isaBulk, "portability: a swizzled tile starts off the swizzle's repeat",
		"The swizzled TMA copies that complete on one mbarrier phase bring in a tile whose start is not aligned to the pattern's repeat (a copy off the repeat whose bytes from the repeat boundary no copy of the phase writes: multicast slices of an aligned tile are not reported), so its first row is not row 0 of the pattern. Measured on the H100: TMA swizzles by absolute shared address, and a wgmma descriptor with base offset 0 reads the pattern TMA wrote at any start (fixtures/desc, fixtures/sim/probes); CUTLASS 3.x places its sm90 tiles at 128-byte alignment (example 48 on the H200: tiles at 0x180, output bit-identical). A reader that computes the swizzle from offsets relative to the tile's start instead of from addresses reads wrong elements: align the tile to the repeat, or swizzle by address."},
	{HzTensorMap, SevWarning, "5.5.8 (tensor maps), 9.7.9.25, 9.7.9.27 (prefetch.tensormap)", "a TMA instruction or prefetch.tensormap names bytes that are not a tensor map the driver encoded",
		"The 128 bytes a tensor-map address points to must be a CUtensorMap written by cuTensorMapEncode* (passed as a __grid_constant__ parameter or copied to global memory with a proxy fence). Other bytes make the copy engine read garbage or fault."},
	{HzAsyncOverlap, SevError, isaBulk, "two asynchronous copies write the same shared bytes without ordering",
		"Two copies in flight at once write the same bytes: which lands last is undefined."},
	{HzAsyncExit, SevNote, isaBulk, "portability: a CTA exits while bulk copies still read its shared memory",
		"The ISA lets a bulk copy's source be reused only after cp.async.bulk.wait_group.read and does not say whether a CTA may exit before then; the CUDA guide's TMA examples wait. Production code does not always: CUTLASS's sm100 epilogue skips the last wait_group.read when beta = 0. Measured on the H100 (fixtures/asyncexit, driver 580.159.04, CUDA 13.0): 1,000 launches of 16,384 CTAs (13 resident per SM, 16 KiB of shared memory each, so every SM reuses a CTA's shared memory for the next CTAs within microseconds) that fill a tile with a pattern unique to the launch, CTA and word, issue four TMA stores of it and exit with no wait: all 65,536,000 stores wrote exactly their CTA's pattern (0 wrong words of 67 G). The control, which overwrites the tile right after issuing the same stores, corrupted 16,243,633 of its 16,384,000 CTAs, in every launch: the probe sees a store that reads shared memory after it changed. So the H100 keeps a CTA's shared memory until its bulk stores have read it, and the pattern is a portability note, not an error. --strict makes it a warning. Fix for strict conformance: cp.async.bulk.wait_group.read 0 before the thread exits."},
	// mbarrier
	{HzMbarUninit, SevError, isaMbar, "an mbarrier is used before mbarrier.init (or after inval)",
		"Operations on an uninitialized mbarrier object are undefined."},
	{HzMbarInitFence, SevNote, isaMbar + "; 9.7.13.4 (fence.mbarrier_init, fence.proxy.async)", "portability: an asynchronous copy completes on an mbarrier whose initialization no proxy fence made visible to the async proxy",
		"mbarrier.init is a generic-proxy write; the complete_tx of a TMA or bulk copy is performed by the async proxy, and the ISA asks for the initialization to be made visible to it: fence.mbarrier_init.release.cluster (or fence.proxy.async) by the initializing thread, then a barrier that orders it before the thread issuing the copy. CUTLASS (fence_barrier_init) and nvcc-compiled kernels that follow the CUDA guide do so. Triton 3.6 does not: its TMA kernels (the persistent matmul of fixtures/captures/testdata/triton_tma_persistent) initialize each mbarrier and issue the first copy with only bar.sync between, and the H100 computes them correctly (recorded on the H100, replayed bit-identically). Measured at scale on an H200 (the H100's GH100 chip, sm_90; fixtures/proxyfence, driver 580.159.04, CUDA 13.0): 2,000 launches of 16,384 CTAs, each putting its mbarrier over bytes another CTA's TMA copies had written, initializing it and issuing four TMA copies with only bar.sync between (from thread 0, and from warp 1): all 131,072,000 copies of each completed their phase with every word right (0 timeouts, 0 wrong words), as with the fence; the controls failed (expect_tx 4 KiB short: 187,881 of 327,680 CTAs; 4 KiB long, and copies completing before the init: every one of 327,680 CTAs timed out), so the probe sees a lost or misapplied complete_tx. So the pattern is a portability note; --strict makes it a warning. Fix for strict conformance: fence.mbarrier_init.release.cluster after the inits, before the barrier."},
	{HzMbarInitOrder, SevError, isaMbar + "; " + isaMemModel, "an asynchronous copy completes on an mbarrier whose initialization is not ordered before it",
		"The mbarrier.init of one thread is not ordered (no barrier, no other synchronization) before another thread issues a copy that completes on the barrier, or waits or arrives on it: the use can reach the barrier before it exists, and its phase or tx-count is lost. Reported at the init whichever comes first in the run (a use that finds the barrier not yet initialized, which a later unordered init then initializes, is this finding, not mbarrier/uninitialized), as a root cause: the lost arrivals and the hang are its consequences. Fix: after the inits, fence.mbarrier_init.release.cluster, then bar.sync (barrier.cluster across CTAs), then the first copy."},
	{HzMbarReinit, SevError, isaMbar, "mbarrier.init on a live mbarrier",
		"Re-initializing an mbarrier with a phase in progress loses its pending arrivals and tx-count. Fix: mbarrier.inval first, after every use is done."},
	{HzMbarCount, SevError, isaMbar, "an mbarrier count is out of range",
		"The expected arrival count of mbarrier.init must be within 1..2^20-1."},
	{HzMbarUnderflow, SevError, isaMbar, "more arrivals on an mbarrier phase than its expected count",
		"The extra arrival completes the phase early and leaks into the next one: waiters see data that is not ready. The finding names the mbarrier.init whose count disagrees with the arrivals. Fix: make the init count equal the number of arrivals per phase."},
	{HzMbarArrivals, SevError, isaMbar, "an mbarrier phase gets fewer arrivals than its expected count",
		"The phase never completes and its waiters hang. The finding names the mbarrier.init whose count exceeds the arrivals each phase gets, with both numbers. Fix: make the init count equal the number of arriving threads (or arrive with the right count)."},
	{HzMbarTx, SevError, isaMbar, "an mbarrier tx-count leaves its range",
		"The tx-count must stay within ±(2^20-1)."},
	{HzMbarTxMismatch, SevError, isaMbar + "; " + isaBulk, "expect_tx arms a different byte count than the copies deliver",
		"A phase completes when its arrivals are done and its tx-count returns to zero. When expect_tx announces more bytes than the copies on that phase deliver, the phase never completes (a hang); when it announces fewer, the phase completes before every copy has landed and the consumer reads a partly filled tile. The finding names the expect_tx with both numbers and the copies. Fix: announce exactly the bytes of the copies (box bytes × copies, with multicast counted per destination CTA)."},
	{HzMbarPhase, SevError, isaMbar, "an mbarrier wait names the wrong phase parity",
		"try_wait.parity p succeeds once the phase of parity p has completed. Waiting on the parity of the phase in progress, with nothing left to arrive, hangs; waiting on a parity that has already flipped passes immediately on stale data. The finding names the wait, the phase it waited for and the phase the barrier was in. Fix: track the phase bit per stage ((iteration / stages) & 1) and flip it each time the stage wraps."},
	{HzMbarLapped, SevError, isaMbar, "an mbarrier phase can complete twice before a waiter observes it (phase lapping)",
		"A parity wait cannot tell phase k from phase k+2. If nothing orders the arrivals of phase k+1 after a waiter's wait for phase k, a fast producer can complete two phases before a slow waiter looks: the waiter then hangs or consumes the wrong phase. tcsim checks this from the order the kernel establishes, under every schedule: each phase's arrivals must be ordered after the waits for the phase before it. Fix: bound the producer, e.g. with an 'empty' mbarrier the waiters arrive on (the producer waits on it before the next phase), or a CTA barrier per iteration."},
	{HzMbarGenericWrite, SevError, isaMbar, "a generic store overwrites a live mbarrier object",
		"The mbarrier object is opaque: writing its 8 bytes with ordinary stores corrupts its phase and counts."},
	// shared memory and synchronization
	{HzRace, SevError, isaMemModel, "two accesses to shared memory are not ordered by synchronization",
		"A write and another access to the same shared bytes by different warps, with no barrier, mbarrier or other synchronization between them, form a data race: the result depends on timing. tcsim's vector clocks follow bar.sync, named barriers, mbarrier phases, cluster barriers and fences. A write-read race is reported at the read, with the write as the other party, whichever of the two the schedule ran first."},
	{HzWarpExchange, SevError, isaWarpSync, "lanes of one warp exchange data through shared memory with no bar.warp.sync",
		"Since Volta, the threads of a warp are scheduled independently: a lane's st.shared is not guaranteed to be visible to another lane of the same warp, nor ordered before its ld.shared, without a synchronization (bar.warp.sync / __syncwarp, or a CTA barrier). Code that relies on lockstep execution is a data race by the memory model, and NVIDIA documents it breaking on Volta and later GPUs. Fix: bar.warp.sync (__syncwarp()) between the writes and the reads."},
	{HzDeadlock, SevError, isaMemModel + "; " + isaMbar, "no warp can make progress",
		"Every remaining warp waits for something that can no longer happen; the report lists where each warp waits and why."},
	{HzBarrierCount, SevError, "9.7.13.1 (bar.sync, bar.arrive)", "arrivals of one barrier phase disagree on the thread count",
		"All arrivals of a barrier phase must name the same thread count."},
	{HzWarpSync, SevError, "9.7.9.x (.sync warp instructions: shfl, vote, match, redux)", "a .sync warp instruction names lanes that do not execute it",
		"The membermask of shfl.sync, vote.sync and friends must name only lanes that execute the instruction; otherwise the result is undefined."},
	{HzWarpSyncDiverged, SevWarning, isaWarpSync, "bar.warp.sync names lanes that do not execute it here",
		"All non-exited lanes named in bar.warp.sync's membermask must execute the same bar.warp.sync; a divergent call may hang or not synchronize."},
	{HzWarpAligned, SevError, "9.7 (.sync.aligned instructions)", "a .sync.aligned instruction is executed by only part of a warp",
		"ldmatrix, stmatrix, mma.sync, tcgen05 .sync.aligned instructions must be executed by every thread of the warp, convergently."},
	{HzClusterBarrier, SevError, "9.7.13.3 (barrier.cluster)", "barrier.cluster misuse",
		"barrier.cluster.arrive and .wait must alternate."},
	{HzSetmaxnreg, SevError, "9.7.17.1 (setmaxnreg)", "setmaxnreg breaks its rules",
		"The count must be a multiple of 8 in 24..256; .inc must not lower and .dec must not raise the warpgroup's registers."},
	// tcgen05
	{HzTmemAlloc, SevError, isaTcgen05 + " (tcgen05.alloc, dealloc, relinquish_alloc_permit)", "Tensor Memory allocation rules",
		"Columns must be allocated (power of two, 32..512) before use and freed before the CTA exits; no allocation after relinquish_alloc_permit. With CTAs sharing an SM (tcsim run --ctas-per-sm N), a tcgen05.alloc that waits for columns a co-resident CTA left allocated when it exited can never complete."},
	{HzTmemPermit, SevWarning, isaTcgen05 + " (tcgen05.alloc, relinquish_alloc_permit)", "a CTA keeps the SM's TMEM allocation permit while a co-resident CTA waits to allocate",
		"With CTAs sharing an SM (tcsim run --ctas-per-sm N, not hardware-verified), a CTA takes the SM's allocation permit with its tcgen05.alloc and keeps it until tcgen05.relinquish_alloc_permit or its exit; a co-resident CTA's tcgen05.alloc waits for it. A CTA that never relinquishes serializes the CTAs of the SM (and deadlocks if it waits for the one it blocks). Fix: tcgen05.relinquish_alloc_permit right after the CTA's last tcgen05.alloc, as CUTLASS does."},
	{HzTmemLane, SevError, isaTcgen05 + " (tcgen05.ld/st data movement shapes)", "a warp touches TMEM lanes outside its quarter",
		"Warp w of a warpgroup can access TMEM lanes 32·(w%4) .. 32·(w%4)+31 only."},
	{HzTcgenWaitLd, SevError, isaTcgen05 + " (tcgen05.wait)", "TMEM released while a tcgen05.ld of it is incomplete",
		"tcgen05.ld is asynchronous: until tcgen05.wait::ld (or until every destination register has been read) it may still be reading TMEM. A warp that reaches a barrier or an mbarrier arrival (the release of the accumulator to the MMA warp) with such a load pending, and no tcgen05.fence::before_thread_sync, lets the next MMA overwrite TMEM the load has not read (the bug behind flashinfer#5334). Fix: tcgen05.wait::ld before the release."},
	{HzTcgenLdRead, SevNote, isaTcgen05 + " (tcgen05.wait)", "portability, not hardware-verified: tcgen05.ld destinations read before tcgen05.wait::ld",
		"The ISA makes a tcgen05.ld's destinations defined at tcgen05.wait::ld. ptxas waits for each register at its first use (ptxas 13.0 compiles it silently), and CUTLASS's sm100 epilogues read the values this way, waiting only before they release the TMEM; the simulator delivers the loaded value at the read. Not hardware-verified: tcsim has no B200, so no measurement says that the hardware gives the loaded values at the first use; the evidence is the compiler's and CUTLASS's. It stays a portability note rather than a warning because the only evidence there is (what ptxas emits and what NVIDIA's own sm100 kernels rely on) says the pattern works, and a warning would flag every CUTLASS sm100 epilogue; every report of it says 'not hardware-verified', and --strict makes it a warning. Fix for portability: tcgen05.wait::ld before the first use."},
	{HzTcgenFenceNote, SevNote, isaTcgen05Sync, "portability, not hardware-verified: a tcgen05 operation after a synchronization that follows other threads' tcgen05 work, with no tcgen05.fence::after_thread_sync",
		"The ISA orders tcgen05 operations across a thread synchronization with tcgen05.fence::before_thread_sync and ::after_thread_sync. Where the other threads' work was complete before the synchronization (a tcgen05.commit's mbarrier phase, a returned tcgen05.alloc, loads completed by tcgen05.wait::ld) CUTLASS's sm100 kernels, which contain no tcgen05.fence, omit the fences. Not hardware-verified: tcsim has no B200 and no measurement says the hardware orders those operations without the fence; the evidence is CUTLASS's. It stays a portability note rather than a warning for the reason tcgen05/ld-read-before-wait does (the only evidence says it works; a warning would flag NVIDIA's own sm100 kernels); every report says 'not hardware-verified', and --strict makes it a warning. Fix for portability: tcgen05.fence::after_thread_sync after the wait."},
	{HzTcgenWaitSt, SevError, isaTcgen05 + " (tcgen05.st, tcgen05.wait); " + isaTcgen05Sync, "TMEM a tcgen05.st wrote is read by another warp before the store was waited for (tcgen05.wait::st)",
		"tcgen05.st is asynchronous: the TMEM it writes holds the new values once the storing thread's tcgen05.wait::st returns. The ISA hands stored TMEM to another thread with tcgen05.st, tcgen05.wait::st, tcgen05.fence::before_thread_sync, the synchronization and tcgen05.fence::after_thread_sync in the reader; the fence orders the store's issue before the synchronization, not its completion. Reported: a tcgen05.mma (A in TMEM, scale factors) or tcgen05.ld of another warp, ordered after the store by a synchronization before which the storing warp did not execute tcgen05.wait::st, reading cells the store wrote; at the store, with the reader (decided from happens-before order, under every schedule; modelled from the ISA, not hardware-verified). Fix: tcgen05.wait::st after the stores, before the fence and the barrier."},
	{HzTcgenFence, SevError, isaTcgen05Sync, "a cross-thread TMEM handoff lacks tcgen05.fence",
		"tcgen05 operations are ordered across a thread synchronization only with tcgen05.fence::before_thread_sync before it and tcgen05.fence::after_thread_sync after it. Reported: a warp reaching a barrier or arrival with asynchronous tcgen05 work still pending (an mma, cp or shift not committed, an st without wait::st) and no fence::before_thread_sync; a warp whose next tcgen05 operation after a synchronization lacks the fence::after_thread_sync that another thread's fence::before_thread_sync asked for (with --check, a synchronization asks for it when it orders the warp, in happens-before order, after another warp's fence::before_thread_sync that its previous synchronization did not). Completion through tcgen05.commit or wait::ld/st is the sync-without-fence portability note."},
	{HzCtaGroup, SevError, isaTcgen05, "tcgen05 .cta_group::1 and ::2 mixed in one kernel",
		"All tcgen05 instructions of a kernel must use the same .cta_group."},
	{HzTcgenInFlight, SevError, isaTcgen05 + " (tcgen05.mma, tcgen05.commit)", "TMEM is read while a tcgen05.mma writing it is in flight",
		"Wait for the tcgen05.commit's mbarrier phase before reading the accumulator (or overwriting TMEM an in-flight MMA reads: its scale factors, its A)."},
	{HzTmemRace, SevError, isaTcgen05Sync + "; " + isaTcgen05 + " (tcgen05.mma, tcgen05.cp)", "TMEM written while another thread's unordered access to it may be pending",
		"An MMA overwrites an accumulator that a warp read with tcgen05.ld and has not released (no arrival of that warp is ordered before the MMA's issue: in a CTA pair the release must count the warps of both CTAs), an MMA reads scale factors or A that another thread copied into TMEM without synchronization, or two threads' tcgen05.cp/st write the same TMEM unordered. Fix: order the accesses (the consumer's release before the producer's MMA; the copy's tcgen05.commit mbarrier phase before the MMA)."},
	{HzTcgenScale, SevError, isaTcgen05 + " (tcgen05.mma .block_scale; scale factors in TMEM)", "block scaling: scale factors that do not match the instruction descriptor or were never copied into TMEM",
		"A block-scaled tcgen05.mma reads the scale factor of row r for its j-th k-block from byte ID+j of the TMEM cell at lane r%128, column base + 4·(r/128) + (r%128)/32 (the layout tcgen05.cp .32x128b.warpx4 gives CUTLASS's 128x4 chunks). Reported: cells no tcgen05.cp or st wrote (the scale-factor address or ID points elsewhere), IDs that .scale_vec::2X/4X do not allow, a scale-factor address with a lane."},
	{HzTcgenCollector, SevError, isaTcgen05 + " (tcgen05.mma .collector::a)", "collector::a::use or ::lastuse with no A matrix kept by a ::fill",
		"The collector buffer keeps the A matrix of a tcgen05.mma .collector::a::fill for the next MMAs of the thread (::use, ::lastuse); using it without a fill of the same shape reads garbage."},
	{HzMulticastMask, SevError, isaTcgen05 + " (tcgen05.commit .multicast::cluster); 9.7.9.25 (multicast)", "a multicast ctaMask naming CTAs outside the cluster, or a pair commit that leaves out half of the pair",
		"A tcgen05.commit .cta_group::2 must signal both CTAs of the pair whose TMEM the MMAs wrote, or the left-out CTA never learns that its accumulator is ready."},
	{HzTmemUninit, SevError, isaTcgen05 + " (tcgen05.mma: enable-input-d)", "tcgen05.mma accumulates into TMEM columns that were never written",
		"With enable-input-d true, tcgen05.mma adds the product to the accumulator already in TMEM. Freshly allocated TMEM holds garbage (it is not zeroed), so the first MMA of a tile must run with enable-input-d false (or the accumulator must be written with tcgen05.st / tcgen05.cp first). Fix: pass false as enable-input-d for the first K step."},
	// performance
	{HzBankConflict, SevPerf, "— (performance)", "shared-memory bank conflicts",
		"Accesses of one instruction that fall into the same bank in different 4-byte words are serialized. Shared memory has 32 banks of 4 bytes; a warp's ld.shared or st.shared is served in phases of 128 bytes (32 lanes of up to 4 bytes, 16 lanes of 8, 8 lanes of 16), an ldmatrix or stmatrix one phase per 8x8 matrix, and a phase takes as many wavefronts as the most distinct words one bank delivers (the same word is a broadcast). The finding gives, per instruction, the wavefronts its requests took against the ideal of one per phase. Not a correctness problem: it does not change the exit status. The model is sim/banks, the one the TUI's swizzle view draws."},
}

// notHardwareVerified lists the rules whose severity no hardware
// measurement backs (Rule.NotHardwareVerified).
var notHardwareVerified = map[HazardKind]bool{HzTcgenLdRead: true, HzTcgenFenceNote: true}

var rulesByID = func() map[HazardKind]*Rule {
	m := map[HazardKind]*Rule{}
	for i := range ruleTable {
		r := &ruleTable[i]
		if _, dup := m[r.ID]; dup {
			panic("sim: rule listed twice: " + string(r.ID))
		}
		m[r.ID] = r
	}
	return m
}()

// Rules returns every rule, sorted by identity.
func Rules() []Rule {
	out := append([]Rule(nil), ruleTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule finds a rule by its identity.
func LookupRule(id HazardKind) (Rule, bool) {
	r, ok := rulesByID[id]
	if !ok {
		return Rule{}, false
	}
	return *r, true
}

// MatchRules resolves a rule pattern: an identity ("mbarrier/tx-mismatch")
// or a family ("mbarrier" or "mbarrier/*"). It fails with the nearest
// identities when nothing matches.
func MatchRules(pattern string) ([]HazardKind, error) {
	fam := strings.TrimSuffix(pattern, "/*")
	var out []HazardKind
	for _, r := range Rules() {
		if string(r.ID) == pattern || strings.HasPrefix(string(r.ID), fam+"/") {
			out = append(out, r.ID)
		}
	}
	if len(out) == 0 {
		var ids []string
		for _, r := range Rules() {
			ids = append(ids, string(r.ID))
		}
		if near := suggest.Nearest(pattern, ids, 3, 6); len(near) > 0 {
			return nil, fmt.Errorf("no rule %q; did you mean %s? (tcsim run --rules lists them)", pattern, strings.Join(near, ", "))
		}
		return nil, fmt.Errorf("no rule %q (tcsim run --rules lists them)", pattern)
	}
	return out, nil
}

// RulePolicy says which findings are reported and how severe they are.
// The zero value reports every rule at its own severity.
type RulePolicy struct {
	// Strict promotes portability notes to warnings.
	Strict bool
	// Allow silences rules: their findings are counted, not reported.
	Allow map[HazardKind]bool
}

// Severity is the severity a finding of rule id is reported with, and
// whether it is reported at all.
func (p RulePolicy) Severity(id HazardKind, def Severity) (Severity, bool) {
	if p.Allow[id] {
		return def, false
	}
	if r, ok := rulesByID[id]; ok {
		def = r.Severity
	}
	if p.Strict && def == SevNote {
		def = SevWarning
	}
	return def, true
}
