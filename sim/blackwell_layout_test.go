package sim

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
)

// Layout-sensitive tests of the tcgen05 forms: a probe kernel copies an
// input into shared memory, optionally writes a known value into every
// TMEM cell, lets thread 0 run a few tcgen05 instructions, waits for their
// commit and dumps the whole allocation. The tests fill the inputs with
// non-constant data and compute the TMEM image they expect on their own
// (from the ISA's shape tables and the per-instruction datapath), so a
// wrong lane, column, row or byte fails.

// tmemProbe describes one probe kernel.
type tmemProbe struct {
	cols   int    // TMEM columns allocated (and dumped): 32 to 512
	in     []byte // copied to shared memory at probeData (a multiple of 16 bytes)
	preset bool   // every cell (lane, col) starts as presetCell(lane, col), written with tcgen05.st
	// body is PTX that thread 0 runs: %r20 holds the TMEM base address,
	// %r5 the shared-memory address of the input; registers %r30-%r99,
	// %rd10-%rd39 and %p8-%p15 are free. A tcgen05.commit follows it.
	body   string
	header string // extra declarations (PTX after the register declarations)
}

// probeData is the offset of the input in shared memory (1024-aligned for
// the swizzled layouts).
const probeData = 1024

// probeMask is XORed into every word of the input in global memory.
const probeMask = 0x5A5A5A5A

func presetCell(lane, col int) uint32 { return 0xC0000000 | uint32(lane)<<16 | uint32(col) }

func (p tmemProbe) ptx() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w(sm100Header + ".extern .shared .align 1024 .b8 smem[];")
	w(".visible .entry probe(.param .u64 in, .param .u64 out) {")
	w("\t.reg .pred %%p<16>; .reg .b16 %%h<8>; .reg .b32 %%r<200>; .reg .b64 %%rd<40>;")
	b.WriteString(p.header)
	w("\tld.param.u64 %%rd1, [in]; cvta.to.global.u64 %%rd1, %%rd1;")
	w("\tld.param.u64 %%rd2, [out]; cvta.to.global.u64 %%rd2, %%rd2;")
	w("\tmov.u32 %%r1, %%tid.x; shr.u32 %%r2, %%r1, 5;")
	w("\tmov.u32 %%r4, smem; add.u32 %%r5, %%r4, %d;", probeData)
	w("\tsetp.ne.u32 %%p1, %%r2, 0; setp.ne.u32 %%p2, %%r1, 0;")
	w("\t@%%p1 bra NOALLOC;")
	w("\tadd.u32 %%r6, %%r4, 16;")
	w("\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%r6], %d;", p.cols)
	w("\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;")
	w("NOALLOC:")
	w("\t@%%p2 bra NOINIT;")
	w("\tmbarrier.init.shared::cta.b64 [%%r4], 1;")
	w("NOINIT:")
	w("\tmov.u32 %%r7, %%r1;")
	w("COPY:")
	w("\tsetp.ge.u32 %%p3, %%r7, %d;", len(p.in)/16)
	w("\t@%%p3 bra COPIED;")
	w("\tmul.wide.u32 %%rd3, %%r7, 16; add.u64 %%rd4, %%rd1, %%rd3;")
	w("\tld.global.v4.u32 {%%r10, %%r11, %%r12, %%r13}, [%%rd4];")
	// the input is stored masked: the probe writes an image of shared
	// memory, not a tensor whose global layout the provenance check
	// would compare with the descriptors
	w("\txor.b32 %%r10, %%r10, %#x; xor.b32 %%r11, %%r11, %#x; xor.b32 %%r12, %%r12, %#x; xor.b32 %%r13, %%r13, %#x;", probeMask, probeMask, probeMask, probeMask)
	w("\tshl.b32 %%r8, %%r7, 4; add.u32 %%r9, %%r5, %%r8;")
	w("\tst.shared.v4.u32 [%%r9], {%%r10, %%r11, %%r12, %%r13};")
	w("\tadd.u32 %%r7, %%r7, 128;")
	w("\tbra COPY;")
	w("COPIED:")
	w("\tfence.proxy.async.shared::cta;")
	w("\tfence.mbarrier_init.release.cluster;")
	w("\tbar.sync 0;")
	w("\tld.shared.u32 %%r20, [%%r4+16];")
	w("\tshl.b32 %%r21, %%r2, 21; add.u32 %%r22, %%r20, %%r21;")
	regs := func(first int) string {
		var rs []string
		for i := 0; i < 32; i++ {
			rs = append(rs, fmt.Sprintf("%%r%d", first+i))
		}
		return "{" + strings.Join(rs, ", ") + "}"
	}
	if p.preset {
		w("\tshl.b32 %%r23, %%r1, 16; or.b32 %%r23, %%r23, 0xC0000000;")
		for c0 := 0; c0 < p.cols; c0 += 32 {
			for i := 0; i < 32; i++ {
				w("\tadd.u32 %%r%d, %%r23, %d;", 100+i, c0+i)
			}
			w("\ttcgen05.st.sync.aligned.32x32b.x32.b32 [%%r22+%d], %s;", c0, regs(100))
		}
		w("\ttcgen05.wait::st.sync.aligned;")
		w("\ttcgen05.fence::before_thread_sync;")
		w("\tbar.sync 0;")
		w("\ttcgen05.fence::after_thread_sync;")
	}
	w("\t@%%p2 bra NOBODY;")
	b.WriteString(p.body + "\n")
	w("\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%%r4];")
	w("NOBODY:")
	w("WAIT:")
	w("\tmbarrier.try_wait.parity.shared::cta.b64 %%p4, [%%r4], 0;")
	w("\t@!%%p4 bra WAIT;")
	w("\ttcgen05.fence::after_thread_sync;")
	w("\tmul.lo.u32 %%r24, %%r1, %d; mul.wide.u32 %%rd5, %%r24, 4; add.u64 %%rd6, %%rd2, %%rd5;", p.cols)
	for c0 := 0; c0 < p.cols; c0 += 32 {
		w("\ttcgen05.ld.sync.aligned.32x32b.x32.b32 %s, [%%r22+%d];", regs(100), c0)
		w("\ttcgen05.wait::ld.sync.aligned;")
		for i := 0; i < 32; i += 4 {
			w("\tst.global.v4.u32 [%%rd6+%d], {%%r%d, %%r%d, %%r%d, %%r%d};", 4*(c0+i), 100+i, 101+i, 102+i, 103+i)
		}
	}
	w("\ttcgen05.fence::before_thread_sync;")
	w("\tbar.sync 0;")
	w("\t@%%p1 bra DONE;")
	w("\ttcgen05.fence::after_thread_sync;")
	w("\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r20, %d;", p.cols)
	w("DONE:")
	w("\tret;")
	w("}")
	return b.String()
}

// probeSchedules are the schedules every probe runs under: the image and
// the silence of the checker must not depend on them.
var probeSchedules = []Options{
	{Check: true}, {Check: true, Schedule: Eager}, {Check: true, Schedule: Latest},
	{Check: true, Schedule: Random, Seed: 1}, {Check: true, Schedule: Random, Seed: 9},
}

// run runs the probe under every schedule, checks that the checker is
// silent (no error or warning) and returns TMEM as [lane][col] (the same
// under every schedule).
func (p tmemProbe) run(t *testing.T) [][]uint32 {
	t.Helper()
	if len(p.in)%16 != 0 || len(p.in) == 0 {
		t.Fatalf("probe input of %d bytes: want a positive multiple of 16", len(p.in))
	}
	src := p.ptx()
	var first [][]uint32
	for _, opts := range probeSchedules {
		masked := make([]byte, len(p.in))
		for i := 0; i < len(p.in); i += 4 {
			binary.LittleEndian.PutUint32(masked[i:], le32(p.in[i:])^probeMask)
		}
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1}, SharedMem: probeData + len(p.in),
			Params: []launch.Param{launch.BufferData("in", masked), launch.BufferData("out", make([]byte, 128*p.cols*4))}}
		m, err := Prepare("probe.ptx", []byte(src), l, opts)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if err := m.Run(); err != nil {
			t.Fatalf("%s: %v", opts.Schedule, err)
		}
		for _, f := range m.Findings() {
			if f.Severity <= SevWarning {
				t.Errorf("%s: %s %s at %s: %s", opts.Schedule, f.Severity, f.Rule, f.Pos, f.Msg)
			}
		}
		out := out32(t, m)
		img := make([][]uint32, 128)
		for lane := range img {
			img[lane] = out[lane*p.cols : (lane+1)*p.cols]
		}
		if first == nil {
			first = img
			continue
		}
		for lane := range img {
			for col := range img[lane] {
				if img[lane][col] != first[lane][col] {
					t.Fatalf("%s: TMEM lane %d column %d = %#x, under the lazy schedule %#x", opts.Schedule, lane, col, img[lane][col], first[lane][col])
				}
			}
		}
	}
	return first
}

// checkImage compares a TMEM image with the expected one (want(lane, col),
// ok false for cells the test does not constrain) and reports the first
// few differences.
func checkImage(t *testing.T, what string, img [][]uint32, want func(lane, col int) (uint32, bool)) {
	t.Helper()
	bad := 0
	for lane := range img {
		for col, got := range img[lane] {
			w, ok := want(lane, col)
			if !ok || got == w {
				continue
			}
			if bad < 5 {
				t.Errorf("%s: TMEM lane %d column %d = %#x, want %#x", what, lane, col, got, w)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d cells differ", what, bad)
	}
}

// kMajor is a K-major, unswizzled operand in shared memory in the canonical
// layout of 8-row × 16-byte core matrices: element (r, byte b) at
// (r/8)·sbo + (b/16)·lbo + (r%8)·16 + b%16.
type kMajor struct {
	rows, rowBytes int
	lbo, sbo       int
}

func (o kMajor) off(r, b int) int { return (r/8)*o.sbo + (b/16)*o.lbo + (r%8)*16 + b%16 }

// put writes the logical matrix data (rows × rowBytes, row-major) into
// smem at base in o's layout.
func (o kMajor) put(smem []byte, base int, data []byte) {
	for r := 0; r < o.rows; r++ {
		for b := 0; b < o.rowBytes; b++ {
			smem[base+o.off(r, b)] = data[r*o.rowBytes+b]
		}
	}
}

// desc is o's tcgen05 shared-memory descriptor at shared address addr.
func (o kMajor) desc(t *testing.T, addr int) uint64 {
	t.Helper()
	d, err := desc.NewTCGen05Smem(uint32(addr), uint32(o.lbo), uint32(o.sbo), desc.SwizzleNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// randBytes returns n pseudo-random bytes.
func randBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x7c5))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// smemDesc is PTX that sets rd to the shared-memory descriptor of o at
// byte off of the probe's input (the address field from %r5 at run time).
func (o kMajor) smemDesc(t *testing.T, rd string, off int) string {
	t.Helper()
	v := o.desc(t, 0)
	return fmt.Sprintf("\tadd.u32 %%r99, %%r5, %d; cvt.u64.u32 %%rd39, %%r99; shr.u64 %%rd39, %%rd39, 4; and.b64 %%rd39, %%rd39, 0x3FFF; or.b64 %s, %%rd39, %#x;\n", off, rd, v)
}

// bf16Bytes returns n pseudo-random bf16 values in [-2, 2) as bytes.
func bf16Bytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0xbf16))
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		f := float32(r.Float64()*4 - 2)
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(f)>>16))
	}
	return b
}

func idescOf(t *testing.T, s desc.IDescSpec) uint32 {
	t.Helper()
	d, err := desc.NewIDesc(s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bf16Dot is the datapath's D element for rows a and b of K bf16 values
// (bytes) accumulated onto c.
func bf16Dot(a, b []byte, c uint64) uint32 {
	mdl := datapath.Blackwell(numfmt.BF16, numfmt.BF16, numfmt.F32)
	av := make([]uint64, len(a)/2)
	bv := make([]uint64, len(b)/2)
	for k := range av {
		av[k] = uint64(binary.LittleEndian.Uint16(a[2*k:]))
		bv[k] = uint64(binary.LittleEndian.Uint16(b[2*k:]))
	}
	return uint32(mdl.Dot(av, bv, c))
}

// TestTcgen05DisableOutputLane: a correct kernel whose MMA disables some
// TMEM lanes stays silent under every schedule (the disabled lanes are not
// in flight after the MMA), the disabled lanes keep their old D and the
// others get the product.
func TestTcgen05DisableOutputLane(t *testing.T) {
	const M, N, K = 128, 64, 16
	ao := kMajor{rows: M, rowBytes: 2 * K, lbo: 128, sbo: 256}
	bo := kMajor{rows: N, rowBytes: 2 * K, lbo: 128, sbo: 256}
	A, B := bf16Bytes(1, M*K), bf16Bytes(2, N*K)
	in := make([]byte, 4096+2048)
	ao.put(in, 0, A)
	bo.put(in[4096:], 0, B)
	mask := [4]uint32{0x0000FFFF, 1 << 8, 0xFFFFFFFF, 0x80000001}
	idv := idescOf(t, desc.IDescSpec{Kind: desc.KindF16, D: "f32", A: "bf16", B: "bf16", M: M, N: N})
	body := ao.smemDesc(t, "%rd10", 0) + bo.smemDesc(t, "%rd11", 4096) +
		fmt.Sprintf("\tmov.u32 %%r30, %#x; mov.u32 %%r31, %#x; mov.u32 %%r32, %#x; mov.u32 %%r33, %#x; mov.u32 %%r34, %#x;\n", idv, mask[0], mask[1], mask[2], mask[3]) +
		"\tsetp.eq.u32 %p8, %r1, 1;\n" +
		"\ttcgen05.mma.cta_group::1.kind::f16 [%r20], %rd10, %rd11, %r30, {%r31, %r32, %r33, %r34}, %p8;"
	img := tmemProbe{cols: N, in: in, preset: true, body: body}.run(t)
	checkImage(t, "disable-output-lane", img, func(lane, col int) (uint32, bool) {
		if mask[lane/32]>>(lane%32)&1 == 1 {
			return presetCell(lane, col), true
		}
		return bf16Dot(A[lane*2*K:(lane+1)*2*K], B[col*2*K:(col+1)*2*K], 0), true
	})
}
