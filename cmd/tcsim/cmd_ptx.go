package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"github.com/tcsim/tcsim/internal/fileutil"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/tcsim/tcsim/internal/demangle"
	"github.com/tcsim/tcsim/internal/suggest"
	"github.com/tcsim/tcsim/isa/ptx"
)

func init() {
	register(&command{
		name: "ptx", args: "SUBCOMMAND ...", summary: "PTX front end: check and format PTX files",
		help: `Reads the PTX that nvcc emits for sm_90a and sm_100a kernels (and hand-written
PTX): parses it, validates every instruction against tcsim's instruction catalog
and prints it back in a normalised form. Run a subcommand.`,
		run: groupRun("ptx"),
	})
	register(&command{
		name: "ptx check", args: "FILE...", summary: "parse and validate PTX files and print every diagnostic",
		help: `Parses and validates each FILE ("-" reads standard input) and prints every
diagnostic as file:line:col: message (hint), followed by the source line and a
caret under the offending token. Diagnostics marked "warning" are code that
ptxas accepts but that is wrong or undefined at run time (a generic address in a
32-bit register, a misaligned mbarrier ...).

Checks: the module header (.version, .target, .address_size), declarations,
labels and registers, and every instruction against the catalog: opcode,
modifiers, operand count and kinds, register types, state spaces of symbols,
the target architecture and PTX version, and the legal combinations of each
family (wgmma shapes, types and immediates, tcgen05 shapes and counts, mbarrier
operands, mma fragments, cp.async.bulk.tensor coordinates ...).

A file that is empty, holds only comments, declares no function, is not
text (a cubin, random bytes) or ends in the middle of a statement (a cut or
interrupted file) is an error, reported once. At most --max-errors
diagnostics are printed per file, followed by how many more there are.

For a valid file, check prints a summary, each kernel's name (demangled and
abbreviated: cutlass::device_kernel<GemmUniversal<…>>; --full-names prints
the whole C++ name and the mangled one) and, when the kernel uses
asynchronous protocols (wgmma, tcgen05, mbarrier, TMA), a reminder that
'tcsim run --check' checks those protocols, which a static check cannot.

Exit status: 0 when no file has a diagnostic, 1 otherwise.

  tcsim ptx check gemm_sm90a.ptx
  nvcc -arch=sm_100a -ptx k.cu -o - | tcsim ptx check -`,
		setup: func(fs *flag.FlagSet) any {
			o := &ptxCheckOpts{}
			fs.BoolVar(&o.brief, "brief", false, "print only the file:line:col: message lines, without source excerpts")
			fs.IntVar(&o.maxErrors, "max-errors", 20, "print at most `N` diagnostics per file (0: all)")
			fs.BoolVar(&o.fullNames, "full-names", false, "print kernel names in full (demangled C++ and mangled)")
			return o
		},
		run: runPtxCheck,
	})
	register(&command{
		name: "ptx fmt", args: "FILE", summary: "print a PTX file in normalised form",
		help: `Parses FILE ("-" reads standard input) and prints it back as normalised PTX:
one statement per line, tab indentation by block depth, operands separated by
", ", integers in decimal (hexadecimal where they were written so), floats as
0f/0d bit patterns, and comments dropped. Parsing the output gives the same
syntax tree. Syntax errors are printed instead (exit status 1); fmt does not
validate.`,
		run: runPtxFmt,
	})
	register(&command{
		name: "ptx opcodes", args: "[FILTER]", summary: "list the instruction catalog",
		help: `Lists the opcodes tcsim's PTX front end knows, with their family, the oldest
target that has them and the number of syntax forms. FILTER keeps opcodes or
families that contain it.

  tcsim ptx opcodes tcgen05`,
		run: runPtxOpcodes,
	})
}

type ptxCheckOpts struct {
	brief     bool
	maxErrors int
	fullNames bool
}

func readPTX(e *env, name string) ([]byte, error) {
	if name == "-" {
		return fileutil.ReadAll(e.stdin, "standard input", maxPTXBytes)
	}
	return readPTXFile(name)
}

func runPtxCheck(e *env, opts any, args []string) error {
	o := opts.(*ptxCheckOpts)
	if len(args) == 0 {
		return usagef("ptx check needs at least one FILE")
	}
	if o.maxErrors < 0 {
		return usagef("--max-errors %d: want 0 (no limit) or more", o.maxErrors)
	}
	nerr, nwarn := 0, 0
	for _, name := range args {
		src, err := readPTX(e, name)
		if err != nil {
			return fmt.Errorf("reading PTX: %w", err)
		}
		display := name
		if name == "-" {
			display = "<stdin>"
		}
		m, errs := ptx.Check(display, src)
		if len(errs) == 0 {
			fmt.Fprintf(e.stdout, "%s: ok (%s)\n", display, moduleSummary(m))
			if !o.brief {
				printKernels(e.stdout, m, o.fullNames)
				printProtocolHint(e.stdout, m, name)
			}
			continue
		}
		lines := strings.Split(string(src), "\n")
		shown := 0
		for _, d := range errs {
			if d.Warning {
				nwarn++
			} else {
				nerr++
			}
			if o.maxErrors > 0 && shown == o.maxErrors {
				continue
			}
			shown++
			fmt.Fprintln(e.stdout, d.Error())
			if !o.brief {
				printExcerpt(e.stdout, lines, d.Pos.Line, d.Pos.Col)
			}
		}
		if more := len(errs) - shown; more > 0 {
			fmt.Fprintf(e.stdout, "%s: ... and %d more (--max-errors 0 prints every diagnostic)\n", display, more)
		}
	}
	if nerr+nwarn == 0 {
		return nil
	}
	return errors.New(ptxPlural(nerr, "error") + ", " + ptxPlural(nwarn, "warning"))
}

func ptxPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// printExcerpt prints the source line, with tabs expanded to stops of 4,
// and a caret under column col. Lines that are not text (binary input)
// or are very long are not echoed.
func printExcerpt(w io.Writer, lines []string, line, col int32) {
	if line < 1 || int(line) > len(lines) {
		return
	}
	src := strings.TrimRight(lines[line-1], "\r")
	if len(src) > 1000 || !printable(src) {
		return
	}
	var text strings.Builder
	caretAt := -1
	for i := 0; i < len(src); i++ {
		if i == int(col)-1 {
			caretAt = text.Len()
		}
		if src[i] == '\t' {
			text.WriteString(strings.Repeat(" ", 4-text.Len()%4))
		} else {
			text.WriteByte(src[i])
		}
	}
	if caretAt < 0 {
		caretAt = text.Len()
	}
	fmt.Fprintf(w, "    %s\n    %s^\n", text.String(), strings.Repeat(" ", caretAt))
}

// printable reports whether s is UTF-8 text without control characters
// other than tabs.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// printKernels lists the module's kernels by readable name.
func printKernels(w io.Writer, m *ptx.Module, full bool) {
	for _, f := range m.Functions() {
		if !f.Entry || f.Body == nil {
			continue
		}
		if !full {
			fmt.Fprintf(w, "  kernel %s\n", demangle.Short(f.Name))
			continue
		}
		fmt.Fprintf(w, "  kernel %s\n", demangle.Demangle(f.Name))
		if demangle.IsMangled(f.Name) {
			fmt.Fprintf(w, "    mangled %s\n", f.Name)
		}
	}
}

// printProtocolHint points to 'tcsim run --check' for a module that uses
// asynchronous protocols, which no static check can judge.
func printProtocolHint(w io.Writer, m *ptx.Module, file string) {
	var uses []string
	for _, f := range moduleFamilies(m) {
		switch f {
		case "wgmma", "tcgen05", "mbarrier":
			uses = append(uses, f)
		case "async-copy":
			uses = append(uses, "async-copy")
		}
	}
	if len(uses) == 0 {
		return
	}
	if file == "-" || strings.ContainsAny(file, " \t'\"") {
		file = "KERNEL.ptx"
	}
	fmt.Fprintf(w, "  note: ptx check validates instructions, not the %s protocols;\n"+
		"    a simulated launch checks them (--launch FILE, or --grid, --block and --param):\n"+
		"    tcsim run %s --check --launch FILE\n", andList(uses), file)
}

// andList joins words as "a, b and c".
func andList(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// moduleFamilies lists the instruction families of the module's functions
// that tcsim checks protocols for, in order.
func moduleFamilies(m *ptx.Module) []string {
	seen := map[string]bool{}
	for _, f := range m.Functions() {
		if f.Body == nil {
			continue
		}
		walkInstructions(f.Body, func(in *ptx.Instruction) {
			if info := ptx.Lookup(in.Opcode); info != nil {
				seen[info.Family] = true
			}
		})
	}
	var out []string
	for _, f := range []string{"wgmma", "tcgen05", "mbarrier", "async-copy"} {
		if seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// moduleSummary describes a valid module in a few words.
func moduleSummary(m *ptx.Module) string {
	funcs, kernels, insts := 0, 0, 0
	families := map[string]int{}
	for _, f := range m.Functions() {
		if f.Body == nil {
			continue
		}
		funcs++
		if f.Entry {
			kernels++
		}
		walkInstructions(f.Body, func(in *ptx.Instruction) {
			insts++
			if info := ptx.Lookup(in.Opcode); info != nil {
				switch info.Family {
				case "wgmma", "tcgen05", "mma", "mbarrier", "async-copy", "matrix":
					families[info.Family]++
				}
			}
		})
	}
	target := "no target"
	if t := m.Target(); t != nil {
		target = strings.Join(t.Targets, ", ")
	}
	s := fmt.Sprintf("%s, %s (%s), %s", target, ptxPlural(funcs, "function"), ptxPlural(kernels, "kernel"), ptxPlural(insts, "instruction"))
	if len(families) > 0 {
		var names []string
		for f := range families {
			names = append(names, f)
		}
		sort.Strings(names)
		var parts []string
		for _, f := range names {
			parts = append(parts, fmt.Sprintf("%s %d", f, families[f]))
		}
		s += "; " + strings.Join(parts, ", ")
	}
	return s
}

func walkInstructions(b *ptx.Block, fn func(*ptx.Instruction)) {
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ptx.Instruction:
			fn(st)
		case *ptx.Block:
			walkInstructions(st, fn)
		}
	}
}

func runPtxFmt(e *env, _ any, args []string) error {
	if len(args) != 1 {
		return usagef("ptx fmt takes one FILE")
	}
	src, err := readPTX(e, args[0])
	if err != nil {
		return fmt.Errorf("reading PTX: %w", err)
	}
	name := args[0]
	if name == "-" {
		name = "<stdin>"
	}
	m, err := ptx.ParseFile(name, src)
	if err != nil {
		var el ptx.ErrorList
		if errors.As(err, &el) {
			for _, d := range el {
				fmt.Fprintln(e.stderr, d.Error())
			}
			return errors.New(ptxPlural(len(el), "syntax error"))
		}
		return err
	}
	return ptx.Fprint(e.stdout, m)
}

func runPtxOpcodes(e *env, _ any, args []string) error {
	if len(args) > 1 {
		return usagef("ptx opcodes takes at most one FILTER")
	}
	filter := ""
	if len(args) == 1 {
		filter = args[0]
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "OPCODE\tFAMILY\tTARGET\tFORMS")
	n := 0
	for _, op := range ptx.Opcodes() {
		info := ptx.Lookup(op)
		if filter != "" && !strings.Contains(op, filter) && !strings.Contains(info.Family, filter) {
			continue
		}
		target := "any"
		switch {
		case info.ArchSpecific && len(info.Archs) > 0:
			var names []string
			for _, a := range info.Archs {
				names = append(names, fmt.Sprintf("sm_%da", a))
			}
			target = strings.Join(names, "/")
		case info.MinSM > 0:
			target = fmt.Sprintf("sm_%d+", info.MinSM)
		}
		forms := fmt.Sprint(len(info.Forms))
		if info.Loose {
			forms = "unchecked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", op, info.Family, target, forms)
		n++
	}
	tw.Flush()
	if n == 0 {
		return fmt.Errorf("no opcode matches %q%s", filter, suggest.HintSuffix(filter, ptx.Opcodes()))
	}
	_, err := e.stdout.Write(b.Bytes())
	return err
}

// readPTXFile reads a PTX file of at most maxPTXBytes.
func readPTXFile(name string) ([]byte, error) {
	b, err := fileutil.ReadFile(name, maxPTXBytes)
	var big *fileutil.TooLargeError
	if errors.As(err, &big) {
		big.What = "the most tcsim reads from a PTX file"
	}
	return b, err
}

// maxPTXBytes bounds a PTX file: 64 MiB, far more than nvcc writes for a
// CUTLASS module (a few MB), so that "ptx": "/dev/zero" stops early.
const maxPTXBytes = 64 << 20
