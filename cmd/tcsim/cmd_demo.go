package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/internal/fileutil"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim"
)

func init() {
	register(&command{
		name:    "demo",
		args:    "[--thread T]",
		summary: "the main job in a few seconds: a real H100 GEMM simulated bit-exactly, a planted bug found, a fragment's bitmath",
		help: `demo runs tcsim's main job on files embedded in the binary (no GPU, no
files, no arguments needed), in three steps:

 1. the TMA + mbarrier + wgmma GEMM recorded on an H100
    (fixtures/corpus/gemm_tma_wgmma) is simulated on the CPU and its output
    compared bit for bit with what the H100 wrote;
 2. the same kernel with one planted bug (fixtures/sim/broken/
    gemm_missing_wait.ptx, the recorded kernel with its wgmma.wait_group
    removed): the line the variant changed, the error the hazard checker
    reports, where it shows and the line to fix it names with the fix (the
    accumulator reads after it are its consequence), which is where the
    recorded kernel has the line the variant removed; and the variant's C
    against the H100's;
 3. the accumulator fragment of one thread (--thread, default 37) stopped
    before the epilogue's stores, placed by the epilogue bitmath tcsim
    derives for wgmma.m64n128.d.f32 (the seed's frag_row/frag_col), each
    value checked against the H100's output.

Each step ends with the tcsim command that does the same on the files.`,
		setup: func(fs *flag.FlagSet) any {
			o := &demoOpts{}
			fs.IntVar(&o.thread, "thread", 37, "the thread (0-127) of step 3's warpgroup")
			return o
		},
		run: runDemo,
	})
}

type demoOpts struct{ thread int }

// The demo's files, as paths in the repository (what the commands it
// prints name) and in fixtures.Demo.
const (
	demoCase   = "fixtures/corpus/gemm_tma_wgmma"
	demoBroken = "fixtures/sim/broken/gemm_missing_wait.ptx"
	demoLaunch = "fixtures/sim/launch/gemm_tma_wgmma.json"
)

func demoFile(name string) ([]byte, error) {
	b, err := fixtures.Demo.ReadFile(strings.TrimPrefix(name, "fixtures/"))
	if err != nil {
		return nil, fmt.Errorf("embedded demo file: %w", err)
	}
	return b, nil
}

func runDemo(e *env, opts any, args []string) error {
	o := opts.(*demoOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q (demo takes no files: everything is inside the binary)", args[0])
	}
	if o.thread < 0 || o.thread > 127 {
		return usagef("--thread %d: want a thread of the warpgroup, 0-127", o.thread)
	}
	w := e.stdout
	good, err := demoFile(demoCase + "/kernel.ptx")
	if err != nil {
		return err
	}
	lj, err := demoFile(demoCase + "/launch.json")
	if err != nil {
		return err
	}
	l, err := launch.DecodeLaunchJSON(demoCase+"/launch.json", lj)
	if err != nil {
		return err
	}
	gz, err := demoFile(demoCase + "/outputs/C.bin.gz")
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	gpuC, err := fileutil.ReadAll(zr, "C.bin.gz", 1<<20)
	if err != nil {
		return err
	}
	pj, err := demoFile(demoCase + "/provenance.json")
	if err != nil {
		return err
	}
	var prov fixtures.Provenance
	if err := json.Unmarshal(pj, &prov); err != nil {
		return fmt.Errorf("embedded provenance: %w", err)
	}

	fmt.Fprintln(w, "tcsim demo: a bit-exact CPU simulator for tensor-core kernels, on files inside this binary")
	fmt.Fprintln(w)

	// 1. The recorded GEMM, bit for bit.
	fmt.Fprintln(w, "1. A real Hopper GEMM, simulated bit for bit and compared with the H100")
	m, err := sim.Prepare(demoCase+"/kernel.ptx", good, l, sim.Options{Check: true})
	if err != nil {
		return err
	}
	if err := m.Run(); err != nil {
		return err
	}
	simC, err := m.Buffer("C")
	if err != nil {
		return err
	}
	p := m.Prog
	fmt.Fprintf(w, "   kernel %s: TMA loads into 128B-swizzled shared memory, a 2-stage mbarrier\n", p.Kernel.Name)
	fmt.Fprintf(w, "   pipeline, wgmma.mma_async m64n128k16 bf16 -> f32; C = A·B with M = N = 256, K = 512\n")
	fmt.Fprintf(w, "   grid %s, block %s: %d warp-instructions simulated; the hazard checker: %s\n", l.Grid, l.Block, m.Steps(), findingSummary(m.Findings()))
	same, n := sameWords(simC.Data, gpuC)
	verdict := "bit-identical to"
	if same != n {
		verdict = "differ from"
	}
	fmt.Fprintf(w, "   C: %d/%d f32 elements %s the %s (driver %s, CUDA %s, recorded %s)\n",
		same, n, verdict, prov.GPU, prov.DriverVersion, prov.CUDAVersion, strings.SplitN(prov.Date, "T", 2)[0])
	fmt.Fprintf(w, "   C[0][0:4] = %s\n", f32Row(simC.Data[:16]))
	fmt.Fprintf(w, "   on files: tcsim replay %s\n", demoCase)
	fmt.Fprintln(w)

	// 2. A planted bug: what the variant changed, and what the checker says.
	fmt.Fprintln(w, "2. A planted bug, found by the hazard checker")
	bad, err := demoFile(demoBroken)
	if err != nil {
		return err
	}
	mb, err := sim.Prepare(demoBroken, bad, l, sim.Options{Check: true})
	if err != nil {
		return err
	}
	if err := mb.Run(); err != nil {
		return err
	}
	if err := demoBug(w, good, bad, mb); err != nil {
		return err
	}
	same2, _ := sameWords(mustBuffer(mb, "C"), gpuC)
	fmt.Fprintf(w, "   in the simulator's schedule the refill lands before the wgmma reads: %d of %d elements\n", n-same2, n)
	fmt.Fprintf(w, "   of its C differ from the H100's (on a GPU it is a race: it may stay hidden until it does not)\n")
	fmt.Fprintf(w, "   on files: tcsim run %s --launch %s --check\n", demoBroken, demoLaunch)
	fmt.Fprintf(w, "             tcsim replay %s --ptx %s -q   (its C vs the H100's)\n", demoCase, demoBroken)
	fmt.Fprintln(w)

	// 3. One thread's accumulator fragment and the epilogue bitmath.
	if err := demoFragment(w, good, l, simC.Data, o.thread); err != nil {
		return err
	}
	if same != n {
		return fmt.Errorf("the simulated GEMM is not bit-identical to the H100 (%d of %d elements differ)", n-same, n)
	}
	return nil
}

// demoBug says which line the planted variant changed (the files' diff,
// not the checker's finding), the errors the checker reports (where each
// shows, the line to fix it names, the other party, the consequences
// folded into it), and whether the line the variant changed lies where
// the checker's fix goes: after the line to fix and before the symptom.
func demoBug(w io.Writer, good, bad []byte, mb *sim.Machine) error {
	var errs []sim.Finding
	for _, f := range mb.Findings() {
		if f.Severity == sim.SevError || f.Severity == sim.SevWarning {
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 {
		return fmt.Errorf("the planted bug of %s was not reported", demoBroken)
	}
	badLines := strings.Split(string(bad), "\n")
	goodLines := strings.Split(string(good), "\n")
	changed := 0
	for i := 0; i < min(len(badLines), len(goodLines)); i++ {
		if badLines[i] != goodLines[i] {
			changed = i + 1
			break
		}
	}
	if changed == 0 {
		return fmt.Errorf("%s does not differ from the recorded kernel", demoBroken)
	}
	fmt.Fprintf(w, "   %s is the recorded kernel with line %d changed:\n", demoBroken, changed)
	fmt.Fprintf(w, "     %5d | %s   (recorded kernel)\n", changed, sourceLine(goodLines, changed))
	fmt.Fprintf(w, "     %5d | %s\n", changed, sourceLine(badLines, changed))
	fmt.Fprintf(w, "   the hazard checker, not told which line changed, reports %s:\n", findingSummary(errs))
	var fixed []string
	for _, h := range errs {
		fmt.Fprintf(w, "   %s\n", wrapWords(fmt.Sprintf("%s [%s] at line %d: %s", h.Severity, h.Rule, h.Pos.Line, h.Msg), 88, "     "))
		fmt.Fprintf(w, "     %5d | %s   (where it shows)\n", h.Pos.Line, sourceLine(badLines, int(h.Pos.Line)))
		if c := h.Cause; c.IsValid() && c.Line != h.Pos.Line {
			fmt.Fprintf(w, "     %5d | %s   (the line to fix)\n", c.Line, sourceLine(badLines, int(c.Line)))
			if lo, hi := min(c.Line, h.Pos.Line), max(c.Line, h.Pos.Line); int32(changed) > lo && int32(changed) < hi {
				fixed = append(fixed, fmt.Sprintf("after line %d and before line %d", lo, hi))
			}
		}
		if h.Related.IsValid() && h.Related != h.Cause {
			fmt.Fprintf(w, "     %5d | %s   (related)\n", h.Related.Line, sourceLine(badLines, int(h.Related.Line)))
		}
		for _, c := range h.Consequences {
			fmt.Fprintf(w, "     and its consequence, folded into it: [%s] at line %d (%s)\n", c.Rule, c.Pos.Line, countOf(c.Count, "time", "times"))
		}
	}
	if len(fixed) == 0 {
		fmt.Fprintf(w, "   no line to fix it names has the changed line after it: the fix is what the variant\n")
		fmt.Fprintf(w, "   removed, line %d of the recorded kernel\n", changed)
		return nil
	}
	fmt.Fprintf(w, "   the fix it names goes where the recorded kernel has the line the variant removed:\n")
	fmt.Fprintf(w, "   line %d, %s\n", changed, strings.Join(fixed, "; "))
	return nil
}

// demoFragment stops one CTA before the epilogue's first store, reads the
// accumulator registers of one thread, places them with the derived
// bitmath and checks them against the simulated (= H100) C.
func demoFragment(w io.Writer, src []byte, l *launch.Launch, c []byte, tid int) error {
	const atomName = "wgmma.m64n128.d.f32"
	fmt.Fprintf(w, "3. Who holds which element: thread %d's accumulator and the epilogue bitmath\n", tid)
	one := l.Clone()
	one.Grid = launch.Dim3{1, 1, 1}
	ms, err := sim.Prepare(demoCase+"/kernel.ptx", src, one, sim.Options{})
	if err != nil {
		return err
	}
	// The epilogue's first st.global: every accumulator is final there.
	lines := strings.Split(string(src), "\n")
	store, wgmmaLine := 0, 0
	for i, s := range lines {
		t := strings.TrimSpace(s)
		if wgmmaLine == 0 && strings.HasPrefix(t, "wgmma.mma_async") {
			wgmmaLine = i + 1
		}
		if strings.HasPrefix(t, "st.global") {
			store = i + 1
			break
		}
	}
	st := ms.NewStepper()
	if err := st.BreakLine(store); err != nil {
		return err
	}
	warp := tid / 32
	for {
		ev, err := st.Run(0)
		if err != nil {
			return err
		}
		if ev.Reason == sim.StopDone {
			return fmt.Errorf("warp %d never reached line %d", warp, store)
		}
		if ev.Reason == sim.StopBreakpoint && ev.Warp == warp {
			break
		}
	}
	pc := -1
	for i, in := range ms.Prog.Insts {
		if int(in.PTX.Pos.Line) == wgmmaLine {
			pc = i
			break
		}
	}
	frags, err := st.Fragments(pc)
	if err != nil {
		return err
	}
	regs := frags[0].Regs
	a, err := catalog.Lookup(atomName)
	if err != nil {
		return err
	}
	bm, _, err := atomMap(a)
	if err != nil {
		return err
	}
	d, err := bitmath.Derive(bm)
	if err != nil {
		return err
	}
	fwd := d.Forward
	fmt.Fprintf(w, "   CTA (0,0,0) stopped before the epilogue's first store (line %d); the wgmma at line %d\n", store, wgmmaLine)
	fmt.Fprintf(w, "   leaves %s: %d registers per thread, %s first\n", atomName, len(regs), regs[0])
	// the thread-only steps, with this thread's numbers
	vals, err := fwd.EvalSteps(int64(tid), 0)
	if err != nil {
		return err
	}
	for k, s := range fwd.Steps {
		if s.Name == "row" || s.Name == "col" {
			break
		}
		fmt.Fprintf(w, "   %-8s = %-28s = %d\n", s.Name, s.Expr, vals[k])
	}
	for _, s := range fwd.Steps {
		if s.Name == "row" || s.Name == "col" {
			fmt.Fprintf(w, "   %-8s = %s\n", s.Name, s.Expr)
		}
	}
	const ldc = 256 // C is 256×256, row-major; CTA (0,0,0)'s tile starts at C[0][0]
	match := 0
	fmt.Fprintf(w, "   %-3s %-8s %-11s %-13s %s\n", "v", "register", "(row, col)", "value", "C[row][col] (= the H100's)")
	for v, r := range regs {
		out, err := fwd.Eval(int64(tid), int64(v))
		if err != nil {
			return err
		}
		row, col := int(out[0]), int(out[1])
		lanes, err := st.Reg(0, warp, r)
		if err != nil {
			return err
		}
		got := math.Float32frombits(uint32(lanes[tid%32]))
		want := math.Float32frombits(binary.LittleEndian.Uint32(c[4*(row*ldc+col):]))
		if math.Float32bits(got) == math.Float32bits(want) {
			match++
		}
		if v < 6 {
			fmt.Fprintf(w, "   %-3d %-8s (%2d, %3d)   %-13s %s\n", v, r, row, col, fmtF32(got), fmtF32(want))
		}
	}
	fmt.Fprintf(w, "   ... %d values in all; %d of %d equal C at the cell the bitmath names\n", len(regs), match, len(regs))
	fmt.Fprintf(w, "   on files: tcsim bitmath %s --lang c\n", atomName)
	fmt.Fprintf(w, "             tcsim tui --launch %s --grid 1   (the stepper: : %d enter b r ])\n", demoLaunch, store)
	if match != len(regs) {
		return fmt.Errorf("%d of thread %d's %d accumulator values differ from C at the cells the bitmath names", len(regs)-match, tid, len(regs))
	}
	return nil
}

// findingSummary counts the errors and warnings among fs (root causes,
// as tcsim run groups them): "no errors or warnings", "1 error, 2 warnings".
func findingSummary(fs []sim.Finding) string {
	ne, nw := 0, 0
	for _, f := range fs {
		switch f.Severity {
		case sim.SevError:
			ne++
		case sim.SevWarning:
			nw++
		}
	}
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	switch {
	case ne == 0 && nw == 0:
		return "no errors or warnings"
	case nw == 0:
		return plural(ne, "error")
	case ne == 0:
		return plural(nw, "warning")
	}
	return plural(ne, "error") + ", " + plural(nw, "warning")
}

// sameWords counts the 4-byte words of a that equal b's.
func sameWords(a, b []byte) (same, n int) {
	n = len(b) / 4
	if len(a) != len(b) {
		return 0, n
	}
	for i := 0; i < n; i++ {
		if bytes.Equal(a[4*i:4*i+4], b[4*i:4*i+4]) {
			same++
		}
	}
	return same, n
}

func mustBuffer(m *sim.Machine, name string) []byte {
	b, err := m.Buffer(name)
	if err != nil {
		return nil
	}
	return b.Data
}

func f32Row(b []byte) string {
	var parts []string
	for i := 0; i+4 <= len(b); i += 4 {
		parts = append(parts, fmtF32(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
	}
	return strings.Join(parts, " ")
}

func fmtF32(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

func sourceLine(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return short(strings.Join(strings.Fields(lines[n-1]), " "))
}
