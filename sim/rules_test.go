package sim

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRulesDocumented checks that every rule identity declared in the
// package has a documented entry in the rule table, and that the table is
// well formed.
func TestRulesDocumented(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[HazardKind]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "HazardKind" {
				return true
			}
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok {
						declared[HazardKind(strings.Trim(bl.Value, `"`))] = name.Name
					}
				}
			}
			return true
		})
	}
	if len(declared) < 40 {
		t.Fatalf("found only %d rule declarations", len(declared))
	}
	idRe := regexp.MustCompile(`^[a-z0-9]+/[a-z0-9-]+$`)
	for id, name := range declared {
		r, ok := LookupRule(id)
		if !ok {
			t.Errorf("%s (%s) has no entry in ruleTable", name, id)
			continue
		}
		if !idRe.MatchString(string(id)) {
			t.Errorf("%s: rule id %q is not family/name", name, id)
		}
		if r.ISA == "" || r.Summary == "" || len(r.Doc) < 40 {
			t.Errorf("%s: incomplete documentation", id)
		}
	}
	for _, r := range Rules() {
		if _, ok := declared[r.ID]; !ok {
			t.Errorf("rule %s is in the table but not declared", r.ID)
		}
	}
}

func TestRulePolicy(t *testing.T) {
	var p RulePolicy
	if s, ok := p.Severity(HzProxyCpAsync, SevError); !ok || s != SevNote {
		t.Errorf("default: %v %v, want note", s, ok)
	}
	p.Strict = true
	if s, _ := p.Severity(HzProxyCpAsync, SevError); s != SevWarning {
		t.Errorf("strict: %v, want warning", s)
	}
	if s, _ := p.Severity(HzRace, SevWarning); s != SevError {
		t.Errorf("the table's severity wins: %v", s)
	}
	p.Allow = map[HazardKind]bool{HzRace: true}
	if _, ok := p.Severity(HzRace, SevError); ok {
		t.Error("an allowed rule is reported")
	}
	ids, err := MatchRules("mbarrier")
	if err != nil || len(ids) < 5 {
		t.Errorf("family: %v %v", ids, err)
	}
	if _, err := MatchRules("mbarrier/tx-mismtch"); err == nil || !strings.Contains(err.Error(), "mbarrier/tx-mismatch") {
		t.Errorf("did-you-mean: %v", err)
	}
}

func TestSpans(t *testing.T) {
	var s spans
	s.add(10, 20)
	s.add(30, 40)
	s.add(20, 30)
	s.add(5, 6)
	s.add(100, 101)
	s.add(0, 3)
	if s.size() != 3+1+30+1 || len(s) != 4 {
		t.Errorf("%v size %d", s, s.size())
	}
	if !s.overlaps(39, 50) || s.overlaps(40, 100) || !s.overlaps(0, 1) {
		t.Errorf("overlaps wrong: %v", s)
	}
	// [0,3) [5,6) [10,40) [100,101)
	for _, c := range []struct {
		lo, hi uint32
		want   bool
	}{{10, 40, true}, {12, 30, true}, {0, 3, true}, {7, 7, true}, {9, 12, false}, {30, 41, false}, {0, 6, false}, {200, 201, false}} {
		if got := s.covers(c.lo, c.hi); got != c.want {
			t.Errorf("covers(%d, %d) = %v in %v", c.lo, c.hi, got, s)
		}
	}
}

// TestAsyncExitEvidence ties the severity of async/exit-in-flight to the
// H100's answer recorded in fixtures/asyncexit: a portability note only
// while no CTA that exited with TMA stores in flight ever stored a wrong
// word, and while the control (the tile overwritten right after the stores)
// shows that the probe sees a store reading changed shared memory.
func TestAsyncExitEvidence(t *testing.T) {
	b, err := os.ReadFile("../fixtures/asyncexit/tma_exit_h100.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		GPU   string `json:"gpu"`
		Modes []struct {
			Mode       string `json:"mode"`
			Stores     uint64 `json:"tma_stores"`
			WrongWords uint64 `json:"wrong_words"`
			WrongCTAs  uint64 `json:"ctas_with_wrong_words"`
		} `json:"modes"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	modes := map[string]int{}
	for i, m := range rec.Modes {
		modes[m.Mode] = i
	}
	for _, name := range []string{"wait", "exit", "overwrite"} {
		if _, ok := modes[name]; !ok {
			t.Fatalf("%s: no %q mode", rec.GPU, name)
		}
	}
	wait, exit, ctl := rec.Modes[modes["wait"]], rec.Modes[modes["exit"]], rec.Modes[modes["overwrite"]]
	if wait.WrongWords != 0 {
		t.Fatalf("the probe's baseline (wait before exit) stored %d wrong words: the probe is broken", wait.WrongWords)
	}
	if ctl.WrongWords == 0 {
		t.Fatalf("the control stored no wrong word: the probe cannot see a store that reads changed shared memory")
	}
	want := SevNote
	if exit.WrongWords != 0 || exit.Stores == 0 {
		want = SevError
	}
	if got := rulesByID[HzAsyncExit].Severity; got != want {
		t.Errorf("%s: exiting CTAs stored %d wrong words in %d stores: async/exit-in-flight should be %v, is %v", rec.GPU, exit.WrongWords, exit.Stores, want, got)
	}
	if doc := rulesByID[HzAsyncExit].Doc; !strings.Contains(doc, "fixtures/asyncexit") {
		t.Errorf("the rule's documentation does not name its evidence")
	}
}

// TestNotHardwareVerified: a portability note rests on a hardware
// measurement (its documentation names the H100), or says plainly that it
// is not hardware-verified, in its summary, its documentation and (through
// Rule.NotHardwareVerified) next to every finding.
func TestNotHardwareVerified(t *testing.T) {
	for _, r := range Rules() {
		say := strings.Contains(r.Summary, "not hardware-verified") && strings.Contains(r.Doc, "Not hardware-verified")
		if r.NotHardwareVerified() != say {
			t.Errorf("%s: NotHardwareVerified %v, but its summary and doc say 'not hardware-verified': %v", r.ID, r.NotHardwareVerified(), say)
		}
		if r.Severity == SevNote && !r.NotHardwareVerified() && !strings.Contains(r.Doc, "H100") {
			t.Errorf("%s: a portability note whose documentation names no H100 measurement and does not say 'not hardware-verified'", r.ID)
		}
	}
	for _, id := range []HazardKind{HzTcgenLdRead, HzTcgenFenceNote} {
		if r, _ := LookupRule(id); !r.NotHardwareVerified() {
			t.Errorf("%s rests on no B200 measurement: it must say 'not hardware-verified'", id)
		}
	}
}
