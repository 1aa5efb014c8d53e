package sim

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
}

// blackwellCauseLines are the cause lines of broken_test.go's Blackwell
// rows as the happens-before TMEM checks (tcgen05_hb.go) report them: the
// refill that is not ordered after the MMA's commit and the loads that
// read D before it, whatever the schedule ran first; and for a lane
// quarter, the instruction that computes the address's lane field.
var blackwellCauseLines = map[string]map[HazardKind][]int{
	"mxf8_refill_inflight": {HzTmemRace: {129}, HzTcgenInFlight: {138, 139, 140, 141}},
	"pair_lane_quarter":    {HzTmemLane: {131}},
	"tcgen05_lane_quarter": {HzTmemLane: {594}},
}

func init() {
	for i := range brokenCases {
		if w, ok := blackwellCauseLines[brokenCases[i].name]; ok {
			brokenCases[i].want, brokenCases[i].maybe = w, nil
		}
	}
	brokenCases = append(brokenCases, blackwellBrokenCases...)
}
