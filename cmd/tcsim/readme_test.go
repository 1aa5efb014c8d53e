package main

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite README.md's example outputs with what tcsim prints (examples whose output elides lines with ... are only checked)")

// readmeExample is one "$ tcsim ..." command shown in README.md and the
// output printed under it.
type readmeExample struct {
	line int      // line of the command in README.md
	end  int      // line after the last output line
	args []string // the command's arguments after "tcsim"
	want []string // expected output lines; "..." matches any run of lines
	skip string   // why the example is not run (an HTML comment before its block)
	// width is the terminal width the block's examples run on
	// ("<!-- readme-test: width N -->" before it); 0: a pipe
	width int
}

// readmeExamples extracts the examples from the fenced blocks of README.md.
// A block preceded by "<!-- readme-test: skip REASON -->" is not run; one
// preceded by "<!-- readme-test: width N -->" runs as on a terminal of N
// columns (what the text around it says).
func readmeExamples(t *testing.T, path string) []readmeExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeExample
	var cur *readmeExample
	inBlock, skip, width := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			if inBlock {
				if cur != nil {
					cur.end = n
					out = append(out, *cur)
					cur = nil
				}
				inBlock, skip, width = false, "", 0
			} else {
				inBlock = true
			}
			continue
		case !inBlock && strings.HasPrefix(trimmed, "<!-- readme-test: width "):
			w, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, "<!-- readme-test: width "), "-->")))
			if err != nil || w < 20 {
				t.Fatalf("README.md:%d: want <!-- readme-test: width N --> with N of 20 or more", n)
			}
			width = w
			continue
		case !inBlock && strings.HasPrefix(trimmed, "<!-- readme-test: skip"):
			skip = strings.TrimSuffix(strings.TrimPrefix(trimmed, "<!-- readme-test: skip"), "-->")
			skip = strings.TrimSpace(skip)
			continue
		}
		if !inBlock {
			continue
		}
		if strings.HasPrefix(line, "$ ") {
			if cur != nil {
				cur.end = n
				out = append(out, *cur)
			}
			cmd := strings.TrimPrefix(line, "$ ")
			cmd = strings.TrimPrefix(cmd, "go run ./cmd/tcsim ")
			cmd = strings.TrimPrefix(cmd, "tcsim ")
			args, err := splitShell(cmd)
			if err != nil {
				t.Fatalf("README.md:%d: %v", n, err)
			}
			cur = &readmeExample{line: n, args: args, skip: skip, width: width}
			continue
		}
		if cur != nil {
			cur.want = append(cur.want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// splitShell splits a command line with single and double quotes, and
// backslash-newline continuations already joined.
func splitShell(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, started := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			in, started = c, true
		case c == ' ' || c == '\t':
			if started {
				args = append(args, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if in != 0 {
		return nil, errUnclosedQuote
	}
	if started {
		args = append(args, cur.String())
	}
	return args, nil
}

var errUnclosedQuote = &usageError{"unclosed quote"}

// matchLines compares output with the expected lines, where "..." matches
// any run of lines (including none). Trailing blanks are ignored.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 || strings.TrimRight(got[0], " ") != strings.TrimRight(want[0], " ") {
		return false
	}
	return matchLines(got[1:], want[1:])
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestREADME runs every example of README.md and checks its output, so the
// tour shows what tcsim really prints.
func TestREADME(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(root, "README.md")
	examples := readmeExamples(t, readme)
	t.Chdir(root)
	ran := 0
	replace := map[int][]string{} // first output line -> new output lines
	for _, ex := range examples {
		if ex.skip != "" {
			continue
		}
		ran++
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }, width: ex.width}
		run(e, ex.args)
		stdout, stderr := out.String(), errb.String()
		got := trimBlank(strings.Split(strings.TrimRight(stdout+stderr, "\n"), "\n"))
		if stdout+stderr == "" {
			got = nil
		}
		want := trimBlank(ex.want)
		elided := false
		for _, w := range want {
			elided = elided || strings.TrimSpace(w) == "..."
		}
		if *updateREADME && !elided {
			replace[ex.line] = got
			continue
		}
		if !matchLines(got, want) {
			t.Errorf("README.md:%d: tcsim %s\n--- README shows:\n%s\n--- tcsim prints:\n%s",
				ex.line, strings.Join(ex.args, " "), strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	if ran == 0 {
		t.Fatal("README.md has no runnable examples")
	}
	if *updateREADME {
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		ends := map[int]int{}
		for _, ex := range examples {
			ends[ex.line] = ex.end
		}
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			if repl, ok := replace[i+1]; ok {
				out = append(out, repl...)
				i = ends[i+1] - 2 // skip the old output (ends is the 1-based line after it)
			}
		}
		if err := os.WriteFile(readme, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMatchLines(t *testing.T) {
	for _, c := range []struct {
		got, want []string
		ok        bool
	}{
		{[]string{"a", "b", "c"}, []string{"a", "...", "c"}, true},
		{[]string{"a", "c"}, []string{"a", "...", "c"}, true},
		{[]string{"a", "b"}, []string{"a", "...", "c"}, false},
		{[]string{"a", "b"}, []string{"a", "b", "c"}, false},
		{[]string{"x"}, []string{"..."}, true},
	} {
		if matchLines(c.got, c.want) != c.ok {
			t.Errorf("matchLines(%q, %q) != %v", c.got, c.want, c.ok)
		}
	}
	args, err := splitShell(`layout '((4,8),2):(1,4)' --tile 64x8 "a b"`)
	if err != nil || len(args) != 5 || args[1] != "((4,8),2):(1,4)" || args[4] != "a b" {
		t.Errorf("splitShell: %q %v", args, err)
	}
}
