package ptx

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Fprint writes the module as normalised PTX: one statement per line,
// tab indentation by block depth, operands separated by ", ", integers in
// decimal (or hexadecimal when written so) and floats as 0f/0d bit
// patterns. Comments are not kept. Parsing the output gives a tree equal
// to m (positions aside).
func Fprint(w io.Writer, m *Module) error {
	bw := bufio.NewWriter(w)
	pr := &printer{w: bw}
	prevFunc := false
	for i, d := range m.Decls {
		_, isFunc := d.(*Function)
		_, isSection := d.(*Section)
		if i > 0 && (isFunc || isSection || prevFunc) {
			bw.WriteByte('\n')
		}
		pr.decl(d)
		prevFunc = isFunc || isSection
	}
	return bw.Flush()
}

// Format returns the normalised PTX text of m.
func Format(m *Module) string {
	var b strings.Builder
	Fprint(&b, m)
	return b.String()
}

// String returns the instruction as normalised PTX, without the
// semicolon: "@%p1 ld.global.v2.f32 {%f1, %f2}, [%rd1+8]".
func (in *Instruction) String() string {
	var b strings.Builder
	writeInstruction(&b, in)
	return b.String()
}

// ExprString formats an operand or initializer expression as PTX.
func ExprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e, false)
	return b.String()
}

type printer struct {
	w *bufio.Writer
}

func (p *printer) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *printer) indent(depth int) {
	for i := 0; i < depth; i++ {
		p.w.WriteByte('\t')
	}
}

func (p *printer) decl(d Decl) {
	switch d := d.(type) {
	case *VersionDirective:
		p.printf(".version %d.%d\n", d.Major, d.Minor)
	case *TargetDirective:
		p.printf(".target %s\n", strings.Join(d.Targets, ", "))
	case *AddressSizeDirective:
		p.printf(".address_size %d\n", d.Size)
	case *FileDirective:
		p.fileDirective(d, 0)
	case *AliasDirective:
		p.printf(".alias %s, %s;\n", d.Alias, d.Aliasee)
	case *Pragma:
		p.printf(".pragma %s;\n", strconv.Quote(d.Text))
	case *Loc:
		p.loc(d, 0)
	case *VarDecl:
		p.w.WriteString(varDeclString(d))
		p.w.WriteString(";\n")
	case *Section:
		p.printf(".section %s\n{\n", d.Name)
		for _, it := range d.Items {
			switch it := it.(type) {
			case *Label:
				p.printf("%s:\n", it.Name)
			case *DataDirective:
				var b strings.Builder
				for i, v := range it.Values {
					if i > 0 {
						b.WriteString(", ")
					}
					writeExpr(&b, v, false)
				}
				p.printf(".%s %s\n", it.Type, b.String())
			}
		}
		p.w.WriteString("}\n")
	case *Function:
		p.function(d)
	}
}

func (p *printer) fileDirective(d *FileDirective, depth int) {
	p.indent(depth)
	p.printf(".file %d %s", d.Index, strconv.Quote(d.Name))
	if d.HasMeta {
		p.printf(", %d, %d", d.Mtime, d.Size)
	}
	p.w.WriteByte('\n')
}

func (p *printer) loc(d *Loc, depth int) {
	p.indent(depth)
	p.printf(".loc %d %d %d", d.File, d.Line, d.Col)
	if d.Extra != "" {
		p.printf(", %s", d.Extra)
	}
	p.w.WriteByte('\n')
}

func varDeclString(d *VarDecl) string {
	var b strings.Builder
	if d.Linkage != "" {
		b.WriteString("." + d.Linkage + " ")
	}
	b.WriteString("." + d.Space.String())
	if len(d.Attrs) > 0 {
		b.WriteString(" .attribute(")
		for i, a := range d.Attrs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("." + a)
		}
		b.WriteString(")")
	}
	if d.Align > 0 {
		fmt.Fprintf(&b, " .align %d", d.Align)
	}
	if d.Vec > 0 {
		fmt.Fprintf(&b, " .v%d", d.Vec)
	}
	if d.Type != TypeNone {
		b.WriteString(" ." + d.Type.String())
	}
	if d.Ptr != nil {
		b.WriteString(" .ptr")
		if d.Ptr.Space != SpaceNone {
			b.WriteString(" ." + d.Ptr.Space.String())
		}
		if d.Ptr.Align > 0 {
			fmt.Fprintf(&b, " .align %d", d.Ptr.Align)
		}
	}
	for i, v := range d.Vars {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		b.WriteString(v.Name)
		if v.Range {
			fmt.Fprintf(&b, "<%d>", v.Count)
		}
		for _, n := range v.Dims {
			if n < 0 {
				b.WriteString("[]")
			} else {
				fmt.Fprintf(&b, "[%d]", n)
			}
		}
		if v.Init != nil {
			b.WriteString(" = ")
			writeExpr(&b, v.Init, false)
		}
	}
	return b.String()
}

func (p *printer) params(ps []*VarDecl) {
	p.w.WriteString("(")
	for i, d := range ps {
		if i > 0 {
			p.w.WriteByte(',')
		}
		p.w.WriteString("\n\t")
		p.w.WriteString(varDeclString(d))
	}
	if len(ps) > 0 {
		p.w.WriteByte('\n')
	}
	p.w.WriteString(")")
}

func (p *printer) function(f *Function) {
	if f.Linkage != "" {
		p.printf(".%s ", f.Linkage)
	}
	if f.Entry {
		p.w.WriteString(".entry ")
	} else {
		p.w.WriteString(".func ")
	}
	if len(f.Returns) > 0 {
		p.params(f.Returns)
		p.w.WriteByte(' ')
	}
	p.w.WriteString(f.Name)
	if f.HasParen || len(f.Params) > 0 {
		p.params(f.Params)
	}
	p.w.WriteByte('\n')
	for _, d := range f.Directives {
		p.printf(".%s", d.Name)
		for i, v := range d.Values {
			if i > 0 {
				p.w.WriteByte(',')
			}
			p.printf(" %d", v)
		}
		p.w.WriteByte('\n')
	}
	if f.Body == nil {
		p.w.WriteString(";\n")
		return
	}
	p.block(f.Body, 0)
}

func (p *printer) block(b *Block, depth int) {
	p.indent(depth)
	p.w.WriteString("{\n")
	for _, st := range b.Stmts {
		p.stmt(st, depth+1)
	}
	p.indent(depth)
	p.w.WriteString("}\n")
}

func (p *printer) stmt(st Stmt, depth int) {
	switch st := st.(type) {
	case *Instruction:
		p.indent(depth)
		var b strings.Builder
		writeInstruction(&b, st)
		p.w.WriteString(b.String())
		p.w.WriteString(";\n")
	case *Label:
		p.indent(depth - 1)
		p.printf("%s:\n", st.Name)
	case *VarDecl:
		p.indent(depth)
		p.w.WriteString(varDeclString(st))
		p.w.WriteString(";\n")
	case *Block:
		p.block(st, depth)
	case *Loc:
		p.loc(st, depth)
	case *Pragma:
		p.indent(depth)
		p.printf(".pragma %s;\n", strconv.Quote(st.Text))
	case *FileDirective:
		p.fileDirective(st, depth)
	case *CallPrototype:
		p.indent(depth - 1)
		p.printf("%s: .callprototype ", st.Name)
		if len(st.Returns) > 0 {
			p.inlineParams(st.Returns)
			p.w.WriteByte(' ')
		}
		p.w.WriteString("_ ")
		p.inlineParams(st.Params)
		p.w.WriteString(";\n")
	case *BranchTargets:
		p.indent(depth - 1)
		kw := "branchtargets"
		if st.Calls {
			kw = "calltargets"
		}
		var names []string
		for _, t := range st.Targets {
			names = append(names, t.Name)
		}
		p.printf("%s: .%s %s;\n", st.Name, kw, strings.Join(names, ", "))
	}
}

func (p *printer) inlineParams(ps []*VarDecl) {
	p.w.WriteByte('(')
	for i, d := range ps {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(varDeclString(d))
	}
	p.w.WriteByte(')')
}

func writeInstruction(b *strings.Builder, in *Instruction) {
	if in.Guard != nil {
		b.WriteByte('@')
		if in.Guard.Not {
			b.WriteByte('!')
		}
		b.WriteString(in.Guard.Name)
		b.WriteByte(' ')
	}
	b.WriteString(in.Name())
	for i, op := range in.Operands {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		writeExpr(b, op, false)
	}
}

func formatImm(x *Imm) string {
	switch x.Kind {
	case ImmF32:
		return fmt.Sprintf("0f%08X", uint32(x.Bits))
	case ImmF64:
		return fmt.Sprintf("0d%016X", x.Bits)
	}
	neg := !x.Unsigned && int64(x.Bits) < 0
	if x.Hex {
		if neg {
			return fmt.Sprintf("-0x%x", uint64(-int64(x.Bits)))
		}
		s := fmt.Sprintf("0x%x", x.Bits)
		if x.Unsigned && x.Bits <= math.MaxInt64 {
			s += "U"
		}
		return s
	}
	if x.Unsigned {
		s := strconv.FormatUint(x.Bits, 10)
		if x.Bits <= math.MaxInt64 {
			s += "U"
		}
		return s
	}
	return strconv.FormatInt(int64(x.Bits), 10)
}

// writeList writes elems separated by ", " between open and close.
func writeList(b *strings.Builder, open byte, elems []Expr, close byte) {
	b.WriteByte(open)
	for i, x := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, x, false)
	}
	b.WriteByte(close)
}

func writeExpr(b *strings.Builder, e Expr, inBinary bool) {
	switch e := e.(type) {
	case *Reg:
		if e.Not {
			b.WriteByte('!')
		}
		b.WriteString(e.Name)
		if e.Comp != "" {
			b.WriteByte('.')
			b.WriteString(e.Comp)
		}
	case *Imm:
		s := formatImm(e)
		if inBinary && strings.HasPrefix(s, "-") {
			b.WriteString("(" + s + ")")
		} else {
			b.WriteString(s)
		}
	case *Ident:
		paren := inBinary && e.Offset != 0
		if paren {
			b.WriteByte('(')
		}
		if e.Generic {
			b.WriteString("generic(" + e.Name + ")")
		} else {
			b.WriteString(e.Name)
		}
		writeOffset(b, e.Offset)
		if paren {
			b.WriteByte(')')
		}
	case *Address:
		b.WriteByte('[')
		switch base := e.Base.(type) {
		case nil:
			b.WriteString(strconv.FormatInt(e.Offset, 10))
		default:
			writeExpr(b, base, false)
			writeOffset(b, e.Offset)
		}
		if e.Coords != nil {
			b.WriteString(", ")
			writeExpr(b, e.Coords, false)
		}
		b.WriteByte(']')
	case *Vector:
		writeList(b, '{', e.Elems, '}')
	case *InitList:
		writeList(b, '{', e.Elems, '}')
	case *List:
		writeList(b, '(', e.Elems, ')')
	case *Sink:
		b.WriteByte('_')
	case *Pair:
		writeExpr(b, e.X, false)
		b.WriteByte('|')
		writeExpr(b, e.Y, false)
	case *BinaryExpr:
		if inBinary {
			b.WriteByte('(')
		}
		writeExpr(b, e.X, true)
		b.WriteString(" " + opString(e.Op) + " ")
		writeExpr(b, e.Y, true)
		if inBinary {
			b.WriteByte(')')
		}
	case *UnaryExpr:
		b.WriteString(opString(e.Op))
		writeExpr(b, e.X, true)
	}
}

func writeOffset(b *strings.Builder, off int64) {
	switch {
	case off > 0:
		b.WriteString("+" + strconv.FormatInt(off, 10))
	case off < 0:
		b.WriteString("+" + strconv.FormatInt(off, 10)) // "+-8", as nvcc writes it
	}
}

func opString(t Token) string {
	return strings.Trim(t.String(), "'")
}
