package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tcsim/tcsim/gpu"
	isaptx "github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

func init() {
	register(&command{
		name:    "gpu",
		args:    "info | run",
		summary: "run PTX on an NVIDIA GPU through the CUDA driver (no CUDA toolkit needed)",
		help: `tcsim talks to the CUDA driver (libcuda.so.1) directly, loaded at run time;
the binary needs no cgo and no CUDA toolkit. Set TCSIM_LIBCUDA to load the
driver from another name or path.`,
		run: groupRun("gpu"),
	})
	register(&command{
		name:    "gpu info",
		args:    "[--device N] [--json] [--symbols]",
		summary: "describe the GPU and its driver",
		help: `Prints the GPU's name, compute capability, driver and CUDA versions, SM count,
shared memory limits, clocks and memory. --symbols lists how each CUDA driver
entry point was bound (the versioned ABI symbol found by dlsym, or
cuGetProcAddress).

Without a driver it fails with "no NVIDIA driver found (libcuda.so.1)".`,
		setup: func(fs *flag.FlagSet) any {
			o := &gpuInfoOpts{}
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			fs.BoolVar(&o.json, "json", false, "print JSON")
			fs.BoolVar(&o.symbols, "symbols", false, "list the driver entry points and how they were bound")
			return o
		},
		run: runGPUInfo,
	})
	register(&command{
		name:    "gpu run",
		args:    "KERNEL.ptx [--launch FILE] --grid X,Y,Z --block X,Y,Z [--cluster X,Y,Z] [--smem BYTES] [--param SPEC]... [--buffer SPEC]... [--out PARAM[:T][=FILE]]...",
		summary: "JIT-compile a PTX kernel, launch it once on the GPU and read its buffers back",
		help: launch.LaunchFlagsHelp + `

The launch is checked against the kernel's .param list before the GPU is
touched (count, sizes, tensor-map alignment); --dry-run stops there and prints
the parameter layout, so it works without a GPU. The JIT's info log (ptxas -v
output, and advisories such as C7515 "wgmma serialized" or C7517 "wait
injected") goes to stderr with PTX line numbers as FILE:LINE: its warnings
and coded advisories always, all of it with -v; -q hides it. (tcsim sets
CUDA_CACHE_DISABLE=1 unless it is set, so that the JIT runs ptxas, and
reports, every time.)
JIT errors show the failing PTX lines; a fault in the kernel reports the CUDA
error name and the kernel.

Example:
  tcsim gpu run gpu/testdata/saxpy.ptx --grid 8 --block 128 \
    --param n=u32:1000 --param a=f32:2.5 \
    --param x=buf:size=4096,fill=iota:f32 --param y=buf:size=4096,fill=const:f32:1 \
    --out y:f32`,
		setup: func(fs *flag.FlagSet) any {
			o := &gpuRunOpts{}
			o.launch.Register(fs)
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			fs.BoolVar(&o.quiet, "q", false, "do not print the JIT's info log")
			fs.BoolVar(&o.verbose, "v", false, "print the JIT's whole info log (ptxas -v), not only its warnings and advisories")
			fs.BoolVar(&o.dryRun, "dry-run", false, "check the launch against the PTX and print the parameter layout; do not run")
			fs.IntVar(&o.limit, "limit", 1024, "print at most `N` elements of each printed output")
			return o
		},
		run: runGPURun,
	})
}

type gpuInfoOpts struct {
	device        int
	json, symbols bool
}

type gpuRunOpts struct {
	launch  launch.LaunchFlags
	device  int
	quiet   bool
	verbose bool
	dryRun  bool
	limit   int
}

// openGPU opens a device, honoring TCSIM_LIBCUDA from the command's
// environment.
func openGPU(e *env, ordinal int) (*gpu.Device, error) {
	if lib := e.getenv(gpu.LibraryEnv); lib != "" {
		return gpu.OpenLibrary(lib, ordinal)
	}
	return gpu.Open(ordinal)
}

func mib(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// archNote says which architecture-specific targets run on the device.
func archNote(i gpu.Info) string {
	if i.Major >= 9 {
		return fmt.Sprintf("; %sa kernels run here", i.Arch())
	}
	return ""
}

func runGPUInfo(e *env, opts any, args []string) error {
	o := opts.(*gpuInfoOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	d, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer d.Close()
	i := d.Info
	if o.json {
		out := struct {
			gpu.Info
			Arch     string   `json:"Arch"`
			CUDA     string   `json:"CUDA"`
			Bindings []string `json:"Bindings,omitempty"`
		}{Info: i, Arch: i.Arch(), CUDA: i.CUDA()}
		if o.symbols {
			out.Bindings = d.Bindings()
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	w := e.stdout
	driver := i.DriverVersion
	if driver == "" {
		driver = "version unknown"
	}
	fmt.Fprintf(w, "GPU %d: %s\n", i.Ordinal, i.Name)
	fmt.Fprintf(w, "  compute capability  %d.%d (%s%s)\n", i.Major, i.Minor, i.Arch(), archNote(i))
	fmt.Fprintf(w, "  driver              %s, CUDA %s (%s)\n", driver, i.CUDA(), i.Library)
	clock := ""
	if i.ClockKHz > 0 {
		clock = fmt.Sprintf(" at up to %d MHz", i.ClockKHz/1000)
	}
	fmt.Fprintf(w, "  SMs                 %d%s\n", i.SMCount, clock)
	mem := mib(i.TotalMemory)
	if i.MemoryBusWidth > 0 {
		mem += fmt.Sprintf(", %d-bit bus", i.MemoryBusWidth)
	}
	if i.MemoryClockKHz > 0 {
		mem += fmt.Sprintf(" at %d MHz", i.MemoryClockKHz/1000)
	}
	if i.L2Bytes > 0 {
		mem += ", L2 " + mib(uint64(i.L2Bytes))
	}
	fmt.Fprintf(w, "  memory              %s\n", mem)
	fmt.Fprintf(w, "  shared memory       %s per block (%s with opt-in), %s per SM, %s reserved per block\n",
		mib(uint64(i.SharedPerBlock)), mib(uint64(i.SharedPerBlockOptin)), mib(uint64(i.SharedPerSM)), mib(uint64(i.ReservedSharedPerCTA)))
	fmt.Fprintf(w, "  registers           %d per block, %d per SM\n", i.RegistersPerBlock, i.RegistersPerSM)
	fmt.Fprintf(w, "  threads             %d per block, %d per SM, warp %d\n", i.MaxThreadsPerBlock, i.MaxThreadsPerSM, i.WarpSize)
	cl := "not supported"
	if i.ClusterLaunch {
		cl = "supported (up to 8 CTAs portable, 16 non-portable)"
	}
	fmt.Fprintf(w, "  cluster launch      %s\n", cl)
	if i.PCIBusID != "" {
		fmt.Fprintf(w, "  PCI                 %s\n", i.PCIBusID)
	}
	if o.symbols {
		fmt.Fprintln(w, "\ndriver entry points:")
		for _, b := range d.Bindings() {
			fmt.Fprintf(w, "  %s\n", b)
		}
	}
	return nil
}

// prepareLaunch reads the PTX and the launch description, and binds them.
// Everything here works without a GPU.
func prepareLaunch(lf *launch.LaunchFlags, args []string) (ptxPath string, ptx []byte, l *launch.Launch, b *launch.Binding, err error) {
	if len(args) > 1 {
		return "", nil, nil, nil, usagef("want one PTX file, got %d arguments", len(args))
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
		// name a missing kernel before what the launch lacks
		if _, err := os.Stat(arg); err != nil {
			if pe, ok := err.(*fs.PathError); ok {
				err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
			}
			return "", nil, nil, nil, usagef("the kernel %v", err)
		}
	}
	l, err = lf.Launch(arg)
	if err != nil {
		return "", nil, nil, nil, usagef("%v", err)
	}
	if l.PTX == "" {
		return "", nil, nil, nil, usagef("missing the PTX file (tcsim gpu run KERNEL.ptx ..., or \"ptx\" in the launch file)")
	}
	ptx, err = readPTXFile(l.PTX)
	if err != nil {
		// a missing or unreadable input file is a usage error (exit 2)
		return "", nil, nil, nil, usagef("%v", err)
	}
	mod, err := isaptx.ParseFile(l.PTX, ptx)
	if err != nil {
		return "", nil, nil, nil, err // PTX errors: a failed check
	}
	kernel, err := launch.FindKernel(mod, l.Kernel)
	if err != nil {
		// no such kernel, or several and no --kernel
		return "", nil, nil, nil, usagef("%v", err)
	}
	l.Kernel = kernel.Name // the mangled name, when it was given demangled
	b, err = l.Bind(kernel)
	if err != nil {
		return "", nil, nil, nil, usagef("%v", err)
	}
	return l.PTX, ptx, l, b, nil
}

// printLayout prints the bound parameters.
func printLayout(w io.Writer, b *launch.Binding) {
	fmt.Fprintf(w, "kernel %s: %d parameters, %d bytes of parameter space\n", demangle.Short(b.Kernel.Name), len(b.Params), b.Size)
	for _, p := range b.Params {
		fmt.Fprintf(w, "  %2d  offset %3d  %-36s  %s\n", p.Index, p.Offset, p.Decl.Decl(), p.Param)
	}
	for _, p := range b.Extra {
		fmt.Fprintf(w, "      buffer      %-36s  %s\n", p.Name, p.Param)
	}
}

func runGPURun(e *env, opts any, args []string) error {
	o := opts.(*gpuRunOpts)
	path, ptx, l, b, err := prepareLaunch(&o.launch, args)
	if err != nil {
		return err
	}
	if o.dryRun {
		if _, err := b.Placements(); err != nil {
			return err
		}
		printLayout(e.stdout, b)
		return nil
	}
	d, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer d.Close()
	res, runErr := d.Run(path, ptx, l, gpu.RunOptions{})
	if res != nil && !o.quiet {
		printJITLog(e.stderr, path, ptx, res.JITLog, o.verbose)
	}
	if runErr != nil {
		return runErr
	}
	return printRun(e, d, l, res, o.limit)
}

// printJITLog writes the JIT's info log with PTX lines mapped to
// file:line: all of it, or its notable messages.
func printJITLog(w io.Writer, name string, ptx []byte, log string, all bool) {
	msgs := gpu.ParseJITLog(log)
	if !all {
		var keep []gpu.JITMessage
		for _, m := range msgs {
			if m.Notable() {
				keep = append(keep, m)
			}
		}
		msgs = keep
	}
	fmt.Fprint(w, gpu.FormatJITMessages(name, ptx, msgs))
}

func printRun(e *env, d *gpu.Device, l *launch.Launch, res *gpu.Result, limit int) error {
	w := e.stdout
	i := d.Info
	fmt.Fprintf(w, "kernel %s on %s (%s): grid %s, block %s", demangle.Short(res.Kernel), i.Name, i.Arch(), l.Grid, l.Block)
	if !l.Cluster.IsZero() {
		fmt.Fprintf(w, ", cluster %s", l.Cluster)
	}
	fmt.Fprintf(w, ", %d B dynamic shared memory\n", l.SharedMem)
	a := res.Attrs
	fmt.Fprintf(w, "  %d registers/thread, %d B static shared, %d B local; %.3f ms (CUDA events)\n",
		a.Registers, a.StaticShared, a.Local, float64(res.Elapsed.Microseconds())/1000)
	for _, out := range l.Outputs {
		j, err := res.Binding.Resolve(out.Param)
		if err != nil {
			return err
		}
		r, err := res.Output(out.Param)
		if err != nil {
			return err
		}
		shape, err := outputShape(res.Binding, j, out, len(r.Data))
		if err != nil {
			return err
		}
		if err := emitOutput(w, res.Binding.Slot(j).Label(), out, r.Data, limit, shape, e.width); err != nil {
			return err
		}
	}
	return nil
}

// emitOutput writes an output buffer of a run (gpu run, tcsim run) to its
// --out file, and prints its values when it has no file or names a type:
// as rows when shape (rows, columns) is known, else eight to a line.
func emitOutput(w io.Writer, label string, out launch.Output, data []byte, limit int, shape [2]int, width int) error {
	if out.File != "" {
		if err := os.WriteFile(out.File, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d bytes written to %s\n", label, len(data), out.File)
	}
	if out.File == "" || out.Type != launch.InvalidType {
		if shape[0] > 0 {
			fmt.Fprintf(w, "%s, %d bytes, %d×%d row-major:\n", label, len(data), shape[0], shape[1])
			printRows(w, data, out.Type, shape[1], limit, width)
			return nil
		}
		fmt.Fprintf(w, "%s, %d bytes:\n", label, len(data))
		printValues(w, data, out.Type, limit)
	}
	return nil
}

// outputShape is the (rows, columns) of output out, launch slot i of size
// bytes: the shape it gives (:RxC), which must cover the buffer; else that
// of a tensor map that describes the whole buffer with elements of its
// type's size (a 2-D or higher tensor: rows are every dimension but the
// innermost); else zero.
func outputShape(b *launch.Binding, i int, out launch.Output, size int) ([2]int, error) {
	t := out.Type
	if t == launch.InvalidType {
		return [2]int{}, nil
	}
	if s := out.Shape; s[0] > 0 {
		if s[0]*s[1]*t.Size() != size {
			return s, usagef("--out %s: %d×%d .%s elements are %d bytes; buffer %s has %d (%d elements)", out, s[0], s[1], t, s[0]*s[1]*t.Size(), b.Slot(i).Label(), size, size/t.Size())
		}
		return s, nil
	}
	return tensorMapShape(b, i, t, size), nil
}

// tensorMapShape is the (rows, columns) a tensor map over all of launch
// slot i gives it with elements of t, or zero.
func tensorMapShape(b *launch.Binding, i int, t launch.ScalarType, size int) [2]int {
	for _, p := range b.Launch.Params {
		tm := p.TMap
		if p.Kind != launch.TensorMapParam || tm == nil || len(tm.Dims) < 2 || tm.Offset != 0 || tm.DType.Size() != t.Size() {
			continue
		}
		j, err := b.Resolve(tm.Buffer)
		if err != nil || j != i {
			continue
		}
		rows, dense := 1, true
		stride := tm.Dims[0] * uint64(t.Size())
		for k, d := range tm.Dims[1:] {
			if k < len(tm.Strides) && tm.Strides[k] != stride {
				dense = false
			}
			stride *= d
			rows *= int(d)
		}
		cols := int(tm.Dims[0])
		if dense && rows*cols*t.Size() == size {
			return [2]int{rows, cols}
		}
	}
	return [2]int{}
}

// printRows prints data as a matrix of rows of cols values of t, up to
// limit values (whole rows), fitted to a terminal of the given width (0: a
// file or a pipe, every column).
func printRows(w io.Writer, data []byte, t launch.ScalarType, cols, limit, width int) {
	size := t.Size()
	rows := len(data) / size / cols
	shown := min(rows, max(limit, 0)/cols)
	if shown == 0 && limit > 0 {
		shown = 1
	}
	if shown > 0 {
		printMatrix(w, shown, cols, func(r, j int) string {
			var bits uint64
			off := (r*cols + j) * size
			for b := size - 1; b >= 0; b-- {
				bits = bits<<8 | uint64(data[off+b])
			}
			return launch.FormatValue(t, bits)
		}, width, "--out PARAM=FILE writes all of it")
	}
	if shown < rows {
		fmt.Fprintf(w, "  ... %d more rows (--limit N, or --out PARAM=FILE for all of it)\n", rows-shown)
	}
}

// printValues prints data as values of t, eight a line with the index of
// the first, or as hex bytes when t is InvalidType.
func printValues(w io.Writer, data []byte, t launch.ScalarType, limit int) {
	size, perLine := 1, 16
	if t != launch.InvalidType {
		size, perLine = t.Size(), 8
	}
	n := len(data) / size
	shown := min(n, max(limit, 0))
	for k := 0; k < shown; k += perLine {
		var parts []string
		for j := k; j < min(k+perLine, shown); j++ {
			if t == launch.InvalidType {
				parts = append(parts, fmt.Sprintf("%02x", data[j]))
				continue
			}
			var bits uint64
			for b := size - 1; b >= 0; b-- {
				bits = bits<<8 | uint64(data[j*size+b])
			}
			parts = append(parts, launch.FormatValue(t, bits))
		}
		fmt.Fprintf(w, "  [%d] %s\n", k, strings.Join(parts, " "))
	}
	if shown < n {
		fmt.Fprintf(w, "  ... %d more (--limit N, or --out PARAM=FILE for all of it)\n", n-shown)
	}
	if rem := len(data) % size; rem != 0 {
		fmt.Fprintf(w, "  (%d trailing bytes)\n", rem)
	}
}
