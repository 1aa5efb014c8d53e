package sfu

import (
	"os"
	"testing"
)

const fixtureDir = "../../fixtures/approx"

// TestRecordedHashes replays the H100's chunk hashes (fixtures/approx):
// for every campaign, chunks picked at random (a fixed seed) are
// recomputed with the model; a form the model calls bit-exact must match
// in every one, and every exact form must have its recording.
func TestRecordedHashes(t *testing.T) {
	recs, err := LoadHashRecords(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		r, err := ReplayRecord(rec, false, 1, 20261125)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Form.Exact {
			continue
		}
		seen[rec.Op] = true
		if r.Matched != r.Checked {
			t.Errorf("%s on %s: chunks %v differ from the H100's", rec.Op, rec.Domain, r.Differing)
		}
		if rec.Provenance.GPU == "" || rec.Provenance.DriverVersion == "" || rec.Provenance.Command == "" || rec.Provenance.Date == "" {
			t.Errorf("%s on %s: incomplete provenance %+v", rec.Op, rec.Domain, rec.Provenance)
		}
		if rec.Agreement == nil || rec.Agreement.Mismatches != 0 || rec.Agreement.Chunks != 0 {
			t.Errorf("%s on %s: the recording does not say the model agreed on every input: %+v", rec.Op, rec.Domain, rec.Agreement)
		}
	}
	for _, f := range Forms() {
		if f.Exact && !seen[f.Op] {
			t.Errorf("%s is called bit-exact but has no recorded campaign", f.Op)
		}
	}
}

// TestFitSamples checks the tables against the recorded results they were
// fitted to (every 64th operand of each binade, fixtures/approx/fit_sm90a.gz)
// and that fitting those results again gives the same coefficients.
func TestFitSamples(t *testing.T) {
	f, err := os.Open(fixtureDir + "/fit_sm90a.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := ReadDumps(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		form := MustLookup(d.Op)
		bad := 0
		for i, a := range d.A {
			if got := form.Eval(a, 0); got != d.Out[i] && bad < 5 {
				bad++
				t.Errorf("%s(%#x) = %#x, the H100 wrote %#x", d.Op, a, got, d.Out[i])
			}
		}
	}
	if testing.Short() {
		return
	}
	tables := tablesByName()
	for _, s := range QuadSpecs() {
		var samples []Sample
		for _, d := range ds {
			samples = append(samples, s.Samples(d)...)
		}
		q, rep, err := Fit(samples, s.Options)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		want := tables[s.Name]
		for i := range want.C0 {
			if q.C0[i] != want.C0[i] || q.C1[i] != want.C1[i] || q.C2[i] != want.C2[i] {
				t.Errorf("%s interval %d: refit (%d, %d, %d), table (%d, %d, %d)", s.Name, i, q.C0[i], q.C1[i], q.C2[i], want.C0[i], want.C1[i], want.C2[i])
			}
		}
		// the table's Delta was fitted to the whole binade: it lies in the
		// (wider) range the sample allows
		unit := 1 / float64(int64(1)<<(want.L+3))
		if d := float64(want.Delta) * unit; d < rep.DeltaRange[0] || d >= rep.DeltaRange[1] {
			t.Errorf("%s: Delta %g outside the sample's range %v", s.Name, d, rep.DeltaRange)
		}
	}
}
