package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// runCLI runs tcsim in-process and returns its exit status and streams.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := run(e, args)
	return code, out.String(), errb.String()
}

// expectCLI runs tcsim with args and reports a test error unless it exits
// with code, its stdout holds every string of out and none of not, and its
// stderr holds errPart.
func expectCLI(t *testing.T, args []string, code int, out, not []string, errPart string) {
	t.Helper()
	got, stdout, stderr := runCLI(t, args...)
	if got != code {
		t.Errorf("tcsim %q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, got, code, stdout, stderr)
		return
	}
	for _, w := range out {
		if !strings.Contains(stdout, w) {
			t.Errorf("tcsim %q: stdout lacks %q:\n%s", args, w, stdout)
		}
	}
	for _, w := range not {
		if strings.Contains(stdout, w) {
			t.Errorf("tcsim %q: stdout has %q:\n%s", args, w, stdout)
		}
	}
	if !strings.Contains(stderr, errPart) {
		t.Errorf("tcsim %q: stderr lacks %q:\n%s", args, errPart, stderr)
	}
}

func init() {
	register(&command{
		name: "zz-test", args: "[X]", summary: "test command", hidden: true,
		setup: func(fs *flag.FlagSet) any { return fs.Int("n", 0, "a number") },
		run: func(e *env, opts any, args []string) error {
			n := *opts.(*int)
			switch {
			case n < 0:
				return usagef("n must be >= 0")
			case n == 7:
				return errors.New("seven fails")
			}
			e.stdout.Write([]byte(strings.Join(args, "|")))
			return nil
		},
	})
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		args    []string
		code    int
		out     string
		errPart string
	}{
		{[]string{"zz-test", "a", "b"}, 0, "a|b", ""},
		{[]string{"zz-test", "a", "-n", "3", "b"}, 0, "a|b", ""},
		{[]string{"zz-test", "-n=-1"}, 2, "", "n must be >= 0"},
		{[]string{"zz-test", "-n", "7"}, 1, "", "seven fails"},
		{[]string{"zz-test", "--bogus"}, 2, "", "unknown flag --bogus"},
		{[]string{"--bogus"}, 2, "", "unknown flag --bogus"},
		{[]string{"zz-test", "-n"}, 2, "", "flag --n needs an argument"},
		{[]string{"zz-tset"}, 2, "", "did you mean: zz-test"},
		{[]string{"zz-test", "--", "-n"}, 0, "-n", ""},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != tt.code || out != tt.out || !strings.Contains(errs, tt.errPart) {
			t.Errorf("tcsim %v = %d %q %q; want %d %q ...%q...", tt.args, code, out, errs, tt.code, tt.out, tt.errPart)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 || !strings.Contains(out, "usage: tcsim") {
		t.Fatalf("--help: %d %q", code, out)
	}
	if strings.Contains(out, "zz-test") {
		t.Errorf("hidden command listed:\n%s", out)
	}
	code, out, _ = runCLI(t, "zz-test", "--help")
	if code != 0 || !strings.Contains(out, "--n int") {
		t.Errorf("zz-test --help: %d %q", code, out)
	}
	for name := range commands {
		code, out, _ := runCLI(t, append(strings.Fields(name), "--help")...)
		if code != 0 || !strings.Contains(out, "usage: tcsim "+name) {
			t.Errorf("tcsim %s --help: exit %d, output %q", name, code, out)
		}
	}
}

// TestHelpNoRepeatedFlags: a command's --help documents each flag once with
// the same words (the prose may say more about a flag than the flags list,
// never the same line again).
func TestHelpNoRepeatedFlags(t *testing.T) {
	for name := range commands {
		_, out, _ := runCLI(t, append(strings.Fields(name), "--help")...)
		lines := strings.Split(out, "\n")
		seen := map[string]bool{}
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			// the flags list puts the usage on the next line
			if strings.HasPrefix(l, "  -") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    \t") {
				l += " " + lines[i+1]
				i++
			}
			n := strings.Join(strings.Fields(l), " ")
			if !strings.HasPrefix(n, "-") {
				continue
			}
			if seen[n] {
				t.Errorf("tcsim %s --help says twice: %q", name, n)
			}
			seen[n] = true
		}
	}
}
