package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/input"
	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/render"
)

func init() {
	register(&command{
		name:    "layout",
		args:    "[flags] LAYOUT|ATOM",
		summary: "draw a layout's tile: which thread and value holds each cell",
		help: `Draws the tile of a catalog atom or of a layout in CuTe notation.

  ATOM      a catalog name (see 'tcsim atoms'): thread-value atoms show
            T<thread>V<value> in every cell; shared-memory atoms show the
            element offset of every cell, coloured by bank; TMEM atoms show
            the TMEM lane and column (L<lane>C<col>), coloured by the warp
            that can access the lane.
  LAYOUT    CuTe notation, e.g. '(8,8):(8,1)' or 'Sw<3,3,3> o 0 o (8,64):(64,1)',
            a pasted CuTe type or printout, or a layout expression such as
            'composition((4,8):(8,1), (8,4):(1,8))' (see 'tcsim layout eval').
            Rank-2 layouts are drawn as print_layout draws them (cell (r,c)
            holds L(r,c)); rank-1 layouts as one row. With --tile RxC (or
            RxC after the layout) the layout is read as a thread-value
            layout: (thread, value) -> column-major index r + R*c of an RxC
            tile; --bits N (or bN after the layout) gives the element width
            for banks. The TUI reads the same texts.

A cell held by several (thread, value) pairs (a broadcast) lists all of them;
when they do not fit the cell, a lossless compact form is used (T0-3V1 =
threads 0..3 hold value 1) or a reference *N into the legend below the grid.
Cells no thread holds show '.'. Labels that are not owners and do not fit
are cut with a visible '…'.

--mma draws an MMA's A, B and C together, placed as CuTe's pictures place
them: C at the origin, A to its left, B above it with K running down. Give
one operand's atom (the others are found in the catalog), an instruction
shape such as mma.sync.m16n8k16 or wgmma.m64n64k16 (add .f16, .smem, ... to
choose among variants), or three atoms A B C.

The default format is ansi on a terminal and text otherwise; NO_COLOR (when
set and not empty) and TERM=dumb turn the default to text. An explicit
--format ansi always colours.

Examples:
  tcsim layout '((4,8,4),(2,2,2)):((128,1,16),(64,8,512))' --tile 64x16
  tcsim layout 'Sw<3,3,3> o 0 o (8,64):(64,1)' --bits 16 --label bank
  tcsim layout wgmma.m64n256.d.f32 --region 0:16,120:136 --cell 6 --color warp
  tcsim layout tcgen05.tmem.m64n64.d.cta1 --region ,0:4
  tcsim layout --mma mma.sync.m16n8k16
  tcsim layout smem.k.sw128.b16 --format json   (every cell, for tools)`,
		setup: func(fs *flag.FlagSet) any {
			return addDrawFlags(fs, "text, ansi or json (default: ansi on a terminal, else text)")
		},
		run: runLayout,
	})
}

// drawFlags are the flags `tcsim layout` and `tcsim render` share.
type drawFlags struct {
	format, color, label, region, tile *string
	cell, bits, scale                  *int
	boxed, mma, noLegend               *bool
}

func addDrawFlags(fs *flag.FlagSet, formatHelp string) *drawFlags {
	return &drawFlags{
		format:   fs.String("format", "", "output format: "+formatHelp),
		color:    fs.String("color", "auto", "colour cells by thread, warp, lane, value, bank, offset or none (auto: thread for owners, bank for shared memory)"),
		label:    fs.String("label", "auto", "what offset cells show: offset, bank or byte (auto: offset)"),
		region:   fs.String("region", "", "draw only rows r0:r1 and cols c0:c1 (half-open), e.g. 0:16,0:32 or ,128:"),
		tile:     fs.String("tile", "", "read LAYOUT as a thread-value layout over an RxC tile, e.g. 64x256"),
		cell:     fs.Int("cell", 0, "characters per cell (0: fit the widest label, up to 16); longer labels are shortened, never dropped"),
		bits:     fs.Int("bits", 0, "element width in bits of a plain LAYOUT, to show shared-memory banks (bank = byte offset / 4 mod 32)"),
		scale:    fs.Int("scale", 0, "pixel scale of SVG/PNG/HTML pictures, for tcsim render (0: 2 for small grids, 1 for large)"),
		boxed:    fs.Bool("boxed", false, "draw text with CuTe print_layout borders"),
		mma:      fs.Bool("mma", false, "draw an MMA's A, B and C together as CuTe does: A left, B above, C at the origin (give an operand's atom, a shape such as mma.sync.m16n8k16, or A B C)"),
		noLegend: fs.Bool("no-legend", false, "leave out the colour key and the coverage summary"),
	}
}

// options converts the flags to render options.
func (d *drawFlags) options() (render.Options, error) {
	var o render.Options
	var err error
	if o.Color, err = render.ParseColorBy(*d.color); err != nil {
		return o, usagef("--color: %v", err)
	}
	if o.Label, err = render.ParseLabelMode(*d.label); err != nil {
		return o, usagef("--label: %v", err)
	}
	if *d.region != "" {
		if o.Region, err = render.ParseRegion(*d.region); err != nil {
			return o, usagef("--region: %v", err)
		}
	}
	if *d.cell < 0 || *d.cell > 256 {
		return o, usagef("--cell %d: must be between 0 (automatic) and 256", *d.cell)
	}
	if *d.scale < 0 || *d.scale > 16 {
		return o, usagef("--scale %d: must be between 0 (automatic) and 16", *d.scale)
	}
	o.CellWidth, o.Scale, o.Boxed, o.NoLegend = *d.cell, *d.scale, *d.boxed, *d.noLegend
	return o, nil
}

// grid builds the picture model the arguments name.
func (d *drawFlags) grid(args []string) (*render.Grid, error) {
	if len(args) == 0 {
		return nil, usagef("missing LAYOUT or ATOM (e.g. '(8,8):(8,1)' or a name from 'tcsim atoms')")
	}
	if *d.mma {
		return d.mmaGrid(args)
	}
	src := strings.TrimSpace(strings.Join(args, " "))
	in, err := parseLayoutArg(src)
	if err != nil {
		return nil, err
	}
	if a := in.Atom; a != nil {
		if *d.tile != "" {
			return nil, usagef("--tile applies to a plain LAYOUT; atom %s already has its %dx%d tile", a.Name, a.Rows, a.Cols)
		}
		if *d.bits != 0 {
			return nil, usagef("--bits applies to a plain LAYOUT; atom %s has %d-bit elements", a.Name, a.ElemBits)
		}
		return render.FromAtom(*a)
	}
	l := in.Layout
	if *d.bits < 0 || *d.bits > 1024 {
		return nil, usagef("--bits %d: must be between 1 and 1024", *d.bits)
	}
	bits := in.Bits
	if *d.bits != 0 {
		if bits != 0 && bits != *d.bits {
			return nil, usagef("--bits %d: the text already gives b%d", *d.bits, bits)
		}
		bits = *d.bits
	}
	rows, cols := in.Tile[0], in.Tile[1]
	if *d.tile != "" {
		r, c, err := parseTile(*d.tile, math.MaxInt)
		if err != nil {
			return nil, err
		}
		if rows != 0 && (rows != r || cols != c) {
			return nil, usagef("--tile %s: the text already gives the tile %dx%d", *d.tile, rows, cols)
		}
		rows, cols = r, c
	}
	var g *render.Grid
	if rows > 0 {
		if rows > render.MaxCells/cols {
			return nil, usagef("tile %dx%d: %d cells is more than the %d that can be drawn", rows, cols, int64(rows)*int64(cols), render.MaxCells)
		}
		if l.Composed {
			return nil, usagef("--tile: %v is a swizzled layout; a thread-value layout must be a plain layout", l)
		}
		g, err = render.FromTVLayout(l.L, rows, cols)
	} else {
		g, err = render.FromLayout(l, bits)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	for _, n := range in.Notes {
		g.Notes = append(g.Notes, "note: "+n)
	}
	return g, nil
}

// parseLayoutArg resolves a LAYOUT argument with package input, as the
// TUI does: an atom, CuTe notation or a layout expression, with an
// optional tile and element width. A syntax error of CuTe notation is a
// usage error that shows the column.
func parseLayoutArg(src string) (*input.Layout, error) {
	in, err := input.ParseLayout(src)
	if err != nil {
		var pe *layouts.ParseError
		if errors.As(err, &pe) {
			return nil, caretUsage("bad layout", pe, pe.Caret())
		}
		return nil, usagef("%v", err)
	}
	return in, nil
}

// caretUsage is the usage error "what: err" followed by the input line and
// a caret under the offending column (caret is the two lines a parse
// error's Caret method returns), indented.
func caretUsage(what string, err error, caret string) error {
	return usagef("%s: %v\n  %s", what, err, strings.ReplaceAll(caret, "\n", "\n  "))
}

// parseTile reads a --tile value "RxC": positive integers of at most
// maxDim each.
func parseTile(s string, maxDim int) (int, int, error) {
	r, c, ok := strings.Cut(strings.ToLower(s), "x")
	rows, err1 := strconv.Atoi(strings.TrimSpace(r))
	cols, err2 := strconv.Atoi(strings.TrimSpace(c))
	if !ok || err1 != nil || err2 != nil || rows <= 0 || cols <= 0 {
		return 0, 0, usagef("--tile %q: want ROWSxCOLS with positive integers, e.g. 64x256", s)
	}
	if rows > maxDim || cols > maxDim {
		return 0, 0, usagef("--tile %q: at most %d rows and %d columns", s, maxDim, maxDim)
	}
	return rows, cols, nil
}

// mmaGrid draws an MMA's operands together. The arguments are one atom
// (its sibling operands are found in the catalog), an instruction shape
// such as mma.sync.m16n8k16 or wgmma.m64n128k16 (optionally followed by
// preferences such as .f16 or .smem), or three atoms A B C.
func (d *drawFlags) mmaGrid(args []string) (*render.Grid, error) {
	if *d.tile != "" || *d.bits != 0 {
		return nil, usagef("--mma draws catalog atoms; --tile and --bits apply to plain layouts")
	}
	var a, b, c catalog.Atom
	switch len(args) {
	case 1:
		var err error
		if a, b, c, err = catalog.MMAOperands(args[0]); err != nil {
			return nil, usagef("--mma: %v", err)
		}
	case 3:
		var ops [3]catalog.Atom
		for i, name := range args {
			var err error
			if ops[i], err = catalog.Lookup(name); err != nil {
				return nil, usagef("--mma: %v", err)
			}
		}
		a, b, c = ops[0], ops[1], ops[2]
	default:
		return nil, usagef("--mma takes one atom or instruction shape (e.g. mma.sync.m16n8k16), or three atoms A B C")
	}
	g, err := render.MMA(a, b, c)
	if err != nil {
		return nil, usagef("--mma: %v", err)
	}
	return g, nil
}

// defaultFormat is ansi on a colour terminal, else text.
func defaultFormat(e *env) render.Format {
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return render.FormatText
	}
	if f, ok := e.stdout.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return render.FormatANSI
		}
	}
	return render.FormatText
}

func runLayout(e *env, opts any, args []string) error {
	d := opts.(*drawFlags)
	f := defaultFormat(e)
	if *d.format != "" {
		var err error
		if f, err = render.ParseFormat(*d.format); err != nil {
			return usagef("--format: %v", err)
		}
		if f != render.FormatText && f != render.FormatANSI && f != render.FormatJSON {
			return usagef("--format %s: tcsim layout prints text, ansi or json; write %s files with 'tcsim render -o FILE'", f, f)
		}
	}
	o, err := d.options()
	if err != nil {
		return err
	}
	g, err := d.grid(args)
	if err != nil {
		return err
	}
	if _, err := o.Region.Resolve(g); err != nil {
		return usagef("--region: %v", err)
	}
	note := ""
	if (f == render.FormatText || f == render.FormatANSI) && e.width > 0 {
		if e.width < render.NoteWidth+4 {
			o.Width = e.width // the notes under the title wrap to the terminal
		}
		if *d.region == "" {
			if o, note, err = fitTerminal(g, o, e.width); err != nil {
				return err
			}
		}
	}
	if err := render.Write(e.stdout, g, f, o); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	return nil
}

// fitTerminal narrows a picture wider than the terminal to the columns
// that fit, and returns the note that says how to see the rest. Files and
// pipes (width 0) keep the whole picture.
func fitTerminal(g *render.Grid, o render.Options, width int) (render.Options, string, error) {
	cw, err := render.TextCellWidth(g, o)
	if err != nil {
		return o, "", err
	}
	lw, _ := g.TextFrame(render.Region{Row1: g.Rows, Col1: g.Cols}, cw)
	per, extra := cw+1, 0
	if o.Boxed {
		per, extra = cw+3, 2
	}
	if lw+extra+g.Cols*per <= width {
		return o, "", nil
	}
	n := max(1, (width-lw-extra)/per)
	o.Region = render.Region{Col0: 0, Col1: n}
	note := fmt.Sprintf("(%d of %d columns fit this %d-column terminal: --region ,%d:%d shows the next ones; a pipe or a file gets the whole picture, e.g. | less -S)",
		n, g.Cols, width, n, min(2*n, g.Cols))
	return o, wrapWords(note, width, ""), nil
}
