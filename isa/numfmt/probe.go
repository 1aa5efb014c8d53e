package numfmt

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// ProbeOptions choose a probe's input set.
type ProbeOptions struct {
	// Random is the number of seeded random cases for inputs wider than 16
	// bits (default 1<<20). Narrower inputs are exhaustive.
	Random int
	// Seed seeds the random cases (default 1).
	Seed uint64
	// Target is the PTX target (default: sm_90a where the form exists
	// there, else the first target the form lists).
	Target string
	// Prefix, if positive, builds the inputs of the first Prefix cases
	// only (the same as the full probe's first cases); N still counts all.
	Prefix int
}

// Input set kinds.
const (
	Exhaustive     = "exhaustive"      // every pattern of one ≤16-bit operand
	ExhaustivePair = "exhaustive-pair" // each 16-bit half of a 32-bit operand takes every pattern
	EdgesRandom    = "edges+random"    // edge cases, then seeded random cases
)

// Probe is one GPU experiment: a PTX kernel that applies one cvt spec to N
// cases. Case i reads element i of each input buffer and writes element i
// of the output buffer. Probes are pure data: NewProbe is deterministic, so
// a checker regenerates the inputs from the spec and the options alone.
type Probe struct {
	Spec       *Spec
	Name       string // a file-safe name: the spec with dots as underscores
	Target     string // "sm_90a"
	PTXVersion int    // times ten
	// OnH100 says whether the H100 (sm_90a) runs it; other probes can only
	// be compiled (ptxas -arch=sm_100a) and are "not hardware-verified".
	OnH100   bool
	PTX      string
	Kernel   string
	Block    int
	Grid     int
	N        int    // cases
	Cases    int    // cases whose inputs are built (N unless Options.Prefix)
	Edges    int    // the first Edges cases are the hand-made edge cases
	Set      string // Exhaustive, ExhaustivePair or EdgesRandom
	Options  ProbeOptions
	InBytes  []int    // element size of each input buffer (one per source operand)
	Inputs   [][]byte // the input buffers, little-endian
	OutBytes int      // element size of the output buffer
}

// ProbeName turns a spec into a file-safe name.
func ProbeName(s *Spec) string {
	return strings.NewReplacer(".", "_", ":", "_").Replace(s.String())
}

func byteSize(bits int) int { return max(1, (bits+7)/8) }

// NewProbe builds the probe for a spec.
func NewProbe(s *Spec, opt ProbeOptions) (*Probe, error) {
	if s.Form == nil {
		if err := s.match(); err != nil {
			return nil, err
		}
	}
	if opt.Random == 0 {
		opt.Random = 1 << 20
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	p := &Probe{Spec: s, Name: ProbeName(s), Kernel: "probe", Block: 256, Options: opt}
	ptx, sm, targets := s.Requirements()
	p.Target = opt.Target
	if p.Target == "" {
		p.Target = "sm_90a"
		if s.SupportedOn("sm_90a", 90) != nil {
			p.Target = fmt.Sprintf("sm_%da", sm)
			if len(targets) > 0 {
				p.Target = targets[0]
			}
		}
	}
	p.OnH100 = p.Target == "sm_90a" && s.SupportedOn("sm_90a", 90) == nil
	t, err := ParseTarget(p.Target)
	if err != nil {
		return nil, err
	}
	p.PTXVersion = max(ptx, 80)
	if t.SM >= 100 {
		p.PTXVersion = max(p.PTXVersion, 86)
	}
	if err := s.SupportedOn(p.Target, p.PTXVersion); err != nil {
		// A family target may need a later PTX version.
		p.PTXVersion = max(p.PTXVersion, 88)
		if err2 := s.SupportedOn(p.Target, p.PTXVersion); err2 != nil {
			return nil, err
		}
	}
	p.makeInputs()
	if p.Cases != p.N {
		p.PTX = "// a prefix of the probe: not for running\n"
		p.OutBytes = byteSize(s.OutBits())
		return p, nil
	}
	p.Grid = (p.N + p.Block - 1) / p.Block
	p.OutBytes = byteSize(s.OutBits())
	p.PTX = p.generatePTX()
	return p, nil
}

// makeInputs fills Inputs, N, Edges and Set.
func (p *Probe) makeInputs() {
	s := p.Spec
	ops := s.Inputs()
	var value []int // indices of value operands
	for i, o := range ops {
		p.InBytes = append(p.InBytes, byteSize(o.Bits))
		if o.Type != nil {
			value = append(value, i)
		}
	}
	cols := make([][]uint64, len(ops))
	rng := rand.New(rand.NewPCG(p.Options.Seed, 0x9e3779b97f4a7c15))
	srcBits := ops[value[0]].Bits
	limit := func(n int) int {
		if p.Options.Prefix > 0 {
			return min(n, p.Options.Prefix)
		}
		return n
	}
	switch {
	case len(value) == 1 && srcBits <= 16:
		p.Set = Exhaustive
		p.N = 1 << srcBits
		p.Cases = limit(p.N)
		for i := range p.Cases {
			cols[value[0]] = append(cols[value[0]], uint64(i))
		}
	case len(value) == 1 && s.Src.Lanes == 2 && s.Src.Bits == 32:
		p.Set = ExhaustivePair
		p.N = 1 << 16
		p.Cases = limit(p.N)
		for i := range p.Cases {
			lo := uint64(i*0x9e37+0x7f4a) & 0xffff // a bijection of the 16-bit patterns
			cols[value[0]] = append(cols[value[0]], uint64(i)<<16|lo)
		}
	default:
		p.Set = EdgesRandom
		src := s.Src.Elem
		edges := EdgeInputs(src, s.Dst.Elem)
		p.Edges = len(edges)
		p.N = len(edges) + p.Options.Random
		p.Cases = limit(p.N)
		// Lane k reads pool[(i·(2k+1) + k·7919) mod N]: build the pool only
		// as far as the built cases reach (a prefix of the random stream
		// is the same whatever its length).
		need := p.N
		if p.Cases < p.N {
			k := len(value) - 1
			need = min(p.N, (p.Cases-1)*(2*k+1)+k*7919+1)
		}
		pool := append(edges, RandomInputs(src, s.Dst.Elem, rng, max(0, need-len(edges)))...)
		for k, vi := range value {
			col := make([]uint64, p.Cases)
			for i := range col {
				if k == 0 {
					col[i] = pool[i]
				} else {
					// Other lanes see the pool in another order.
					col[i] = pool[(i*(2*k+1)+k*7919)%p.N]
				}
			}
			cols[vi] = col
		}
	}
	// rbits and scale factors come from their own stream.
	rng = rand.New(rand.NewPCG(p.Options.Seed, 0x5851f42d4c957f2d))
	for i, o := range ops {
		if o.Type != nil {
			continue
		}
		col := make([]uint64, p.Cases)
		for j := range col {
			switch o.Name {
			case "rbits":
				col[j] = rng.Uint64() & 0xffffffff
				if j < 3 {
					col[j] = []uint64{0, 0xffffffff, 0x80808080}[j]
				}
			case "scale-factor":
				hi := scaleSample(rng, j)
				lo := scaleSample(rng, j+1)
				col[j] = hi<<8 | lo
			}
		}
		cols[i] = col
	}
	p.Inputs = make([][]byte, len(ops))
	for i, col := range cols {
		buf := make([]byte, p.Cases*p.InBytes[i])
		for j, x := range col {
			putLE(buf[j*p.InBytes[i]:], p.InBytes[i], x)
		}
		p.Inputs[i] = buf
	}
}

func scaleSample(rng *rand.Rand, j int) uint64 {
	switch j % 16 {
	case 0:
		return 127
	case 1:
		return 0
	case 2:
		return 0xfe
	case 3:
		return 0xff
	}
	return uint64(127 + rng.IntN(41) - 20)
}

func putLE(b []byte, n int, x uint64) {
	switch n {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	default:
		binary.LittleEndian.PutUint64(b, x)
	}
}

func getLE(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// CaseInputs returns case i's source operands in PTX order.
func (p *Probe) CaseInputs(i int) []uint64 {
	in := make([]uint64, len(p.Inputs))
	for k, buf := range p.Inputs {
		in[k] = getLE(buf[i*p.InBytes[k]:], p.InBytes[k])
	}
	return in
}

// Expected computes the model's output buffer for the probe's built cases.
func (p *Probe) Expected() ([]byte, error) {
	out := make([]byte, p.Cases*p.OutBytes)
	in := make([]uint64, len(p.Inputs))
	for i := range p.Cases {
		for k, buf := range p.Inputs {
			in[k] = getLE(buf[i*p.InBytes[k]:], p.InBytes[k])
		}
		r, _, err := p.Spec.eval(in, false)
		if err != nil {
			return nil, fmt.Errorf("case %d: %w", i, err)
		}
		putLE(out[i*p.OutBytes:], p.OutBytes, r)
	}
	return out, nil
}

// regFor returns the PTX register width and the load/store opcodes for a
// value of the given bits. 8-bit values travel in 16-bit registers, except
// beside bf16, where ptxas wants every operand at its exact size.
func regFor(bits int, exact bool) (reg int, load, store string) {
	switch {
	case bits <= 8 && exact:
		return 8, "ld.global.u8", "st.global.b8"
	case bits <= 8:
		return 16, "ld.global.u8", "st.global.b8"
	case bits <= 16:
		return 16, "ld.global.b16", "st.global.b16"
	case bits <= 32:
		return 32, "ld.global.b32", "st.global.b32"
	}
	return 64, "ld.global.b64", "st.global.b64"
}

// generatePTX writes the kernel.
func (p *Probe) generatePTX() string {
	s := p.Spec
	ops := s.Inputs()
	exact := s.Src.Name == "bf16" || s.Dst.Name == "bf16" || s.Src.Bits == 8 && s.Src.Lanes > 1 || s.Dst.Bits == 8 && s.Dst.Lanes > 1
	var b strings.Builder
	fmt.Fprintf(&b, "// tcsim numfmt probe: %s\n", s)
	fmt.Fprintf(&b, "// %d cases (%s); case i reads element i of each input and writes element i of out.\n", p.N, p.Set)
	fmt.Fprintf(&b, ".version %d.%d\n.target %s\n.address_size 64\n\n", p.PTXVersion/10, p.PTXVersion%10, p.Target)
	fmt.Fprintf(&b, ".visible .entry %s(\n\t.param .u64 p_out,\n", p.Kernel)
	for i := range ops {
		fmt.Fprintf(&b, "\t.param .u64 p_in%d,\n", i)
	}
	b.WriteString("\t.param .u32 p_n\n)\n{\n")
	b.WriteString("\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n")
	for i, o := range ops {
		w, _, _ := regFor(o.Bits, exact)
		fmt.Fprintf(&b, "\t.reg .b%d %%x%d;\n", w, i)
		fmt.Fprintf(&b, "\t.reg .b64 %%pa%d;\n", i)
	}
	dw, _, store := regFor(s.OutBits(), exact)
	fmt.Fprintf(&b, "\t.reg .b%d %%d;\n\t.reg .b64 %%po;\n\n", dw)
	b.WriteString("\tld.param.u32 %r1, [p_n];\n")
	b.WriteString("\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n")
	b.WriteString("\tmad.lo.u32 %r5, %r2, %r3, %r4;\n")
	b.WriteString("\tsetp.ge.u32 %p1, %r5, %r1;\n\t@%p1 bra DONE;\n")
	for i, o := range ops {
		_, load, _ := regFor(o.Bits, exact)
		fmt.Fprintf(&b, "\tld.param.u64 %%rd1, [p_in%d];\n", i)
		fmt.Fprintf(&b, "\tcvta.to.global.u64 %%rd1, %%rd1;\n")
		fmt.Fprintf(&b, "\tmad.wide.u32 %%pa%d, %%r5, %d, %%rd1;\n", i, p.InBytes[i])
		fmt.Fprintf(&b, "\t%s %%x%d, [%%pa%d];\n", load, i, i)
	}
	// The instruction.
	var srcs []string
	for i := range ops {
		srcs = append(srcs, fmt.Sprintf("%%x%d", i))
	}
	operands := strings.Join(srcs, ", ")
	if s.Src.Lanes == 1 && s.Dst.Lanes == 4 {
		operands = "{" + strings.Join(srcs[:4], ", ") + "}"
		if len(srcs) > 4 {
			operands += ", " + strings.Join(srcs[4:], ", ")
		}
	}
	fmt.Fprintf(&b, "\t%s %%d, %s;\n", s, operands)
	b.WriteString("\tld.param.u64 %rd2, [p_out];\n\tcvta.to.global.u64 %rd2, %rd2;\n")
	fmt.Fprintf(&b, "\tmad.wide.u32 %%po, %%r5, %d, %%rd2;\n", byteSize(s.OutBits()))
	fmt.Fprintf(&b, "\t%s [%%po], %%d;\n", store)
	b.WriteString("DONE:\n\tret;\n}\n")
	return b.String()
}

// DefaultRandom is the number of random cases a campaign uses for a spec:
// 1<<20, or 1<<16 for integer-to-integer conversions (plain wrap or clamp).
func DefaultRandom(s *Spec) int {
	if s.Src.Elem.Kind == IntKind && s.Dst.Elem.Kind == IntKind {
		return 1 << 16
	}
	return 1 << 20
}
