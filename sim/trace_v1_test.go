package sim

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestTraceV1 runs the launches of sim/testdata/traces and checks that
// the typed writer (package sim/trace) writes, byte for byte, the traces
// the untyped writer before it wrote: the format did not change.
func TestTraceV1(t *testing.T) {
	for _, tc := range []struct {
		golden, ptx, launch string
		grid                launch.Dim3
		values              bool
	}{
		{"wgmma_nowait.v1.jsonl.gz", "fixtures/gpu/wgmma_nowait/kernel.ptx", "fixtures/gpu/wgmma_nowait/launch.json", launch.Dim3{}, true},
		{"tma_swizzle_phase_32B.v1.jsonl.gz", "", "fixtures/sim/launch/tma_swizzle_phase_32B.json", launch.Dim3{1, 1, 1}, false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata/traces", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			l, err := launch.ReadLaunch(filepath.Join("..", tc.launch))
			if err != nil {
				t.Fatal(err)
			}
			ptxPath := tc.ptx
			if ptxPath == "" {
				// The launch file names its PTX relative to itself; the
				// trace names it as tcsim run, started at the root, did.
				rel, err := filepath.Rel("..", l.PTX)
				if err != nil {
					t.Fatal(err)
				}
				ptxPath = rel
			}
			if tc.grid != (launch.Dim3{}) {
				l.Grid = tc.grid
			}
			src, err := os.ReadFile(filepath.Join("..", ptxPath))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			// The bank-conflict findings came after these traces were
			// recorded: allowed here, the run traces what it did then.
			policy := RulePolicy{Allow: map[HazardKind]bool{HzBankConflict: true}}
			m, err := Prepare(ptxPath, src, l, Options{Check: true, Trace: &buf, TraceValues: tc.values, Policy: policy})
			if err != nil {
				t.Fatal(err)
			}
			m.Run()
			if got := buf.Bytes(); !bytes.Equal(got, want) {
				gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := 0; i < min(len(gl), len(wl)); i++ {
					if !bytes.Equal(gl[i], wl[i]) {
						t.Fatalf("line %d differs:\n got %.300s\nwant %.300s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d lines, want %d", len(gl), len(wl))
			}
		})
	}
}
