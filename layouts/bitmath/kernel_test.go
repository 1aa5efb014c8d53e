package bitmath

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPTXKernelGolden pins the complete kernel around one emitted block.
func TestPTXKernelGolden(t *testing.T) {
	d, err := Derive(tvMap(t, "mma_m16n8k16_c", "((4,8),(2,2)):((32,1),(16,8))", 16, 8))
	if err != nil {
		t.Fatal(err)
	}
	k, err := EmitPTXKernel(d.Forward, "bitmath_fwd")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := Emit(d.Forward, PTX)
	if !strings.Contains(k, block) || strings.Count(k, "{") != strings.Count(k, "}") {
		t.Fatalf("kernel does not embed the block or has unbalanced braces:\n%s", k)
	}
	path := filepath.Join("testdata", "golden", "mma_m16n8k16_c.kernel.ptx")
	if *update {
		os.WriteFile(path, []byte(k), 0o644)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != k {
		t.Errorf("%s differs (run go test -update after checking):\n%s", path, k)
	}
}

// expected evaluates p (already verified against its map by Derive) on
// every input tuple in the kernel's order, as the bytes the kernel stores.
func expected(t *testing.T, p *Program) []byte {
	if err := p.bind(nil); err != nil {
		t.Fatal(err)
	}
	esz := 4
	if p.wide() {
		esz = 8
	}
	var buf []byte
	env := make([]int64, len(p.slots))
	out := make([]int64, len(p.Outputs))
	eachLex(p.Inputs, func(in []int) bool {
		for k, v := range in {
			env[k] = int64(v)
		}
		if err := p.run(env, out); err != nil {
			t.Fatal(err)
		}
		for _, v := range out {
			if esz == 4 {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
			}
		}
		return true
	})
	return buf
}

// TestWritePTXKit writes, when BITMATH_PTX_KIT names a directory, a kernel
// and its expected output for both directions of every test map, plus
// run.sh, which JIT-compiles and runs each kernel on a GPU with
// 'tcsim gpu run' and compares the output byte for byte:
//
//	BITMATH_PTX_KIT=$PWD/.dev/ptxkit go test ./layouts/bitmath -run WritePTXKit
//	CGO_ENABLED=0 go build -o .dev/ptxkit/tcsim ./cmd/tcsim
//	(on the GPU machine) sh .dev/ptxkit/run.sh
func TestWritePTXKit(t *testing.T) {
	dir := os.Getenv("BITMATH_PTX_KIT")
	if dir == "" {
		t.Skip("set BITMATH_PTX_KIT to write the GPU kit")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var sh strings.Builder
	sh.WriteString("#!/bin/sh\n# Runs every bitmath kernel on the GPU and compares with the expected bytes.\ncd \"$(dirname \"$0\")\"\nfail=0\n")
	maps := append(testMaps(t), layoutMap(t, "smem.k.sw128.b16", "Sw<3,3,3> o 0 o (8,64):(64,1)", true))
	for _, m := range maps {
		d, err := Derive(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []*Program{d.Forward, d.Inverse} {
			n := Tuples(p)
			if n > 1<<22 {
				continue
			}
			k, err := EmitPTXKernel(p, "bitmath")
			if err != nil {
				t.Fatal(err)
			}
			want := expected(t, p)
			os.WriteFile(filepath.Join(dir, p.Name+".ptx"), []byte(k), 0o644)
			os.WriteFile(filepath.Join(dir, p.Name+".want"), want, 0o644)
			fmt.Fprintf(&sh, "if ./tcsim gpu run -q %s.ptx --grid %d --block 128 --param out=buf:size=%d --out out=%s.got >%s.log 2>&1 && cmp -s %s.got %s.want; then echo \"PASS %s (%d tuples)\"; else echo \"FAIL %s\"; cat %s.log; fail=1; fi\n",
				p.Name, (n+127)/128, len(want), p.Name, p.Name, p.Name, p.Name, p.Name, n, p.Name, p.Name)
		}
	}
	sh.WriteString("exit $fail\n")
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte(sh.String()), 0o755)
}
