package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// groupRun is the run function of a command that only groups
// subcommands ("tcsim num", "tcsim ptx", "tcsim gpu"): without a
// subcommand, or with an unknown one, it is a usage error that lists the
// subcommands and suggests the nearest.
func groupRun(name string) func(e *env, opts any, args []string) error {
	return func(e *env, _ any, args []string) error {
		subs := subcommands(name)
		want := make([]string, len(subs))
		for i, s := range subs {
			want[i] = "tcsim " + name + " " + s
		}
		list := "want: " + strings.Join(want, ", ")
		if len(args) == 0 {
			return usagef("missing subcommand (%s)", list)
		}
		msg := fmt.Sprintf("unknown %s subcommand %q", name, args[0])
		if near := suggest.Nearest(args[0], subs, 3, 2); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return usagef("%s (%s)", msg, list)
	}
}

// subcommands lists the next words of the registered commands below
// name, sorted ("num probe" has check, legality, ptx, run).
func subcommands(name string) []string {
	var out []string
	for n, c := range commands {
		rest, ok := strings.CutPrefix(n, name+" ")
		if !ok || c.hidden || strings.Contains(rest, " ") {
			continue
		}
		out = append(out, rest)
	}
	sort.Strings(out)
	return out
}
