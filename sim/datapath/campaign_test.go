package datapath

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The large campaign: at least 2^20 dot products per instruction variant,
// seeded random data in five families (uniform bit patterns, narrow and wide
// exponents, cancellation pairs, the subnormal regime). Inputs are
// regenerated from the seed; the record keeps the SHA-256 of the hardware's
// D buffer, so CI replays every dot product bit for bit without storing the
// outputs.
//
// On the GPU machine (see fixtures/numerics/README.md):
//
//	datapath.test -test.run TestWriteCampaign -campaign.out IN
//	wgmma_probe IN OUT
//	datapath.test -test.run TestCheckCampaign -campaign.in IN -campaign.hw OUT -campaign.record campaign.json
var (
	campaignOut    = flag.String("campaign.out", "", "write the campaign's input batches to this directory")
	campaignHW     = flag.String("campaign.hw", "", "directory of hardware outputs TAG.D to check")
	campaignRecord = flag.String("campaign.record", "", "write the campaign record (JSON) here")
)

// CampaignSeed seeds every campaign batch (each instance mixes in its tag).
const CampaignSeed = 0xca4a_1a9e_2026

type campaignInstance struct {
	Tag string
	V   Variant
	N   int // columns of D
	T   int // problems
}

func (ci campaignInstance) batch() *Batch {
	b := NewBatchN(ci.V, ci.T, ci.N)
	h := sha256.Sum256([]byte(ci.Tag))
	b.Random(0, CampaignSeed^binary.LittleEndian.Uint64(h[:8]))
	return b
}

func (ci campaignInstance) dots() int { return ci.T * ci.V.Rows() * ci.N }

// campaignInstances lists the campaign: every wgmma m64n8 variant, wgmma at
// N=256 and with A from registers (same datapath, other operand paths), and
// the mma.sync variants.
func campaignInstances() []campaignInstance {
	const dots = 1 << 20
	var out []campaignInstance
	for _, v := range ProbeVariants() {
		out = append(out, campaignInstance{v.Name, v, 8, dots / (64 * 8)})
	}
	pv := ProbeVariants()
	for _, x := range []struct {
		i, n int
		rs   bool
	}{{1, 256, false}, {4, 256, false}, {2, 256, false}, {1, 8, true}, {0, 8, true}} {
		v := pv[x.i]
		tag := v.Name
		if x.n != 8 {
			tag += fmt.Sprintf(".n%d", x.n)
		}
		if x.rs {
			tag += ".rs"
		}
		out = append(out, campaignInstance{tag, v, x.n, dots / (64 * x.n)})
	}
	for _, v := range MMAProbeVariants() {
		out = append(out, campaignInstance{v.Name, v, 8, dots / (16 * 8)})
	}
	return out
}

// CampaignRecord is what the hardware run leaves for CI.
type CampaignRecord struct {
	Provenance map[string]string `json:"provenance"`
	Instances  []CampaignResult  `json:"instances"`
}

// CampaignResult is one instance's outcome.
type CampaignResult struct {
	Tag         string   `json:"tag"`
	Inst        string   `json:"instruction"`
	Problems    int      `json:"problems"`
	DotProducts int      `json:"dot_products"`
	HWSHA256    string   `json:"hw_sha256"`
	Mismatches  int      `json:"mismatches_vs_model_at_record_time"`
	First       []string `json:"first_mismatches,omitempty"`
}

func TestWriteCampaign(t *testing.T) {
	if *campaignOut == "" {
		t.Skip("set -campaign.out DIR to write the campaign inputs")
	}
	if err := os.MkdirAll(*campaignOut, 0o755); err != nil {
		t.Fatal(err)
	}
	// The mma.sync discovery batches ride along (targeted probes + 64 random).
	for _, v := range MMAProbeVariants() {
		b := DiscoveryBatch(v, *probesRandom)
		writeBatch(t, filepath.Join(*campaignOut, "disc"), v.Name, b)
	}
	for _, ci := range campaignInstances() {
		writeBatch(t, *campaignOut, ci.Tag, ci.batch())
	}
}

func writeBatch(t *testing.T, dir, tag string, b *Batch) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for ext, data := range map[string][]byte{".A": b.A, ".B": b.B, ".C": b.C} {
		if err := os.WriteFile(filepath.Join(dir, tag+ext), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkInstance compares hardware output with the model and fills a result.
func checkInstance(ci campaignInstance, hw []byte) CampaignResult {
	b := ci.batch()
	res := CampaignResult{Tag: ci.Tag, Inst: ci.V.Inst(ci.N), Problems: ci.T, DotProducts: ci.dots()}
	sum := sha256.Sum256(hw)
	res.HWSHA256 = hex.EncodeToString(sum[:])
	want := b.Expected(ForVariant(ci.V))
	if bytes.Equal(want, hw) {
		return res
	}
	w := accBytes(ci.V)
	for i := 0; i+w <= len(hw) && i+w <= len(want); i += w {
		if !bytes.Equal(hw[i:i+w], want[i:i+w]) {
			if len(res.First) < 20 {
				e := i / w
				p, rest := e/(b.M*b.N), e%(b.M*b.N)
				res.First = append(res.First, fmt.Sprintf("problem %d D[%d][%d]: hw %x model %x", p, rest/b.N, rest%b.N, hw[i:i+w], want[i:i+w]))
			}
			res.Mismatches++
		}
	}
	return res
}

// parallel calls f(0), ..., f(n-1), as many at once as there are CPUs, and
// returns when all have returned.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

func TestCheckCampaign(t *testing.T) {
	if *campaignHW == "" || *campaignRecord == "" {
		t.Skip("set -campaign.hw DIR -campaign.record FILE")
	}
	insts := campaignInstances()
	results := make([]CampaignResult, len(insts))
	parallel(len(insts), func(i int) {
		ci := insts[i]
		hw, err := os.ReadFile(filepath.Join(*campaignHW, ci.Tag+".D"))
		if err != nil {
			results[i] = CampaignResult{Tag: ci.Tag, First: []string{"no hardware output: " + err.Error()}, Mismatches: -1}
			return
		}
		results[i] = checkInstance(ci, hw)
	})
	rec := CampaignRecord{Provenance: map[string]string{}, Instances: results}
	for _, kv := range os.Environ() {
		for _, k := range []string{"TCSIM_GPU", "TCSIM_DRIVER", "TCSIM_CUDA", "TCSIM_DATE", "TCSIM_COMMAND", "TCSIM_COMMIT"} {
			if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
				rec.Provenance[k[len("TCSIM_"):]] = kv[len(k)+1:]
			}
		}
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(*campaignRecord, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	total, bad := 0, 0
	for _, r := range results {
		total += r.DotProducts
		if r.Mismatches != 0 {
			bad++
		}
		t.Logf("%-26s %9d dot products, %d mismatches %v", r.Tag, r.DotProducts, r.Mismatches, r.First[:min(3, len(r.First))])
	}
	t.Logf("%d instances, %d dot products, %d instances with mismatches", len(results), total, bad)
}

// TestReplayCampaign replays the recorded H100 campaign: for every instance
// the model's D buffer must hash to what the hardware produced.
// shortCampaign is the part of the recorded campaign go test -short
// replays: one instance of each main datapath (bf16, f16 and tf32, mixed
// fp8, the integer kind, mma.sync). The whole campaign (31 instances, 32 M
// dot products) runs without -short.
var shortCampaign = map[string]bool{
	"f32.bf16.bf16": true, "f16.f16.f16": true, "f32.tf32.tf32": true, "f32.e4m3.e5m2": true,
	"s32.s8.u8": true, "mma.f32.f16.f16": true,
}

func TestReplayCampaign(t *testing.T) {
	path := filepath.Join("..", "..", "fixtures", "numerics", "campaign.json")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skip("no recorded campaign yet (fixtures/numerics/campaign.json)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var rec CampaignRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	byTag := map[string]campaignInstance{}
	for _, ci := range campaignInstances() {
		byTag[ci.Tag] = ci
	}
	var wg sync.WaitGroup
	for _, r := range rec.Instances {
		if testing.Short() && !shortCampaign[r.Tag] {
			continue
		}
		ci, ok := byTag[r.Tag]
		if !ok {
			t.Errorf("%s: recorded instance is not in the campaign any more", r.Tag)
			continue
		}
		if _, approx := approximateBound[r.Tag]; approx {
			t.Logf("%s: skipped: the model is approximate (not bit-exact), see MMASyncFP8; the record keeps the H100's hash (%d mismatches with the wgmma model at record time)", r.Tag, r.Mismatches)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := ci.batch().Expected(ForVariant(ci.V))
			sum := sha256.Sum256(want)
			if got := hex.EncodeToString(sum[:]); got != r.HWSHA256 {
				t.Errorf("%s (%s): model D hashes to %s, the H100 gave %s (%d dot products)", r.Tag, r.Inst, got[:16], r.HWSHA256[:16], r.DotProducts)
			}
		}()
	}
	wg.Wait()
}
