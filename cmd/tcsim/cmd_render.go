package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/render"
)

type renderFlags struct {
	*drawFlags
	out *string
	// a shared-memory descriptor instead of a layout
	major, dtype, arch *string
	bytes              *bool
	clean              *bool
}

func init() {
	register(&command{
		name:    "render",
		args:    "[flags] LAYOUT|ATOM|DESCRIPTOR -o FILE",
		summary: "write a layout's or a descriptor's picture to an SVG, PNG, HTML, text, ANSI or JSON file",
		help: `Writes the picture 'tcsim layout' draws to a file. The format comes from
the extension (.svg, .png, .html, .txt, .ansi, .json) or from --format.
'-o -' writes to standard output.

SVG, PNG and HTML draw every owner of a cell: up to four as stacked bands,
each in its thread's colour with its T#V# label, more as coloured stripes
under a lossless compact label (T0-3V1 = threads 0..3 hold value 1). SVG and
HTML cells carry a tooltip with every owner; in HTML, pointing at a cell
outlines every cell of the same thread. PNG is drawn in pure Go with tcsim's
own bitmap font. Text and ANSI files are exactly what 'tcsim layout' prints.
Threads are coloured by warp (hue) and lane (shade: light lane 0 to dark
lane 31), as the legend says; --color picks another scheme. --clean draws
a picture for documents (the title and the grid, no notes), --scale its
pixel size.

LAYOUT, ATOM and the drawing flags are as for 'tcsim layout' (see
'tcsim layout --help').

DESCRIPTOR is a wgmma or tcgen05 shared-memory descriptor in hex (0x...):
the picture is the operand tile (--tile MNxK elements, default 64 rows by
the 32 bytes of K one dense MMA reads) with every element labelled and
coloured by the core matrix that reads it, or with --bytes the shared-memory
bytes, one row per 128-byte line and one cell per 16-byte chunk labelled
core.row ("!" where two rows read the same chunk). --major (K or MN) is
required; --dtype sets the element type (default bf16) and --arch the
family (detected when omitted), as for 'tcsim desc --draw'.

Examples:
  tcsim render '((4,8,4),(2,2,32)):((128,1,16),(64,8,512))' --tile 64x256 -o acc.png
  tcsim render wgmma.m64n256.d.f32 -o acc.svg
  tcsim render smem.k.sw128.b16 -o sw128.png
  tcsim render --mma wgmma.m64n64k16 -o mma.html
  tcsim render mma.sync.m16n8.d.f32 --clean --scale 3 -o c.png
  tcsim render 0x4000004000010040 --major K --dtype bf16 -o desc.png
  tcsim render 0x4000004000010040 --major K --bytes -o desc_bytes.svg`,
		setup: func(fs *flag.FlagSet) any {
			rf := &renderFlags{drawFlags: addDrawFlags(fs, "text, ansi, json, svg, png or html (default: from the -o extension)")}
			rf.out = fs.String("o", "", "the file to write ('-' for standard output)")
			rf.major = fs.String("major", "", "DESCRIPTOR: the operand's major-ness, K or MN")
			rf.dtype = fs.String("dtype", "", "DESCRIPTOR: the element type in shared memory (default bf16)")
			rf.arch = fs.String("arch", "", "DESCRIPTOR: sm_90a (wgmma) or sm_100a (tcgen05); detected when omitted")
			rf.bytes = fs.Bool("bytes", false, "DESCRIPTOR: draw the shared-memory bytes instead of the operand tile")
			rf.clean = fs.Bool("clean", false, "a picture for documents: the title and the grid, without the notes under the title (with --no-legend, without the legend too)")
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
	o.Clean = *rf.clean
	var g *render.Grid
	if len(args) == 1 && input.IsValue(args[0]) {
		g, err = rf.descGrid(args[0])
		if *rf.color == "auto" {
			o.Color = render.ColorTag // by core matrix
		}
	} else if *rf.major != "" || *rf.dtype != "" || *rf.arch != "" || *rf.bytes {
		return usagef("--major, --dtype, --arch and --bytes apply to a DESCRIPTOR (0x...), not a layout")
	} else {
		g, err = rf.grid(args)
	}
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

// descGrid draws the footprint of a shared-memory descriptor.
func (rf *renderFlags) descGrid(arg string) (*render.Grid, error) {
	if *rf.mma {
		return nil, usagef("--mma applies to an MMA atom, not a DESCRIPTOR")
	}
	v, _, err := parseDescValue(arg)
	if err != nil {
		return nil, usagef("DESCRIPTOR: %v", err)
	}
	if *rf.major == "" {
		return nil, usagef("a DESCRIPTOR's picture needs --major K or MN")
	}
	o := &descFlags{major: *rf.major, dtype: *rf.dtype, tile: *rf.tile, arch: *rf.arch}
	if o.dtype == "" {
		o.dtype = "bf16"
	}
	ctx, err := o.context()
	if err != nil {
		return nil, err
	}
	arch, err := o.smemArch()
	if err != nil {
		return nil, err
	}
	r, err := desc.ExplainSmem(v, arch, ctx).WithFootprint()
	if err != nil {
		return nil, fmt.Errorf("descriptor %#x: %w", v, err)
	}
	var g *render.Grid
	if *rf.bytes {
		g, err = render.FootprintMemoryGrid(r.Footprint)
	} else {
		g, err = render.FootprintTileGrid(r.Footprint, r.Operand)
	}
	if err != nil {
		return nil, fmt.Errorf("descriptor %#x: %w", v, err)
	}
	g.Title = fmt.Sprintf("%s %#016x: %dx%d %s-major %s tile, %s swizzle", r.Title, v, r.Operand.MN, r.Operand.K, r.Operand.Major, ctx.DType, r.Layout.Swizzle)
	for _, f := range r.Findings {
		g.Notes = append(g.Notes, fmt.Sprintf("%s: %s [%s]", f.Severity, f.Msg, f.Rule))
	}
	return g, nil
}
