package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// describeGlobalAt says where a global address that is in no buffer is,
// for the access of in (nil when the address does not come from a
// register of the instruction, as a TMA box's does): near 0, a null
// pointer dereference, naming the null parameter the address was derived
// from when the kernel's code shows it; else where it lies relative to the
// closest buffer.
func (m *Machine) describeGlobalAt(addr uint64, in *Inst) string {
	if addr >= nullWindow {
		return m.Global.Nearest(addr)
	}
	var nulls []launch.BoundParam
	if m.Binding != nil {
		for _, p := range m.Binding.Params {
			if p.Param.Kind == launch.NullParam {
				nulls = append(nulls, p)
			}
		}
	}
	if len(nulls) == 0 {
		return "a null pointer dereference (the address is within 1 MiB of 0)"
	}
	var from []string
	for _, src := range m.addressParams(in) {
		if p := m.Binding.Params[src.param]; p.Param.Kind == launch.NullParam {
			from = append(from, fmt.Sprintf("%s, which is null (loaded at %s)", p.Label(), src.pos))
		}
	}
	switch {
	case len(from) == 1:
		return "a null pointer dereference: the address comes from param " + from[0]
	case len(from) > 1:
		return "a null pointer dereference: the address comes from one of params " + strings.Join(from, "; ")
	}
	labels := make([]string, len(nulls))
	for i, p := range nulls {
		labels[i] = p.Label()
	}
	if len(nulls) == 1 {
		return fmt.Sprintf("a null pointer dereference: param %s is null (tcsim could not trace the address to a parameter)", labels[0])
	}
	return fmt.Sprintf("a null pointer dereference: params %s are null (tcsim could not trace the address to one of them)", strings.Join(labels, ", "))
}

// paramSource is a kernel parameter an address was derived from, and where
// the kernel loaded it.
type paramSource struct {
	param int // index in Binding.Params
	pos   ptx.Position
}

// maxTraceBack bounds the instructions addressParams looks back over.
const maxTraceBack = 4096

// addressParams finds the kernel parameters the address of a ld, st, atom
// or red (its first source operand) was computed from: a walk back
// over the function's code from in, following the registers of the address
// through the instructions that write them, to the ld.param instructions
// that loaded them. It follows the code in order, not its branches, so
// what it finds is what the code shows, not a proof.
func (m *Machine) addressParams(in *Inst) []paramSource {
	if in == nil || in.Func == nil || len(in.src) == 0 || in.src[0].K != oReg || m.Binding == nil {
		return nil
	}
	switch in.PTX.Opcode {
	case "ld", "st", "atom", "red": // the address is the first source
	default:
		return nil
	}
	insts := m.Prog.Insts
	want := map[int32]bool{in.src[0].R: true}
	found := map[int]ptx.Position{}
	for pc := in.PC - 1; pc >= in.Func.Start && pc > in.PC-maxTraceBack && len(want) > 0; pc-- {
		j := &insts[pc]
		writes := false
		for _, d := range j.dst {
			if d.K == oReg && want[d.R] {
				writes = true
				delete(want, d.R)
			}
		}
		if !writes {
			continue
		}
		if j.PTX.Opcode == "ld" && j.space.Base() == ptx.SpaceParam && len(j.src) > 0 && j.src[0].K == oImm {
			if i, ok := m.paramAt(j.src[0].Imm - ParamWindow); ok {
				if _, dup := found[i]; !dup {
					found[i] = m.Prog.pos(j)
				}
			}
			continue
		}
		for _, s := range j.src {
			if s.K == oReg {
				want[s.R] = true
			}
		}
	}
	var out []paramSource
	for i, pos := range found {
		out = append(out, paramSource{param: i, pos: pos})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].param < out[b].param })
	return out
}

// paramAt returns the parameter holding byte off of the parameter space.
func (m *Machine) paramAt(off uint64) (int, bool) {
	for i, p := range m.Binding.Params {
		if off >= uint64(p.Offset) && off < uint64(p.Offset+p.Decl.Size) {
			return i, true
		}
	}
	return 0, false
}
