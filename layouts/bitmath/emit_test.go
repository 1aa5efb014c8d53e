package bitmath

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// table is a map tabulated directly (the oracle for emitted code): every
// input tuple in row-major order with its outputs, and the distinct outputs.
type table struct {
	m     Map
	rows  [][]int // inputs followed by outputs
	cells [][]int // distinct outputs, in first-seen order
}

func tabulate(m Map) table {
	tb := table{m: m}
	seen := map[string]bool{}
	out := make([]int, len(m.Out))
	eachLex(m.In, func(in []int) bool {
		m.F(in, out)
		tb.rows = append(tb.rows, append(append([]int(nil), in...), out...))
		k := fmt.Sprint(out)
		if !seen[k] {
			seen[k] = true
			tb.cells = append(tb.cells, append([]int(nil), out...))
		}
		return true
	})
	return tb
}

// index is the row-major position of an input tuple in rows.
func (tb table) index(in []int) int {
	i := 0
	for k, f := range tb.m.In {
		i = i*f.Extent + in[k]
	}
	return i
}

func derived(t *testing.T) ([]*Derivation, []table) {
	t.Helper()
	var ds []*Derivation
	var ts []table
	for _, m := range testMaps(t) {
		d, err := Derive(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		ds = append(ds, d)
		ts = append(ts, tabulate(m))
	}
	return ds, ts
}

func intList(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// goHarness is a Go program holding the emitted functions and the tables;
// it prints every mismatch and exits 1 if there is one.
func goHarness(t *testing.T, ds []*Derivation, ts []table) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar bad int\n\n")
	var calls strings.Builder
	for i, d := range ds {
		for _, p := range []*Program{d.Forward, d.Inverse} {
			src, err := Emit(p, Go)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(src + "\n")
		}
		typ := "uint32"
		if d.Forward.wide() {
			typ = "uint64"
		}
		nin, nout := len(d.Map.In), len(d.Map.Out)
		fmt.Fprintf(&b, "var rows%d = [][]uint64{\n", i)
		for _, r := range ts[i].rows {
			fmt.Fprintf(&b, "\t{%s},\n", intList(r))
		}
		fmt.Fprintf(&b, "}\n\nvar cells%d = [][]uint64{\n", i)
		for _, c := range ts[i].cells {
			fmt.Fprintf(&b, "\t{%s},\n", intList(c))
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "func check%d() {\n\tfor _, r := range rows%d {\n", i, i)
		var args, outs, conds []string
		for k := range nin {
			args = append(args, fmt.Sprintf("%s(r[%d])", typ, k))
		}
		for k := range nout {
			outs = append(outs, fmt.Sprintf("o%d", k))
			conds = append(conds, fmt.Sprintf("uint64(o%d) != r[%d]", k, nin+k))
		}
		fmt.Fprintf(&b, "\t\t%s := %s(%s)\n", strings.Join(outs, ", "), d.Forward.Name, strings.Join(args, ", "))
		fmt.Fprintf(&b, "\t\tif %s {\n\t\t\tbad++\n\t\t\tfmt.Println(%q, r, %s)\n\t\t}\n\t}\n", strings.Join(conds, " || "), d.Forward.Name, strings.Join(outs, ", "))
		// Inverse: the returned input must be in range and map back.
		args, outs = nil, nil
		for k := range nout {
			args = append(args, fmt.Sprintf("%s(c[%d])", typ, k))
		}
		for k := range nin {
			outs = append(outs, fmt.Sprintf("x%d", k))
		}
		fmt.Fprintf(&b, "\tfor _, c := range cells%d {\n\t\t%s := %s(%s)\n\t\tidx := uint64(0)\n", i, strings.Join(outs, ", "), d.Inverse.Name, strings.Join(args, ", "))
		for k, f := range d.Map.In {
			fmt.Fprintf(&b, "\t\tif uint64(x%d) >= %d {\n\t\t\tbad++\n\t\t\tfmt.Println(%q, c, \"out of range\")\n\t\t\tcontinue\n\t\t}\n\t\tidx = idx*%d + uint64(x%d)\n", k, f.Extent, d.Inverse.Name, f.Extent, k)
		}
		conds = nil
		for k := range nout {
			conds = append(conds, fmt.Sprintf("rows%d[idx][%d] != c[%d]", i, nin+k, k))
		}
		fmt.Fprintf(&b, "\t\tif %s {\n\t\t\tbad++\n\t\t\tfmt.Println(%q, c)\n\t\t}\n\t}\n}\n\n", strings.Join(conds, " || "), d.Inverse.Name)
		fmt.Fprintf(&calls, "\tcheck%d()\n", i)
	}
	b.WriteString("func main() {\n" + calls.String())
	b.WriteString("\tif bad > 0 {\n\t\tfmt.Println(bad, \"mismatches\")\n\t\tos.Exit(1)\n\t}\n\tfmt.Println(\"ok\")\n}\n")
	return b.String()
}

func runTool(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, firstLines(string(out), 40))
	}
	return string(out)
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

func TestEmittedGoRuns(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	ds, ts := derived(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module harness\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(goHarness(t, ds, ts)), 0o644)
	if out := runTool(t, dir, goBin, "run", "."); strings.TrimSpace(out) != "ok" {
		t.Fatalf("harness: %s", out)
	}
}

func pyHarness(t *testing.T, ds []*Derivation, ts []table) string {
	var b strings.Builder
	b.WriteString("import sys\nbad = 0\n\n")
	for i, d := range ds {
		for _, p := range []*Program{d.Forward, d.Inverse} {
			src, err := Emit(p, Python)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(src + "\n")
		}
		nin, nout := len(d.Map.In), len(d.Map.Out)
		fmt.Fprintf(&b, "rows%d = [\n", i)
		for _, r := range ts[i].rows {
			fmt.Fprintf(&b, "    (%s),\n", intList(r))
		}
		fmt.Fprintf(&b, "]\ncells%d = [\n", i)
		for _, c := range ts[i].cells {
			fmt.Fprintf(&b, "    (%s,),\n", intList(c))
		}
		b.WriteString("]\n")
		fmt.Fprintf(&b, "for r in rows%d:\n    got = %s(*r[:%d])\n", i, d.Forward.Name, nin)
		fmt.Fprintf(&b, "    if not isinstance(got, tuple): got = (got,)\n")
		fmt.Fprintf(&b, "    if tuple(got) != tuple(r[%d:]):\n        bad += 1\n        print(%q, r, got)\n", nin, d.Forward.Name)
		fmt.Fprintf(&b, "for c in cells%d:\n    x = %s(*c)\n    if not isinstance(x, tuple): x = (x,)\n", i, d.Inverse.Name)
		ext := make([]int, nin)
		for k, f := range d.Map.In {
			ext[k] = f.Extent
		}
		fmt.Fprintf(&b, "    ext = (%s,)\n    if any(not (0 <= a < e) for a, e in zip(x, ext)):\n        bad += 1\n        print(%q, c, x, 'out of range')\n        continue\n", intList(ext), d.Inverse.Name)
		fmt.Fprintf(&b, "    idx = 0\n    for a, e in zip(x, ext): idx = idx * e + a\n")
		fmt.Fprintf(&b, "    if tuple(rows%d[idx][%d:]) != tuple(c):\n        bad += 1\n        print(%q, c, x)\n", i, nin, d.Inverse.Name)
		_ = nout
	}
	b.WriteString("if bad:\n    print(bad, 'mismatches')\n    sys.exit(1)\nprint('ok')\n")
	return b.String()
}

func TestEmittedPythonRuns(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	ds, ts := derived(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "check.py"), []byte(pyHarness(t, ds, ts)), 0o644)
	if out := runTool(t, dir, py, "check.py"); strings.TrimSpace(out) != "ok" {
		t.Fatalf("harness: %s", out)
	}
}

func cHarness(t *testing.T, ds []*Derivation, ts []table) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n\nstatic int bad;\n\n")
	var calls strings.Builder
	for i, d := range ds {
		for _, p := range []*Program{d.Forward, d.Inverse} {
			src, err := Emit(p, C)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(src + "\n")
		}
		typ := "unsigned"
		if d.Forward.wide() {
			typ = "unsigned long long"
		}
		nin, nout := len(d.Map.In), len(d.Map.Out)
		fmt.Fprintf(&b, "static const unsigned long long rows%d[][%d] = {\n", i, nin+nout)
		for _, r := range ts[i].rows {
			fmt.Fprintf(&b, "    {%s},\n", intList(r))
		}
		fmt.Fprintf(&b, "};\nstatic const unsigned long long cells%d[][%d] = {\n", i, nout)
		for _, c := range ts[i].cells {
			fmt.Fprintf(&b, "    {%s},\n", intList(c))
		}
		b.WriteString("};\n\n")
		fmt.Fprintf(&b, "static void check%d(void)\n{\n", i)
		fmt.Fprintf(&b, "    for (unsigned long n = 0; n < sizeof rows%d / sizeof rows%d[0]; n++) {\n        const unsigned long long *r = rows%d[n];\n", i, i, i)
		var args []string
		for k := range nin {
			args = append(args, fmt.Sprintf("(%s)r[%d]", typ, k))
		}
		fmt.Fprintf(&b, "        %s o[%d];\n", typ, nout)
		for k := range nout {
			args = append(args, fmt.Sprintf("&o[%d]", k))
		}
		fmt.Fprintf(&b, "        %s(%s);\n", d.Forward.Name, strings.Join(args, ", "))
		fmt.Fprintf(&b, "        for (int k = 0; k < %d; k++) if (o[k] != r[%d + k]) { bad++; printf(\"%s row %%lu\\n\", n); break; }\n    }\n", nout, nin, d.Forward.Name)
		fmt.Fprintf(&b, "    for (unsigned long n = 0; n < sizeof cells%d / sizeof cells%d[0]; n++) {\n        const unsigned long long *c = cells%d[n];\n", i, i, i)
		args = nil
		for k := range nout {
			args = append(args, fmt.Sprintf("(%s)c[%d]", typ, k))
		}
		fmt.Fprintf(&b, "        %s x[%d];\n", typ, nin)
		for k := range nin {
			args = append(args, fmt.Sprintf("&x[%d]", k))
		}
		fmt.Fprintf(&b, "        %s(%s);\n        unsigned long long idx = 0;\n        int ok = 1;\n", d.Inverse.Name, strings.Join(args, ", "))
		for k, f := range d.Map.In {
			fmt.Fprintf(&b, "        if (x[%d] >= %dULL) ok = 0; else idx = idx * %dULL + x[%d];\n", k, f.Extent, f.Extent, k)
		}
		fmt.Fprintf(&b, "        if (ok) for (int k = 0; k < %d; k++) if (rows%d[idx][%d + k] != c[k]) ok = 0;\n", nout, i, nin)
		fmt.Fprintf(&b, "        if (!ok) { bad++; printf(\"%s cell %%lu\\n\", n); }\n    }\n}\n\n", d.Inverse.Name)
		fmt.Fprintf(&calls, "    check%d();\n", i)
	}
	b.WriteString("int main(void)\n{\n" + calls.String())
	b.WriteString("    if (bad) { printf(\"%d mismatches\\n\", bad); return 1; }\n    printf(\"ok\\n\");\n    return 0;\n}\n")
	return b.String()
}

func TestEmittedCRuns(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("no C compiler (gcc or cc) on PATH")
		}
	}
	ds, ts := derived(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "check.c"), []byte(cHarness(t, ds, ts)), 0o644)
	runTool(t, dir, cc, "-std=c99", "-O1", "-Wall", "-Werror", "-Wno-unused-function", "-o", "check", "check.c")
	if out := runTool(t, dir, filepath.Join(dir, "check")); strings.TrimSpace(out) != "ok" {
		t.Fatalf("harness: %s", out)
	}
}

// ptxBlock is a parsed PTX block as Emit writes it: declarations and
// straight-line integer instructions.
type ptxBlock struct {
	width int
	ins   []ptxIns
}

type ptxIns struct {
	op   string // "shl", "shr", "and", ...
	args []string
	line int
}

var (
	ptxRegDecl = regexp.MustCompile(`^\.reg \.b(32|64) (%[A-Za-z_][A-Za-z0-9_]*(?:, %[A-Za-z_][A-Za-z0-9_]*)*);$`)
	ptxInsRe   = regexp.MustCompile(`^(shl\.b|shr\.u|and\.b|or\.b|xor\.b|add\.u|sub\.u|mul\.lo\.u|mov\.b|not\.b|neg\.s)(32|64) +(%[A-Za-z_][A-Za-z0-9_]*), ((?:%[A-Za-z_][A-Za-z0-9_]*|[0-9]+|0x[0-9A-F]+)(?:, (?:%[A-Za-z_][A-Za-z0-9_]*|[0-9]+|0x[0-9A-F]+))?); +// .+$`)
)

// parsePTX checks that text is well formed the way a later PTX front end
// and ptxas need: a header comment, one braced block, a declaration of
// every local register, known instructions of one width with a comment
// each, and no register read before it is written. in and out are the
// caller's registers.
func parsePTX(text string, in, out []string) (*ptxBlock, error) {
	blk := &ptxBlock{}
	declared := map[string]bool{}
	written := map[string]bool{}
	for _, r := range in {
		declared[r], written[r] = true, true
	}
	for _, r := range out {
		declared[r] = true
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	n, state := 0, 0 // 0 before '{', 1 inside, 2 after '}'
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "//"):
			continue
		case l == "{" && state == 0:
			state = 1
			continue
		case l == "}" && state == 1:
			state = 2
			continue
		case state != 1:
			return nil, fmt.Errorf("line %d: %q outside the block", n, l)
		}
		if m := ptxRegDecl.FindStringSubmatch(l); m != nil {
			w, _ := strconv.Atoi(m[1])
			if blk.width != 0 && blk.width != w {
				return nil, fmt.Errorf("line %d: mixed widths", n)
			}
			blk.width = w
			for _, r := range strings.Split(m[2], ", ") {
				if declared[r] {
					return nil, fmt.Errorf("line %d: %s declared twice", n, r)
				}
				declared[r] = true
			}
			continue
		}
		m := ptxInsRe.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("line %d: malformed instruction %q", n, l)
		}
		w, _ := strconv.Atoi(m[2])
		if blk.width != 0 && w != blk.width {
			return nil, fmt.Errorf("line %d: width %d in a .b%d block", n, w, blk.width)
		}
		blk.width = w
		args := append([]string{m[3]}, strings.Split(m[4], ", ")...)
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "%") && !written[a] {
				return nil, fmt.Errorf("line %d: %s read before it is written (or never declared)", n, a)
			}
		}
		if !declared[args[0]] {
			return nil, fmt.Errorf("line %d: %s is not declared", n, args[0])
		}
		written[args[0]] = true
		op := strings.TrimSuffix(strings.TrimSuffix(strings.SplitN(m[1], ".", 2)[0], "."), ".")
		want := 3
		if op == "mov" || op == "not" || op == "neg" {
			want = 2
		}
		if len(args) != want {
			return nil, fmt.Errorf("line %d: %s takes %d operands", n, op, want)
		}
		blk.ins = append(blk.ins, ptxIns{op: op, args: args, line: n})
	}
	if state != 2 {
		return nil, fmt.Errorf("unbalanced braces")
	}
	for _, r := range out {
		if !written[r] {
			return nil, fmt.Errorf("output %s is never written", r)
		}
	}
	if blk.width == 0 {
		blk.width = 32
	}
	return blk, nil
}

// run interprets the block on the given register values.
func (blk *ptxBlock) run(regs map[string]uint64) {
	mask := uint64(1)<<blk.width - 1
	if blk.width == 64 {
		mask = ^uint64(0)
	}
	val := func(a string) uint64 {
		if strings.HasPrefix(a, "%") {
			return regs[a]
		}
		v, _ := strconv.ParseUint(a, 0, 64)
		return v
	}
	for _, in := range blk.ins {
		x := val(in.args[1])
		var y uint64
		if len(in.args) > 2 {
			y = val(in.args[2])
		}
		var r uint64
		switch in.op {
		case "shl":
			r = x << y
		case "shr":
			r = x >> y
		case "and":
			r = x & y
		case "or":
			r = x | y
		case "xor":
			r = x ^ y
		case "add":
			r = x + y
		case "sub":
			r = x - y
		case "mul":
			r = x * y
		case "mov":
			r = x
		case "not":
			r = ^x
		case "neg":
			r = -x
		}
		regs[in.args[0]] = r & mask
	}
}

func TestEmittedPTXRuns(t *testing.T) {
	ds, ts := derived(t)
	for i, d := range ds {
		for dir, p := range []*Program{d.Forward, d.Inverse} {
			src, err := Emit(p, PTX)
			if err != nil {
				t.Fatal(err)
			}
			var in, out []string
			for _, f := range p.Inputs {
				in = append(in, PTXReg(f.Name))
			}
			for _, f := range p.Outputs {
				out = append(out, PTXReg(f.Name))
			}
			blk, err := parsePTX(src, in, out)
			if err != nil {
				t.Fatalf("%s: %v\n%s", p.Name, err, src)
			}
			tb := ts[i]
			nin := len(d.Map.In)
			if dir == 0 {
				for _, r := range tb.rows {
					regs := map[string]uint64{}
					for k, f := range p.Inputs {
						regs[PTXReg(f.Name)] = uint64(r[k])
					}
					blk.run(regs)
					for k, f := range p.Outputs {
						if regs[PTXReg(f.Name)] != uint64(r[nin+k]) {
							t.Fatalf("%s at %v: %s = %d", p.Name, r[:nin], f.Name, regs[PTXReg(f.Name)])
						}
					}
				}
				continue
			}
			for _, c := range tb.cells {
				regs := map[string]uint64{}
				for k, f := range p.Inputs {
					regs[PTXReg(f.Name)] = uint64(c[k])
				}
				blk.run(regs)
				x := make([]int, nin)
				for k, f := range p.Outputs {
					v := regs[PTXReg(f.Name)]
					if v >= uint64(d.Map.In[k].Extent) {
						t.Fatalf("%s at %v: %s = %d out of range", p.Name, c, f.Name, v)
					}
					x[k] = int(v)
				}
				if got := tb.rows[tb.index(x)][nin:]; !equalInts(got, c) {
					t.Fatalf("%s at %v: gives %v, which holds %v", p.Name, c, x, got)
				}
			}
		}
	}
}

func TestParsePTXRejects(t *testing.T) {
	in, out := []string{"%r_x"}, []string{"%r_y"}
	for _, src := range []string{
		"{\n\tshl.b32    %r_y, %r_z, 1; // y\n}\n",                                   // undeclared source
		"{\n\tshl.b32    %r_y, %r_x, 1;\n}\n",                                        // no comment
		"{\n\tfoo.b32    %r_y, %r_x, 1; // y\n}\n",                                   // unknown op
		"{\n\tshl.b32    %r_y, %r_x, 1; // y\n",                                      // unbalanced
		"{\n\t.reg .b32 %t0;\n\tadd.u32    %r_y, %t0, 1; // y\n}\n",                  // read before write
		"{\n\t.reg .b32 %t0;\n\tmov.b32    %t0, %r_x; // t0\n}\n",                    // output never written
		"{\n\tshl.b64    %r_y, %r_x, 1; // y\n\tshl.b32    %r_y, %r_x, 1; // y\n}\n", // mixed widths
	} {
		if _, err := parsePTX(src, in, out); err == nil {
			t.Errorf("accepted:\n%s", src)
		}
	}
}

// TestGolden pins the emitted text for the two maps the README shows.
func TestGolden(t *testing.T) {
	maps := []Map{accMap(t, 256), layoutMap(t, "smem.sw128.k.16b", "Sw<3,3,3> o 0 o (8,64):(64,1)", true)}
	ext := map[Lang]string{C: "c", PTX: "ptx", Python: "py", Go: "go.txt"}
	for _, m := range maps {
		d, err := Derive(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range Langs {
			var b strings.Builder
			for _, p := range []*Program{d.Forward, d.Inverse} {
				s, err := Emit(p, lang)
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString(s + "\n")
			}
			path := filepath.Join("testdata", "golden", identifier(m.Name)+"."+ext[lang])
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from the golden file (run go test -update after checking the change):\n%s", path, b.String())
			}
		}
	}
}
