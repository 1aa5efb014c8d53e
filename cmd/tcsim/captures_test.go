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
// must convert to that case again. scan, when set, is what tcsim desc
// --scan must say of the launch's parameter bytes (the tensor maps inside
// a by-value struct).
var capturedKernels = []struct {
	name, kernel    string
	convert, replay string
	scan            string
}{
	{"torch_compile_norm", "triton_per_fused_add_mean_mul_pow_rsqrt_sigmoid_sub_0", "", "bit-exact", ""},
	{"triton_attention", "attn_fwd", "", "bit-exact", ""},
	{"triton_matmul_bf16", "matmul_kernel", "", "bit-exact", ""},
	{"triton_matmul_bf16_standalone", "matmul_kernel", "", "bit-exact", ""},
	{"triton_matmul_fp8", "matmul_kernel", "", "bit-exact", ""},
	{"triton_tma_persistent", "matmul_tma_persistent", "", "bit-exact", ""},
	{"ws_gemm_coop", "ws_gemm_coop", "", "bit-exact", "624 bytes, 3 CUtensorMap(s)"},
	{"ws_gemm_pingpong", "ws_gemm_pingpong", "", "bit-exact", "624 bytes, 3 CUtensorMap(s)"},
	{"ws_gemm_batched", "ws_gemm_batched", "", "bit-exact", "752 bytes, 4 CUtensorMap(s)"},
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
			if k.scan != "" {
				// tcsim desc finds and decodes the CUtensorMaps inside
				// the Params struct the kernel took by value.
				scanParams(t, raw, k.scan)
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

// scanParams runs tcsim desc --scan on the parameter bytes of the one
// launch in raw, wants want in its output, and decodes the first map found.
func scanParams(t *testing.T, raw, want string) {
	t.Helper()
	pb, _ := filepath.Glob(filepath.Join(raw, "launch-*", "params.bin"))
	if len(pb) != 1 {
		t.Fatalf("params.bin: %v", pb)
	}
	code, stdout, stderr := runCLI(t, "desc", pb[0], "--scan")
	if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "tiled dtype=") {
		t.Fatalf("desc --scan: exit %d, want %q\n%s%s", code, want, stdout, stderr)
	}
	// The first map's offset starts its line: "    112  tiled ...".
	var off string
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "tiled" {
			off = f[0]
			break
		}
	}
	code, stdout, stderr = runCLI(t, "desc", pb[0], "--at", off)
	if code != 0 || !strings.Contains(stdout, "cuTensorMapEncodeTiled(") {
		t.Errorf("desc --at %s: exit %d\n%s%s", off, code, stdout, stderr)
	}
}

// TestCutlassSm90Capture replays CUTLASS sm90 launches that you captured
// yourself with tcsim capture. The project does not redistribute CUTLASS
// or anything compiled from it, so no such record is in the repository:
// TCSIM_CUTLASS_SM90 names raw records (a capture's DIR/raw, DIR itself,
// or a .tar.gz of DIR/raw or of its contents), several separated by the list separator (':'
// on Linux). Every launch must convert, replay bit-identically, and stay
// free of errors and warnings under the hazard schedules of
// TestCapturedKernelsHazards; tcsim desc must find the CUtensorMaps in its
// Params. For example, with a CUTLASS 3.x TMA warp-specialized GEMM built
// with -gencode arch=compute_90a,code=[sm_90a,compute_90a]:
//
//	tcsim capture -o cap --kernel device_kernel -- ./gemm    (on the GPU machine)
//	TCSIM_CUTLASS_SM90=cap go test ./cmd/tcsim -run TestCutlassSm90Capture
func TestCutlassSm90Capture(t *testing.T) {
	env := os.Getenv("TCSIM_CUTLASS_SM90")
	if env == "" {
		t.Skip("TCSIM_CUTLASS_SM90 (raw records of CUTLASS sm90 launches made with tcsim capture) is not set")
	}
	for _, p := range filepath.SplitList(env) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw := p
			if strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz") {
				raw = untar(t, p) // of DIR/raw's contents, or of raw/ itself
			}
			if exists(filepath.Join(raw, "raw", "session.json")) {
				raw = filepath.Join(raw, "raw")
			}
			ls, _, err := capture.ReadRaw(raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) == 0 {
				t.Fatalf("%s: no launch recorded", p)
			}
			if len(ls) == 1 {
				scanParams(t, raw, "CUtensorMap(s)")
			}
			res, err := capture.ConvertAll(raw, t.TempDir(), capture.ConvertOptions{Command: "test"})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.Err != nil {
					t.Errorf("convert: %v", r.Err)
					continue
				}
				code, stdout, stderr := runCLI(t, "replay", r.Dir)
				if code != 0 || !strings.Contains(stdout, "bit-identical to the GPU") {
					t.Errorf("replay %s: exit %d\n%s%s", r.Dir, code, stdout, stderr)
				}
				checkSchedules(t, r.Dir)
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
