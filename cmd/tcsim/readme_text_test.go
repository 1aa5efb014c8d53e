package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeParagraphs returns README.md's paragraphs outside fenced blocks,
// each with its first line number, and whether every fence is closed.
func readmeParagraphs(text string) (paras [][]string, first []int, closed bool) {
	var cur []string
	start, inBlock := 0, false
	flush := func() {
		if len(cur) > 0 {
			paras, first = append(paras, cur), append(first, start)
		}
		cur = nil
	}
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			flush()
			inBlock = !inBlock
		case inBlock:
		case strings.TrimSpace(line) == "":
			flush()
		default:
			if cur == nil {
				start = i + 1
			}
			cur = append(cur, line)
		}
	}
	flush()
	return paras, first, !inBlock
}

// strayText returns the first line of text (1-based) that is not part of
// a Markdown document's prose, and the line: a prose paragraph must end a
// sentence (or introduce what follows, with ':'), and prose outside inline
// code must not hold shell syntax (&&, 2>&1, a pipe, a here-document's
// EOF), which is what a command pasted after the last section looks like.
func strayText(text string) (int, string) {
	code := regexp.MustCompile("`[^`]*`")
	shell := regexp.MustCompile(`&&|2>&1|\| |^EOF$`)
	paras, first, _ := readmeParagraphs(text)
	for i, p := range paras {
		head := strings.TrimSpace(p[0])
		if strings.HasPrefix(head, "#") || strings.HasPrefix(head, "|") || strings.HasPrefix(head, "<!--") {
			continue
		}
		for k, line := range p {
			if shell.MatchString(strings.TrimSpace(code.ReplaceAllString(line, ""))) {
				return first[i] + k, line
			}
		}
		if strings.HasPrefix(head, "- ") || regexp.MustCompile(`^\d+\. `).MatchString(head) {
			continue
		}
		last := strings.TrimSpace(p[len(p)-1])
		if !strings.ContainsAny(last[len(last)-1:], ".:!?)") {
			return first[i] + len(p) - 1, last
		}
	}
	return 0, ""
}

// TestREADMEText catches text that is not part of the document, such as
// shell lines pasted after the last section (strayText), an unclosed
// fenced block, or a missing final newline.
func TestREADMEText(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\n\n") {
		t.Error("README.md does not end with exactly one newline")
	}
	if _, _, closed := readmeParagraphs(text); !closed {
		t.Error("README.md has a fenced block that is never closed")
	}
	if n, line := strayText(text); n > 0 {
		t.Errorf("README.md:%d: not part of the document (stray text?): %q", n, line)
	}
	// What the README once ended with.
	for _, tail := range []string{
		"Refresh golden files with `go test ./... -update`.\nEOF\ncd /work/main && go test ./cmd/tcsim -run TestREADME 2>&1 | tail -3\n",
		"Run the tests.\n\ncd /work/main && go test ./...\n",
		"Run the tests\n",
	} {
		if n, _ := strayText("# T\n\n## Development\n\n" + tail); n == 0 {
			t.Errorf("strayText misses the end of %q", tail)
		}
	}
}

// TestREADMEGoldenRefresh: the README's command that refreshes golden
// files names exactly the packages whose tests take -update (their own
// flag, or charmbracelet's golden package), so that it runs and misses
// none.
func TestREADMEGoldenRefresh(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`go test ((?:\\./[\\w/]+ )+)-update`").FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("README.md has no `go test ./PKG ... -update` command")
	}
	listed := strings.Fields(m[1])
	defines := regexp.MustCompile(`flag\.Bool\("update",|"github.com/charmbracelet/x/exp/` + `golden"`)
	var want []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if defines.Match(src) {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if pkg := "./" + filepath.ToSlash(rel); !slices.Contains(want, pkg) {
				want = append(want, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(listed))
	if !slices.Equal(got, want) {
		t.Errorf("README.md refreshes golden files in %v; the packages whose tests take -update are %v", got, want)
	}
}
