package ptx

import "testing"

// FuzzParse feeds arbitrary bytes to the parser, validator and printer.
// None may panic, and whenever the input parses without errors, printing
// and reparsing must give an equal tree.
func FuzzParse(f *testing.F) {
	// Small seeds fuzz best; the seed corpus in testdata/fuzz/FuzzParse
	// holds excerpts of the test PTX, one per instruction family.
	for _, s := range []string{
		"",
		".version 8.7\n.target sm_90a\n.address_size 64\n",
		".entry k() { @!%p bra L; L: ret; }",
		"{ { { ld.global.v4.f32 {%f1,_,%f3,%f4}, [%rd1+-8]; } } }",
		".global .b8 x[] = {1, 2, {3}};",
		"mov.u32 %r1, ((1 << 63) / -1) % 0;",
		".section .debug_info { .b32 a-b\n.b64 $x+4\n }",
		".loc 1 2 3, function_name $L__info_string0, inlined_at 1 2 3\n",
		"/* unterminated",
		"\"unterminated\n",
		"0f3F80 0d1 0x 09 12ab 1e999",
		"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, p, 1, 1, 0, 0;",
		".version 8.7\n.target sm_90a\n.entry k()\n{\n\tld.param.u64 %rd1, [p",
		"\x7fELF\x02\x01\x01\x00",
		".shared .b8 s[4294967296];\n.entry k() { .reg .f32 %f<200000000>; mbarrier.try_wiat.b64 %p1, [s], 0; }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := ParseFile("fuzz.ptx", src)
		if m == nil {
			t.Fatal("ParseFile returned a nil module")
		}
		Validate(m)
		out := Format(m)
		if err != nil {
			return
		}
		m2, err := ParseString("fuzz.ptx", out)
		if err != nil {
			t.Fatalf("printed output does not parse: %v\ninput:\n%q\noutput:\n%s", err, src, out)
		}
		if d := equalTrees(m, m2); d != "" {
			t.Fatalf("round trip changed the tree at %s\ninput:\n%q\noutput:\n%s", d, src, out)
		}
	})
}

// FuzzInstruction targets the operand and expression grammar.
func FuzzInstruction(f *testing.F) {
	for _, s := range []string{
		"add.s32 %r1, %r2, -(4 * 2);",
		"@%p1 st.global.v2.f32 [%rd1+16], {%f1, 0f3F800000};",
		"setp.lt.and.s32 %p1|%p2, %r1, 0x7fffffff, !%p3;",
		"cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r2, 0, 1, 2}], [%r3];",
		"call.uni (retval0), foo, (param0, 1, %r2);",
		"mov.u64 %rd1, sym+-9223372036854775808;",
		"tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		in, err := ParseInstruction(src)
		if err != nil || in == nil {
			return
		}
		s := in.String()
		in2, err := ParseInstruction(s)
		if err != nil {
			t.Fatalf("printed instruction %q (from %q) does not parse: %v", s, src, err)
		}
		if d := equalTrees(in, in2); d != "" {
			t.Fatalf("round trip of %q via %q changed %s", src, s, d)
		}
	})
}
