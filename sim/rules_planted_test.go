package sim

import "testing"

// unplantedRules are the rules with no planted variant in
// fixtures/sim/broken, and why. The README's hazard section lists them;
// TestRulesPlanted keeps the two in step with the plants.
var unplantedRules = map[HazardKind]string{
	HzProxyCpAsync: "a portability note, not a bug: the captured Triton kernels of the hazard corpus show it (TestHazardCorpus)",
	HzBankConflict: "performance, not correctness: TestBankConflicts and the README's transpose example",
}

// TestRulesPlanted: every rule has a planted variant that reports it
// (TestBrokenVariants, and TestSMShare for the SM-sharing plants, check
// each at its cause lines under every schedule), or is in unplantedRules
// with the reason.
func TestRulesPlanted(t *testing.T) {
	planted := map[HazardKind][]string{}
	for _, bc := range append(append([]brokenCase(nil), brokenCases...), smShareCases...) {
		for k := range bc.want {
			planted[k] = append(planted[k], bc.name)
		}
	}
	for _, r := range Rules() {
		why, listed := unplantedRules[r.ID]
		switch {
		case len(planted[r.ID]) == 0 && !listed:
			t.Errorf("rule %s (%s) has no planted variant in fixtures/sim/broken: plant one (sim/broken_test.go) or list it in unplantedRules with the reason", r.ID, r.Severity)
		case len(planted[r.ID]) > 0 && listed:
			t.Errorf("rule %s is planted by %v but listed as unplanted (%s): drop it from unplantedRules and the README", r.ID, planted[r.ID], why)
		}
	}
	for k := range unplantedRules {
		if _, ok := LookupRule(k); !ok {
			t.Errorf("unplantedRules lists %s, which is no rule", k)
		}
	}
}
