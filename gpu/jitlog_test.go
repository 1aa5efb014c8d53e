package gpu

import (
	"os"
	"strings"
	"testing"
)

// cannedErrorLog is the shape of the driver JIT's error log for bad.ptx.
const cannedErrorLog = "ptxas application ptx input, line 9; error   : Unknown symbol '%nosuch'\n" +
	"ptxas fatal   : Ptx assembly aborted due to errors\n"

// cannedInfoLog is the shape of a verbose info log with an advisory.
const cannedInfoLog = "ptxas info    : 0 bytes gmem\n" +
	"ptxas info    : Compiling entry function 'wgmma_nowait' for 'sm_90a'\n" +
	"ptxas info    : (C7517) warpgroup.wait is injected in around line 44 by compiler to allow use of registers defined by GMMA in function 'wgmma_nowait'\n" +
	"ptxas info    : Function properties for wgmma_nowait\n" +
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
	"ptxas info    : Used 18 registers, used 1 barriers, 4096 bytes smem\n"

func TestParseJITLog(t *testing.T) {
	ms := ParseJITLog(cannedErrorLog)
	if len(ms) != 2 {
		t.Fatalf("%d messages: %+v", len(ms), ms)
	}
	if m := ms[0]; m.Line != 9 || m.Severity != "error" || m.Text != "Unknown symbol '%nosuch'" {
		t.Errorf("first message %+v", m)
	}
	if m := ms[1]; m.Line != 0 || m.Severity != "fatal" || m.Text != "Ptx assembly aborted due to errors" {
		t.Errorf("second message %+v", m)
	}
	info := ParseJITLog(cannedInfoLog)
	if len(info) != 6 {
		t.Fatalf("%d info messages", len(info))
	}
	if info[4].Severity != "" || info[4].Text != "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" {
		t.Errorf("continuation line %+v", info[4])
	}
	adv := Advisories(cannedInfoLog)
	if len(adv) != 1 || adv[0].Code != "C7517" || adv[0].Severity != "info" {
		t.Errorf("advisories %+v", adv)
	}
}

func TestFormatJITLog(t *testing.T) {
	src, err := os.ReadFile("testdata/bad.ptx")
	if err != nil {
		t.Fatal(err)
	}
	got := FormatJITLog("bad.ptx", src, cannedErrorLog)
	want := "bad.ptx:9: error: Unknown symbol '%nosuch'\n" +
		"    9 |     add.u32     %r1, %r1, %nosuch;\n" +
		"bad.ptx: ptxas fatal: Ptx assembly aborted due to errors\n"
	if got != want {
		t.Errorf("FormatJITLog:\n%s\nwant:\n%s", got, want)
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
