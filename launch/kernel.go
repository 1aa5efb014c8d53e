package launch

import (
	"fmt"
	"github.com/tcsim/tcsim/internal/demangle"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
)

// The kernel side of a binding comes from the PTX front end: a launch is
// bound to a parsed *ptx.Function, whose Params are the kernel's .param
// declarations. ParseKernel parses a module for a caller that has only
// the source (tcsim gpu run, tcsim record); the simulator binds the
// function it compiled.

// ParamDecl is one declared .param of a kernel, reduced to what binding
// needs: its name, type, size and alignment in the parameter space.
type ParamDecl struct {
	Name  string
	Type  ptx.Type
	Vec   int // 2 or 4 for .v2/.v4; 0 for a scalar
	Array int // element count of name[N] (the product of every dimension); 0 for no array
	Size  int // bytes
	Align int // bytes: the .align value, else the natural alignment
	// Ptr holds ".ptr [.space] [.align N]" on a pointer parameter: where
	// the pointer points and that memory's alignment (not the
	// parameter's), or nil.
	Ptr *ptx.PtrAttr
	Pos ptx.Pos
}

// naturalAlign is the alignment of an undecorated declaration: the
// element's size, times the vector width for vectors.
func (d ParamDecl) naturalAlign() int {
	n := d.Type.Bits() / 8
	if d.Vec > 0 {
		n *= d.Vec
	}
	return n
}

// Decl returns the declaration in PTX syntax, e.g.
// ".param .align 64 .b8 tmap[128]" or ".param .u64 .ptr .global .align 16 p".
func (d ParamDecl) Decl() string {
	var b strings.Builder
	b.WriteString(".param")
	if d.Align != d.naturalAlign() {
		fmt.Fprintf(&b, " .align %d", d.Align)
	}
	if d.Vec > 0 {
		fmt.Fprintf(&b, " .v%d", d.Vec)
	}
	fmt.Fprintf(&b, " .%s", d.Type)
	if d.Ptr != nil {
		b.WriteString(" .ptr")
		if d.Ptr.Space != ptx.SpaceNone {
			fmt.Fprintf(&b, " .%s", d.Ptr.Space)
		}
		if d.Ptr.Align > 0 {
			fmt.Fprintf(&b, " .align %d", d.Ptr.Align)
		}
	}
	b.WriteString(" " + d.Name)
	if d.Array > 0 {
		fmt.Fprintf(&b, "[%d]", d.Array)
	}
	return b.String()
}

// maxParamBytes bounds a declared parameter (and the parameter space):
// the PTX ISA allows at most 32,764 bytes of kernel parameters on sm_70
// and later, so anything larger is not a kernel a driver runs.
const maxParamBytes = 32764

// KernelParams returns the declared parameters of a kernel, in order.
// It rejects what cannot be a kernel parameter: a state space other than
// .param, a type that is not a fundamental one, an alignment that is not
// a power of two, an array without a positive size.
func KernelParams(f *ptx.Function) ([]ParamDecl, error) {
	var out []ParamDecl
	for _, vd := range f.Params {
		for _, v := range vd.Vars {
			i := len(out)
			d, err := paramDecl(vd, v)
			if err != nil {
				return nil, fmt.Errorf("kernel %s, param %d (%s) at %s: %v", demangle.Short(f.Name), i, v.Name, v.Pos, err)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func paramDecl(vd *ptx.VarDecl, v *ptx.Declarator) (ParamDecl, error) {
	d := ParamDecl{Name: v.Name, Type: vd.Type, Vec: vd.Vec, Align: vd.Align, Ptr: vd.Ptr, Pos: v.Pos}
	switch {
	case vd.Space != ptx.SpaceParam:
		return d, fmt.Errorf("declared .%s: want .param", vd.Space)
	case !vd.Type.IsRegType() || vd.Type == ptx.Pred:
		return d, fmt.Errorf("type .%s: a kernel parameter has a fundamental type (.b8 to .b128, .u, .s, .f16, .bf16, .f32, .f64)", vd.Type)
	case v.Range:
		return d, fmt.Errorf("%s<%d>: a parameterized name declares registers, not parameters", v.Name, v.Count)
	case d.Align < 0 || d.Align&(d.Align-1) != 0:
		return d, fmt.Errorf(".align %d: want a power of two", d.Align)
	}
	d.Size = d.naturalAlign()
	if d.Align == 0 {
		d.Align = d.Size
	}
	for _, n := range v.Dims {
		if n <= 0 {
			return d, fmt.Errorf("array size [%s]: want a positive integer", dimText(n))
		}
		if d.Array == 0 {
			d.Array = 1
		}
		if d.Array > maxParamBytes/n {
			return d, fmt.Errorf("%d bytes: a kernel's parameters hold at most %d", d.Size*d.Array*n, maxParamBytes)
		}
		d.Array *= n
	}
	if d.Array > 0 {
		d.Size *= d.Array
	}
	if d.Size > maxParamBytes {
		return d, fmt.Errorf("%d bytes: a kernel's parameters hold at most %d", d.Size, maxParamBytes)
	}
	return d, nil
}

func dimText(n int) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// FindKernel returns the kernel (.entry) named name, or the module's only
// kernel when name is empty. A C++ kernel may also be named by its
// demangled name or by the abbreviation messages show
// ("gemm(float*, CUtensorMap_st)", "cutlass::device_kernel<GemmUniversal<…>>")
// when only one kernel has it. Errors list the kernels that exist, by
// those abbreviations.
func FindKernel(m *ptx.Module, name string) (*ptx.Function, error) {
	var names []string
	var only, alias *ptx.Function
	aliases := 0
	for _, f := range m.Functions() {
		if !f.Entry {
			continue
		}
		if f.Name == name && name != "" {
			return f, nil
		}
		short := demangle.Short(f.Name)
		if name != "" && short != f.Name && (short == name || demangle.Demangle(f.Name) == name) {
			alias = f
			aliases++
		}
		names = append(names, short)
		only = f
	}
	if aliases == 1 {
		return alias, nil
	}
	switch {
	case len(names) == 0:
		return nil, fmt.Errorf("%s: no .entry (kernel) in the module", m.Filename)
	case name == "" && len(names) == 1:
		return only, nil
	}
	sort.Strings(names)
	if name == "" {
		return nil, fmt.Errorf("%s: %d kernels; choose one with --kernel (%s)", m.Filename, len(names), strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s: no kernel %q (the module has %s)", m.Filename, name, strings.Join(names, ", "))
}

// ParseKernel parses a PTX module and finds a kernel in it (FindKernel).
// Only the syntax is checked: whether the instructions are valid is left
// to whoever runs the kernel (the driver's JIT, or the simulator, which
// validates). Syntax errors come back as a ptx.ErrorList (file:line:col).
func ParseKernel(filename string, src []byte, name string) (*ptx.Function, error) {
	m, err := ptx.ParseFile(filename, src)
	if err != nil {
		return nil, err
	}
	return FindKernel(m, name)
}
