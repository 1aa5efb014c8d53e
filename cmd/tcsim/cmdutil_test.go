package main

import (
	"flag"
	"regexp"
	"strings"
	"testing"
)

func TestGroupCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"num"}, []string{"missing subcommand", "tcsim num cvt", "tcsim num probe"}},
		{[]string{"num", "decod"}, []string{`unknown num subcommand "decod"`, "did you mean decode?"}},
		{[]string{"num", "probe", "chek"}, []string{`unknown num probe subcommand "chek"`, "did you mean check?", "tcsim num probe legality"}},
		{[]string{"ptx"}, []string{"missing subcommand (want: tcsim ptx check, tcsim ptx fmt, tcsim ptx opcodes)"}},
		{[]string{"ptx", "zzzzzz"}, []string{`unknown ptx subcommand "zzzzzz" (want:`}},
		{[]string{"gpu", "ifo"}, []string{"did you mean info?"}},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want exit 2 and no output", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errs, w)
			}
		}
		if strings.Contains(errs, "did you mean") != strings.Contains(strings.Join(c.want, " "), "did you mean") {
			t.Errorf("%v: unexpected suggestion in %q", c.args, errs)
		}
	}
}

// TestHelpComplete: every command of these groups has a help text, every
// flag a usage line, and --help prints both and exits 0.
func TestHelpComplete(t *testing.T) {
	mine := regexp.MustCompile(`^(atoms|bitmath|desc|gpu|layout|num|ptx|record|render)( |$)`)
	for name, c := range commands {
		if !mine.MatchString(name) || name == "layout eval" {
			continue
		}
		if c.help == "" || c.summary == "" {
			t.Errorf("%s: no help text or summary", name)
		}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		if c.setup != nil {
			c.setup(fs)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if strings.TrimSpace(f.Usage) == "" {
				t.Errorf("%s: flag --%s has no usage text", name, f.Name)
			}
		})
		code, out, _ := runCLI(t, append(strings.Fields(name), "--help")...)
		if code != 0 || !strings.HasPrefix(out, "usage: tcsim "+name) {
			t.Errorf("%s --help: exit %d, output %.80q", name, code, out)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(out, "-"+f.Name) {
				t.Errorf("%s --help does not list -%s", name, f.Name)
			}
		})
	}
}
