package layers

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

type listedPackage struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// modulePackages lists every package of the module with `go list -json`.
func modulePackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", Module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	touchSources(t)
	return pkgs
}

// touchSources opens every directory and Go file of the module. go test
// caches a passing result until a file the test opened changes; the
// imports come from a go list subprocess, whose reads it cannot see, so
// the test reads them itself and an edit anywhere reruns it.
func touchSources(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, ".go") || d.Name() == "go.mod" {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			if d.IsDir() {
				_, err = f.ReadDir(-1)
			}
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLayers fails on any import, by a package or by its tests, that
// Allowed does not permit, and on any package in no group.
func TestLayers(t *testing.T) {
	var bad []string
	for _, p := range modulePackages(t) {
		g := Group(p.ImportPath)
		if g == "" {
			bad = append(bad, p.ImportPath+": in no group of layers.Allowed")
			continue
		}
		check := func(kind string, imports []string) {
			for _, imp := range imports {
				if imp == p.ImportPath || !strings.HasPrefix(imp, Module+"/") {
					continue
				}
				ig := Group(imp)
				if !slices.Contains(Allowed[g], ig) {
					bad = append(bad, p.ImportPath+" ("+g+")"+kind+" imports "+imp+" ("+ig+")")
				}
			}
		}
		check("", p.Imports)
		check(" test", p.TestImports)
		check(" test", p.XTestImports)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestAllowedIsAnOrder checks the table itself: every group may import
// itself, the relation is transitive, and no two groups may import each
// other, so the groups are layers.
func TestAllowedIsAnOrder(t *testing.T) {
	for g, below := range Allowed {
		if !slices.Contains(below, g) {
			t.Errorf("%s may not import itself", g)
		}
		for _, b := range below {
			if _, ok := Allowed[b]; !ok {
				t.Errorf("%s may import %s, which is no group", g, b)
				continue
			}
			if b != g && slices.Contains(Allowed[b], g) {
				t.Errorf("%s and %s may import each other", g, b)
			}
			for _, c := range Allowed[b] {
				if !slices.Contains(below, c) {
					t.Errorf("%s may import %s, which may import %s, but %s may not import %s", g, b, c, g, c)
				}
			}
		}
	}
}

func TestGroup(t *testing.T) {
	for path, want := range map[string]string{
		Module + "/sim/datapath":    "sim/datapath",
		Module + "/sim/banks":       "sim/banks",
		Module + "/sim/trace":       "sim/trace",
		Module + "/sim":             "sim",
		Module + "/simulator":       "",
		Module + "/isa/ptx":         "isa",
		Module + "/gpu/probe":       "gpu",
		Module + "/internal/layers": "internal",
		Module + "/cmd/tcsim":       "cmd",
		"github.com/other/sim":      "",
	} {
		if got := Group(path); got != want {
			t.Errorf("Group(%s) = %q, want %q", path, got, want)
		}
	}
}
