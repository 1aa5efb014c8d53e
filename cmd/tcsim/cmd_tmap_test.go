package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/isa/tensormap"
)

// structBlob is a by-value struct holding a CUtensorMap at offset 0.
var structBlob = filepath.Join("..", "..", "sim", "testdata", "tmastruct", "params.bin")

// driverTmap is a map the H100's driver wrote (the campaign's
// tiled/swizzle/128B/box0=64 probe).
const driverTmap = "005634124a7f0000c0600000800000000000010000008001000000e000100000ff030000ff0100007f0100003f0100000f0100000000003f0f0703010000000000000200000000000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"

func TestDescTensorMap(t *testing.T) {
	dir := t.TempDir()
	raw, _ := hex.DecodeString(driverTmap)
	bin := filepath.Join(dir, "tm.bin")
	os.WriteFile(bin, raw, 0o644)
	txt := filepath.Join(dir, "tm.txt")
	os.WriteFile(txt, []byte(driverTmap[:64]+"\n"+driverTmap[64:]+"\n"), 0o644)
	var words []string
	for i := 0; i < 16; i++ {
		var v uint64
		for k := 7; k >= 0; k-- {
			v = v<<8 | uint64(raw[8*i+k])
		}
		words = append(words, fmt.Sprintf("%#x", v))
	}
	garbage := driverTmap[:250] + "ffffff"
	wide := strings.Replace(driverTmap, "c060", "c0e0", 1) // w1 bit 15: oob=nan on u16
	tests := []struct {
		args     []string
		code     int
		outParts []string
		errPart  string
	}{
		{[]string{"desc", driverTmap}, 0, []string{"CUtensorMap (128 bytes): tiled, rank 5, u16", "cuTensorMapEncodeTiled(DATA_TYPE_UINT16, 5,", "SWIZZLE_128B", "box[4]", "131072", "1024-byte aligned"}, ""},
		{[]string{"desc", bin}, 0, []string{"tiled, rank 5, u16"}, ""},
		{[]string{"desc", txt}, 0, []string{"tiled, rank 5, u16"}, ""},
		{[]string{"desc", strings.Join(words, ",")}, 0, []string{"tiled, rank 5, u16", "0x7f4a12345600"}, ""},
		{[]string{"desc", driverTmap, "--expect-tx", "131072"}, 0, []string{"the kernel arms 131072 bytes: one load"}, ""},
		{[]string{"desc", driverTmap, "--expect-tx", "0x8000"}, 0, []string{"[expect-tx-mismatch]", "goes below zero"}, ""},
		{[]string{"desc", driverTmap, "--expect-tx", "196608"}, 0, []string{"[expect-tx-mismatch]", "never returns to zero"}, ""},
		{[]string{"desc", garbage}, 1, []string{"w15: 0xffffff0000000000", "[unknown-bits]"}, "1 error(s) in the tensor map"},
		{[]string{"desc", wide}, 1, []string{"oob: oob=nan needs a floating-point dtype, have u16", "[driver-rule]"}, ""},
		{[]string{"desc", driverTmap[:250]}, 2, nil, "want 256 hex digits"},
		{[]string{"desc", "--tmap", "0x1234"}, 2, nil, "have 4 digits"},
		{[]string{"desc", driverTmap, "--draw"}, 2, nil, "not to a CUtensorMap"},
		{[]string{"desc", "0x4000004000010040", "--expect-tx", "16"}, 2, nil, "--expect-tx applies to a CUtensorMap"},
		{[]string{"desc", structBlob, "--scan"}, 0, []string{"192 bytes, 1 CUtensorMap(s)", "      0  tiled dtype=u16 addr=0x7fa0abe00000"}, ""},
		{[]string{"desc", structBlob, "--at", "0", "--expect-tx", "2048"}, 0, []string{"tiled, rank 2, u16", "one load through this map"}, ""},
		{[]string{"desc", structBlob, "--at", "128"}, 2, nil, "a CUtensorMap at 128 needs 256"},
		{[]string{"desc", structBlob, "--at", "64"}, 1, []string{"[unknown-bits]"}, ""},
		{[]string{"desc", structBlob, "--at", "0", "--scan"}, 2, nil, "give one of them"},
	}
	for _, tc := range tests {
		code, out, errs := runCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args[1:], code, tc.code, out, errs)
		}
		for _, p := range tc.outParts {
			if !strings.Contains(out, p) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args[1:], p, out)
			}
		}
		if tc.errPart != "" && !strings.Contains(errs, tc.errPart) {
			t.Errorf("%v: stderr %q lacks %q", tc.args[1:], errs, tc.errPart)
		}
	}
}

func TestVerifyTensorMapsReplay(t *testing.T) {
	code, out, errs := runCLI(t, "verify", "tensormaps", "--fixture", filepath.Join("..", "..", defaultTensorMapFixture))
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, p := range []string{"encoder: 3477 of 3477 byte-identical", "rules:   4469 of 4469 rejections matched", "NVIDIA H100"} {
		if !strings.Contains(out, p) {
			t.Errorf("output lacks %q:\n%s", p, out)
		}
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"verify", "tensormaps", "--fixture", "nonexistent.json.gz"}, "no recorded tensor-map campaign"},
		{[]string{"verify", "tensormaps", "--record", "x"}, "need --gpu"},
		{[]string{"verify", "tensormaps", "--child", "x"}, "want a probe index"},
	} {
		if code, _, errs := runCLI(t, c.args...); code == 0 || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d, %q", c.args, code, errs)
		}
	}
	_ = tensormap.Size
}

func FuzzDescTensorMapArg(f *testing.F) {
	f.Add(driverTmap)
	f.Add("0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0xffffffffffffffff")
	f.Add(strings.Repeat("f", 256))
	f.Fuzz(func(t *testing.T, s string) {
		b, err := tensormap.ParseHex(s)
		if err != nil {
			return
		}
		r := tensormap.Explain(b, tensormap.Context{ExpectTx: 4096})
		_ = r.String()
	})
}
