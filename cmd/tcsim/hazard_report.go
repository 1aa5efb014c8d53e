package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim"
)

// Reports of the hazard checker's findings: text (grouped, the explanation
// once per finding), brief (one line per finding), JSON and SARIF 2.1.0
// (for CI code scanning).

// reportFormat is --format.
type reportFormat string

const (
	fmtText  reportFormat = "text"
	fmtJSON  reportFormat = "json"
	fmtSARIF reportFormat = "sarif"
)

func parseReportFormat(s string) (reportFormat, error) {
	switch reportFormat(s) {
	case fmtText, fmtJSON, fmtSARIF:
		return reportFormat(s), nil
	}
	return "", fmt.Errorf("want text, json or sarif")
}

// hazardReport is everything a report needs.
type hazardReport struct {
	kernel   string
	ptxPath  string
	schedule string
	prog     *sim.Program
	findings []sim.Finding
	// suppressed counts observations of --allow'ed rules.
	suppressed map[sim.HazardKind]int
	src        *sim.SourceReader
	check      bool
}

// counts returns the numbers of findings per severity.
func (r *hazardReport) counts() (errs, warns, notes, perf int) {
	for _, f := range r.findings {
		switch f.Severity {
		case sim.SevError:
			errs++
		case sim.SevWarning:
			warns++
		case sim.SevNote:
			notes++
		default:
			perf++
		}
	}
	return
}

// failed reports whether an error or a warning was reported.
func (r *hazardReport) failed() bool {
	e, w, _, _ := r.counts()
	return e+w > 0
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// summary is "2 errors, 1 portability note".
func (r *hazardReport) summary() string {
	e, w, n, p := r.counts()
	var parts []string
	if e > 0 {
		parts = append(parts, countOf(e, "error", "errors"))
	}
	if w > 0 {
		parts = append(parts, countOf(w, "warning", "warnings"))
	}
	if n > 0 {
		parts = append(parts, countOf(n, "portability note", "portability notes"))
	}
	if p > 0 {
		parts = append(parts, countOf(p, "performance finding", "performance findings"))
	}
	if len(parts) == 0 {
		return "no hazards"
	}
	return strings.Join(parts, ", ")
}

// srcLine is the kernel-source position and text behind a PTX position.
func (r *hazardReport) srcLine(p ptx.Position) (sim.SourceLoc, string, bool) {
	if r.prog == nil || !p.IsValid() {
		return sim.SourceLoc{}, "", false
	}
	s, ok := r.prog.SourceOf(int(p.Line))
	if !ok {
		return s, "", false
	}
	return s, r.src.Line(s.File, s.Line), true
}

func (r *hazardReport) inst(p ptx.Position) string {
	if r.prog == nil || !p.IsValid() {
		return ""
	}
	pcs := r.prog.PCsAtLine(int(p.Line))
	if len(pcs) == 0 {
		return ""
	}
	return r.prog.Insts[pcs[0]].PTX.String()
}

// writeText prints the findings grouped: the rule and message, where it
// shows, the line to fix, the other party (with their kernel-source lines
// when .loc says), the sites, the scope, and the explanation once.
func (r *hazardReport) writeText(w io.Writer) {
	shown := 0
	for _, f := range r.findings {
		if f.Severity == sim.SevPerf && !r.check {
			continue
		}
		shown++
		fmt.Fprintf(w, "%s [%s]%s %s\n", f.Severity, f.Rule, unverified(f.Rule), f.Msg)
		r.textPos(w, "at", f.Pos)
		if f.Cause != f.Pos {
			r.textPos(w, "fix", f.Cause)
		}
		if f.Related.IsValid() && f.Related != f.Cause {
			r.textPos(w, "with", f.Related)
		}
		if len(f.Sites) > 1 {
			fmt.Fprintf(w, "  sites: %s\n", siteList(f.Sites, 8))
		}
		fmt.Fprintf(w, "  scope: %s\n", scope(f))
		if len(f.Consequences) > 0 {
			fmt.Fprintf(w, "  consequences (this run's; they vary with --schedule): %s\n", consequenceList(f.Consequences, 6))
		}
		if f.Detail != "" {
			for i, l := range strings.Split(f.Detail, "\n") {
				if i == 0 {
					fmt.Fprintf(w, "  why: %s\n", l)
				} else {
					fmt.Fprintf(w, "       %s\n", l)
				}
			}
		}
		if f.PTXAS != "" {
			fmt.Fprintf(w, "  ptxas: %s\n", f.PTXAS)
		}
		if rule, ok := sim.LookupRule(f.Rule); ok {
			fmt.Fprintf(w, "  rule: %s (PTX ISA %s; tcsim run --rules %s)\n", rule.Summary, rule.ISA, f.Rule)
		}
	}
	r.writeAllowed(w)
	if shown > 0 || r.check {
		fmt.Fprintf(w, "%s\n", r.summary())
	}
}

// writeAllowed prints the rules --allow silenced, with their counts.
func (r *hazardReport) writeAllowed(w io.Writer) {
	if len(r.suppressed) == 0 {
		return
	}
	var ks []string
	for k, n := range r.suppressed {
		ks = append(ks, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(ks)
	fmt.Fprintf(w, "allowed (not reported): %s\n", strings.Join(ks, ", "))
}

// unverified is " (not hardware-verified)" for a rule whose severity no
// hardware measurement backs (sim.Rule.NotHardwareVerified), else "".
func unverified(id sim.HazardKind) string {
	if r, ok := sim.LookupRule(id); ok && r.NotHardwareVerified() {
		return " (not hardware-verified)"
	}
	return ""
}

// consequenceList is "async/overlapping-writes at 817 ×24;
// async/read-before-complete at 359, 380, 407, … ×256", one part per rule
// (at most max lines each).
func consequenceList(cs []sim.Consequence, max int) string {
	var parts []string
	for i := 0; i < len(cs); {
		j, n := i, 0
		var lines []string
		for ; j < len(cs) && cs[j].Rule == cs[i].Rule; j++ {
			n += cs[j].Count
			if len(lines) < max {
				lines = append(lines, fmt.Sprint(cs[j].Pos.Line))
			} else if len(lines) == max {
				lines = append(lines, "…")
			}
		}
		p := fmt.Sprintf("%s at %s", cs[i].Rule, strings.Join(lines, ", "))
		if n > 1 {
			p += fmt.Sprintf(" ×%d", n)
		}
		parts = append(parts, p)
		i = j
	}
	return strings.Join(parts, "; ")
}

func (r *hazardReport) textPos(w io.Writer, label string, p ptx.Position) {
	fmt.Fprintf(w, "  %-4s %s", label, p)
	if in := r.inst(p); in != "" {
		fmt.Fprintf(w, "  %s", short(in))
	}
	fmt.Fprintln(w)
	if s, text, ok := r.srcLine(p); ok {
		fmt.Fprintf(w, "       %s", s)
		if text != "" {
			fmt.Fprintf(w, "  %s", shortN(text, 80))
		}
		fmt.Fprintln(w)
		if s.InlinedAt != nil {
			fmt.Fprintf(w, "       inlined at %s", *s.InlinedAt)
			if t := r.src.Line(s.InlinedAt.File, s.InlinedAt.Line); t != "" {
				fmt.Fprintf(w, "  %s", shortN(t, 80))
			}
			fmt.Fprintln(w)
		}
	}
}

func shortN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// siteList is "line 538 ← 457 ×8, 540 ← 457 ×8, … (and 3 more)".
func siteList(ss []sim.Site, max int) string {
	var parts []string
	for i, s := range ss {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(ss)-max))
			break
		}
		p := fmt.Sprint(s.Pos.Line)
		if s.Cause.IsValid() && s.Cause != s.Pos {
			p = fmt.Sprintf("%d (fix %d)", s.Pos.Line, s.Cause.Line)
		}
		if s.Related.IsValid() {
			p += fmt.Sprintf(" ← %d", s.Related.Line)
		}
		if s.Count > 1 {
			p += fmt.Sprintf(" ×%d", s.Count)
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%d: lines %s", len(ss), strings.Join(parts, ", "))
}

func scope(f sim.Finding) string {
	var parts []string
	parts = append(parts, countOf(f.CTAs, "CTA", "CTAs"))
	if f.Warps > 0 {
		parts = append(parts, countOf(f.Warps, "warp", "warps"), countOf(f.Threads, "thread", "threads"))
	}
	if f.Bytes > 0 {
		parts = append(parts, countOf(f.Bytes, "shared byte", "shared bytes"))
	}
	parts = append(parts, fmt.Sprintf("seen %s", countOf(f.Count, "time", "times")))
	return strings.Join(parts, ", ")
}

// writeBrief prints one line per finding, at the line to fix.
func (r *hazardReport) writeBrief(w io.Writer) {
	for _, f := range r.findings {
		if f.Severity == sim.SevPerf && !r.check {
			continue
		}
		var extra []string
		if len(f.Sites) > 1 {
			extra = append(extra, fmt.Sprintf("%d sites", len(f.Sites)))
		}
		if len(f.Consequences) > 0 {
			extra = append(extra, countOf(len(f.Consequences), "consequence", "consequences"))
		}
		x := ""
		if len(extra) > 0 {
			x = " (" + strings.Join(extra, ", ") + ")"
		}
		fmt.Fprintf(w, "%s: %s [%s]%s %s%s\n", f.Cause, f.Severity, f.Rule, unverified(f.Rule), f.Msg, x)
	}
	r.writeAllowed(w)
	if len(r.findings) > 0 || r.check {
		fmt.Fprintf(w, "%s\n", r.summary())
	}
}

// JSON --------------------------------------------------------------------------

type jsonLoc struct {
	File   string     `json:"file"`
	Line   int        `json:"line"`
	Col    int        `json:"col,omitempty"`
	Inst   string     `json:"instruction,omitempty"`
	Source *jsonSrcLn `json:"source,omitempty"`
}

type jsonSrcLn struct {
	File      string     `json:"file"`
	Line      int        `json:"line"`
	Col       int        `json:"col,omitempty"`
	Text      string     `json:"text,omitempty"`
	InlinedAt *jsonSrcLn `json:"inlined_at,omitempty"`
}

type jsonSite struct {
	At      jsonLoc  `json:"at"`
	Cause   *jsonLoc `json:"cause,omitempty"`
	Related *jsonLoc `json:"related,omitempty"`
	Message string   `json:"message"`
	Count   int      `json:"count"`
}

type jsonConsequence struct {
	Rule string `json:"rule"`
	jsonSite
}

type jsonFinding struct {
	Rule     string     `json:"rule"`
	Severity string     `json:"severity"`
	ISA      string     `json:"isa,omitempty"`
	Message  string     `json:"message"`
	Detail   string     `json:"detail,omitempty"`
	PTXAS    string     `json:"ptxas,omitempty"`
	At       jsonLoc    `json:"at"`
	Cause    jsonLoc    `json:"cause"`
	Related  *jsonLoc   `json:"related,omitempty"`
	Sites    []jsonSite `json:"sites"`
	Count    int        `json:"count"`
	CTAs     int        `json:"ctas"`
	Warps    int        `json:"warps"`
	Threads  int        `json:"threads"`
	Bytes    int        `json:"bytes"`
	// Consequences: observations of other rules this root cause explains
	// (what this run's schedule showed of them)
	Consequences []jsonConsequence `json:"consequences,omitempty"`
	// NotHardwareVerified: no hardware measurement backs the rule's severity
	NotHardwareVerified bool `json:"not_hardware_verified,omitempty"`
}

type jsonReport struct {
	Kernel     string         `json:"kernel"`
	PTX        string         `json:"ptx"`
	Schedule   string         `json:"schedule"`
	Summary    map[string]int `json:"summary"`
	Findings   []jsonFinding  `json:"findings"`
	Suppressed map[string]int `json:"allowed,omitempty"`
}

func (r *hazardReport) jloc(p ptx.Position) jsonLoc {
	l := jsonLoc{File: p.Filename, Line: int(p.Line), Col: int(p.Col), Inst: r.inst(p)}
	if s, text, ok := r.srcLine(p); ok {
		l.Source = &jsonSrcLn{File: s.File, Line: s.Line, Col: s.Col, Text: text}
		if s.InlinedAt != nil {
			l.Source.InlinedAt = &jsonSrcLn{File: s.InlinedAt.File, Line: s.InlinedAt.Line, Col: s.InlinedAt.Col,
				Text: r.src.Line(s.InlinedAt.File, s.InlinedAt.Line)}
		}
	}
	return l
}

func (r *hazardReport) jlocp(p ptx.Position) *jsonLoc {
	if !p.IsValid() {
		return nil
	}
	l := r.jloc(p)
	return &l
}

func (r *hazardReport) jsite(s sim.Site) jsonSite {
	return jsonSite{At: r.jloc(s.Pos), Cause: r.jlocp(s.Cause), Related: r.jlocp(s.Related), Message: s.Msg, Count: s.Count}
}

func (r *hazardReport) writeJSON(w io.Writer) error {
	e, wn, n, p := r.counts()
	out := jsonReport{Kernel: r.kernel, PTX: r.ptxPath, Schedule: r.schedule,
		Summary:  map[string]int{"errors": e, "warnings": wn, "notes": n, "perf": p},
		Findings: []jsonFinding{}}
	for _, f := range r.findings {
		jf := jsonFinding{Rule: string(f.Rule), Severity: f.Severity.String(), Message: f.Msg, Detail: f.Detail, PTXAS: f.PTXAS,
			At: r.jloc(f.Pos), Cause: r.jloc(f.Cause), Related: r.jlocp(f.Related),
			Count: f.Count, CTAs: f.CTAs, Warps: f.Warps, Threads: f.Threads, Bytes: f.Bytes}
		if rule, ok := sim.LookupRule(f.Rule); ok {
			jf.ISA = rule.ISA
			jf.NotHardwareVerified = rule.NotHardwareVerified()
		}
		for _, s := range f.Sites {
			jf.Sites = append(jf.Sites, r.jsite(s))
		}
		for _, c := range f.Consequences {
			jf.Consequences = append(jf.Consequences, jsonConsequence{Rule: string(c.Rule), jsonSite: r.jsite(c.Site)})
		}
		out.Findings = append(out.Findings, jf)
	}
	if len(r.suppressed) > 0 {
		out.Suppressed = map[string]int{}
		for k, v := range r.suppressed {
			out.Suppressed[string(k)] = v
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// SARIF 2.1.0 ----------------------------------------------------------------------

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string            `json:"id"`
	ShortDescription sarifText         `json:"shortDescription"`
	FullDescription  sarifText         `json:"fullDescription"`
	Help             sarifText         `json:"help"`
	DefaultConfig    sarifConfig       `json:"defaultConfiguration"`
	Properties       map[string]string `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Properties       map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID       int           `json:"id,omitempty"`
	Physical sarifPhysical `json:"physicalLocation"`
	Message  *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
	Region   sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

func sarifLevel(s sim.Severity) string {
	switch s {
	case sim.SevError:
		return "error"
	case sim.SevWarning:
		return "warning"
	}
	return "note"
}

func sarifLocAt(file string, line, col int, msg string, id int) sarifLocation {
	uri := filepath.ToSlash(file)
	if filepath.IsAbs(file) {
		uri = "file://" + uri
	}
	l := sarifLocation{ID: id, Physical: sarifPhysical{Artifact: sarifArtifact{URI: uri}, Region: sarifRegion{StartLine: max(line, 1), StartColumn: col}}}
	if msg != "" {
		l.Message = &sarifText{Text: msg}
	}
	return l
}

func (r *hazardReport) writeSARIF(w io.Writer) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "tcsim", Version: Version, InformationURI: "https://github.com/tcsim/tcsim"}}, Results: []sarifResult{}}
	index := map[sim.HazardKind]int{}
	for _, rule := range sim.Rules() {
		index[rule.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: string(rule.ID),
			ShortDescription: sarifText{rule.Summary}, FullDescription: sarifText{rule.Doc}, Help: sarifText{rule.Doc},
			DefaultConfig: sarifConfig{Level: sarifLevel(rule.Severity)}, Properties: map[string]string{"isa": "PTX ISA " + rule.ISA}})
	}
	for _, f := range r.findings {
		res := sarifResult{RuleID: string(f.Rule), RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message:    sarifText{f.Msg + unverified(f.Rule) + sarifDetail(f)},
			Properties: map[string]any{"count": f.Count, "ctas": f.CTAs, "warps": f.Warps, "threads": f.Threads, "bytes": f.Bytes, "sites": len(f.Sites), "consequences": len(f.Consequences)}}
		c := f.Cause
		res.Locations = []sarifLocation{sarifLocAt(c.Filename, int(c.Line), int(c.Col), "", 0)}
		id := 1
		rel := func(p ptx.Position, what string) {
			if !p.IsValid() {
				return
			}
			res.RelatedLocations = append(res.RelatedLocations, sarifLocAt(p.Filename, int(p.Line), int(p.Col), what, id))
			id++
			if s, _, ok := r.srcLine(p); ok {
				res.RelatedLocations = append(res.RelatedLocations, sarifLocAt(s.File, s.Line, s.Col, what+" (kernel source)", id))
				id++
			}
		}
		if s, _, ok := r.srcLine(c); ok {
			res.RelatedLocations = append(res.RelatedLocations, sarifLocAt(s.File, s.Line, s.Col, "the line to fix (kernel source)", id))
			id++
		}
		if f.Pos != f.Cause {
			rel(f.Pos, "where it shows")
		}
		if f.Related.IsValid() && f.Related != f.Cause {
			rel(f.Related, "the other instruction")
		}
		for _, s := range f.Sites[1:] {
			if id > 20 {
				break
			}
			rel(s.Pos, "another site")
		}
		for _, c := range f.Consequences {
			if id > 24 {
				break
			}
			rel(c.Pos, "a consequence: "+string(c.Rule))
		}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifDetail(f sim.Finding) string {
	s := ""
	if len(f.Sites) > 1 {
		s = fmt.Sprintf(" (%d sites)", len(f.Sites))
	}
	if len(f.Consequences) > 0 {
		s += "\nconsequences: " + consequenceList(f.Consequences, 6)
	}
	if f.Detail != "" {
		s += "\n" + f.Detail
	}
	return s
}

// writeRules prints the rule table, or the documentation of the rules
// that match patterns.
func writeRules(w io.Writer, patterns []string) error {
	if len(patterns) == 0 {
		rules := sim.Rules()
		width := 0
		for _, r := range rules {
			width = max(width, len(r.ID))
		}
		fmt.Fprintf(w, "%-*s  %-8s  %s\n", width, "RULE", "SEVERITY", "WHAT IT REPORTS")
		for _, r := range rules {
			fmt.Fprintf(w, "%-*s  %-8s  %s\n", width, r.ID, r.Severity, r.Summary)
		}
		fmt.Fprintln(w, "\n'tcsim run --rules RULE|FAMILY' prints a rule's documentation and ISA section;")
		fmt.Fprintln(w, "--allow RULE silences one; --strict reports portability notes as warnings.")
		return nil
	}
	for i, p := range patterns {
		ids, err := sim.MatchRules(p)
		if err != nil {
			return usagef("--rules: %v", err)
		}
		for j, id := range ids {
			if i+j > 0 {
				fmt.Fprintln(w)
			}
			r, _ := sim.LookupRule(id)
			fmt.Fprintf(w, "%s (%s)\n  %s\n  PTX ISA %s\n\n", r.ID, r.Severity, r.Summary, r.ISA)
			for _, l := range wrap(r.Doc, 88) {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	return nil
}

// wrap breaks s into lines of at most n columns at spaces.
func wrap(s string, n int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > n {
			out = append(out, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
