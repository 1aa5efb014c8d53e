package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/tcsim/tcsim/gpu/sfurun"
	"github.com/tcsim/tcsim/sim/sfu"
)

// approxRecordFit runs the whole binades the interpolator tables are
// fitted to on the GPU, fits them on every CPU and writes the record that
// pins every table value (--record-fit FILE).
func approxRecordFit(e *env, o *approxOpts, forms []*sfu.Form) error {
	if !o.gpu {
		return usagef("--record-fit needs --gpu")
	}
	sel := fitTables(forms)
	if len(sfu.FitBinades(sel)) == 0 {
		return usagef("--forms %q selects no form a table is fitted to", o.forms)
	}
	dev, err := openGPU(e, o.device)
	if err != nil {
		return err
	}
	defer dev.Close()
	i := dev.Info
	fmt.Fprintf(e.stdout, "fit record on GPU %d: %s (%s, driver %s, CUDA %s), fits on %d CPUs\n", i.Ordinal, i.Name, i.Arch(), i.DriverVersion, i.CUDA(), runtime.GOMAXPROCS(0))
	cmd := "tcsim verify approx --gpu --record-fit " + o.recordFit
	if o.forms != "" {
		cmd += " --forms '" + o.forms + "'"
	}
	prov := approxProvenance(dev, cmd)
	r := sfurun.New(dev)
	t0 := time.Now()
	file, checks, err := sfu.RecordFit(func(f *sfu.Form, a []uint64) ([]uint64, error) { return runForm(r, f, a, nil) }, sel, &prov, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	bad := reportFitChecks(e.stdout, checks)
	if err := os.MkdirAll(filepath.Dir(o.recordFit), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.recordFit, file, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "recorded %d binades for %d tables in %s (%s) in %.1fs\n", len(sfu.FitBinades(sel)), len(checks), o.recordFit, mib(uint64(len(file))), time.Since(t0).Seconds())
	if bad > 0 {
		return fmt.Errorf("%d tables: the whole binades do not fit tables_gen.go's table, or the record alone does not fit the same", bad)
	}
	return nil
}

// fitTables selects the tables all of whose binades are of selected forms.
func fitTables(forms []*sfu.Form) func(name string) bool {
	want := map[string]bool{}
	for _, f := range forms {
		want[f.Op] = true
	}
	ok := map[string]bool{}
	for _, s := range sfu.QuadSpecs() {
		ok[s.Name] = true
		for _, b := range s.Binades {
			ok[s.Name] = ok[s.Name] && want[b.Op]
		}
	}
	return func(name string) bool { return ok[name] }
}

// reportFitChecks prints one line per table and returns how many failed:
// the whole binades fit another table than tables_gen.go's, or the record
// alone fits another table than the whole binades.
func reportFitChecks(w io.Writer, checks []*sfu.FitCheck) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tRESULTS\tKEPT\tPINS\tDELTA\tWHOLE BINADES FIT\tTHE RECORD ALONE FITS")
	bad := 0
	for _, c := range checks {
		unit := math.Ldexp(1, c.Full.L+3) // Delta's units per unit of the sum
		delta := fmt.Sprintf("%d in [%d, %d)", c.Full.Delta, int64(math.Ceil(c.DeltaRange[0]*unit)), int64(math.Ceil(c.DeltaRange[1]*unit)))
		whole, alone := "tables_gen.go", "the same"
		if !c.MatchesTable() {
			whole = fmt.Sprintf("ANOTHER TABLE (Delta %d; tables_gen.go %d)", c.Full.Delta, c.Table.Delta)
		}
		if !c.Reproduced() {
			alone = "ANOTHER TABLE"
			if c.Refit != nil {
				alone += fmt.Sprintf(" (Delta %d)", c.Refit.Delta)
			}
		}
		if !c.MatchesTable() || !c.Reproduced() {
			bad++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", c.Name, c.Results, c.Kept, c.Pins, delta, whole, alone)
	}
	tw.Flush()
	return bad
}
