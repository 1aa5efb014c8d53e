package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim"
)

// traceBackend replays a trace written by `tcsim run --trace FILE`
// (sim/trace.go): the instructions each warp executed, the registers they
// wrote (with --trace-values), asynchronous issues and completions,
// mbarrier phase changes and hazards. A position is a number of records
// applied; a step applies records up to and including the next
// instruction. Going forwards updates the state in place; going back
// rebuilds it from the first record, which costs a pass over the records
// already applied.
//
// A trace holds no memory contents, no mbarrier counts and no warp wait
// states: those panes say so. Fragments come from the PTX file when the
// trace's file can be read.
type traceBackend struct {
	path   string
	header traceHeader
	recs   []trRec
	src    []string
	srcOK  bool
	module map[int]*ptx.Instruction // source line → instruction (when the PTX parses)
	pcLine map[int]int
	lineOK map[int]bool
	// per warp: indices of its instruction records
	warpInsts map[wkey][]int
	warpKeys  []wkey
	ctaList   [][3]int

	st    trState
	stops []int // positions before each action, for back to the previous stop
	// stop is why the last action stopped: step, breakpoint (before the
	// next instruction record), hazard, limit, back or "" (the start).
	stop string
	// note says when the file was cut short ("" when it is whole).
	note string
}

type traceHeader struct {
	Version  int    `json:"version"`
	File     string `json:"file"`
	Kernel   string `json:"kernel"`
	Grid     [3]int `json:"grid"`
	Block    [3]int `json:"block"`
	Cluster  [3]int `json:"cluster"`
	Schedule string `json:"schedule"`
}

// traceJSON is every field any record type has.
type traceJSON struct {
	Type      string              `json:"type"`
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

type recType uint8

const (
	recInst recType = iota
	recEvent
	recHazard
	recEnd
)

type trVal struct {
	name string
	v    [32]uint64
}

// trRec is one record after parsing.
type trRec struct {
	typ    recType
	ev     string
	cta    [3]int
	warp   int
	pc     int
	line   int
	inst   string
	active uint32
	vals   []trVal
	kind   string
	desc   string
	thread int
	addr   uint32
	phase  uint64
	wg, op int
	hz     hazardRow
	steps  int64
	err    string
}

type wkey struct {
	cta  [3]int
	warp int
}

type mkey struct {
	cta  [3]int
	addr uint32
}

type wgKey struct {
	cta [3]int
	wg  int
	op  int
}

type wgOp struct {
	line  int
	warps uint8
}

// trState is the machine state a prefix of the trace describes.
type trState struct {
	pos      int // records applied
	insts    int64
	regs     map[wkey]map[string][32]uint64
	hazards  []hazardRow
	async    []asyncRow
	mbars    map[mkey]uint64
	wgNext   map[wkey]int // wgmma.mma_async issued per warp
	wgOps    map[wgKey]*wgOp
	wgDone   map[wgKey]bool
	end      *trRec
	last     *trRec // the last instruction record applied
	newHz    []hazardRow
	asyncEvt bool
}

// TraceVersion is the trace format the replay reads.
const traceVersion = sim.TraceVersion

func newTraceBackend(path string) (*traceBackend, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := parseTrace(path, f)
	if err != nil {
		return nil, err
	}
	b.loadSource(filepath.Dir(path))
	b.reset()
	return b, nil
}

// parseTrace reads the JSON lines of a trace. Errors name the line.
func parseTrace(path string, r io.Reader) (*traceBackend, error) {
	b := &traceBackend{path: path, pcLine: map[int]int{}, lineOK: map[int]bool{}, warpInsts: map[wkey][]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<28)
	n := 0
	seenCTA := map[[3]int]bool{}
	var torn error
	tornLine := 0
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
		var j traceJSON
		if err := json.Unmarshal(line, &j); err != nil {
			// Forgiven when it is the last line (a run killed while it
			// wrote the trace): checked on the next line.
			torn = fmt.Errorf("%s:%d: not a trace record: %v", path, n, err)
			tornLine = n
			continue
		}
		if n == 1 || b.header.Version == 0 {
			if j.Type != "header" {
				return nil, fmt.Errorf("%s:%d: a trace starts with a header record, found type %q (is this a file written by tcsim run --trace?)", path, n, j.Type)
			}
			if err := json.Unmarshal(line, &b.header); err != nil {
				return nil, fmt.Errorf("%s:%d: header: %v", path, n, err)
			}
			if b.header.Version != traceVersion {
				return nil, fmt.Errorf("%s:%d: trace format version %d; this tcsim reads version %d", path, n, b.header.Version, traceVersion)
			}
			continue
		}
		rec := trRec{cta: j.CTA, warp: -1, pc: -1, line: j.Line, inst: j.Inst, kind: j.Kind, desc: j.Desc, thread: j.Thread,
			addr: j.Addr, phase: j.Phase, wg: j.Warpgroup, op: j.Op, ev: j.Event}
		if j.Warp != nil {
			rec.warp = *j.Warp
		}
		if j.PC != nil {
			rec.pc = *j.PC
		}
		switch j.Type {
		case "inst":
			rec.typ = recInst
			if j.Warp == nil || j.PC == nil {
				return nil, fmt.Errorf("%s:%d: instruction record without warp or pc", path, n)
			}
			a, err := strconv.ParseUint(j.Active, 0, 32)
			if err != nil && j.Active != "" {
				return nil, fmt.Errorf("%s:%d: active mask %q: %v", path, n, j.Active, err)
			}
			rec.active = uint32(a)
			b.pcLine[rec.pc] = rec.line
			b.lineOK[rec.line] = true
			k := wkey{rec.cta, rec.warp}
			if _, ok := b.warpInsts[k]; !ok {
				b.warpKeys = append(b.warpKeys, k)
			}
			b.warpInsts[k] = append(b.warpInsts[k], len(b.recs))
			if !seenCTA[rec.cta] {
				seenCTA[rec.cta] = true
				b.ctaList = append(b.ctaList, rec.cta)
			}
		case "event":
			rec.typ = recEvent
			if j.Event == "" {
				return nil, fmt.Errorf("%s:%d: event record without \"event\"", path, n)
			}
		case "hazard":
			rec.typ = recHazard
			rec.hz = hazardRow{kind: j.Kind, severity: j.Severity, pos: j.Pos, line: posLine(j.Pos), cta: j.CTA, warp: rec.warp, msg: j.Msg, count: 1}
		case "end":
			rec.typ = recEnd
			rec.steps, rec.err = j.Steps, j.Error
		case "header":
			return nil, fmt.Errorf("%s:%d: a second header (two traces concatenated?)", path, n)
		default:
			return nil, fmt.Errorf("%s:%d: unknown record type %q (want inst, event, hazard or end)", path, n, j.Type)
		}
		if len(j.W) > 0 {
			names := make([]string, 0, len(j.W))
			for name := range j.W {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				vs := j.W[name]
				if len(vs) != 32 {
					return nil, fmt.Errorf("%s:%d: register %s has %d lane values, want 32", path, n, name, len(vs))
				}
				var tv trVal
				tv.name = name
				for l, s := range vs {
					x, err := strconv.ParseUint(s, 0, 64)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: register %s lane %d: %q is not a number", path, n, name, l, s)
					}
					tv.v[l] = x
				}
				rec.vals = append(rec.vals, tv)
			}
		}
		b.recs = append(b.recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b.header.Version == 0 {
		if torn != nil {
			return nil, torn
		}
		return nil, fmt.Errorf("%s: empty: no header record", path)
	}
	ended := len(b.recs) > 0 && b.recs[len(b.recs)-1].typ == recEnd
	switch {
	case torn != nil:
		b.note = fmt.Sprintf("%s: line %d is cut short; replaying the %d records before it (was tcsim run interrupted?)", baseName(path), tornLine, len(b.recs))
	case !ended:
		b.note = fmt.Sprintf("%s has no end record: it was cut short; replaying its %d records", baseName(path), len(b.recs))
	}
	sort.Slice(b.warpKeys, func(i, j int) bool {
		a, c := b.warpKeys[i], b.warpKeys[j]
		if a.cta != c.cta {
			return ctaLess(a.cta, c.cta)
		}
		return a.warp < c.warp
	})
	return b, nil
}

func ctaLess(a, b [3]int) bool {
	if a[2] != b[2] {
		return a[2] < b[2]
	}
	if a[1] != b[1] {
		return a[1] < b[1]
	}
	return a[0] < b[0]
}

// posLine reads the line of "file:line:col".
func posLine(pos string) int {
	parts := strings.Split(pos, ":")
	if len(parts) >= 3 {
		if n, err := strconv.Atoi(parts[len(parts)-2]); err == nil {
			return n
		}
	}
	if len(parts) >= 2 {
		if n, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			return n
		}
	}
	return 0
}

// loadSource reads the PTX file the header names; without it the source
// pane shows the instructions the trace records, at their lines.
func (b *traceBackend) loadSource(dir string) {
	src, _, err := readSource(b.header.File, dir)
	if err == nil {
		b.src = strings.Split(strings.TrimRight(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n"), "\n")
		b.srcOK = true
		if mod, errs := ptx.Check(b.header.File, src); mod != nil && !hasHardError(errs) {
			b.module = map[int]*ptx.Instruction{}
			for _, f := range mod.Functions() {
				if f.Body == nil {
					continue
				}
				walkInstructions(f.Body, func(in *ptx.Instruction) { b.module[int(in.Pos.Line)] = in })
			}
		}
		return
	}
	maxLine := 0
	for l := range b.lineOK {
		maxLine = max(maxLine, l)
	}
	b.src = make([]string, maxLine)
	for _, r := range b.recs {
		if r.typ == recInst && r.line > 0 {
			b.src[r.line-1] = "\t" + r.inst
		}
	}
}

func hasHardError(errs ptx.ErrorList) bool {
	for _, e := range errs {
		if !e.Warning {
			return true
		}
	}
	return false
}

func walkInstructions(blk *ptx.Block, f func(*ptx.Instruction)) {
	for _, s := range blk.Stmts {
		switch x := s.(type) {
		case *ptx.Instruction:
			f(x)
		case *ptx.Block:
			walkInstructions(x, f)
		}
	}
}
