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
	"github.com/tcsim/tcsim/layouts/catalog"
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
	// pair runs a cluster of two CTAs with .cta_group::2 allocation: in
	// holds the even CTA's input and then the odd CTA's, the even CTA's
	// thread 0 runs the body, the commit signals both CTAs, and the
	// dump is the even CTA's TMEM and then the odd CTA's
	pair bool
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
	group, per := "cta_group::1", len(p.in)
	if p.pair {
		group, per = "cta_group::2", len(p.in)/2
	}
	w(sm100Header + ".extern .shared .align 1024 .b8 smem[];")
	w(".visible .entry probe(.param .u64 in, .param .u64 out) {")
	w("\t.reg .pred %%p<16>; .reg .b16 %%h<8>; .reg .b32 %%r<200>; .reg .b64 %%rd<40>;")
	b.WriteString(p.header)
	w("\tld.param.u64 %%rd1, [in]; cvta.to.global.u64 %%rd1, %%rd1;")
	w("\tld.param.u64 %%rd2, [out]; cvta.to.global.u64 %%rd2, %%rd2;")
	w("\tmov.u32 %%r1, %%tid.x; shr.u32 %%r2, %%r1, 5; mov.u32 %%r25, %%cluster_ctarank;")
	if p.pair {
		// this CTA's input and output
		w("\tmul.wide.u32 %%rd7, %%r25, %d; add.u64 %%rd1, %%rd1, %%rd7;", per)
		w("\tmul.wide.u32 %%rd7, %%r25, %d; add.u64 %%rd2, %%rd2, %%rd7;", 128*p.cols*4)
	}
	w("\tmov.u32 %%r4, smem; add.u32 %%r5, %%r4, %d;", probeData)
	w("\tsetp.ne.u32 %%p1, %%r2, 0; setp.ne.u32 %%p2, %%r1, 0;")
	w("\t@%%p1 bra NOALLOC;")
	w("\tadd.u32 %%r6, %%r4, 16;")
	w("\ttcgen05.alloc.%s.sync.aligned.shared::cta.b32 [%%r6], %d;", group, p.cols)
	w("\ttcgen05.relinquish_alloc_permit.%s.sync.aligned;", group)
	w("NOALLOC:")
	w("\t@%%p2 bra NOINIT;")
	w("\tmbarrier.init.shared::cta.b64 [%%r4], 1;")
	w("NOINIT:")
	w("\tmov.u32 %%r7, %%r1;")
	w("COPY:")
	w("\tsetp.ge.u32 %%p3, %%r7, %d;", per/16)
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
	if p.pair {
		w("\tbarrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;")
		w("\tsetp.ne.u32 %%p5, %%r25, 0; or.pred %%p2, %%p2, %%p5;") // the even CTA's thread 0 runs the body
	} else {
		w("\tbar.sync 0;")
	}
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
	if p.pair {
		w("\tmov.u16 %%h1, 3;")
		w("\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%%r4], %%h1;")
	} else {
		w("\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%%r4];")
	}
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
	if p.pair {
		w("\tbarrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;")
	} else {
		w("\tbar.sync 0;")
	}
	w("\t@%%p1 bra DONE;")
	w("\ttcgen05.fence::after_thread_sync;")
	w("\ttcgen05.dealloc.%s.sync.aligned.b32 %%r20, %d;", group, p.cols)
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
// under every schedule; a pair's as 256 lanes, the odd CTA's from 128).
func (p tmemProbe) run(t *testing.T) [][]uint32 {
	t.Helper()
	if len(p.in)%16 != 0 || len(p.in) == 0 || p.pair && len(p.in)%32 != 0 {
		t.Fatalf("probe input of %d bytes: want a positive multiple of 16", len(p.in))
	}
	var first [][]uint32
	for _, opts := range probeSchedules {
		m := p.machine(t, opts)
		if err := m.Run(); err != nil {
			t.Fatalf("%s: %v", opts.Schedule, err)
		}
		for _, f := range m.Findings() {
			if f.Severity <= SevWarning {
				t.Errorf("%s: %s %s at %s: %s", opts.Schedule, f.Severity, f.Rule, f.Pos, f.Msg)
			}
		}
		out := out32(t, m)
		img := make([][]uint32, len(out)/p.cols)
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

// machine prepares the probe's launch.
func (p tmemProbe) machine(t *testing.T, opts Options) *Machine {
	t.Helper()
	src := p.ptx()
	masked := make([]byte, len(p.in))
	for i := 0; i < len(p.in); i += 4 {
		binary.LittleEndian.PutUint32(masked[i:], le32(p.in[i:])^probeMask)
	}
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{128, 1, 1}, SharedMem: probeData + len(p.in),
		Params: []launch.Param{launch.BufferData("in", masked), launch.BufferData("out", make([]byte, 128*p.cols*4))}}
	if p.pair {
		l.Grid, l.Cluster, l.SharedMem = launch.Dim3{2, 1, 1}, launch.Dim3{2, 1, 1}, probeData+len(p.in)/2
		l.Params[1] = launch.BufferData("out", make([]byte, 2*128*p.cols*4))
	}
	m, err := Prepare("probe.ptx", []byte(src), l, opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return m
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

// TestTcgen05CpShapes copies a random matrix with every tcgen05.cp shape,
// plain and with both decompressions, and checks every TMEM cell against
// the ISA's shape table: row r of the source goes to the lanes the shape
// names, its bytes to columns 0.. in order (4 per 32-bit cell); a
// decompressed row's 16-byte chunks each hold 16 elements from bit 0 (the
// padding after them is random here and must not appear), each element
// landing in the low bits of its byte; every other cell keeps its old
// value.
func TestTcgen05CpShapes(t *testing.T) {
	one := func(r int) []int { return []int{r} }
	shapes := []struct {
		name        string
		rows, bytes int
		lanes       func(r int) []int
	}{
		{"128x256b", 128, 32, one},
		{"128x128b", 128, 16, one},
		{"4x256b", 4, 32, one},
		// warpx2::02_13: rows 0-31 to lane quarters 0 and 2, rows 32-63 to 1 and 3
		{"64x128b.warpx2::02_13", 64, 16, func(r int) []int { h := r / 32; return []int{32*h + r%32, 64 + 32*h + r%32} }},
		// warpx2::01_23: rows 0-31 to quarters 0 and 1, rows 32-63 to 2 and 3
		{"64x128b.warpx2::01_23", 64, 16, func(r int) []int { h := r / 32; return []int{64*h + r%32, 64*h + 32 + r%32} }},
		{"32x128b.warpx4", 32, 16, func(r int) []int { return []int{r, 32 + r, 64 + r, 96 + r} }},
	}
	formats := []struct {
		mod  string
		bits int
	}{{"", 8}, {".b8x16.b6x16_p32", 6}, {".b8x16.b4x16_p64", 4}}
	for si, sh := range shapes {
		for _, f := range formats {
			t.Run(sh.name+f.mod, func(t *testing.T) {
				src := randBytes(uint64(100+si*3+f.bits), max(sh.rows, 8)*sh.bytes)
				o := kMajor{rows: max(sh.rows, 8), rowBytes: sh.bytes, lbo: 128, sbo: 256}
				in := make([]byte, o.rows/8*256)
				o.put(in, 0, src)
				body := o.smemDesc(t, "%rd10", 0) +
					fmt.Sprintf("\ttcgen05.cp.cta_group::1.%s%s [%%r20], %%rd10;", sh.name, f.mod)
				img := tmemProbe{cols: 32, in: in, preset: true, body: body}.run(t)
				// the decoded rows
				dec := func(r int) []byte {
					row := src[r*sh.bytes : (r+1)*sh.bytes]
					if f.bits == 8 {
						return row
					}
					out := make([]byte, sh.bytes)
					for e := range out {
						chunk := row[16*(e/16):]
						var v byte
						for b := 0; b < f.bits; b++ {
							bit := (e%16)*f.bits + b
							v |= (chunk[bit/8] >> (bit % 8) & 1) << b
						}
						out[e] = v
					}
					return out
				}
				want := map[[2]int]uint32{}
				for r := 0; r < sh.rows; r++ {
					row := dec(r)
					for _, ln := range sh.lanes(r) {
						for c := 0; c < sh.bytes/4; c++ {
							want[[2]int{ln, c}] = le32(row[4*c:])
						}
					}
				}
				checkImage(t, sh.name+f.mod, img, func(lane, col int) (uint32, bool) {
					if v, ok := want[[2]int{lane, col}]; ok {
						return v, true
					}
					return presetCell(lane, col), true
				})
			})
		}
	}
}

// TestTcgen05Collector chains four MMAs into one accumulator: the first
// fills the A collector buffer (::fill), the next two (::use, ::lastuse)
// name other A data in shared memory and must use the kept A instead, the
// fourth reads its A from shared memory again. D must equal that chain
// computed with the datapath element by element; a ::use after ::lastuse
// (the buffer is empty again) is reported.
func TestTcgen05Collector(t *testing.T) {
	const M, N, K = 128, 32, 16
	ao := kMajor{rows: M, rowBytes: 2 * K, lbo: 128, sbo: 256}
	bo := kMajor{rows: N, rowBytes: 2 * K, lbo: 128, sbo: 256}
	A := [2][]byte{bf16Bytes(11, M*K), bf16Bytes(12, M*K)}
	var B [4][]byte
	in := make([]byte, 8192+4*1024)
	ao.put(in, 0, A[0])
	ao.put(in[4096:], 0, A[1])
	for i := range B {
		B[i] = bf16Bytes(uint64(20+i), N*K)
		bo.put(in[8192+1024*i:], 0, B[i])
	}
	idv := idescOf(t, desc.IDescSpec{Kind: desc.KindF16, D: "f32", A: "bf16", B: "bf16", M: M, N: N})
	body := ao.smemDesc(t, "%rd10", 0) + ao.smemDesc(t, "%rd11", 4096)
	for i := 0; i < 4; i++ {
		body += bo.smemDesc(t, fmt.Sprintf("%%rd%d", 12+i), 8192+1024*i)
	}
	body += fmt.Sprintf("\tmov.u32 %%r30, %#x;\n", idv) +
		"\tsetp.eq.u32 %p8, %r1, 1; setp.eq.u32 %p9, %r1, 0;\n" +
		"\ttcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r20], %rd10, %rd12, %r30, %p8;\n" +
		"\ttcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r20], %rd11, %rd13, %r30, %p9;\n" +
		"\ttcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [%r20], %rd11, %rd14, %r30, %p9;\n" +
		"\ttcgen05.mma.cta_group::1.kind::f16 [%r20], %rd11, %rd15, %r30, %p9;"
	p := tmemProbe{cols: N, in: in, body: body}
	img := p.run(t)
	row := func(m []byte, r int) []byte { return m[r*2*K : (r+1)*2*K] }
	checkImage(t, "collector", img, func(lane, col int) (uint32, bool) {
		d := bf16Dot(row(A[0], lane), row(B[0], col), 0)
		d = bf16Dot(row(A[0], lane), row(B[1], col), uint64(d))
		d = bf16Dot(row(A[0], lane), row(B[2], col), uint64(d))
		return bf16Dot(row(A[1], lane), row(B[3], col), uint64(d)), true
	})

	// ::use after ::lastuse: nothing is kept
	p.body = strings.Replace(p.body, "kind::f16 [%r20], %rd11, %rd15", "kind::f16.collector::a::use [%r20], %rd11, %rd15", 1)
	m := p.machine(t, Options{Check: true})
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range m.Findings() {
		found = found || f.Rule == HzTcgenCollector
	}
	if !found {
		t.Error("a ::use after ::lastuse is not reported (tcgen05/collector)")
	}
}

// TestTcgen05BlockScaleFP4 runs block-scaled e2m1 MMAs (kind::mxf4 with
// UE8M0 scale factors two per row, kind::mxf4nvf4 with UE4M3 four per row,
// and two per row from the cell's upper bytes, scale-factor ID 2) with
// random operands and scale factors, copied into TMEM with tcgen05.cp
// .32x128b.warpx4 from CUTLASS's 128x4 chunk layout, and checks D against
// the instruction's datapath element by element (A and B packed two
// e2m1 to a byte, the low nibble first).
func TestTcgen05BlockScaleFP4(t *testing.T) {
	const M, N, K = 128, 64, 64
	for _, c := range []struct {
		name      string
		inst      string // the tcgen05.mma form after "tcgen05.mma.cta_group::1."
		scaleType string
		nsf, id   int // scale factors per row; the scale-factor ID (byte)
		lo, hi    int // scale-factor bytes are drawn from [lo, hi)
	}{
		{"mxf4-2X", "kind::mxf4.block_scale.scale_vec::2X", "ue8m0", 2, 0, 120, 134},
		{"nvf4-4X", "kind::mxf4nvf4.block_scale.scale_vec::4X", "ue4m3", 4, 0, 0x20, 0x48},
		{"nvf4-2X-id2", "kind::mxf4nvf4.block_scale.scale_vec::2X", "ue8m0", 2, 2, 120, 134},
	} {
		t.Run(c.name, func(t *testing.T) {
			ao := kMajor{rows: M, rowBytes: K / 2, lbo: 128, sbo: 256}
			bo := kMajor{rows: N, rowBytes: K / 2, lbo: 128, sbo: 256}
			so := kMajor{rows: 32, rowBytes: 16, lbo: 128, sbo: 128}
			A, B := randBytes(31, M*K/2), randBytes(32, N*K/2)
			// sf[r][kb]: 4 bytes per row (a whole TMEM cell)
			r := rand.New(rand.NewPCG(33, uint64(c.lo)))
			sfa, sfb := make([][4]byte, M), make([][4]byte, N)
			for _, s := range [][][4]byte{sfa, sfb} {
				for i := range s {
					for j := range s[i] {
						s[i][j] = byte(c.lo + r.IntN(c.hi-c.lo))
					}
				}
			}
			chunk := func(s [][4]byte) []byte {
				b := make([]byte, 512)
				for i := range s {
					for kb := 0; kb < 4; kb++ {
						b[sfOffset(i, kb, 4)] = s[i][kb]
					}
				}
				return b
			}
			in := make([]byte, 4096+2048+1024)
			ao.put(in, 0, A)
			bo.put(in[4096:], 0, B)
			so.put(in[6144:], 0, chunk(sfa))
			so.put(in[6656:], 0, chunk(sfb))
			idv := idescOf(t, desc.IDescSpec{Kind: map[bool]desc.Kind{true: desc.KindMXF4, false: desc.KindMXF4NVF4}[strings.HasPrefix(c.name, "mxf4")],
				A: "e2m1", B: "e2m1", M: M, N: N, ScaleType: c.scaleType, ScaleAID: c.id, ScaleBID: c.id})
			body := ao.smemDesc(t, "%rd10", 0) + bo.smemDesc(t, "%rd11", 4096) + so.smemDesc(t, "%rd12", 6144) + so.smemDesc(t, "%rd13", 6656) +
				"\tadd.u32 %r31, %r20, 64; add.u32 %r32, %r20, 68;\n" +
				"\ttcgen05.cp.cta_group::1.32x128b.warpx4 [%r31], %rd12;\n" +
				"\ttcgen05.cp.cta_group::1.32x128b.warpx4 [%r32], %rd13;\n" +
				fmt.Sprintf("\tmov.u32 %%r30, %#x;\n", idv) +
				"\tsetp.eq.u32 %p8, %r1, 1;\n" +
				"\ttcgen05.mma.cta_group::1." + c.inst + " [%r20], %rd10, %rd11, %r30, [%r31], [%r32], %p8;"
			img := tmemProbe{cols: 128, in: in, body: body}.run(t)
			in2, err := datapath.ParseInst("tcgen05.mma.cta_group::1."+c.inst, datapath.TCOptions{M: M, N: N, A: "e2m1", B: "e2m1", ScaleType: c.scaleType})
			if err != nil || in2.Block == nil {
				t.Fatalf("the datapath of %s: %v", c.inst, err)
			}
			nib := func(b []byte, row int) []uint64 {
				v := make([]uint64, K)
				for k := range v {
					v[k] = uint64(b[row*K/2+k/2] >> (4 * (k % 2)) & 0xF)
				}
				return v
			}
			sf := func(s [][4]byte, row int) []uint64 {
				v := make([]uint64, c.nsf)
				for j := range v {
					v[j] = uint64(s[row][c.id+j])
				}
				return v
			}
			checkImage(t, c.name, img, func(lane, col int) (uint32, bool) {
				if col >= N {
					return 0, false
				}
				return uint32(in2.Block.Dot(nib(A, lane), nib(B, col), sf(sfa, lane), sf(sfb, col), 0)), true
			})
		})
	}
}

// TestTcgen05WsM128 runs tcgen05.mma.ws with M=128 N=64 on random bf16
// operands and checks every D element where the catalog's M=128 atom
// (ISA Layout D, row m at lane m; the simulator places the .ws M=128
// accumulator the same way) says, against the datapath.
func TestTcgen05WsM128(t *testing.T) {
	const M, N, K = 128, 64, 16
	ao := kMajor{rows: M, rowBytes: 2 * K, lbo: 128, sbo: 256}
	bo := kMajor{rows: N, rowBytes: 2 * K, lbo: 128, sbo: 256}
	A, B := bf16Bytes(41, M*K), bf16Bytes(42, N*K)
	in := make([]byte, 4096+2048)
	ao.put(in, 0, A)
	bo.put(in[4096:], 0, B)
	idv := idescOf(t, desc.IDescSpec{Kind: desc.KindF16, D: "f32", A: "bf16", B: "bf16", M: M, N: N})
	body := ao.smemDesc(t, "%rd10", 0) + bo.smemDesc(t, "%rd11", 4096) +
		fmt.Sprintf("\tmov.u32 %%r30, %#x;\n", idv) +
		"\tsetp.eq.u32 %p8, %r1, 1;\n" +
		"\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r20], %rd10, %rd11, %r30, %p8;"
	img := tmemProbe{cols: N, in: in, body: body}.run(t)
	atom, err := catalog.Lookup("tcgen05.tmem.m128n64.d.cta1")
	if err != nil {
		t.Fatal(err)
	}
	for m := 0; m < M; m++ {
		for n := 0; n < N; n++ {
			off := atom.Offsets.Eval(m + M*n)
			lane, col := off>>16, off&0xFFFF
			if got, want := img[lane][col], bf16Dot(A[m*2*K:(m+1)*2*K], B[n*2*K:(n+1)*2*K], 0); got != want {
				t.Fatalf("D[%d][%d] at lane %d column %d = %#x, the datapath gives %#x", m, n, lane, col, got, want)
			}
		}
	}
}

// TestTcgen05ShiftDown: tcgen05.shift.down moves the 32-byte rows (eight
// columns) at the address down one lane; lane 0 keeps its row, the columns
// after the eighth and the last lane's old row are not moved.
func TestTcgen05ShiftDown(t *testing.T) {
	img := tmemProbe{cols: 32, in: make([]byte, 16), preset: true,
		body: "\ttcgen05.shift.cta_group::1.down [%r20];"}.run(t)
	checkImage(t, "shift.down", img, func(lane, col int) (uint32, bool) {
		if col < 8 && lane > 0 {
			return presetCell(lane-1, col), true
		}
		return presetCell(lane, col), true
	})
}

// TestBulkReduceCluster: cp.reduce.async.bulk from CTA 0's shared memory
// into CTA 1's (.shared::cluster, max.s32, completing on CTA 1's
// mbarrier): every word of CTA 1's buffer becomes the signed maximum of
// the two, under every schedule, with no finding.
func TestBulkReduceCluster(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .u64 out) {
	.reg .pred %p<6>; .reg .b32 %r<40>; .reg .b64 %rd<8>;
	.shared .align 128 .b8 src[256];
	.shared .align 128 .b8 dst[256];
	.shared .align 8 .b64 mbar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, src; mov.u32 %r4, dst; mov.u32 %r5, mbar;
	shl.b32 %r6, %r1, 2;
	// src[i] = (i%3 - 1) * i * 1000, dst[i] = 50*rank + i - 30
	rem.u32 %r7, %r1, 3; sub.s32 %r7, %r7, 1; mul.lo.s32 %r8, %r7, %r1; mul.lo.s32 %r8, %r8, 1000;
	add.u32 %r9, %r3, %r6; st.shared.s32 [%r9], %r8;
	mul.lo.s32 %r10, %r2, 50; add.s32 %r10, %r10, %r1; sub.s32 %r10, %r10, 30;
	add.u32 %r11, %r4, %r6; st.shared.s32 [%r11], %r10;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra NOINIT;
	mbarrier.init.shared::cta.b64 [%r5], 1;
	fence.mbarrier_init.release.cluster;
NOINIT:
	fence.proxy.async.shared::cta;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	setp.ne.u32 %p2, %r2, 1;
	or.pred %p3, %p1, %p2;
	@%p3 bra NOARM;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 256;
NOARM:
	setp.ne.u32 %p2, %r2, 0;
	or.pred %p3, %p1, %p2;
	@%p3 bra NORED;
	mapa.shared::cluster.u32 %r12, %r4, 1;
	mapa.shared::cluster.u32 %r13, %r5, 1;
	cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.s32 [%r12], [%r3], 256, [%r13];
NORED:
	setp.ne.u32 %p2, %r2, 1;
	@%p2 bra DONE;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r5], 0;
	@!%p4 bra WAIT;
	ld.shared.s32 %r14, [%r11];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.s32 [%rd1], %r14;
DONE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ret;
}`
	for _, opts := range probeSchedules {
		l := &launch.Launch{Grid: launch.Dim3{2, 1, 1}, Block: launch.Dim3{64, 1, 1}, Cluster: launch.Dim3{2, 1, 1},
			Params: []launch.Param{launch.BufferData("out", make([]byte, 256))}}
		m := runSilent(t, "k.ptx", []byte(src), l, opts)
		for i, v := range out32(t, m) {
			s := int32((i%3 - 1) * i * 1000)
			want := max(int32(50+i-30), s)
			if int32(v) != want {
				t.Errorf("%s: dst[%d] = %d, want max(%d, %d) = %d", opts.Schedule, i, int32(v), 50+i-30, s, want)
			}
		}
	}
}

// TestTcgen05PairLayouts runs a CTA pair's tcgen05.mma.cta_group::2 with
// M=128 (ISA Layout B: each CTA's 64 rows folded into lanes 0-63 for the
// left half of N and 64-127 for the right) and M=256 (Layout A), on random
// bf16 operands split between the two CTAs' shared memory (rows of A by
// CTA, the left and right halves of B's columns), and checks every D
// element where the catalog's atom puts it, in the CTA it names.
func TestTcgen05PairLayouts(t *testing.T) {
	const N, K = 64, 16
	for _, M := range []int{128, 256} {
		t.Run(fmt.Sprintf("M%d", M), func(t *testing.T) {
			h := M / 2
			ao := kMajor{rows: h, rowBytes: 2 * K, lbo: 128, sbo: 256}
			bo := kMajor{rows: N / 2, rowBytes: 2 * K, lbo: 128, sbo: 256}
			A, B := bf16Bytes(uint64(51+M), M*K), bf16Bytes(uint64(52+M), N*K)
			per := 4096 + 1024
			in := make([]byte, 2*per)
			for c := 0; c < 2; c++ {
				ao.put(in[c*per:], 0, A[c*h*2*K:(c+1)*h*2*K])
				bo.put(in[c*per+4096:], 0, B[c*N/2*2*K:(c+1)*N/2*2*K])
			}
			idv := idescOf(t, desc.IDescSpec{Kind: desc.KindF16, D: "f32", A: "bf16", B: "bf16", M: M, N: N})
			body := ao.smemDesc(t, "%rd10", 0) + bo.smemDesc(t, "%rd11", 4096) +
				fmt.Sprintf("\tmov.u32 %%r30, %#x;\n", idv) +
				"\tsetp.eq.u32 %p8, %r1, 1;\n" +
				"\ttcgen05.mma.cta_group::2.kind::f16 [%r20], %rd10, %rd11, %r30, %p8;"
			img := tmemProbe{cols: N, in: in, body: body, pair: true}.run(t)
			atom, err := catalog.Lookup(fmt.Sprintf("tcgen05.tmem.m%dn%d.d.cta2", M, N))
			if err != nil {
				t.Fatal(err)
			}
			for m := 0; m < M; m++ {
				for n := 0; n < N; n++ {
					off := atom.Offsets.Eval(m + M*n)
					cta, lane, col := m/h, off>>16, off&0xFFFF
					want := bf16Dot(A[m*2*K:(m+1)*2*K], B[n*2*K:(n+1)*2*K], 0)
					if got := img[128*cta+lane][col]; got != want {
						t.Fatalf("D[%d][%d] at CTA %d lane %d column %d = %#x, the datapath gives %#x", m, n, cta, lane, col, got, want)
					}
				}
			}
		})
	}
}

// TestAtmemGemm runs fixtures/sim/blackwell/atmem_gemm (A in TMEM, written
// with tcgen05.st and rewritten between the two MMAs once the first has
// committed): silent under every schedule, and D equal element by element
// to the two-MMA chain through the datapath.
func TestAtmemGemm(t *testing.T) {
	const M, N, K = 128, 64, 16
	if got, want := uint32(0x8100490), idescOf(t, desc.IDescSpec{Kind: desc.KindF16, D: "f32", A: "bf16", B: "bf16", M: M, N: N}); got != want {
		t.Fatalf("atmem_gemm's instruction descriptor %#x, want %#x", got, want)
	}
	for _, opts := range probeSchedules {
		m := runBlackwell(t, "atmem_gemm", opts)
		buf := func(n string) []byte { b, _ := m.Buffer(n); return b.Data }
		A0, A1, B, D := buf("A0"), buf("A1"), buf("B"), buf("D")
		row := func(x []byte, r int) []byte { return x[r*2*K : (r+1)*2*K] }
		for r := 0; r < M; r++ {
			for n := 0; n < N; n++ {
				want := bf16Dot(row(A1, r), row(B, n), uint64(bf16Dot(row(A0, r), row(B, n), 0)))
				if got := le32(D[4*(r*N+n):]); got != want {
					t.Fatalf("%s: D[%d][%d] = %#x, the datapath's chain gives %#x", opts.Schedule, r, n, got, want)
				}
			}
		}
	}
}

// TestPairTma runs fixtures/sim/blackwell/pair_tma (a multicast copy into
// both CTAs of a pair, and .cta_group::2 copies of each CTA's own tile
// completing on the leader's mbarrier): silent under every schedule, and
// each CTA holds the multicast tile and its own row block of B.
func TestPairTma(t *testing.T) {
	for _, opts := range probeSchedules {
		m := runBlackwell(t, "pair_tma", opts)
		out, _ := m.Buffer("out")
		for rank := 0; rank < 2; rank++ {
			for i := 0; i < 2048; i++ {
				// A is u16 iota from 0 (one 64x16 tile), B from 5000 (two)
				a := binary.LittleEndian.Uint16(out.Data[rank*4096+2*(i%1024):])
				if i < 1024 && a != uint16(i) {
					t.Fatalf("%s: CTA %d's A element %d = %d, want %d", opts.Schedule, rank, i, a, i)
				}
				if i >= 1024 {
					b := binary.LittleEndian.Uint16(out.Data[rank*4096+2048+2*(i-1024):])
					if want := uint16(5000 + rank*1024 + i - 1024); b != want {
						t.Fatalf("%s: CTA %d's B element %d = %d, want %d", opts.Schedule, rank, i-1024, b, want)
					}
				}
			}
		}
	}
}
