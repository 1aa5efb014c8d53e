package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePTX(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodPTX = `.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	st.global.u32 [%rd1], %r1;
	wgmma.fence.sync.aligned;
	ret;
}
`

const badPTX = `.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .f32 %f<5>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;
	mbarrier.try_wait.parity.b64 %p1, [%r1], 0;
}
`

func TestPtxCheck(t *testing.T) {
	good := writePTX(t, "good.ptx", goodPTX)
	code, out, errs := runCLI(t, "ptx", "check", good)
	if code != 0 || !strings.Contains(out, "good.ptx: ok (sm_90a, 1 function (1 kernel), 5 instructions; wgmma 1)") {
		t.Errorf("good: exit %d\n%s%s", code, out, errs)
	}
	bad := writePTX(t, "bad.ptx", badPTX)
	expectCLI(t, []string{"ptx", "check", good, bad}, 1, []string{
		"bad.ptx:9:31: wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16: wgmma m64n12k16: N must be a multiple of 8 from 8 to 256 for .f16",
		"\n        wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1",
		"\n                                     ^\n",
		"bad.ptx:10:31: undeclared register %p1 (declare it with .reg)",
		"bad.ptx:10:37: warning: mbarrier.try_wait.parity.b64: addr: generic address in 32-bit register %r1",
	}, nil, "tcsim ptx check: 2 errors, 1 warning")
	code, out, _ = runCLI(t, "ptx", "check", "--brief", bad)
	if code != 1 || strings.Contains(out, "^") || strings.Count(out, "\n") != 3 {
		t.Errorf("--brief: exit %d\n%s", code, out)
	}
}

func TestPtxCheckStdinAndUsage(t *testing.T) {
	var out, errb strings.Builder
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(goodPTX), getenv: func(string) string { return "" }}
	if code := run(e, []string{"ptx", "check", "-"}); code != 0 || !strings.Contains(out.String(), "<stdin>: ok") {
		t.Errorf("stdin: exit %d %q %q", code, out.String(), errb.String())
	}
	if code, _, errs := runCLI(t, "ptx", "check"); code != 2 || !strings.Contains(errs, "needs at least one FILE") {
		t.Errorf("no args: exit %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "ptx", "check", filepath.Join(t.TempDir(), "missing.ptx")); code != 2 || !strings.Contains(errs, "reading PTX") {
		t.Errorf("missing file: exit %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "ptx", "bogus"); code != 2 || !strings.Contains(errs, "unknown ptx subcommand") {
		t.Errorf("bogus: exit %d %q", code, errs)
	}
}

func TestPtxFmt(t *testing.T) {
	p := writePTX(t, "f.ptx", ".version 8.7 .target sm_90a .address_size 64 .entry k() { .reg .b32 %r<2>; mov.b32 %r1, 0x0F; // c\n ret; }")
	code, out, errs := runCLI(t, "ptx", "fmt", p)
	want := ".version 8.7\n.target sm_90a\n.address_size 64\n\n.entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.b32 %r1, 0xf;\n\tret;\n}\n"
	if code != 0 || out != want {
		t.Errorf("fmt: exit %d %q\n got:\n%s\nwant:\n%s", code, errs, out, want)
	}
	// fmt of its own output is a fixed point.
	p2 := writePTX(t, "g.ptx", out)
	if _, out2, _ := runCLI(t, "ptx", "fmt", p2); out2 != out {
		t.Errorf("fmt is not idempotent:\n%s", out2)
	}
	bad := writePTX(t, "b.ptx", ".entry k() { mov.u32 %r1 %r2; }")
	code, out, errs = runCLI(t, "ptx", "fmt", bad)
	if code != 1 || out != "" || !strings.Contains(errs, "b.ptx:1:26: expected ';' after mov.u32") || !strings.Contains(errs, "1 syntax error") {
		t.Errorf("fmt bad: exit %d out %q err %q", code, out, errs)
	}
	if code, _, _ := runCLI(t, "ptx", "fmt"); code != 2 {
		t.Errorf("fmt without file: exit %d", code)
	}
}

func TestPtxOpcodes(t *testing.T) {
	code, out, _ := runCLI(t, "ptx", "opcodes", "tcgen05")
	if code != 0 || !strings.Contains(out, "tcgen05.mma ") || !strings.Contains(out, "sm_100a/sm_101a/sm_103a/sm_110a") || strings.Contains(out, "wgmma") {
		t.Errorf("opcodes tcgen05: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "ptx", "opcodes", "nosuchthing"); code != 1 || !strings.Contains(errs, "no opcode matches") {
		t.Errorf("opcodes filter: exit %d %q", code, errs)
	}
	if code, out, errs := runCLI(t, "ptx", "opcodes", "wgmma.fense"); code != 1 || out != "" || !strings.HasSuffix(strings.TrimSpace(errs), "did you mean wgmma.fence?") {
		t.Errorf("misspelt opcode: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestPtxCheckInputs covers the whole-file errors, the error cap, the
// kernel names and the protocol note.
func TestPtxCheckInputs(t *testing.T) {
	var many strings.Builder
	many.WriteString(".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n")
	for i := 0; i < 30; i++ {
		many.WriteString("\tbogus.op;\n")
	}
	many.WriteString("\tret;\n}\n")
	manyF := writePTX(t, "many.ptx", many.String())
	mangled := strings.Replace(goodPTX, "entry k(", "entry _Z13hopper_kernel14CUtensorMap_stS_S_Pfi(", 1)
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		out, not []string
		errPart  string
	}{
		{"empty", []string{writePTX(t, "empty.ptx", "")}, 1,
			[]string{"empty.ptx:1:1: no PTX in the file: it is empty or holds only comments"}, nil, "1 error, 0 warnings"},
		{"header only", []string{writePTX(t, "h.ptx", ".version 8.7\n.target sm_90a\n")}, 1,
			[]string{"h.ptx:2:1: the module declares no function"}, nil, "1 error"},
		{"binary", []string{writePTX(t, "b.ptx", "\x7fELF\x02\x01\x01\x00\x00\x00")}, 1,
			[]string{"b.ptx:1:1: ELF file (a cubin or an executable), not PTX text: byte 0x7f at offset 0 is not text"}, []string{"ELF\x02", "^"}, "1 error"},
		{"cap", []string{manyF}, 1,
			[]string{"many.ptx:25:2: unknown instruction bogus", "many.ptx: ... and 10 more (--max-errors 0 prints every diagnostic)"},
			[]string{"many.ptx:26:2"}, "30 errors, 0 warnings"},
		{"no cap", []string{manyF, "--max-errors", "0", "--brief"}, 1, []string{"many.ptx:35:2: unknown instruction bogus"}, []string{"more"}, "30 errors"},
		{"cap 1", []string{manyF, "--max-errors", "1", "--brief"}, 1, []string{"many.ptx:6:2", "... and 29 more"}, []string{"many.ptx:7:2"}, "30 errors"},
		{"bad cap", []string{manyF, "--max-errors", "-1"}, 2, nil, nil, "--max-errors -1"},
		{"kernel and note", []string{writePTX(t, "m.ptx", mangled)}, 0, []string{
			"m.ptx: ok (sm_90a, 1 function (1 kernel), 5 instructions; wgmma 1)\n",
			"  kernel hopper_kernel(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*, int)\n",
			"  note: ptx check validates instructions, not the wgmma protocols;\n",
			"m.ptx --check --launch FILE\n"}, []string{"mangled"}, ""},
		{"full names", []string{writePTX(t, "m.ptx", mangled), "--full-names"}, 0, []string{
			"  kernel hopper_kernel(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*, int)\n    mangled _Z13hopper_kernel14CUtensorMap_stS_S_Pfi\n"}, nil, ""},
		{"brief ok", []string{writePTX(t, "m.ptx", mangled), "--brief"}, 0, []string{"m.ptx: ok"}, []string{"  kernel ", "note"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectCLI(t, append([]string{"ptx", "check"}, c.args...), c.code, c.out, c.not, c.errPart)
		})
	}
}
