package probe

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/ptx"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCases are the probe kernels kept as golden files: every case
// whose kernel is small, and reduced instances (a few N) of the kernels
// that sweep every N, which repeat one block per N. The full kernels are
// compared with their recordings by the fixture replay instead.
func goldenCases() []*Case {
	var out []*Case
	for _, c := range Cases() {
		if len(c.PTX) < 24<<10 {
			out = append(out, c)
		}
	}
	reduced := func(c *Case, suffix string) *Case {
		c.Name += suffix
		return c
	}
	out = append(out,
		reduced(accCaseN(elemF32, inF16, false, []int{8, 256}), "_n8_n256"),
		reduced(accCaseN(elemF16, inF16, true, []int{8, 24, 32}), "_n8_n24_n32"),
		reduced(accCaseN(elemS32, inU8, true, []int{8, 48}), "_n8_n48"),
		reduced(bSmemCaseN(inE4M3, []int{8, 40}), "_n8_n40"),
	)
	return out
}

// TestGoldenPTX compares the generated PTX with testdata/<case>.ptx
// (refresh with go test ./gpu/probe -update).
func TestGoldenPTX(t *testing.T) {
	for _, c := range goldenCases() {
		path := filepath.Join("testdata", c.Name+".ptx")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.PTX), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./gpu/probe -update)", err)
		}
		if string(want) != c.PTX {
			t.Errorf("%s: the generated PTX differs from %s (if intended, run go test ./gpu/probe -update and re-record the fixtures)", c.Name, path)
		}
		if _, errs := ptx.Check(path, want); len(errs) > 0 {
			t.Errorf("%s: %v", path, errs)
		}
	}
}

// TestStoreAlignment: a thread's accumulator registers start at byte
// 16 + 4*regs*t of its record, so vector stores must follow that
// alignment (the f16 accumulators of m64n24 have 6 registers: 24-byte
// steps, 8-byte stores at most). The H100 faults on a misaligned st.v4.
func TestStoreAlignment(t *testing.T) {
	c := accCaseN(elemF16, inF16, false, []int{8, 24, 32})
	blocks := strings.Split(c.PTX, "\n$v")
	want := []struct {
		v4, v2 bool
	}{{false, true}, {false, true}, {true, false}} // 2, 6 and 8 registers
	for i, w := range want {
		b := blocks[i+1]
		if got := strings.Contains(b, "st.global.v4"); got != w.v4 {
			t.Errorf("variant %d: v4 stores %v, want %v", i, got, w.v4)
		}
		if got := strings.Contains(b, "st.global.v2"); got != w.v2 {
			t.Errorf("variant %d: v2 stores %v, want %v", i, got, w.v2)
		}
	}
	for _, n := range []int{8, 16, 24, 40, 48} {
		for _, c := range []struct{ nr, align int }{{n / 4, alignOf(n)}, {n / 2, alignOf(2 * n)}} {
			if (4*c.nr)%c.align != 0 {
				t.Errorf("alignOf(%d) = %d does not divide the %d-byte stride", 4*c.nr, c.align, 4*c.nr)
			}
		}
	}
}
