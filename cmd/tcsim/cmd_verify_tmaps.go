package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/isa/tensormap"
)

// defaultTensorMapFixture is the recorded tensor-map campaign.
const defaultTensorMapFixture = "fixtures/tensormaps/campaign_h100.json.gz"

func init() {
	register(&command{
		name:    "verify tensormaps",
		args:    "[--gpu [--record FILE] [--dump FILE] [--device N]] [--fixture FILE] [-q]",
		summary: "check tcsim's CUtensorMap encoder, decoder and rules against the CUDA driver (or its recording)",
		help: `Checks tcsim's model of the 128-byte CUtensorMap against the CUDA driver.

The campaign (isa/tensormap.Campaign) is several thousand argument sets for
cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and
cuTensorMapEncodeIm2colWide: one field at a time through every bit and
every enum value, random maps that follow the documented rules, random maps
that ignore the consistency between fields, and random maps that break
exactly one rule.

With --gpu, each set goes to the driver (in child processes, so that a
crash in the driver loses one call, not the run), twice: into a zeroed
buffer and into one filled with 0xff, which shows the bytes the driver
leaves alone. --record FILE writes the campaign as a fixture: the arguments,
the driver's verdict, its bytes in full for the designed probes and a
SHA-256 of them for the random ones, and the provenance. --dump FILE writes
every byte of every map (for fitting the encoding).

Without --gpu it replays the recording --fixture (default
fixtures/tensormaps/campaign_h100.json.gz; run from the repository root).

Either way, for every map the driver accepted tcsim's encoder must produce
its bytes exactly and tcsim's decoder must give back the arguments with no
bit unaccounted for; for every map the driver rejected tcsim's rules must
reject it too. The exit status is 1 when anything disagrees.`,
		setup: func(fs *flag.FlagSet) any {
			o := &tmapVerifyOpts{}
			fs.BoolVar(&o.gpu, "gpu", false, "call the driver (default: replay the recorded campaign)")
			fs.StringVar(&o.record, "record", "", "with --gpu, write the campaign as a fixture to `FILE` (.json.gz)")
			fs.StringVar(&o.dump, "dump", "", "with --gpu, write every map's bytes to `FILE` (.json.gz)")
			fs.StringVar(&o.fixture, "fixture", defaultTensorMapFixture, "without --gpu, the recorded campaign to replay")
			fs.IntVar(&o.device, "device", 0, "GPU `ordinal`")
			fs.BoolVar(&o.quiet, "q", false, "print only the summary and the disagreements")
			fs.IntVar(&o.show, "show", 20, "print at most `N` disagreements of each kind")
			fs.StringVar(&o.child, "child", "", "(internal) call the driver for the probes from index `N` on, writing JSON lines")
			return o
		},
		run: runVerifyTensorMaps,
	})
}

type tmapVerifyOpts struct {
	gpu          bool
	record, dump string
	fixture      string
	device       int
	quiet        bool
	show         int
	child        string
}

func runVerifyTensorMaps(e *env, opts any, args []string) error {
	o := opts.(*tmapVerifyOpts)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if o.child != "" {
		from, err := strconv.Atoi(o.child)
		if err != nil || from < 0 {
			return usagef("--child %q: want a probe index", o.child)
		}
		return tmapChild(e, o, from)
	}
	if (o.record != "" || o.dump != "") && !o.gpu {
		return usagef("--record and --dump need --gpu (without it the recording is replayed)")
	}
	var rec *tensormap.Recording
	var err error
	if o.gpu {
		rec, err = tmapOnGPU(e, o)
	} else {
		rec, err = readTensorMapRecording(o.fixture)
		err = badInput(err) // missing, or not a recording: exit status 2
		if err == nil {
			p := rec.Provenance
			fmt.Fprintf(e.stdout, "replaying %s: %d maps recorded on %s (%s), driver %s, CUDA %s, %s\n  by: %s\n",
				o.fixture, len(rec.Records), p.GPU, p.Arch, p.DriverVersion, p.CUDAVersion, p.Date, p.Command)
		}
	}
	if err != nil {
		return err
	}
	s := tensormap.Check(rec.Records)
	printTensorMapSummary(e.stdout, &s, o)
	if !s.OK() {
		return fmt.Errorf("%d disagreements with the driver", len(s.Problems))
	}
	return nil
}

func readTensorMapRecording(path string) (*tensormap.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no recorded tensor-map campaign at %s (run from the repository root, pass --fixture FILE, or call the driver with --gpu): %w", path, err)
		}
		return nil, err
	}
	defer f.Close()
	rec, err := tensormap.ReadRecording(f)
	if err == nil {
		err = rec.Attach(tensormap.Campaign())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

func printTensorMapSummary(w io.Writer, s *tensormap.Summary, o *tmapVerifyOpts) {
	byKind := map[string]int{}
	for _, p := range s.Problems {
		byKind[p.Kind]++
		if byKind[p.Kind] <= o.show {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	for k, n := range byKind {
		if n > o.show {
			fmt.Fprintf(w, "  … and %d more %q disagreements\n", n-o.show, k)
		}
	}
	fmt.Fprintf(w, "%d maps: the driver accepted %d and rejected %d", s.Maps, s.Accepted, s.Rejected)
	if s.Crashed > 0 {
		fmt.Fprintf(w, " (%d calls crashed)", s.Crashed)
	}
	fmt.Fprintf(w, "\n  encoder: %d of %d byte-identical to the driver\n", s.Encoded, s.Accepted)
	fmt.Fprintf(w, "  decoder: %d of %d recorded in full decode back to their arguments\n", s.Decoded, s.WithBytes)
	fmt.Fprintf(w, "  rules:   %d of %d rejections matched by tcsim's validation\n", s.RejectMatched, s.Rejected)
	if s.Untouched > 0 {
		fmt.Fprintf(w, "  note: in %d accepted maps the driver left some bytes as they were\n", s.Untouched)
	}
}

// tmapOnGPU runs the campaign through the driver in child processes.
func tmapOnGPU(e *env, o *tmapVerifyOpts) (*tensormap.Recording, error) {
	d, err := openGPU(e, o.device)
	if err != nil {
		return nil, err
	}
	info := d.Info
	for _, k := range []tensormap.Kind{tensormap.Tiled, tensormap.Im2col, tensormap.Im2colWide} {
		if !d.HasEncoder(k) {
			fmt.Fprintf(e.stdout, "note: the driver has no encoder for %s maps; those probes record as rejected\n", k)
		}
	}
	d.Close()
	fmt.Fprintf(e.stdout, "tensor-map campaign on GPU %d: %s (%s, driver %s, CUDA %s)\n", info.Ordinal, info.Name, info.Arch(), info.DriverVersion, info.CUDA())
	probes := tensormap.Campaign()
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this executable to run the campaign in child processes: %w", err)
	}
	start := time.Now()
	var full []tensormap.Record
	restarts := 0
	for len(full) < len(probes) {
		recs, err := runTmapChild(e, exe, o.device, len(full), probes)
		full = append(full, recs...)
		if err == nil && len(full) < len(probes) {
			err = errors.New("the child stopped early")
		}
		if err != nil && len(full) < len(probes) {
			restarts++
			if restarts > 50 {
				return nil, fmt.Errorf("the driver crashed more than 50 times; last: %v", err)
			}
			p := probes[len(full)]
			fmt.Fprintf(e.stdout, "  crash in %s (%v)\n", p.Name, err)
			full = append(full, tensormap.Record{Name: p.Name, Map: p.Map, Result: tensormap.ResultCrash})
		}
	}
	fmt.Fprintf(e.stdout, "  %d calls in %.1fs\n", 2*len(full), time.Since(start).Seconds())
	prov := tensormap.Provenance{
		GPU: info.Name, Arch: info.Arch(), DriverVersion: info.DriverVersion, CUDAVersion: info.CUDA(),
		Date: time.Now().UTC().Format(time.RFC3339), TcsimVersion: Version, Command: tmapRecordCommand(o),
	}
	rec := &tensormap.Recording{Campaign: tensormap.CampaignVersion, MapsDigest: tensormap.Digest(probes), Provenance: prov, Records: full}
	if o.dump != "" {
		if err := writeTmapRecording(o.dump, rec); err != nil {
			return nil, err
		}
		fmt.Fprintf(e.stdout, "wrote every map's bytes to %s\n", o.dump)
	}
	if o.record != "" {
		if err := writeTmapRecording(o.record, rec.Compact(probes)); err != nil {
			return nil, err
		}
		fmt.Fprintf(e.stdout, "recorded the campaign to %s\n", o.record)
	}
	return rec, nil
}

func tmapRecordCommand(o *tmapVerifyOpts) string {
	c := "tcsim verify tensormaps --gpu"
	if o.record != "" {
		c += " --record " + o.record
	}
	return c
}

func writeTmapRecording(path string, rec *tensormap.Recording) error {
	var buf bytes.Buffer
	if err := tensormap.WriteRecording(&buf, rec); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// runTmapChild runs a child from probe index from and returns the records
// it wrote before it ended.
func runTmapChild(e *env, exe string, device, from int, probes []tensormap.Probe) ([]tensormap.Record, error) {
	cmd := exec.Command(exe, "verify", "tensormaps", "--child", strconv.Itoa(from), "--device", strconv.Itoa(device))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var recs []tensormap.Record
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var r tensormap.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return recs, fmt.Errorf("child output: %w", err)
		}
		i := from + len(recs)
		if i >= len(probes) || r.Name != probes[i].Name {
			cmd.Process.Kill()
			cmd.Wait()
			return recs, fmt.Errorf("child output out of step at probe %d (%s)", i, r.Name)
		}
		r.Map = probes[i].Map
		recs = append(recs, r)
	}
	err = cmd.Wait()
	if msg := strings.TrimSpace(stderr.String()); msg != "" && err != nil {
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		err = fmt.Errorf("%v: %s", err, msg)
	}
	return recs, err
}

// tmapChild calls the driver for every probe from index from on and writes
// one JSON record per line (without the map: the parent has it).
func tmapChild(e *env, o *tmapVerifyOpts, from int) error {
	d, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer d.Close()
	probes := tensormap.Campaign()
	if from > len(probes) {
		return usagef("--child %d: the campaign has %d probes", from, len(probes))
	}
	enc := json.NewEncoder(e.stdout)
	for _, p := range probes[from:] {
		r := tensormap.Record{Name: p.Name}
		zero, err := d.EncodeTensorMap(p.Map, 0)
		if err != nil {
			var ce *gpu.Error
			if !errors.As(err, &ce) {
				r.Result = "error: " + err.Error()
			} else {
				r.Result = ce.Name
			}
		} else {
			r.Result = tensormap.ResultOK
			r.Bytes = hex.EncodeToString(zero[:])
			ff, err := d.EncodeTensorMap(p.Map, 0xff)
			if err != nil {
				return fmt.Errorf("%s: the driver accepted it once and then said %v", p.Name, err)
			}
			var mask [tensormap.Size]byte
			untouched := false
			for i := range zero {
				if zero[i] != ff[i] {
					mask[i] = zero[i] ^ ff[i]
					untouched = true
				}
			}
			if untouched {
				r.Untouched = hex.EncodeToString(mask[:])
			}
		}
		if err := enc.Encode(&r); err != nil {
			return err
		}
	}
	return nil
}
