package sfu

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/tcsim/tcsim/internal/provenance"
)

// Recording what the tables are fitted to (tcsim verify approx --gpu
// --record-fit FILE). Every table is fitted to whole binades of results
// (2^23 each), too many to keep; but a fit depends on few of them. The
// least-squares start and the search for (C1, C2) need a spread of
// results (every 64th operand of each binade leaves one candidate per
// interval), and each interval's window of C0+Delta, hence Delta and C0,
// is bounded by two results (Pins). The record keeps every 64th result
// and the pins, and RecordFit checks at record time that the record alone
// fits the same tables as the whole binades.

// FitRun computes form f on explicit operands: the GPU, or the model in
// tests.
type FitRun func(f *Form, a []uint64) ([]uint64, error)

// fitStep is the stride of the spread of results a fit record keeps.
const fitStep = 64

// FitCheck is what recording one table's binades found.
type FitCheck struct {
	Name    string
	Results int // results of the whole binades fitted
	Kept    int // results the record keeps for this table (every 64th and the pins)
	Pins    int // of those, the results that bound the windows
	// DeltaRange is the range of Delta the whole binades allow, in units of
	// the sum (Fit takes the middle, on its grid).
	DeltaRange [2]float64
	// Full is fitted to the whole binades, Refit to the record alone,
	// Table is tables_gen.go's.
	Full, Refit, Table *Quad
}

// Reproduced reports whether the record alone fits the table the whole
// binades fit.
func (c *FitCheck) Reproduced() bool { return c.Full.Equal(c.Refit) }

// MatchesTable reports whether the whole binades fit tables_gen.go's table.
func (c *FitCheck) MatchesTable() bool { return c.Full.Equal(c.Table) }

// Equal reports whether two tables have the same coefficients.
func (q *Quad) Equal(p *Quad) bool {
	return q != nil && p != nil && q.L == p.L && q.Delta == p.Delta &&
		slices.Equal(q.C0, p.C0) && slices.Equal(q.C1, p.C1) && slices.Equal(q.C2, p.C2)
}

// FitBinades lists the binades of the tables selected by name (nil: all),
// each once, in QuadSpecs order.
func FitBinades(tables func(name string) bool) []FitBinade {
	var out []FitBinade
	for _, s := range QuadSpecs() {
		if tables != nil && !tables(s.Name) {
			continue
		}
		for _, b := range s.Binades {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// Operands is the binade's 2^23 operands in order.
func (b FitBinade) Operands() []uint64 {
	a := make([]uint64, 1<<23)
	for i := range a {
		a[i] = uint64(b.Base) + uint64(i)
	}
	return a
}

// RecordFit runs the binades of the selected tables (nil: all) through
// run, fits every table to its whole binades on up to workers goroutines,
// and returns the record (gzip members: per binade every 64th result, then
// the pins; each with prov) and, per table, what was found. An error is
// returned only when a binade cannot be run or a table cannot be fitted;
// a record that does not reproduce a table is reported in its FitCheck.
func RecordFit(run FitRun, tables func(name string) bool, prov *provenance.Provenance, workers int) ([]byte, []*FitCheck, error) {
	binades := FitBinades(tables)
	results := map[FitBinade][]uint32{}
	for _, b := range binades {
		out, err := run(MustLookup(b.Op), b.Operands())
		if err != nil {
			return nil, nil, fmt.Errorf("%s binade %#08x: %w", b.Op, b.Base, err)
		}
		if len(out) != 1<<23 {
			return nil, nil, fmt.Errorf("%s binade %#08x: %d results", b.Op, b.Base, len(out))
		}
		r := make([]uint32, len(out))
		for i, v := range out {
			r[i] = uint32(v)
		}
		results[b] = r
	}
	var specs []QuadSpec
	for _, s := range QuadSpecs() {
		if tables == nil || tables(s.Name) {
			specs = append(specs, s)
		}
	}
	checks := make([]*FitCheck, len(specs))
	pins := make([]map[FitBinade][]uint32, len(specs)) // offsets in each binade
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(workers, 1))
	for k, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			checks[k], pins[k], errs[k] = fitWhole(s, results)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	file, err := fitRecordFile(binades, results, pins, specs, prov)
	if err != nil {
		return nil, nil, err
	}
	ds, err := ReadDumps(bytes.NewReader(file))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the record back: %w", err)
	}
	named := tablesByName()
	for k, s := range specs {
		c := checks[k]
		c.Table = named[s.Name]
		var samples []Sample
		for _, d := range ds {
			x := s.Samples(d)
			c.Kept += len(x)
			samples = append(samples, x...)
		}
		if c.Refit, _, err = Fit(samples, s.Options); err != nil {
			c.Refit = nil // reported as not reproduced
		}
	}
	return file, checks, nil
}

// fitWhole fits one table to its whole binades and finds its pins.
func fitWhole(s QuadSpec, results map[FitBinade][]uint32) (*FitCheck, map[FitBinade][]uint32, error) {
	samples := make([]Sample, 0, len(s.Binades)<<23)
	where := make([]uint32, 0, cap(samples)) // binade index << 23 | offset
	for bi, b := range s.Binades {
		for off, res := range results[b] {
			if x, ok := s.sample(b.Op, b.Base+uint32(off), res); ok {
				samples = append(samples, x)
				where = append(where, uint32(bi)<<23|uint32(off))
			}
		}
	}
	q, rep, err := Fit(samples, s.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	c := &FitCheck{Name: s.Name, Results: len(samples), DeltaRange: rep.DeltaRange, Full: q}
	pins := map[FitBinade][]uint32{}
	for _, k := range Pins(samples, q, s.Options) {
		b := s.Binades[where[k]>>23]
		pins[b] = append(pins[b], where[k]&(1<<23-1))
		c.Pins++
	}
	return c, pins, nil
}

// fitRecordFile writes, per binade, its every 64th result and the pins of
// every table that reads it (sorted, those off the stride).
func fitRecordFile(binades []FitBinade, results map[FitBinade][]uint32, pins []map[FitBinade][]uint32, specs []QuadSpec, prov *provenance.Provenance) ([]byte, error) {
	var file bytes.Buffer
	for _, b := range binades {
		res := results[b]
		a := make([]uint64, 0, len(res)/fitStep)
		out := make([]uint64, 0, len(res)/fitStep)
		for off := 0; off < len(res); off += fitStep {
			a = append(a, uint64(b.Base)+uint64(off))
			out = append(out, uint64(res[off]))
		}
		d := Dataset{Op: b.Op, Gen: "range", Base: uint64(b.Base), Step: fitStep, Count: len(a),
			Note: fmt.Sprintf("every %dth operand of the binade %#08x", fitStep, b.Base)}
		m, err := encodeDump(DumpHeader{Dataset: d, Provenance: prov}, a, nil, out)
		if err != nil {
			return nil, err
		}
		file.Write(m)
		var offs []uint32
		var names []string
		for k, p := range pins {
			if len(p[b]) > 0 {
				names = append(names, specs[k].Name)
			}
			for _, off := range p[b] {
				if off%fitStep != 0 {
					offs = append(offs, off)
				}
			}
		}
		slices.Sort(offs)
		offs = slices.Compact(offs)
		if len(offs) == 0 {
			continue
		}
		a, out = a[:0], out[:0]
		for _, off := range offs {
			a = append(a, uint64(b.Base+off))
			out = append(out, uint64(res[off]))
		}
		h := DumpHeader{Dataset: Dataset{Op: b.Op, Note: fmt.Sprintf("the results of the binade %#08x that bound the intervals of %v (sfu.Pins)", b.Base, names)}, Provenance: prov}
		if m, err = encodeExplicit(h, a, nil, out); err != nil {
			return nil, err
		}
		file.Write(m)
	}
	return file.Bytes(), nil
}
