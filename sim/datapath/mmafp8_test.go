package datapath

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// The mma.sync FP8 family (mmafp8.go) on the GPU machine:
//
//	datapath.test -test.run 'TestWriteMMAFP8$' -fp8.out IN
//	wgmma_probe IN/probe HW/probe; wgmma_probe IN/rand HW/rand
//	mma_k16_probe IN/probe HW/probe; mma_k16_probe IN/rand HW/rand
//	datapath.test -test.run 'TestCheckMMAFP8$' -fp8.hw HW -fp8.record mma_fp8.json
//
// then gzip HW/probe/TAG.D into fixtures/numerics/mmafp8/TAG.D.gz and keep
// mma_fp8.json (fixtures/numerics): TestReplayMMAFP8 replays both.
var (
	fp8Out    = flag.String("fp8.out", "", "write the mma.sync FP8 family's inputs (probe/ and rand/) to this directory")
	fp8HW     = flag.String("fp8.hw", "", "directory with the hardware outputs probe/TAG.D and rand/TAG.D of the mma.sync FP8 family")
	fp8Record = flag.String("fp8.record", "", "with -fp8.hw: write the record (JSON) here")
)

// fp8RandomProblems is the number of random problems after the targeted ones.
const fp8RandomProblems = 64

type fp8Instance struct {
	Dir, Tag string
	V        Variant
	K16      bool
	batch    func() *Batch
}

func fp8Instances() []fp8Instance {
	var out []fp8Instance
	for _, k16 := range []bool{false, true} {
		vs := MMAFP8Variants()
		if k16 {
			vs = MMAFP8K16Variants()
		}
		for _, v := range vs {
			out = append(out, fp8Instance{"probe", v.Name, v, k16, func() *Batch { return MMAFP8Batch(v, k16, fp8RandomProblems) }})
			out = append(out, fp8Instance{"rand", v.Name, v, k16, func() *Batch {
				b := MMAFP8Campaign(v)
				if k16 {
					zeroHighK(b)
				}
				return b
			}})
			out = append(out, fp8Instance{"hold", v.Name, v, k16, func() *Batch {
				b := MMAFP8Holdout(v)
				if k16 {
					zeroHighK(b)
				}
				return b
			}})
		}
	}
	return out
}

// fp8Expected is the model's D for the instance. m16n8k16 problems have
// products 16..31 zero; the model sees K=16.
func fp8Expected(in fp8Instance, b *Batch) []byte {
	ev, _ := MMASync(in.V.A, in.V.B, in.V.C, false)
	if !in.K16 {
		return b.Expected(ev)
	}
	m := ev.(*Model)
	w := accBytes(in.V)
	d := make([]byte, len(b.C))
	for p := 0; p < b.T; p++ {
		a, bb, c := b.Matrices(p)
		out := m.MatMul(b.M, b.N, 16, trimK(a, 32, 16), trimK(bb, 32, 16), c)
		for i, v := range out {
			o := (p*b.M*b.N + i) * w
			if w == 2 {
				binary.LittleEndian.PutUint16(d[o:], uint16(v))
			} else {
				binary.LittleEndian.PutUint32(d[o:], uint32(v))
			}
		}
	}
	return d
}

// fp8Dot is the model's answer to one problem of the instance.
func fp8Dot(in fp8Instance, a, b []uint64, c uint64) uint64 {
	ev, _ := MMASync(in.V.A, in.V.B, in.V.C, false)
	if in.K16 {
		return ev.Dot(a[:16], b[:16], c)
	}
	return ev.Dot(a, b, c)
}

func trimK(x []uint64, from, to int) []uint64 {
	out := make([]uint64, 0, len(x)/from*to)
	for r := 0; r+from <= len(x); r += from {
		out = append(out, x[r:r+to]...)
	}
	return out
}

func TestWriteMMAFP8(t *testing.T) {
	if *fp8Out == "" {
		t.Skip("set -fp8.out DIR")
	}
	for _, in := range fp8Instances() {
		writeBatch(t, filepath.Join(*fp8Out, in.Dir), in.Tag, in.batch())
	}
}

// FP8Result is one instance of the mma.sync FP8 record: the set (probe or
// rand), then the fields of a campaign result.
type FP8Result struct {
	Dir string `json:"set"`
	CampaignResult
}

func (in fp8Instance) inst() string {
	if in.K16 {
		return strings.Replace(in.V.Inst(8), "k32", "k16", 1)
	}
	return in.V.Inst(8)
}

func checkFP8(in fp8Instance, hw []byte) FP8Result {
	b := in.batch()
	res := FP8Result{Dir: in.Dir, CampaignResult: CampaignResult{Tag: in.Tag, Inst: in.inst(), Problems: b.T, DotProducts: b.T * b.M * b.N}}
	sum := sha256.Sum256(hw)
	res.HWSHA256 = hex.EncodeToString(sum[:])
	want := fp8Expected(in, b)
	if len(want) != len(hw) {
		res.Mismatches = -1
		res.First = []string{fmt.Sprintf("hardware gave %d bytes, the batch has %d", len(hw), len(want))}
		return res
	}
	var names []string
	if in.Dir == "probe" {
		for _, p := range MMAFP8Problems(in.V, in.K16) {
			names = append(names, p.Name)
		}
	}
	w := accBytes(in.V)
	for i := 0; i < len(hw); i += w {
		if bytes.Equal(hw[i:i+w], want[i:i+w]) {
			continue
		}
		res.Mismatches++
		if len(res.First) < 40 {
			e := i / w
			p, rest := e/(b.M*b.N), e%(b.M*b.N)
			m, n := rest/b.N, rest%b.N
			name := ""
			if m == n && p*8+m < len(names) {
				name = names[p*8+m] + ": "
			}
			res.First = append(res.First, fmt.Sprintf("%sproblem %d D[%d][%d]: hw %x model %x", name, p, m, n, hw[i:i+w], want[i:i+w]))
		}
	}
	return res
}

func TestCheckMMAFP8(t *testing.T) {
	if *fp8HW == "" || *fp8Record == "" {
		t.Skip("set -fp8.hw DIR -fp8.record FILE")
	}
	ins := fp8Instances()
	results := make([]FP8Result, len(ins))
	parallel(len(ins), func(i int) {
		in := ins[i]
		hw, err := os.ReadFile(filepath.Join(*fp8HW, in.Dir, in.Tag+".D"))
		if err != nil {
			results[i] = FP8Result{Dir: in.Dir, CampaignResult: CampaignResult{Tag: in.Tag, Mismatches: -1, First: []string{"no hardware output: " + err.Error()}}}
			return
		}
		results[i] = checkFP8(in, hw)
	})
	rec := struct {
		Provenance map[string]string `json:"provenance"`
		Instances  []FP8Result       `json:"instances"`
	}{map[string]string{}, results}
	for _, k := range []string{"GPU", "DRIVER", "CUDA", "DATE", "COMMAND", "COMMIT"} {
		if v := os.Getenv("TCSIM_" + k); v != "" {
			rec.Provenance[k] = v
		}
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(*fp8Record, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range results {
		total += r.DotProducts
		t.Logf("%-5s %-24s %8d dot products, %d mismatches %v", r.Dir, r.Tag, r.DotProducts, r.Mismatches, r.First[:min(4, len(r.First))])
	}
	t.Logf("%d instances, %d dot products", len(results), total)
}

// TestReplayMMAFP8 replays the recorded mma.sync FP8 family: every output
// of the targeted batches (fixtures/numerics/mmafp8/TAG.D.gz) and the hash
// of every random set must come out of MMASyncFP8 bit for bit.
func TestReplayMMAFP8(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "numerics")
	data, err := os.ReadFile(filepath.Join(dir, "mma_fp8.json"))
	if os.IsNotExist(err) {
		t.Skip("no recorded mma.sync FP8 family yet (fixtures/numerics/mma_fp8.json)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Instances []FP8Result `json:"instances"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]fp8Instance{}
	for _, in := range fp8Instances() {
		byKey[in.Dir+"/"+in.Tag] = in
	}
	var wg sync.WaitGroup
	for _, r := range rec.Instances {
		if r.Mismatches < 0 { // not run on the hardware (see the record)
			continue
		}
		if testing.Short() && r.Dir != "probe" {
			continue // the 2^20-dot-product sets take a while
		}
		in, ok := byKey[r.Dir+"/"+r.Tag]
		if !ok {
			t.Errorf("%s/%s: recorded instance is not in the family any more", r.Dir, r.Tag)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := in.batch()
			want := fp8Expected(in, b)
			sum := sha256.Sum256(want)
			if got := hex.EncodeToString(sum[:]); got == r.HWSHA256 {
				return
			}
			if in.Dir != "probe" {
				t.Errorf("%s/%s (%s): model D hashes differently from the H100's (%d dot products)", r.Dir, r.Tag, r.Inst, r.DotProducts)
				return
			}
			hw, err := readGz(filepath.Join(dir, "mmafp8", in.Tag+".D.gz"))
			if err != nil {
				t.Errorf("%s: %v", in.Tag, err)
				return
			}
			res := checkFP8(in, hw)
			t.Errorf("%s (%s): %d outputs differ from the H100's:\n  %s", in.Tag, r.Inst, res.Mismatches, strings.Join(res.First[:min(8, len(res.First))], "\n  "))
		}()
	}
	wg.Wait()
	// The stored targeted outputs are the ones the hashes name.
	for _, r := range rec.Instances {
		if r.Dir != "probe" || r.Mismatches < 0 {
			continue
		}
		hw, err := readGz(filepath.Join(dir, "mmafp8", r.Tag+".D.gz"))
		if err != nil {
			t.Errorf("%s: %v", r.Tag, err)
			continue
		}
		if sum := sha256.Sum256(hw); hex.EncodeToString(sum[:]) != r.HWSHA256 {
			t.Errorf("%s: mmafp8/%s.D.gz does not hash to the record", r.Tag, r.Tag)
		}
	}
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

var fp8Table = flag.Bool("fp8.table", false, "with -fp8.hw: print what the hardware answered to the targeted probes")

// TestMMAFP8Table prints the step map (which product pairs cancel in the
// first step) and every non-map probe with the hardware's answer.
func TestMMAFP8Table(t *testing.T) {
	if *fp8HW == "" || !*fp8Table {
		t.Skip("set -fp8.hw DIR -fp8.table")
	}
	for _, in := range fp8Instances() {
		if in.Dir != "probe" {
			continue
		}
		hw, err := os.ReadFile(filepath.Join(*fp8HW, "probe", in.Tag+".D"))
		if err != nil {
			t.Logf("%s: %v", in.Tag, err)
			continue
		}
		b := in.batch()
		probs := MMAFP8Problems(in.V, in.K16)
		var sb strings.Builder
		survive := map[string]bool{}
		for i, p := range probs {
			got := b.CElem(hw, i/8, i%8, i%8)
			want := fp8Dot(in, p.A, p.B, p.C)
			if strings.HasPrefix(p.Name, "map/") || strings.HasPrefix(p.Name, "order/") {
				survive[p.Name] = got != 0
				if got != want {
					fmt.Fprintf(&sb, "  MISMATCH %s: hw %#x model %#x\n", p.Name, got, want)
				}
				continue
			}
			mark := ""
			if got != want {
				mark = "  MISMATCH model " + fmt.Sprintf("%#x", want)
			}
			fmt.Fprintf(&sb, "  %-48s c=%#-10x hw %#x%s\n", p.Name, p.C, got, mark)
		}
		// Summarise the map: the set of k whose pairs (with 0) cancel first.
		var keys []string
		for k := range survive {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		first := map[int]bool{}
		n := 0
		for _, k := range keys {
			var i, j, l int
			var fam string
			fmt.Sscanf(strings.NewReplacer("/", " ", "big=", "", ",", " ", "small=", "").Replace(k), "%s %d %d %d", &fam, &i, &j, &l)
			if survive[k] {
				n++
				if fam == "map" && i == 0 {
					first[j] = true
				}
			}
		}
		var ks []int
		for k := range first {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		t.Logf("%s: %d of %d map/order probes keep the small product; pairs (0,j) that do: j in %v\n%s", in.Tag, n, len(survive), ks, sb.String())
	}
}

// MatMul (used for whole problems) must agree with Dot for the family,
// both shapes.
func TestMMAFP8MatMulAgreesWithDot(t *testing.T) {
	for _, in := range fp8Instances() {
		if in.Dir != "probe" {
			continue
		}
		b := MMAFP8Batch(in.V, in.K16, 4)
		K := 32
		if in.K16 {
			K = 16
		}
		m := MMASyncFP8(in.V.A, in.V.B, in.V.C)
		for p := 0; p < b.T; p++ {
			a, bb, c := b.Matrices(p)
			a, bb = trimK(a, 32, K), trimK(bb, 32, K)
			d := m.MatMul(b.M, b.N, K, a, bb, c)
			for i := 0; i < b.M; i++ {
				for j := 0; j < b.N; j++ {
					if want := m.Dot(a[i*K:(i+1)*K], bb[j*K:(j+1)*K], c[i*b.N+j]); d[i*b.N+j] != want {
						t.Fatalf("%s problem %d (%d,%d): MatMul %#x, Dot %#x", in.Tag, p, i, j, d[i*b.N+j], want)
					}
				}
			}
		}
	}
}

// The datapath on cases worked by hand; each is also a recorded H100 answer
// (fixtures/numerics/mmafp8).
func TestMMASyncFP8Examples(t *testing.T) {
	e4m3, e5m2, f32f, f16f := mustFormat("e4m3"), mustFormat("e5m2"), mustFormat("f32"), mustFormat("f16")
	enc := func(f *numfmt.Format, x float64) uint64 {
		v, ok := exact(f, x)
		if !ok {
			t.Fatalf("%g is not exact in %s", x, f.Name)
		}
		return v
	}
	type kv map[int][2]float64
	vec := func(fa, fb *numfmt.Format, k int, m kv) (a, b []uint64) {
		a, b = make([]uint64, k), make([]uint64, k)
		for i, x := range m {
			a[i], b[i] = enc(fa, x[0]), enc(fb, x[1])
		}
		return
	}
	tests := []struct {
		name     string
		a, b, c  *numfmt.Format
		k        int
		terms    kv
		cv, want float64
	}{
		// 256 - 256 cancel exactly in step 1 (k0, k1); 2^-18 at k2 is
		// step 2's only product and survives.
		{"pair cancels in step 1", e4m3, e4m3, f32f, 32, kv{0: {16, 16}, 1: {-16, 16}, 2: {0x1p-9, 0x1p-9}}, 0, 0x1p-18},
		// 256 (k0) and -256 (k4) meet in step 1 with 2^-18 (k1): 26 bits
		// below the anchor, truncated away.
		{"same step truncates", e4m3, e4m3, f32f, 32, kv{0: {16, 16}, 4: {-16, 16}, 1: {0x1p-9, 0x1p-9}}, 0, 0},
		// Step 1 = 256 + 15·2^-18 (1.875 ulp) rounds toward zero to
		// 256 + 2^-15; step 2 takes 256 away: 2^-15.
		{"step 1 rounds toward zero", e4m3, e4m3, f32f, 32, kv{0: {16, 16}, 1: {15 * 0x1p-9, 0x1p-9}, 2: {-16, 16}}, 0, 0x1p-15},
		// f16 accumulator: step 1 = 1 + 3·2^-12 rounds to nearest (1 + 2^-10).
		{"f16 step rounds to nearest", e4m3, e4m3, f16f, 32, kv{0: {1, 1}, 1: {3 * 0x1p-9, 0x1p-3}, 2: {-1, 1}}, 0, 0x1p-10},
		// C joins last with round-to-nearest: 256 + 3·2^-17 (0.75 ulp)
		// gives 256 + 2^-15, where toward zero would give 256.
		{"C joins last, to nearest", e4m3, e4m3, f32f, 32, kv{1: {3 * 0x1p-9, 0x1p-8}}, 256, 256 + 0x1p-15},
		// C is not truncated by products that cancel.
		{"C survives cancellation", e5m2, e4m3, f32f, 32, kv{0: {16, 16}, 2: {-16, 16}}, 0x1p-100, 0x1p-100},
		// f16 step 1 overflows (448² > 65504) and stays Inf.
		{"f16 step overflow", e4m3, e4m3, f16f, 32, kv{0: {448, 448}, 2: {-448, 448}}, 0, math.Inf(1)},
		// m16n8k16: two k8 steps, k mod 4 in {0,1} first.
		{"k16 pair cancels in step 1", e4m3, e4m3, f32f, 16, kv{0: {16, 16}, 1: {-16, 16}, 2: {0x1p-9, 0x1p-9}}, 0, 0x1p-18},
	}
	for _, tt := range tests {
		m := MMASyncFP8(tt.a, tt.b, tt.c)
		a, b := vec(tt.a, tt.b, tt.k, tt.terms)
		var c, want uint64
		if math.IsInf(tt.want, 0) {
			want, _ = tt.c.Inf(tt.want < 0)
		} else {
			want = enc(tt.c, tt.want)
		}
		c = enc(tt.c, tt.cv)
		if got := m.Dot(a, b, c); got != want {
			t.Errorf("%s: got %#x, want %#x", tt.name, got, want)
		}
	}
}
