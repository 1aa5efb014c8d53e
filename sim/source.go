package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Source mapping: compilers annotate PTX with .file and .loc directives
// (nvcc -lineinfo, Triton always). SourceOf maps a PTX line to the .cu or
// .py line behind it, and SourceReader finds that line's text.

// SourceLoc is a position in the kernel's own source.
type SourceLoc struct {
	File string // as the .file directive names it
	Line int
	Col  int
	// InlinedAt is the call site when the code was inlined (nvcc's
	// "inlined_at f l c"), or nil.
	InlinedAt *SourceLoc
}

func (s SourceLoc) String() string {
	if s.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

type sourceMap struct {
	once   sync.Once
	byLine map[int]SourceLoc // PTX line of an instruction -> its .loc
}

// SourceOf returns the source position of the instruction at PTX line
// line, when the module has .loc information for it.
func (p *Program) SourceOf(line int) (SourceLoc, bool) {
	p.src.once.Do(p.buildSourceMap)
	s, ok := p.src.byLine[line]
	return s, ok
}

func (p *Program) buildSourceMap() {
	p.src.byLine = map[int]SourceLoc{}
	if p.Module == nil {
		return
	}
	files := map[int]string{}
	for _, d := range p.Module.Decls {
		if f, ok := d.(*ptx.FileDirective); ok {
			files[f.Index] = f.Name
		}
	}
	if len(files) == 0 {
		return
	}
	name := func(i int) string {
		if n, ok := files[i]; ok {
			return n
		}
		return fmt.Sprintf("file%d", i)
	}
	for _, d := range p.Module.Decls {
		fn, ok := d.(*ptx.Function)
		if !ok || fn.Body == nil {
			continue
		}
		var cur *SourceLoc
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, st := range b.Stmts {
				switch x := st.(type) {
				case *ptx.Loc:
					if x.Line == 0 {
						cur = nil
						continue
					}
					s := SourceLoc{File: name(x.File), Line: x.Line, Col: x.Col}
					if f, l, c, ok := inlinedAt(x.Extra); ok {
						s.InlinedAt = &SourceLoc{File: name(f), Line: l, Col: c}
					}
					cur = &s
				case *ptx.Block:
					walk(x)
				case *ptx.Instruction:
					if cur != nil {
						p.src.byLine[int(x.Pos.Line)] = *cur
					}
				}
			}
		}
		walk(fn.Body)
	}
}

// inlinedAt parses "... inlined_at f l c" from a .loc's tail.
func inlinedAt(extra string) (f, l, c int, ok bool) {
	i := strings.Index(extra, "inlined_at ")
	if i < 0 {
		return 0, 0, 0, false
	}
	fs := strings.Fields(extra[i+len("inlined_at "):])
	if len(fs) < 2 {
		return 0, 0, 0, false
	}
	var err error
	if f, err = strconv.Atoi(strings.TrimSuffix(fs[0], ",")); err != nil {
		return 0, 0, 0, false
	}
	if l, err = strconv.Atoi(strings.TrimSuffix(fs[1], ",")); err != nil {
		return 0, 0, 0, false
	}
	if len(fs) > 2 {
		c, _ = strconv.Atoi(strings.TrimSuffix(fs[2], ","))
	}
	return f, l, c, true
}

// SourceReader finds the text of source lines. A .file directive names
// the file as the compiler saw it (often an absolute path on another
// machine); the reader tries that path, then the file's base name in Dirs
// and in the PTX file's directory and its parents (up to three levels,
// also under programs/, src/ and kernels/).
type SourceReader struct {
	Dirs  []string
	PTX   string // the kernel's PTX path
	cache map[string][]string
}

// MaxSourceFile bounds the size of a source file the reader loads.
const MaxSourceFile = 8 << 20

// Line returns the text of line n of file, trimmed, or "" when the file
// cannot be found.
func (r *SourceReader) Line(file string, n int) string {
	if r == nil || n < 1 {
		return ""
	}
	if r.cache == nil {
		r.cache = map[string][]string{}
	}
	lines, ok := r.cache[file]
	if !ok {
		lines = r.load(file)
		r.cache[file] = lines
	}
	if n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

func (r *SourceReader) load(file string) []string {
	base := filepath.Base(file)
	var cands []string
	cands = append(cands, file)
	for _, d := range r.Dirs {
		cands = append(cands, filepath.Join(d, base))
	}
	if r.PTX != "" {
		abs, err := filepath.Abs(r.PTX)
		if err == nil {
			d := filepath.Dir(abs)
			for i := 0; i < 4; i++ {
				for _, sub := range []string{"", "programs", "src", "kernels"} {
					cands = append(cands, filepath.Join(d, sub, base))
				}
				d = filepath.Dir(d)
			}
		}
	}
	for _, c := range cands {
		fi, err := os.Stat(c)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSourceFile {
			continue
		}
		b, err := os.ReadFile(c)
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		var out []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64<<10), MaxSourceFile)
		for sc.Scan() {
			out = append(out, sc.Text())
		}
		return out
	}
	return nil
}
