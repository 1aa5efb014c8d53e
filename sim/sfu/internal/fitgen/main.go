// Command fitgen fits the special function unit's interpolator tables to
// results recorded on a GPU and writes them as Go source:
//
//	tcsim verify approx --gpu --dump DIR     (on the GPU machine)
//	go run ./sim/sfu/internal/fitgen -o sim/sfu/tables_gen.go DIR/dump*.gz
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
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
	qs, err := sfu.FitQuads(ds, os.Stderr)
	if err != nil {
		fail(err)
	}
	var b bytes.Buffer
	sfu.WriteTables(&b, qs, "sim/sfu/internal/fitgen from recorded H100 results")
	src, err := format.Source(b.Bytes())
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
