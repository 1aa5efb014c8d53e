package sfu

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/tcsim/tcsim/internal/provenance"
)

// modelRun is a FitRun that computes with the model: it stands in for the
// GPU (the model is bit-exact on these binades: TestRecordedHashes).
func modelRun(f *Form, a []uint64) ([]uint64, error) {
	out := make([]uint64, len(a))
	for i, x := range a {
		out[i] = f.Eval(x, 0)
	}
	return out, nil
}

// TestRecordFitModel runs the recording of tcsim verify approx --gpu
// --record-fit with the model in place of the GPU, on two tables whose
// Delta every 64th result alone does not pin (all of them with
// TCSIM_SFU_FIT_ALL=1, about two minutes on 2 cores; a record written
// this way is the model's, never a hardware fixture): fitted to the whole
// binades each table is tables_gen.go's, the record alone fits the same
// table, every member carries the provenance, and without the pins the
// record does not pin Delta.
func TestRecordFitModel(t *testing.T) {
	if testing.Short() {
		t.Skip("fits whole binades")
	}
	all := os.Getenv("TCSIM_SFU_FIT_ALL") != ""
	sel := func(name string) bool { return all || slices.Contains([]string{"quadRSQ[0]", "quadLG2"}, name) }
	prov := &provenance.Provenance{GPU: "none: the model", Command: "go test ./sim/sfu -run TestRecordFitModel"}
	file, checks, err := RecordFit(modelRun, sel, prov, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.MatchesTable() {
			t.Errorf("%s: fitted to the whole binades, Delta %d, not tables_gen.go's %d (or other coefficients)", c.Name, c.Full.Delta, c.Table.Delta)
		}
		if !c.Reproduced() {
			t.Errorf("%s: the record alone (%d results, %d pins) does not fit the same table", c.Name, c.Kept, c.Pins)
		}
		if c.Pins == 0 || c.Pins > 2*c.Full.Intervals() || c.Kept < c.Results/fitStep {
			t.Errorf("%s: %d pins, %d of %d results kept", c.Name, c.Pins, c.Kept, c.Results)
		}
	}
	ds, err := ReadDumps(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var spread []*Dump
	for _, d := range ds {
		if d.Provenance == nil || d.Provenance.GPU != prov.GPU || d.Provenance.Command != prov.Command {
			t.Errorf("%s %s: provenance %v", d.Op, d.Gen, d.Provenance)
		}
		if d.Gen != "explicit" {
			spread = append(spread, d)
		}
	}
	if all {
		checkTables(t, ds)
	}
	// without the pins, some Delta is not the whole binades'
	loose := 0
	for _, s := range QuadSpecs() {
		if !sel(s.Name) {
			continue
		}
		var samples []Sample
		for _, d := range spread {
			samples = append(samples, s.Samples(d)...)
		}
		if q, _, err := Fit(samples, s.Options); err != nil || q.Delta != tablesByName()[s.Name].Delta {
			loose++
		}
	}
	if loose == 0 {
		t.Errorf("every 64th result alone pins every Delta: the pins are not needed, or not tested")
	}
}

// TestPins: the pins of a fitted table are the samples that bound its
// windows; a subset without them fits a wider Delta range.
func TestPins(t *testing.T) {
	s := QuadSpecs()[2] // quadRSQ[0]
	b := s.Binades[0]
	var samples []Sample
	for off := uint32(0); off < 1<<23; off += 7 {
		a := b.Base + off
		if x, ok := s.sample(b.Op, a, uint32(MustLookup(b.Op).Eval(uint64(a), 0))); ok {
			samples = append(samples, x)
		}
	}
	q, rep, err := Fit(samples, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	pins := Pins(samples, q, s.Options)
	if len(pins) == 0 || len(pins) > 2*s.Options.Intervals || !slices.IsSorted(pins) {
		t.Fatalf("%d pins (sorted %v)", len(pins), slices.IsSorted(pins))
	}
	// every 64th sample and the pins: the same windows
	var sub, without []Sample
	isPin := map[int]bool{}
	for _, k := range pins {
		isPin[k] = true
	}
	for k, x := range samples {
		if k%64 == 0 || isPin[k] {
			sub = append(sub, x)
		}
		if k%64 == 0 && !isPin[k] {
			without = append(without, x)
		}
	}
	q2, rep2, err := Fit(sub, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	if !q2.Equal(q) || rep2.DeltaRange != rep.DeltaRange {
		t.Errorf("with the pins: Delta range %v, want %v", rep2.DeltaRange, rep.DeltaRange)
	}
	_, rep3, err := Fit(without, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	if w, w3 := rep.DeltaRange[1]-rep.DeltaRange[0], rep3.DeltaRange[1]-rep3.DeltaRange[0]; w3 <= w {
		t.Errorf("without the pins the Delta range %v is no wider than %v", rep3.DeltaRange, rep.DeltaRange)
	}
}
