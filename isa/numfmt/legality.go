package numfmt

import (
	"slices"
	"sort"
)

// LegalityCase is a cvt opcode with the verdict the table gives for one
// target, and a one-case kernel to let ptxas give its own.
type LegalityCase struct {
	Text       string
	Target     string
	PTXVersion int
	Legal      bool   // what the table says
	Why        string // the table's reason when illegal
	PTX        string
}

// LegalityCases lists every legal spec on its probe target, and for each
// form a set of mutations that the table calls illegal (a forbidden
// modifier added, a required one dropped, a wrong rounding mode, the
// Blackwell-only forms on sm_90a), each with a kernel for ptxas.
func LegalityCases() []LegalityCase {
	var out []LegalityCase
	seen := map[string]bool{}
	add := func(s *Spec, target string, ptx int) {
		key := s.String() + "@" + target
		if seen[key] {
			return
		}
		seen[key] = true
		c := LegalityCase{Text: s.String(), Target: target, PTXVersion: ptx}
		probeSpec := s
		if err := s.match(); err != nil {
			c.Why = err.Error()
		} else if err := s.SupportedOn(target, ptx); err != nil {
			c.Why = err.Error()
		} else {
			c.Legal = true
		}
		p := &Probe{Spec: probeSpec, Name: ProbeName(s), Target: target, PTXVersion: ptx, Kernel: "probe", Block: 32, N: 1, Set: "legality"}
		for _, o := range s.Inputs() {
			p.InBytes = append(p.InBytes, byteSize(o.Bits))
		}
		c.PTX = p.generatePTX()
		out = append(out, c)
	}
	for _, s := range AllSpecs() {
		p, err := NewProbe(s, ProbeOptions{Random: 1})
		if err != nil {
			continue
		}
		add(s, p.Target, p.PTXVersion)
		if !p.OnH100 {
			add(clone(s), "sm_90a", max(p.PTXVersion, 80))
		}
	}
	for _, f := range forms {
		specs := f.Expand()
		if len(specs) == 0 {
			continue
		}
		base := specs[0]
		p, err := NewProbe(base, ProbeOptions{Random: 1})
		if err != nil {
			continue
		}
		tgt, ver := p.Target, p.PTXVersion
		mut := func(change func(s *Spec)) {
			s := clone(base)
			change(s)
			s.Form = nil
			add(s, tgt, ver)
		}
		if f.Relu == Forbidden {
			mut(func(s *Spec) { s.Relu = true })
		}
		if f.Satfinite == Forbidden {
			mut(func(s *Spec) { s.Satfinite = true })
		}
		if f.Satfinite == Required {
			mut(func(s *Spec) { s.Satfinite = false })
		}
		if f.FTZ == Forbidden {
			mut(func(s *Spec) { s.FTZ = true })
		}
		if f.Sat == Forbidden {
			mut(func(s *Spec) { s.Sat = true })
		}
		if f.NeedMode {
			mut(func(s *Spec) { s.Mode = NoRound })
		}
		for _, m := range []Mode{RN, RZ, RM, RP, RNA, RNI} {
			if !slices.Contains(f.Modes, m) {
				mut(func(s *Spec) { s.Mode = m })
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
}

func clone(s *Spec) *Spec {
	c := *s
	c.ops = nil
	return &c
}
