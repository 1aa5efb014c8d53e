package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tcsim/tcsim/layouts/bitmath"
	"github.com/tcsim/tcsim/layouts/catalog"
)

type bitmathFlags struct {
	lang, tile, check        *string
	inverse, forward, matrix *bool
	index                    *bool
}

func init() {
	register(&command{
		name:    "bitmath",
		args:    "[flags] ATOM|LAYOUT",
		summary: "derive epilogue bitmath: shift/mask formulas for (tid, v) <-> (row, col)",
		help: `Views a layout as a matrix over F2 (bits in, bits out) and derives the
simplest shift/mask/add/xor formulas for both directions, with one comment
line per term saying which bits move where. The output is code you can
paste: a function in C, Go or Python, or a PTX block.

  ATOM      a catalog name (see 'tcsim atoms'): thread-value atoms map
            (tid, v) -> (row, col); shared-memory atoms (row, col) -> offset;
            TMEM placements (row, col) -> taddr (lane<<16 | column).
  LAYOUT    CuTe notation. A rank-2 layout maps (row, col) -> offset (or,
            with --index, i -> offset); with --tile RxC it is read as a
            thread-value layout over an RxC tile. Swizzled layouts such as
            'Sw<3,4,3> o 0 o (8,64):(64,1)' are accepted.

The extents need not be powers of two (wgmma N=24 works), but the map must
be XOR-linear on its bits; tcsim checks every input and, when it is not,
shows the smallest input where it fails and why (usually strides whose
bits overlap, so adding them carries).

How the formulas are chosen: runs of input bits that land on consecutive
output bits with the same shift become one ((x >> a) & m) << b term, with
no-op parts dropped; terms with disjoint bits are joined with + (no carries,
so + = | = ^), overlapping ones (swizzles) with ^. The thread index is split
into wid = tid >> 5 and lane = tid & 31, a swizzle is undone through the
unswizzled offset lin, and the thread-only part of an output is named
frag_row/frag_col, whenever that costs no more operations.

--check evaluates your own formula for every thread and value (or, with
--inverse, every cell) and reports "correct" or the first place it differs.
A formula is assignments separated by ';' or new lines, with C's integer
operators + - * / % << >> & | ^ ~ and parentheses. Names: tid and v, and
lane (tid & 31), wid (tid >> 5), reg and r (= v); an inverse formula uses
row and col and assigns tid (or lane and wid) and v. Exit status: 0 correct,
1 wrong, 2 malformed.

Examples:
  tcsim bitmath wgmma.m64n256.d.f32
  tcsim bitmath wgmma.m64n64.d.f32 --lang ptx --inverse
  tcsim bitmath smem.k.sw128.b16 --matrix
  tcsim bitmath 'Sw<3,4,3> o 0 o (8,64):(64,1)' --lang python
  tcsim bitmath '((4,8,4),(2,2,2)):((128,1,16),(64,8,512))' --tile 64x16
  tcsim bitmath wgmma.m64n64.d.f32 --check 'row = (wid<<4) + (lane>>2) + 8*((v>>1)&1); col = ((lane&3)<<1) + 8*(v>>2) + (v&1)'`,
		setup: func(fs *flag.FlagSet) any {
			return &bitmathFlags{
				lang:    fs.String("lang", "c", "language of the formulas: c, ptx, python or go"),
				inverse: fs.Bool("inverse", false, "only the inverse direction, (row, col) -> (tid, v); with --check, check an inverse formula"),
				forward: fs.Bool("forward", false, "only the forward direction, (tid, v) -> (row, col)"),
				matrix:  fs.Bool("matrix", false, "print the F2 matrix (columns: input bits l0.. w0.. v0..; rows: output bits r0.. c0..) and its rank, kernel, image and inverse"),
				tile:    fs.String("tile", "", "read a rank-2 LAYOUT as a thread-value layout over an ROWSxCOLS tile, e.g. 64x256"),
				index:   fs.Bool("index", false, "read a rank-2 LAYOUT as linear index i -> offset instead of (row, col) -> offset"),
				check:   fs.String("check", "", "check FORMULA (e.g. 'row = ...; col = ...') against the layout for every input"),
			}
		},
		run: runBitmath,
	})
}

func runBitmath(e *env, opts any, args []string) error {
	f := opts.(*bitmathFlags)
	if len(args) == 0 {
		return usagef("missing ATOM or LAYOUT (e.g. wgmma.m64n64.d.f32 or '(8,64):(64,1)')")
	}
	lang, err := bitmath.ParseLang(*f.lang)
	if err != nil {
		return usagef("--lang: %v", err)
	}
	if *f.inverse && *f.forward {
		return usagef("--inverse and --forward exclude each other (give neither for both directions)")
	}
	m, header, err := bitmathMap(strings.TrimSpace(strings.Join(args, " ")), f)
	if err != nil {
		return err
	}
	if *f.check != "" {
		if *f.matrix || *f.forward {
			return usagef("--check takes no --matrix or --forward (add --inverse to check an inverse formula)")
		}
		return bitmathCheck(e, m, header, *f.check, *f.inverse)
	}
	d, err := bitmath.Derive(m)
	if err != nil {
		var nl *bitmath.NonLinearError
		if errors.As(err, &nl) {
			return fmt.Errorf("%v\n(the F2 view needs a map that is XOR-linear on its bits; 'tcsim layout' still draws it)", err)
		}
		return err
	}
	if *f.matrix {
		return bitmathMatrix(e.stdout, d, header, *f.inverse)
	}
	cm := "// "
	if lang == bitmath.Python {
		cm = "# "
	}
	for _, h := range header {
		fmt.Fprintf(e.stdout, "%s%s\n", cm, h)
	}
	for _, s := range d.Summary()[:1] {
		fmt.Fprintf(e.stdout, "%s%s\n", cm, s)
	}
	fmt.Fprintf(e.stdout, "%sTerms with disjoint bits are joined with +, overlapping ones with ^; inputs must be in range.\n\n", cm)
	progs := []*bitmath.Program{d.Forward, d.Inverse}
	switch {
	case *f.inverse:
		progs = progs[1:]
	case *f.forward:
		progs = progs[:1]
	}
	for i, p := range progs {
		code, err := bitmath.Emit(p, lang)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		io.WriteString(e.stdout, code)
	}
	return nil
}

// bitmathMap resolves the argument to a map (package input, as the TUI's
// bitmath view reads it): a catalog atom, CuTe notation or a layout
// expression, with an optional tile. header describes it in a few lines.
func bitmathMap(src string, f *bitmathFlags) (bitmath.Map, []string, error) {
	in, err := parseLayoutArg(src)
	if err != nil {
		return bitmath.Map{}, nil, err
	}
	if a := in.Atom; a != nil {
		if *f.tile != "" || *f.index {
			return bitmath.Map{}, nil, usagef("--tile and --index apply to a plain LAYOUT; atom %s already has its %dx%d tile", a.Name, a.Rows, a.Cols)
		}
		return atomMap(*a)
	}
	l := in.Layout
	rows, cols := in.Tile[0], in.Tile[1]
	if *f.tile != "" {
		r, c, err := parseTile(*f.tile, 1<<20)
		if err != nil {
			return bitmath.Map{}, nil, err
		}
		if rows != 0 && (rows != r || cols != c) {
			return bitmath.Map{}, nil, usagef("--tile %s: the text already gives the tile %dx%d", *f.tile, rows, cols)
		}
		rows, cols = r, c
	}
	if rows > 0 {
		if *f.index {
			return bitmath.Map{}, nil, usagef("--tile and --index exclude each other")
		}
		if l.Composed {
			return bitmath.Map{}, nil, usagef("--tile: %v is swizzled; a thread-value layout must be a plain layout", l)
		}
		m, err := bitmath.FromTVLayout(l.String(), l.L, rows, cols)
		if err != nil {
			return bitmath.Map{}, nil, usagef("%v", err)
		}
		return m, []string{fmt.Sprintf("%v: %s", l, m.Desc)}, nil
	}
	m, err := bitmath.FromLayout(l.String(), l, !*f.index)
	if err != nil {
		return bitmath.Map{}, nil, usagef("%v", err)
	}
	return m, []string{fmt.Sprintf("%v: %s", l, m.Desc)}, nil
}

// atomMap builds the map of a catalog atom and its header lines.
func atomMap(a catalog.Atom) (bitmath.Map, []string, error) {
	m, err := bitmath.FromAtom(a)
	if err != nil {
		return bitmath.Map{}, nil, err
	}
	h := []string{fmt.Sprintf("%s: %s", a.Name, m.Desc)}
	var where []string
	if a.RowName != "" && a.ColName != "" {
		where = append(where, fmt.Sprintf("row = %s, col = %s", a.RowName, a.ColName))
	}
	if a.ValsPerReg > 1 {
		where = append(where, fmt.Sprintf("value v is in register v/%d (%d values per 32-bit register)", a.ValsPerReg, a.ValsPerReg))
	}
	if len(where) > 0 {
		h = append(h, strings.Join(where, "; "))
	}
	src := "PTX ISA " + a.Section
	if a.Verified != "" {
		src += "; hardware-verified: " + a.Verified
	} else {
		src += "; not hardware-verified"
		if a.NeedsArch != "" {
			src += " (needs " + a.NeedsArch + ")"
		}
	}
	h = append(h, src)
	return m, h, nil
}

func bitmathMatrix(w io.Writer, d *bitmath.Derivation, header []string, inverse bool) error {
	for _, h := range header {
		fmt.Fprintln(w, h)
	}
	mat, what := d.Matrix, "the map"
	if inverse {
		mat, what = d.Inv.M, "the inverse ("+d.Inv.Kind.String()+")"
	}
	fmt.Fprintf(w, "\nF2 matrix of %s: each output bit (a line) is the XOR of the input bits (columns) marked 1\n\n", what)
	io.WriteString(w, mat.String())
	fmt.Fprintln(w)
	for _, s := range d.Summary() {
		fmt.Fprintln(w, s)
	}
	notes := d.Inverse.Notes
	if len(notes) == 0 && d.Inv.Kind == bitmath.Bijective {
		notes = []string{"inverse: exact (Gaussian elimination over F2); 'tcsim bitmath --inverse' prints it as code"}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

func bitmathCheck(e *env, m bitmath.Map, header []string, formula string, inverse bool) error {
	r, err := bitmath.Check(m, formula, inverse)
	if err != nil {
		var fe *bitmath.FormulaError
		if errors.As(err, &fe) {
			return caretUsage("bad formula", fe, fe.Caret())
		}
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", header[0])
	io.WriteString(e.stdout, r.String())
	if !r.OK() {
		return errors.New("the formula is wrong")
	}
	return nil
}
