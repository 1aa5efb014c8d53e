package sim

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
)

// Speed. The targets: more than 50 million simulated
// thread-instructions per second on plain integer code, and a whole
// 128×256-tile CTA of a TMA+wgmma GEMM with K=512 in under 2 s on one core.
// Compare BenchmarkIntegerCode's thread-inst/s with BenchmarkNativeInteger,
// the same arithmetic as a plain Go loop, in the same run.

const intKernel = `.visible .entry k(.param .u64 out, .param .u32 n) {
	.reg .pred %p<2>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	ld.param.u32 %r5, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r9, 0;
	mov.u32 %r3, 0;
L:	add.u32 %r9, %r9, %r1;
	xor.b32 %r9, %r9, %r3;
	shl.b32 %r4, %r9, 3;
	add.u32 %r9, %r9, %r4;
	and.b32 %r9, %r9, 16777215;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r5;
	@%p1 bra L;
` + storeTid

func intLaunch(b testing.TB, iters int, workers int) *Machine {
	m, err := prepare(intKernel, 8, 256, 4*8*256, Options{Workers: workers}, launch.Scalar("n", launch.U32, uint64(iters)))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkIntegerCode(b *testing.B)         { benchInteger(b, 1) }
func BenchmarkIntegerCodeAllCores(b *testing.B) { benchInteger(b, 0) }

// benchInteger times the integer kernel's runs (not their preparation) with
// the given Options.Workers and reports thread-instructions per second.
func benchInteger(b *testing.B, workers int) {
	const iters = 2000
	var steps int64
	var elapsed time.Duration
	for range b.N {
		m := intLaunch(b, iters, workers)
		start := time.Now()
		if err := m.Run(); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		steps += m.Steps()
	}
	b.ReportMetric(float64(steps*32)/elapsed.Seconds(), "thread-inst/s")
}

var sinkU32 uint32

// BenchmarkNativeInteger is the baseline: the kernel's loop in Go, for
// the same 2048 threads.
func BenchmarkNativeInteger(b *testing.B) {
	const iters = 2000
	start := time.Now()
	for range b.N {
		for t := uint32(0); t < 2048; t++ {
			v := uint32(0)
			for i := uint32(0); i < iters; i++ {
				v += t
				v ^= i
				v += v << 3
				v &= 16777215
			}
			sinkU32 += v
		}
	}
	// 8 PTX instructions per iteration
	b.ReportMetric(float64(b.N)*2048*iters*8/time.Since(start).Seconds(), "thread-inst/s")
}

// gemm256Machine prepares one CTA of the 128×256-tile GEMM with K.
func gemm256Machine(tb testing.TB, K int, gridX, gridY int, opts Options) *Machine {
	M, N := 128*gridY, 256*gridX
	l := &launch.Launch{Grid: launch.Dim3{uint32(gridX), uint32(gridY), 1}, Block: launch.Dim3{128, 1, 1}, SharedMem: 49152 + 8}
	a, err := launch.ParseFill("uniform:bf16:7:-1:1")
	if err != nil {
		tb.Fatal(err)
	}
	bf, _ := launch.ParseFill("uniform:bf16:8:-1:1")
	tmA := &launch.TensorMap{Buffer: "A", DType: 9, Dims: []uint64{uint64(K), uint64(M)}, Strides: []uint64{uint64(2 * K)}, Box: []uint32{64, 128}, ElemStrides: []uint32{1, 1}, Swizzle: 3}
	tmB := &launch.TensorMap{Buffer: "B", DType: 9, Dims: []uint64{uint64(K), uint64(N)}, Strides: []uint64{uint64(2 * K)}, Box: []uint32{64, 256}, ElemStrides: []uint32{1, 1}, Swizzle: 3}
	l.Params = []launch.Param{launch.TMap("tmA", tmA), launch.TMap("tmB", tmB),
		launch.Buffer("C", 4*M*N, launch.Fill{}), launch.Scalar("K", launch.U32, uint64(K))}
	l.Buffers = []launch.Param{launch.Buffer("A", 2*M*K, a), launch.Buffer("B", 2*N*K, bf)}
	src := gemm256PTX(N)
	m, err := Prepare("gemm256.ptx", []byte(src), l, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestGemm256 checks the benchmark kernel (m64n256k16, 256 accumulators)
// against the CPU reference.
func TestGemm256(t *testing.T) {
	m := gemm256Machine(t, 128, 1, 1, Options{Check: true})
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	for _, h := range m.Errors() {
		t.Errorf("hazard: %s", h)
	}
	a, bb := u16s(buf(t, m, "A")), u16s(buf(t, m, "B"))
	want := refGemm(datapath.Hopper(numfmt.BF16, numfmt.BF16, numfmt.F32), a, bb, 128, 256, 128)
	got := buf(t, m, "C")
	bad := 0
	for i, w := range want {
		if g := uint64(binary.LittleEndian.Uint32(got[4*i:])); g != w && bad < 5 {
			t.Errorf("C[%d][%d] = %#x, want %#x", i/256, i%256, g, w)
			bad++
		}
	}
}

// BenchmarkGemmCTA128x256K512 is the CTA target (under 2 s).
func BenchmarkGemmCTA128x256K512(b *testing.B) {
	for range b.N {
		b.StopTimer()
		m := gemm256Machine(b, 512, 1, 1, Options{Workers: 1})
		b.StartTimer()
		if err := m.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGemmCTA128x128K64 is one CTA of the corpus GEMM (128×128 tile)
// with one 64-wide K step.
func BenchmarkGemmCTA128x128K64(b *testing.B) {
	l, err := launch.ReadLaunch("../fixtures/sim/launch/gemm_tma_wgmma.json")
	if err != nil {
		b.Fatal(err)
	}
	l.Grid = launch.Dim3{1, 1, 1}
	for i, p := range l.Params {
		if p.Name == "K" {
			l.Params[i] = launch.Scalar("K", launch.U32, 64)
		}
	}
	src := mustRead(b, l.PTX)
	for range b.N {
		b.StopTimer()
		m, err := Prepare(l.PTX, src, l, Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := m.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRead(tb testing.TB, path string) []byte {
	b, err := readFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var _ = fmt.Sprint
