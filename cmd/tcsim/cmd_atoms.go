package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tcsim/tcsim/layouts/catalog"
)

type atomsFlags struct {
	long   bool
	format string
}

const atomsHelp = `Lists the catalog of named layouts: the register fragments of wgmma,
mma.sync, ldmatrix/stmatrix and tcgen05.ld/st, the TMEM accumulator
placements of tcgen05.mma, and the canonical shared-memory layouts. Each
atom names its PTX ISA section (ISA 9.1 numbering), its architecture, its
thread and value counts, its tile, and whether hardware has verified it.

Every FILTER word must match (case-insensitive) the name, family, operand,
summary, arch, ISA section, kind or one of the PTX shapes the atom serves
(m64n64k16 finds wgmma A, B and D). A word ending in a digit must not be
followed by another digit: n8 matches m64n8 but not m64n80, x1 matches .x1
but not .x16.

Names: family.shape.operand[.source].type[.variant], lower case:
  family   wgmma, mma.sync, ldmatrix, stmatrix, tcgen05, smem
  shape    the PTX shape tokens the layout depends on: m64n64 (a wgmma
           accumulator), m64k16 (wgmma A), n64k16 (wgmma B), m16n8, m16k16,
           n8k16 (mma.sync), m8n8.x4 (ldmatrix/stmatrix .num),
           32x32b.x8 (tcgen05.ld/st shape and .num), tmem.m64n128 (TMEM)
  operand  a, b, d (the accumulator, PTX's operand d)
  source   reg or smem (wgmma A and B)
  type     f32 f16 s32 (accumulators); b16 (f16/bf16), tf32, b8 (e4m3/e5m2/
           s8/u8) for operands
  variant  trans (ldmatrix/stmatrix); cta1, cta2, ws (TMEM placements)
  shared memory: smem.MAJOR.SWIZZLE.bBITS with MAJOR k or mn and SWIZZLE
  inter, sw32, sw64, sw128 or sw128a32 (128B with 32B atomicity)

Tiles are CuTe's: A is M x K, B is N x K, accumulators M x N, indexed
column-major. The wgmma SMEM operands are whole-warpgroup broadcasts (all
128 threads own every cell). SMEM offsets are in elements (the byte form
CuTe prints is shown with --long); TMEM offsets are lane<<16|column.
tcgen05 atoms need sm_100a and are not hardware-verified.

examples:
  tcsim atoms wgmma f16 n64
  tcsim atoms m64n128k16 --long
  tcsim atoms ldmatrix trans
  tcsim atoms tcgen05 16x256b
  tcsim atoms smem sw128 --format json`

func init() {
	register(&command{
		name:    "atoms",
		args:    "[FILTER...]",
		summary: "list the thread-value atom catalog (wgmma, mma.sync, ldmatrix, tcgen05, SMEM)",
		help:    atomsHelp,
		setup: func(fs *flag.FlagSet) any {
			o := &atomsFlags{}
			fs.BoolVar(&o.long, "long", false, "describe each atom in full: layout, CuTe form, shapes, notes")
			fs.StringVar(&o.format, "format", "text", "output format: text or json")
			return o
		},
		run: runAtoms,
	})
}

func runAtoms(e *env, opts any, args []string) error {
	o := opts.(*atomsFlags)
	if o.format != "text" && o.format != "json" {
		return usagef("--format %q: want text or json", o.format)
	}
	query := strings.Join(args, " ")
	atoms := catalog.Filter(query)
	if len(atoms) == 0 {
		msg := fmt.Sprintf("no atom matches %q", query)
		if near := catalog.Nearest(query, 5); len(near) > 0 {
			msg += "; nearest names: " + strings.Join(near, ", ")
		}
		return fmt.Errorf("%s (run 'tcsim atoms' for the whole catalog)", msg)
	}
	switch {
	case o.format == "json":
		return writeAtomsJSON(e.stdout, atoms)
	case o.long:
		writeAtomsLong(e.stdout, atoms)
	default:
		writeAtomsTable(e.stdout, atoms)
	}
	return nil
}

// verifiedText is the short verification status of a listing.
func verifiedText(a catalog.Atom) string {
	switch {
	case a.Verified != "":
		return a.Verified
	case a.NeedsArch != "":
		return "no (needs " + a.NeedsArch + ")"
	}
	return "no"
}

func writeAtomsTable(w io.Writer, atoms []catalog.Atom) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tARCH\tISA\tTHREADS\tVALUES\tTILE\tVERIFIED")
	for _, a := range atoms {
		threads, values := "-", "-"
		if a.Kind == catalog.KindTV {
			threads, values = strconv.Itoa(a.Threads()), strconv.Itoa(a.Values())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%dx%d\t%s\n", a.Name, a.Family, a.Arch, a.Section,
			threads, values, a.Rows, a.Cols, verifiedText(a))
	}
	tw.Flush()
	fmt.Fprintf(w, "%d atom%s\n", len(atoms), plural(len(atoms)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeAtomsLong(w io.Writer, atoms []catalog.Atom) {
	for i, a := range atoms {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, a.Name)
		fmt.Fprintf(w, "  %s\n", a.Summary)
		op := ""
		if a.Operand != "" {
			op = ", operand " + a.Operand
		}
		fmt.Fprintf(w, "  family %s, arch %s, PTX ISA %s%s, kind %s\n", a.Family, a.Arch, a.Section, op, a.Kind)
		tile := fmt.Sprintf("  tile %dx%d (%s x %s), %d-bit elements", a.Rows, a.Cols, a.RowName, a.ColName, a.ElemBits)
		switch a.Kind {
		case catalog.KindTV:
			tile += fmt.Sprintf(", %d threads x %d values", a.Threads(), a.Values())
			if a.ValsPerReg > 0 {
				tile += fmt.Sprintf(", %d per register", a.ValsPerReg)
			}
			if a.Broadcast > 1 {
				tile += fmt.Sprintf(", broadcast: %d owners per cell", a.Broadcast)
			}
		case catalog.KindTMEM:
			if a.CTAs > 1 {
				tile += fmt.Sprintf(", over the %d CTAs of a pair", a.CTAs)
			}
		}
		fmt.Fprintln(w, tile)
		switch a.Kind {
		case catalog.KindTV:
			fmt.Fprintf(w, "  layout  %s  (thread, value) -> row + %d*col\n", a.Layout(), a.Rows)
		case catalog.KindSMEM:
			fmt.Fprintf(w, "  offsets %s  (row + %d*col) -> element offset\n", a.Layout(), a.Rows)
		case catalog.KindTMEM:
			fmt.Fprintf(w, "  offsets %s  (row + %d*col) -> TMEM lane<<16 | column\n", a.Layout(), a.Rows)
		}
		fmt.Fprintf(w, "  CuTe    %s\n", a.CuTe)
		if len(a.AddrRows) > 0 {
			fmt.Fprintf(w, "  row addresses: %s\n", addrRowsText(a.AddrRows))
		}
		if len(a.Shapes) > 0 {
			fmt.Fprintf(w, "  serves  %s\n", wrapWords(strings.Join(a.Shapes, " "), 88, "          "))
		}
		switch {
		case a.Verified != "":
			fmt.Fprintf(w, "  verified: %s\n", a.Verified)
		case a.NeedsArch != "":
			fmt.Fprintf(w, "  verified: no, not hardware-verified (needs %s)\n", a.NeedsArch)
		default:
			fmt.Fprintf(w, "  verified: no, not yet checked on hardware\n")
		}
		fmt.Fprintf(w, "  notes   %s\n", wrapWords(a.Notes, 88, "          "))
	}
}

// addrRowsText summarises which lanes supply which row addresses.
func addrRowsText(rows []int) string {
	used := 0
	for l, r := range rows {
		if r >= 0 {
			used = l + 1
		}
	}
	s := fmt.Sprintf("lane l supplies row l for lanes 0-%d", used-1)
	if used < len(rows) {
		s += fmt.Sprintf("; lanes %d-%d unused", used, len(rows)-1)
	}
	return s
}

// wrapWords wraps s at width columns, indenting continuation lines.
func wrapWords(s string, width int, indent string) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if col+1+len(word) > width {
				b.WriteString("\n" + indent)
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}

// atomJSON is the JSON form of an atom.
type atomJSON struct {
	Name       string   `json:"name"`
	Family     string   `json:"family"`
	Arch       string   `json:"arch"`
	Section    string   `json:"section"`
	Summary    string   `json:"summary"`
	Operand    string   `json:"operand,omitempty"`
	Kind       string   `json:"kind"`
	Rows       int      `json:"rows"`
	Cols       int      `json:"cols"`
	RowName    string   `json:"row_name"`
	ColName    string   `json:"col_name"`
	ElemBits   int      `json:"elem_bits"`
	ValsPerReg int      `json:"vals_per_reg"`
	Threads    int      `json:"threads,omitempty"`
	Values     int      `json:"values,omitempty"`
	Broadcast  int      `json:"broadcast,omitempty"`
	CTAs       int      `json:"ctas,omitempty"`
	Layout     string   `json:"layout"`
	CuTe       string   `json:"cute"`
	Shapes     []string `json:"shapes,omitempty"`
	AddrRows   []int    `json:"addr_rows,omitempty"`
	Verified   string   `json:"verified"`
	NeedsArch  string   `json:"needs_arch,omitempty"`
	Notes      string   `json:"notes"`
}

func writeAtomsJSON(w io.Writer, atoms []catalog.Atom) error {
	out := make([]atomJSON, 0, len(atoms))
	for _, a := range atoms {
		j := atomJSON{
			Name: a.Name, Family: a.Family, Arch: a.Arch, Section: a.Section, Summary: a.Summary, Operand: a.Operand,
			Kind: a.Kind.String(), Rows: a.Rows, Cols: a.Cols, RowName: a.RowName, ColName: a.ColName,
			ElemBits: a.ElemBits, ValsPerReg: a.ValsPerReg, CTAs: a.CTAs,
			Layout: a.Layout(), CuTe: a.CuTe, Shapes: a.Shapes, AddrRows: a.AddrRows,
			Verified: a.Verified, NeedsArch: a.NeedsArch, Notes: a.Notes,
		}
		if a.Kind == catalog.KindTV {
			j.Threads, j.Values, j.Broadcast = a.Threads(), a.Values(), a.Broadcast
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
