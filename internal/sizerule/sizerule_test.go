package sizerule

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const root = "../.."

// offender is a file (Func empty) or a function over its limit.
type offender struct {
	Path, Func string
	Lines      int
}

func (o offender) key() string { return o.Path + " " + o.Func }

func (o offender) String() string {
	if o.Func == "" {
		return fmt.Sprintf("%s (%d lines, limit %d)", o.Path, o.Lines, MaxFileLines)
	}
	return fmt.Sprintf("%s %s (%d lines, limit %d)", o.Path, o.Func, o.Lines, MaxFuncLines)
}

var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// measure lists the offenders among the module's Go files (hidden folders,
// testdata and vendor skipped, as the go command does).
func measure(t *testing.T) []offender {
	t.Helper()
	var out []offender
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		head := src[:min(len(src), 2048)]
		if generated.Match(head) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if n := bytes.Count(src, []byte("\n")); n > MaxFileLines {
			out = append(out, offender{Path: rel, Lines: n})
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > MaxFuncLines {
				name := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					name = recvName(fd.Recv.List[0].Type) + "." + name
				}
				out = append(out, offender{Path: rel, Func: name, Lines: n})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// entry is a line of ARCHITECTURE.md's list: - `path` [`Func`] ...
var entry = regexp.MustCompile("^- `([^`]+\\.go)`(?: `([^`]+)`)?")

// listed reads the exceptions from the section of ARCHITECTURE.md whose
// heading starts with "## Size rules".
func listed(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	got := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## Size rules")
			continue
		}
		if !in {
			continue
		}
		if m := entry.FindStringSubmatch(line); m != nil {
			got[m[1]+" "+m[2]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSizeRule fails on a file or function over its limit that
// ARCHITECTURE.md does not list, and on a listed exception that is no longer
// over its limit.
func TestSizeRule(t *testing.T) {
	offenders := measure(t)
	allowed := listed(t)
	seen := map[string]bool{}
	var bad []string
	for _, o := range offenders {
		seen[o.key()] = true
		if !allowed[o.key()] {
			bad = append(bad, o.String())
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("over the size rule and not listed in ARCHITECTURE.md's \"Size rules\" section: %s: split it along its seams, or list it there with the reason", b)
	}
	var stale []string
	for k := range allowed {
		if !seen[k] {
			stale = append(stale, strings.TrimSpace(k))
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("ARCHITECTURE.md lists %s as an exception to the size rule, but it is within the limits now (or gone): remove the line", s)
	}
}

// TestEntryPattern checks that the list's line format is read as documented.
func TestEntryPattern(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"- `sim/race.go` (1,019 lines): the checker", "sim/race.go "},
		{"- `sim/tcgen05_mma.go` `execTcMma` (176 lines): why", "sim/tcgen05_mma.go execTcMma"},
		{"- `a/b.go` `T.method`: why", "a/b.go T.method"},
		{"  - `a/b.go`", ""},
		{"- a/b.go", ""},
	} {
		m := entry.FindStringSubmatch(tc.line)
		got := ""
		if m != nil {
			got = m[1] + " " + m[2]
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}
