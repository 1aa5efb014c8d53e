package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/launch"
)

// The hazard checker's corpus: correct kernels that compilers produced
// (the project's own, compiled by nvcc; and the production kernels that
// tcsim capture recorded on the H100 from Triton and PyTorch programs). Each
// must report no error and no warning under the lazy, eager and latest
// schedules and 20 random seeds, print at most one portability note per
// rule, and replay the H100's bytes exactly under every schedule (its
// approximate instructions too: sim/sfu models them exactly). The Blackwell kernels (tcgen05_gemm,
// the hand-written CTA-pair and block-scaled ones of fixtures/sim/blackwell)
// run too: modelled, not hardware-verified.

type hazardCorpusCase struct {
	name string
	load func(t testing.TB, opts Options) (*Machine, func(t testing.TB, m *Machine))
}

func launchCase(name string) hazardCorpusCase { return launchCaseIn("../fixtures/sim/launch", name) }

// launchCaseIn is the launch file dir/name.json (the hand-written
// Blackwell kernels live in fixtures/sim/blackwell).
func launchCaseIn(dir, name string) hazardCorpusCase {
	return hazardCorpusCase{name: name, load: func(t testing.TB, opts Options) (*Machine, func(testing.TB, *Machine)) {
		l, err := launch.ReadLaunch(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(l.PTX)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Prepare(l.PTX, src, l, opts)
		if err != nil {
			t.Fatal(err)
		}
		return m, nil
	}}
}

// recordedCase is a case directory with the H100's outputs: the run must
// reproduce them bit for bit. Approximate instructions (ex2.approx, …)
// run the special function unit's exact model (sim/sfu); one the
// simulator computes without it fails the case.
func recordedCase(dir string) hazardCorpusCase {
	return hazardCorpusCase{name: filepath.Base(dir), load: func(t testing.TB, opts Options) (*Machine, func(testing.TB, *Machine)) {
		c, err := fixtures.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Prepare(filepath.Join(dir, fixtures.PTXFile), c.PTX, c.Launch, opts)
		if err != nil {
			t.Fatal(err)
		}
		return m, func(t testing.TB, m *Machine) {
			for _, pc := range m.ApproxPCs() {
				t.Errorf("%s: computed without a bit-exact model of the special function unit: %s", m.Prog.pos(&m.Prog.Insts[pc]), m.Prog.Insts[pc].PTX)
			}
			for _, o := range c.Outputs {
				b, err := m.Buffer(o.Param)
				if err != nil {
					t.Fatal(err)
				}
				if mm := Compare(o.Param, c.Outputs, o.Data, b.Data, outputType(c.Launch, o.Param)); mm != nil {
					t.Errorf("not bit-exact: %s", mm)
				}
			}
		}
	}}
}

func hazardCorpus(t *testing.T) []hazardCorpusCase {
	cs := []hazardCorpusCase{launchCase("tcgen05_gemm")}
	bw, err := filepath.Glob("../fixtures/sim/blackwell/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range bw {
		cs = append(cs, launchCaseIn(filepath.Dir(j), strings.TrimSuffix(filepath.Base(j), ".json")))
	}
	for _, kc := range sm100Kernels { // fixtures/kernels/sm100_*.json, D checked too (sm100_kernels_test.go)
		cs = append(cs, sm100CorpusCase(kc))
	}
	for _, d := range []string{"gemm_tma_wgmma", "attention_step_exact", "attention_step", "epilogue_stmatrix", "stage_ldshared", "warp_transpose"} {
		cs = append(cs, recordedCase(filepath.Join("../fixtures/corpus", d)))
	}
	dirs, err := filepath.Glob("../fixtures/captures/*/" + fixtures.PTXFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 4 {
		t.Fatalf("want the captured production kernels in fixtures/captures, found %d", len(dirs))
	}
	for _, d := range dirs {
		cs = append(cs, recordedCase(filepath.Dir(d)))
	}
	return cs
}

func TestHazardCorpus(t *testing.T) {
	type sched struct {
		s    Schedule
		seed uint64
	}
	scheds := []sched{{Lazy, 0}, {Eager, 0}, {Latest, 0}}
	seeds := 20
	if testing.Short() {
		// the edit-test loop: one fixed and one random order
		scheds, seeds = scheds[:1], 1
	}
	for i := 1; i <= seeds; i++ {
		scheds = append(scheds, sched{Random, uint64(i)})
	}
	for _, hc := range hazardCorpus(t) {
		t.Run(hc.name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scheds {
				name := sc.s.String()
				if sc.s == Random {
					name = fmt.Sprintf("seed%d", sc.seed)
				}
				m, verify := hc.load(t, Options{Check: true, Schedule: sc.s, Seed: sc.seed})
				if err := m.Run(); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				notes := map[HazardKind]int{}
				for _, f := range m.Findings() {
					switch f.Severity {
					case SevError, SevWarning:
						t.Errorf("%s: %s %s at %s (fix %s): %s", name, f.Severity, f.Rule, f.Pos, f.Cause, f.Msg)
					case SevNote:
						notes[f.Rule]++
					}
				}
				for r, n := range notes {
					if n > 1 {
						t.Errorf("%s: %d portability notes of %s, want at most one per pattern", name, n, r)
					}
				}
				if verify != nil {
					verify(t, m)
				}
			}
		})
	}
}
