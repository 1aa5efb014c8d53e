package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/render"
	"github.com/tcsim/tcsim/sim"
	"github.com/tcsim/tcsim/tui"
)

type tuiFlags struct {
	view, smem, desc, snapshot, size, keys string
	mma, noColor                           bool
	scale                                  int

	// the kernel stepper
	run, trace, schedule string
	caseDir              string
	seed                 uint64
	launch               launch.LaunchFlags
}

func init() {
	// A bare `tcsim` opens the explorer.
	interactive = func(e *env) error { return runTUI(e, &tuiFlags{}, nil) }
	register(&command{
		name:    "tui",
		args:    "[flags] [ATOM|LAYOUT]",
		summary: "open the interactive explorer (also what a bare 'tcsim' does)",
		help: `Opens the interactive explorer in the terminal. Views (tab, or the digit
keys, switches between them; ? opens the key page, the view's keys first;
q or ctrl+c quits; hjkl and g/G move wherever the arrows and home/end do):

  1 Layout      pick an atom with a fuzzy filter (/) or type a CuTe layout;
                cells coloured by thread (hue = warp, shade = lane), warp,
                lane, value or register (c); zoom with + and -; the side
                panel shows the cursor cell's tid, warp, lane, register,
                every owner of a broadcast, and its bitmath with the numbers
                substituted; m shows an MMA's A, B and C placed as CuTe
                places them.
  2 Bitmath     the derived formulas in C, PTX, Python or Go (L), the F2
                matrix with lane, warp and value bits labelled, and a box (e)
                that checks your own formula and names the first wrong
                (tid, v).
  3 Swizzle     a shared-memory layout (s) byte by bank under an access
                pattern (a): ld/st.shared from a fragment (f), ldmatrix,
                wgmma core-matrix reads, a TMA box; conflicts per phase
                ([ and ] step through the phases).
  4 Descriptor  paste a descriptor (e opens the editor empty: a paste
                replaces the value) or edit its fields (arrows); decoded
                fields, validation findings, and the core matrices it reads
                drawn over the operand tile or the shared-memory bytes (v).
                A CUtensorMap (256 hex digits, or --desc FILE of its 128
                bytes) is decoded field by field, with its checks (x: the
                bytes the kernel arms).
  5 Stepper     a PTX kernel simulated instruction by instruction (--run
                and --launch), or a trace replayed (--trace), or O to open
                a kernel, launch file, trace or case directory from inside:
                the source with each warp's next line and the .cu/.py line
                behind the cursor (L shows the .loc and inline-asm lines it
                hides; / searches), and panes (] and [) for the selected
                thread's registers, the fragment of a wgmma, ldmatrix or
                tcgen05 operand with its values, shared memory, Tensor
                Memory, the async operations in flight with the mbarrier
                phases, the warps, and the hazards (enter on one jumps to
                its line). s steps the next warp, w the selected warp, r
                runs to a breakpoint (b sets one on the source line), u
                until the cursor's line, H to the next hazard (or
                breakpoint), p steps back (P to the last stop), : goes to a
                line, t/T and >/< pick the thread and the warp; esc stops a
                long run or step back. Under 100 columns the panes stack.

Mouse: a click selects a cell or a tab, the wheel scrolls (shift+wheel
sideways). NO_COLOR (or --no-color) draws without colours; the cursor and
the selected thread's cells are still marked with reverse video and
underlines.

The stepper takes the launch description of 'tcsim run': --run KERNEL.ptx
(or KERNEL.ptx as the argument, or the launch file's "ptx"), --launch FILE,
and --kernel, --grid, --block, --cluster, --param and --buffer overriding
it (the dynamic shared memory comes from the launch file). It simulates
one CTA (or cluster) at a time, in grid order: --grid 1 keeps a session
short; after the last instruction the panes keep showing the last CTA.
--case DIR opens the stepper on a case written by tcsim capture or tcsim
record (its kernel.ptx and launch.json). --trace FILE replays a trace written by 'tcsim run KERNEL.ptx --trace FILE
--trace-values' without simulating: the panes show what the trace holds
(registers, async operations, mbarrier phases and hazards; no memory).
The live stepper lets each warp run one instruction per turn; 'tcsim run'
runs 64 unless --quantum 1 is given, so record with --quantum 1 to replay
the same interleaving (it decides where a race is reported).

--snapshot FILE draws one screen without a terminal, after the keys of
--keys, at --size: FILE.png is a picture drawn by tcsim's own renderer (the
README's screenshots), FILE.ansi keeps the colours as escape codes, any
other name (or - for stdout) is plain text. A key script is key names
separated by blanks (enter, tab, esc, up, pgdown, ctrl+c, a single
character), "text" in double quotes to type it, and click:X,Y,
wheelup:X,Y, wheeldown:X,Y for the mouse.

Examples:
  tcsim
  tcsim tui wgmma.m64n256.d.f32
  tcsim tui --mma mma.sync.m16n8k16
  tcsim tui --view desc --desc 0x4000004000010040
  tcsim tui --view swizzle --snapshot swizzle.png --size 120x36 --keys 'a a ]'
  tcsim tui --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1
  tcsim tui --run fixtures/sim/broken/gemm_missing_fence.ptx --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1
  tcsim run --launch fixtures/sim/launch/gemm_tma_wgmma.json --grid 1 --trace run.jsonl --trace-values && tcsim tui --trace run.jsonl`,
		setup: func(fs *flag.FlagSet) any {
			f := &tuiFlags{}
			fs.StringVar(&f.view, "view", "", "the view to open: layout, bitmath, swizzle, desc or stepper")
			fs.BoolVar(&f.mma, "mma", false, "open the layout view on the MMA of ATOM (A, B and C together), e.g. --mma mma.sync.m16n8k16")
			fs.StringVar(&f.smem, "smem", "", "the swizzle view's shared-memory layout: an smem atom or 'LAYOUT bBITS' (default "+tui.DefaultSMEM+")")
			fs.StringVar(&f.desc, "desc", "", "the descriptor view's value as tcsim desc reads it (default "+tui.DefaultDesc+"): a value, a CUtensorMap as 256 hex digits, or a file of its 128 bytes")
			fs.StringVar(&f.snapshot, "snapshot", "", "draw one screen to FILE (.png picture, .ansi with colours, else text; - for stdout) instead of opening the terminal")
			fs.StringVar(&f.size, "size", "100x32", "the screen size of --snapshot, COLSxROWS")
			fs.StringVar(&f.keys, "keys", "", "keys to press before --snapshot takes the screen, e.g. 'tab \"e\" down'")
			fs.IntVar(&f.scale, "scale", 2, "pixel scale of a --snapshot PNG")
			fs.BoolVar(&f.noColor, "no-color", false, "draw without colours (as NO_COLOR does)")
			fs.StringVar(&f.run, "run", "", "open the stepper on the PTX `KERNEL` (with --launch)")
			fs.StringVar(&f.caseDir, "case", "", "open the stepper on the case `DIR` (written by tcsim capture or tcsim record)")
			fs.StringVar(&f.trace, "trace", "", "open the stepper on a trace `FILE` written by tcsim run --trace")
			fs.StringVar(&f.schedule, "schedule", "lazy", "the stepper's schedule `mode`: lazy, latest, eager or random")
			fs.Uint64Var(&f.seed, "seed", 1, "seed of the random schedule")
			fs.StringVar(&f.launch.File, "launch", "", "the stepper's JSON launch `file` (as for tcsim run)")
			fs.Var(&f.launch.Kernel, "kernel", "the .entry `name` to launch")
			fs.Var(&f.launch.Grid, "grid", "grid shape `X,Y,Z` (overrides the launch file)")
			fs.Var(&f.launch.Block, "block", "block shape `X,Y,Z`")
			fs.Var(&f.launch.Cluster, "cluster", "cluster shape `X,Y,Z`")
			fs.Var(&f.launch.Params, "param", "a kernel parameter `spec` (as for tcsim run)")
			fs.Var(&f.launch.Buffers, "buffer", "a device buffer `NAME=buf:...` that is not a parameter")
			return f
		},
		run: func(e *env, opts any, args []string) error { return runTUI(e, opts.(*tuiFlags), args) },
	})
}

func runTUI(e *env, f *tuiFlags, args []string) error {
	cfg := tui.Config{
		View:    f.view,
		Subject: strings.TrimSpace(strings.Join(args, " ")),
		MMA:     f.mma,
		SMEM:    f.smem,
		Desc:    f.desc,
		NoColor: f.noColor || e.getenv("NO_COLOR") != "",
	}
	if cfg.Subject != "" && f.run == "" && len(args) == 1 && strings.EqualFold(filepath.Ext(cfg.Subject), ".ptx") {
		// tcsim tui KERNEL.ptx --launch ...: as tcsim run takes it.
		f.run, cfg.Subject = cfg.Subject, ""
	}
	if err := stepperConfig(&cfg, f); err != nil {
		return err
	}
	if cfg.MMA && cfg.Subject == "" {
		return usagef("--mma needs an operand atom or an instruction shape, e.g. tcsim tui --mma mma.sync.m16n8k16")
	}
	if f.snapshot != "" {
		return tuiSnapshot(e, cfg, f)
	}
	if f.keys != "" {
		return usagef("--keys applies to --snapshot")
	}
	// Open everything first: a bad subject or kernel is reported before
	// the terminal is taken over.
	if _, err := tui.New(cfg); err != nil {
		return tuiError(cfg, err)
	}
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return usagef("the explorer needs a terminal (stdin and stdout are not both terminals); run 'tcsim demo' for a tour of what tcsim does (no files needed), 'tcsim --help' for the commands, or 'tcsim tui --snapshot -' to print a screen")
	}
	return tui.Run(cfg, in, out, os.Environ())
}

// tuiError classifies an error of tui.New: a kernel that does not compile
// or launch fails with exit status 1; a trace that is not one is an input
// error, and the rest (an unknown view, atom or layout) are usage errors:
// both exit status 2.
func tuiError(cfg tui.Config, err error) error {
	var le *tui.LoadError
	if errors.As(err, &le) {
		if cfg.Trace != "" && cfg.Kernel == nil {
			return badInput(err)
		}
		return err
	}
	return usagef("%v", err)
}

// stepperConfig reads the stepper's flags: a kernel and its launch, or a
// trace file.
func stepperConfig(cfg *tui.Config, f *tuiFlags) error {
	if f.caseDir != "" {
		if err := applyCase(f.caseDir, &f.launch, &f.run); err != nil {
			return err
		}
	}
	kernel := f.run != "" || f.launch.File != ""
	if !kernel {
		if f.launch.Kernel.String() != "" || f.launch.Grid.String() != "" || f.launch.Block.String() != "" ||
			f.launch.Cluster.String() != "" || len(f.launch.Params) > 0 || len(f.launch.Buffers) > 0 {
			return usagef("--kernel, --grid, --block, --cluster, --param and --buffer describe the stepper's launch: give --run KERNEL.ptx or --launch FILE too")
		}
	}
	if kernel && f.trace != "" {
		return usagef("--trace replays a trace; --run and --launch simulate a kernel: give one or the other")
	}
	if _, err := sim.ParseSchedule(f.schedule); err != nil {
		return usagef("--schedule: %v", err)
	}
	cfg.Trace = f.trace
	if !kernel {
		return nil
	}
	var args []string
	if f.run != "" {
		args = []string{f.run}
	}
	if f.launch.File == "" && (f.launch.Grid.String() == "" || f.launch.Block.String() == "") {
		return usagef("--run %s needs its launch: --launch FILE (a JSON launch as for tcsim run), or --grid and --block (with --param for each kernel parameter)", f.run)
	}
	path, src, l, _, err := prepareLaunch(&f.launch, args)
	if err != nil {
		return err
	}
	cfg.Kernel = &tui.KernelConfig{Path: path, Source: src, Launch: l, Schedule: f.schedule, Seed: f.seed}
	return nil
}

func tuiSnapshot(e *env, cfg tui.Config, f *tuiFlags) error {
	w, h, err := parseSize(f.size)
	if err != nil {
		return err
	}
	msgs, err := tui.ParseKeys(f.keys)
	if err != nil {
		return usagef("--keys: %v", err)
	}
	if f.scale < 1 || f.scale > 8 {
		return usagef("--scale %d: must be between 1 and 8", f.scale)
	}
	m, err := tui.Snapshot(cfg, w, h, msgs)
	if err != nil {
		return tuiError(cfg, err)
	}
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(f.snapshot)) {
	case ".png":
		scr, err := m.Screen()
		if err != nil {
			return err
		}
		if err := render.WriteScreenPNG(&buf, scr, f.scale); err != nil {
			return err
		}
	case ".ansi":
		buf.WriteString(m.ANSI())
		buf.WriteString("\x1b[0m\n")
	default:
		buf.WriteString(m.Plain())
	}
	if f.snapshot == "-" {
		_, err = io.Copy(e.stdout, &buf)
		return err
	}
	if err := os.WriteFile(f.snapshot, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s (%dx%d)\n", f.snapshot, w, h)
	return nil
}

// parseSize reads "COLSxROWS".
func parseSize(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(strings.TrimSpace(a))
	h, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || w < 20 || h < 8 || w > 1000 || h > 1000 {
		return 0, 0, usagef("--size %q: want COLSxROWS between 20x8 and 1000x1000, e.g. 100x32", s)
	}
	return w, h, nil
}
