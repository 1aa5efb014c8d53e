package main

import "testing"

func TestNumApprox(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
		err  string
	}{
		{[]string{"num", "ex2.approx.ftz.f32", "0.37", "--explain"}, 0, []string{"result  0x3fa56bd2 (1.2923529148101806640625)", "model   bit-exact", "2^f interval 23, Xl = 0x15c29", "MUFU.EX2     0x3ebd70a4", "differs by 1 ulp"}, ""},
		{[]string{"num", "div.full.f32", "1", "3"}, 0, []string{"result  0x3eaaaaab", "float64 the same bits"}, ""},
		{[]string{"num", "rcp.approx.f32", "0x7f000000", "--explain"}, 0, []string{"FSEL", "scale s = 0.25", "MUFU.RCP"}, ""},
		{[]string{"num", "tanh.approx.f16x2", "0.5,-2"}, 0, []string{"low 0x3764 (0.4619140625), high 0xbbb6 (-0.9638671875)"}, ""},
		{[]string{"num", "rsqrt.approx.f64", "2", "--explain"}, 0, []string{"0x3fe6a09e667f3bcd", "MUFU.RSQ64H", "DFMA"}, ""},
		{[]string{"num", "sin.approx.f32", "1", "--explain"}, 0, []string{"FMUL.RZ", "quadrant 0", "0x3f576aa3"}, ""},
		{[]string{"num", "ex2.approx.ftz.f32"}, 2, nil, "takes 1 operand(s), got 0"},
		{[]string{"num", "div.full.f32", "1"}, 2, nil, "takes 2 operand(s), got 1"},
		{[]string{"num", "tanh.approx.f16x2", "0.5"}, 2, nil, "give 2 comma-separated numbers"},
		{[]string{"num", "ex2.approx.f32", "zz"}, 2, nil, "operand a:"},
		{[]string{"num", "ex2.approx.f32", "0x1ffffffff"}, 2, nil, "is not 32-bit hex bits"},
		{[]string{"num", "exp.approx.f32", "1"}, 2, nil, `"exp.approx.f32" is not an approximate-math opcode`},
		{[]string{"num", "nosuch"}, 2, nil, `unknown num subcommand "nosuch"`},
	} {
		expectCLI(t, c.args, c.code, c.want, nil, c.err)
	}
}

func TestVerifyApprox(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
		err  string
	}{
		{[]string{"verify", "approx", "--fixture", "../../fixtures/approx", "--forms", `^(ex2\.approx\.ftz\.f32|div\.full\.f32|tanh\.approx\.f16)$`, "--sample", "1", "--seed", "3"}, 0,
			[]string{"NVIDIA H100 80GB HBM3", "ex2.approx.ftz.f32  all     1 of 4096       1/1 match  bit-exact", "div.full.f32        edge    1 of 1", "tanh.approx.f16     all     1 of 1          1/1 match  bit-exact"}, ""},
		{[]string{"verify", "approx", "--record", "x"}, 2, nil, "--record, --diff and --no-model need --gpu"},
		{[]string{"verify", "approx", "--forms", "nosuch"}, 2, nil, `--forms "nosuch" matches no form`},
		{[]string{"verify", "approx", "--fixture", "/nonexistent"}, 2, nil, "no recorded approximate-math campaign at /nonexistent"},
		{[]string{"verify", "approx", "--fixture", t.TempDir()}, 2, nil, "no *.jsonl.gz records under"},
		{[]string{"verify", "approx", "--ptx", t.TempDir(), "--forms", "^rcp"}, 0, []string{"wrote the probe kernels of 3 forms"}, ""},
		{[]string{"verify", "approx", "--gpu"}, 1, nil, "no NVIDIA driver found (libcuda.so.1)"},
	} {
		if c.code == 1 && c.err == "no NVIDIA driver found (libcuda.so.1)" {
			noDriver(t)
		}
		expectCLI(t, c.args, c.code, c.want, nil, c.err)
	}
}
