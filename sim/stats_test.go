package sim

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// runTranspose runs a kernel of fixtures/sim/banks/transpose.ptx on a
// 32x32 iota matrix, checks the transpose, and returns the machine.
func runTranspose(t *testing.T, kernel string) *Machine {
	t.Helper()
	const path = "../fixtures/sim/banks/transpose.ptx"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4096)
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)))
	}
	l := &launch.Launch{Kernel: kernel, Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 32, 1},
		Params: []launch.Param{launch.BufferData("in", in), launch.BufferData("out", make([]byte, 4096))}}
	m, err := Prepare(path, src, l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	noHazards(t, m)
	out, err := m.Buffer("out")
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*(32*y+x):])); got != float32(32*x+y) {
				t.Fatalf("%s: out[%d][%d] = %v, want %d", kernel, y, x, got, 32*x+y)
			}
		}
	}
	return m
}

// TestBankTranspose checks the report on the textbook case: the column
// read of an unpadded 32x32 f32 tile is a 32-way conflict in every one of
// the 32 warps; padding each row by one word removes it.
func TestBankTranspose(t *testing.T) {
	m := runTranspose(t, "transpose32")
	bc := m.BankConflicts()
	if len(bc) != 1 {
		t.Fatalf("bank conflicts %+v, want the column read only", bc)
	}
	b := bc[0]
	if b.Pos.Line != 48 || !strings.HasPrefix(b.Inst, "ld.shared.f32") || b.Requests != 32 || b.Wavefronts != 1024 ||
		b.Ideal != 32 || b.MaxWays != 32 || b.Conflicted != 32 || b.Bytes != 4 {
		t.Errorf("column read: %+v", b)
	}
	want := "transpose.ptx:48:2: ld.shared.f32 %f1, [%r11]: 32 requests of 4-byte accesses took 1024 wavefronts, ideal 32 (32.00x); worst phase 32-way"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("String() = %q, want suffix %q", b.String(), want)
	}
	if all := m.BankStats(); len(all) != 2 || all[0].Wavefronts != all[0].Ideal || all[0].Requests != 32 {
		t.Errorf("stats %+v: want the row write conflict-free", all)
	}

	m = runTranspose(t, "transpose32_padded")
	if bc := m.BankConflicts(); len(bc) != 0 {
		t.Errorf("padded tile: bank conflicts %+v", bc)
	}
	if all := m.BankStats(); len(all) != 2 || all[0].Requests != 32 || all[1].Requests != 32 {
		t.Errorf("padded tile: stats %+v, want two instructions of 32 requests", all)
	}
}

// TestBankCorpus checks the report on real nvcc output
// (fixtures/kernels/epilogue_stmatrix.cu). The kernel stages its operands
// with st.shared.u16 into the interleaved K-major layout, where lanes 0-31
// write columns 0-31 of one row, that is four core matrices 128 bytes
// apart: banks 0-3 each take four words, a 4-way conflict. Its
// stmatrix.x4 writes 16-byte rows of the unswizzled row-major 64x64 bf16
// tile sC, whose rows are 128 bytes apart: the 8 rows of a matrix (one
// phase) all land in the same four banks, an 8-way conflict, the reason
// CUTLASS epilogues stage through a swizzled layout.
func TestBankCorpus(t *testing.T) {
	m := runCorpus(t, "epilogue_stmatrix", Options{Check: true})
	var conflicted, stmatrix int
	for _, b := range m.BankStats() {
		switch {
		case strings.HasPrefix(b.Inst, "st.shared.u16"):
			conflicted++
			if b.MaxWays != 4 || b.Wavefronts != 4*b.Ideal {
				t.Errorf("%s: %+v, want 4-way", b.Pos, b)
			}
		case strings.HasPrefix(b.Inst, "stmatrix"):
			stmatrix++
			if b.MaxWays != 8 || b.Wavefronts != 8*b.Ideal || b.Bytes != 16 || b.Ideal != 4*b.Requests {
				t.Errorf("%s: %+v, want 8-way, 4 phases a request", b.Pos, b)
			}
		}
	}
	if conflicted == 0 || stmatrix == 0 {
		t.Errorf("%d st.shared.u16 and %d stmatrix records", conflicted, stmatrix)
	}
	if bc := m.BankConflicts(); len(bc) != conflicted+stmatrix || bc[0].Pos.Line != 292 {
		t.Errorf("conflicts %+v", bc)
	}
}

// TestBankFindings checks the report: one performance finding per
// conflicted instruction (rule perf/bank-conflict), the instructions of
// one kernel-source line together, none for a conflict-free kernel.
func TestBankFindings(t *testing.T) {
	bankFindings := func(m *Machine) []Finding {
		var out []Finding
		for _, f := range m.Findings() {
			if f.Rule == HzBankConflict {
				out = append(out, f)
			}
		}
		return out
	}
	fs := bankFindings(runTranspose(t, "transpose32"))
	if len(fs) != 1 || fs[0].Severity != SevPerf || fs[0].Pos.Line != 48 || fs[0].Warps != 32 || fs[0].CTAs != 1 ||
		fs[0].Msg != "32 requests of 4-byte accesses took 1024 wavefronts, ideal 32 (32.00x); worst phase 32-way" {
		t.Errorf("transpose32: %+v", fs)
	}
	if fs := bankFindings(runTranspose(t, "transpose32_padded")); len(fs) != 0 {
		t.Errorf("transpose32_padded: %+v", fs)
	}
	// nvcc's epilogue: the sA stores (4 unrolled copies), the sB stores,
	// the stmatrix, each one source line of epilogue_stmatrix.cu.
	fs = bankFindings(runCorpus(t, "epilogue_stmatrix", Options{Check: true}))
	if len(fs) != 3 {
		t.Fatalf("epilogue: %d findings, want 3: %+v", len(fs), fs)
	}
	for i, line := range []int32{292, 306, 651} {
		if fs[i].Pos.Line != line || len(fs[i].Sites) != 4 {
			t.Errorf("finding %d at line %d with %d sites, want line %d with 4", i, fs[i].Pos.Line, len(fs[i].Sites), line)
		}
	}
}
