package sfu

import (
	"bytes"
	"io"
	"os"
	"slices"
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
	campaigns := map[string][]string{}
	for _, rec := range recs {
		campaigns[rec.Op] = append(campaigns[rec.Op], rec.Domain)
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
		if on := r.Form.RecordedOn(r.Domain); !strings.Contains(rec.Provenance.GPU, on) {
			t.Errorf("%s on %s: recorded on %q, RecordedOn says %q", rec.Op, rec.Domain, rec.Provenance.GPU, on)
		}
		if rec.Agreement == nil || rec.Agreement.Mismatches != 0 || rec.Agreement.Chunks != 0 {
			t.Errorf("%s on %s: the recording does not say the model agreed on every input: %+v", rec.Op, rec.Domain, rec.Agreement)
		}
	}
	for _, f := range Forms() {
		if f.Exact && !seen[f.Op] {
			t.Errorf("%s is called bit-exact but has no recorded campaign", f.Op)
		}
		// what Coverage claims is what was recorded
		var want []string
		for _, d := range f.Measured() {
			want = append(want, d.Name)
		}
		got := campaigns[f.Op]
		slices.Sort(got)
		slices.Sort(want)
		if f.Exact && !slices.Equal(got, want) {
			t.Errorf("%s: the fixture records campaigns %v, Measured says %v", f.Op, got, want)
		}
	}
}

// fitFixture is the record of the results the tables are fitted to.
const fitFixture = fixtureDir + "/fit_sm90a.gz"

// readFit reads a fit record and requires it to be a pinned record (tcsim
// verify approx --gpu --record-fit: every member has whole provenance and
// the pins are there).
func readFit(t *testing.T, path string) []*Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := ReadDumps(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	pins := 0
	for _, d := range ds {
		if p := d.Provenance; p == nil || p.GPU == "" || p.DriverVersion == "" || p.PTXAS == "" || p.Date == "" || p.Command == "" {
			t.Errorf("%s: %s %s: no or incomplete provenance %+v", path, d.Op, d.Gen, p)
		}
		if d.Gen == "explicit" {
			pins++
		}
	}
	if pins == 0 {
		t.Fatalf("%s holds no pins: it is not a record of tcsim verify approx --gpu --record-fit", path)
	}
	return ds
}

// TestFitSamples checks the tables against the recorded results they are
// fitted to (fixtures/approx/fit_sm90a.gz): the model reproduces every
// result, and fitting the record again gives every coefficient and Delta
// of tables_gen.go.
func TestFitSamples(t *testing.T) {
	ds := readFit(t, fitFixture)
	for _, d := range ds {
		form := MustLookup(d.Op)
		bad := 0
		for i, a := range d.A {
			if got := form.Eval(a, 0); got != d.Out[i] && bad < 5 {
				bad++
				t.Errorf("%s(%#x) = %#x, the GPU wrote %#x", d.Op, a, got, d.Out[i])
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
		q, _, err := Fit(samples, s.Options)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		want := tables[s.Name]
		for i := range want.C0 {
			if q.C0[i] != want.C0[i] || q.C1[i] != want.C1[i] || q.C2[i] != want.C2[i] {
				t.Errorf("%s interval %d: refit (%d, %d, %d), table (%d, %d, %d)", s.Name, i, q.C0[i], q.C1[i], q.C2[i], want.C0[i], want.C1[i], want.C2[i])
			}
		}
		if q.Delta != want.Delta {
			t.Errorf("%s: refit Delta %d, table %d", s.Name, q.Delta, want.Delta)
		}
	}
}

// TestTablesFromFixture regenerates tables_gen.go from the committed fit
// record (what go run ./sim/sfu/internal/fitgen does) and requires the
// same bytes.
func TestTablesFromFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("refits every table")
	}
	checkTables(t, readFit(t, fitFixture))
}

// checkTables requires the tables fitted to ds to be tables_gen.go, byte
// for byte.
func checkTables(t *testing.T, ds []*Dump) {
	t.Helper()
	src, err := GenerateTables(ds, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("tables_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, want) {
		a, b := strings.Split(string(src), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("the regenerated tables differ from tables_gen.go at line %d:\n  regenerated %s\n  committed   %s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("the regenerated tables have %d lines, tables_gen.go %d", len(a), len(b))
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

// TestDomainContains: every input of a domain is in it, Unmix64 inverts
// Mix64, and MeasuredInput says which f64 operands were measured.
func TestDomainContains(t *testing.T) {
	for x := uint64(0); x < 1000; x++ {
		if v := Mix64(x * golden); Unmix64(Mix64(v)) != v {
			t.Fatalf("Unmix64(Mix64(%#x)) = %#x", v, Unmix64(Mix64(v)))
		}
	}
	for _, f := range []*Form{MustLookup("rsqrt.approx.f64"), MustLookup("div.full.f32"), MustLookup("ex2.approx.f16x2")} {
		for _, d := range f.Domains() {
			for k := range uint32(64) {
				i := uint32(Mix64(uint64(k))) >> (32 - d.Bits)
				if a, b := d.Input(i); !d.Contains(a, b) {
					t.Errorf("%s %s: input %d (%#x, %#x) not contained", f.Op, d.Name, i, a, b)
				}
			}
		}
	}
	f := MustLookup("rsqrt.approx.f64")
	for _, c := range []struct {
		a    uint64
		want bool
	}{
		{0x7FF0000000000000, true}, // +inf: low word 0 (hi-lo0), high word 0x7ff00000 (lo-hi7ff00000)
		{0x3FF0000000000000, true}, // 1.0
		{0, true},
		{0x3FF00000<<32 | uint64(uint32(Mix64(0x3FF00000+seedHi))), true},
		{0x3FF199999999999A, false}, // 1.1: neither word is an edge word, the low word not the high word's pseudo-random one
		{0x3FF1999900000002, false},
		{0x0123456789ABCDEF, false},
		{0x0123456700000001, true},
		{0x400921FB12345678, true}, // under high word 0x400921fb
		{0x400921FC12345678, false},
	} {
		if got := f.MeasuredInput(c.a, 0); got != c.want {
			t.Errorf("MeasuredInput(%#x) = %v, want %v", c.a, got, c.want)
		}
	}
	div := MustLookup("div.full.f32")
	if !div.MeasuredInput(0x3F800000, 0x40400000) || div.MeasuredInput(0x40000000, 0x40400000) {
		t.Errorf("div.full.f32: 1/3 is measured (a = 1), 2/3 is not")
	}
	if !MustLookup("ex2.approx.f32").MeasuredInput(0x7F800000, 0) {
		t.Errorf("ex2.approx.f32: every operand is measured")
	}
}

// TestChecks: a form's measured inputs grouped by the GPU they were
// recorded on, in words.
func TestChecks(t *testing.T) {
	for _, c := range []struct {
		op   string
		want []Check
	}{
		{"ex2.approx.ftz.f32", []Check{{GPU: "H100", Coverage: "all 2^32 operands"}}},
		{"div.full.f32", []Check{{GPU: "H100", Coverage: DomainRand.Coverage + "; " + DomainOne.Coverage + "; " + DomainEdge.Coverage}}},
		{"rsqrt.approx.f64", []Check{{GPU: "H100", Coverage: DomainHi.Coverage}, {GPU: "H200", Coverage: "all 2^32 high words with each of the low words 0, 1 and 0xffffffff; " +
			"all 2^32 low words under each of the high words 0x00000000, 0x800fffff, 0x00100000, 0x3ff00000, 0x400921fb and 0x7ff00000"}}},
	} {
		got := MustLookup(c.op).Checks()
		if len(got) != len(c.want) {
			t.Errorf("%s: %d checks, want %d: %+v", c.op, len(got), len(c.want), got)
			continue
		}
		n := 0
		for i, g := range got {
			n += len(g.Domains)
			if g.GPU != c.want[i].GPU || g.Coverage != c.want[i].Coverage {
				t.Errorf("%s: check %d is %s: %q, want %s: %q", c.op, i, g.GPU, g.Coverage, c.want[i].GPU, c.want[i].Coverage)
			}
		}
		if n != len(MustLookup(c.op).Measured()) {
			t.Errorf("%s: the checks hold %d domains, Measured %d", c.op, n, len(MustLookup(c.op).Measured()))
		}
	}
	f := MustLookup("rsqrt.approx.f64")
	cs := f.Checks()
	if cs[0].Contains(0x7FF0000000000000, 0) || !cs[1].Contains(0x7FF0000000000000, 0) {
		t.Errorf("+inf is in the H200's campaigns only")
	}
}
