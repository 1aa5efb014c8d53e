package sim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
	"github.com/tcsim/tcsim/sim/trace"
)

// tcsim's own sm_100a GEMMs (fixtures/kernels/sm100_gemm.cu, compiled by
// nvcc 13; issue 16's real-kernel corpus): persistent, warp-specialized,
// with a cluster-launch-control tile scheduler, a TMA producer, a
// double-buffered TMEM accumulator and a TMA-store epilogue; dense bf16 on
// one SM and on a CTA pair, MXFP8 and NVFP4 block-scaled. Not
// hardware-verified: there is no B200 in tcsim's lab. Each must run with no
// finding under every schedule and produce, element for element, the chain
// of tcgen05.mma instructions over its tiling computed with the
// per-instruction datapath, close to a float64 reference.

type sm100Kind int

const (
	sm100BF16 sm100Kind = iota
	sm100MXF8
	sm100NVF4
)

type sm100Kernel struct {
	name    string // fixtures/kernels/sm100_NAME.json
	kind    sm100Kind
	m, n, k int
	ctas    int // CTAs of the first unit: the only ones that run with one worker
}

var sm100Kernels = []sm100Kernel{
	{"bf16_1sm", sm100BF16, 256, 512, 256, 1},
	{"bf16_2sm", sm100BF16, 512, 512, 256, 2},
	{"mxf8_1sm", sm100MXF8, 256, 256, 512, 1},
	{"nvf4_1sm", sm100NVF4, 256, 256, 1024, 1},
}

const sm100Dir = "../fixtures/kernels"

func sm100Launch(t testing.TB, name string) (*launch.Launch, []byte) {
	t.Helper()
	l, err := launch.ReadLaunch(filepath.Join(sm100Dir, "sm100_"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(l.PTX)
	if err != nil {
		t.Fatal(err)
	}
	return l, src
}

func sm100Run(t testing.TB, l *launch.Launch, src []byte, opts Options) *Machine {
	t.Helper()
	m, err := Prepare(filepath.Base(l.PTX), src, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatalf("%s: run: %v", opts.Schedule, err)
	}
	return m
}

// silent fails the test on any finding: no error, warning or note.
func silent(t testing.TB, what string, m *Machine) {
	t.Helper()
	for _, f := range m.Findings() {
		t.Errorf("%s: %s %s at %s (fix %s): %s", what, f.Severity, f.Rule, f.Pos, f.Cause, f.Msg)
	}
}

func sm100Buf(t testing.TB, m *Machine, name string) []byte {
	t.Helper()
	b, err := m.Buffer(name)
	if err != nil {
		t.Fatal(err)
	}
	return b.Data
}

// TestSm100Kernels: `tcsim ptx check` accepts the PTX. Each kernel, run
// with one worker (the lazy schedule), reports nothing; its first CTA (pair)
// cancels every other cluster of the grid with clusterlaunchcontrol and
// computes all the tiles (the trace shows no other CTA); D equals bit for
// bit the instruction-level reference and is close to float64. Under
// eager, latest and other worker counts it reports nothing and writes the
// same bytes; TestHazardCorpus runs it under 20 random seeds too
// (sm100CorpusCase).
func TestSm100Kernels(t *testing.T) {
	type sched struct {
		opts Options
		name string
	}
	scheds := []sched{{Options{Check: true, Schedule: Latest}, "latest"}}
	if !testing.Short() {
		scheds = append(scheds, sched{Options{Check: true, Schedule: Eager}, "eager"}, sched{Options{Check: true}, "lazy"},
			sched{Options{Check: true, Workers: 3}, "lazy, 3 workers"}, sched{Options{Check: true, Schedule: Random, Seed: 1}, "seed 1"})
	}
	for _, kc := range sm100Kernels {
		t.Run(kc.name, func(t *testing.T) {
			l, src := sm100Launch(t, kc.name)
			if _, errs := ptx.Check(l.PTX, src); len(errs) > 0 {
				t.Fatalf("ptx check: %v", errs[0])
			}
			var tr bytes.Buffer
			m := sm100Run(t, l, src, Options{Check: true, Workers: 1, Trace: &tr})
			silent(t, "lazy, 1 worker", m)
			m.FlushTrace()
			f, err := trace.Read("trace", &tr)
			if err != nil {
				t.Fatal(err)
			}
			ran := map[[3]int]bool{}
			for _, r := range f.Records {
				if r.Inst != nil {
					ran[r.Inst.CTA] = true
				}
			}
			if len(ran) != kc.ctas {
				t.Errorf("%d CTAs ran (%v), want %d of the grid's %d: the scheduler did not take the other tiles", len(ran), ran, kc.ctas, l.Grid[0])
			}
			d := sm100Buf(t, m, "D")
			checkSm100(t, kc, m, d)
			for _, sc := range scheds {
				m := sm100Run(t, l, src, sc.opts)
				silent(t, sc.name, m)
				if got := sm100Buf(t, m, "D"); !bytes.Equal(got, d) {
					t.Errorf("%s: D differs from the one-worker run's", sc.name)
				}
			}
		})
	}
}

// sm100CorpusCase is a kernel of sm100Kernels as a case of the hazard
// corpus (TestHazardCorpus): silent under every schedule, and D, under each,
// bit-equal to the instruction-level reference (computed once, from the
// first run's inputs).
func sm100CorpusCase(kc sm100Kernel) hazardCorpusCase {
	var want []byte
	return hazardCorpusCase{name: "sm100_" + kc.name, load: func(t testing.TB, opts Options) (*Machine, func(testing.TB, *Machine)) {
		l, src := sm100Launch(t, kc.name)
		m, err := Prepare(filepath.Base(l.PTX), src, l, opts)
		if err != nil {
			t.Fatal(err)
		}
		return m, func(t testing.TB, m *Machine) {
			if want == nil {
				want = sm100Expected(t, kc, m)
			}
			if got := sm100Buf(t, m, "D"); !bytes.Equal(got, want) {
				t.Errorf("%s: D differs from the instruction-level reference (go test ./sim -run TestSm100Kernels says where)", schedName(opts))
			}
		}
	}}
}

// sm100Model is the arithmetic of a kernel's MMA instruction and the
// encoding of its operands.
type sm100Model struct {
	fa, fsf      *numfmt.Format // element and scale-factor formats (fsf nil: not block-scaled)
	kinst, sfvec int            // K of one instruction; elements per scale factor
	dot          func(a, b, sa, sb []uint64, c uint64) uint64
	matmul       func(M, N, K int, a, b, sa, sb, c []uint64) []uint64
	elem         func(buf []byte, i int) uint64 // element i of a row-major operand
}

func sm100ModelOf(kind sm100Kind) sm100Model {
	if kind == sm100BF16 {
		mdl := datapath.Blackwell(numfmt.BF16, numfmt.BF16, numfmt.F32)
		return sm100Model{fa: numfmt.BF16, kinst: 16,
			dot:    func(a, b, _, _ []uint64, c uint64) uint64 { return mdl.Dot(a, b, c) },
			matmul: func(M, N, K int, a, b, _, _, c []uint64) []uint64 { return mdl.MatMul(M, N, K, a, b, c) },
			elem:   func(buf []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint16(buf[2*i:])) }}
	}
	md := sm100Model{fa: numfmt.E4M3, fsf: numfmt.UE8M0, kinst: 32, sfvec: 32,
		elem: func(buf []byte, i int) uint64 { return uint64(buf[i]) }}
	kd := desc.KindMXF8F6F4
	if kind == sm100NVF4 {
		md = sm100Model{fa: numfmt.E2M1, fsf: numfmt.UE4M3, kinst: 64, sfvec: 16,
			elem: func(buf []byte, i int) uint64 { return uint64(buf[i/2]>>(4*(i%2))) & 15 }}
		kd = desc.KindMXF4NVF4
	}
	bs := datapath.NewBlockScaled(kd, md.fa, md.fa, md.fsf, md.sfvec)
	md.dot, md.matmul = bs.Dot, bs.MatMul
	return md
}

// chain is D before rounding: the tcgen05.mma instructions along K, one K
// step of the instruction at a time, from the operands and the scale
// factors at the chunk layout's offsets (sfOffset), through the datapath's
// whole-matrix form; every 16th row also through Dot, element by element.
func (md sm100Model) chain(t testing.TB, M, N, K int, A, B, SFA, SFB []byte) []uint64 {
	t.Helper()
	kinst, nsf, kb4 := md.kinst, 0, 0
	if md.fsf != nil {
		nsf, kb4 = kinst/md.sfvec, K/md.sfvec/4
	}
	// the operands and scale factors of K elements [k0, k0+kinst) of rows
	// [r0, r0+rows)
	step := func(buf []byte, r0, rows, k0 int, out []uint64) {
		for r := 0; r < rows; r++ {
			for k := 0; k < kinst; k++ {
				out[r*kinst+k] = md.elem(buf, (r0+r)*K+k0+k)
			}
		}
	}
	scales := func(buf []byte, r0, rows, k0 int, out []uint64) {
		for r := 0; r < rows; r++ {
			for j := 0; j < nsf; j++ {
				out[r*nsf+j] = uint64(buf[sfOffset(r0+r, k0/md.sfvec+j, kb4)])
			}
		}
	}
	a, b := make([]uint64, M*kinst), make([]uint64, N*kinst)
	sa, sb := make([]uint64, M*nsf), make([]uint64, N*nsf)
	c := make([]uint64, M*N)
	for k0 := 0; k0 < K; k0 += kinst {
		step(A, 0, M, k0, a)
		step(B, 0, N, k0, b)
		if nsf > 0 {
			scales(SFA, 0, M, k0, sa)
			scales(SFB, 0, N, k0, sb)
		}
		c = md.matmul(M, N, kinst, a, b, sa, sb, c)
	}
	for r := 0; r < M; r += 16 {
		for n := 0; n < N; n++ {
			var e uint64
			for k0 := 0; k0 < K; k0 += kinst {
				step(A, r, 1, k0, a[:kinst])
				step(B, n, 1, k0, b[:kinst])
				if nsf > 0 {
					scales(SFA, r, 1, k0, sa[:nsf])
					scales(SFB, n, 1, k0, sb[:nsf])
				}
				e = md.dot(a[:kinst], b[:kinst], sa[:nsf], sb[:nsf], e)
			}
			if e != c[r*N+n] {
				t.Fatalf("D[%d][%d]: the datapath's Dot chain gives %#x, its MatMul chain %#x", r, n, e, c[r*N+n])
			}
		}
	}
	return c
}

// sm100Expected is D as the instruction-level reference gives it: the chain
// of MMAs over the run's inputs, rounded to bf16.
func sm100Expected(t testing.TB, kc sm100Kernel, m *Machine) []byte {
	t.Helper()
	md := sm100ModelOf(kc.kind)
	var SFA, SFB []byte
	if md.fsf != nil {
		SFA, SFB = sm100Buf(t, m, "SFA"), sm100Buf(t, m, "SFB")
	}
	c := md.chain(t, kc.m, kc.n, kc.k, sm100Buf(t, m, "A"), sm100Buf(t, m, "B"), SFA, SFB)
	d := make([]byte, 2*len(c))
	for i, v := range c {
		binary.LittleEndian.PutUint16(d[2*i:], bf16RN(uint32(v)))
	}
	return d
}

// checkSm100 compares D (bf16) with the instruction-level reference
// rounded to bf16 (bit for bit), and with a float64 sum.
func checkSm100(t *testing.T, kc sm100Kernel, m *Machine, d []byte) {
	t.Helper()
	M, N, K := kc.m, kc.n, kc.k
	md := sm100ModelOf(kc.kind)
	A, B := sm100Buf(t, m, "A"), sm100Buf(t, m, "B")
	var SFA, SFB []byte
	if md.fsf != nil {
		SFA, SFB = sm100Buf(t, m, "SFA"), sm100Buf(t, m, "SFB")
	}
	if len(d) != 2*M*N {
		t.Fatalf("D has %d bytes, want %d", len(d), 2*M*N)
	}
	exact := sm100Expected(t, kc, m)
	// the float64 reference: every element and scale factor decoded once
	decode := func(n int, f *numfmt.Format, e func(int) uint64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f.Decode(e(i)).Float64()
		}
		return v
	}
	af := decode(M*K, md.fa, func(i int) uint64 { return md.elem(A, i) })
	bf := decode(N*K, md.fa, func(i int) uint64 { return md.elem(B, i) })
	var sfaf, sfbf []float64
	kb4 := 0
	if md.fsf != nil {
		sfaf = decode(len(SFA), md.fsf, func(i int) uint64 { return uint64(SFA[i]) })
		sfbf = decode(len(SFB), md.fsf, func(i int) uint64 { return uint64(SFB[i]) })
		kb4 = K / md.sfvec / 4
	}
	diffs, first, worst := 0, "", 0.0
	for r := 0; r < M; r++ {
		for n := 0; n < N; n++ {
			var ref, mag float64
			for k := 0; k < K; k++ {
				p := af[r*K+k] * bf[n*K+k]
				if md.fsf != nil {
					p *= sfaf[sfOffset(r, k/md.sfvec, kb4)] * sfbf[sfOffset(n, k/md.sfvec, kb4)]
				}
				ref += p
				mag += math.Abs(p)
			}
			want := binary.LittleEndian.Uint16(exact[2*(r*N+n):])
			got := binary.LittleEndian.Uint16(d[2*(r*N+n):])
			if got != want {
				if diffs == 0 {
					first = fmt.Sprintf("D[%d][%d] = %#04x, the instruction-level reference gives %#04x", r, n, got, want)
				}
				diffs++
			}
			if mag > 0 {
				worst = max(worst, math.Abs(float64(math.Float32frombits(uint32(got)<<16))-ref)/mag)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d elements differ from the instruction-level reference; first %s", diffs, M*N, first)
	}
	// every instruction rounds to f32 (2^-23 relative to the sum of
	// magnitudes, K/kinst times), and the bf16 output adds 2^-9
	bound := float64(K/md.kinst+1)*0x1p-22 + 0x1p-8
	t.Logf("%s %d×%d×%d: %d elements bit-equal to the instruction-level reference; max |D - float64| / Σ|a·b| = %.3g (bound %.3g)",
		kc.name, M, N, K, M*N-diffs, worst, bound)
	if worst > bound {
		t.Errorf("error vs float64 %.3g exceeds the bound %.3g", worst, bound)
	}
}
