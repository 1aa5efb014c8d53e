package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/tcsim/tcsim/render"
)

type renderFlags struct {
	*drawFlags
	out *string
}

func init() {
	register(&command{
		name:    "render",
		args:    "[flags] LAYOUT|ATOM -o FILE",
		summary: "write a layout's picture to an SVG, PNG, HTML, text, ANSI or JSON file",
		help: `Writes the picture 'tcsim layout' draws to a file. The format comes from
the extension (.svg, .png, .html, .txt, .ansi, .json) or from --format.
'-o -' writes to standard output.

SVG, PNG and HTML draw every owner of a cell: up to four as stacked bands,
each in its thread's colour with its T#V# label, more as coloured stripes
under a lossless compact label (T0-3V1 = threads 0..3 hold value 1). SVG and
HTML cells carry a tooltip with every owner; in HTML, pointing at a cell
outlines every cell of the same thread. PNG is drawn in pure Go with tcsim's
own bitmap font. Text and ANSI files are exactly what 'tcsim layout' prints.

LAYOUT, ATOM and the drawing flags are as for 'tcsim layout' (see
'tcsim layout --help').

Examples:
  tcsim render '((4,8,4),(2,2,32)):((128,1,16),(64,8,512))' --tile 64x256 -o acc.png
  tcsim render wgmma.m64n256.d.f32 -o acc.svg
  tcsim render smem.k.sw128.b16 -o sw128.png
  tcsim render --mma wgmma.m64n64k16 -o mma.html`,
		setup: func(fs *flag.FlagSet) any {
			rf := &renderFlags{drawFlags: addDrawFlags(fs, "text, ansi, json, svg, png or html (default: from the -o extension)")}
			rf.out = fs.String("o", "", "the file to write ('-' for standard output)")
			return rf
		},
		run: runRender,
	})
}

func runRender(e *env, opts any, args []string) error {
	rf := opts.(*renderFlags)
	if *rf.out == "" {
		return usagef("missing -o FILE (e.g. -o layout.svg)")
	}
	var f render.Format
	var err error
	switch {
	case *rf.format != "":
		if f, err = render.ParseFormat(*rf.format); err != nil {
			return usagef("--format: %v", err)
		}
	case *rf.out == "-":
		f = defaultFormat(e)
	default:
		if f, err = render.FormatOf(*rf.out); err != nil {
			return usagef("-o: %v", err)
		}
	}
	o, err := rf.options()
	if err != nil {
		return err
	}
	g, err := rf.grid(args)
	if err != nil {
		return err
	}
	if _, err := o.Region.Resolve(g); err != nil {
		return usagef("--region: %v", err)
	}
	var buf bytes.Buffer
	if err := render.Write(&buf, g, f, o); err != nil {
		return err
	}
	if *rf.out == "-" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(*rf.out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the picture: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote %s (%s, %d bytes, %dx%d cells)\n", *rf.out, f, buf.Len(), g.Rows, g.Cols)
	return nil
}
