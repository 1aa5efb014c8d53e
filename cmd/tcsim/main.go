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
// stopped the run) or the command failed, and 2 on a usage error
// (including a missing or unreadable input file).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
	"github.com/tcsim/tcsim/isa/ptx"
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

// interactive is the action for a bare `tcsim`; the TUI package sets it.
var interactive func(e *env) error

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}
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
		fmt.Fprintf(e.stderr, "tcsim %s: %v\n", c.name, err)
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
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
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
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(append(flags, "--"), pos...)
}

func isNumber(s string) bool {
	_, err := fmt.Sscanf(s, "%d", new(int))
	return err == nil
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
	fmt.Fprintln(w, "Exit status: 0 success; 1 when a check failed (tcsim run reported an error or warning,")
	fmt.Fprintln(w, "whatever stopped the run; a mismatch; a fault) or the command failed; 2 for a usage error,")
	fmt.Fprintln(w, "including a missing or unreadable input file.")
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
		fs.SetOutput(w)
		fs.PrintDefaults()
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
