package numfmt

import (
	"flag"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var fullReplay = flag.Bool("numfmt.full", false, "replay every random case of the hardware records (about 5e8 cases)")

// hardwareRecords is the H100 campaign: every cvt opcode sm_90a runs,
// exhaustive for ≤16-bit inputs and 1<<20 seeded random cases plus edge
// cases for wider ones, recorded by 'tcsim num probe run'.
const hardwareRecords = "../../fixtures/numfmt/cvt_sm90a.rec.gz"

// TestHardwareRecords replays what the H100 computed against the model:
// the stored outputs case by case (every output of the float-to-float
// tables, the edge cases and 4096 random cases of the others), and the
// SHA-256 of every fully stored buffer. With -numfmt.full the model
// recomputes every case of every probe and must hash to what was recorded.
func TestHardwareRecords(t *testing.T) {
	f, err := os.Open(hardwareRecords)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 800 {
		t.Fatalf("only %d records", len(recs))
	}
	// Every record says where it came from (these records name three
	// provenance fields the older way: driver, cuda, tool).
	for _, r := range recs {
		if p := r.Provenance; !strings.HasPrefix(p.GPU, "NVIDIA") || p.DriverVersion == "" || p.CUDAVersion == "" || p.TcsimVersion == "" || p.Command == "" {
			t.Fatalf("record %s: incomplete provenance %+v", r.Spec, p)
		}
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Spec] = true
	}
	// Every legal spec the H100 runs has a record.
	for _, s := range AllSpecs() {
		if s.SupportedOn("sm_90a", 90) == nil && !seen[s.String()] {
			t.Errorf("no hardware record for %s", s)
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	cases, hashed := 0, 0
	for _, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, hashChecked, hashOK, err := r.Replay(*fullReplay)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Errorf("%s: %v", r.Spec, err)
				return
			case res.Mismatches > 0:
				t.Errorf("%s: %d of %d stored hardware outputs differ from the model; first: %v", r.Spec, res.Mismatches, res.N, res.Samples[0])
			case hashChecked && !hashOK:
				t.Errorf("%s: the model's outputs for all %d cases do not hash to the recorded SHA-256", r.Spec, r.N)
			}
			if r.Mismatches != 0 {
				t.Errorf("%s: recorded with %d mismatches", r.Spec, r.Mismatches)
			}
			cases += res.N
			if hashChecked {
				hashed += r.N
			}
		}()
	}
	wg.Wait()
	t.Logf("%d records: %d stored cases compared, %d cases covered by SHA-256", len(recs), cases, hashed)
}
