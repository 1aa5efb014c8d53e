package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/launch"
)

func init() {
	register(&command{
		name:    "record",
		args:    "KERNEL.ptx --case DIR [--force] <launch flags>",
		summary: "run a kernel on the GPU and record it as a fixture case that CI replays",
		help: launch.LaunchFlagsHelp + `

record runs the kernel once on the GPU (as 'tcsim gpu run' does) and writes a
fixture case into DIR (e.g. fixtures/<group>/<name>):
  kernel.ptx        the PTX
  launch.json       the launch description (generated inputs stay generators)
  inputs/           buffers loaded from files, copied in (.bin, or .bin.gz)
  outputs/          every output buffer after the launch (.bin, or .bin.gz)
  provenance.json   GPU, driver and CUDA versions, date, tcsim version, the
                    command, the JIT info log and the kernel's attributes
  MANIFEST.sha256   the sha256 of every file (sha256sum -c works), so that
                    hand edits are detected
Without --out every buffer is recorded. An existing case is replaced only with
--force. See fixtures/README.md.`,
		setup: func(fs *flag.FlagSet) any {
			o := &recordOpts{}
			o.launch.Register(fs)
			fs.StringVar(&o.dir, "case", "", "the case `directory` to write, e.g. fixtures/gpu/saxpy")
			fs.BoolVar(&o.force, "force", false, "replace an existing case")
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			fs.BoolVar(&o.quiet, "q", false, "do not print the JIT's info log")
			return o
		},
		run: runRecord,
	})
}

type recordOpts struct {
	launch launch.LaunchFlags
	dir    string
	force  bool
	device int
	quiet  bool
}

func runRecord(e *env, opts any, args []string) error {
	o := opts.(*recordOpts)
	if o.dir == "" {
		return usagef("missing --case DIR (where to write the case, e.g. fixtures/gpu/saxpy)")
	}
	if ents, err := os.ReadDir(o.dir); err == nil && len(ents) > 0 && !o.force {
		return fmt.Errorf("%s exists and is not empty; use --force to re-record it", o.dir)
	}
	path, ptx, l, b, err := prepareLaunch(&o.launch, args)
	if err != nil {
		return err
	}
	for _, out := range l.Outputs {
		if out.File != "" {
			return usagef("--out %s: record stores outputs in the case; drop =%s", out, out.File)
		}
	}
	command := recordCommand(path, l, o.dir)
	d, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer d.Close()
	res, err := d.Run(path, ptx, l, gpu.RunOptions{})
	if res != nil && !o.quiet {
		printJITLog(e.stderr, path, ptx, res.JITLog, false)
	}
	if err != nil {
		return err
	}
	c := &fixtures.Case{PTX: ptx, Launch: l.Clone()}
	// Outputs are stored by name; the launch's output list follows them.
	c.Launch.Outputs = nil
	for _, r := range res.Outputs {
		typ := launch.InvalidType
		for _, lo := range l.Outputs {
			if j, err := b.Resolve(lo.Param); err == nil && j == r.Index {
				typ = lo.Type
			}
		}
		c.Launch.Outputs = append(c.Launch.Outputs, launch.Output{Param: r.Name, Type: typ})
		c.Outputs = append(c.Outputs, fixtures.CaseOutput{Param: r.Name, Data: r.Data})
	}
	i := d.Info
	c.Provenance = d.Provenance(Version, command, res)
	if err := c.Write(o.dir, o.force); err != nil {
		return err
	}
	back, err := fixtures.Load(o.dir)
	if err != nil {
		return fmt.Errorf("the case just written does not load: %w", err)
	}
	var names []string
	for _, out := range back.Outputs {
		names = append(names, fmt.Sprintf("%s (%d bytes)", out.Param, len(out.Data)))
	}
	fmt.Fprintf(e.stdout, "recorded %s: kernel %s on %s (%s, driver %s, CUDA %s)\n  outputs: %s\n",
		o.dir, res.Kernel, i.Name, i.Arch(), i.DriverVersion, i.CUDA(), strings.Join(names, ", "))
	return nil
}

// recordCommand is the command line that reproduces the recording.
func recordCommand(ptxPath string, l *launch.Launch, dir string) string {
	parts := []string{"tcsim", "record", launch.ShellQuote(ptxPath)}
	for _, a := range l.Args() {
		parts = append(parts, launch.ShellQuote(a))
	}
	parts = append(parts, "--case", launch.ShellQuote(dir))
	return strings.Join(parts, " ")
}
