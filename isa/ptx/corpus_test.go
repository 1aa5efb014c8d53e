package ptx

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// corpusFiles lists the PTX files the corpus tests run on: the package's
// testdata/ok, the nvcc output under testdata/nvcc, and every .ptx file
// under the repository's fixtures/ (the CUDA corpus compiled by nvcc).
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"testdata/ok/*.ptx", "testdata/nvcc/*.ptx"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no PTX files found")
	}
	return files
}

// TestCorpusValid checks that every corpus file parses and validates with
// no diagnostics.
func TestCorpusValid(t *testing.T) {
	for _, f := range corpusFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, errs := Check(f, src)
			for _, e := range errs {
				t.Error(e)
			}
			if len(m.Functions()) == 0 {
				t.Errorf("%s: no functions parsed", f)
			}
		})
	}
}

var wantRE = regexp.MustCompile(`// want ((?:"(?:[^"\\]|\\.)*"\s*)+)`)
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// TestErrorCorpus checks the diagnostics for testdata/errors/*.ptx: every
// line annotated `// want "substring" ...` must get one diagnostic per
// substring, and no other line may get any.
func TestErrorCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.ptx")
	if len(files) == 0 {
		t.Fatal("no error corpus")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wants := map[int][]string{}
			for i, line := range strings.Split(string(src), "\n") {
				m := wantRE.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				for _, q := range quotedRE.FindAllString(m[1], -1) {
					s, err := strconv.Unquote(q)
					if err != nil {
						t.Fatalf("line %d: bad want %s", i+1, q)
					}
					wants[i+1] = append(wants[i+1], s)
				}
			}
			_, errs := Check(f, src)
			got := map[int][]string{}
			for _, e := range errs {
				if e.Pos.Filename != f {
					t.Errorf("diagnostic has file %q, want %q", e.Pos.Filename, f)
				}
				got[int(e.Pos.Line)] = append(got[int(e.Pos.Line)], e.Error())
			}
			var lines []int
			for l := range wants {
				lines = append(lines, l)
			}
			for l := range got {
				if _, ok := wants[l]; !ok {
					lines = append(lines, l)
				}
			}
			sort.Ints(lines)
			for _, l := range lines {
				w, g := wants[l], got[l]
				used := make([]bool, len(g))
				for _, s := range w {
					found := false
					for i, e := range g {
						if !used[i] && strings.Contains(e, s) {
							used[i], found = true, true
							break
						}
					}
					if !found {
						t.Errorf("line %d: no diagnostic containing %q; got %q", l, s, g)
					}
				}
				for i, e := range g {
					if !used[i] {
						t.Errorf("line %d: unexpected diagnostic: %s", l, e)
					}
				}
			}
		})
	}
}

// TestErrorFormat checks that diagnostics print as file:line:col: message.
func TestErrorFormat(t *testing.T) {
	src := ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\twgmma.fence.sync;\n}\n"
	_, errs := Check("k.ptx", []byte(src))
	if len(errs) != 1 {
		t.Fatalf("got %d errors: %v", len(errs), errs)
	}
	want := "k.ptx:6:2: wgmma.fence.sync: missing modifier .aligned (syntax: wgmma.fence.sync.aligned)"
	if got := errs[0].Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(errs); !strings.HasPrefix(got, "k.ptx:6:2:") {
		t.Errorf("ErrorList.Error() = %q", got)
	}
}

// TestExampleFile pins the diagnostics of the README's example file.
func TestExampleFile(t *testing.T) {
	const f = "testdata/examples/gemm_mistakes.ptx"
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Check(f, src)
	want := []string{
		"16:38: warning: mbarrier.try_wait.parity.b64: addr: generic address in 32-bit register %r1",
		"18:31: wgmma.mma_async.sync.aligned.m64n12k16.f32.bf16.bf16: wgmma m64n12k16: N must be a multiple of 8 from 8 to 256 for .bf16",
		"19:117: wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32: imm-trans-a/imm-trans-b are only allowed for .f16/.bf16",
		"20:112: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16: imm-scale-a must be 1 or -1, found 2",
		"23:20: ld.global.v4.f32: d has 2 elements; .v4 needs 4",
		"23:33: undeclared register %rd4 (%rd<4> declares %rd0 to %rd3; %rd4 needs %rd<5>)",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, w := range want {
		if !strings.Contains(errs[i].Error(), f+":"+w) {
			t.Errorf("diagnostic %d:\n got  %s\n want %s:%s...", i, errs[i], f, w)
		}
	}
}
