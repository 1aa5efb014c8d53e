package sim_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/sim/sfu"
)

// TestTraceEx2Exact: the trace of the attention kernel built with
// ex2.approx.ftz.f32 (--trace-values) shows the special function unit's
// exact result: every lane of every ex2 in CTA 0 holds sim/sfu's model of
// its operand (the operand's lanes come from the trace's own earlier
// records), and some of them differ from the float64 approximation the
// simulator used before, which the trace would show otherwise.
func TestTraceEx2Exact(t *testing.T) {
	l, err := launch.ReadLaunch("../fixtures/sim/launch/attention_step.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(l.PTX)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	m, err := sim.Prepare(l.PTX, src, l, sim.Options{Trace: &buf, TraceValues: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	m.FlushTrace()
	ex2 := sfu.MustLookup("ex2.approx.ftz.f32")
	regs := map[[2]int]map[string][]uint64{} // (warp of CTA 0) → register → lanes
	insts, lanes, approxDiffer := 0, 0, 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec struct {
			Type string              `json:"type"`
			CTA  [3]int              `json:"cta"`
			Warp int                 `json:"warp"`
			Inst string              `json:"inst"`
			Line int                 `json:"line"`
			W    map[string][]string `json:"w"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type != "inst" && rec.Type != "event" || rec.CTA != [3]int{} {
			continue
		}
		key := [2]int{0, rec.Warp}
		if regs[key] == nil {
			regs[key] = map[string][]uint64{}
		}
		if op, ok := strings.CutPrefix(rec.Inst, "ex2.approx.ftz.f32 "); ok {
			dst, srcReg, _ := strings.Cut(op, ", ")
			in, out := regs[key][srcReg], rec.W[dst]
			if len(in) != 32 || len(out) != 32 {
				t.Fatalf("line %d %q: operand lanes %d, result lanes %d in the trace", rec.Line, rec.Inst, len(in), len(out))
			}
			insts++
			for k := range 32 {
				got, err := strconv.ParseUint(out[k], 0, 32)
				if err != nil {
					t.Fatal(err)
				}
				if want := ex2.Eval(in[k], 0); got != want {
					t.Fatalf("line %d %q lane %d: ex2(%#x) traced as %#x, the model gives %#x", rec.Line, rec.Inst, k, in[k], got, want)
				}
				if sfu.Reference(ex2, in[k], 0) != got {
					approxDiffer++
				}
				lanes++
			}
		}
		for name, vals := range rec.W {
			v := make([]uint64, len(vals))
			for k, s := range vals {
				if v[k], err = strconv.ParseUint(s, 0, 64); err != nil {
					t.Fatal(err)
				}
			}
			regs[key][name] = v
		}
	}
	if insts == 0 {
		t.Fatal("no ex2.approx.ftz.f32 in CTA 0's trace")
	}
	if approxDiffer == 0 {
		t.Errorf("in %d lanes the exact ex2 never differs from the float64 approximation: the test shows nothing", lanes)
	}
	t.Logf("%d ex2.approx.ftz.f32 in CTA 0, %d lanes exact; %d of them differ from the float64 approximation", insts, lanes, approxDiffer)
}
