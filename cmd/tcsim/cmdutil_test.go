package main

import (
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
