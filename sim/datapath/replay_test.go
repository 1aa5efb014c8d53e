package datapath

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReplayDiscovery replays the H100 discovery campaign recorded under
// fixtures/numerics/discovery: the seeded batches are regenerated and every
// output of the Hopper profiles must equal the hardware's, bit for bit.
func TestReplayDiscovery(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "numerics", "discovery")
	for _, v := range ProbeVariants() {
		t.Run(v.Name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, v.Name+".D.gz"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			hw, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			b := DiscoveryBatch(v, 64)
			want := b.Expected(ForVariant(v))
			if len(hw) != len(want) {
				t.Fatalf("recorded %d bytes, batch has %d", len(hw), len(want))
			}
			if bytes.Equal(hw, want) {
				return
			}
			n := 0
			w := accBytes(v)
			for i := 0; i < len(hw); i += w {
				if !bytes.Equal(hw[i:i+w], want[i:i+w]) {
					if n < 5 {
						p, rest := i/w/512, i/w%512
						t.Errorf("problem %d D[%d][%d]: hardware %#x, model %#x", p, rest/8, rest%8,
							binary.LittleEndian.Uint32(append(hw[i:i+w], 0, 0)), binary.LittleEndian.Uint32(append(want[i:i+w], 0, 0)))
					}
					n++
				}
			}
			t.Errorf("%d of %d outputs differ", n, len(hw)/w)
		})
	}
}
