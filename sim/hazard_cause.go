package sim

import "github.com/tcsim/tcsim/isa/ptx"

// Lines to fix that the program text names: the instruction that built a
// value an instruction used.

// descCause is the instruction that built the matrix descriptor of
// operand what ("A" or "B") of the wgmma or tcgen05.mma in: the last
// instruction of its basic block before in that writes the descriptor's
// register, following plain register moves (the constant with the
// swizzle, LBO and SBO fields is there). It is the zero position when the
// operand is not a register or its definition is not in the block.
func (m *Machine) descCause(in *Inst, what string) ptx.Position {
	var o Opnd
	switch x := in.ext.(type) {
	case *wgmmaInfo:
		o = x.descB
		if what == "A" {
			o = x.descA
		}
	case *tcMmaInfo:
		o = x.b
		if what == "A" {
			o = x.a
		}
	default:
		return ptx.Position{}
	}
	if o.K != oReg {
		return ptx.Position{}
	}
	pc := m.Prog.defInBlock(m.leaderMap(), in.PC, o.R)
	if pc < 0 {
		return ptx.Position{}
	}
	return m.Prog.pos(&m.Prog.Insts[pc])
}

// defInBlock is the pc of the instruction that last writes register r
// before pc in pc's basic block (through plain moves), or -1.
func (p *Program) defInBlock(leader []bool, pc int, r int32) int {
	for i := pc - 1; i >= 0 && !leader[i+1]; i-- {
		in := &p.Insts[i]
		if !writesReg(in, r) {
			continue
		}
		if in.PTX.Opcode == "mov" && len(in.src) == 1 && in.src[0].K == oReg && in.guard < 0 {
			if d := p.defInBlock(leader, i, in.src[0].R); d >= 0 {
				return d
			}
		}
		return i
	}
	return -1
}

// leaderMap is the program's block leaders, computed once per machine.
func (m *Machine) leaderMap() []bool {
	m.hazards.leadersOnce.Do(func() { m.hazards.leaders = m.Prog.leaders() })
	return m.hazards.leaders
}

func writesReg(in *Inst, r int32) bool {
	for _, d := range in.dst {
		if d.K == oReg && d.R == r {
			return true
		}
	}
	return false
}
