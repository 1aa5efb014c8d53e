// Package numrun runs numfmt's cvt probes on a GPU through package gpu and
// records what the hardware computed. It is the only part of the number
// format work that needs a GPU; numfmt itself generates the probes and
// checks outputs without one.
package numrun

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/tcsim/tcsim/gpu"
	"github.com/tcsim/tcsim/internal/provenance"
	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
)

// Run JIT-compiles the probe's kernel, launches it once over its cases and
// returns the output buffer.
func Run(dev *gpu.Device, p *numfmt.Probe) ([]byte, error) {
	mod, err := dev.LoadPTX(p.Name+".ptx", []byte(p.PTX), gpu.JITOptions{})
	if err != nil {
		return nil, err
	}
	defer mod.Unload()
	fn, err := mod.Function(p.Kernel)
	if err != nil {
		return nil, err
	}
	var bufs []*gpu.Buffer
	defer func() {
		for _, b := range bufs {
			b.Free()
		}
	}()
	alloc := func(n int) (*gpu.Buffer, error) {
		b, err := dev.Alloc(max(n, 256))
		if err == nil {
			bufs = append(bufs, b)
		}
		return b, err
	}
	out, err := alloc(p.N * p.OutBytes)
	if err != nil {
		return nil, err
	}
	// Poison the output so that a case the kernel skips cannot pass.
	if err := out.Memset(0xa5); err != nil {
		return nil, err
	}
	args := [][]byte{addr(out)}
	for _, in := range p.Inputs {
		b, err := alloc(len(in))
		if err != nil {
			return nil, err
		}
		if err := b.Write(in); err != nil {
			return nil, err
		}
		args = append(args, addr(b))
	}
	n := make([]byte, 4)
	binary.LittleEndian.PutUint32(n, uint32(p.N))
	args = append(args, n)
	err = fn.Launch(gpu.LaunchConfig{Grid: launch.Dim3{uint32(p.Grid), 1, 1}, Block: launch.Dim3{uint32(p.Block), 1, 1}, Args: args})
	if err != nil {
		return nil, err
	}
	if err := dev.Synchronize(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	got := make([]byte, p.N*p.OutBytes)
	return got, out.Read(got)
}

func addr(b *gpu.Buffer) []byte {
	a := make([]byte, 8)
	binary.LittleEndian.PutUint64(a, b.Ptr)
	return a
}

// Campaign chooses which probes to run.
type Campaign struct {
	Filter *regexp.Regexp // specs whose text matches (nil: all)
	Random int            // random cases for wide inputs (0: numfmt's default)
	Seed   uint64
	// Progress, if set, is told about each probe as it finishes.
	Progress func(r *Result)
}

// Result is one probe's outcome.
type Result struct {
	Spec    string
	Record  *numfmt.Record // nil if the probe did not run
	Check   *numfmt.CheckResult
	Err     error // JIT or launch failure
	Elapsed time.Duration
}

// Specs lists the legal specs the H100 (sm_90a) runs, filtered.
func (c Campaign) Specs() []*numfmt.Spec {
	var out []*numfmt.Spec
	for _, s := range numfmt.AllSpecs() {
		if s.SupportedOn("sm_90a", 90) != nil {
			continue
		}
		if c.Filter != nil && !c.Filter.MatchString(s.String()) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// RunCampaign runs every selected probe on dev, checks each against the
// model on all CPUs while the GPU moves on, and returns the results in
// spec order. prov is stored in every record.
func RunCampaign(dev *gpu.Device, c Campaign, prov provenance.Provenance) []*Result {
	specs := c.Specs()
	results := make([]*Result, len(specs))
	type job struct {
		i   int
		p   *numfmt.Probe
		out []byte
	}
	jobs := make(chan job, 4)
	var wg sync.WaitGroup
	for range max(1, runtime.NumCPU()-1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := results[j.i]
				chk, err := j.p.Check(j.out)
				if err != nil {
					r.Err = err
				} else {
					r.Check = chk
					r.Record = numfmt.NewRecord(j.p, j.out, chk.Mismatches, prov)
				}
				if c.Progress != nil {
					c.Progress(r)
				}
			}
		}()
	}
	for i, s := range specs {
		t0 := time.Now()
		r := &Result{Spec: s.String()}
		results[i] = r
		opt := numfmt.ProbeOptions{Random: c.Random, Seed: c.Seed}
		if opt.Random == 0 {
			opt.Random = numfmt.DefaultRandom(s)
		}
		p, err := numfmt.NewProbe(s, opt)
		if err != nil {
			r.Err = err
			continue
		}
		out, err := Run(dev, p)
		r.Elapsed = time.Since(t0)
		if err != nil {
			r.Err = err
			if c.Progress != nil {
				c.Progress(r)
			}
			continue
		}
		jobs <- job{i, p, out}
	}
	close(jobs)
	wg.Wait()
	return results
}
