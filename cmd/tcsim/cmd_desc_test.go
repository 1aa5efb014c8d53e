package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
)

func TestDescDecode(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		outParts []string
		errPart  string
	}{
		{[]string{"desc", "0x4000004000010040", "--major", "K", "--dtype", "bf16", "--tile", "64x16"}, 0,
			[]string{"wgmma shared-memory matrix descriptor (sm_90a)", "read as sm_90a", "1024 bytes", "checks: no findings"}, ""},
		{[]string{"desc", "0x4000404000010040"}, 0, []string{"tcgen05 shared-memory descriptor (sm_100a)", "bits 46-48 hold 0b001", "not hardware-verified"}, ""},
		{[]string{"desc", "0x4002_0040_0001_0048", "--major", "K"}, 0, []string{"base-offset-shift", "1 is the ISA's (addr >> 7) & 7"}, ""},
		{[]string{"desc", "--arch", "sm_100a", "0x4000004000010040"}, 1, []string{"version-missing"}, "error(s)"},
		{[]string{"desc", "0x8000004000010040", "--swizzle", "128B", "--major", "K"}, 1, []string{"sm_100 code for 128B"}, ""},
		{[]string{"desc", "4000004000010040"}, 1, []string{"read as decimal", "0x000e35fb81854f38"}, ""},
		{[]string{"desc", "40000040000a0040"}, 0, []string{"read as hexadecimal"}, ""},
		{[]string{"desc", "0x4000004000010040", "--major", "K", "--dtype", "bf16", "--tile", "16x16", "--draw"}, 0,
			[]string{"core-matrix footprint of a 16x16 tile (K-major, 128B swizzle)", "0x00480 2.1   0.1", "core  M/N"}, ""},
		{[]string{"desc", "--idesc", "0x08400490", "--kind", "f16"}, 0, []string{"kind::f16", "M = 128", "N = 256", "bf16"}, ""},
		{[]string{"desc", "--idesc", "0x0840049000000000", "--kind", "f16"}, 0, []string{"upper 32 bits", "M = 128"}, ""},
		{[]string{"desc", "--idesc", "0x08400490", "--kind", "f16", "--cta-group", "2", "--ws"}, 1, []string{"form-invalid"}, ""},
		{[]string{"desc", "--idesc", "0x06400490", "--kind", "f16"}, 1, []string{"m-illegal"}, ""},
		// usage errors
		{[]string{"desc"}, 2, nil, "want one descriptor value"},
		{[]string{"desc", "0x1", "0x2"}, 2, nil, "got 2 arguments"},
		{[]string{"desc", "0xZZ"}, 2, nil, "not a number"},
		{[]string{"desc", "0x"}, 2, nil, "no digits"},
		{[]string{"desc", "0x1ffffffffffffffff"}, 2, nil, "does not fit in 64 bits"},
		{[]string{"desc", "0x1", "--arch", "sm_80"}, 2, nil, "unknown architecture"},
		{[]string{"desc", "0x1", "--major", "row"}, 2, nil, "--major"},
		{[]string{"desc", "0x1", "--tile", "64"}, 2, nil, "--tile"},
		{[]string{"desc", "0x1", "--dtype", "fp7"}, 2, nil, "--dtype"},
		{[]string{"desc", "--idesc", "0x1"}, 2, nil, "needs --kind"},
		{[]string{"desc", "--idesc", "0x1", "--kind", "f17"}, 2, nil, "unknown tcgen05 kind"},
		{[]string{"desc", "0x4000004000010040", "--draw"}, 2, nil, "--major"},
	}
	for _, tt := range tests {
		expectCLI(t, tt.args, tt.code, tt.outParts, nil, tt.errPart)
	}
}

func TestDescEncode(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		outParts []string
		errPart  string
	}{
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--major", "K", "--addr", "0x400", "--lbo", "16", "--sbo", "1024", "--quiet"}, 0,
			[]string{"0x4000004000010040\n"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_100a", "--swizzle", "128B", "--major", "K", "--addr", "0x400", "--lbo", "16", "--sbo", "1024", "--quiet"}, 0,
			[]string{"0x4000404000010040\n"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--major", "K", "--addr", "0x480", "--sbo", "1024"}, 0,
			[]string{"0x4000004000000048", "checks: no findings"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--major", "K", "--addr", "0x480", "--sbo", "1024", "--base-offset", "1"}, 0,
			[]string{"0x4002004000000048", "base-offset-shift"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--major", "K", "--addr", "0x400", "--sbo", "64"}, 1,
			[]string{"sbo-already-shifted", "Did you mean 1024?", "footprint-overlap"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "none", "--major", "K", "--dtype", "bf16", "--tile", "64x16", "--addr", "0", "--lbo", "128", "--sbo", "256", "--draw"}, 0,
			[]string{"0x0000001000080000", "core-matrix footprint"}, ""},
		{[]string{"desc", "encode", "--arch", "sm_100a", "--swizzle", "128B-32A", "--major", "MN", "--dtype", "tf32", "--tile", "64x8", "--addr", "0x400", "--lbo", "1024", "--sbo", "512", "--quiet"}, 0,
			[]string{"0x2000402000400040"}, ""},
		{[]string{"desc", "encode", "--idesc", "--kind", "f16", "--dtype", "f32", "--atype", "bf16", "--btype", "bf16", "--m", "128", "--n", "256", "--quiet"}, 0,
			[]string{"0x08400490\n"}, ""},
		{[]string{"desc", "encode", "--idesc", "--kind", "mxf4nvf4", "--atype", "e2m1", "--btype", "e2m1", "--m", "128", "--n", "256", "--scale-type", "ue4m3"}, 0,
			[]string{"0x08400480", "ue4m3"}, ""},
		{[]string{"desc", "encode", "--idesc", "--kind", "f16", "--dtype", "f32", "--atype", "bf16", "--btype", "bf16", "--m", "96", "--n", "256"}, 1,
			[]string{"m-illegal"}, ""},
		// usage and encoding errors
		{[]string{"desc", "encode", "--swizzle", "128B", "--addr", "0"}, 2, nil, "--arch is required"},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--addr", "0"}, 2, nil, "--swizzle is required"},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B"}, 2, nil, "--addr is required"},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--addr", "0x408"}, 1, nil, "not a multiple of 16"},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B-32A", "--addr", "0x400"}, 1, nil, "does not exist on sm_90a"},
		{[]string{"desc", "encode", "--arch", "sm_90a", "--swizzle", "128B", "--addr", "0x400", "--base-offset", "9"}, 2, nil, "--base-offset"},
		{[]string{"desc", "encode", "--arch", "sm_100a", "--swizzle", "128B", "--addr", "0x400", "--lbo-mode", "sideways"}, 2, nil, "--lbo-mode"},
		{[]string{"desc", "encode", "--idesc", "--kind", "f16", "--atype", "bf16", "--btype", "bf16", "--m", "128", "--n", "256"}, 2, nil, "--dtype (the D type) is required"},
		{[]string{"desc", "encode", "--idesc", "--kind", "f16", "--dtype", "f32", "--atype", "e4m3", "--btype", "bf16", "--m", "128", "--n", "256"}, 1, nil, "not an A type of kind::f16"},
		{[]string{"desc", "encode", "--idesc", "--kind", "mxf4", "--dtype", "f16", "--atype", "e2m1", "--btype", "e2m1", "--m", "128", "--n", "256"}, 2, nil, "no D field"},
		{[]string{"desc", "encode", "extra"}, 2, nil, "unexpected arguments"},
	}
	for _, tt := range tests {
		expectCLI(t, tt.args, tt.code, tt.outParts, nil, tt.errPart)
	}
}

// Encoding then decoding through the CLI gives back the fields.
func TestDescEncodeDecodeCLI(t *testing.T) {
	_, out, _ := runCLI(t, "desc", "encode", "--arch", "sm_100a", "--swizzle", "64B", "--addr", "0x10200", "--lbo", "16", "--sbo", "512", "--quiet")
	code, dec, errs := runCLI(t, "desc", strings.TrimSpace(out), "--major", "K")
	if code != 0 || !strings.Contains(dec, "0x10200 (66048)") || !strings.Contains(dec, "512 bytes") || !strings.Contains(dec, "64-byte swizzle") {
		t.Errorf("decode of %s: exit %d\n%s\n%s", out, code, dec, errs)
	}
}

func TestDescANSIAndNoColor(t *testing.T) {
	args := []string{"desc", "0x4000004000010040", "--major", "K", "--tile", "8x16", "--draw", "--ansi"}
	_, out, _ := runCLI(t, args...)
	if !strings.Contains(out, "\x1b[30;48;5;") {
		t.Error("--ansi drew no colours")
	}
	var o, e bytes.Buffer
	en := &env{stdout: &o, stderr: &e, stdin: strings.NewReader(""), getenv: func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}}
	if code := run(en, args); code != 0 || strings.Contains(o.String(), "\x1b[") {
		t.Errorf("NO_COLOR: exit %d, escapes present: %v", code, strings.Contains(o.String(), "\x1b["))
	}
}

func FuzzParseDescValue(f *testing.F) {
	for _, s := range []string{"0x4000004000010040", "0X1", "4000004000010040", "abc", "0x", "", "0x_1_2", "0x1ffffffffffffffff", "-1", "1e9", "0x4000'0040"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, _, err := parseDescValue(s)
		if err != nil {
			return
		}
		// An accepted value prints back to a string that parses to it.
		w, _, err := parseDescValue(fmt.Sprintf("0x%x", v))
		if err != nil || w != v {
			t.Fatalf("%q -> %#x -> %#x, %v", s, v, w, err)
		}
		// And the command never panics on it.
		runCLI(t, "desc", s)
		runCLI(t, "desc", "--idesc", "--kind", "mxf4", s)
	})
}

func TestDescProbe(t *testing.T) {
	code, out, _ := runCLI(t, "desc", "probe")
	if code != 0 || !strings.Contains(out, "K-SW128-row1-base0") || !strings.Contains(out, "tcsim desc probe --run") {
		t.Errorf("desc probe: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "desc", "probe", "--ptx")
	if code != 0 || !strings.Contains(out, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16") {
		t.Errorf("desc probe --ptx: %d\n%s", code, out)
	}
	p, err := desc.NewProbe(desc.DefaultProbeCases())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		model desc.ProbeModel
		code  int
		part  string
	}{
		{desc.ModelFootprint, 0, "all 17 cases agree"},
		{desc.ModelStartRelative, 1, "matches phase from the start address plus the base offset"},
		{desc.ModelAbsolute, 1, "matches absolute-address swizzle, base offset ignored"},
	} {
		sim, err := p.SimulateProbe(c.model)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "out.bin")
		if err := os.WriteFile(f, sim, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "desc", "probe", "--check", f)
		if code != c.code || !strings.Contains(out, c.part) {
			t.Errorf("desc probe --check (%v): exit %d\n%s\n%s", c.model, code, out, errs)
		}
	}
	// What the H100 read (fixtures/desc/README.md).
	code, out, errs := runCLI(t, "desc", "probe", "--check", filepath.Join("..", "..", "fixtures", "desc", "desc_probe_h100.bin"))
	if code != 0 || !strings.Contains(out, "all 17 cases agree") {
		t.Errorf("desc probe --check of the H100 recording: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, _ := runCLI(t, "desc", "probe", "--check", filepath.Join(dir, "missing")); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}
