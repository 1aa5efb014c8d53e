package sim

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
)

// loadLaunch reads a corpus launch file and prepares a machine.
func loadLaunch(t testing.TB, name string, opts Options) *Machine {
	t.Helper()
	l, err := launch.ReadLaunch(filepath.Join("../fixtures/sim/launch", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(l.PTX)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Prepare(l.PTX, src, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runCorpus runs the corpus kernel name and reports any hazard.
func runCorpus(t testing.TB, name string, opts Options) *Machine {
	t.Helper()
	m := loadLaunch(t, name, opts)
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	return m
}

// checkC32 compares the little-endian 32-bit words of got, a matrix with n
// columns, to want, reporting the first five that differ.
func checkC32(t testing.TB, got []byte, want []uint64, n int) {
	t.Helper()
	bad := 0
	for i, w := range want {
		g := uint64(binary.LittleEndian.Uint32(got[4*i:]))
		if g != w && bad < 5 {
			t.Errorf("C[%d][%d] = %#x, want %#x", i/n, i%n, g, w)
			bad++
		}
	}
}

func u16s(b []byte) []uint64 {
	out := make([]uint64, len(b)/2)
	for i := range out {
		out[i] = uint64(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

func buf(t testing.TB, m *Machine, name string) []byte {
	t.Helper()
	b, err := m.Buffer(name)
	if err != nil {
		t.Fatal(err)
	}
	return b.Data
}

// refGemm computes C = A·Bᵀ as the kernels do: K in steps of 16, each step
// one fused datapath dot product accumulating into the f32 result.
func refGemm(ev datapath.Evaluator, a, b []uint64, M, N, K int) []uint64 {
	if mod, ok := ev.(matMuler); ok {
		c := make([]uint64, M*N)
		as, bs := make([]uint64, M*16), make([]uint64, N*16)
		for s := 0; s < K; s += 16 {
			for i := 0; i < M; i++ {
				copy(as[i*16:], a[i*K+s:i*K+s+16])
			}
			for j := 0; j < N; j++ {
				copy(bs[j*16:], b[j*K+s:j*K+s+16])
			}
			c = mod.MatMul(M, N, 16, as, bs, c)
		}
		return c
	}
	c := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var acc uint64
			for s := 0; s < K; s += 16 {
				acc = ev.Dot(a[i*K+s:i*K+s+16], b[j*K+s:j*K+s+16], acc)
			}
			c[i*N+j] = acc
		}
	}
	return c
}

func TestCorpusGemm(t *testing.T) {
	m := runCorpus(t, "gemm_tma_wgmma", Options{Check: true})
	a, b := u16s(buf(t, m, "A")), u16s(buf(t, m, "B"))
	ev := datapath.Hopper(numfmt.BF16, numfmt.BF16, numfmt.F32)
	want := refGemm(ev, a, b, 256, 256, 512)
	checkC32(t, buf(t, m, "C"), want, 256)
}

func TestCorpusEpilogue(t *testing.T) {
	m := runCorpus(t, "epilogue_stmatrix", Options{Check: true})
	a, b := u16s(buf(t, m, "A")), u16s(buf(t, m, "B"))
	ev := datapath.Hopper(numfmt.BF16, numfmt.BF16, numfmt.F32)
	want := refGemm(ev, a, b, 128, 128, 128)
	got := u16s(buf(t, m, "C"))
	bad := 0
	for i, w := range want {
		wb := uint64(f64ToBF16(float64(math.Float32frombits(uint32(w)))))
		if got[i] != wb && bad < 5 {
			t.Errorf("C[%d][%d] = %#x, want %#x", i/128, i%128, got[i], wb)
			bad++
		}
	}
}

func attentionRef(q, k, v []uint64, qb int) []float64 {
	const D = 64
	out := make([]float64, qb*64*D)
	for r := 0; r < qb*64; r++ {
		var sc [64]float64
		mx := math.Inf(-1)
		for j := 0; j < 64; j++ {
			acc := 0.0
			for c := 0; c < D; c++ {
				acc += bf16ToF64(uint16(q[r*D+c])) * bf16ToF64(uint16(k[j*D+c]))
			}
			sc[j] = acc * 0.125
			mx = math.Max(mx, sc[j])
		}
		sum := 0.0
		for j := range sc {
			sc[j] = math.Exp(sc[j] - mx)
			sum += sc[j]
		}
		for c := 0; c < D; c++ {
			o := 0.0
			for j := 0; j < 64; j++ {
				o += sc[j] / sum * bf16ToF64(uint16(v[j*D+c]))
			}
			out[r*D+c] = o
		}
	}
	return out
}

func TestCorpusAttention(t *testing.T) {
	for _, name := range []string{"attention_step_exact", "attention_step"} {
		t.Run(name, func(t *testing.T) {
			m := runCorpus(t, name, Options{Check: true})
			q, k, v := u16s(buf(t, m, "Q")), u16s(buf(t, m, "K")), u16s(buf(t, m, "V"))
			want := attentionRef(q, k, v, 2)
			got := buf(t, m, "O")
			maxErr := 0.0
			for i, w := range want {
				g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])))
				maxErr = math.Max(maxErr, math.Abs(g-w))
			}
			if maxErr > 2e-2 || maxErr != maxErr {
				t.Errorf("max abs error vs float64 reference %g", maxErr)
			}
			// attention_step's ex2.approx.ftz.f32 is modelled bit-exactly
			// (sim/sfu): nothing may be reported as approximate.
			if pcs := m.ApproxPCs(); len(pcs) > 0 {
				t.Errorf("instructions reported not bit-exact at pcs %v", pcs)
			}
			t.Logf("max abs error %g", maxErr)
		})
	}
}

// TestCorpusSchedules runs the corpus kernels under every schedule: the
// outputs must not change and no hazard may appear, since the kernels
// follow the protocols.
func TestCorpusSchedules(t *testing.T) {
	for _, name := range []string{"gemm_tma_wgmma", "attention_step_exact", "epilogue_stmatrix"} {
		base := loadLaunch(t, name, Options{})
		if err := base.Run(); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{Schedule: Eager}, {Schedule: Latest}, {Schedule: Random, Seed: 1}, {Schedule: Random, Seed: 2}, {Schedule: Random, Seed: 3}} {
			opts.Check = true
			t.Run(name+"/"+opts.Schedule.String()+fmtSeed(opts), func(t *testing.T) {
				m := runCorpus(t, name, opts)
				for _, o := range base.Outputs() {
					b, _ := m.Buffer(o.Name)
					if mm := Compare(o.Name, nil, o.Data, b.Data, launch.U32); mm != nil {
						t.Errorf("%s", mm)
					}
				}
			})
		}
	}
}

func fmtSeed(o Options) string {
	if o.Schedule == Random {
		return "-" + string(rune('0'+o.Seed))
	}
	return ""
}

// TestCorpusTcgen05 runs the sm_100a GEMM and compares it with a CPU GEMM
// computed with the same (modelled, not hardware-verified) datapath.
func TestCorpusTcgen05(t *testing.T) {
	m := runCorpus(t, "tcgen05_gemm", Options{Check: true})
	dp, err := datapath.Lookup(datapath.Key{Family: datapath.FamilyTcgen05, CTAGroup: 1, Kind: desc.KindF16}, datapath.TCOptions{M: 128, N: 128, A: "bf16", B: "bf16", D: "f32"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := u16s(buf(t, m, "A")), u16s(buf(t, m, "B"))
	want := refGemm(dp.Eval, a, b, 256, 256, 512)
	checkC32(t, buf(t, m, "C"), want, 256)
}
