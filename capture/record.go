package capture

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tcsim/tcsim/launch"
)

// InterposerSource is the C source of the driver interposer.
//
//go:embed csrc/interpose.c
var InterposerSource []byte

// PythonModule is tcsim_capture.py, the Triton side.
//
//go:embed tcsim_capture.py
var PythonModule []byte

// SiteCustomize loads PythonModule into every Python process of a capture.
//
//go:embed sitecustomize.py
var SiteCustomize []byte

// Options select what a recording captures.
type Options struct {
	Kernel    string // regular expression on the kernel name (POSIX ERE in the interposer, re in Python)
	Launch    int    // capture only the Launch-th matching launch; -1: every one (up to Max)
	Max       int    // at most this many launches (0: 8)
	MaxBuffer int64  // a larger allocation is left out (0: 256 MiB)
	MaxTotal  int64  // bytes copied per launch, before and after (0: 2 GiB)
	CC        string // the C compiler (default $CC, then cc, then gcc)
	// Interposer is a library BuildInterposer built earlier; empty: build
	// one into rawDir/tool.
	Interposer string
	Verbose    bool // log every interposed call
	// KeepAllocator leaves PyTorch's caching allocator on. By default a
	// capture sets PYTORCH_NO_CUDA_MEMORY_CACHING=1 so that each tensor is
	// its own allocation and the recorded buffers are the tensors, not
	// 2 MiB segments.
	KeepAllocator bool
	Stdin         io.Reader
	Stdout        io.Writer
	Stderr        io.Writer
	Env           []string // the program's environment (default os.Environ())
	// Command is the tcsim command line, kept in session.json.
	Command string
}

// Session is what Record wrote about the run: session.json in the raw
// directory.
type Session struct {
	Command     []string `json:"command"`    // the program and its arguments
	Date        string   `json:"date"`       // RFC 3339, UTC
	ExitCode    int      `json:"exit_code"`  // the program's
	CacheDirs   []string `json:"cache_dirs"` // Triton and Inductor caches searched for PTX
	Compiler    string   `json:"compiler"`   // the C compiler that built the interposer
	Driver      string   `json:"driver"`     // /proc/driver/nvidia/version, first line
	Kernel      string   `json:"kernel,omitempty"`
	Launch      int      `json:"launch"`
	Environment []string `json:"environment"` // the variables the capture set
	// TcsimCommand is the tcsim command line that made the recording.
	TcsimCommand string `json:"tcsim_command,omitempty"`
}

// RecordingCommand is the tcsim command line that made the recording (or
// one equivalent to it, for records that did not keep it).
func (s *Session) RecordingCommand() string {
	if s.TcsimCommand != "" {
		return s.TcsimCommand
	}
	if len(s.Command) == 0 {
		return ""
	}
	parts := []string{"tcsim", "capture", "-o", "DIR"}
	if s.Kernel != "" {
		parts = append(parts, "--kernel", launch.ShellQuote(s.Kernel))
	}
	if s.Launch >= 0 {
		parts = append(parts, "--launch", strconv.Itoa(s.Launch))
	}
	parts = append(parts, "--")
	for _, a := range s.Command {
		parts = append(parts, launch.ShellQuote(a))
	}
	return strings.Join(parts, " ")
}

// BuildInterposer writes the interposer's source into dir and compiles it
// with the machine's C compiler; it returns the shared library's path.
func BuildInterposer(dir, cc string) (lib, compiler string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	src := filepath.Join(dir, "interpose.c")
	if err := os.WriteFile(src, InterposerSource, 0o644); err != nil {
		return "", "", err
	}
	lib = filepath.Join(dir, "libtcsim_capture.so")
	cands := []string{cc}
	if cc == "" {
		cands = []string{os.Getenv("CC"), "cc", "gcc", "clang"}
	}
	var tried []string
	for _, c := range cands {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			tried = append(tried, c)
			continue
		}
		cmd := exec.Command(path, "-shared", "-fPIC", "-O2", "-o", lib, src, "-ldl", "-lpthread")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", "", fmt.Errorf("compiling the driver interposer with %s: %v\n%s", path, err, out)
		}
		return lib, path, nil
	}
	return "", "", fmt.Errorf("no C compiler found (tried %s): tcsim capture compiles its driver interposer with one; install gcc or pass --cc", strings.Join(tried, ", "))
}

// FindCC returns the C compiler BuildInterposer would use, or "".
func FindCC(cc string) string {
	cands := []string{cc}
	if cc == "" {
		cands = []string{os.Getenv("CC"), "cc", "gcc", "clang"}
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

func setEnv(env []string, key, val string) []string {
	prefix := key + "="
	for i, e := range env {
		if strings.HasPrefix(e, prefix) {
			env[i] = prefix + val
			return env
		}
	}
	return append(env, prefix+val)
}

func getEnv(env []string, key string) (string, bool) {
	prefix := key + "="
	for _, e := range env {
		if strings.HasPrefix(e, prefix) {
			return e[len(prefix):], true
		}
	}
	return "", false
}

// Record runs argv with the interposer and the Python module injected,
// writing raw records into rawDir, then extracts the PTX of the recorded
// modules (ExtractPTX). It returns the program's exit code.
func Record(rawDir string, argv []string, o Options) (*Session, error) {
	if len(argv) == 0 {
		return nil, errors.New("no program to run (tcsim capture -o DIR -- PROGRAM ARGS...)")
	}
	abs, err := filepath.Abs(rawDir)
	if err != nil {
		return nil, err
	}
	rawDir = abs
	if err := os.MkdirAll(rawDir, 0o755); err != nil {
		return nil, err
	}
	tool := filepath.Join(rawDir, "tool")
	lib, cc := o.Interposer, "(prebuilt)"
	if lib == "" {
		var err error
		if lib, cc, err = BuildInterposer(tool, o.CC); err != nil {
			return nil, err
		}
	}
	py := filepath.Join(tool, "python")
	if err := os.MkdirAll(py, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(py, "tcsim_capture.py"), PythonModule, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(py, "sitecustomize.py"), SiteCustomize, 0o644); err != nil {
		return nil, err
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	var set []string
	put := func(k, v string) {
		env = setEnv(env, k, v)
		set = append(set, k+"="+v)
	}
	pre := lib
	if old, ok := getEnv(env, "LD_PRELOAD"); ok && old != "" {
		pre += ":" + old
	}
	put("LD_PRELOAD", pre)
	put("TCSIM_CAPTURE_DIR", rawDir)
	pp := py
	if old, ok := getEnv(env, "PYTHONPATH"); ok && old != "" {
		pp += ":" + old
	}
	put("PYTHONPATH", pp)
	if o.Kernel != "" {
		put("TCSIM_CAPTURE_KERNEL", o.Kernel)
	}
	if o.Launch >= 0 {
		put("TCSIM_CAPTURE_LAUNCH", strconv.Itoa(o.Launch))
	}
	if o.Max > 0 {
		put("TCSIM_CAPTURE_MAX", strconv.Itoa(o.Max))
	}
	if o.MaxBuffer > 0 {
		put("TCSIM_CAPTURE_MAX_BUFFER", strconv.FormatInt(o.MaxBuffer, 10))
	}
	if o.MaxTotal > 0 {
		put("TCSIM_CAPTURE_MAX_TOTAL", strconv.FormatInt(o.MaxTotal, 10))
	}
	if o.Verbose {
		put("TCSIM_CAPTURE_VERBOSE", "1")
	}
	var caches []string
	for _, c := range []struct{ key, dir string }{{"TRITON_CACHE_DIR", "triton-cache"}, {"TORCHINDUCTOR_CACHE_DIR", "inductor-cache"}} {
		if v, ok := getEnv(env, c.key); ok && v != "" {
			caches = append(caches, v)
			continue
		}
		d := filepath.Join(rawDir, c.dir)
		put(c.key, d)
		caches = append(caches, d)
	}
	if home, err := os.UserHomeDir(); err == nil {
		caches = append(caches, filepath.Join(home, ".triton", "cache"))
	}
	if !o.KeepAllocator {
		if _, ok := getEnv(env, "PYTORCH_NO_CUDA_MEMORY_CACHING"); !ok {
			put("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")
		}
	}
	s := &Session{Command: argv, Date: time.Now().UTC().Format(time.RFC3339), CacheDirs: caches, Compiler: cc,
		Driver: driverVersion(), Kernel: o.Kernel, Launch: o.Launch, Environment: set, TcsimCommand: o.Command}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	runErr := cmd.Run()
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee):
		s.ExitCode = ee.ExitCode()
	default:
		return nil, fmt.Errorf("running %s: %w", argv[0], runErr)
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(filepath.Join(rawDir, "session.json"), append(b, '\n'), 0o644); err != nil {
		return s, err
	}
	if err := ExtractPTX(rawDir, caches, o.Stderr); err != nil {
		return s, err
	}
	extractExePTX(rawDir, o.Stderr)
	return s, nil
}

// extractExePTX is the fallback for launches whose module image the
// interposer did not see: the PTX embedded in the program's executable,
// extracted with cuobjdump into exe-PID.d.
func extractExePTX(rawDir string, logw io.Writer) {
	ls, procs, err := ReadRaw(rawDir)
	if err != nil {
		return
	}
	tool, err := exec.LookPath("cuobjdump")
	if err != nil {
		return
	}
	done := map[int]bool{}
	for _, l := range ls {
		if done[l.PID] || procs[l.PID] == nil || procs[l.PID].Exe == "" {
			continue
		}
		if _, _, err := FindPTX(rawDir, l); err == nil {
			continue
		}
		done[l.PID] = true
		d := filepath.Join(rawDir, fmt.Sprintf("exe-%d.d", l.PID))
		if err := os.MkdirAll(d, 0o755); err != nil {
			continue
		}
		cmd := exec.Command(tool, "-xptx", "all", procs[l.PID].Exe)
		cmd.Dir = d
		out, err := cmd.CombinedOutput()
		src := fmt.Sprintf("the program's executable %s, extracted with cuobjdump -xptx all", procs[l.PID].Exe)
		if err != nil {
			src = fmt.Sprintf("no PTX: cuobjdump -xptx all %s: %v: %s", procs[l.PID].Exe, err, strings.TrimSpace(string(out)))
		}
		os.WriteFile(filepath.Join(d, "source.txt"), []byte(src+"\n"), 0o644)
		if logw != nil {
			fmt.Fprintf(logw, "tcsim capture: %s\n", src)
		}
	}
}

// driverVersion is the NVIDIA kernel module's version line, when there is one.
func driverVersion() string {
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(line))
}

// DriverNumber picks "580.159.04" out of the driver's version line.
func DriverNumber(line string) string {
	for _, f := range strings.Fields(line) {
		parts := strings.Split(f, ".")
		if len(parts) < 2 {
			continue
		}
		ok := true
		for _, p := range parts {
			if _, err := strconv.Atoi(p); err != nil {
				ok = false
			}
		}
		if ok {
			return f
		}
	}
	return ""
}
