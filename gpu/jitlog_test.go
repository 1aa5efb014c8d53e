package gpu

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// cannedErrorLog is the error log the H100's driver JIT (580.159.04, CUDA
// 13.0) wrote for testdata/bad.ptx.
const cannedErrorLog = "ptxas application ptx input, line 9; error   : Arguments mismatch for instruction 'add'\n" +
	"ptxas application ptx input, line 9; error   : Unknown symbol '%nosuch'\n" +
	"ptxas fatal   : Ptx assembly aborted due to errors\n"

// cannedInfoLog has the shapes of the verbose info log of the same JIT for
// testdata/wgmma.ptx: an advisory naming a line, and continuation lines.
const cannedInfoLog = "ptxas info    : 0 bytes gmem\n" +
	"ptxas info    : Compiling entry function 'wgmma_nowait' for 'sm_90a'\n" +
	"ptxas info    : (C7517) warpgroup.wait is injected in around line 98 by compiler to allow use of registers defined by GMMA in function 'wgmma_nowait'\n" +
	"ptxas info    : Function properties for wgmma_nowait\n" +
	"ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
	"ptxas info    : Used 30 registers, used 1 barriers, 4096 bytes smem\n"

func TestParseJITLog(t *testing.T) {
	ms := ParseJITLog(cannedErrorLog)
	if len(ms) != 3 {
		t.Fatalf("%d messages: %+v", len(ms), ms)
	}
	if m := ms[1]; m.Line != 9 || m.Severity != "error" || m.Text != "Unknown symbol '%nosuch'" {
		t.Errorf("second message %+v", m)
	}
	if m := ms[2]; m.Line != 0 || m.Severity != "fatal" || m.Text != "Ptx assembly aborted due to errors" {
		t.Errorf("third message %+v", m)
	}
	info := ParseJITLog(cannedInfoLog)
	if len(info) != 6 {
		t.Fatalf("%d info messages", len(info))
	}
	if info[4].Severity != "" || info[4].Text != "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" {
		t.Errorf("continuation line %+v", info[4])
	}
	adv := Advisories(cannedInfoLog)
	if len(adv) != 1 || adv[0].Code != "C7517" || adv[0].Severity != "info" || adv[0].Line != 98 {
		t.Errorf("advisories %+v", adv)
	}
}

func TestFormatJITLog(t *testing.T) {
	src, err := os.ReadFile("testdata/bad.ptx")
	if err != nil {
		t.Fatal(err)
	}
	got := FormatJITLog("bad.ptx", src, cannedErrorLog)
	want := "bad.ptx:9: error: Arguments mismatch for instruction 'add'\n" +
		"    9 |     add.u32     %r1, %r1, %nosuch;\n" +
		"bad.ptx:9: error: Unknown symbol '%nosuch'\n" +
		"    9 |     add.u32     %r1, %r1, %nosuch;\n" +
		"bad.ptx: ptxas fatal: Ptx assembly aborted due to errors\n"
	if got != want {
		t.Errorf("FormatJITLog:\n%s\nwant:\n%s", got, want)
	}
	wsrc, err := os.ReadFile("testdata/wgmma.ptx")
	if err != nil {
		t.Fatal(err)
	}
	got = FormatJITLog("wgmma.ptx", wsrc, cannedInfoLog)
	for _, part := range []string{
		"wgmma.ptx: ptxas info: Compiling entry function 'wgmma_nowait' for 'sm_90a'\n",
		"wgmma.ptx:98: info: (C7517) warpgroup.wait is injected in around line 98",
		"    98 |     st.global.v4.f32    [%rd5], {%f0, %f1, %f2, %f3};\n",
		"wgmma.ptx: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
	} {
		if !strings.Contains(got, part) {
			t.Errorf("FormatJITLog lacks %q:\n%s", part, got)
		}
	}
	// A line number past the end of the source is kept, without an excerpt.
	got = FormatJITLog("k.ptx", []byte("one line"), "ptxas application ptx input, line 40; warning : odd\n")
	if got != "k.ptx:40: warning: odd\n" {
		t.Errorf("out of range: %q", got)
	}
}

func TestJITErrorText(t *testing.T) {
	src, _ := os.ReadFile("testdata/bad.ptx")
	e := &JITError{Name: "bad.ptx", Err: &Error{Func: "cuModuleLoadDataEx", Code: 218, Name: "CUDA_ERROR_INVALID_PTX"}, Log: cannedErrorLog, src: src}
	s := e.Error()
	for _, part := range []string{"bad.ptx: PTX JIT failed (CUDA_ERROR_INVALID_PTX)", "bad.ptx:9: error: Unknown symbol", "9 |     add.u32"} {
		if !strings.Contains(s, part) {
			t.Errorf("JITError text lacks %q:\n%s", part, s)
		}
	}
}

func FuzzParseJITLog(f *testing.F) {
	f.Add(cannedErrorLog)
	f.Add(cannedInfoLog)
	f.Add("ptxas application ptx input, line 99999999999999999999; error : x")
	f.Fuzz(func(t *testing.T, log string) {
		for _, m := range ParseJITLog(log) {
			if m.Line < 0 {
				t.Fatalf("negative line %d", m.Line)
			}
		}
		FormatJITLog("f.ptx", []byte("a\nb\n"), log)
	})
}

func ExampleFormatJITLog() {
	src := []byte(".version 8.0\n.target sm_90a\n.entry k()\n{\n    add.u32 %r1, %r1, %nosuch;\n}\n")
	log := "ptxas application ptx input, line 5; error   : Unknown symbol '%nosuch'\n" +
		"ptxas fatal   : Ptx assembly aborted due to errors\n"
	fmt.Print(FormatJITLog("k.ptx", src, log))
	// Output:
	// k.ptx:5: error: Unknown symbol '%nosuch'
	//     5 |     add.u32 %r1, %r1, %nosuch;
	// k.ptx: ptxas fatal: Ptx assembly aborted due to errors
}
