package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/sim/sfu"
)

// TestVerifyApproxTampered: a recording whose hashes were altered is
// caught. Every chunk hash of ex2.approx.f16 (one chunk) and the first
// chunk's hash of ex2.approx.ftz.f32 (always in the sample) are changed in
// a copy of the fixture: verify approx must say MISMATCH and exit 1, and
// the untouched campaigns still match.
func TestVerifyApproxTampered(t *testing.T) {
	recs, err := sfu.LoadHashRecords("../../fixtures/approx")
	if err != nil {
		t.Fatal(err)
	}
	var keep []*sfu.HashRecord
	for _, r := range recs {
		switch r.Op {
		case "ex2.approx.f16", "ex2.approx.ftz.f32":
			r.Hashes[0]++
			keep = append(keep, r)
		case "tanh.approx.f16":
			keep = append(keep, r)
		}
	}
	if len(keep) != 3 {
		t.Fatalf("the fixture lacks the campaigns this test alters: %d of 3", len(keep))
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "tampered.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sfu.WriteHashRecords(f, keep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	expectCLI(t, []string{"verify", "approx", "--fixture", dir, "--forms", `^(ex2\.approx\.f16|ex2\.approx\.ftz\.f32|tanh\.approx\.f16)$`, "--sample", "4", "--seed", "5"}, 1,
		[]string{"ex2.approx.f16      all     1 of 1          0/1 match  MISMATCH", "ex2.approx.ftz.f32  all     4 of 4096       3/4 match  MISMATCH", "tanh.approx.f16     all     1 of 1          1/1 match            bit-exact"},
		nil, "2 campaigns of bit-exact forms do not match their recording")
}

// TestNumApproxCoverage: tcsim num says "bit-exact" only on inputs a GPU
// was checked on, and says on which inputs each GPU (the H100 for most
// campaigns, the H200 for the f64 edge campaigns) was.
func TestNumApproxCoverage(t *testing.T) {
	for _, c := range []struct {
		args     []string
		want     []string
		not      []string
		exitCode int
	}{
		{[]string{"num", "ex2.approx.ftz.f32", "0.37"}, []string{"model   bit-exact;", "checked on the H100 on all 2^32 operands, this operand among them"}, nil, 0},
		{[]string{"num", "rsqrt.approx.f64", "0x7ff0000000000000"}, []string{"model   bit-exact;",
			"checked on the H100 on 2^32 high words × 1 low word (every high word, each with one pseudo-random low word); not on this operand\n",
			"checked on the H200 on all 2^32 high words with each of the low words 0, 1 and 0xffffffff; all 2^32 low words under each of the high words 0x00000000, ", "0x7ff00000, this operand among them\n"}, nil, 0},
		{[]string{"num", "rsqrt.approx.f64", "1.1"}, []string{"model   not checked on this operand (bit-exact on every input checked)", "1 low word (every high word, each with one pseudo-random low word); not on this operand", "0x7ff00000; not on this operand"}, []string{"model   bit-exact", "among them"}, 0},
		{[]string{"num", "rcp.approx.ftz.f64", "1"}, []string{"model   bit-exact;", "checked on the H200", "this operand among them"}, nil, 0},
		{[]string{"num", "rcp.approx.ftz.f64", "0x3ff8000000000002"}, []string{"model   not checked on this operand"}, []string{"model   bit-exact", "among them"}, 0},
		{[]string{"num", "div.full.f32", "1", "3"}, []string{"model   bit-exact;", "a = 1.0 with all 2^32 divisors", "these operands among them"}, nil, 0},
		{[]string{"num", "div.full.f32", "2", "3"}, []string{"model   not checked on these operands"}, nil, 0},
	} {
		expectCLI(t, c.args, c.exitCode, c.want, c.not, "")
	}
}

// TestRecordFitReport: what verify approx --gpu --record-fit prints for a
// table, from a recording with the model standing in for the GPU, and
// that a table that does not fit is counted as failed.
func TestRecordFitReport(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a whole binade")
	}
	model := func(f *sfu.Form, a []uint64) ([]uint64, error) {
		out := make([]uint64, len(a))
		for i, x := range a {
			out[i] = f.Eval(x, 0)
		}
		return out, nil
	}
	sel := fitTables([]*sfu.Form{sfu.MustLookup("rsqrt.approx.ftz.f32")})
	if !sel("quadRSQ[0]") || !sel("quadRSQ[1]") || sel("quadEX2") {
		t.Fatalf("rsqrt.approx.ftz.f32 selects the wrong tables")
	}
	_, checks, err := sfu.RecordFit(model, func(n string) bool { return n == "quadRSQ[0]" }, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if bad := reportFitChecks(&b, checks); bad != 0 {
		t.Errorf("%d tables failed:\n%s", bad, b.String())
	}
	t.Logf("\n%s", b.String())
	for _, w := range []string{"TABLE", "quadRSQ[0]", "8388607", "262136 in [262128, 262144)", "tables_gen.go", "the same"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the report lacks %q:\n%s", w, b.String())
		}
	}
	checks[0].Refit = nil
	b.Reset()
	if bad := reportFitChecks(&b, checks); bad != 1 || !strings.Contains(b.String(), "ANOTHER TABLE") {
		t.Errorf("a record that does not refit: %d failed\n%s", bad, b.String())
	}
}

// TestVerifyApproxRecordedOn: the replay's header names the GPU of every
// campaign it replays, with the count of each when there are several, and
// only those (the H200's f64 edge campaigns are not the H100's).
func TestVerifyApproxRecordedOn(t *testing.T) {
	expectCLI(t, []string{"verify", "approx", "--fixture", "../../fixtures/approx", "--forms", `^rsqrt\.approx\.f64$`, "--sample", "1", "--seed", "3"}, 0,
		[]string{"replaying ../../fixtures/approx: NVIDIA H100 80GB HBM3 (sm_90, driver 580.159.04, CUDA 13.0, Cuda compilation tools, release 13.0, V13.0.88), 2026-11-25 (1 campaign); NVIDIA H200 (sm_90, driver 580.159.04, CUDA 13.0, Cuda compilation tools, release 13.0, V13.0.88), 2026-12-01 (9 campaigns); 1 chunks",
			"rsqrt.approx.f64  lo-hi7ff00000  1 of 4096       1/1 match  bit-exact"}, nil, "")
	expectCLI(t, []string{"verify", "approx", "--fixture", "../../fixtures/approx", "--forms", `^rsqrt\.approx\.f64$`, "--domains", `^hi$`, "--sample", "1", "--seed", "3"}, 0,
		[]string{"V13.0.88), 2026-11-25; 1 chunks"}, []string{"H200"}, "")
}
