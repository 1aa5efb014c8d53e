package tui

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/sim/trace"
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
	header trace.Header
	recs   []trace.Record
	src    []string
	srcOK  bool
	module map[int]*ptx.Instruction // source line → instruction (when the PTX parses)
	pcLine map[int]int
	lineOK map[int]bool
	// regsByPC caches the register names of each pc's instruction, and
	// instByPC the instruction of a pc parsed from a record's text (when
	// the source is not at hand).
	regsByPC map[int][]string
	instByPC map[int]*ptx.Instruction
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
	halt func() bool // asked by run after every record (setHalt)
	smap *srcMap     // the source behind the PTX, when it compiles
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
	end      *trace.End
	last     *trace.Inst // the last instruction record applied
	newHz    []hazardRow
	asyncEvt bool
}

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

// parseTrace reads a trace (package sim/trace) and indexes its
// instruction records by warp, pc and line.
func parseTrace(path string, r io.Reader) (*traceBackend, error) {
	f, err := trace.Read(path, r)
	if err != nil {
		return nil, err
	}
	b := &traceBackend{path: path, header: f.Header, recs: f.Records, note: f.Note(path),
		pcLine: map[int]int{}, lineOK: map[int]bool{}, warpInsts: map[wkey][]int{}}
	seenCTA := map[[3]int]bool{}
	for i, rec := range b.recs {
		in := rec.Inst
		if in == nil {
			continue
		}
		b.pcLine[in.PC] = in.Line
		b.lineOK[in.Line] = true
		k := wkey{in.CTA, in.Warp}
		if _, ok := b.warpInsts[k]; !ok {
			b.warpKeys = append(b.warpKeys, k)
		}
		b.warpInsts[k] = append(b.warpInsts[k], i)
		if !seenCTA[in.CTA] {
			seenCTA[in.CTA] = true
			b.ctaList = append(b.ctaList, in.CTA)
		}
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

// loadSource reads the PTX file the header names; without it the source
// pane shows the instructions the trace records, at their lines.
func (b *traceBackend) loadSource(dir string) {
	src, at, err := readSource(b.header.File, dir)
	if err == nil {
		b.src = strings.Split(strings.TrimRight(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n"), "\n")
		b.srcOK = true
		if p, err := sim.CompileSource(at, src, b.header.Kernel); err == nil {
			b.smap = newSrcMap(p, at)
		}
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
		if r.Inst != nil && r.Inst.Line > 0 {
			b.src[r.Inst.Line-1] = "\t" + r.Inst.Inst
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
