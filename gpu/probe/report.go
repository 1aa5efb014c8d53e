package probe

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// Status is the verdict on one catalog atom.
type Status int

const (
	Verified  Status = iota // every check of the atom agreed with the hardware
	Mismatch                // a check found a (thread, value) or cell the hardware put elsewhere
	Failed                  // a probe could not run, or its output could not be decoded
	NeedsArch               // the atom needs another architecture (tcgen05, TMEM, sm_100a-only SMEM layouts)
	NotRun                  // the atom has probes, but none ran (the GPU cannot run them, or nothing was recorded)
)

func (s Status) String() string {
	return [...]string{"verified", "MISMATCH", "ERROR", "needs-arch", "not-run"}[s]
}

// Verdict is what the probes say about one atom.
type Verdict struct {
	Atom     catalog.Atom
	Status   Status
	Outcomes []Outcome // the checks of the atom that ran
	Reason   string    // for NeedsArch and NotRun; for Failed, the error
}

// Text is the verdict in words, as `tcsim verify layouts` prints it.
func (v Verdict) Text() string {
	switch v.Status {
	case Verified:
		var n []string
		for _, o := range v.Outcomes {
			n = append(n, fmt.Sprintf("%s: %d %s", o.Case, o.Compared, o.Unit))
		}
		return "verified (" + strings.Join(n, "; ") + ")"
	case Mismatch:
		for _, o := range v.Outcomes {
			if o.Err == nil && o.Mismatches > 0 {
				return fmt.Sprintf("MISMATCH in %s: %d of %d %s differ; first: %s", o.Case, o.Mismatches, o.Compared, o.Unit, o.First)
			}
		}
	case Failed:
		return "ERROR: " + v.Reason
	}
	return v.Reason
}

// ChecksFor lists every check of every case for the atom named name.
func ChecksFor(name string) []Check {
	var out []Check
	for _, c := range Cases() {
		for _, k := range c.Checks {
			if k.Atom == name {
				out = append(out, k)
			}
		}
	}
	return out
}

// CaseError says that a case did not run or could not be read; every
// check of the case fails with it.
type CaseError struct {
	Case string
	Err  error
}

// Judge turns the outcomes of the cases that ran into a verdict for every
// catalog atom, in catalog order. notRun gives, for cases that did not
// run, why not (e.g. "needs sm_90a; this GPU is sm_80").
func Judge(outcomes []Outcome, caseErrs []CaseError, notRun map[string]string) []Verdict {
	byAtom := map[string][]Outcome{}
	for _, o := range outcomes {
		byAtom[o.Atom] = append(byAtom[o.Atom], o)
	}
	errs := map[string]error{}
	for _, e := range caseErrs {
		errs[e.Case] = e.Err
	}
	var out []Verdict
	for _, a := range catalog.All() {
		v := Verdict{Atom: a, Outcomes: byAtom[a.Name]}
		if a.NeedsArch != "" {
			v.Status, v.Reason = NeedsArch, "needs "+a.NeedsArch+", not verified"
			out = append(out, v)
			continue
		}
		checks := ChecksFor(a.Name)
		var failed []string
		for _, k := range checks {
			if err, ok := errs[k.Case]; ok {
				failed = append(failed, fmt.Sprintf("%s: %v", k.Case, err))
			}
		}
		for _, o := range v.Outcomes {
			if o.Err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", o.Case, o.Err))
			}
		}
		mismatch := false
		for _, o := range v.Outcomes {
			if o.Err == nil && !o.OK() {
				mismatch = true
			}
		}
		switch {
		case len(checks) == 0:
			v.Status, v.Reason = NotRun, "no probe covers this atom"
		case mismatch:
			v.Status = Mismatch
		case len(failed) > 0:
			v.Status, v.Reason = Failed, strings.Join(failed, "; ")
		case len(v.Outcomes) == 0:
			var why []string
			for _, k := range checks {
				if r := notRun[k.Case]; r != "" && !contains(why, r) {
					why = append(why, r)
				}
			}
			if len(why) == 0 {
				why = []string{"its probes did not run"}
			}
			v.Status, v.Reason = NotRun, strings.Join(why, "; ")
		default:
			v.Status = Verified
		}
		out = append(out, v)
	}
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Summary counts verdicts: "223 verified, 0 mismatched, 0 errors, 61 need
// sm_100a (not verified)".
func Summary(vs []Verdict) string {
	n := map[Status]int{}
	arches := map[string]int{}
	for _, v := range vs {
		n[v.Status]++
		if v.Status == NeedsArch {
			arches[v.Atom.NeedsArch]++
		}
	}
	parts := []string{fmt.Sprintf("%d verified", n[Verified]), fmt.Sprintf("%d mismatched", n[Mismatch]), fmt.Sprintf("%d errors", n[Failed])}
	var keys []string
	for a := range arches {
		keys = append(keys, a)
	}
	sort.Strings(keys)
	for _, a := range keys {
		parts = append(parts, fmt.Sprintf("%d need %s (not verified)", arches[a], a))
	}
	if n[NotRun] > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", n[NotRun]))
	}
	return fmt.Sprintf("%s: %s", plural(len(vs), "atom"), strings.Join(parts, ", "))
}

// plural is "1 atom" or "2 atoms".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Supports reports whether a GPU of compute capability major.minor runs
// PTX for target (sm_90a code runs on sm_90 only).
func Supports(target string, major, minor int) bool {
	var tm, tn int
	var a string
	fmt.Sscanf(strings.TrimPrefix(target, "sm_"), "%1d%1d%s", &tm, &tn, &a)
	if a == "a" {
		return major == tm && minor == tn
	}
	return major > tm || (major == tm && minor >= tn)
}

// CheckOutput runs every check of c on its recorded output.
func (c *Case) CheckOutput(out []byte) []Outcome {
	res := make([]Outcome, len(c.Checks))
	for i, k := range c.Checks {
		res[i] = k.Run(out)
	}
	return res
}

// RecordCase builds the fixture case of c from one run's output.
func (c *Case) RecordCase(out []byte, prov fixtures.Provenance) *fixtures.Case {
	return &fixtures.Case{PTX: []byte(c.PTX), Launch: c.Launch(),
		Outputs: []fixtures.CaseOutput{{Param: "out", Data: out}}, Provenance: prov}
}

// ErrNotRecorded marks a case with no recording under the fixtures
// directory.
var ErrNotRecorded = errors.New("not recorded")

// LoadRecorded loads the recording of c under root (root/<c.Name>) and
// returns its output, after checking that it was recorded from the probe
// gpu/probe generates now: the same PTX and the same inputs.
func (c *Case) LoadRecorded(root string) ([]byte, *fixtures.Case, error) {
	dir := filepath.Join(root, c.Name)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: %w", dir, ErrNotRecorded)
	}
	fc, err := fixtures.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	rerecord := ""
	if fc.Provenance.Command != "" {
		rerecord = "; re-record with: " + fc.Provenance.Command
	}
	if string(fc.PTX) != c.PTX {
		return nil, fc, fmt.Errorf("%s: kernel.ptx differs from the probe gpu/probe generates now%s", dir, rerecord)
	}
	if len(fc.Launch.Params) != 2 {
		return nil, fc, fmt.Errorf("%s: the launch has %d parameters, want in and out", dir, len(fc.Launch.Params))
	}
	in, err := fc.Launch.Params[0].Contents()
	if err != nil {
		return nil, fc, err
	}
	if !bytes.Equal(in, c.In) {
		return nil, fc, fmt.Errorf("%s: the recorded inputs differ from the probe's%s", dir, rerecord)
	}
	if g, w := fc.Launch.Grid, (launch.Dim3{uint32(c.Jobs), 1, 1}); g != w {
		return nil, fc, fmt.Errorf("%s: grid %s, the probe has %d CTAs%s", dir, g, c.Jobs, rerecord)
	}
	out, ok := fc.Output("out")
	if !ok {
		return nil, fc, fmt.Errorf("%s: no recorded output \"out\"", dir)
	}
	return out, fc, nil
}

// Replay checks every case recorded under root against the catalog,
// without a GPU. Cases that are not recorded are reported as not run.
func Replay(root string) ([]Verdict, []*fixtures.Case, error) { return ReplayCases(root, Cases()) }

// ReplayCases is Replay for some of the cases; the atoms of the others are
// reported as not run.
func ReplayCases(root string, cases []*Case) ([]Verdict, []*fixtures.Case, error) {
	var outcomes []Outcome
	var caseErrs []CaseError
	var recorded []*fixtures.Case
	notRun := map[string]string{}
	for _, c := range cases {
		out, fc, err := c.LoadRecorded(root)
		if errors.Is(err, ErrNotRecorded) {
			notRun[c.Name] = "not recorded under " + root
			continue
		}
		if err != nil {
			caseErrs = append(caseErrs, CaseError{c.Name, err})
			continue
		}
		recorded = append(recorded, fc)
		outcomes = append(outcomes, c.CheckOutput(out)...)
	}
	if len(recorded) == 0 && len(caseErrs) == 0 {
		return nil, nil, fmt.Errorf("no layout probe fixtures under %s (record them with: tcsim verify layouts --gpu --record %s)", root, root)
	}
	return Judge(outcomes, caseErrs, notRun), recorded, nil
}
