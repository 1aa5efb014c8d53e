package datapath

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var probesOut = flag.String("probes", "", "write the numerics probe batches (V.A, V.B, V.C) to this directory")
var probesRandom = flag.Int("probes.random", 64, "random problems per variant after the targeted ones")

// TestWriteProbes writes the inputs of the numerics discovery campaign:
//
//	go test ./sim/datapath -run TestWriteProbes -probes DIR
//
// then on a Hopper GPU: fixtures/numerics/harness/wgmma_probe DIR OUTDIR.
func TestWriteProbes(t *testing.T) {
	if *probesOut == "" {
		t.Skip("set -probes DIR to write the probe batches")
	}
	if err := os.MkdirAll(*probesOut, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range ProbeVariants() {
		b := DiscoveryBatch(v, *probesRandom)
		for ext, data := range map[string][]byte{".A": b.A, ".B": b.B, ".C": b.C} {
			if err := os.WriteFile(filepath.Join(*probesOut, v.Name+ext), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%-22s %4d problems, %d targeted probes", v.Name, b.T, len(TargetedProblems(v)))
	}
}
