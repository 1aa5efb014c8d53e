package sim

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

const ptxHeader = ".version 8.7\n.target sm_90a\n.address_size 64\n"

// run simulates src (a module with one kernel taking a u64 out pointer
// first) on grid×block threads with an out buffer of outBytes.
func run(t testing.TB, src string, grid, block int, outBytes int, opts Options, extra ...launch.Param) *Machine {
	t.Helper()
	m, err := prepare(src, grid, block, outBytes, opts, extra...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return m
}

func prepare(src string, grid, block int, outBytes int, opts Options, extra ...launch.Param) (*Machine, error) {
	l := &launch.Launch{Grid: launch.Dim3{uint32(grid), 1, 1}, Block: launch.Dim3{uint32(block), 1, 1}}
	l.Params = append([]launch.Param{launch.BufferData("out", make([]byte, outBytes))}, extra...)
	return Prepare("t.ptx", []byte(ptxHeader+src), l, opts)
}

// noHazards reports every hazard m found as a test error.
func noHazards(t testing.TB, m *Machine) {
	t.Helper()
	for _, h := range m.Errors() {
		t.Errorf("unexpected hazard: %s", h)
	}
}

// runErr prepares src like run and returns the error its run ends with.
func runErr(t testing.TB, src string, grid, block int, outBytes int, opts Options) (*Machine, error) {
	t.Helper()
	m, err := prepare(src, grid, block, outBytes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, m.Run()
}

func out32(t testing.TB, m *Machine) []uint32 {
	b, err := m.Buffer("out")
	if err != nil {
		t.Fatal(err)
	}
	v := make([]uint32, len(b.Data)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b.Data[4*i:])
	}
	return v
}

// storeTid is the common epilogue: out[tid] = %r9.
const storeTid = `
	mov.u32 %r20, %tid.x;
	mov.u32 %r21, %ctaid.x;
	mov.u32 %r22, %ntid.x;
	mad.lo.u32 %r20, %r21, %r22, %r20;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r20, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r9;
	ret;
}`

func TestDivergenceStructured(t *testing.T) {
	// if (t%3==0) v = t*2; else if (t%3==1) { v = 100; loop t%5 times v++ } else v = 7
	// then (after reconvergence) v += activemask popcount
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	setp.eq.u32 %p2, %r2, 1;
	@%p2 bra B;
	mov.u32 %r9, 7;
	bra J;
A:	shl.b32 %r9, %r1, 1;
	bra J;
B:	mov.u32 %r9, 100;
	rem.u32 %r3, %r1, 5;
L:	setp.eq.u32 %p3, %r3, 0;
	@%p3 bra J;
	add.u32 %r9, %r9, 1;
	sub.u32 %r3, %r3, 1;
	bra L;
J:	activemask.b32 %r4;
	popc.b32 %r5, %r4;
	add.u32 %r9, %r9, %r5;
` + storeTid
	m := run(t, src, 2, 64, 4*128, Options{})
	for i, v := range out32(t, m) {
		tid := uint32(i % 64)
		var want uint32
		switch tid % 3 {
		case 0:
			want = tid * 2
		case 1:
			want = 100 + tid%5
		default:
			want = 7
		}
		want += 32 // reconverged: the whole warp is active again
		if v != want {
			t.Errorf("thread %d: got %d, want %d", i, v, want)
		}
	}
}

func TestDivergenceUnstructured(t *testing.T) {
	// Jumps into the middle of a loop from outside (irreducible control
	// flow) and early exits; the warp must reconverge at J.
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r9, 0;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 1;
	@%p1 bra MID;
TOP:	add.u32 %r9, %r9, 10;
MID:	add.u32 %r9, %r9, 1;
	setp.lt.u32 %p2, %r9, 25;
	@%p2 bra TOP;
	and.b32 %r3, %r1, 4;
	setp.ne.u32 %p3, %r3, 0;
	@%p3 bra J;
	add.u32 %r9, %r9, 1000;
J:	activemask.b32 %r4;
	setp.ne.u32 %p4, %r4, -1;
	@%p4 bra BAD;
	bra END;
BAD:	mov.u32 %r9, 0xdead;
END:
` + storeTid
	m := run(t, src, 1, 32, 4*32, Options{})
	for i, v := range out32(t, m) {
		// even lanes: 11, 22, 33 -> stop at 33; odd: 1, 12, 23, 34 -> 34
		want := uint32(33)
		if i%2 == 1 {
			want = 34
		}
		if i&4 == 0 {
			want += 1000
		}
		if v != want {
			t.Errorf("lane %d: got %d, want %d", i, v, want)
		}
	}
}

func TestEarlyExitAndBarrier(t *testing.T) {
	// Half of each warp exits; the rest meets at bar.sync (exited threads
	// count as arrived) and reads what others wrote.
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 4 .b32 s[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	and.b32 %r5, %r1, 1;
	setp.eq.u32 %p1, %r5, 1;
	@%p1 exit;
	bar.sync 0;
	xor.b32 %r6, %r1, 2;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r2, %r6;
	ld.shared.u32 %r9, [%r6];
` + storeTid
	m := run(t, src, 1, 64, 4*64, Options{Check: true})
	for i, v := range out32(t, m) {
		want := uint32(i ^ 2)
		if i%2 == 1 {
			want = 0
		}
		if v != want {
			t.Errorf("thread %d: got %d, want %d", i, v, want)
		}
	}
	noHazards(t, m)
}

func TestWarpExchange(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
	shfl.sync.down.b32 %r3|%p1, %r1, 4, 31, -1;
	selp.u32 %r4, 1, 0, %p1;
	shfl.sync.idx.b32 %r5, %r1, 7, 7199, -1;
	and.b32 %r6, %r1, 3;
	setp.eq.u32 %p2, %r6, 0;
	vote.sync.ballot.b32 %r7, %p2, -1;
	match.any.sync.b32 %r8, %r6, -1;
	redux.sync.add.u32 %r10, %r1, -1;
	elect.sync %r11|%p3, -1;
	mad.lo.u32 %r9, %r2, 1, 0;
	shl.b32 %r12, %r3, 8;
	or.b32 %r9, %r9, %r12;
	shl.b32 %r12, %r4, 16;
	or.b32 %r9, %r9, %r12;
	shl.b32 %r12, %r5, 20;
	or.b32 %r9, %r9, %r12;
	xor.b32 %r9, %r9, %r7;
	xor.b32 %r9, %r9, %r8;
	add.u32 %r9, %r9, %r10;
	add.u32 %r9, %r9, %r11;
` + storeTid
	m := run(t, src, 1, 32, 4*32, Options{Check: true})
	for l, v := range out32(t, m) {
		bfly := uint32(l ^ 1)
		down, ok := uint32(l+4), uint32(1)
		if l+4 > 31 {
			down, ok = uint32(l), 0
		}
		// c = 7199 = 0x1C1F: segmask 0x1C (width 4), clamp 31 -> lane (l&0x1c)|7&3
		idx := uint32(l&0x1c | 3)
		w := bfly | down<<8 | ok<<16 | idx<<20
		w ^= 0x11111111
		w ^= uint32(0x11111111) << (l & 3)
		w += 496 // sum of lane ids
		w += 0   // elected lane 0
		if v != w {
			t.Errorf("lane %d: got %#x, want %#x", l, v, w)
		}
	}
}

func TestAtomics(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 4 .b32 cnt;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, cnt;
	@%p1 st.shared.u32 [%r2], 0;
	bar.sync 0;
	atom.shared.add.u32 %r3, [%r2], 1;
	bar.sync 0;
	ld.shared.u32 %r4, [%r2];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	atom.global.add.u32 %r5, [%rd1], %r1;
	atom.global.max.s32 %r6, [%rd1+4], %r1;
	red.global.xor.b32 [%rd1+8], %r1;
	atom.global.cas.b32 %r7, [%rd1+12], 0, 77;
	ret;
}`
	m := run(t, src, 2, 64, 16, Options{Check: true})
	v := out32(t, m)
	if v[0] != 2*2016 || v[1] != 63 || v[2] != 0 || v[3] != 77 {
		t.Errorf("atomics: %v, want [4032 63 0 77]", v)
	}
	noHazards(t, m)
}

func TestCallsAndLocal(t *testing.T) {
	src := `.func (.param .b32 r) fact(.param .b32 n) {
	.reg .pred %p<2>; .reg .b32 %r<6>;
	ld.param.b32 %r1, [n];
	setp.le.u32 %p1, %r1, 1;
	@%p1 bra BASE;
	sub.u32 %r2, %r1, 1;
	{
	.param .b32 a0;
	.param .b32 r0;
	st.param.b32 [a0], %r2;
	call (r0), fact, (a0);
	ld.param.b32 %r3, [r0];
	}
	mul.lo.u32 %r4, %r3, %r1;
	st.param.b32 [r], %r4;
	ret;
BASE:	st.param.b32 [r], 1;
	ret;
}
.visible .entry k(.param .u64 out) {
	.local .align 4 .b8 buf[64];
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<8>;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	{
	.param .b32 a0;
	.param .b32 r0;
	st.param.b32 [a0], %r2;
	call (r0), fact, (a0);
	ld.param.b32 %r3, [r0];
	}
	mov.u64 %rd4, buf;
	cvta.local.u64 %rd5, %rd4;
	st.u32 [%rd5+12], %r3;
	st.local.u32 [%rd4+16], %r1;
	ld.local.u32 %r5, [%rd4+12];
	ld.u32 %r6, [%rd5+16];
	add.u32 %r9, %r5, %r6;
` + storeTid
	m := run(t, src, 1, 32, 4*32, Options{})
	fact := []uint32{1, 1, 2, 6, 24, 120, 720, 5040}
	for l, v := range out32(t, m) {
		if want := fact[l&7] + uint32(l); v != want {
			t.Errorf("lane %d: got %d, want %d", l, v, want)
		}
	}
}

func TestOutOfBounds(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .b32 %r<30>; .reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r1;
	ret;
}`
	_, err := runErr(t, src, 1, 64, 128, Options{})
	var f *Fault
	if !errors.As(err, &f) {
		t.Fatalf("want a fault, got %v", err)
	}
	for _, want := range []string{"out-of-bounds global memory access", "past the end of buffer out", "t.ptx:11:2", "st.global.u32", "lane 0", "warp 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fault %q does not mention %q", err, want)
		}
	}
}

func TestRaceDetection(t *testing.T) {
	body := func(sync string) string {
		return `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 4 .b32 s[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	` + sync + `
	xor.b32 %r6, %r1, 32;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r2, %r6;
	ld.shared.u32 %r9, [%r6];
` + storeTid
	}
	m := run(t, body(""), 1, 64, 4*64, Options{Check: true})
	var kinds []HazardKind
	for _, h := range m.Errors() {
		kinds = append(kinds, h.Kind)
	}
	if len(kinds) == 0 || kinds[0] != HzRace {
		t.Errorf("without a barrier: hazards %v, want %s", kinds, HzRace)
	}
	m = run(t, body("bar.sync 0;"), 1, 64, 4*64, Options{Check: true})
	for _, h := range m.Errors() {
		t.Errorf("with a barrier: unexpected %s", h)
	}
}

func TestMbarrierHazards(t *testing.T) {
	cases := []struct {
		name, code string
		want       HazardKind
	}{
		{"uninit", `mbarrier.arrive.shared::cta.b64 %rd3, [%r2];`, HzMbarUninit},
		{"underflow", `mbarrier.init.shared::cta.b64 [%r2], 1;
	mbarrier.arrive.shared::cta.b64 %rd3, [%r2], 2;`, HzMbarUnderflow},
		{"reinit", `mbarrier.init.shared::cta.b64 [%r2], 2;
	mbarrier.arrive.shared::cta.b64 %rd3, [%r2];
	mbarrier.init.shared::cta.b64 [%r2], 2;`, HzMbarReinit},
		{"overwrite", `mbarrier.init.shared::cta.b64 [%r2], 2;
	st.shared.u32 [%r2+4], 0;`, HzMbarGenericWrite},
		{"tx-range", `mbarrier.init.shared::cta.b64 [%r2], 1;
	mbarrier.expect_tx.shared::cta.b64 [%r2], 2000000;`, HzMbarTx},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	mov.u32 %r2, bar;
	` + tc.code + `
	ret;
}`
			m := run(t, src, 1, 1, 4, Options{Check: true})
			hs := m.Errors()
			if len(hs) != 1 || hs[0].Kind != tc.want {
				t.Errorf("hazards %v, want exactly one %s", hs, tc.want)
			}
		})
	}
}

func TestDeadlockReport(t *testing.T) {
	// Two warps wait at a named barrier that expects 96 threads.
	src := `.visible .entry k(.param .u64 out) {
	.reg .b32 %r<30>;
	bar.sync 1, 96;
	ret;
}`
	m, err := runErr(t, src, 1, 64, 4, Options{})
	var dl *DeadlockError
	if !errors.As(err, &dl) {
		t.Fatalf("want a deadlock, got %v", err)
	}
	if !strings.Contains(err.Error(), "waits at barrier 1 (64 of 96 threads arrived)") {
		t.Errorf("deadlock report does not say where warps wait:\n%s", err)
	}
	if hs := m.Errors(); len(hs) != 1 || hs[0].Kind != HzDeadlock {
		t.Errorf("hazards %v, want one deadlock", hs)
	}
}

func TestBankConflicts(t *testing.T) {
	// Lane l reads s[32*l]: every lane hits bank 0, a 32-way conflict.
	src := `.visible .entry k(.param .u64 out) {
	.reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 4 .b32 s[1024];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 7;
	add.u32 %r4, %r2, %r3;
	ld.shared.u32 %r9, [%r4];
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	ld.shared.u32 %r10, [%r4];
` + storeTid
	m := run(t, src, 1, 32, 4*32, Options{Check: true})
	bc := m.BankConflicts()
	if len(bc) != 1 || bc[0].MaxWays != 32 || bc[0].Pos.Line != 11 {
		t.Fatalf("bank conflicts %+v, want one 32-way at line 11", bc)
	}
}
