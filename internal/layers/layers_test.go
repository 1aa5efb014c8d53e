package layers

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
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
	return pkgs
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
