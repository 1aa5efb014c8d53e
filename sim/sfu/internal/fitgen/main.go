// Command fitgen fits the special function unit's interpolator tables to
// results recorded on a GPU and writes them as Go source:
//
//	tcsim verify approx --gpu --record-fit fixtures/approx/fit_sm90a.gz   (on the GPU machine)
//	go run ./sim/sfu/internal/fitgen -o sim/sfu/tables_gen.go fixtures/approx/fit_sm90a.gz
//
// It reads any dump files (tcsim verify approx --gpu --dump DIR writes
// whole datasets); the committed record regenerates tables_gen.go byte
// for byte (sim/sfu's TestTablesFromFixture).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tcsim/tcsim/sim/sfu"
)

func main() {
	out := flag.String("o", "", "write the tables to this file (default: stdout)")
	flag.Parse()
	var ds []*sfu.Dump
	for _, fn := range flag.Args() {
		f, err := os.Open(fn)
		if err != nil {
			fail(err)
		}
		d, err := sfu.ReadDumps(f)
		f.Close()
		if err != nil {
			fail(fmt.Errorf("%s: %w", fn, err))
		}
		ds = append(ds, d...)
	}
	src, err := sfu.GenerateTables(ds, os.Stderr)
	if err != nil {
		fail(err)
	}
	if *out == "" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fitgen:", err)
	os.Exit(1)
}
