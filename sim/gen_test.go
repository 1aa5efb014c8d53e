package sim

import (
	"fmt"
	"os"
	"strings"
)

// gemm256PTX generates a TMA + wgmma GEMM kernel with a 128×256 CTA tile:
// one warpgroup, K in steps of 64 through one stage, two m64n256k16 per
// k16 step (256 f32 accumulators per thread), SW128 K-major descriptors.
// C is M×N row-major with N = 256·gridDim.x; the tensor maps are A (M×K)
// and B (N×K), boxes 64×128 and 64×256.
func gemm256PTX(N int) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p(".version 8.7\n.target sm_90a\n.address_size 64")
	p(".visible .entry gemm256(.param .align 64 .b8 tmA[128], .param .align 64 .b8 tmB[128], .param .u64 C, .param .u32 K)")
	p("{")
	p("\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<40>;\n\t.reg .f32 %%f<256>;")
	// A (16 KiB), B (32 KiB) and the mbarrier in dynamic shared memory: a
	// kernel may declare at most 48 KiB statically.
	p("\t.extern .shared .align 1024 .b8 smem[];")
	p("\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r3, smem;\n\tadd.u32 %%r4, %%r3, 16384;\n\tadd.u32 %%r2, %%r3, 49152;")
	p("\tsetp.eq.u32 %%p1, %%r1, 0;")
	p("\t@%%p1 mbarrier.init.shared::cta.b64 [%%r2], 1;")
	p("\tbar.sync 0;")
	for i := 0; i < 256; i++ {
		p("\tmov.f32 %%f%d, 0f00000000;", i)
	}
	p("\tld.param.u32 %%r5, [K];\n\tmov.u32 %%r6, 0;\n\tmov.u32 %%r7, 0;")
	p("\tmov.b64 %%rd1, tmA;\n\tcvta.param.u64 %%rd1, %%rd1;\n\tmov.b64 %%rd2, tmB;\n\tcvta.param.u64 %%rd2, %%rd2;")
	p("\tmov.u32 %%r8, %%ctaid.x;\n\tmov.u32 %%r9, %%ctaid.y;\n\tshl.b32 %%r10, %%r9, 7;\n\tshl.b32 %%r11, %%r8, 8;")
	// descriptors: ((addr & 0x3FFFF) >> 4) | LBO 1 | SBO 64 | 128B swizzle
	p("\tshr.u32 %%r12, %%r3, 4;\n\tcvt.u64.u32 %%rd3, %%r12;\n\tor.b64 %%rd3, %%rd3, 0x4000004000010000;")
	p("\tshr.u32 %%r13, %%r4, 4;\n\tcvt.u64.u32 %%rd4, %%r13;\n\tor.b64 %%rd4, %%rd4, 0x4000004000010000;")
	p("\tfence.proxy.async.shared::cta;")
	p("LOOP:")
	p("\t@%%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%r2], 49152;")
	p("\t@%%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%%r3], [%%rd1, {%%r6, %%r10}], [%%r2];")
	p("\t@%%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%%r4], [%%rd2, {%%r6, %%r11}], [%%r2];")
	p("WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 %%p2, [%%r2], %%r7;\n\t@!%%p2 bra WAIT;")
	p("\twgmma.fence.sync.aligned;")
	acc := func(lo int) string {
		var r []string
		for i := lo; i < lo+128; i++ {
			r = append(r, fmt.Sprintf("%%f%d", i))
		}
		return "{" + strings.Join(r, ", ") + "}"
	}
	for k := 0; k < 4; k++ {
		// A rows 0-63 and 64-127 (8 KiB apart), B all 256 rows; k16 slice = 32 bytes
		p("\tadd.s64 %%rd5, %%rd3, %d;\n\tadd.s64 %%rd6, %%rd3, %d;\n\tadd.s64 %%rd7, %%rd4, %d;", 2*k, 512+2*k, 2*k)
		p("\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 %s, %%rd5, %%rd7, 1, 1, 1, 0, 0;", acc(0))
		p("\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 %s, %%rd6, %%rd7, 1, 1, 1, 0, 0;", acc(128))
	}
	p("\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;")
	p("\tbar.sync 0;")
	p("\txor.b32 %%r7, %%r7, 1;\n\tadd.u32 %%r6, %%r6, 64;\n\tsetp.lt.u32 %%p3, %%r6, %%r5;\n\t@%%p3 bra LOOP;")
	// epilogue: frag_row = 16*warp + lane/4, frag_col = 2*(lane%4)
	p("\tshr.u32 %%r20, %%r1, 5;\n\tand.b32 %%r21, %%r1, 31;\n\tshl.b32 %%r22, %%r20, 4;\n\tshr.u32 %%r23, %%r21, 2;\n\tadd.u32 %%r22, %%r22, %%r23;")
	p("\tand.b32 %%r24, %%r21, 3;\n\tshl.b32 %%r24, %%r24, 1;\n\tadd.u32 %%r22, %%r22, %%r10;\n\tadd.u32 %%r24, %%r24, %%r11;")
	p("\tmul.wide.u32 %%rd10, %%r22, %d;\n\tmul.wide.u32 %%rd11, %%r24, 4;\n\tadd.s64 %%rd10, %%rd10, %%rd11;", 4*N)
	p("\tld.param.u64 %%rd12, [C];\n\tcvta.to.global.u64 %%rd12, %%rd12;\n\tadd.s64 %%rd12, %%rd12, %%rd10;")
	for h := 0; h < 2; h++ {
		for g := 0; g < 32; g++ {
			for hi := 0; hi < 2; hi++ {
				off := (64*h+8*hi)*N*4 + 8*g*4
				r := h*128 + 4*g + 2*hi
				p("\tst.global.v2.f32 [%%rd12+%d], {%%f%d, %%f%d};", off, r, r+1)
			}
		}
	}
	p("\tret;\n}")
	return b.String()
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
