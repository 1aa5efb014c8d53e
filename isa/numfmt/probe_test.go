package numfmt

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/internal/provenance"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The generated kernels are compared with golden files (refresh with -update).
func TestProbeGolden(t *testing.T) {
	for _, spec := range []string{
		"cvt.rn.satfinite.e4m3x2.f32", // two f32 operands
		"cvt.rn.f16x2.e4m3x2",         // one 16-bit packed operand, exhaustive
		"cvt.rn.bf16.s8",              // 8-bit beside bf16: exact-size registers
		"cvt.rs.satfinite.e2m1x4.f32", // four operands in braces and rbits (sm_100a)
		"cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32",
	} {
		p, err := NewProbe(MustParseSpec(spec), ProbeOptions{Random: 64})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", p.Name+".ptx")
		if *update {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(path, []byte(p.PTX), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if p.PTX != string(want) {
			t.Errorf("%s: PTX differs from %s:\n%s", spec, path, p.PTX)
		}
	}
}

func TestProbeInputs(t *testing.T) {
	// Exhaustive: every 16-bit pattern once.
	p, _ := NewProbe(MustParseSpec("cvt.rn.f16x2.e4m3x2"), ProbeOptions{})
	if p.Set != Exhaustive || p.N != 1<<16 || !p.OnH100 || p.Target != "sm_90a" {
		t.Fatalf("e4m3x2 probe: %s, %d cases, H100 %v, %s", p.Set, p.N, p.OnH100, p.Target)
	}
	seen := map[uint64]bool{}
	for i := range p.N {
		seen[p.CaseInputs(i)[0]] = true
	}
	if len(seen) != 1<<16 {
		t.Errorf("%d distinct inputs", len(seen))
	}
	// Pairs: each half of an f16x2 takes every pattern.
	p, _ = NewProbe(MustParseSpec("cvt.rn.satfinite.e4m3x2.f16x2"), ProbeOptions{})
	hi, lo := map[uint64]bool{}, map[uint64]bool{}
	for i := range p.N {
		x := p.CaseInputs(i)[0]
		hi[x>>16], lo[x&0xffff] = true, true
	}
	if p.Set != ExhaustivePair || len(hi) != 1<<16 || len(lo) != 1<<16 {
		t.Errorf("pair probe: %s, %d high and %d low patterns", p.Set, len(hi), len(lo))
	}
	// Random sets are reproducible from the seed, and a prefix matches.
	s := MustParseSpec("cvt.rn.satfinite.e4m3x2.f32")
	a, _ := NewProbe(s, ProbeOptions{Random: 5000, Seed: 3})
	b, _ := NewProbe(s, ProbeOptions{Random: 5000, Seed: 3, Prefix: 100})
	c, _ := NewProbe(s, ProbeOptions{Random: 5000, Seed: 4})
	if a.N != a.Edges+5000 || b.Cases != 100 || b.N != a.N {
		t.Fatalf("sizes: %d %d %d", a.N, b.Cases, b.N)
	}
	for i := range 100 {
		if x, y := a.CaseInputs(i), b.CaseInputs(i); x[0] != y[0] || x[1] != y[1] {
			t.Fatalf("case %d: %x vs prefix %x", i, x, y)
		}
	}
	same := 0
	for i := a.Edges; i < a.N; i++ {
		if a.CaseInputs(i)[0] == c.CaseInputs(i)[0] {
			same++
		}
	}
	if same > 500 {
		t.Errorf("seeds 3 and 4 share %d of 5000 random inputs", same)
	}
	// Blackwell-only probes target sm_100a.
	p, _ = NewProbe(MustParseSpec("cvt.rn.satfinite.e2m1x2.f32"), ProbeOptions{Random: 16})
	if p.OnH100 || p.Target != "sm_100a" || !strings.Contains(p.PTX, ".target sm_100a") {
		t.Errorf("e2m1 probe: target %s, H100 %v", p.Target, p.OnH100)
	}
}

// The edge cases reach the interesting points: ties, overflow thresholds,
// NaN payloads that a narrower format would lose.
func TestEdgeInputs(t *testing.T) {
	edges := EdgeInputs(F32, F16)
	has := map[uint64]bool{}
	for _, e := range edges {
		has[e] = true
	}
	for _, want := range []uint64{
		0x477fe000, // 65504 (f16 MAX_NORM)
		0x477ff000, // 65520, the tie above it
		0x477fefff, // just below the tie
		0x33000000, // 2^-25, half the smallest f16 subnormal
		0x7f800000, 0xff800000, 0x80000000,
		0x7f802000, // a NaN whose payload is the tf32 lsb
		0x38fff000, // a tie in the f16 subnormal range... (2^-14 - 2^-25)
	} {
		if !has[want] {
			t.Errorf("f32->f16 edges lack %#x", want)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	p, _ := NewProbe(MustParseSpec("cvt.rn.f16.f32"), ProbeOptions{Random: 300})
	out, err := p.Expected()
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecord(p, out, 0, provenance.Provenance{GPU: "model"})
	bb := &bytesBuffer{}
	if err := WriteRecords(bb, []*Record{rec, rec}); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRecords(bb)
	if err != nil || len(recs) != 2 {
		t.Fatalf("read %d records: %v", len(recs), err)
	}
	res, hashed, ok, err := recs[1].Replay(true)
	if err != nil || res.Mismatches != 0 || !hashed || !ok {
		t.Fatalf("replay: %+v %v %v %v", res, hashed, ok, err)
	}
	// A corrupted output is caught.
	recs[0].Outputs[10] ^= 1
	res, _, _, _ = recs[0].Replay(false)
	if res.Mismatches != 1 || !strings.Contains(res.Samples[0].String(), "case 5") {
		t.Errorf("corruption: %+v", res)
	}
	if _, err := ReadRecords(strings.NewReader("not gzip")); err == nil {
		t.Error("garbage read as records")
	}
}

type bytesBuffer = bytes.Buffer
