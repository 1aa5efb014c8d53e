package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/gpu/numrun"
	"github.com/tcsim/tcsim/isa/numfmt"
)

// tcsim num probe and its subcommands: the GPU probes of cvt (moved from
// cmd_num.go, which keeps the number-format commands).
func init() {
	register(&command{
		name: "num probe", args: "SUBCOMMAND ...", summary: "GPU probes of cvt: show, run, replay, and check legality",
		help: "Subcommands generate the probe kernels, run them on a GPU, replay recorded results against the model, and compare the legality table with ptxas.",
		run:  groupRun("num probe"),
	})
	register(&command{
		name: "num probe ptx", args: "[--random N] OPCODE", summary: "print a cvt probe's PTX kernel and input set",
		help: `Prints the PTX kernel that 'tcsim num probe run' runs for OPCODE, and a
comment line with its launch shape and input sizes. The inputs are every
edge case of the source format plus --random random ones (every pattern
for sources of at most 16 bits).

  tcsim num probe ptx cvt.rn.satfinite.e4m3x2.f32`,
		setup: func(fs *flag.FlagSet) any {
			return fs.Int("random", 1<<20, "random cases for inputs wider than 16 bits")
		},
		run: runNumProbePTX,
	})
	register(&command{
		name: "num probe run", args: "[--filter REGEXP] [--out FILE] [--random N]",
		summary: "run the cvt probes on GPU 0 and record the results",
		help: `Runs every cvt probe the H100 (sm_90a) can run, compares each output with the
model, prints the mismatches, and writes the records (SHA-256 of every output
buffer plus the stored cases) to --out. Needs an NVIDIA driver.`,
		setup: func(fs *flag.FlagSet) any {
			o := &probeRunOpts{}
			fs.StringVar(&o.filter, "filter", "", "only opcodes matching this regexp")
			fs.StringVar(&o.out, "out", "", "write the records to this file (gzip)")
			fs.IntVar(&o.random, "random", 0, "random cases per probe for wide inputs (0: 1<<20, 1<<16 for int-to-int)")
			return o
		},
		run: runNumProbeRun,
	})
	register(&command{
		name: "num probe check", args: "FILE", summary: "replay recorded cvt probe results against the model",
		help: `Reads records written by 'tcsim num probe run', regenerates each probe's inputs,
and compares the stored outputs case by case and the SHA-256 of the whole
output buffer with the model's.`,
		setup: func(fs *flag.FlagSet) any {
			o := &probeCheckOpts{}
			fs.StringVar(&o.filter, "filter", "", "only opcodes matching this regexp")
			fs.BoolVar(&o.full, "full", false, "recompute every random case for the SHA-256 (slow: about 5e8 cases)")
			return o
		},
		run: runNumProbeCheck,
	})
	register(&command{
		name: "num probe legality", args: "[--ptxas PATH] [--keep DIR]",
		summary: "compile legal and illegal cvt opcodes with ptxas and compare with the table",
		help: `Writes one small kernel for every legal cvt opcode on every target the table
allows, and for illegal ones (wrong target, PTX version or modifier), runs
ptxas on each and prints every case where ptxas and the table disagree.
Cases that need a newer PTX ISA than --max-ptx are skipped.
Exit status 1 when ptxas disagrees with the table on any case.`,
		setup: func(fs *flag.FlagSet) any {
			o := &legalityOpts{}
			fs.StringVar(&o.ptxas, "ptxas", "ptxas", "the ptxas to run")
			fs.StringVar(&o.keep, "keep", "", "keep the PTX files in this directory")
			fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "parallel ptxas runs")
			fs.IntVar(&o.maxPTX, "max-ptx", 90, "the newest PTX ISA version (times ten) the ptxas reads; newer cases are skipped")
			return o
		},
		run: runNumProbeLegality,
	})
}

func runNumProbePTX(e *env, opts any, args []string) error {
	if len(args) != 1 {
		return usagef("want OPCODE")
	}
	s, err := parseSpecArg(args[0])
	if err != nil {
		return err
	}
	p, err := numfmt.NewProbe(s, numfmt.ProbeOptions{Random: *opts.(*int)})
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, p.PTX)
	fmt.Fprintf(e.stdout, "// launch: grid %d, block %d; inputs %v bytes per case, output %d bytes per case; %d edge cases; on H100: %v\n",
		p.Grid, p.Block, p.InBytes, p.OutBytes, p.Edges, p.OnH100)
	return nil
}

type probeRunOpts struct {
	filter, out string
	random      int
}

func runNumProbeRun(e *env, opts any, args []string) error {
	o := opts.(*probeRunOpts)
	if len(args) > 0 {
		return usagef("num probe run takes flags only")
	}
	c := numrun.Campaign{Random: o.random}
	if o.filter != "" {
		re, err := regexp.Compile(o.filter)
		if err != nil {
			return usagef("bad --filter: %v", err)
		}
		c.Filter = re
	}
	dev, err := gpu.Open(0)
	if err != nil {
		return err
	}
	defer dev.Close()
	prov := dev.Provenance(Version, "tcsim num probe run "+strings.Join(os.Args[min(len(os.Args), 4):], " "), nil)
	var mu sync.Mutex
	bad := 0
	c.Progress = func(r *numrun.Result) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Err != nil:
			bad++
			fmt.Fprintf(e.stdout, "ERROR %s: %v\n", r.Spec, r.Err)
		case r.Check.Mismatches > 0:
			bad++
			fmt.Fprintf(e.stdout, "DIFF  %s: %d of %d cases differ\n", r.Spec, r.Check.Mismatches, r.Check.N)
			for _, m := range r.Check.Samples {
				fmt.Fprintf(e.stdout, "      %s\n", m)
			}
		default:
			fmt.Fprintf(e.stdout, "ok    %s: %d cases\n", r.Spec, r.Check.N)
		}
	}
	results := numrun.RunCampaign(dev, c, prov)
	var recs []*numfmt.Record
	total := 0
	for _, r := range results {
		if r.Record != nil {
			recs = append(recs, r.Record)
			total += r.Record.N
		}
	}
	fmt.Fprintf(e.stdout, "%d probes, %d cases, %d with errors or differences\n", len(results), total, bad)
	if o.out != "" {
		var buf bytes.Buffer
		if err := numfmt.WriteRecords(&buf, recs); err != nil {
			return err
		}
		if err := os.WriteFile(o.out, buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d records (%d bytes) to %s\n", len(recs), buf.Len(), o.out)
	}
	if bad > 0 {
		return fmt.Errorf("%d probes disagree with the model or failed", bad)
	}
	return nil
}

type probeCheckOpts struct {
	filter string
	full   bool
}

func runNumProbeCheck(e *env, opts any, args []string) error {
	o := opts.(*probeCheckOpts)
	if len(args) != 1 {
		return usagef("want FILE")
	}
	var re *regexp.Regexp
	if f := o.filter; f != "" {
		var err error
		if re, err = regexp.Compile(f); err != nil {
			return usagef("bad --filter: %v", err)
		}
	}
	fh, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer fh.Close()
	recs, err := numfmt.ReadRecords(fh)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", args[0], err))
	}
	bad, n := 0, 0
	for _, r := range recs {
		if re != nil && !re.MatchString(r.Spec) {
			continue
		}
		n++
		res, hashChecked, hashOK, err := r.Replay(o.full)
		switch {
		case err != nil:
			bad++
			fmt.Fprintf(e.stdout, "ERROR %s: %v\n", r.Spec, err)
		case res.Mismatches > 0 || (hashChecked && !hashOK):
			bad++
			fmt.Fprintf(e.stdout, "DIFF  %s: %d of %d stored cases differ; whole-buffer SHA-256 matches: %v\n", r.Spec, res.Mismatches, res.N, hashOK)
			for _, m := range res.Samples {
				fmt.Fprintf(e.stdout, "      %s\n", m)
			}
		case hashChecked:
			fmt.Fprintf(e.stdout, "ok    %s: %d stored cases and the SHA-256 of all %d\n", r.Spec, res.N, r.N)
		default:
			fmt.Fprintf(e.stdout, "ok    %s: %d stored cases of %d (--full checks the SHA-256 of all)\n", r.Spec, res.N, r.N)
		}
	}
	fmt.Fprintf(e.stdout, "%d records replayed, %d differ\n", n, bad)
	if bad > 0 {
		return fmt.Errorf("%d records disagree with the model", bad)
	}
	return nil
}

type legalityOpts struct {
	ptxas, keep string
	jobs        int
	maxPTX      int
}

func runNumProbeLegality(e *env, opts any, args []string) error {
	o := opts.(*legalityOpts)
	if len(args) > 0 {
		return usagef("num probe legality takes flags only")
	}
	if _, err := exec.LookPath(o.ptxas); err != nil {
		return fmt.Errorf("ptxas not found (%v): give --ptxas PATH", err)
	}
	dir := o.keep
	if dir == "" {
		d, err := os.MkdirTemp("", "tcsim-legality")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var cases []numfmt.LegalityCase
	skipped := 0
	for _, c := range numfmt.LegalityCases() {
		if c.PTXVersion > o.maxPTX {
			skipped++
			continue
		}
		cases = append(cases, c)
	}
	type verdict struct {
		ok  bool
		msg string
	}
	verdicts := make([]verdict, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, o.jobs))
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := filepath.Join(dir, fmt.Sprintf("%04d_%s_%s.ptx", i, strings.NewReplacer(".", "_", ":", "_").Replace(c.Text), c.Target))
			if err := os.WriteFile(name, []byte(c.PTX), 0o644); err != nil {
				verdicts[i] = verdict{false, err.Error()}
				return
			}
			cmd := exec.Command(o.ptxas, "-arch="+c.Target, name, "-o", os.DevNull)
			outb, err := cmd.CombinedOutput()
			msg := strings.TrimSpace(string(outb))
			if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
				msg = err.Error()
			}
			verdicts[i] = verdict{err == nil, msg}
		}()
	}
	wg.Wait()
	agree, disagree := 0, 0
	for i, c := range cases {
		v := verdicts[i]
		if v.ok == c.Legal {
			agree++
			continue
		}
		disagree++
		table := "legal"
		if !c.Legal {
			table = "illegal (" + c.Why + ")"
		}
		ptxas := "accepts it"
		if !v.ok {
			ptxas = "rejects it: " + firstLine(v.msg)
		}
		fmt.Fprintf(e.stdout, "DISAGREE %s on %s (PTX %d.%d): table says %s; ptxas %s\n", c.Text, c.Target, c.PTXVersion/10, c.PTXVersion%10, table, ptxas)
	}
	fmt.Fprintf(e.stdout, "%d cases: ptxas agrees with the table on %d, disagrees on %d; %d cases need PTX newer than %d.%d and were skipped\n",
		len(cases), agree, disagree, skipped, o.maxPTX/10, o.maxPTX%10)
	if disagree > 0 {
		return fmt.Errorf("ptxas disagrees with the legality table on %d of %d cases", disagree, len(cases))
	}
	return nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "error") {
			return strings.TrimSpace(l)
		}
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
