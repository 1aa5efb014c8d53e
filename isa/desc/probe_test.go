package desc

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/ptx"
)

func TestProbePTXValidates(t *testing.T) {
	p, err := NewProbe(DefaultProbeCases())
	if err != nil {
		t.Fatal(err)
	}
	m, errs := ptx.Check("desc_probe.ptx", []byte(p.PTX))
	if m == nil || len(errs) > 0 {
		t.Fatalf("the probe's PTX does not pass tcsim's PTX checker:\n%v\n%s", errs, p.PTX)
	}
	for _, k := range p.Kernel {
		if !strings.Contains(p.PTX, ".visible .entry "+k+"(") {
			t.Errorf("no entry %s", k)
		}
	}
	if strings.Count(p.PTX, "wgmma.mma_async") != 2 {
		t.Error("want one wgmma per kernel")
	}
}

func TestProbeInputs(t *testing.T) {
	p, err := NewProbe(DefaultProbeCases())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Images) != p.Jobs()*ProbeImageBytes || len(p.Descs) != p.Jobs()*16 {
		t.Fatalf("images %d, descs %d for %d jobs", len(p.Images), len(p.Descs), p.Jobs())
	}
	if n := len(p.JobsFor(0)) + len(p.JobsFor(1)); n != p.Jobs() {
		t.Fatalf("the two kernels run %d jobs, want %d", n, p.Jobs())
	}
	// The identity B: every B element reads back through the footprint of
	// its descriptor as 1 on the diagonal, 0 elsewhere.
	img := p.Images[:ProbeImageBytes]
	reads, _ := Footprint(probeB().Layout(), Operand{Major: MajorK, ElemBits: 16, MN: 16, K: 16})
	for _, r := range reads {
		for k := r.K0; k < r.K1; k++ {
			v := binary.LittleEndian.Uint16(img[r.Addr+uint32(2*(k-r.K0)):])
			if want := map[bool]uint16{true: f16Int(1), false: 0}[k == r.MN0]; v != want {
				t.Fatalf("B(n=%d,k=%d) = %#x, want %#x", r.MN0, k, v, want)
			}
		}
	}
	// A slots: the two passes encode the slot number exactly.
	for _, slot := range []int{0, 1, 1023, 1024, 6143} {
		lo := binary.LittleEndian.Uint16(p.Images[2*slot:])
		hi := binary.LittleEndian.Uint16(p.Images[ProbeImageBytes+2*slot:])
		if got := int(f16ToF32(hi))<<10 | int(f16ToF32(lo)); got != slot {
			t.Errorf("slot %d encodes as %d", slot, got)
		}
	}
}

func f16ToF32(h uint16) float32 {
	e := int(h>>10) & 31
	m := int(h & 0x3FF)
	if e == 0 {
		return float32(m) / 1024 / 16384
	}
	return float32(math.Ldexp(1+float64(m)/1024, e-15))
}

func TestF16Int(t *testing.T) {
	for v := 0; v < 2048; v++ {
		if got := f16ToF32(f16Int(v)); got != float32(v) {
			t.Fatalf("f16Int(%d) = %#x = %v", v, f16Int(v), got)
		}
	}
}

func TestProbeCheck(t *testing.T) {
	p, err := NewProbe(DefaultProbeCases())
	if err != nil {
		t.Fatal(err)
	}
	// A GPU that reads as Footprint says passes every case.
	out, err := p.SimulateProbe(ModelFootprint)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Check(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.OK() {
			t.Errorf("%v", r)
		}
	}
	// A GPU that reads by an alternative base-offset model fails exactly
	// the cases listing it whose prediction differs from the footprint,
	// and each failure is recognised as that model.
	for _, m := range []ProbeModel{ModelAbsolute, ModelStartRelative} {
		out, _ = p.SimulateProbe(m)
		res, _ = p.Check(out)
		failed := 0
		for _, r := range res {
			if r.OK() {
				continue
			}
			failed++
			if !slices.Contains(r.Case.Alternatives, m) || !slices.Contains(r.Matches, m) {
				t.Errorf("%s: %v", m, r)
			}
		}
		if failed < 2 {
			t.Errorf("%s: only %d cases tell it from the footprint", m, failed)
		}
	}
	// Swapped LBO/SBO fails the cases that use both.
	out, _ = p.SimulateProbe(ModelSwappedOffset)
	res, _ = p.Check(out)
	failed := 0
	for _, r := range res {
		lists := false
		for _, a := range r.Case.Alternatives {
			lists = lists || a == ModelSwappedOffset
		}
		if !r.OK() && lists {
			failed++
			if !strings.Contains(r.String(), "LBO and SBO swapped") {
				t.Errorf("swap not recognised: %v", r)
			}
		}
	}
	if failed < 5 {
		t.Errorf("only %d cases tell LBO from SBO", failed)
	}
	if _, err := p.Check(out[:100]); err == nil {
		t.Error("short output accepted")
	}
	bad := append([]byte(nil), out...)
	binary.LittleEndian.PutUint32(bad[4096:], 0x480)
	if res, _ := p.Check(bad); res[0].Err == nil {
		t.Error("misaligned shared buffer not reported")
	}
}

func TestNewProbeRejects(t *testing.T) {
	big, _ := NewWGMMA(0, 16, 4096, Swizzle128B, 0)
	if _, err := NewProbe([]ProbeCase{{Name: "big", Desc: big, Major: MajorK}}); err == nil {
		t.Error("a footprint past the A region accepted")
	}
	ov, _ := NewWGMMA(0, 16, 512, Swizzle128B, 0)
	if _, err := NewProbe([]ProbeCase{{Name: "overlap", Desc: ov, Major: MajorK}}); err == nil {
		t.Error("overlapping core matrices accepted")
	}
	if _, err := NewProbe([]ProbeCase{{Name: "nomajor", Desc: ov}}); err == nil {
		t.Error("missing major accepted")
	}
}

// TestProbeRecordedH100 replays what an H100 read through the probe's
// descriptors (fixtures/desc/README.md): every element where Footprint
// says, and the alternative base-offset readings ruled out.
func TestProbeRecordedH100(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "desc", "desc_probe_h100.bin"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProbe(DefaultProbeCases())
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Check(out)
	if err != nil {
		t.Fatal(err)
	}
	ruledOut := map[ProbeModel]int{}
	for _, r := range res {
		if !r.OK() {
			t.Errorf("%v", r)
		}
		for _, m := range r.Case.Alternatives {
			if !slices.Contains(r.Matches, m) {
				ruledOut[m]++
			}
		}
	}
	if ruledOut[ModelAbsolute] < 2 || ruledOut[ModelStartRelative] < 3 {
		t.Errorf("the recording rules out the base-offset alternatives in too few cases: %v", ruledOut)
	}
}
