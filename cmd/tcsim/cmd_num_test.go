package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNumCommands(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"num", "decode", "e4m3", "0x7e"}, 0, []string{"e4m3 0x7e = 0b0_1111_110", "exponent  1111 = 15, unbiased 15 - 7 = 8", "value     448 = +1.11×2^8"}},
		{[]string{"num", "decode", "e4m3", "0x7f"}, 0, []string{"class     nan"}},
		{[]string{"num", "decode", "tf32", "0x3f801fff"}, 0, []string{"ignored   bits 12..0 = 0x1fff", "value     1 "}},
		{[]string{"num", "decode", "s8", "0x80"}, 0, []string{"value     -128"}},
		{[]string{"num", "decode", "e4m3", "0x100"}, 1, nil},
		{[]string{"num", "decode", "e9m9", "0"}, 2, nil},
		{[]string{"num", "encode", "e4m3", "3.3", "--satfinite"}, 0, []string{"below     3.25  (0x45)", "above     3.5  (0x46)", "result    0x45 = 3.25  [inexact]"}},
		{[]string{"num", "encode", "e2m1", "5", "--rn"}, 0, []string{"tie       the input is exactly halfway", "a tie, rounded down to the even neighbour", "result    0x6 = 4"}},
		{[]string{"num", "encode", "e2m1", "5", "--rna"}, 0, []string{"result    0x7 = 6"}},
		{[]string{"num", "encode", "f16", "1e6", "--rz"}, 0, []string{"result    0x7bff = 65504", "overflow"}},
		{[]string{"num", "encode", "f16", "1", "--rn", "--rz"}, 2, nil},
		{[]string{"num", "encode", "e4m3", "500"}, 0, []string{"overflow  beyond the largest finite value of e4m3, 448 (0x7e)\n", "result    0x7f = nan"}},
		{[]string{"num", "encode", "f32", "1e9999999"}, 0, []string{"far outside every format; approximately 1e+9999999\n",
			"overflow  beyond the largest finite value of f32, 3.4028234663852886e+38 (= +16777215·2^104) (0x7f7fffff)", "result    0x7f800000 = inf  [inexact overflow]"}},
		{[]string{"num", "encode", "f32", "1e-1000000000", "--rp"}, 0, []string{"far below every format's smallest subnormal\n",
			"result    0x00000001 = 1.4012984643248171e-45 (= +1·2^-149)  [inexact tiny]"}},
		{[]string{"num", "encode", "f32", "-1e-1000000000", "--rp"}, 0, []string{"result    0x80000000 = -0  [inexact tiny]"}},
		{[]string{"num", "encode", "f32", "-1e1000000000", "--rz"}, 0, []string{"far above every format's largest finite value\n", "result    0xff7fffff = -3.4028234663852886e+38"}},
		{[]string{"num", "encode", "f32", "0x1p-149"}, 0, []string{"input     1.4012984643248171e-45 (= +1·2^-149) (exact)\n"}},
		{[]string{"num", "encode", "f32", "0x1p-149", "--exact"}, 0, []string{"input     0.00000000000000000000000000000000000000000000140129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125 (exact: +1×2^-149)\n"}},
		{[]string{"num", "encode", "f32", "-1e-9999999", "--rm"}, 0, []string{"is beyond 2^±16384", "result    0x80000001"}},
		// values that start with '-' are values, not flags
		{[]string{"num", "encode", "f32", "-inf"}, 0, []string{"input     -inf (exact: -inf)", "result    0xff800000 = -inf"}},
		{[]string{"num", "encode", "f16", "-Infinity", "--rz"}, 0, []string{"result    0xfc00 = -inf"}},
		{[]string{"num", "encode", "bf16", "-.5"}, 0, []string{"result    0xbf00 = -0.5"}},
		{[]string{"num", "cvt", "cvt.rn.f16.f32", "-inf"}, 0, []string{"-> f16 0xfc00 = -inf"}},
		{[]string{"num", "cvt", "cvt.rn.f16.f32", "-nan"}, 0, []string{"NaN input gives the canonical NaN"}},
		{[]string{"num", "cvt", "cvt.rn.satfinite.e4m3x2.f32", "448", "-1e9"}, 0, []string{"lane a: f32 0x43e00000 = 448", "overflow: .satfinite gives MAX_NORM", "d = 0x7efe"}},
		{[]string{"num", "cvt", "cvt.rn.f16x2.e4m3x2", "0x7e01"}, 0, []string{"d = 0x5f001800"}},
		{[]string{"num", "cvt", "cvt.rn.satfinite.e2m1x2.f32", "1", "2"}, 0, []string{"not hardware-verified"}},
		{[]string{"num", "cvt", "cvt.rn.f16.f32", "1", "2"}, 2, nil},
		{[]string{"num", "cvt", "cvt.rm.relu.f16.f32", "1"}, 1, nil},
		{[]string{"num", "cvt", "cvt.rn.satfinte.e4m3x2.f32", "1", "2"}, 2, nil},
		{[]string{"num", "decode", "e4m4", "1"}, 2, nil},
		{[]string{"num", "table", "e2m1"}, 0, []string{"0x7   0_11_1  normal     6"}},
		{[]string{"num", "table", "f16"}, 2, nil},
		{[]string{"num", "formats"}, 0, []string{"e4m3    8     1.4.3    7     448           0.015625      0.00195312    no   0x7f\n",
			"f32     32    1.8.23   127   3.40282e+38   1.17549e-38   1.4013e-45    yes  ieee\n"}},
		{[]string{"num", "formats", "--long"}, 0, []string{"3.4028234663852886e+38 (= +16777215·2^104)", "exp all ones, mantissa≠0"}},
		{[]string{"num", "forms", "e4m3x2"}, 0, []string{"cvt.rn.satfinite.e4m3x2.f32", "opcodes"}},
		{[]string{"num", "forms", "--syntax", "tf32"}, 0, []string{"cvt.rna{.satfinite}.tf32.f32"}},
		{[]string{"num", "probe", "ptx", "cvt.rn.f16x2.e4m3x2"}, 0, []string{".target sm_90a", "cvt.rn.f16x2.e4m3x2 %d, %x0;"}},
	}
	for _, tt := range tests {
		expectCLI(t, tt.args, tt.code, tt.want, nil, "")
	}
}

func TestNumProbeCheck(t *testing.T) {
	code, out, errs := runCLI(t, "num", "probe", "check", "--filter", `^cvt\.rn\.satfinite\.e4m3x2\.`, "../../fixtures/numfmt/cvt_sm90a.rec.gz")
	if code != 0 || !strings.Contains(out, "2 records replayed, 0 differ") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
}

// TestNumProbeLegalityDisagreement: a ptxas that accepts everything
// disagrees with the table on every illegal case, and the command exits 1.
func TestNumProbeLegalityDisagreement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fake ptxas some 2000 times")
	}
	fake := filepath.Join(t.TempDir(), "ptxas")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "num", "probe", "legality", "--ptxas", fake, "--jobs", "4")
	if code != 1 || !strings.Contains(out, "DISAGREE cvt.") || !strings.Contains(errs, "ptxas disagrees with the legality table on") {
		t.Errorf("exit %d\nstdout (end): %s\nstderr: %s", code, out[max(0, len(out)-300):], errs)
	}
}

// TestNumFormatsWidth: the default table fits 80 columns.
func TestNumFormatsWidth(t *testing.T) {
	_, out, _ := runCLI(t, "num", "formats")
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("%d columns: %s", n, line)
		}
	}
}
