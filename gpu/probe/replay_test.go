package probe

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// The layout probes recorded on an H100 (fixtures/layouts) are replayed
// here without a GPU: every atom an H100 can run must be verified, and
// the catalog's Verified fields must say exactly that.

const fixturesRoot = "../../fixtures/layouts"

var replayed struct {
	once     sync.Once
	vs       []Verdict
	recorded []*fixtures.Case
	err      error
}

// replay replays the recorded fixtures once for all the tests.
func replay(t *testing.T) ([]Verdict, []*fixtures.Case) {
	t.Helper()
	replayed.once.Do(func() { replayed.vs, replayed.recorded, replayed.err = Replay(fixturesRoot) })
	if replayed.err != nil {
		t.Fatal(replayed.err)
	}
	return replayed.vs, replayed.recorded
}

func replayRecorded(t *testing.T) []Verdict {
	t.Helper()
	vs, recorded := replay(t)
	if len(recorded) != len(Cases()) {
		t.Errorf("%d of %d probes are recorded under %s", len(recorded), len(Cases()), fixturesRoot)
	}
	for _, c := range recorded {
		if p := c.Provenance; p.Arch != "sm_90" || shortGPU(p.GPU) != "H100" {
			t.Errorf("%s: recorded on %s (%s), want an H100", c.Dir, p.GPU, p.Arch)
		}
	}
	return vs
}

// TestReplayFixtures: the recorded outputs agree with the catalog, atom
// by atom and cell by cell.
func TestReplayFixtures(t *testing.T) {
	vs := replayRecorded(t)
	for _, v := range vs {
		switch v.Status {
		case Verified:
		case NeedsArch:
			if v.Atom.NeedsArch != "sm_100a" {
				t.Errorf("%s: needs %s", v.Atom.Name, v.Atom.NeedsArch)
			}
		default:
			t.Errorf("%s: %s", v.Atom.Name, v.Text())
		}
	}
	t.Log(Summary(vs))
}

// TestCatalogVerified: Atom.Verified is set for exactly the atoms the
// fixtures verify, with their provenance (go test ./gpu/probe -run
// TestCatalogVerified -update regenerates layouts/catalog/verified.go).
func TestCatalogVerified(t *testing.T) {
	vs, recorded := replay(t)
	table := VerifiedTable(vs, recorded, "fixtures/layouts")
	src := VerifiedSource(table)
	path := filepath.Join("..", "..", "layouts", "catalog", "verified.go")
	if *update {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, src) {
		t.Errorf("%s is out of date with the fixtures (go test ./gpu/probe -run TestCatalogVerified -update)", path)
	}
	for _, a := range catalog.All() {
		if a.Verified != table[a.Name] {
			t.Errorf("%s: Verified = %q, the fixtures say %q", a.Name, a.Verified, table[a.Name])
		}
	}
}

// TestEveryAtomHasAProbe: every atom that does not need another
// architecture is checked by some probe.
func TestEveryAtomHasAProbe(t *testing.T) {
	for _, a := range catalog.All() {
		if n := len(ChecksFor(a.Name)); a.NeedsArch == "" && n == 0 {
			t.Errorf("%s: no probe checks it", a.Name)
		} else if a.NeedsArch != "" && n > 0 {
			t.Errorf("%s: needs %s, yet %d probes check it", a.Name, a.NeedsArch, n)
		}
	}
}

// TestJudge covers the verdicts that the recorded fixtures never produce.
func TestJudge(t *testing.T) {
	a := "mma.sync.m16n8.d.f32"
	cases := map[string]bool{}
	for _, k := range ChecksFor(a) {
		cases[k.Case] = true
	}
	find := func(vs []Verdict) Verdict {
		for _, v := range vs {
			if v.Atom.Name == a {
				return v
			}
		}
		t.Fatalf("no verdict for %s", a)
		return Verdict{}
	}
	notRun := map[string]string{}
	for c := range cases {
		notRun[c] = "needs sm_80; this GPU is sm_75"
	}
	if v := find(Judge(nil, nil, notRun)); v.Status != NotRun || v.Text() != "needs sm_80; this GPU is sm_75" {
		t.Errorf("not run: %v %q", v.Status, v.Text())
	}
	bad := Outcome{Atom: a, Case: "mma_m16n8k16_f32_f16", Compared: 128, Unit: "(thread, value) pairs", Mismatches: 3, First: "thread 1 value 0: ..."}
	if v := find(Judge([]Outcome{bad}, nil, nil)); v.Status != Mismatch ||
		v.Text() != "MISMATCH in mma_m16n8k16_f32_f16: 3 of 128 (thread, value) pairs differ; first: thread 1 value 0: ..." {
		t.Errorf("mismatch: %v %q", v.Status, v.Text())
	}
	errs := []CaseError{{Case: "mma_m16n8k16_f32_f16", Err: os.ErrNotExist}}
	if v := find(Judge(nil, errs, nil)); v.Status != Failed {
		t.Errorf("case error: %v %q", v.Status, v.Text())
	}
	for _, c := range []struct {
		target       string
		major, minor int
		want         bool
	}{{"sm_90a", 9, 0, true}, {"sm_90a", 10, 0, false}, {"sm_90", 10, 0, true}, {"sm_80", 9, 0, true}, {"sm_90", 8, 9, false}} {
		if got := Supports(c.target, c.major, c.minor); got != c.want {
			t.Errorf("Supports(%s, %d.%d) = %v", c.target, c.major, c.minor, got)
		}
	}
}
