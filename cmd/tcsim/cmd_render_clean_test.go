package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tcsim render --clean draws the title and the grid without the notes;
// --scale sets the picture's size; the HTML of a wgmma MMA is under 1 MB.
func TestRenderClean(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		want  []string
		avoid []string
	}{
		{[]string{"mma.sync.m16n8.d.f32", "-o", "-", "--format", "svg"}, []string{"mma.sync.m16n8.d.f32", "accumulator C/D f32", "colour = thread"}, nil},
		{[]string{"mma.sync.m16n8.d.f32", "--clean", "-o", "-", "--format", "svg"}, []string{"mma.sync.m16n8.d.f32", "colour = thread"}, []string{"accumulator C/D f32"}},
		{[]string{"mma.sync.m16n8.d.f32", "--clean", "--no-legend", "-o", "-", "--format", "svg"}, []string{"mma.sync.m16n8.d.f32"}, []string{"accumulator C/D f32", "colour = "}},
	} {
		code, out, errs := runCLI(t, append([]string{"render"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("render %q: exit %d: %s", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("render %q: no %q", tc.args, w)
			}
		}
		for _, a := range tc.avoid {
			if strings.Contains(out, a) {
				t.Errorf("render %q: %q is shown", tc.args, a)
			}
		}
	}
	size := func(args ...string) int64 {
		t.Helper()
		p := filepath.Join(dir, "x"+strings.Join(args, "")+".png")
		if code, _, errs := runCLI(t, append([]string{"render", "mma.sync.m16n8.d.f32", "--clean", "-o", p}, args...)...); code != 0 {
			t.Fatalf("render: %s", errs)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	if a, b := size("--scale", "1"), size("--scale", "3"); b <= a {
		t.Errorf("--scale 3 PNG (%d bytes) is not larger than --scale 1 (%d)", b, a)
	}
	html := filepath.Join(dir, "mma.html")
	code, out, errs := runCLI(t, "render", "--mma", "wgmma.m64n64k16", "-o", html)
	if code != 0 {
		t.Fatalf("render --mma wgmma.m64n64k16: %s", errs)
	}
	st, err := os.Stat(html)
	if err != nil || st.Size() >= 1_000_000 {
		t.Errorf("mma.html: %v, %d bytes; want under 1 MB (%s)", err, st.Size(), out)
	}
}
