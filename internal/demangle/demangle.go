// Package demangle turns the mangled C++ names of kernels (what nvcc
// writes after .entry, ~2,000 characters for a CUTLASS GEMM) into names a
// person can read: Demangle gives the full C++ name, Short an abbreviation
// that fits a message or a title line, such as
// "cutlass::device_kernel<GemmUniversal<…>>".
//
// Names that are not mangled C++ (Triton kernels, extern "C" functions,
// hand-written PTX) come back unchanged. The demangling itself is done by
// github.com/ianlancetaylor/demangle, the demangler of the Go toolchain's
// tools; this package only chooses its options and abbreviates.
package demangle

import (
	"strings"

	dm "github.com/ianlancetaylor/demangle"
)

// MaxShort is the length Short aims for, in bytes (an ellipsis counts 3).
const MaxShort = 80

// maxInput bounds the mangled names this package demangles; longer ones
// (no compiler writes them) are returned as they are.
const maxInput = 1 << 16

// options: LLVM's style (">>", no space), no Rust guessing, and a bound on
// the output (2^17 bytes) so a hostile name cannot blow up.
var options = []dm.Option{dm.LLVMStyle, dm.NoRust, dm.MaxLength(17)}

// IsMangled reports whether name looks like an Itanium C++ mangled name
// (it starts with "_Z") that the demangler accepts.
func IsMangled(name string) bool {
	if !strings.HasPrefix(name, "_Z") || len(name) > maxInput {
		return false
	}
	_, err := dm.ToAST(name, options...)
	return err == nil
}

// Demangle returns the full C++ name of a mangled name, for example
// "hopper_kernel(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*, int)"
// for "_Z13hopper_kernel14CUtensorMap_stS_S_Pfi". Any other name is
// returned unchanged.
func Demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") || len(name) > maxInput {
		return name
	}
	s, err := dm.ToString(name, options...)
	if err != nil {
		return name
	}
	return s
}

// Short returns an abbreviated C++ name: the return type is dropped,
// namespaces are dropped inside template arguments and parameters,
// templates nested in template arguments show as "<…>", and the
// parameters of a function template (which repeat its template
// arguments) are left out. If that is still longer than MaxShort, the
// parameters and then every template argument become "…". A name that is
// not mangled C++ is returned unchanged, but cut to MaxShort with "…" at
// the end when it is longer.
func Short(name string) string {
	a, err := astOf(name)
	if err != nil {
		return cut(name, MaxShort)
	}
	head, params, isFunc := split(a)
	_, isTemplate := head.(*dm.Template)
	h1 := elideText(print(strip(head, true)), 1)
	p1 := ""
	if isFunc && !isTemplate {
		p1 = "(" + printList(params) + ")"
		p1 = elideText(p1, 1)
	}
	if s := h1 + p1; len(s) <= MaxShort {
		return s
	}
	if isFunc && !isTemplate {
		p1 = "(…)"
	}
	if s := h1 + p1; len(s) <= MaxShort {
		return s
	}
	return cut(elideText(h1, 0)+p1, MaxShort)
}

func astOf(name string) (dm.AST, error) {
	if !strings.HasPrefix(name, "_Z") || len(name) > maxInput {
		return nil, dm.ErrNotMangledName
	}
	return dm.ToAST(name, options...)
}

// split separates a function's name from its parameter types.
func split(a dm.AST) (head dm.AST, params []dm.AST, isFunc bool) {
	for {
		switch t := a.(type) {
		case *dm.Typed:
			if ft, ok := t.Type.(*dm.FunctionType); ok {
				return t.Name, ft.Args, true
			}
			return t.Name, nil, false
		case *dm.Clone:
			a = t.Base
			continue
		}
		return a, nil, false
	}
}

// strip drops the namespaces inside template arguments (and, when keepTop
// is false, of the node itself): "cute::C<1>" becomes "C<1>". A scope that
// is itself a template instance stays: "GemmUniversal<…>::Params".
func strip(a dm.AST, keepTop bool) dm.AST {
	fn := func(x dm.AST) dm.AST {
		if q, ok := x.(*dm.Qualified); ok && plainScope(q.Scope) {
			return q.Name
		}
		return nil
	}
	skip := func(dm.AST) bool { return false }
	if keepTop {
		if t, ok := a.(*dm.Template); ok {
			args := make([]dm.AST, len(t.Args))
			for i, x := range t.Args {
				args[i] = copyOr(x, fn, skip)
			}
			return &dm.Template{Name: t.Name, Args: args}
		}
		return a
	}
	return copyOr(a, fn, skip)
}

func copyOr(a dm.AST, fn func(dm.AST) dm.AST, skip func(dm.AST) bool) dm.AST {
	if c := a.Copy(fn, skip); c != nil {
		return c
	}
	return a
}

// plainScope reports whether a scope is only namespace or class names.
func plainScope(a dm.AST) bool {
	switch s := a.(type) {
	case *dm.Name:
		return true
	case *dm.Qualified:
		return plainScope(s.Scope) && plainScope(s.Name)
	}
	return false
}

func print(a dm.AST) string { return dm.ASTToString(a, options...) }

func printList(as []dm.AST) string {
	if len(as) == 1 {
		if b, ok := as[0].(*dm.BuiltinType); ok && b.Name == "void" {
			return ""
		}
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = print(strip(a, false))
	}
	return strings.Join(parts, ", ")
}

// elideText replaces what lies inside template brackets nested deeper than
// keep with "…": keep 1 turns "a<b<c>, d>" into "a<b<…>, d>", keep 0 into
// "a<…>". The "<" and ">" of operator names are not brackets.
func elideText(s string, keep int) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "operator") {
			j := i + len("operator")
			for j < len(s) && strings.IndexByte("<>=-!&|*+/%^~[]()", s[j]) >= 0 {
				j++
			}
			if depth <= keep {
				b.WriteString(s[i:j])
			}
			i = j - 1
			continue
		}
		switch s[i] {
		case '<':
			depth++
			if depth == keep+1 {
				b.WriteString("<…")
				continue
			}
		case '>':
			if depth <= keep+1 {
				b.WriteByte('>')
			}
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth <= keep {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// cut shortens s to at most n bytes (plus "…"), on a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
