package sim

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// Prepare parses and validates PTX source, compiles the launch's kernel and
// binds the launch to it: everything before Run. filename names the source
// in messages. PTX errors come back as a ptx.ErrorList (file:line:col);
// launch errors name the field.
func Prepare(filename string, src []byte, l *launch.Launch, opts Options) (*Machine, error) {
	p, err := CompileSource(filename, src, l.Kernel)
	if err != nil {
		return nil, err
	}
	return p.Launch(l, opts)
}

// CompileSource parses, validates and compiles one kernel of a PTX module.
func CompileSource(filename string, src []byte, kernel string) (*Program, error) {
	mod, errs := ptx.Check(filename, src)
	var hard ptx.ErrorList
	for _, e := range errs {
		if !e.Warning {
			hard = append(hard, e)
		}
	}
	if len(hard) > 0 {
		return nil, hard
	}
	return Compile(mod, src, kernel)
}

// Launch binds l to the program's kernel and prepares a machine.
func (p *Program) Launch(l *launch.Launch, opts Options) (*Machine, error) {
	k, err := launch.FindKernel(p.Module, p.Kernel.Name)
	if err != nil {
		return nil, err
	}
	l = l.Clone()
	if l.Kernel == "" {
		l.Kernel = p.Kernel.Name
	}
	b, err := l.Bind(k)
	if err != nil {
		return nil, err
	}
	return NewMachine(p, b, opts)
}

// RunCase simulates a recorded fixture case and compares every recorded
// output with the simulator's, bit for bit.
func RunCase(c *fixtures.Case, opts Options) (*Machine, []Mismatch, error) {
	m, err := Prepare(c.Dir+"/kernel.ptx", c.PTX, c.Launch, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := m.Run(); err != nil {
		return m, nil, err
	}
	var out []Mismatch
	for _, o := range c.Outputs {
		b, err := m.Buffer(o.Param)
		if err != nil {
			return m, nil, err
		}
		if mm := Compare(o.Param, c.Outputs, o.Data, b.Data, outputType(c.Launch, o.Param)); mm != nil {
			out = append(out, *mm)
		}
	}
	return m, out, nil
}

func outputType(l *launch.Launch, name string) launch.ScalarType {
	for _, o := range l.Outputs {
		if o.Param == name {
			return o.Type
		}
	}
	return launch.InvalidType
}

// Mismatch is the first difference between an expected and a simulated
// buffer.
type Mismatch struct {
	Buffer    string
	Index     int // element index (byte index without an element type)
	Offset    int // byte offset
	Want, Got string
	Count     int // differing elements
	Elements  int
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %d of %d elements differ; first at element %d (byte %d): want %s, got %s",
		m.Buffer, m.Count, m.Elements, m.Index, m.Offset, m.Want, m.Got)
}

// Compare compares two buffers element by element (t gives the element
// type; InvalidType compares bytes). It returns nil when they are equal.
func Compare(name string, _ []fixtures.CaseOutput, want, got []byte, t launch.ScalarType) *Mismatch {
	if bytes.Equal(want, got) {
		return nil
	}
	es := 1
	if t != launch.InvalidType {
		es = t.Size()
	}
	n := max(len(want), len(got)) / es
	mm := &Mismatch{Buffer: name, Elements: n, Index: -1}
	for i := 0; i < n; i++ {
		lo, hi := i*es, (i+1)*es
		var w, g []byte
		if hi <= len(want) {
			w = want[lo:hi]
		}
		if hi <= len(got) {
			g = got[lo:hi]
		}
		if bytes.Equal(w, g) {
			continue
		}
		mm.Count++
		if mm.Index < 0 {
			mm.Index, mm.Offset = i, lo
			mm.Want, mm.Got = fmtElem(w, t), fmtElem(g, t)
		}
	}
	return mm
}

func fmtElem(b []byte, t launch.ScalarType) string {
	if b == nil {
		return "(missing)"
	}
	v := le(b)
	if t == launch.InvalidType {
		return fmt.Sprintf("%#02x", v)
	}
	return fmt.Sprintf("%s (%#x)", launch.FormatValue(t, v), v)
}

// Kernels lists the kernels (.entry functions with a body) of a module.
func Kernels(m *ptx.Module) []string {
	var out []string
	for _, f := range m.Functions() {
		if f.Entry && f.Body != nil {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}
