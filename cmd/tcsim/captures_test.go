package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/capture"
)

// capturedKernels are the launches recorded on the H100 by tcsim capture
// (fixtures/captures/testdata/NAME.tar.gz hold the raw records, see
// fixtures/captures/README.md), and what tcsim does with each today.
// convert is "" when the record converts to a case, else a part of the
// error; replay is then "bit-exact", "approximate" (outputs differ, and
// approximate instructions are reported), or a part of the error. When
// support lands, this table must change: the test fails until it does.
// A converted record whose case is committed (fixtures/captures/NAME)
// must convert to that case again.
var capturedKernels = []struct {
	name, kernel    string
	convert, replay string
}{
	{"cutlass_gemm_cooperative", "_ZN7cutlass13device_kernel", "", "bit-exact"},
	{"cutlass_gemm_pingpong", "_ZN7cutlass13device_kernel", "", "bit-exact"},
	{"torch_compile_norm", "triton_per_fused_add_mean_mul_pow_rsqrt_sigmoid_sub_0", "", "bit-exact"},
	{"triton_attention", "attn_fwd", "", "bit-exact"},
	{"triton_matmul_bf16", "matmul_kernel", "", "bit-exact"},
	{"triton_matmul_bf16_standalone", "matmul_kernel", "", "bit-exact"},
	{"triton_matmul_fp8", "matmul_kernel", "", "bit-exact"},
	{"triton_tma_persistent", "matmul_tma_persistent", "", "bit-exact"},
}

func TestCapturedKernels(t *testing.T) {
	for _, k := range capturedKernels {
		t.Run(k.name, func(t *testing.T) {
			raw := untar(t, filepath.Join("../../fixtures/captures/testdata", k.name+".tar.gz"))
			ls, _, err := capture.ReadRaw(raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != 1 || !strings.HasPrefix(ls[0].Kernel, k.kernel) {
				t.Fatalf("want one launch of %s, got %d", k.kernel, len(ls))
			}
			if _, src, err := capture.FindPTX(raw, ls[0]); err != nil {
				t.Fatalf("no PTX: %v", err)
			} else if src == "" {
				t.Error("the PTX's source is not named")
			}
			if strings.HasPrefix(k.name, "cutlass") {
				// tcsim desc finds and decodes the CUtensorMaps inside
				// the Params struct the kernel took by value.
				pb, _ := filepath.Glob(filepath.Join(raw, "launch-*", "params.bin"))
				if len(pb) != 1 {
					t.Fatalf("params.bin: %v", pb)
				}
				code, stdout, stderr := runCLI(t, "desc", pb[0], "--scan")
				if code != 0 || !strings.Contains(stdout, "1904 bytes, 4 CUtensorMap(s)") || !strings.Contains(stdout, "swizzle=128B") {
					t.Errorf("desc --scan: exit %d\n%s%s", code, stdout, stderr)
				}
				code, stdout, stderr = runCLI(t, "desc", pb[0], "--at", "240")
				if code != 0 || !strings.Contains(stdout, "cuTensorMapEncodeTiled(DATA_TYPE_UINT16, 3,") {
					t.Errorf("desc --at 240: exit %d\n%s%s", code, stdout, stderr)
				}
			}
			out := t.TempDir()
			res, err := capture.ConvertAll(raw, out, capture.ConvertOptions{Command: "test"})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if k.convert != "" {
				if r.Err == nil || !strings.Contains(r.Err.Error(), k.convert) {
					t.Fatalf("convert: err = %v, want %q (update capturedKernels when support lands)", r.Err, k.convert)
				}
				return
			}
			if r.Err != nil {
				t.Fatalf("convert: %v", r.Err)
			}
			dir := r.Dir
			if committed := filepath.Join("../../fixtures/captures", k.name); exists(committed) {
				for _, f := range []string{"kernel.ptx", "launch.json"} {
					if a, b := readOr(t, filepath.Join(committed, f)), readOr(t, filepath.Join(r.Dir, f)); a != b {
						t.Errorf("%s: the committed case differs from the conversion of its raw record", f)
					}
				}
				dir = committed
			}
			code, stdout, stderr := runCLI(t, "replay", dir)
			switch k.replay {
			case "bit-exact":
				if code != 0 || !strings.Contains(stdout, "bit-identical to the GPU") {
					t.Errorf("replay: exit %d\n%s%s", code, stdout, stderr)
				}
			case "approximate":
				if code != 1 || !strings.Contains(stdout, "not bit-exact:") {
					t.Errorf("replay: exit %d, want 1 with approximate instructions named\n%s%s", code, stdout, stderr)
				}
			default:
				if code == 0 || !strings.Contains(stdout+stderr, k.replay) {
					t.Errorf("replay: exit %d, want an error with %q\n%s%s", code, k.replay, stdout, stderr)
				}
			}
		})
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func readOr(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// untar unpacks a .tar.gz of raw capture records into a temporary directory.
func untar(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			t.Fatalf("%s: %s leaves the directory", path, h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(p), 0o755)
			b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
