package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// File is a trace as Read returns it.
type File struct {
	Header  Header
	Records []Record // every record after the header, in order
	// Cut is the line number of a last line that is not a whole record
	// (a run killed while it wrote the trace), 0 when there is none; the
	// records before it are read.
	Cut int
}

// Ended reports whether the trace ends with an end record: it is whole.
func (f *File) Ended() bool {
	return len(f.Records) > 0 && f.Records[len(f.Records)-1].Type == TypeEnd
}

// Note says how the trace was cut short, "" when it is whole.
func (f *File) Note(path string) string {
	switch {
	case f.Cut > 0:
		return fmt.Sprintf("%s: line %d is cut short; replaying the %d records before it (was tcsim run interrupted?)", filepath.Base(path), f.Cut, len(f.Records))
	case !f.Ended():
		return fmt.Sprintf("%s has no end record: it was cut short; replaying its %d records", filepath.Base(path), len(f.Records))
	}
	return ""
}

// record is every field any record type has, as the file spells it.
type record struct {
	Type      string              `json:"type"`
	Version   int                 `json:"version"`
	File      string              `json:"file"`
	Kernel    string              `json:"kernel"`
	Grid      [3]int              `json:"grid"`
	Block     [3]int              `json:"block"`
	Cluster   [3]int              `json:"cluster"`
	Schedule  string              `json:"schedule"`
	Seq       int64               `json:"seq"`
	CTA       [3]int              `json:"cta"`
	Warp      *int                `json:"warp"`
	PC        *int                `json:"pc"`
	Line      int                 `json:"line"`
	Inst      string              `json:"inst"`
	Active    string              `json:"active"`
	Exec      string              `json:"exec"`
	W         map[string][]string `json:"w"`
	Event     string              `json:"event"`
	Kind      string              `json:"kind"`
	Thread    int                 `json:"thread"`
	Desc      string              `json:"desc"`
	Addr      uint32              `json:"addr"`
	Phase     uint64              `json:"phase"`
	Warpgroup int                 `json:"warpgroup"`
	Op        int                 `json:"op"`
	Severity  string              `json:"severity"`
	Pos       string              `json:"pos"`
	Msg       string              `json:"msg"`
	Steps     int64               `json:"steps"`
	Hazards   int                 `json:"hazards"`
	Error     string              `json:"error"`
}

// Read reads a whole trace. Errors name path and the line: a file that
// does not start with a header, a header of another version, a record of
// an unknown type, a malformed record before the last line. A malformed
// last line is forgiven (File.Cut says so).
func Read(path string, r io.Reader) (*File, error) {
	f := &File{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<28)
	n := 0
	haveHeader := false
	var torn error
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if torn != nil {
			// A bad line before the last one: not a cut.
			return nil, torn
		}
		var j record
		if err := json.Unmarshal(line, &j); err != nil {
			// Forgiven when it is the last line: checked on the next line.
			torn = fmt.Errorf("%s:%d: not a trace record: %v", path, n, err)
			f.Cut = n
			continue
		}
		if !haveHeader {
			if j.Type != "header" {
				return nil, fmt.Errorf("%s:%d: a trace starts with a header record, found type %q (is this a file written by tcsim run --trace?)", path, n, j.Type)
			}
			if j.Version != Version {
				return nil, fmt.Errorf("%s:%d: trace format version %d; this tcsim reads version %d", path, n, j.Version, Version)
			}
			f.Header = Header{Version: j.Version, File: j.File, Kernel: j.Kernel, Grid: j.Grid, Block: j.Block, Cluster: j.Cluster, Schedule: j.Schedule}
			haveHeader = true
			continue
		}
		rec, err := j.record(path, n)
		if err != nil {
			return nil, err
		}
		f.Records = append(f.Records, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !haveHeader {
		if torn != nil {
			return nil, torn
		}
		return nil, fmt.Errorf("%s: empty: no header record", path)
	}
	return f, nil
}

// record converts the fields of a record after the header.
func (j *record) record(path string, n int) (Record, error) {
	rec := Record{Line: n}
	warp, pc := -1, -1
	if j.Warp != nil {
		warp = *j.Warp
	}
	if j.PC != nil {
		pc = *j.PC
	}
	w, err := lanes(j.W, path, n)
	if err != nil {
		return rec, err
	}
	switch j.Type {
	case "inst":
		if j.Warp == nil || j.PC == nil {
			return rec, fmt.Errorf("%s:%d: instruction record without warp or pc", path, n)
		}
		a, err := strconv.ParseUint(j.Active, 0, 32)
		if err != nil && j.Active != "" {
			return rec, fmt.Errorf("%s:%d: active mask %q: %v", path, n, j.Active, err)
		}
		e, err := strconv.ParseUint(j.Exec, 0, 32)
		if err != nil && j.Exec != "" {
			return rec, fmt.Errorf("%s:%d: exec mask %q: %v", path, n, j.Exec, err)
		}
		rec.Type = TypeInst
		rec.Inst = &Inst{Seq: j.Seq, CTA: j.CTA, Warp: warp, PC: pc, Line: j.Line, Inst: j.Inst, Active: uint32(a), Exec: uint32(e), W: w}
	case "event":
		if j.Event == "" {
			return rec, fmt.Errorf("%s:%d: event record without \"event\"", path, n)
		}
		rec.Type = TypeEvent
		rec.Event = &Event{Kind: EventKind(j.Event), CTA: j.CTA, Op: j.Kind, Thread: j.Thread, PC: pc, Desc: j.Desc,
			Addr: j.Addr, Phase: j.Phase, Warpgroup: j.Warpgroup, WgmmaOp: j.Op, Warp: warp, W: w}
	case "hazard":
		rec.Type = TypeHazard
		rec.Hazard = &Hazard{Kind: j.Kind, Severity: j.Severity, Pos: j.Pos, CTA: j.CTA, Warp: warp, Msg: j.Msg}
	case "end":
		rec.Type = TypeEnd
		rec.End = &End{Steps: j.Steps, Hazards: j.Hazards, Error: j.Error}
	case "header":
		return rec, fmt.Errorf("%s:%d: a second header (two traces concatenated?)", path, n)
	default:
		return rec, fmt.Errorf("%s:%d: unknown record type %q (want inst, event, hazard or end)", path, n, j.Type)
	}
	return rec, nil
}

// lanes reads a "w" map: registers by name, 32 hex lane values each.
func lanes(w map[string][]string, path string, n int) ([]Reg, error) {
	if len(w) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(w))
	for name := range w {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]Reg, 0, len(names))
	for _, name := range names {
		vs := w[name]
		if len(vs) != 32 {
			return nil, fmt.Errorf("%s:%d: register %s has %d lane values, want 32", path, n, name, len(vs))
		}
		r := Reg{Name: name}
		for l, s := range vs {
			x, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: register %s lane %d: %q is not a number", path, n, name, l, s)
			}
			r.Lanes[l] = x
		}
		out = append(out, r)
	}
	return out, nil
}
