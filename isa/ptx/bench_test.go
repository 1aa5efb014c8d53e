package ptx

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// benchLines is the size of the generated benchmark module.
const benchLines = 50000

var benchSrc = sync.OnceValue(func() []byte { return generatePTX(benchLines) })

// generatePTX writes a module of about n lines in the shape of nvcc output
// for a Hopper GEMM: kernels with register declarations followed by a mix
// of address arithmetic, loads and stores, TMA copies, mbarrier waits,
// wgmma, packed conversions, predicates and branches.
func generatePTX(n int) []byte {
	var b bytes.Buffer
	b.WriteString("//\n// Generated for the tcsim PTX benchmark\n//\n\n.version 8.7\n.target sm_90a\n.address_size 64\n\n.extern .shared .align 1024 .b8 smem[];\n\n")
	lines := 10
	body := []string{
		"\tmov.u32 \t%%r%d, %%tid.x;",
		"\tmad.lo.s32 \t%%r%d, %%r2, %%r3, %%r1;",
		"\tmul.wide.s32 \t%%rd%d, %%r4, 16;",
		"\tadd.s64 \t%%rd%d, %%rd1, %%rd2;",
		"\tld.global.nc.v4.f32 \t{%%f%d, %%f2, %%f3, %%f4}, [%%rd3+64];",
		"\tsetp.lt.s32 \t%%p%d, %%r4, %%r5;",
		"\t@%%p%d bra \t$L__BB0_2;",
		"\tfma.rn.f32 \t%%f%d, %%f1, %%f2, %%f3;",
		"\tcvt.rn.bf16x2.f32 \t%%r%d, %%f2, %%f1;",
		"\tshfl.sync.bfly.b32 \t%%r%d, %%r6, 16, 31, -1;",
		"\tmbarrier.try_wait.parity.shared::cta.b64 \t%%p%d, [%%r7], %%r8;",
		"\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes \t[%%r%d], [%%rd4, {%%r9, %%r10}], [%%r7];",
		"\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 \t{%%f%d, %%f2, %%f3, %%f4, %%f5, %%f6, %%f7, %%f8}, %%rd5, %%rd6, %%p1, 1, 1, 0, 1;",
		"\tst.global.v2.f32 \t[%%rd%d+8], {%%f1, %%f2};",
		"\tstmatrix.sync.aligned.m8n8.x4.shared.b16 \t[%%r%d], {%%r11, %%r12, %%r13, %%r14};",
		"\tand.b32 \t%%r%d, %%r15, 255; // mask",
	}
	k := 0
	for lines < n {
		fmt.Fprintf(&b, ".visible .entry bench_kernel_%d(\n\t.param .u64 bench_kernel_%d_param_0\n)\n.maxntid 128, 1, 1\n{\n", k, k)
		b.WriteString("\t.reg .pred \t%p<64>;\n\t.reg .b32 \t%r<64>;\n\t.reg .f32 \t%f<64>;\n\t.reg .b64 \t%rd<64>;\n\n")
		b.WriteString("\tld.param.u64 \t%rd1, [bench_kernel_" + fmt.Sprint(k) + "_param_0];\n")
		lines += 11
		for i := 0; i < 2000 && lines < n-4; i++ {
			if i%50 == 49 {
				fmt.Fprintf(&b, "$L__BB%d_%d:\n", k, i)
			} else {
				fmt.Fprintf(&b, body[i%len(body)]+"\n", 1+i%60)
			}
			lines++
		}
		b.WriteString("$L__BB0_2:\n\tret;\n}\n\n")
		lines += 4
		k++
	}
	// Labels $L__BB0_2 exist in every kernel; the other labels are
	// unused, as in nvcc output.
	return b.Bytes()
}

func TestGeneratedBenchModuleIsValid(t *testing.T) {
	src := benchSrc()
	if got := bytes.Count(src, []byte("\n")); got < benchLines-10 || got > benchLines+10 {
		t.Fatalf("generated %d lines, want about %d", got, benchLines)
	}
	_, errs := Check("bench.ptx", src)
	for i, e := range errs {
		if i < 10 {
			t.Error(e)
		}
	}
}

// BenchmarkBaselineLines is the baseline: splitting the same file into
// lines with bufio.Scanner.
func BenchmarkBaselineLines(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(src))
		n := 0
		for sc.Scan() {
			n += len(sc.Bytes())
		}
	}
}

// BenchmarkBaselineFields splits every line into whitespace-separated
// fields (a second, heavier baseline).
func BenchmarkBaselineFields(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(src))
		n := 0
		for sc.Scan() {
			n += len(strings.Fields(sc.Text()))
		}
	}
}

func BenchmarkScan(b *testing.B) {
	src := string(benchSrc())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		var s Scanner
		s.InitString(src, nil, 0)
		for {
			if _, tok, _ := s.Scan(); tok == EOF {
				break
			}
		}
	}
}

func BenchmarkParse(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseFile("bench.ptx", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	m, err := ParseFile("bench.ptx", benchSrc())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if errs := Validate(m); len(errs) != 0 {
			b.Fatal(errs[0])
		}
	}
}

// BenchmarkParseValidate is the target: parse and validate a 50,000-line
// file (the issue asks for under 0.5 s on one core).
func BenchmarkParseValidate(b *testing.B) {
	src := benchSrc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, errs := Check("bench.ptx", src); len(errs) != 0 {
			b.Fatal(errs[0])
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	m, err := ParseFile("bench.ptx", benchSrc())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Format(m)
	}
}
