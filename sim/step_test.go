package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

func TestStepperGemm(t *testing.T) {
	m := loadLaunch(t, "gemm_tma_wgmma", Options{Check: true})
	st := m.NewStepper()
	if err := st.BreakLine(359); err != nil { // the first wgmma.mma_async
		t.Fatal(err)
	}
	ev, err := st.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Reason != StopBreakpoint || ev.Pos.Line != 359 {
		t.Fatalf("stopped at %+v, want the breakpoint at line 359", ev)
	}
	// The TMA copies have landed: their mbarrier completed phase 0.
	mbs := st.Mbarriers(0)
	if len(mbs) != 2 || mbs[0].Phase != 1 || !mbs[0].Live {
		t.Errorf("mbarriers %+v, want two live, the first in phase 1", mbs)
	}
	// The descriptor register of the wgmma is uniform and points at the A tile.
	rd, err := st.Reg(0, ev.Warp, "%rd14")
	if err != nil {
		t.Fatal(err)
	}
	if rd[0] != rd[31] || rd[0]>>62 != 1 {
		t.Errorf("A descriptor %#x (lane 0), %#x (lane 31): want a uniform 128B-swizzle descriptor", rd[0], rd[31])
	}
	// Fragment ownership of the accumulator.
	atom, row, col, err := st.Owner(ev.PC, 37, "%f2046")
	if err != nil {
		t.Fatal(err)
	}
	// %f2046 is the third accumulator register: value 2 of thread 37
	// (warp 1, lane 5) holds row 16+5/4+8 = 25, column 2*(5%4) = 2.
	if atom != "wgmma.m64n128.d.f32" || row != 25 || col != 2 {
		t.Errorf("owner of %%f2046 in thread 37: %s (%d, %d), want wgmma.m64n128.d.f32 (25, 2)", atom, row, col)
	}
	// Step past the four warps' wgmmas: the operations are in flight.
	for i := 0; i < 8; i++ {
		if _, err := st.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if ops := st.InFlight(); len(ops) == 0 {
		t.Errorf("no in-flight operations after issuing wgmmas")
	}
	smem, err := st.Shared(0, 0, 16)
	if err != nil || len(smem) != 16 {
		t.Errorf("Shared: %v %v", smem, err)
	}
	// Run to the end.
	st.ClearBreaks()
	ev, err = st.Run(0)
	if err != nil || ev.Reason != StopDone || !st.Done() {
		t.Fatalf("run to the end: %+v %v", ev, err)
	}
}

func TestStepperStopOnHazard(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	mov.u32 %r2, bar;
	mov.u32 %r9, 1;
	mbarrier.arrive.shared::cta.b64 %rd3, [%r2];
	mov.u32 %r9, 2;
` + storeTid
	m, err := prepare(src, 1, 32, 128, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewStepper()
	st.StopOnHazard(true)
	ev, err := st.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Reason != StopHazard || len(ev.Hazards) != 1 || ev.Hazards[0].Kind != HzMbarUninit || ev.Pos.Line != 9 {
		t.Fatalf("stop %+v, want the mbarrier-uninit hazard at line 9", ev)
	}
	r, _ := st.Reg(0, 0, "%r9")
	if r[0] != 1 {
		t.Errorf("%%r9 = %d at the stop, want 1", r[0])
	}
	if err := st.BreakLabel("NOPE"); err == nil {
		t.Errorf("BreakLabel of a missing label succeeded")
	}
}

func TestStepperTcgen05(t *testing.T) {
	m := loadLaunch(t, "tcgen05_gemm", Options{})
	st := m.NewStepper()
	if err := st.BreakLine(611); err != nil { // the epilogue's tcgen05.ld
		t.Fatal(err)
	}
	if _, err := st.Run(0); err != nil {
		t.Fatal(err)
	}
	// The accumulator is in TMEM: it must be the CPU reference's C[0][0..].
	v, err := st.TMEM(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v == 0 || v == 0xffffffff {
		t.Errorf("TMEM(0,0) = %#x: want the accumulated C[0][0]", v)
	}
	frs, err := st.Fragments(st.Warps()[0].PC)
	if err != nil || len(frs) != 1 || frs[0].Atom != "tcgen05.32x32b.x32" {
		t.Errorf("fragments %+v %v", frs, err)
	}
}

// TestTraceReplay rebuilds a register's lanes from the trace's "w" records
// and compares them with the machine's state.
func TestTraceReplay(t *testing.T) {
	var buf bytes.Buffer
	m := loadLaunch(t, "attention_step_exact", Options{Trace: &buf, TraceValues: true})
	st := m.NewStepper()
	st.BreakLine(1748) // before the register-A wgmma: P is packed
	if _, err := st.Run(0); err != nil {
		t.Fatal(err)
	}
	m.FlushTrace()
	regs := map[string][32]uint64{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		var rec struct {
			Type string              `json:"type"`
			Ev   string              `json:"event"`
			CTA  [3]int              `json:"cta"`
			Warp int                 `json:"warp"`
			W    map[string][]string `json:"w"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type == "event" && rec.W == nil || rec.Type != "inst" && rec.Type != "event" || rec.CTA != [3]int{} || rec.Warp != 1 {
			continue
		}
		n++
		for name, vals := range rec.W {
			var v [32]uint64
			for l, s := range vals {
				x, err := strconv.ParseUint(s, 0, 64)
				if err != nil {
					t.Fatal(err)
				}
				v[l] = x
			}
			regs[name] = v
		}
	}
	if n == 0 {
		t.Fatal("no instruction records for warp 1")
	}
	names, _ := st.Regs(0, 1)
	checked := 0
	for _, name := range names {
		want, ok := regs[name]
		if !ok {
			continue
		}
		got, err := st.Reg(0, 1, name)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: trace replay %x, machine %x", name, want[:4], got[:4])
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d registers checked", checked)
	}
}

// A breakpoint in a loop stops every warp on every visit: two warps at the
// same breakpoint each stop once there and then run on (no ping-pong
// between them), and a warp stepped past a breakpoint by hand stops at it
// again on its next visit.
func TestStepperBreakpointEveryVisit(t *testing.T) {
	src := `
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<4>;
	mov.u32 %r9, 0;
	mov.u32 %r3, 0;
$loop:
	add.u32 %r9, %r9, 2;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 4;
	@%p1 bra $loop;
` + storeTid
	m, err := prepare(src, 1, 64, 256, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewStepper()
	line := 0
	for i, l := range bytes.Split([]byte(ptxHeader+src), []byte("\n")) {
		if bytes.Contains(l, []byte("add.u32 %r9, %r9, 2")) {
			line = i + 1
		}
	}
	if err := st.BreakLine(line); err != nil {
		t.Fatal(err)
	}
	stops := map[int]int{}
	for n := 0; ; n++ {
		if n > 100 {
			t.Fatalf("no progress: stops %v", stops)
		}
		ev, err := st.Run(0)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Reason == StopDone {
			break
		}
		if ev.Reason != StopBreakpoint || int(ev.Pos.Line) != line {
			t.Fatalf("stop %+v", ev)
		}
		stops[ev.Warp]++
	}
	if stops[0] != 4 || stops[1] != 4 {
		t.Errorf("breakpoint stops per warp %v, want 4 each (one per iteration)", stops)
	}
	for i, v := range out32(t, m) {
		if v != 8 {
			t.Fatalf("out[%d] = %d, want 8", i, v)
		}
	}

	// Stop warp 0 at the breakpoint, step it by hand around the loop: it
	// stops there again.
	m, _ = prepare(src, 1, 32, 128, Options{})
	st = m.NewStepper()
	st.BreakLine(line)
	if ev, _ := st.Run(0); ev.Reason != StopBreakpoint {
		t.Fatalf("first stop %+v", ev)
	}
	for i := 0; i < 4; i++ { // add, add, setp, bra: back at the breakpoint's line
		if _, err := st.StepWarp(0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if ev, _ := st.Run(0); ev.Reason != StopBreakpoint || int(ev.Pos.Line) != line {
		t.Fatalf("after stepping round the loop: %+v, want the breakpoint again", ev)
	}
}
