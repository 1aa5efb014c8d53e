package bitmath

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tcsim/tcsim/internal/suggest"
)

// Lang is a language Emit writes programs in.
type Lang string

// The languages. C, Go and Python get a function; PTX gets a scoped block of
// b32 (or b64) instructions that reads and writes registers the caller
// declares, named %r_<variable>.
const (
	C      Lang = "c"
	PTX    Lang = "ptx"
	Python Lang = "python"
	Go     Lang = "go"
)

// Langs lists the languages in the order tcsim offers them.
var Langs = []Lang{C, PTX, Python, Go}

// ParseLang accepts a language name ("c", "ptx", "python" or "py", "go").
func ParseLang(s string) (Lang, error) {
	switch strings.ToLower(s) {
	case "c":
		return C, nil
	case "ptx":
		return PTX, nil
	case "python", "py":
		return Python, nil
	case "go", "golang":
		return Go, nil
	}
	return "", fmt.Errorf("unknown language %q (want c, ptx, python or go)%s", s, suggest.HintSuffix(s, []string{"c", "ptx", "python", "go"}))
}

// wide reports whether the program needs 64-bit integers.
func (p *Program) wide() bool {
	for _, f := range append(append([]Field(nil), p.Inputs...), p.Outputs...) {
		if f.Bits() > 32 {
			return true
		}
	}
	return false
}

// Emit returns p as source code in lang: a function (or, for PTX, a block)
// with the notes, every step's purpose and one explanation line per term as
// comments. The code assumes in-range inputs (see Derive).
func Emit(p *Program, lang Lang) (string, error) {
	var b strings.Builder
	switch lang {
	case C:
		emitC(&b, p)
	case Go:
		emitGo(&b, p)
	case Python:
		emitPython(&b, p)
	case PTX:
		emitPTX(&b, p)
	default:
		return "", fmt.Errorf("unknown language %q (want c, ptx, python or go)", lang)
	}
	return b.String(), nil
}

// stepComments writes a step's purpose and its terms' explanations, each
// line starting with prefix.
func stepComments(b *strings.Builder, prefix string, s Step) {
	if s.Why != "" {
		fmt.Fprintf(b, "%s%s: %s\n", prefix, s.Name, s.Why)
	}
	w := 0
	for _, t := range s.Terms {
		w = max(w, len(t.Expr))
	}
	for _, t := range s.Terms {
		fmt.Fprintf(b, "%s  %-*s  %s\n", prefix, w, t.Expr, t.Note)
	}
}

func header(b *strings.Builder, prefix string, p *Program) {
	if p.Desc != "" {
		fmt.Fprintf(b, "%s%s\n", prefix, p.Desc)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "%sNote: %s\n", prefix, n)
	}
}

func names(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func isOutput(p *Program, name string) bool { return fieldIndex(p.Outputs, name) >= 0 }

func emitC(b *strings.Builder, p *Program) {
	typ := "unsigned"
	if p.wide() {
		typ = "unsigned long long"
	}
	header(b, "// ", p)
	var params []string
	for _, n := range names(p.Inputs) {
		params = append(params, typ+" "+n)
	}
	for _, n := range names(p.Outputs) {
		params = append(params, typ+" *out_"+n)
	}
	fmt.Fprintf(b, "static inline void %s(%s)\n{\n", p.Name, strings.Join(params, ", "))
	for _, s := range p.Steps {
		stepComments(b, "    // ", s)
		fmt.Fprintf(b, "    %s %s = %s;\n", typ, s.Name, s.Expr)
	}
	for _, n := range names(p.Outputs) {
		fmt.Fprintf(b, "    *out_%s = %s;\n", n, n)
	}
	b.WriteString("}\n")
}

func emitGo(b *strings.Builder, p *Program) {
	typ := "uint32"
	if p.wide() {
		typ = "uint64"
	}
	header(b, "// ", p)
	fmt.Fprintf(b, "func %s(%s %s) (%s %s) {\n", p.Name, strings.Join(names(p.Inputs), ", "), typ,
		strings.Join(names(p.Outputs), ", "), typ)
	for _, s := range p.Steps {
		stepComments(b, "\t// ", s)
		op := ":="
		if isOutput(p, s.Name) {
			op = "="
		}
		fmt.Fprintf(b, "\t%s %s %s\n", s.Name, op, s.Expr)
	}
	fmt.Fprintf(b, "\treturn %s\n}\n", strings.Join(names(p.Outputs), ", "))
}

func emitPython(b *strings.Builder, p *Program) {
	fmt.Fprintf(b, "def %s(%s):\n", p.Name, strings.Join(names(p.Inputs), ", "))
	header(b, "    # ", p)
	for _, s := range p.Steps {
		stepComments(b, "    # ", s)
		fmt.Fprintf(b, "    %s = %s\n", s.Name, s.Expr)
	}
	fmt.Fprintf(b, "    return %s\n", strings.Join(names(p.Outputs), ", "))
}

// PTXReg is the PTX register that holds variable name in emitted PTX.
func PTXReg(name string) string { return "%r_" + name }

// ptxOps maps operators to PTX mnemonics; %d is the register width.
var ptxOps = map[Op]string{
	OpShl: "shl.b%d", OpShr: "shr.u%d", OpAnd: "and.b%d", OpOr: "or.b%d", OpXor: "xor.b%d",
	OpAdd: "add.u%d", OpSub: "sub.u%d", OpMul: "mul.lo.u%d", OpDiv: "div.u%d", OpMod: "rem.u%d",
	OpNeg: "neg.s%d", OpNot: "not.b%d",
}

type ptxGen struct {
	width int
	lines [][2]string // instruction, comment
	temps int
}

// emit records one instruction, written "mnemonic \toperands;", with the
// mnemonic padded so that operands line up.
func (g *ptxGen) emit(ins, comment string) {
	if op, rest, ok := strings.Cut(ins, " \t"); ok {
		ins = fmt.Sprintf("%-11s%s", op, rest)
	}
	g.lines = append(g.lines, [2]string{ins, comment})
}

func (g *ptxGen) temp() string {
	t := "%t" + strconv.Itoa(g.temps)
	g.temps++
	return t
}

// value emits the instructions that compute e, operands first, and
// returns the register or immediate that holds it. The result goes to dst
// when dst is not empty, otherwise to a fresh temporary.
func (g *ptxGen) value(e *Expr, dst, comment string) string {
	switch e.Op {
	case OpConst, OpVar:
		src := ptxImm(e.Val)
		if e.Op == OpVar {
			src = PTXReg(e.Name)
		}
		if dst == "" {
			return src
		}
		g.emit(fmt.Sprintf("mov.b%d \t%s, %s;", g.width, dst, src), comment)
		return dst
	case OpNeg, OpNot:
		x := g.value(e.X, "", "")
		if dst == "" {
			dst = g.temp()
			comment = dst[1:] + " = " + e.String()
		}
		g.emit(fmt.Sprintf(ptxOps[e.Op]+" \t%s, %s;", g.width, dst, x), comment)
		return dst
	}
	xe, ye := e.X, e.Y
	if xe.Op == OpConst && associative(e.Op) { // PTX wants a register first
		xe, ye = ye, xe
	}
	x := g.value(xe, "", "")
	if xe.Op == OpConst {
		t := g.temp()
		g.emit(fmt.Sprintf("mov.b%d \t%s, %s;", g.width, t, x), t[1:]+" = "+x)
		x = t
	}
	y := g.value(ye, "", "")
	if (e.Op == OpShl || e.Op == OpShr) && ye.Op == OpConst {
		y = strconv.FormatInt(ye.Val, 10)
	}
	if dst == "" {
		dst = g.temp()
		comment = dst[1:] + " = " + e.String()
	}
	g.emit(fmt.Sprintf(ptxOps[e.Op]+" \t%s, %s, %s;", g.width, dst, x, y), comment)
	return dst
}

// ptxImm prints an immediate as the other languages print constants.
func ptxImm(v int64) string { return formatConst(v) }

func emitPTX(b *strings.Builder, p *Program) {
	g := &ptxGen{width: 32}
	if p.wide() {
		g.width = 64
	}
	var body strings.Builder
	var locals []string
	for _, s := range p.Steps {
		g.lines = g.lines[:0]
		g.value(s.Expr, PTXReg(s.Name), s.Name+" = "+s.Expr.String())
		if !isOutput(p, s.Name) && fieldIndex(p.Inputs, s.Name) < 0 && !slices.Contains(locals, PTXReg(s.Name)) {
			locals = append(locals, PTXReg(s.Name))
		}
		stepComments(&body, "\t// ", s)
		for _, l := range g.lines {
			fmt.Fprintf(&body, "\t%-36s // %s\n", l[0], l[1])
		}
	}
	for i := range g.temps {
		locals = append(locals, "%t"+strconv.Itoa(i))
	}
	header(b, "// ", p)
	var ins, outs []string
	for _, n := range names(p.Inputs) {
		ins = append(ins, PTXReg(n))
	}
	for _, n := range names(p.Outputs) {
		outs = append(outs, PTXReg(n))
	}
	fmt.Fprintf(b, "// in: %s; out: %s (.b%d registers the caller declares)\n", strings.Join(ins, ", "), strings.Join(outs, ", "), g.width)
	b.WriteString("{\n")
	if len(locals) > 0 {
		fmt.Fprintf(b, "\t.reg .b%d %s;\n", g.width, strings.Join(locals, ", "))
	}
	b.WriteString(body.String())
	b.WriteString("}\n")
}

// EmitPTXKernel wraps p's PTX block in a complete kernel, ".visible .entry
// entry(.param .u64 out)", that evaluates p for every input tuple: thread i
// (over the whole grid, 1-D) takes the i-th tuple in row-major order (the
// last input varies fastest) and stores the outputs to out[i*K .. i*K+K-1],
// K = len(p.Outputs), as .u32 (or .u64 when p needs 64 bits). Threads past
// the last tuple do nothing. Launch it with at least Tuples(p) threads; the
// buffer needs Tuples(p)*K*4 (or *8) bytes. It targets sm_80, so any GPU
// from Ampere on runs it.
func EmitPTXKernel(p *Program, entry string) (string, error) {
	n := Tuples(p)
	if n <= 0 || n > 1<<30 {
		return "", fmt.Errorf("%s: %d input tuples; a kernel handles 1..2^30", p.Name, n)
	}
	block, err := Emit(p, PTX)
	if err != nil {
		return "", err
	}
	w, esz := 32, 4
	if p.wide() {
		w, esz = 64, 8
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n// Thread i evaluates input tuple i (row-major, the last input fastest) and\n", p.Desc)
	fmt.Fprintf(&b, "// stores its %d output(s) at out + %d*i as .u%d. Tuples: %d.\n", len(p.Outputs), len(p.Outputs)*esz, w, n)
	b.WriteString(".version 7.0\n.target sm_80\n.address_size 64\n\n")
	fmt.Fprintf(&b, ".visible .entry %s(.param .u64 out)\n{\n", entry)
	var io []string
	for _, f := range append(append([]Field(nil), p.Inputs...), p.Outputs...) {
		io = append(io, PTXReg(f.Name))
	}
	b.WriteString("\t.reg .pred %p_done;\n\t.reg .b32 %k_i, %k_q, %k_n, %k_x;\n\t.reg .b64 %k_addr, %k_off;\n")
	fmt.Fprintf(&b, "\t.reg .b%d %s;\n", w, strings.Join(io, ", "))
	b.WriteString("\tmov.u32    %k_i, %ctaid.x;\n\tmov.u32    %k_n, %ntid.x;\n\tmov.u32    %k_x, %tid.x;\n")
	b.WriteString("\tmad.lo.u32 %k_i, %k_i, %k_n, %k_x;\n")
	fmt.Fprintf(&b, "\tsetp.ge.u32 %%p_done, %%k_i, %d;\n\t@%%p_done bra DONE;\n", n)
	// Split the index into the inputs, last input first.
	b.WriteString("\tmov.u32    %k_q, %k_i;\n")
	for k := len(p.Inputs) - 1; k >= 0; k-- {
		f := p.Inputs[k]
		dst := PTXReg(f.Name)
		if w == 64 {
			dst = "%k_x"
		}
		if k > 0 {
			fmt.Fprintf(&b, "\trem.u32    %s, %%k_q, %d;\n\tdiv.u32    %%k_q, %%k_q, %d;\n", dst, f.Extent, f.Extent)
		} else {
			fmt.Fprintf(&b, "\tmov.u32    %s, %%k_q;\n", dst)
		}
		if w == 64 {
			fmt.Fprintf(&b, "\tcvt.u64.u32 %s, %%k_x;\n", PTXReg(f.Name))
		}
	}
	b.WriteString(block)
	b.WriteString("\tld.param.u64 %k_addr, [out];\n\tcvta.to.global.u64 %k_addr, %k_addr;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%k_off, %%k_i, %d;\n\tadd.u64    %%k_addr, %%k_addr, %%k_off;\n", len(p.Outputs)*esz)
	for k, f := range p.Outputs {
		fmt.Fprintf(&b, "\tst.global.u%d [%%k_addr+%d], %s;\n", w, k*esz, PTXReg(f.Name))
	}
	b.WriteString("DONE:\n\tret;\n}\n")
	return b.String(), nil
}

// Tuples is the number of input tuples of p: the product of its input
// extents.
func Tuples(p *Program) int {
	n := 1
	for _, f := range p.Inputs {
		n *= f.Extent
	}
	return n
}
