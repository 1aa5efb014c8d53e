package sim

import (
	"testing"
	"time"

	"github.com/tcsim/tcsim/launch"
)

// byteIndex is the former design of the in-flight regions: a count per
// shared byte of the operations writing and reading it. BenchmarkInflight
// compares it with rangeIndex in the same run.
type byteIndex struct {
	w, r []uint16
	refs []inflightRef
}

func (x *byteIndex) mark(sp spans, write bool, op *asyncOp) {
	arr := x.r
	if write {
		arr = x.w
	}
	for _, s := range sp {
		for o := s.lo; o < s.hi; o++ {
			arr[o]++
		}
	}
	x.refs = append(x.refs, inflightRef{sp: sp, write: write, op: op})
}

func (x *byteIndex) unmark(op *asyncOp, write bool) {
	for i, ref := range x.refs {
		if ref.op != op || ref.write != write {
			continue
		}
		arr := x.r
		if write {
			arr = x.w
		}
		for _, s := range ref.sp {
			for o := s.lo; o < s.hi; o++ {
				arr[o]--
			}
		}
		x.refs = append(x.refs[:i], x.refs[i+1:]...)
		return
	}
}

func (x *byteIndex) empty() bool { return len(x.refs) == 0 }

func (x *byteIndex) at(lo, hi uint32, write bool) (*asyncOp, uint32, bool) {
	arr := x.r
	if write {
		arr = x.w
	}
	for o := lo; o < hi; o++ {
		if arr[o] == 0 {
			continue
		}
		for _, ref := range x.refs {
			if ref.write == write && ref.sp.overlaps(o, o+1) {
				return ref.op, o, true
			}
		}
	}
	return nil, 0, false
}

// noIndex tracks nothing: the run without in-flight checks.
type noIndex struct{}

func (noIndex) mark(spans, bool, *asyncOp)                       {}
func (noIndex) unmark(*asyncOp, bool)                            {}
func (noIndex) empty() bool                                      { return true }
func (noIndex) at(uint32, uint32, bool) (*asyncOp, uint32, bool) { return nil, 0, false }

// TestInflightIndexes: the per-byte baseline and the ranges find the same
// hazards on the broken GEMM (without --check, where the index is used).
func TestInflightIndexes(t *testing.T) {
	defer func(f func(int) inflightIndex) { newInflightIndex = f }(newInflightIndex)
	var got [2][]string
	for i, mk := range []func(int) inflightIndex{
		func(n int) inflightIndex { return &byteIndex{w: make([]uint16, n), r: make([]uint16, n)} },
		newInflightIndex,
	} {
		newInflightIndex = mk
		path := "../fixtures/sim/broken/gemm_missing_wait.ptx"
		l, err := launch.ReadLaunch("../fixtures/sim/launch/gemm_tma_wgmma.json")
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Prepare(path, mustRead(t, path), l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m2.Run()
		for _, h := range m2.Errors() {
			got[i] = append(got[i], string(h.Kind)+"@"+h.Pos.String())
		}
	}
	if len(got[0]) == 0 || len(got[0]) != len(got[1]) {
		t.Fatalf("per byte %v, ranges %v", got[0], got[1])
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("per byte %s, ranges %s", got[0][i], got[1][i])
		}
	}
}

// BenchmarkInflight runs one CTA of the 128x256-tile GEMM (K=512, the
// default checks, no --check) with no in-flight tracking, with the
// per-byte counts (the former design) and with ranges, and reports the
// fastest run of each relative to no tracking.
func BenchmarkInflight(b *testing.B) {
	defer func(f func(int) inflightIndex) { newInflightIndex = f }(newInflightIndex)
	ranges := newInflightIndex
	variants := []func(int) inflightIndex{
		func(int) inflightIndex { return noIndex{} },
		func(n int) inflightIndex { return &byteIndex{w: make([]uint16, n), r: make([]uint16, n)} },
		ranges,
	}
	// the fastest of the runs of each: the machine is shared, and the
	// variants interleave so that they see the same load
	best := [3]time.Duration{1 << 62, 1 << 62, 1 << 62}
	for range b.N {
		for i, mk := range variants {
			newInflightIndex = mk
			m := gemm256Machine(b, 512, 1, 1, Options{Workers: 1})
			start := time.Now()
			if err := m.Run(); err != nil {
				b.Fatal(err)
			}
			best[i] = min(best[i], time.Since(start))
		}
	}
	b.ReportMetric(float64(best[1])/float64(best[0]), "perbyte/none")
	b.ReportMetric(float64(best[2])/float64(best[0]), "ranges/none")
	b.ReportMetric(float64(best[1])/float64(best[2]), "perbyte/ranges")
}

// BenchmarkInflightOps measures one operation's cost in each index: a TMA
// copy of a 16 KiB tile and a wgmma's 8 KiB operand marked in flight, 64
// checked 16-byte accesses (half of them inside the tile), and the two
// unmarked, in the 228 KiB of shared memory of an sm_90 CTA. It reports
// the per-byte design's time over the ranges' (the ratio) and the memory
// each keeps per CTA.
func BenchmarkInflightOps(b *testing.B) {
	const smem = 228 << 10
	tile := spans{{lo: 0x8000, hi: 0xC000}}
	operand := spans{{lo: 0x10000, hi: 0x12000}}
	load, mma := &asyncOp{}, &asyncOp{}
	run := func(x inflightIndex) time.Duration {
		start := time.Now()
		for range 64 {
			x.mark(tile, true, load)
			x.mark(operand, false, mma)
			for k := uint32(0); k < 64; k++ {
				off := 0x8000 + k*0x200 // every other one lands past the tile
				x.at(off, off+16, true)
				x.at(off, off+16, false)
			}
			x.unmark(mma, false)
			x.unmark(load, true)
		}
		return time.Since(start)
	}
	best := [2]time.Duration{1 << 62, 1 << 62}
	for range b.N {
		best[0] = min(best[0], run(&byteIndex{w: make([]uint16, smem), r: make([]uint16, smem)}))
		best[1] = min(best[1], run(newInflightIndex(smem)))
	}
	b.ReportMetric(float64(best[0])/float64(best[1]), "perbyte/ranges")
	b.ReportMetric(float64(2*2*smem), "perbyte-bytes/CTA")
	b.ReportMetric(float64(2*(smem>>inflBlockShift+1)), "ranges-bytes/CTA")
}
