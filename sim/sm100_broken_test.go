package sim

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
}

func init() { brokenCases = append(brokenCases, sm100BrokenCases...) }
