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
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/gpu/sfurun"
	"github.com/tcsim/tcsim/internal/provenance"
	"github.com/tcsim/tcsim/sim/sfu"
)

// defaultApproxFixture is where the approximate-math campaign is recorded.
const defaultApproxFixture = "fixtures/approx"

func init() {
	register(&command{
		name:    "verify approx",
		args:    "[--gpu [--record FILE] [--diff DIR] | --gpu --record-fit FILE] [--fixture FILE] [--full] [--forms REGEXP]",
		summary: "check the approximate-math model (ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh .approx, div) against the H100 and H200 (every input of the 32- and 16-bit forms)",
		help: `Checks tcsim's model of the special function unit (package sim/sfu: the
MUFU core and the instructions ptxas puts around it) against hardware: each
32-bit form on all 2^32 operands, each 16-bit form on all 2^16 (packed x2
forms on all 2^32 pairs); the f64 forms on every high word with one
pseudo-random low word (domain hi), with low words 0, 1 and all-ones
(hi-lo0, hi-lo1, hi-loffffffff), and on all 2^32 low words under six high
words (lo-hi00000000, ...); divisions on 2^32 random pairs, on a = 1 with
all 2^32 divisors, and on all pairs of 1024 edge values. The f64 forms and
the divisions have 2^64 inputs: these campaigns cover part of them
(tcsim num says whether an input was among those recorded).

Results are compared by hashes of chunks of 2^20 inputs (the wrapping sum of
a 64-bit mix of each input number and result, so the GPU can add them in any
order).

With --gpu, a kernel computes the chunk hashes on the GPU, tcsim computes the
same hashes with the model on every CPU, and for each chunk that differs the
GPU's results are read back and compared input by input (agreement, largest
difference in ulps; --diff DIR keeps the differing inputs). --record FILE
writes the GPU's hashes with their provenance.

With --gpu --record-fit FILE, the GPU computes every operand of the binades
the interpolator tables are fitted to (2^23 results each); tcsim fits every
table to them on every CPU, checks that they give tables_gen.go's tables,
and writes the record that pins every table value: every 64th result of
each binade and the results that bound each interval's window (the
fixture fixtures/approx/fit_sm90a.gz; go run ./sim/sfu/internal/fitgen
regenerates the tables from it). It checks too that the record alone fits
the same tables, and exits 1 if either check fails.

Without --gpu it replays the recorded hashes (--fixture, default the
*.jsonl.gz files under ` + defaultApproxFixture + `; run from the repository root): a sample
of chunks of every campaign is recomputed with the model (--full: all of
them, minutes on many cores).

The exit status is 1 when a form that the model calls bit-exact disagrees.`,
		setup: func(fs *flag.FlagSet) any {
			o := &approxOpts{}
			fs.BoolVar(&o.gpu, "gpu", false, "run the campaign on the GPU (default: replay the recorded hashes)")
			fs.StringVar(&o.record, "record", "", "with --gpu, write the GPU's chunk hashes to `FILE`")
			fs.StringVar(&o.diff, "diff", "", "with --gpu, write the inputs where the model differs under `DIR`")
			fs.StringVar(&o.fixture, "fixture", defaultApproxFixture, "without --gpu, the recorded hashes to replay: a `FILE`, or a directory of *.jsonl.gz")
			fs.BoolVar(&o.full, "full", false, "without --gpu, recompute every chunk (default: a sample)")
			fs.IntVar(&o.sample, "sample", 4, "without --gpu and --full, chunks recomputed per campaign (the first, the last and random ones)")
			fs.Uint64Var(&o.seed, "seed", 0, "without --gpu and --full, the seed that picks the chunks (0: a new one each run)")
			fs.StringVar(&o.forms, "forms", "", "only forms whose opcode matches `REGEXP`")
			fs.StringVar(&o.domains, "domains", "", "only campaigns whose domain name matches `REGEXP` (all, hi, hi-lo0, lo-hi3ff00000, rand, one, edge, ...)")
			fs.BoolVar(&o.noModel, "no-model", false, "with --gpu, record the hardware's hashes without comparing with the model")
			fs.StringVar(&o.recordFit, "record-fit", "", "with --gpu, run the tables' whole binades, fit them and write the record that pins every table value to `FILE`")
			fs.StringVar(&o.dump, "dump", "", "(development) run the fitting datasets on the GPU and write their results under `DIR`")
			fs.BoolVar(&o.extra, "extra", false, "(development) with --dump, the second set of datasets")
			fs.IntVar(&o.dumpBudget, "dump-mib", 56, "(development) with --dump, the most MiB to write")
			fs.StringVar(&o.ptx, "ptx", "", "write every form's probe kernels under `DIR` (for ptxas and cuobjdump) and exit")
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			return o
		},
		run: runVerifyApprox,
	})
}

type approxOpts struct {
	gpu, full, noModel, extra bool
	record, diff, fixture     string
	recordFit                 string
	forms, dump, ptx          string
	domains                   string
	sample, device            int
	seed                      uint64
	dumpBudget                int
}

// domainFilter is --domains: nil for every domain.
func (o *approxOpts) domainFilter() (func(name string) bool, error) {
	if o.domains == "" {
		return nil, nil
	}
	re, err := regexp.Compile(o.domains)
	if err != nil {
		return nil, usagef("--domains: %v", err)
	}
	return re.MatchString, nil
}

func (o *approxOpts) selected() ([]*sfu.Form, error) {
	var re *regexp.Regexp
	if o.forms != "" {
		var err error
		if re, err = regexp.Compile(o.forms); err != nil {
			return nil, usagef("--forms: %v", err)
		}
	}
	var out []*sfu.Form
	for _, f := range sfu.Forms() {
		if re == nil || re.MatchString(f.Op) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--forms %q matches no form (see tcsim verify approx --help)", o.forms)
	}
	return out, nil
}

func runVerifyApprox(e *env, opts any, args []string) error {
	o := opts.(*approxOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	forms, err := o.selected()
	if err != nil {
		return err
	}
	keep, err := o.domainFilter()
	if err != nil {
		return err
	}
	if keep != nil {
		n := 0
		for _, f := range forms {
			for _, d := range f.Domains() {
				if keep(d.Name) {
					n++
				}
			}
		}
		if n == 0 {
			return usagef("--domains %q matches no campaign of the selected forms", o.domains)
		}
	}
	if o.ptx != "" {
		return writeApproxPTX(e, o.ptx, forms)
	}
	if (o.record != "" || o.diff != "" || o.noModel) && !o.gpu {
		return usagef("--record, --diff and --no-model need --gpu")
	}
	if o.dump != "" {
		return approxDump(e, o, forms)
	}
	if o.recordFit != "" {
		return approxRecordFit(e, o, forms)
	}
	if o.gpu {
		return approxOnGPU(e, o, forms)
	}
	return approxReplay(e, o, forms)
}

func writeApproxPTX(e *env, dir string, forms []*sfu.Form) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range forms {
		if err := os.WriteFile(filepath.Join(dir, f.Op+".dump.ptx"), []byte(f.DumpPTX()), 0o644); err != nil {
			return err
		}
		for _, d := range f.Domains() {
			if err := os.WriteFile(filepath.Join(dir, f.Op+"."+d.Name+".hash.ptx"), []byte(f.HashPTX(d)), 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(e.stdout, "wrote the probe kernels of %d forms under %s\n", len(forms), dir)
	return nil
}

// approxProvenance describes the device, driver and compiler.
func approxProvenance(d *gpu.Device, command string) provenance.Provenance {
	i := d.Info
	p := provenance.Provenance{GPU: i.Name, Arch: i.Arch(), DriverVersion: i.DriverVersion, CUDAVersion: i.CUDA(),
		Date: time.Now().UTC().Format(time.RFC3339), Command: command, TcsimVersion: Version}
	if out, err := exec.Command("ptxas", "--version").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "release") {
				p.PTXAS = strings.TrimSpace(l)
			}
		}
	}
	return p
}

// hashKernel is f's hash kernel on d for the GPU runner.
func hashKernel(f *sfu.Form, d sfu.Domain) sfurun.HashKernel {
	return sfurun.HashKernel{Name: f.Op + "." + d.Name + ".hash.ptx", PTX: f.HashPTX(d), CTAs: d.HashCTAs(), Chunks: d.Chunks(), Edges: sfu.EdgeValues()}
}

// runForm computes f on explicit operands on the GPU.
func runForm(r *sfurun.Runner, f *sfu.Form, a, b []uint64) ([]uint64, error) {
	if f.Kind != sfu.Binary32 {
		b = nil
	}
	return r.Run(f.Op+".dump.ptx", f.DumpPTX(), f.Kind.InBytes(), a, b)
}

func approxOnGPU(e *env, o *approxOpts, forms []*sfu.Form) error {
	dev, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer dev.Close()
	i := dev.Info
	fmt.Fprintf(e.stdout, "approximate math on GPU %d: %s (%s, driver %s, CUDA %s), model on %d CPUs\n", i.Ordinal, i.Name, i.Arch(), i.DriverVersion, i.CUDA(), runtime.GOMAXPROCS(0))
	cmd := "tcsim verify approx --gpu"
	if o.noModel {
		cmd += " --no-model"
	}
	if o.forms != "" {
		cmd += " --forms '" + o.forms + "'"
	}
	if o.domains != "" {
		cmd += " --domains '" + o.domains + "'"
	}
	if o.record != "" {
		cmd += " --record " + o.record
	}
	prov := approxProvenance(dev, cmd)
	r := sfurun.New(dev)
	var recs []*sfu.HashRecord
	bad := 0
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FORM\tDOMAIN\tCHUNKS\tRESULT\tTIME")
	keep, err := o.domainFilter()
	if err != nil {
		return err
	}
	for _, f := range forms {
		for _, d := range f.Domains() {
			if keep != nil && !keep(d.Name) {
				continue
			}
			t0 := time.Now()
			hw, err := r.Hashes(hashKernel(f, d))
			var je *gpu.JITError
			if errors.As(err, &je) {
				// a JIT failure is not sticky: report it and go on
				bad++
				fmt.Fprintf(tw, "%s\t%s\t%d\tFAILED: %s\t\n", f.Op, d.Name, d.Chunks(), strings.ReplaceAll(je.Error(), "\n", " | "))
				tw.Flush()
				continue
			}
			if err != nil {
				return fmt.Errorf("%s on %s: %w", f.Op, d.Name, err)
			}
			rec := &sfu.HashRecord{Op: f.Op, Domain: d.Name, Bits: d.Bits, ChunkBits: d.ChunkBits(), Hashes: hw, Provenance: prov}
			result := "recorded"
			if !o.noModel {
				ag, err := approxCompareGPU(r, f, d, hw, o.diff)
				if err != nil {
					return err
				}
				rec.Agreement = &ag
				result = ag.String()
				if ag.Mismatches > 0 && f.Exact {
					bad++
					result += "  (the model claims bit-exact)"
				}
			}
			recs = append(recs, rec)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1fs\n", f.Op, d.Name, d.Chunks(), result, time.Since(t0).Seconds())
			tw.Flush()
		}
	}
	if o.record != "" {
		var buf bytes.Buffer
		if err := sfu.WriteHashRecords(&buf, recs); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(o.record), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.record, buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "recorded %d campaigns in %s\n", len(recs), o.record)
	}
	if bad > 0 {
		return fmt.Errorf("%d campaigns failed or (for forms the model calls bit-exact) disagree with the GPU", bad)
	}
	return nil
}

// approxCompareGPU hashes every chunk with the model, reads back the GPU's
// results of the chunks that differ and compares them input by input.
func approxCompareGPU(r *sfurun.Runner, f *sfu.Form, d sfu.Domain, hw []uint64, diffDir string) (sfu.Agreement, error) {
	cpu := f.ChunkHashes(d, nil)
	var differ []int
	for c := range hw {
		if cpu[c] != hw[c] {
			differ = append(differ, c)
		}
	}
	ag := sfu.Agreement{Inputs: uint64(1) << d.Bits, Chunks: len(differ)}
	var keepA, keepB, keepHW []uint64
	const keepMax = 1 << 16
	// Compare at most maxCompared differing chunks input by input, spread
	// over the domain.
	const maxCompared = 128
	if len(differ) > maxCompared {
		picked := make([]int, 0, maxCompared)
		for k := range maxCompared {
			picked = append(picked, differ[k*len(differ)/maxCompared])
		}
		differ = picked
	}
	ag.ComparedChunks = len(differ)
	for _, c := range differ {
		a, b := d.ChunkInputs(c)
		if f.Kind != sfu.Binary32 {
			b = nil
		}
		out, err := runForm(r, f, a, b)
		if err != nil {
			return ag, err
		}
		var h uint64
		base := uint32(c) << d.ChunkBits()
		for k, v := range out {
			h += sfu.Elem(base+uint32(k), v)
		}
		if h != hw[c] {
			return ag, fmt.Errorf("%s on %s, chunk %d: the dump kernel's results hash differently from the hash kernel's", f.Op, d.Name, c)
		}
		// compare on all CPUs
		n := len(out)
		parts := runtime.GOMAXPROCS(0)
		res := make([]sfu.Agreement, parts)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for p := range parts {
			lo, hi := p*n/parts, (p+1)*n/parts
			wg.Add(1)
			go func() {
				defer wg.Done()
				var bb []uint64
				if b != nil {
					bb = b[lo:hi]
				}
				res[p] = f.Compare(a[lo:hi], bb, out[lo:hi], func(i int, model uint64) {
					mu.Lock()
					if len(keepA) < keepMax {
						keepA = append(keepA, a[lo+i])
						if b != nil {
							keepB = append(keepB, b[lo+i])
						}
						keepHW = append(keepHW, out[lo+i])
					}
					mu.Unlock()
				})
			}()
		}
		wg.Wait()
		for _, x := range res {
			ag.Compared += x.Inputs
			x.Inputs, x.Chunks = 0, 0
			ag.Add(x)
		}
	}
	if diffDir != "" && len(keepA) > 0 {
		if err := os.MkdirAll(diffDir, 0o755); err != nil {
			return ag, err
		}
		member, err := sfu.EncodeExplicit(f, keepA, keepB, keepHW)
		if err != nil {
			return ag, err
		}
		if err := os.WriteFile(filepath.Join(diffDir, f.Op+"."+d.Name+".diff.gz"), member, 0o644); err != nil {
			return ag, err
		}
	}
	return ag, nil
}

func approxReplay(e *env, o *approxOpts, forms []*sfu.Form) error {
	recs, err := sfu.LoadHashRecords(o.fixture)
	if err != nil {
		return badInput(fmt.Errorf("%w (run from the repository root, pass --fixture, or run the campaign with --gpu)", err))
	}
	want := map[string]bool{}
	for _, f := range forms {
		want[f.Op] = true
	}
	keep, err := o.domainFilter()
	if err != nil {
		return err
	}
	var sel []*sfu.HashRecord
	for _, rec := range recs {
		if want[rec.Op] && (keep == nil || keep(rec.Domain)) {
			sel = append(sel, rec)
		}
	}
	seed := o.seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	what := fmt.Sprintf("%d chunks of each campaign (seed %d)", o.sample, seed)
	if o.full {
		what = "every chunk"
	}
	fmt.Fprintf(e.stdout, "replaying %s: %s; %s\n", o.fixture, recordedOn(sel), what)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FORM\tDOMAIN\tCHUNKS CHECKED\tRESULT\tMODEL")
	bad := 0
	for _, rec := range sel {
		r, err := sfu.ReplayRecord(rec, o.full, o.sample, seed)
		if err != nil {
			return fmt.Errorf("%s: %w", o.fixture, err)
		}
		status := r.Form.Status()
		result := fmt.Sprintf("%d/%d match", r.Matched, r.Checked)
		if r.Matched != r.Checked {
			if r.Form.Exact {
				bad++
				result += "  MISMATCH"
			} else {
				result += " (expected: not bit-exact)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d of %d\t%s\t%s\n", rec.Op, rec.Domain, r.Checked, len(rec.Hashes), result, status)
	}
	tw.Flush()
	if bad > 0 {
		return fmt.Errorf("%d campaigns of bit-exact forms do not match their recording", bad)
	}
	return nil
}

// recordedOn says where the records were made: each distinct GPU, driver,
// CUDA, ptxas and day, with the number of campaigns when there are
// several.
func recordedOn(recs []*sfu.HashRecord) string {
	var order []string
	count := map[string]int{}
	for _, rec := range recs {
		p := rec.Provenance
		k := fmt.Sprintf("%s (%s, driver %s, CUDA %s, %s), %s", p.GPU, p.Arch, p.DriverVersion, p.CUDAVersion, p.PTXAS, strings.SplitN(p.Date, "T", 2)[0])
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	if len(order) == 0 {
		return "no campaign selected"
	}
	if len(order) == 1 {
		return order[0]
	}
	for i, k := range order {
		order[i] = fmt.Sprintf("%s (%d campaign%s)", k, count[k], map[bool]string{true: "s"}[count[k] > 1])
	}
	return strings.Join(order, "; ")
}

// approxDump runs the fitting datasets and writes them in files of at most
// 15 MiB, in priority order, until the budget is spent.
func approxDump(e *env, o *approxOpts, forms []*sfu.Form) error {
	if !o.gpu {
		return usagef("--dump needs --gpu")
	}
	dev, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer dev.Close()
	r := sfurun.New(dev)
	want := map[string]bool{}
	for _, f := range forms {
		want[f.Op] = true
	}
	all := sfu.FitDatasets()
	if o.extra {
		all = sfu.ExtraDatasets()
	}
	var ds []sfu.Dataset
	for _, d := range all {
		if want[d.Op] {
			ds = append(ds, d)
		}
	}
	type job struct {
		i       int
		a, b, o []uint64
	}
	members := make([][]byte, len(ds))
	jobs := make(chan job, 4)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				m, err := sfu.EncodeDump(ds[j.i], j.a, j.b, j.o)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				members[j.i] = m
				mu.Unlock()
			}
		}()
	}
	t0 := time.Now()
	for i, d := range ds {
		a, b, err := d.Inputs()
		if err != nil {
			return err
		}
		out, err := runForm(r, sfu.MustLookup(d.Op), a, b)
		var je *gpu.JITError
		if errors.As(err, &je) {
			fmt.Fprintf(e.stdout, "  %s: JIT failed, dataset skipped: %s\n", d.Op, strings.ReplaceAll(je.Error(), "\n", " | "))
			continue
		}
		if err != nil {
			return err
		}
		jobs <- job{i, a, b, out}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := os.MkdirAll(o.dump, 0o755); err != nil {
		return err
	}
	budget := o.dumpBudget << 20
	const perFile = 15 << 20
	var file bytes.Buffer
	nfile, total, kept := 0, 0, 0
	flush := func() error {
		if file.Len() == 0 {
			return nil
		}
		name := filepath.Join(o.dump, fmt.Sprintf("dump%d.gz", nfile))
		nfile++
		err := os.WriteFile(name, file.Bytes(), 0o644)
		file.Reset()
		return err
	}
	var skipped []string
	for i, m := range members {
		if m == nil {
			continue
		}
		if total+len(m) > budget {
			skipped = append(skipped, fmt.Sprintf("%s %s base %#x", ds[i].Op, ds[i].Gen, ds[i].Base))
			continue
		}
		if file.Len()+len(m) > perFile {
			if err := flush(); err != nil {
				return err
			}
		}
		file.Write(m)
		total += len(m)
		kept++
	}
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "dumped %d of %d datasets (%s) in %d files under %s in %.1fs\n", kept, len(ds), mib(uint64(total)), nfile, o.dump, time.Since(t0).Seconds())
	sort.Strings(skipped)
	for _, s := range skipped {
		fmt.Fprintf(e.stdout, "  over budget, skipped: %s\n", s)
	}
	return nil
}
