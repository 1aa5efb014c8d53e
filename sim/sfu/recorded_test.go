package sfu

import (
	"os"
	"strings"
	"testing"
)

const fixtureDir = "../../fixtures/approx"

// recordedSample is the chunks TestRecordedHashes recomputes per campaign.
const recordedSample = 4

// TestRecordedHashes replays the H100's chunk hashes (fixtures/approx):
// for every campaign, 4 chunks (the first, the last and two drawn from a
// fixed seed and a hash of the campaign's names; all of a smaller domain)
// are recomputed with the model; a form the model calls bit-exact must
// match in every one, and every exact form must have its recording with
// whole provenance.
func TestRecordedHashes(t *testing.T) {
	recs, err := LoadHashRecords(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		r, err := ReplayRecord(rec, false, recordedSample, 20261125)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(recordedSample, len(rec.Hashes)); r.Checked != want {
			t.Errorf("%s on %s: %d chunks checked, want %d", rec.Op, rec.Domain, r.Checked, want)
		}
		if !r.Form.Exact {
			continue
		}
		seen[rec.Op] = true
		if r.Matched != r.Checked {
			t.Errorf("%s on %s: chunks %v differ from the H100's", rec.Op, rec.Domain, r.Differing)
		}
		if rec.Provenance.GPU == "" || rec.Provenance.DriverVersion == "" || rec.Provenance.Command == "" || rec.Provenance.Date == "" ||
			!strings.Contains(rec.Provenance.PTXAS, "V13.") || rec.Provenance.Arch != "sm_90" {
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

// TestSampleChunks: a sample holds the first and the last chunk, has no
// repeats, and two campaigns of the same name lengths draw different chunks.
func TestSampleChunks(t *testing.T) {
	d := DomainAll32
	for _, n := range []int{4, 7, 64} {
		got := d.SampleChunks(n, 99)
		if len(got) != n || got[0] != 0 || got[1] != d.Chunks()-1 {
			t.Errorf("SampleChunks(%d) = %v: want %d chunks starting with 0 and %d", n, got, n, d.Chunks()-1)
		}
		seen := map[int]bool{}
		for _, c := range got {
			if seen[c] || c < 0 || c >= d.Chunks() {
				t.Errorf("SampleChunks(%d) = %v: chunk %d repeated or out of range", n, got, c)
			}
			seen[c] = true
		}
	}
	if got := DomainAll16.SampleChunks(4, 1); len(got) != 1 {
		t.Errorf("a one-chunk domain samples %v", got)
	}
	// ex2.approx.f32 and lg2.approx.f32 have names of the same length
	a := DomainAll32.SampleChunks(4, 1^campaignKey("ex2.approx.f32", "all"))
	b := DomainAll32.SampleChunks(4, 1^campaignKey("lg2.approx.f32", "all"))
	if a[2] == b[2] && a[3] == b[3] {
		t.Errorf("ex2.approx.f32 and lg2.approx.f32 draw the same chunks %v", a)
	}
}
