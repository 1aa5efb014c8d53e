package sim

import (
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim/datapath"
)

// runBlackwell runs fixtures/sim/blackwell/NAME (its launch file and its
// sm_100a PTX) under opts and requires it to end and to report no error
// or warning.
func runBlackwell(t *testing.T, name string, opts Options) *Machine {
	t.Helper()
	l, err := launch.ReadLaunch("../fixtures/sim/blackwell/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	file := name + ".sm_100a.ptx"
	src, err := os.ReadFile("../fixtures/sim/blackwell/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return runSilent(t, file, src, l, opts)
}

// runSilent runs the kernel src (named file) under opts and requires it
// to end and to report no error or warning.
func runSilent(t *testing.T, file string, src []byte, l *launch.Launch, opts Options) *Machine {
	t.Helper()
	m, err := Prepare(file, src, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatalf("%s: %v", opts.Schedule, err)
	}
	for _, f := range m.Findings() {
		if f.Severity <= SevWarning {
			t.Errorf("%s: %s %s at %s: %s", opts.Schedule, f.Severity, f.Rule, f.Pos, f.Msg)
		}
	}
	return m
}

// TestPairGemm runs the hand-written cta_group::2 kernel under every
// schedule: no hazards, and D equal bit for bit to the chain of two K=16
// tcgen05.mma computed element by element with the modelled datapath.
func TestPairGemm(t *testing.T) {
	for _, opts := range []Options{
		{Check: true},
		{Check: true, Schedule: Eager},
		{Check: true, Schedule: Latest},
		{Check: true, Schedule: Random, Seed: 1},
		{Check: true, Schedule: Random, Seed: 7},
	} {
		t.Run(opts.Schedule.String(), func(t *testing.T) {
			m := runBlackwell(t, "pair_gemm", opts)
			a, _ := m.Buffer("A")
			b, _ := m.Buffer("B")
			d, _ := m.Buffer("D")
			checkPairGemm(t, a.Data, b.Data, d.Data)
		})
	}
}

func checkPairGemm(t *testing.T, A, B, D []byte) {
	t.Helper()
	const M, N, K = 256, 128, 32
	mdl := datapath.Blackwell(numfmt.BF16, numfmt.BF16, numfmt.F32)
	bf := func(buf []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint16(buf[2*i:])) }
	diffs := 0
	for m := 0; m < M; m++ {
		for n := 0; n < N; n++ {
			var c uint64
			var ref, mag float64
			for k0 := 0; k0 < K; k0 += 16 {
				a := make([]uint64, 16)
				b := make([]uint64, 16)
				for k := 0; k < 16; k++ {
					a[k], b[k] = bf(A, m*K+k0+k), bf(B, n*K+k0+k)
					p := numfmt.BF16.Decode(a[k]).Float64() * numfmt.BF16.Decode(b[k]).Float64()
					ref += p
					mag += math.Abs(p)
				}
				c = mdl.Dot(a, b, c)
			}
			got := binary.LittleEndian.Uint32(D[4*(m*N+n):])
			if uint64(got) != c {
				if diffs == 0 {
					t.Errorf("D[%d][%d] = %#x, the instruction-level reference gives %#x", m, n, got, c)
				}
				diffs++
			}
			if e := math.Abs(float64(math.Float32frombits(got)) - ref); e > 3*0x1p-23*mag {
				t.Errorf("D[%d][%d] = %v is %g from the float64 sum %v", m, n, math.Float32frombits(got), e, ref)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d elements differ", diffs, M*N)
	}
}

const sm100Header = ".version 9.0\n.target sm_100a\n.address_size 64\n"

// TestTmemPackRed stores with tcgen05.st (plain and .unpack::16b) and
// reads back with .pack::16b, plain and .red loads.
func TestTmemPackRed(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .u64 out) {
	.reg .pred %p<4>; .reg .b32 %r<60>; .reg .b64 %rd<8>;
	.shared .align 16 .b32 taddr;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	mov.u32 %r3, taddr;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra NOALLOC;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r3], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
NOALLOC:
	bar.sync 0;
	ld.shared.u32 %r4, [%r3];
	shl.b32 %r5, %r2, 21;
	add.u32 %r6, %r4, %r5;
	// cells 0-3: -tid, tid*16+1, tid*16+2, tid*16+3 (as s32)
	neg.s32 %r10, %r1;
	shl.b32 %r7, %r1, 4;
	add.u32 %r11, %r7, 1;
	add.u32 %r12, %r7, 2;
	add.u32 %r13, %r7, 3;
	tcgen05.st.sync.aligned.32x32b.x4.b32 [%r6], {%r10, %r11, %r12, %r13};
	// cells 4-7 from two registers, unpacked: 0x1111, tid, 0x2222, 0xabcd
	shl.b32 %r14, %r1, 16;
	or.b32 %r14, %r14, 0x1111;
	mov.u32 %r15, 0xabcd2222;
	tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r6+4], {%r14, %r15};
	tcgen05.wait::st.sync.aligned;
	tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r20, %r21}, [%r6];
	tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r22, %r23, %r24, %r25}, [%r6+4];
	tcgen05.ld.red.sync.aligned.32x32b.x4.max.s32 {%r26, %r27, %r28, %r29}, %r30, [%r6];
	tcgen05.ld.red.sync.aligned.32x32b.x4.min.abs.s32 {%r26, %r27, %r28, %r29}, %r31, [%r6];
	tcgen05.wait::ld.sync.aligned;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 32;
	add.s64 %rd1, %rd1, %rd2;
	st.global.v4.u32 [%rd1], {%r20, %r21, %r22, %r23};
	st.global.v4.u32 [%rd1+16], {%r24, %r25, %r30, %r31};
	bar.sync 0;
	@%p1 bra DONE;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;
DONE:
	ret;
}`
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1},
		Params: []launch.Param{launch.BufferData("out", make([]byte, 128*32))}}
	m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	got := out32(t, m)
	for tid := uint32(0); tid < 128; tid++ {
		g := got[8*tid : 8*tid+8]
		want := []uint32{
			(-tid)&0xFFFF | (tid*16+1)&0xFFFF<<16, (tid*16+2)&0xFFFF | (tid*16+3)&0xFFFF<<16, // pack
			0x1111, tid, 0x2222, 0xabcd, // unpack
			tid*16 + 3, // max over -tid, 16tid+1..3
			tid,        // min |x|: |-tid| = tid < 16tid+1
		}
		for i := range want {
			if g[i] != want[i] {
				t.Errorf("thread %d word %d = %#x, want %#x", tid, i, g[i], want[i])
			}
		}
	}
}

// TestClusterLaunchControl: every CTA's thread 0 records its own tile and
// then steals the grid's unlaunched CTAs with try_cancel until the request
// fails. Every tile is done exactly once, whatever the number of workers.
func TestClusterLaunchControl(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .u64 out) {
	.reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>; .reg .b128 %q;
	.shared .align 16 .b8 resp[16];
	.shared .align 8 .b64 mbar;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, resp;
	mov.u32 %r4, mbar;
	mbarrier.init.shared::cta.b64 [%r4], 1;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	mov.u32 %r5, 0;
LOOP:
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r4], 16;
	clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r3], [%r4];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], %r5;
	@!%p2 bra WAIT;
	xor.b32 %r5, %r5, 1;
	ld.shared.b128 %q, [%r3];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
	@!%p3 bra DONE;
	clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r6, %r7, %r8, _}, %q;
	mul.wide.u32 %rd2, %r6, 4;
	add.s64 %rd3, %rd1, %rd2;
	add.u32 %r9, %r2, 100;
	st.global.u32 [%rd3], %r9;
	bra LOOP;
DONE:
	ret;
}`
	for _, workers := range []int{1, 2, 4} {
		l := &launch.Launch{Grid: launch.Dim3{8, 1, 1}, Block: launch.Dim3{32, 1, 1},
			Params: []launch.Param{launch.BufferData("out", make([]byte, 32))}}
		m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		noHazards(t, m)
		got := out32(t, m)
		ran := 0
		for i, v := range got {
			switch {
			case v == uint32(i):
				ran++
			case v >= 100 && v < 108 && v-100 < uint32(i):
			default:
				t.Errorf("workers=%d: tile %d done by %d (want its own CTA or 100+ an earlier CTA)", workers, i, v)
			}
		}
		if workers == 1 && ran != 1 {
			t.Errorf("one worker: %d CTAs ran, want 1 (CTA 0 cancels the rest): %v", ran, got)
		}
	}
}

// TestBulkReduce: cp.reduce.async.bulk (add.u32 into global, max.s32 into
// a peer's shared memory is left to the cluster tests), the tensor form
// (add.f32 through a tensor map) and st.bulk.
func TestBulkReduce(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .u64 out, .param .align 64 .b8 tm[128], .param .u64 g) {
	.reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
	.shared .align 128 .b8 buf[512];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	// buf[i] = i as u32 (words 0-63), then as f32 (words 64-127)
	st.shared.u32 [%r4], %r1;
	cvt.rn.f32.u32 %f1, %r1;
	st.shared.f32 [%r4+256], %f1;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	ld.param.u64 %rd1, [out];
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r2], 256;
	mov.b64 %rd2, tm;
	add.u32 %r5, %r2, 256;
	mov.u32 %r6, 0;
	cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r6, %r6}], [%r5];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
	// st.bulk zeroes the first 64 bytes; the next word survives
	st.bulk.weak.shared::cta [%r2], 64, 0;
	ld.shared.u32 %r7, [%r2+64];
	ld.shared.u32 %r8, [%r2+60];
	ld.param.u64 %rd3, [g];
	st.global.v2.u32 [%rd3], {%r7, %r8};
SKIP:
	ret;
}`
	out := make([]byte, 256)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(out[4*i:], 1000)
	}
	tbuf := make([]byte, 256)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(tbuf[4*i:], math.Float32bits(0.5))
	}
	tmp, err := launch.ParseParam("tmap:buf=T,dtype=f32,dims=8x8,box=8x8")
	if err != nil {
		t.Fatal(err)
	}
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{64, 1, 1},
		Params:  []launch.Param{launch.BufferData("out", out), tmp, launch.BufferData("g", make([]byte, 8))},
		Buffers: []launch.Param{launch.BufferData("T", tbuf)}}
	m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	got := out32(t, m)
	for i, v := range got {
		if v != uint32(1000+i) {
			t.Errorf("out[%d] = %d, want %d", i, v, 1000+i)
		}
	}
	tb, _ := m.Buffer("T")
	for i := 0; i < 64; i++ {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(tb.Data[4*i:])); v != float32(i)+0.5 {
			t.Errorf("T[%d] = %v, want %v", i, v, float32(i)+0.5)
		}
	}
	g, _ := m.Buffer("g")
	if a, b := binary.LittleEndian.Uint32(g.Data), binary.LittleEndian.Uint32(g.Data[4:]); a != 16 || b != 0 {
		t.Errorf("after st.bulk: word 16 = %d (want 16), word 15 = %d (want 0)", a, b)
	}
}

// TestGather4Scatter4 gathers rows 5, 1, 7, 2 of a tensor with
// .tile::gather4 and scatters them to rows 0, 3, 4, 6 of another with
// .tile::scatter4.
func TestGather4Scatter4(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .align 64 .b8 tin[128], .param .align 64 .b8 tout[128]) {
	.reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>;
	.shared .align 128 .b8 buf[256];
	.shared .align 8 .b64 mbar;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r2, buf;
	mov.u32 %r3, mbar;
	mbarrier.init.shared::cta.b64 [%r3], 1;
	mov.b64 %rd1, tin;
	mov.b64 %rd2, tout;
	mov.u32 %r4, 0;
	mov.u32 %r5, 5;
	mov.u32 %r6, 1;
	mov.u32 %r7, 7;
	mov.u32 %r8, 2;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r4, %r5, %r6, %r7, %r8}], [%r3];
W:	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
	@!%p2 bra W;
	mov.u32 %r10, 0;
	mov.u32 %r11, 3;
	mov.u32 %r12, 4;
	mov.u32 %r13, 6;
	cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd2, {%r4, %r10, %r11, %r12, %r13}], [%r2];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
DONE:
	ret;
}`
	in := make([]byte, 8*16*4)
	for i := 0; i < 8*16; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i))
	}
	tin, _ := launch.ParseParam("tmap:buf=I,dtype=u32,dims=16x8,box=16x1")
	tout, _ := launch.ParseParam("tmap:buf=O,dtype=u32,dims=16x8,box=16x1")
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1},
		Params:  []launch.Param{tin, tout},
		Buffers: []launch.Param{launch.BufferData("I", in), launch.BufferData("O", make([]byte, len(in)))}}
	m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	o, _ := m.Buffer("O")
	from := map[int]int{0: 5, 3: 1, 4: 7, 6: 2}
	for row := 0; row < 8; row++ {
		for col := 0; col < 16; col++ {
			want := uint32(0)
			if r, ok := from[row]; ok {
				want = uint32(r*16 + col)
			}
			if got := binary.LittleEndian.Uint32(o.Data[4*(row*16+col):]); got != want {
				t.Errorf("O[%d][%d] = %d, want %d", row, col, got, want)
			}
		}
	}
}

// TestMxf8Gemm runs the hand-written block-scaled kernel: no hazards, and D
// equal bit for bit to the modelled kind::mxf8f6f4 datapath element by
// element, with the scale factors taken from CUTLASS's chunk layout.
func TestMxf8Gemm(t *testing.T) {
	for _, opts := range []Options{{Check: true}, {Check: true, Schedule: Random, Seed: 3}, {Check: true, Schedule: Latest}} {
		m := runBlackwell(t, "mxf8_gemm", opts)
		buf := func(n string) []byte { b, _ := m.Buffer(n); return b.Data }
		A, B, SFA, SFB, D := buf("A"), buf("B"), buf("SFA"), buf("SFB"), buf("D")
		bs := datapath.NewBlockScaled(desc.KindMXF8F6F4, numfmt.E4M3, numfmt.E4M3, numfmt.UE8M0, 32)
		diffs := 0
		for r := 0; r < 128; r++ {
			for n := 0; n < 64; n++ {
				a := make([]uint64, 32)
				b := make([]uint64, 32)
				for k := range a {
					a[k], b[k] = uint64(A[r*32+k]), uint64(B[n*32+k])
				}
				sa := []uint64{uint64(SFA[sfOffset(r, 0, 1)])}
				sb := []uint64{uint64(SFB[sfOffset(n, 0, 1)])}
				want := bs.Dot(a, b, sa, sb, 0)
				if got := binary.LittleEndian.Uint32(D[4*(r*64+n):]); uint64(got) != want {
					if diffs == 0 {
						t.Errorf("%s: D[%d][%d] = %#x, the instruction-level reference gives %#x", opts.Schedule, r, n, got, want)
					}
					diffs++
				}
			}
		}
		if diffs > 0 {
			t.Errorf("%s: %d of %d elements differ", opts.Schedule, diffs, 128*64)
		}
	}
}

// TestWsM64Layout runs a tcgen05.mma.ws M=64 N=64 whose D element (m, n)
// is (m%16)·64 + n, reads all of TMEM back and checks that every element
// sits where the catalog's Layout E atom (tcgen05.tmem.m64n64.d.ws) says.
func TestWsM64Layout(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b16 %h<4>; .reg .b32 %r<80>; .reg .b64 %rd<8>;
	.shared .align 16 .b32 taddr;
	.shared .align 1024 .b8 tiles[8192];
	.shared .align 8 .b64 mbar;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	mov.u32 %r3, taddr;
	mov.u32 %r4, tiles;
	mov.u32 %r5, mbar;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra NOALLOC;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r3], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
NOALLOC:
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra NOINIT;
	mbarrier.init.shared::cta.b64 [%r5], 1;
NOINIT:
	// rows t < 64 of A (at tiles) and B (at tiles + 4096): core matrices
	// of 8 rows x 16 bytes, LBO 128 (K), SBO 256 (rows)
	setp.ge.u32 %p3, %r1, 64;
	@%p3 bra NOTILE;
	shr.u32 %r6, %r1, 3;
	shl.b32 %r7, %r6, 8;
	and.b32 %r8, %r1, 7;
	shl.b32 %r9, %r8, 4;
	add.u32 %r10, %r7, %r9;
	add.u32 %r10, %r10, %r4;
	and.b32 %r11, %r1, 15;
	mov.u32 %r12, 0;
KLOOP:
	shr.u32 %r13, %r12, 3;
	shl.b32 %r14, %r13, 7;
	and.b32 %r15, %r12, 7;
	shl.b32 %r16, %r15, 1;
	add.u32 %r17, %r14, %r16;
	add.u32 %r18, %r10, %r17;
	// A[t][k] = 1.0 if k == t % 16
	setp.eq.u32 %p4, %r12, %r11;
	selp.u32 %r19, 0x3C00, 0, %p4;
	cvt.u16.u32 %h1, %r19;
	st.shared.b16 [%r18], %h1;
	// B[t][k] = k*64 + t as f16
	shl.b32 %r20, %r12, 6;
	add.u32 %r21, %r20, %r1;
	cvt.rn.f16.u32 %h2, %r21;
	st.shared.b16 [%r18+4096], %h2;
	add.u32 %r12, %r12, 1;
	setp.lt.u32 %p4, %r12, 16;
	@%p4 bra KLOOP;
NOTILE:
	fence.proxy.async.shared::cta;
	bar.sync 0;
	ld.shared.u32 %r22, [%r3];
	@%p2 bra NOMMA;
	// descriptors: start address >> 4 in bits 0-13, LBO 128, SBO 256, version 1
	cvt.u64.u32 %rd5, %r4;
	shr.u64 %rd5, %rd5, 4;
	and.b64 %rd5, %rd5, 0x3FFF;
	or.b64 %rd1, %rd5, 0x401000080000;
	add.u64 %rd2, %rd1, 256;
	mov.u32 %r23, 0x4100010;
	setp.ne.u32 %p4, %r1, 0;
	tcgen05.mma.ws.cta_group::1.kind::f16 [%r22], %rd1, %rd2, %r23, %p4;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];
NOMMA:
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r5], 0;
	@!%p4 bra WAIT;
	shl.b32 %r24, %r2, 21;
	add.u32 %r25, %r22, %r24;
	tcgen05.ld.sync.aligned.32x32b.x32.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57, %r58, %r59, %r60, %r61, %r62, %r63, %r64, %r65, %r66, %r67, %r68, %r69, %r70, %r71}, [%r25];
	tcgen05.wait::ld.sync.aligned;
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mul.wide.u32 %rd4, %r1, 128;
	add.s64 %rd3, %rd3, %rd4;
	st.global.v4.u32 [%rd3], {%r40, %r41, %r42, %r43};
	st.global.v4.u32 [%rd3+16], {%r44, %r45, %r46, %r47};
	st.global.v4.u32 [%rd3+32], {%r48, %r49, %r50, %r51};
	st.global.v4.u32 [%rd3+48], {%r52, %r53, %r54, %r55};
	st.global.v4.u32 [%rd3+64], {%r56, %r57, %r58, %r59};
	st.global.v4.u32 [%rd3+80], {%r60, %r61, %r62, %r63};
	st.global.v4.u32 [%rd3+96], {%r64, %r65, %r66, %r67};
	st.global.v4.u32 [%rd3+112], {%r68, %r69, %r70, %r71};
	bar.sync 0;
	@%p1 bra DONE;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r22, 32;
DONE:
	ret;
}`
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1},
		Params: []launch.Param{launch.BufferData("out", make([]byte, 128*32*4))}}
	m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	got := out32(t, m)
	atom, err := catalog.Lookup("tcgen05.tmem.m64n64.d.ws")
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 64; r++ {
		for n := 0; n < 64; n++ {
			off := atom.Offsets.Eval(r + 64*n)
			lane, col := off>>16, off&0xFFFF
			want := float32((r%16)*64 + n)
			if v := math.Float32frombits(got[lane*32+col]); v != want {
				t.Errorf("D[%d][%d] at lane %d column %d (catalog Layout E) = %v, want %v", r, n, lane, col, v, want)
			}
		}
	}
}
