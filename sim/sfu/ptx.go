package sfu

import (
	"fmt"
	"strings"
)

// The probe kernels. Both are generated per form; both use 256-thread
// CTAs.
//
// sfu_hash(hashes *u64, base u32, edges *u32): CTA k covers inputs
// base + k*HashPerCTA .. +HashPerCTA-1 of a domain (HashPerCTA = 16384);
// each thread generates its operands from the input number exactly as
// Domain.Input does, runs the instruction, and adds Elem(i, result); a
// warp's sum is added atomically to hashes[i >> chunkBits].
//
// sfu_dump(out, a, b *T, n u32): out[i] = op(a[i], b[i]) for i < n.

// HashPerCTA is the number of inputs one CTA of the hash kernel covers.
const HashPerCTA = 1 << 14

// PTXVersion is the PTX ISA version the probes declare.
const PTXVersion = "8.0"

func ptxHeader(b *strings.Builder) {
	fmt.Fprintf(b, ".version %s\n.target sm_90a\n.address_size 64\n\n", PTXVersion)
}

const regDecls = `	.reg .pred %p<4>;
	.reg .b16 %h<8>;
	.reg .b32 %r<40>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<40>;
	.reg .f64 %fd<4>;
`

// mix emits Mix64 of register z in place (t is scratch).
func mix(b *strings.Builder, z, t string) {
	fmt.Fprintf(b, "\tshr.u64 %s, %s, 30;\n\txor.b64 %s, %s, %s;\n\tmul.lo.u64 %s, %s, 0xbf58476d1ce4e5b9;\n", t, z, z, z, t, z, z)
	fmt.Fprintf(b, "\tshr.u64 %s, %s, 27;\n\txor.b64 %s, %s, %s;\n\tmul.lo.u64 %s, %s, 0x94d049bb133111eb;\n", t, z, z, z, t, z, z)
	fmt.Fprintf(b, "\tshr.u64 %s, %s, 31;\n\txor.b64 %s, %s, %s;\n", t, z, z, z, t)
}

// opCode emits the instruction: operands in %r10/%r11 (32-bit, also
// %h1 for 16-bit forms, %rd10 for f64), the result zero-extended into %rd11.
func (f *Form) opCode(b *strings.Builder) {
	switch f.Kind {
	case Unary32:
		fmt.Fprintf(b, "\tmov.b32 %%f1, %%r10;\n\t%s %%f2, %%f1;\n\tmov.b32 %%r12, %%f2;\n\tcvt.u64.u32 %%rd11, %%r12;\n", f.Op)
	case Unary16:
		fmt.Fprintf(b, "\tcvt.u16.u32 %%h1, %%r10;\n\t%s %%h2, %%h1;\n\tcvt.u32.u16 %%r12, %%h2;\n\tcvt.u64.u32 %%rd11, %%r12;\n", f.Op)
	case Unary16x2:
		fmt.Fprintf(b, "\t%s %%r12, %%r10;\n\tcvt.u64.u32 %%rd11, %%r12;\n", f.Op)
	case Unary64:
		fmt.Fprintf(b, "\tmov.b64 %%fd1, %%rd10;\n\t%s %%fd2, %%fd1;\n\tmov.b64 %%rd11, %%fd2;\n", f.Op)
	case Binary32:
		fmt.Fprintf(b, "\tmov.b32 %%f1, %%r10;\n\tmov.b32 %%f2, %%r11;\n\t%s %%f3, %%f1, %%f2;\n\tmov.b32 %%r12, %%f3;\n\tcvt.u64.u32 %%rd11, %%r12;\n", f.Op)
	}
}

// genCode emits Domain.Input for input number %r5 into %r10/%r11 or %rd10
// (%rd2 holds the edge table).
func (d Domain) genCode(b *strings.Builder) {
	switch d.kind() {
	case "hi-lo":
		fmt.Fprintf(b, "\tcvt.u64.u32 %%rd20, %%r5;\n\tshl.b64 %%rd23, %%rd20, 32;\n\tor.b64 %%rd10, %%rd23, %d;\n", d.word)
	case "lo-hi":
		fmt.Fprintf(b, "\tcvt.u64.u32 %%rd20, %%r5;\n\tor.b64 %%rd10, %%rd20, %d;\n", uint64(d.word)<<32)
	case "hi":
		fmt.Fprintf(b, "\tcvt.u64.u32 %%rd20, %%r5;\n\tadd.u64 %%rd21, %%rd20, %d;\n", uint64(seedHi))
		mix(b, "%rd21", "%rd22")
		b.WriteString("\tshl.b64 %rd23, %rd20, 32;\n\tand.b64 %rd21, %rd21, 4294967295;\n\tor.b64 %rd10, %rd23, %rd21;\n")
	case "rand":
		fmt.Fprintf(b, "\tcvt.u64.u32 %%rd20, %%r5;\n\tadd.u64 %%rd21, %%rd20, %d;\n", uint64(seedRand))
		mix(b, "%rd21", "%rd22")
		b.WriteString("\tmov.b64 {%r11, %r10}, %rd21;\n")
	case "one":
		b.WriteString("\tmov.b32 %r10, 0x3F800000;\n\tmov.b32 %r11, %r5;\n")
	case "edge":
		b.WriteString("\tshr.u32 %r13, %r5, 10;\n\tand.b32 %r13, %r13, 1023;\n\tmul.wide.u32 %rd24, %r13, 4;\n\tadd.u64 %rd24, %rd2, %rd24;\n\tld.global.u32 %r10, [%rd24];\n")
		b.WriteString("\tand.b32 %r13, %r5, 1023;\n\tmul.wide.u32 %rd24, %r13, 4;\n\tadd.u64 %rd24, %rd2, %rd24;\n\tld.global.u32 %r11, [%rd24];\n")
	default:
		b.WriteString("\tmov.b32 %r10, %r5;\n")
	}
}

// HashPTX is the hash kernel of f on d.
func (f *Form) HashPTX(d Domain) string {
	var b strings.Builder
	ptxHeader(&b)
	fmt.Fprintf(&b, "// tcsim sfu probe: chunk hashes of %s over domain %q (%s)\n", f.Op, d.Name, d.Coverage)
	b.WriteString(".visible .entry sfu_hash(.param .u64 p_hash, .param .u32 p_base, .param .u64 p_edge)\n{\n")
	b.WriteString(regDecls)
	b.WriteString(`	ld.param.u64 %rd1, [p_hash];
	ld.param.u32 %r1, [p_base];
	ld.param.u64 %rd2, [p_edge];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	shl.b32 %r4, %r2, 14;
	add.u32 %r4, %r4, %r1;
	add.u32 %r5, %r4, %r3;
	mov.u64 %rd3, 0;
	mov.u32 %r6, 0;
	mov.u64 %rd30, 0x9E3779B97F4A7C15;
$Lloop:
`)
	d.genCode(&b)
	f.opCode(&b)
	b.WriteString("\tcvt.u64.u32 %rd12, %r5;\n\tmul.lo.u64 %rd12, %rd12, %rd30;\n\txor.b64 %rd13, %rd11, %rd12;\n")
	mix(&b, "%rd13", "%rd14")
	b.WriteString(`	add.u64 %rd3, %rd3, %rd13;
	add.u32 %r5, %r5, 256;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p1, %r6, 64;
	@%p1 bra $Lloop;
`)
	for _, off := range []int{16, 8, 4, 2, 1} {
		fmt.Fprintf(&b, "\tmov.b64 {%%r20, %%r21}, %%rd3;\n\tshfl.sync.bfly.b32 %%r22, %%r20, %d, 31, -1;\n\tshfl.sync.bfly.b32 %%r23, %%r21, %d, 31, -1;\n\tmov.b64 %%rd15, {%%r22, %%r23};\n\tadd.u64 %%rd3, %%rd3, %%rd15;\n", off, off)
	}
	fmt.Fprintf(&b, `	and.b32 %%r24, %%r3, 31;
	setp.ne.u32 %%p2, %%r24, 0;
	@%%p2 bra $Ldone;
	shr.u32 %%r25, %%r4, %d;
	mul.wide.u32 %%rd16, %%r25, 8;
	add.u64 %%rd17, %%rd1, %%rd16;
	atom.global.add.u64 %%rd18, [%%rd17], %%rd3;
$Ldone:
	ret;
}
`, d.ChunkBits())
	return b.String()
}

// DumpPTX is the kernel that runs f on explicit operands.
func (f *Form) DumpPTX() string {
	var b strings.Builder
	ptxHeader(&b)
	fmt.Fprintf(&b, "// tcsim sfu probe: %s on explicit operands\n", f.Op)
	b.WriteString(".visible .entry sfu_dump(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u32 p_n)\n{\n")
	b.WriteString(regDecls)
	in := f.Kind.InBytes()
	b.WriteString(`	ld.param.u64 %rd1, [p_out];
	ld.param.u64 %rd2, [p_a];
	ld.param.u64 %rd3, [p_b];
	ld.param.u32 %r1, [p_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r5, %r2, 256, %r3;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $Ldone;
`)
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rd4, %%r5, %d;\n\tadd.u64 %%rd5, %%rd2, %%rd4;\n\tadd.u64 %%rd6, %%rd3, %%rd4;\n\tadd.u64 %%rd7, %%rd1, %%rd4;\n", in)
	switch in {
	case 2:
		b.WriteString("\tld.global.u16 %r10, [%rd5];\n")
	case 4:
		b.WriteString("\tld.global.u32 %r10, [%rd5];\n\tld.global.u32 %r11, [%rd6];\n")
	case 8:
		b.WriteString("\tld.global.u64 %rd10, [%rd5];\n")
	}
	f.opCode(&b)
	switch in {
	case 2:
		b.WriteString("\tst.global.u16 [%rd7], %r12;\n")
	case 4:
		b.WriteString("\tst.global.u32 [%rd7], %r12;\n")
	case 8:
		b.WriteString("\tst.global.u64 [%rd7], %rd11;\n")
	}
	b.WriteString("$Ldone:\n\tret;\n}\n")
	return b.String()
}

// HashCTAs is the number of CTAs of d's hash kernel.
func (d Domain) HashCTAs() int { return 1 << (d.Bits - 14) }
