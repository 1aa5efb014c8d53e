package datapath

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// Public B200 evidence: result words that sf-tensor/tcgen05 froze from a
// B200 for tcgen05.mma, in fixtures/numerics/b200/sf_tensor_tcgen05.json
// with their provenance (the repository, the commit read, what the source
// says was measured). The numbers are facts, the code is tcsim's. The
// simulator's tcgen05 datapaths are otherwise not hardware-verified.

const b200Evidence = "../../fixtures/numerics/b200/sf_tensor_tcgen05.json"

// b200Case is one output element: A and B hold K elements (the listed
// ones first, the rest 0), C the accumulator.
type b200Case struct {
	name   string
	inst   string
	tc     TCOptions
	k      int
	a, b   []uint64
	c      uint64
	sa, sb []uint64 // scale factors (block-scaled kinds)
	want   uint64
}

// b200File is the fixture's form.
type b200File struct {
	Source struct {
		Repository string `json:"repository"`
		Commit     string `json:"commit"`
		File       string `json:"file"`
		Date       string `json:"date"`
	} `json:"source"`
	Measured string `json:"measured"`
	Vectors  []struct {
		Name      string   `json:"name"`
		Inst      string   `json:"inst"`
		M         int      `json:"m"`
		N         int      `json:"n"`
		A         string   `json:"a_type"`
		B         string   `json:"b_type"`
		D         string   `json:"d_type"`
		ScaleType string   `json:"scale_type"`
		K         int      `json:"k"`
		AV        []string `json:"a"`
		BV        []string `json:"b"`
		C         string   `json:"c"`
		SA        []string `json:"scale_a"`
		SB        []string `json:"scale_b"`
		D0        string   `json:"d"`
	} `json:"vectors"`
}

func b200Cases(t testing.TB) []b200Case {
	t.Helper()
	raw, err := os.ReadFile(b200Evidence)
	if err != nil {
		t.Fatal(err)
	}
	var f b200File
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", b200Evidence, err)
	}
	if f.Source.Repository == "" || f.Source.Commit == "" || f.Measured == "" {
		t.Fatalf("%s: the provenance (source repository, commit, what was measured) is missing", b200Evidence)
	}
	num := func(name, s string) uint64 {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("%s: vector %s: %v", b200Evidence, name, err)
		}
		return v
	}
	nums := func(name string, ss []string) []uint64 {
		var out []uint64
		for _, s := range ss {
			out = append(out, num(name, s))
		}
		return out
	}
	var cs []b200Case
	for _, v := range f.Vectors {
		cs = append(cs, b200Case{name: v.Name, inst: v.Inst,
			tc: TCOptions{M: v.M, N: v.N, A: v.A, B: v.B, D: v.D, ScaleType: v.ScaleType}, k: v.K,
			a: nums(v.Name, v.AV), b: nums(v.Name, v.BV), c: num(v.Name, v.C),
			sa: nums(v.Name, v.SA), sb: nums(v.Name, v.SB), want: num(v.Name, v.D0)})
	}
	return cs
}

// TestB200Evidence runs the labeled B200 vectors through the datapaths the
// simulator uses for tcgen05.mma.
func TestB200Evidence(t *testing.T) {
	cs := b200Cases(t)
	if len(cs) != 29 {
		t.Errorf("%s has %d vectors, the source's labeled set 29", b200Evidence, len(cs))
	}
	for _, c := range cs {
		in, err := ParseInst(c.inst, c.tc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(c.a) > c.k || len(c.b) > c.k {
			t.Fatalf("%s: more elements than K=%d", c.name, c.k)
		}
		a, b := make([]uint64, c.k), make([]uint64, c.k)
		copy(a, c.a)
		copy(b, c.b)
		var got uint64
		if in.Block != nil {
			got = in.Block.Dot(a, b, c.sa, c.sb, c.c)
		} else {
			got = in.Eval.Dot(a, b, c.c)
		}
		if got != c.want {
			t.Errorf("%s: tcsim %#x, the B200 %#x", c.name, got, c.want)
		}
	}
}

// TestB200EvidenceSeparatesModels: the K=4 carry vector is one a datapath
// that truncated every product on its own would miss by one quantum; the
// exact 16-product sums tcsim models keep the carry, as the B200 did.
func TestB200EvidenceSeparatesModels(t *testing.T) {
	found := false
	for _, c := range b200Cases(t) {
		if c.name != "nvfp4-k4-product-carry" {
			continue
		}
		found = true
		in, err := ParseInst(c.inst, c.tc)
		if err != nil {
			t.Fatal(err)
		}
		m := *in.Block
		m.Group = 1 // every product scaled and aligned on its own
		if got := m.Dot(c.a, c.b, c.sa, c.sb, c.c); got == c.want {
			t.Errorf("per-product alignment also gives %#x: the vector does not separate the models", got)
		} else {
			t.Logf("per-product alignment gives %#x, the B200 and tcsim %#x", got, c.want)
		}
	}
	if !found {
		t.Error("the nvfp4-k4-product-carry vector is missing from the fixture")
	}
}
