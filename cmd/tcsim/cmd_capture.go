package main

import (
	"flag"
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcsim/tcsim/capture"
)

func init() {
	register(&command{
		name:    "capture",
		args:    "-o DIR [--kernel REGEX] [--launch N] -- PROGRAM ARGS...",
		summary: "record kernel launches of a real program on the GPU as cases tcsim replays on the CPU",
		help: `capture runs an unmodified program on a GPU machine and records the
kernel launches it selects, each as a fixture case under DIR that 'tcsim
replay' runs on the CPU and compares with what the GPU wrote.

It compiles a small CUDA driver interposer (C source inside tcsim) with the
machine's C compiler and injects it with LD_PRELOAD; it sees launches made
through the driver API, the CUDA runtime (cudaLaunchKernel, cudaLaunchKernelEx
with cluster dimensions), CUTLASS, PyTorch and Triton. For every selected
launch it synchronizes, copies the device memory the launch can reach (the
allocations that the parameters and the tensor maps among them point into)
to the host, launches, synchronizes, and copies the same memory again. The
Python module tcsim_capture is put on PYTHONPATH: in a Python program it
names the PTX and the arguments of Triton launches (torch.compile included).

A kernel must come with PTX: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a]
keeps it in the binary (code=sm_90a alone keeps SASS only). Triton and
Inductor kernels: the PTX comes from their compiler caches, which capture
points at DIR/raw unless TRITON_CACHE_DIR / TORCHINDUCTOR_CACHE_DIR are set.

  -o DIR            where the cases go (DIR/<kernel>-<n>); raw records go to DIR/raw
  --kernel REGEX    capture launches of kernels whose name matches (POSIX ERE;
                    mangled names: 'device_kernel' matches CUTLASS 3.x kernels)
  --launch N        capture only the N-th matching launch (from 0)
  --max-buffer B    leave out allocations larger than B bytes (default 256 MiB)
  --keep-allocator  keep PyTorch's caching allocator (by default capture sets
                    PYTORCH_NO_CUDA_MEMORY_CACHING=1 so that buffers are tensors,
                    not 2 MiB segments); programs that use CUDA graphs
                    (torch.compile mode="reduce-overhead") need it
  --convert RAW     make cases from raw records written earlier (no program)

Exit status: the program's, or 1 when nothing could be captured; 2 for a bad
command line or a --convert directory that is missing.

Examples:
  tcsim capture -o cap --kernel device_kernel -- ./gemm 256 256 128
  tcsim capture -o cap --kernel matmul --launch 0 -- python3 matmul.py
  tcsim replay cap/matmul_kernel-0`,
		setup: func(fs *flag.FlagSet) any {
			o := &captureOpts{}
			fs.StringVar(&o.out, "o", "", "the `directory` for the cases")
			fs.StringVar(&o.kernel, "kernel", "", "capture kernels whose name matches `REGEX`")
			fs.IntVar(&o.launch, "launch", -1, "capture only the `N`-th matching launch")
			fs.IntVar(&o.max, "max", 8, "capture at most `N` launches")
			fs.Int64Var(&o.maxBuffer, "max-buffer", 0, "leave out allocations larger than `BYTES`")
			fs.Int64Var(&o.maxTotal, "max-total", 0, "copy at most `BYTES` per launch")
			fs.StringVar(&o.cc, "cc", "", "the C `compiler` for the interposer (default $CC, cc, gcc)")
			fs.BoolVar(&o.verbose, "v", false, "log every interposed driver call")
			fs.BoolVar(&o.keepAlloc, "keep-allocator", false, "keep PyTorch's caching allocator")
			fs.StringVar(&o.convert, "convert", "", "make cases from the raw records in `RAW` instead of running a program")
			fs.BoolVar(&o.force, "force", false, "replace existing cases")
			return o
		},
		run: runCapture,
	})
}

type captureOpts struct {
	out, kernel, cc, convert string
	launch, max              int
	maxBuffer, maxTotal      int64
	verbose, keepAlloc       bool
	force                    bool
}

func runCapture(e *env, opts any, args []string) error {
	o := opts.(*captureOpts)
	if o.out == "" {
		return usagef("missing -o DIR (where the captured cases go)")
	}
	raw := filepath.Join(o.out, "raw")
	cmdline := "tcsim " + strings.Join(os.Args[1:], " ")
	var sess *capture.Session
	if o.convert != "" {
		if len(args) > 0 {
			return usagef("--convert takes no program (got %q)", strings.Join(args, " "))
		}
		raw = o.convert
		if st, err := os.Stat(raw); err != nil {
			return err // missing or unreadable: exit status 2
		} else if !st.IsDir() {
			return usagef("--convert %s: not a directory (want the raw records a capture wrote, DIR/raw)", raw)
		}
	} else {
		if len(args) == 0 {
			return usagef("missing the program: tcsim capture -o DIR -- PROGRAM ARGS...")
		}
		var err error
		sess, err = capture.Record(raw, args, capture.Options{
			Kernel: o.kernel, Launch: o.launch, Max: o.max, MaxBuffer: o.maxBuffer, MaxTotal: o.maxTotal,
			CC: o.cc, Verbose: o.verbose, KeepAllocator: o.keepAlloc, Command: cmdline,
			Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		})
		if err != nil {
			return err
		}
	}
	res, err := capture.ConvertAll(raw, o.out, capture.ConvertOptions{Force: o.force, Command: cmdline, TcsimVersion: Version})
	if err != nil {
		return err
	}
	w := e.stdout
	if len(res) == 0 {
		fmt.Fprintf(w, "tcsim capture: no launch was captured (raw records in %s)\n", raw)
	}
	failed := 0
	for _, r := range res {
		if r.Err != nil {
			failed++
			fmt.Fprintf(w, "tcsim capture: launch %d of %s recorded in %s, not converted: %v\n", r.Launch.Index, shortKernel(r.Launch.Kernel), r.Launch.Dir, r.Err)
			continue
		}
		fmt.Fprintf(w, "tcsim capture: %s: %s\n", r.Dir, r.Summary)
	}
	if sess != nil && sess.ExitCode != 0 {
		for _, v := range sess.Environment {
			if v == "PYTORCH_NO_CUDA_MEMORY_CACHING=1" {
				return fmt.Errorf("the program exited with status %d (capture turned PyTorch's caching allocator off; a program that uses CUDA graphs, such as torch.compile with mode=\"reduce-overhead\", needs it: run again with --keep-allocator)", sess.ExitCode)
			}
		}
		return fmt.Errorf("the program exited with status %d", sess.ExitCode)
	}
	if len(res) == 0 || failed == len(res) {
		return fmt.Errorf("no case written")
	}
	return nil
}

func shortKernel(s string) string { return demangle.Short(s) }
