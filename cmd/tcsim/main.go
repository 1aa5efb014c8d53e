// Command tcsim is a bit-exact CPU simulator and layout visualizer for
// NVIDIA tensor-core kernels (sm_90a wgmma/TMA/mbarrier and sm_100a
// tcgen05/TMEM).
//
// Run with no arguments it opens the interactive explorer. Subcommands:
//
//	tcsim atoms [FILTER]              list the thread-value atom catalog
//	tcsim layout LAYOUT|ATOM          draw a layout's tile with its owners
//	tcsim layout eval EXPR            evaluate CuTe layout algebra
//	tcsim bitmath ATOM|LAYOUT         derive epilogue bitmath
//	tcsim help [COMMAND]              show help
//
// Every command accepts --help. Exit status is 0 on success, 1 when a
// check failed (tcsim run reported an error or warning hazard, whatever
// stopped the run; PTX errors, a wrong formula, a mismatch with the GPU) or
// the run failed, and 2 on a usage error: a bad command line, or an input
// file that is missing, unreadable, larger than tcsim reads or not in the
// format the command reads.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/tcsim/tcsim/internal/fileutil"
	"github.com/tcsim/tcsim/internal/suggest"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim"
)

// command is one tcsim subcommand. Commands register themselves from
// init functions in their own files, so that each lives beside its flags.
type command struct {
	name    string // the words that select it, e.g. "gpu info"
	args    string // the synopsis after the name, e.g. "[FILTER]"
	summary string // one line for the command list
	help    string // the long description shown by --help
	// setup declares the command's flags on fs; it may be nil.
	setup func(fs *flag.FlagSet) any
	// run executes the command with the parsed flag values (what setup
	// returned) and the positional arguments.
	run func(env *env, opts any, args []string) error
	// hidden commands are left out of the command list.
	hidden bool
}

// env is what a command may touch: its streams and the environment.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	// width is the number of columns of the terminal standard output is,
	// or 0 when it is a file or a pipe (which get the full picture).
	width int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("tcsim: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks errors that exit with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// inputError marks an input file or operand that is not what the command
// reads (the wrong size, a malformed .npy, JSON or record, not a case
// directory): like a missing or unreadable one, it is a usage error (exit
// status 2). A PTX file with errors is not one: that is a failed check.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// badInput marks err (nil stays nil) as an error in an input file.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err}
}

// interactive is the action for a bare `tcsim`; the TUI package sets it.
var interactive func(e *env) error

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv, width: terminalWidth(os.Stdout)}
	os.Exit(run(e, os.Args[1:]))
}

// run dispatches args and returns the exit status.
func run(e *env, args []string) int {
	if len(args) == 0 {
		if interactive != nil {
			return exitStatus(e, "tcsim", interactive(e))
		}
		printTopUsage(e.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printTopUsage(e.stdout)
		return 0
	case "help":
		if len(args) == 1 {
			printTopUsage(e.stdout)
			return 0
		}
		if c, _ := lookup(args[1:]); c != nil {
			printCommandUsage(e.stdout, c, nil)
			return 0
		}
		fmt.Fprintf(e.stderr, "tcsim help: unknown command %q\n", strings.Join(args[1:], " "))
		return 2
	case "version", "--version":
		fmt.Fprintln(e.stdout, "tcsim", Version)
		return 0
	}
	c, rest := lookup(args)
	if c == nil && strings.HasPrefix(args[0], "-") && !isNumber(args[0]) {
		fmt.Fprintf(e.stderr, "tcsim: unknown flag %s (the top level takes only --help and --version; a command's flags follow its name)\n", args[0])
		fmt.Fprintln(e.stderr, "run 'tcsim --help' for the list of commands")
		return 2
	}
	if c == nil {
		fmt.Fprintf(e.stderr, "tcsim: unknown command %q\n", args[0])
		if near := nearCommands(args[0]); len(near) > 0 {
			fmt.Fprintf(e.stderr, "did you mean: %s\n", strings.Join(near, ", "))
		}
		fmt.Fprintln(e.stderr, "run 'tcsim --help' for the list of commands")
		return 2
	}
	fs := flag.NewFlagSet("tcsim "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts any
	if c.setup != nil {
		opts = c.setup(fs)
	}
	if err := fs.Parse(interleave(fs, rest)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(e.stdout, c, fs)
			return 0
		}
		fmt.Fprintf(e.stderr, "tcsim %s: %s\n", c.name, flagMessage(err))
		fmt.Fprintf(e.stderr, "usage: tcsim %s %s (see 'tcsim %s --help')\n", c.name, c.args, c.name)
		return 2
	}
	return exitStatus(e, "tcsim "+c.name, c.run(e, opts, fs.Args()))
}

func exitStatus(e *env, who string, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", who, clipLines(err.Error()))
	if isUsage(err) {
		return 2
	}
	return 1
}

// isUsage reports whether err means the command could not be done as asked
// (exit status 2): a bad command line, or an input file that is missing,
// unreadable, a directory, larger than tcsim reads or not in the format the
// command reads (inputError). Everything else, a check that failed
// included, is exit status 1.
func isUsage(err error) bool {
	var u *usageError
	var in *inputError
	var big *fileutil.TooLargeError
	var mem *sim.MemoryLimitError
	return errors.As(err, &u) || errors.As(err, &in) || errors.As(err, &big) || errors.As(err, &mem) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR)
}

// clipLines shortens every line of an error message longer than 500 bytes
// (one that quotes a huge input) in the middle.
func clipLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		if len(l) > 500 {
			lines[i] = ptx.Clip(l)
		}
	}
	return strings.Join(lines, "\n")
}

// lookup finds the longest registered command name that prefixes args.
func lookup(args []string) (*command, []string) {
	for n := min(len(args), 3); n >= 1; n-- {
		if c, ok := commands[strings.Join(args[:n], " ")]; ok {
			return c, args[n:]
		}
	}
	return nil, nil
}

// interleave lets flags follow positional arguments ("tcsim layout X
// --format json"), which the flag package alone does not allow. A lone "--"
// ends flag parsing.
func interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' && !isNumber(a) {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if strings.Contains(name, "=") {
				continue
			}
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
				if i+1 == len(args) {
					return flags // the flag package reports the missing value
				}
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(append(flags, "--"), pos...)
}

// isNumber reports whether s starts like a number (-3, -1.5, -1/3,
// -0x3f) or is a signed real that strconv reads (-inf, -nan, -.5,
// -0x1p-3): an argument such as "tcsim num encode f32 -inf" is a value,
// not a flag.
func isNumber(s string) bool {
	if _, err := fmt.Sscanf(s, "%d", new(int)); err == nil {
		return true
	}
	if strings.EqualFold(strings.TrimLeft(s, "+-"), "nan") {
		return true // strconv reads only an unsigned NaN
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func printTopUsage(w io.Writer) {
	fmt.Fprintf(w, "tcsim %s: a bit-exact simulator and layout visualizer for NVIDIA tensor cores\n\n", Version)
	fmt.Fprintln(w, "usage: tcsim                 open the interactive explorer")
	fmt.Fprintln(w, "       tcsim COMMAND [ARGS]  run a command")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'tcsim COMMAND --help' for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 success; 1 a check failed (tcsim run reported an error or warning hazard,")
	fmt.Fprintln(w, "whatever stopped the run; PTX errors; a wrong formula; a mismatch with the GPU) or the run")
	fmt.Fprintln(w, "failed (a fault, a deadlock, a limit); 2 usage error: a bad command line, or an input file")
	fmt.Fprintln(w, "that is missing, unreadable, larger than tcsim reads or not in the format the command reads")
	fmt.Fprintln(w, "(the wrong size, malformed JSON or .npy; a PTX file with errors is a failed check, 1).")
}

func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: tcsim %s %s\n\n%s\n", c.name, c.args, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.help, "\n"))
	}
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
		if c.setup != nil {
			c.setup(fs)
		}
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, fs)
	}
	var subs []string
	for n := range commands {
		if strings.HasPrefix(n, c.name+" ") && !commands[n].hidden {
			subs = append(subs, n)
		}
	}
	if len(subs) > 0 {
		sort.Strings(subs)
		fmt.Fprintln(w, "\nsubcommands:")
		for _, n := range subs {
			fmt.Fprintf(w, "  tcsim %s %s\n      %s\n", n, commands[n].args, commands[n].summary)
		}
	}
}

// printFlags lists a command's flags as the usage lines and the README
// write them (--flag, not the flag package's -flag), in the flag package's
// layout: the flag with its argument name, then the usage indented.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  " + dashes(f.Name) + f.Name
		if name != "" {
			line += " " + name
		}
		if len(line) <= 6 && !strings.Contains(usage, "\n") {
			line += "\t"
		} else {
			line += "\n    \t"
		}
		line += strings.ReplaceAll(usage, "\n", "\n    \t")
		if def := f.DefValue; !isZeroValue(f) {
			if isStringFlag(f) {
				line += fmt.Sprintf(" (default %q)", def)
			} else {
				line += fmt.Sprintf(" (default %v)", def)
			}
		}
		fmt.Fprintln(w, line)
	})
}

// dashes is "-" for the short flags -q and -o and "--" for the others
// (--m and --n of tcsim mma are written with two, as the help texts do).
func dashes(name string) string {
	if name == "q" || name == "o" {
		return "-"
	}
	return "--"
}

// flagMessage rewrites the flag package's parse errors in the --flag style.
func flagMessage(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		return "unknown flag " + dashes(name) + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		return "flag " + dashes(name) + name + " needs an argument"
	}
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		rest := msg[i+len(" for flag -"):]
		name, _, _ := strings.Cut(rest, ":")
		msg = msg[:i] + " for flag " + dashes(name) + rest
	}
	return msg
}

// isZeroValue reports whether the flag's default is its type's zero value
// (which the usage does not repeat), as the flag package decides it.
func isZeroValue(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]", "<nil>":
		return true
	}
	return false
}

// isStringFlag reports whether f holds a string (its default is quoted).
func isStringFlag(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, s := g.Get().(string)
	return s
}

// nearCommands lists registered command words within a small edit distance of s.
func nearCommands(s string) []string {
	var words []string
	for n := range commands {
		if first := strings.Fields(n)[0]; !slices.Contains(words, first) {
			words = append(words, first)
		}
	}
	sort.Strings(words)
	return suggest.Nearest(s, words, 5, 2)
}
