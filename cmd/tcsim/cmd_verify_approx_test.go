package main

import (
	"os"
	"path/filepath"
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
