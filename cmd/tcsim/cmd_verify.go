package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/gpu/probe"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// defaultLayoutFixtures is where the layout probes are recorded.
const defaultLayoutFixtures = "fixtures/layouts"

func init() {
	register(&command{
		name:    "verify",
		args:    "layouts | tensormaps | approx",
		summary: "check tcsim's models against hardware (or against recorded hardware fixtures)",
		help:    "tcsim verify layouts checks the layout catalog, tcsim verify tensormaps the CUtensorMap model, tcsim verify approx the approximate-math model. See their --help.",
		run:     groupRun("verify"),
	})
	register(&command{
		name:    "verify layouts",
		args:    "[--gpu [--record DIR] [--device N]] [--fixtures DIR] [--only FILTER] [-q]",
		summary: "check every catalog layout against probe kernels run on the GPU, or against their recordings",
		help: `Checks the layout catalog atom by atom against what the hardware does.

With --gpu, tcsim generates the probe kernels (gpu/probe), runs each on the
GPU in a child process (a kernel fault ends a process's use of the GPU, and
then only that probe is lost), decodes the outputs and compares them with the
catalog cell by cell. With --record DIR it also writes each probe as a fixture
case, DIR/<probe>: the PTX, the launch, the inputs, the output and the
provenance (see fixtures/README.md).

Without --gpu it replays the recorded cases under --fixtures (default
fixtures/layouts; run from the repository root), with no GPU. A recording
whose PTX or inputs differ from what the probe generator makes now is an
error: re-record it.

Each probe makes ownership observable from exact integer data, independent
of the layout under test: accumulators from D = K*m and D = K*n passes,
register fragments from per-(thread, value) codes multiplied by an identity,
shared-memory operands from element-index codes read through real wgmma
descriptors (every swizzle and major-ness), ldmatrix from shared memory that
holds its own offsets, stmatrix from registers that hold their own (thread,
value). The probes and what each cannot separate: gpu/probe's package doc.

Atoms that need another architecture (tcgen05, Tensor Memory and the
sm_100a-only shared-memory layouts on an H100) are reported as "needs
sm_100a, not verified". The exit status is 1 when any atom mismatches or a
probe fails.`,
		setup: func(fs *flag.FlagSet) any {
			o := &verifyOpts{}
			fs.BoolVar(&o.gpu, "gpu", false, "run the probes on the GPU (default: replay the recorded fixtures)")
			fs.StringVar(&o.record, "record", "", "with --gpu, write each probe as a fixture case under `DIR`")
			fs.StringVar(&o.fixtures, "fixtures", defaultLayoutFixtures, "without --gpu, replay the recorded cases under `DIR`")
			fs.StringVar(&o.only, "only", "", "report only the atoms matching `FILTER` (words, as 'tcsim atoms FILTER'), and run only their probes")
			fs.Var(&o.cases, "case", "run or replay only the probe `NAME` (repeatable; see --list)")
			fs.BoolVar(&o.list, "list", false, "list the probes (target, CTAs, number of atom checks) and exit")
			fs.BoolVar(&o.quiet, "q", false, "print only the atoms that are not verified, and the summary")
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			fs.BoolVar(&o.inProcess, "in-process", false, "with --gpu, run every probe in this process (a fault then ends the run)")
			fs.StringVar(&o.child, "child", "", "(internal) run the probe `CASE` and record it under --record")
			fs.StringVar(&o.command, "command", "", "(internal) with --child, the recording `command` for the provenance")
			return o
		},
		run: runVerifyLayouts,
	})
}

type verifyOpts struct {
	cases     caseList
	list      bool
	gpu       bool
	record    string
	fixtures  string
	only      string
	quiet     bool
	device    int
	inProcess bool
	child     string
	command   string
}

func runVerifyLayouts(e *env, opts any, args []string) error {
	o := opts.(*verifyOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if o.child != "" {
		if o.record == "" {
			return usagef("--child needs --record DIR")
		}
		return runProbeChild(e, o)
	}
	if o.record != "" && !o.gpu {
		return usagef("--record needs --gpu (without it the probes are replayed, not run)")
	}
	if o.list {
		listProbes(e.stdout)
		return nil
	}
	atoms := catalog.All()
	if o.only != "" {
		if atoms = catalog.Filter(o.only); len(atoms) == 0 {
			return usagef("--only %q matches no atom", o.only)
		}
	}
	cases := casesFor(atoms)
	if len(o.cases) > 0 {
		var picked []*probe.Case
		covered := map[string]bool{}
		for _, name := range o.cases {
			c := probe.Lookup(name)
			if c == nil {
				return usagef("--case %q: no such probe (see tcsim verify layouts --list)", name)
			}
			picked = append(picked, c)
			for _, k := range c.Checks {
				covered[k.Atom] = true
			}
		}
		cases = picked
		var keep []catalog.Atom
		for _, a := range atoms {
			if covered[a.Name] {
				keep = append(keep, a)
			}
		}
		atoms = keep
	}
	var verdicts []probe.Verdict
	var err error
	if o.gpu {
		verdicts, err = verifyOnGPU(e, o, cases)
	} else {
		verdicts, err = verifyReplay(e, o, cases)
	}
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, a := range atoms {
		keep[a.Name] = true
	}
	var shown []probe.Verdict
	for _, v := range verdicts {
		if keep[v.Atom.Name] {
			shown = append(shown, v)
		}
	}
	printVerdicts(e.stdout, shown, o.quiet)
	bad := 0
	for _, v := range shown {
		if v.Status == probe.Mismatch || v.Status == probe.Failed {
			bad++
		}
	}
	if bad == 1 {
		return errors.New("1 atom did not verify")
	}
	if bad > 0 {
		return fmt.Errorf("%d atoms did not verify", bad)
	}
	return nil
}

func printVerdicts(w io.Writer, vs []probe.Verdict, quiet bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ATOM\tRESULT")
	for _, v := range vs {
		if quiet && (v.Status == probe.Verified || v.Status == probe.NeedsArch) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\n", v.Atom.Name, v.Text())
	}
	tw.Flush()
	fmt.Fprintln(w, probe.Summary(vs))
}

// casesFor lists the probe cases whose checks cover any of atoms.
func casesFor(atoms []catalog.Atom) []*probe.Case {
	want := map[string]bool{}
	for _, a := range atoms {
		for _, k := range probe.ChecksFor(a.Name) {
			want[k.Case] = true
		}
	}
	var out []*probe.Case
	for _, c := range probe.Cases() {
		if want[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

func verifyReplay(e *env, o *verifyOpts, cases []*probe.Case) ([]probe.Verdict, error) {
	if st, err := os.Stat(o.fixtures); err != nil {
		return nil, fmt.Errorf("no recorded layout probes at %s (run from the repository root, pass --fixtures DIR, or run them with --gpu): %w", o.fixtures, err)
	} else if !st.IsDir() {
		return nil, usagef("--fixtures %s: not a directory (want the directory of recorded layout probes, such as fixtures/layouts)", o.fixtures)
	}
	vs, recorded, err := probe.ReplayCases(o.fixtures, cases)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stdout, "replaying %d of %d layout probes recorded under %s%s\n", len(recorded), len(cases), o.fixtures, provenanceNote(recorded))
	return vs, nil
}

// listProbes prints every probe case and the atoms it checks.
func listProbes(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROBE\tTARGET\tCTAS\tCHECKS\tWHAT")
	for _, c := range probe.Cases() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", c.Name, c.Arch, c.Jobs, len(c.Checks), c.Title)
	}
	tw.Flush()
}

// caseList is a repeatable flag of probe names; commas separate names too.
type caseList []string

func (l *caseList) String() string { return strings.Join(*l, ",") }

func (l *caseList) Set(s string) error {
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			*l = append(*l, n)
		}
	}
	return nil
}

// provenanceNote says where the recordings came from, when they agree.
func provenanceNote(cs []*fixtures.Case) string {
	gpus := map[string]bool{}
	var p fixtures.Provenance
	for _, c := range cs {
		p = c.Provenance
		gpus[fmt.Sprintf("%s (%s), driver %s, CUDA %s", p.GPU, p.Arch, p.DriverVersion, p.CUDAVersion)] = true
	}
	if len(gpus) != 1 {
		return ""
	}
	date := p.Date
	if t, err := time.Parse(time.RFC3339, p.Date); err == nil {
		date = t.Format("2006-01-02")
	}
	return fmt.Sprintf(": %s (%s, driver %s, CUDA %s), %s", p.GPU, p.Arch, p.DriverVersion, p.CUDAVersion, date)
}

func verifyOnGPU(e *env, o *verifyOpts, cases []*probe.Case) ([]probe.Verdict, error) {
	d, err := openGPU(e, o.device)
	if err != nil {
		return nil, err
	}
	info := d.Info
	if !o.inProcess {
		d.Close()
		d = nil
	} else {
		defer d.Close()
	}
	fmt.Fprintf(e.stdout, "layout probes on GPU %d: %s (%s, driver %s, CUDA %s)\n", info.Ordinal, info.Name, info.Arch(), info.DriverVersion, info.CUDA())
	root := o.record
	if root == "" {
		tmp, err := os.MkdirTemp("", "tcsim-verify-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	var outcomes []probe.Outcome
	var caseErrs []probe.CaseError
	notRun := map[string]string{}
	exe, _ := os.Executable()
	for _, c := range cases {
		if !probe.Supports(c.Arch, info.Major, info.Minor) {
			notRun[c.Name] = fmt.Sprintf("needs %s; this GPU is %s", c.Arch, info.Arch())
			fmt.Fprintf(e.stdout, "  %-24s skipped: needs %s\n", c.Name, c.Arch)
			continue
		}
		start := time.Now()
		var err error
		if o.inProcess {
			err = recordProbe(e, d, c, root, recordCommandFor(o))
		} else {
			err = runChild(e, exe, c.Name, root, o)
		}
		var outs []probe.Outcome
		if err == nil {
			var out []byte
			if out, _, err = c.LoadRecorded(root); err == nil {
				outs = c.CheckOutput(out)
			}
		}
		status := "ok"
		if err != nil {
			caseErrs = append(caseErrs, probe.CaseError{Case: c.Name, Err: err})
			status = "FAILED: " + err.Error()
		} else {
			for _, out := range outs {
				if !out.OK() {
					status = "mismatch"
				}
			}
		}
		outcomes = append(outcomes, outs...)
		fmt.Fprintf(e.stdout, "  %-24s %4d CTAs  %-8s %.1fs\n", c.Name, c.Jobs, status, time.Since(start).Seconds())
		if d != nil && d.Broken() != nil {
			return nil, fmt.Errorf("the GPU context is unusable after %s: %w", c.Name, d.Broken())
		}
	}
	if o.record != "" {
		fmt.Fprintf(e.stdout, "recorded under %s\n", o.record)
	}
	return probe.Judge(outcomes, caseErrs, notRun), nil
}

func recordCommandFor(o *verifyOpts) string {
	cmd := "tcsim verify layouts --gpu"
	if o.record != "" {
		cmd += " --record " + launch.ShellQuote(o.record)
	}
	return cmd
}

// runChild runs one probe in a child process of this binary.
func runChild(e *env, exe, name, root string, o *verifyOpts) error {
	if exe == "" {
		return errors.New("cannot find this executable to run the probe in a child process (use --in-process)")
	}
	args := []string{"verify", "layouts", "--child", name, "--record", root, "--device", fmt.Sprint(o.device)}
	if o.record != "" {
		args = append(args, "--command", recordCommandFor(o))
	}
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = io.MultiWriter(&stderr, e.stderr)
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		msg = strings.TrimPrefix(msg, "tcsim verify layouts: ")
		if msg == "" {
			msg = err.Error()
		}
		return errors.New(msg)
	}
	return nil
}

// runProbeChild is the child: it runs one probe and records it.
func runProbeChild(e *env, o *verifyOpts) error {
	c := probe.Lookup(o.child)
	if c == nil {
		return usagef("--child %q: no such probe", o.child)
	}
	d, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer d.Close()
	command := o.command
	if command == "" {
		command = "tcsim verify layouts --gpu"
	}
	return recordProbe(e, d, c, o.record, command)
}

// recordProbe runs c on d and writes its case under root.
func recordProbe(e *env, d *gpu.Device, c *probe.Case, root, command string) error {
	res, err := d.Run(c.Name+".ptx", []byte(c.PTX), c.Launch(), gpu.RunOptions{})
	if res != nil {
		printJITLog(e.stderr, c.Name+".ptx", []byte(c.PTX), res.JITLog, false)
	}
	if err != nil {
		return err
	}
	out, err := res.Output("out")
	if err != nil {
		return err
	}
	fc := c.RecordCase(out.Data, d.Provenance(Version, command, res))
	return fc.Write(filepath.Join(root, c.Name), true)
}
