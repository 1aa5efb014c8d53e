package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pythonEnv writes the Python side as Record does and returns python3
// and a PYTHONPATH holding it; it skips without python3.
func pythonEnv(t *testing.T) (string, string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tcsim_capture.py"), PythonModule, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), SiteCustomize, 0o644); err != nil {
		t.Fatal(err)
	}
	return py, dir
}

func TestPythonModule(t *testing.T) {
	py, dir := pythonEnv(t)
	raw := filepath.Join(t.TempDir(), "raw")
	for _, tc := range []struct {
		name string
		env  []string
		code string
		want string
	}{
		{"compiles", nil, "import py_compile, sys; [py_compile.compile(f, doraise=True) for f in sys.argv[1:]]; print('ok')", "ok"},
		{"off without TCSIM_CAPTURE_DIR", nil, "import tcsim_capture; print(tcsim_capture.enable_from_env())", "None"},
		// No interposer in this process, so enable() records on its own;
		// without Triton installed it says so and leaves the program be.
		{"standalone without Triton", []string{"TCSIM_CAPTURE_DIR=" + raw, "TCSIM_CAPTURE_KERNEL=mat.*"},
			"import tcsim_capture as t; s = t._state; print(s.mode, s.kernel.pattern, s.max)", "standalone mat.* 8"},
		{"annotate needs the interposer", nil,
			"import tcsim_capture as t\ntry:\n  t.enable('" + raw + "', mode='annotate')\nexcept RuntimeError as e: print('refused:', e)", "refused: tcsim_capture: annotate mode needs tcsim's driver interposer"},
		{"bad mode", nil,
			"import tcsim_capture as t\ntry:\n  t.enable('" + raw + "', mode='x')\nexcept ValueError as e: print(e)", "mode must be auto, annotate or standalone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-c", tc.code}
			if tc.name == "compiles" {
				args = append(args, filepath.Join(dir, "tcsim_capture.py"), filepath.Join(dir, "sitecustomize.py"))
			}
			cmd := exec.Command(py, args...)
			cmd.Env = append(append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1"), tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("python3 %s: %v\n%s\nwant %q", tc.code, err, out, tc.want)
			}
		})
	}
}
