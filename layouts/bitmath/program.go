package bitmath

import "fmt"

// Program is a straight-line program: assignments, in order, that compute
// the Outputs from the Inputs. Derive produces programs (with explanations);
// ParseFormula reads them from user text.
type Program struct {
	// Name is the stem for generated function names, e.g.
	// "wgmma_m64n256k16_f32_acc_fwd".
	Name string
	// Desc is a one-line description, e.g. "acc: (tid, v) -> (row, col)".
	Desc    string
	Inputs  []Field
	Outputs []Field
	Steps   []Step
	// Notes explain what the program assumes or chooses, e.g. which owner a
	// broadcast inverse returns. Emitters print them as comments.
	Notes []string

	slots     []string // the variable of each environment slot (see bind)
	stepSlots []int    // the slot each step assigns
	outs      []int    // the slot of each output
}

// Step is one assignment, Name = Expr.
type Step struct {
	Name string
	Expr *Expr
	// Why says what the variable is; Terms explain the expression's terms,
	// one line each. Both are empty for parsed programs.
	Why   string
	Terms []TermNote
	// Pos is the byte offset of the statement in the parsed text.
	Pos int
}

// TermNote explains one term of a derived expression, e.g. Expr "lane >> 2",
// Note "lane bits 2-4 -> row bits 0-2 (lane / 4)".
type TermNote struct {
	Expr, Note string
}

// Ops is the number of operators the program executes.
func (p *Program) Ops() int {
	n := 0
	for _, s := range p.Steps {
		n += s.Expr.Ops()
	}
	return n
}

// bind resolves every variable to an environment slot. The inputs and the
// extra names (aliases the caller computes before running, such as lane)
// take the first slots, then each newly assigned name. It fails on a use
// before assignment or an output that is never assigned.
func (p *Program) bind(extra []string) error {
	p.slots = p.slots[:0]
	p.stepSlots = p.stepSlots[:0]
	slot := map[string]int{}
	for _, f := range p.Inputs {
		slot[f.Name] = len(p.slots)
		p.slots = append(p.slots, f.Name)
	}
	for _, n := range extra {
		if _, ok := slot[n]; !ok {
			slot[n] = len(p.slots)
			p.slots = append(p.slots, n)
		}
	}
	for _, s := range p.Steps {
		var err error
		s.Expr.Vars(func(v *Expr) {
			i, ok := slot[v.Name]
			if !ok && err == nil {
				err = &EvalError{v.Pos, fmt.Sprintf("unknown name %q (known here: %s)", v.Name, joinNames(p.slots))}
			}
			v.Slot = i
		})
		if err != nil {
			return err
		}
		if _, ok := slot[s.Name]; !ok {
			slot[s.Name] = len(p.slots)
			p.slots = append(p.slots, s.Name)
		}
		p.stepSlots = append(p.stepSlots, slot[s.Name])
	}
	p.outs = p.outs[:0]
	for _, f := range p.Outputs {
		i, ok := slot[f.Name]
		if !ok {
			return fmt.Errorf("the program never assigns %s", f.Name)
		}
		p.outs = append(p.outs, i)
	}
	return nil
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// run executes the bound program in env (len(env) == len(p.slots), the
// input and extra slots filled in) and copies the outputs to out.
func (p *Program) run(env []int64, out []int64) error {
	for k, s := range p.Steps {
		v, err := s.Expr.Eval(env)
		if err != nil {
			return err
		}
		env[p.stepSlots[k]] = v
	}
	for k, i := range p.outs {
		out[k] = env[i]
	}
	return nil
}

// Eval binds the program (inputs only, no aliases) and runs it on one
// input tuple. It is meant for tests and small uses; Check and Derive bind
// once and run many times.
func (p *Program) Eval(in ...int64) ([]int64, error) {
	if len(in) != len(p.Inputs) {
		return nil, fmt.Errorf("%s takes %d inputs, got %d", p.Name, len(p.Inputs), len(in))
	}
	if err := p.bind(nil); err != nil {
		return nil, err
	}
	env := make([]int64, len(p.slots))
	copy(env, in)
	out := make([]int64, len(p.Outputs))
	return out, p.run(env, out)
}

// EvalSteps runs the program on one input tuple, as Eval does, and returns
// the value of every step, in the order of Steps (wid, lane, frag_row, ...
// for a derived thread-value program).
func (p *Program) EvalSteps(in ...int64) ([]int64, error) {
	if len(in) != len(p.Inputs) {
		return nil, fmt.Errorf("%s takes %d inputs, got %d", p.Name, len(p.Inputs), len(in))
	}
	if err := p.bind(nil); err != nil {
		return nil, err
	}
	env := make([]int64, len(p.slots))
	copy(env, in)
	if err := p.run(env, make([]int64, len(p.Outputs))); err != nil {
		return nil, err
	}
	vals := make([]int64, len(p.Steps))
	for k := range p.Steps {
		vals[k] = env[p.stepSlots[k]]
	}
	return vals, nil
}
