package probe

import (
	"fmt"

	"github.com/tcsim/tcsim/layouts/catalog"
)

// mma.sync probes. Every operand is in registers, so each fragment is
// probed with the other two taken from the catalog: A holding codes with
// an identity B, B holding codes with an identity A, and the accumulator
// with A(m,k) = m, B = 1 and then A = 1, B(n,k) = n.

type mmaShape struct {
	name       string
	op         string
	in         elem
	k          int
	acc        elem
	aRegs      int
	bRegs      int
	a, b, d    catalog.Key // catalog atoms
	checkAandB bool        // whether this case checks the A and B fragments (the f16-accumulator case checks D only)
}

var mmaShapes = []mmaShape{
	{"mma_m16n8k8_f32_f16", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", elemF16, 8, elemF32, 2, 1,
		catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: 8, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: 8, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: catalog.ElemF32}, true},
	{"mma_m16n8k8_f32_tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", elemTF32, 8, elemF32, 4, 2,
		catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: 8, Elem: catalog.ElemTF32}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: 8, Elem: catalog.ElemTF32}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: catalog.ElemF32}, true},
	{"mma_m16n8k16_f32_f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", elemF16, 16, elemF32, 4, 2,
		catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: 16, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: 16, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: catalog.ElemF32}, true},
	{"mma_m16n8k16_f16_f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", elemF16, 16, elemF16, 4, 2,
		catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: 16, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: 16, Elem: catalog.ElemB16}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: catalog.ElemF16}, false},
	{"mma_m16n8k32_s32_u8", "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", elemU8, 32, elemS32, 4, 2,
		catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: 32, Elem: catalog.ElemB8}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: 32, Elem: catalog.ElemB8}, catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: catalog.ElemS32}, true},
}

// mmaJob is what one CTA (one warp) runs.
type mmaJob struct {
	kind  string // "a", "b" or "d"
	block int    // the K block the identity selects (a: 8 columns of K, b: 16 rows of K)
	pass  int    // a, b: the code byte; d: 0 rows, 1 columns
}

// mmaProbe is the probe of one mma.sync shape: its atoms and its jobs.
type mmaProbe struct {
	s       mmaShape
	a, b, d catalog.Atom
	jobs    []mmaJob
}

const mmaJoint = "mma.sync keeps every operand in registers: a relabelling of m, n or k applied to all three fragments " +
	"is invisible to any probe (and harmless), so A, B and D are verified jointly, each assuming the other two"

func mmaCase(s mmaShape) *Case {
	pr := &mmaProbe{s: s, a: mustAtom(s.a), b: mustAtom(s.b), d: mustAtom(s.d)}
	if s.checkAandB {
		for kb := 0; kb < s.k/8; kb++ {
			pr.jobs = append(pr.jobs, mmaJob{"a", kb, 0}, mmaJob{"a", kb, 1})
		}
		for mb := 0; mb < (s.k+15)/16; mb++ {
			pr.jobs = append(pr.jobs, mmaJob{"b", mb, 0}, mmaJob{"b", mb, 1})
		}
	}
	pr.jobs = append(pr.jobs, mmaJob{"d", 0, 0}, mmaJob{"d", 0, 1})
	k := &mmaKernel{name: s.name, shape: s, op: s.op, acc: s.acc, aRegs: s.aRegs, bRegs: s.bRegs, jobs: len(pr.jobs),
		comment: []string{
			s.op + ", one warp per CTA.",
			"A probe (CTA pairs 'a'): A register values are code(t,v) = t*V + v (low byte,",
			"then high byte), B is the identity on K block j (loaded with the catalog's B",
			"fragment), so D(m,n) = A(m, 8j+n). B probe: the same with B holding codes and A",
			"the identity on rows 16j..16j+15 of K. Accumulator probe: A(m,k) = m and B = 1,",
			"then A = 1 and B(n,k) = n, so D = K*m, then K*n. Each lane stores its raw D",
			"registers at 16*lane.",
		}}
	c := &Case{Name: s.name, Title: s.op, Arch: "sm_80", PTX: k.ptx(), Threads: 32, Jobs: len(pr.jobs),
		InRec: mmaInRec, OutRec: mmaOutRec, In: pr.input(), spec: k}
	if s.checkAandB {
		c.Checks = append(c.Checks, pr.checkA(), pr.checkB())
	}
	c.Checks = append(c.Checks, pr.checkD())
	return c
}

// input is the jobs' input records: the A and B registers of every lane.
func (pr *mmaProbe) input() []byte {
	s, a, b := pr.s, pr.a, pr.b
	in := make([]byte, 0, len(pr.jobs)*mmaInRec)
	for _, j := range pr.jobs {
		var ar, br [][4]uint32
		one := func(int, int) int { return 1 }
		switch j.kind {
		case "a":
			ar = regsFromCodes(32, a.Values(), a.ValsPerReg, s.in, j.pass)
			br = regsFromAtom(b, s.in, func(n, k int) int { return b2i(k == 8*j.block+n) })
		case "b":
			ar = regsFromAtom(a, s.in, func(m, k int) int { return b2i(k == 16*j.block+m) })
			br = regsFromCodes(32, b.Values(), b.ValsPerReg, s.in, j.pass)
		default:
			if j.pass == 0 {
				ar = regsFromAtom(a, s.in, func(m, _ int) int { return m })
				br = regsFromAtom(b, s.in, one)
			} else {
				ar = regsFromAtom(a, s.in, one)
				br = regsFromAtom(b, s.in, func(n, _ int) int { return n })
			}
		}
		rec := make([]byte, mmaInRec)
		for t := 0; t < 32; t++ {
			for r := 0; r < 4; r++ {
				put32(rec, 32*t+4*r, ar[t][r])
			}
			put32(rec, 32*t+16, br[t][0])
			put32(rec, 32*t+20, br[t][1])
		}
		in = append(in, rec...)
	}
	return in
}

// find is the index of a job.
func (pr *mmaProbe) find(kind string, block, pass int) int {
	for i, j := range pr.jobs {
		if j == (mmaJob{kind, block, pass}) {
			return i
		}
	}
	panic("probe: no such mma job")
}

// value decodes value v of lane t's accumulator in job.
func (pr *mmaProbe) value(out []byte, job, t, v int) (int, error) {
	d := pr.d
	raw := unpack(pr.s.acc, le32(out, job*mmaOutRec+16*t+4*(v/d.ValsPerReg)), v%d.ValsPerReg)
	x, err := pr.s.acc.decode(raw)
	if err != nil {
		return 0, fmt.Errorf("CTA %d, lane %d, value %d: %w", job, t, v, err)
	}
	return x, nil
}

// code is the code of a cell from its low-byte and high-byte jobs, or -1
// when D holds no code there.
func (pr *mmaProbe) code(out []byte, lo, hi, t, v int) (int, error) {
	l, err := pr.value(out, lo, t, v)
	if err != nil {
		return 0, err
	}
	h, err := pr.value(out, hi, t, v)
	if err != nil {
		return 0, err
	}
	if l < 0 || l > 255 || h < 0 || h > 255 {
		return -1, nil
	}
	return l | h<<8, nil
}

func (pr *mmaProbe) size(out []byte) error {
	if len(out) != len(pr.jobs)*mmaOutRec {
		return fmt.Errorf("output has %d bytes, want %d", len(out), len(pr.jobs)*mmaOutRec)
	}
	return nil
}

// codes walks D of the A or B probe (op "a" or "b") for each of its K
// blocks, handing visit the block, each cell (m, n) and the code there
// (-1 when D holds no code); it stops at the first error.
func (pr *mmaProbe) codes(out []byte, op string, blocks int, visit func(kb, m, n, c int) error) error {
	d := pr.d
	for kb := 0; kb < blocks; kb++ {
		lo, hi := pr.find(op, kb, 0), pr.find(op, kb, 1)
		for t := 0; t < 32; t++ {
			for v := 0; v < d.Values(); v++ {
				c, err := pr.code(out, lo, hi, t, v)
				if err != nil {
					return err
				}
				m, n := coord(d, t, v)
				if err := visit(kb, m, n, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkA checks the A fragment: D(m, n) names the (thread, value) of A at
// (m, 8j+n).
func (pr *mmaProbe) checkA() Check {
	a, s := pr.a, pr.s
	return Check{Atom: a.Name, Case: s.name,
		How: "A registers hold code(thread, value), B = identity per 8-wide K block: D(m, n) names the (thread, value) at A(m, 8j+n)", Caveat: mmaJoint,
		decode: func(out []byte) Outcome {
			if err := pr.size(out); err != nil {
				return failed(err)
			}
			obs := newTV(a)
			err := pr.codes(out, "a", s.k/8, func(kb, m, n, c int) error {
				if c < 0 || c >= 32*a.Values() {
					return fmt.Errorf("K block %d: D(%d,%d) is not a code", kb, m, n)
				}
				obs.put(c/a.Values(), c%a.Values(), seen{m + 16*(8*kb+n), ""})
				return nil
			})
			if err != nil {
				return failed(err)
			}
			return obs.compare()
		}}
}

// checkB checks the B fragment: D(m, n) names the (thread, value) of B at
// (n, 16j+m).
func (pr *mmaProbe) checkB() Check {
	b, s := pr.b, pr.s
	return Check{Atom: b.Name, Case: s.name,
		How: "B registers hold code(thread, value), A = identity per 16-row K block: D(m, n) names the (thread, value) at B(n, 16j+m)", Caveat: mmaJoint,
		decode: func(out []byte) Outcome {
			if err := pr.size(out); err != nil {
				return failed(err)
			}
			obs := newTV(b)
			err := pr.codes(out, "b", (s.k+15)/16, func(mb, m, n, c int) error {
				kk := 16*mb + m
				if kk >= s.k {
					if c != 0 {
						return fmt.Errorf("D(%d,%d) = %d: rows of D past K must be 0 (A is the identity)", m, n, c)
					}
					return nil
				}
				if c < 0 || c >= 32*b.Values() {
					return fmt.Errorf("K block %d: D(%d,%d) is not a code", mb, m, n)
				}
				obs.put(c/b.Values(), c%b.Values(), seen{n + 8*kk, ""})
				return nil
			})
			if err != nil {
				return failed(err)
			}
			return obs.compare()
		}}
}

// checkD checks the accumulator: D = K*m, then K*n.
func (pr *mmaProbe) checkD() Check {
	d, s := pr.d, pr.s
	return Check{Atom: d.Name, Case: s.name,
		How: "D = K*m, then K*n (A rows = m, B columns = n, both loaded with the catalog's fragments)", Caveat: mmaJoint,
		decode: func(out []byte) Outcome {
			if err := pr.size(out); err != nil {
				return failed(err)
			}
			obs := newTV(d)
			rj, cj := pr.find("d", 0, 0), pr.find("d", 0, 1)
			for t := 0; t < 32; t++ {
				for v := 0; v < d.Values(); v++ {
					rv, err := pr.value(out, rj, t, v)
					if err != nil {
						return failed(err)
					}
					cv, err := pr.value(out, cj, t, v)
					if err != nil {
						return failed(err)
					}
					m, n := rv/s.k, cv/s.k
					if rv%s.k != 0 || cv%s.k != 0 || m < 0 || m >= 16 || n < 0 || n >= 8 {
						obs.put(t, v, seen{-1, fmt.Sprintf("D = %d and %d, not K*m and K*n of a cell", rv, cv)})
						continue
					}
					obs.put(t, v, seen{m + 16*n, ""})
				}
			}
			return obs.compare()
		}}
}

// matrixKey is the catalog key of an ldmatrix/stmatrix form.
func matrixKey(family string, v matrixVariant) catalog.Key {
	f := catalog.LdMatrix
	if family == "stmatrix" {
		f = catalog.StMatrix
	}
	return catalog.Key{Family: f, M: 8, N: 8, Num: v.num, Trans: v.trans, Elem: catalog.ElemB16}
}

// matrixAtom is the catalog atom of an ldmatrix/stmatrix form.
func matrixAtom(family string, v matrixVariant) catalog.Atom { return mustAtom(matrixKey(family, v)) }

// laneRow is the tile row whose address lane l supplies, or -1.
func laneRow(a catalog.Atom, l int) int {
	if l < len(a.AddrRows) {
		return a.AddrRows[l]
	}
	return -1
}

// slotSeen says what shared-memory element e (16-bit; lane l's 32-byte row
// holds elements 16l..16l+15) is as a cell of the atom's tile.
func slotSeen(a catalog.Atom, e int) seen {
	l, col := e/16, e%16
	if col >= 8 {
		return seen{-1, fmt.Sprintf("bytes %d-%d past lane %d's 16-byte row", 2*col, 2*col+1, l)}
	}
	row := laneRow(a, l)
	if row < 0 {
		return seen{-1, fmt.Sprintf("element %d of the row lane %d points at, a lane whose address the catalog says is unused", col, l)}
	}
	return seen{row + a.Rows*col, ""}
}

func laneAddrs(rec []byte) {
	for l := 0; l < 32; l++ {
		put32(rec, 4*l, uint32(32*l))
	}
}

func ldmatrixCase() *Case {
	const name = "ldmatrix"
	comment := []string{
		"ldmatrix .m8n8 .b16, every .num with and without .trans, one per CTA (x1, x2, x4,",
		"x1.trans, x2.trans, x4.trans). Lane l supplies the address of its own 32-byte row",
		"(byte 32l of the buffer); every 16-bit element holds its own index, so each",
		"register half names the lane whose row it came from and the element in that row.",
	}
	c := &Case{Name: name, Title: "ldmatrix .m8n8.b16, x1/x2/x4, with and without .trans", Arch: "sm_80",
		PTX: ldmatrixPTX(name, comment), InRec: ldInRec, OutRec: ldOutRec}
	fill := func(rec []byte) {
		for e := 0; e < 512; e++ {
			rec[128+2*e], rec[128+2*e+1] = byte(e), byte(e>>8)
		}
	}
	const how = "shared memory holds element-index codes, lane l points at row l: each register half names its row and column"
	return matrixCase(c, fill, how, func(a catalog.Atom, rec []byte) Outcome {
		obs := newTV(a)
		for t := 0; t < 32; t++ {
			for v := 0; v < a.Values(); v++ {
				e := int(unpack(elemB16, le32(rec, 16*t+4*(v/2)), v%2))
				if e >= 512 {
					obs.put(t, v, seen{-1, fmt.Sprintf("%#04x, not an element code (register not written?)", e)})
					continue
				}
				obs.put(t, v, slotSeen(a, e))
			}
		}
		return obs.compare()
	})
}

// matrixCase completes the ldmatrix or stmatrix case c (c.Name is the
// instruction): one 32-thread CTA per matrixVariants entry, whose input
// record holds the lane addresses and then what fill writes, and per variant
// a check that observe makes of that CTA's output record.
func matrixCase(c *Case, fill func(rec []byte), how string, observe func(a catalog.Atom, rec []byte) Outcome) *Case {
	c.Threads, c.Jobs, c.spec = 32, len(matrixVariants), matrixSpec{c.Name}
	for range matrixVariants {
		rec := make([]byte, c.InRec)
		laneAddrs(rec)
		fill(rec)
		c.In = append(c.In, rec...)
	}
	for i, v := range matrixVariants {
		a := matrixAtom(c.Name, v)
		c.Checks = append(c.Checks, Check{Atom: a.Name, Case: c.Name, How: how,
			decode: func(out []byte) Outcome {
				if len(out) != c.Jobs*c.OutRec {
					return failed(fmt.Errorf("output has %d bytes, want %d", len(out), c.Jobs*c.OutRec))
				}
				return observe(a, out[i*c.OutRec:(i+1)*c.OutRec])
			}})
	}
	return c
}

func stmatrixCase() *Case {
	const name = "stmatrix"
	comment := []string{
		"stmatrix .m8n8 .b16, every .num with and without .trans, one per CTA (x1, x2, x4,",
		"x1.trans, x2.trans, x4.trans). Lane l supplies the address of its own 32-byte row",
		"of a buffer first filled with 0xffff; register r of lane t holds code(t, 2r) in",
		"its low half and code(t, 2r+1) in its high half, code(t, v) = 8t + v. The buffer",
		"is dumped: each element names the (thread, value) stored there.",
	}
	c := &Case{Name: name, Title: "stmatrix .m8n8.b16, x1/x2/x4, with and without .trans", Arch: "sm_90",
		PTX: stmatrixPTX(name, comment), InRec: stInRec, OutRec: stOutRec}
	fill := func(rec []byte) {
		for t := 0; t < 32; t++ {
			for r := 0; r < 4; r++ {
				put32(rec, 128+16*t+4*r, uint32(t*8+2*r)|uint32(t*8+2*r+1)<<16)
			}
		}
	}
	const how = "registers hold code(thread, value), lane l points at row l of a poisoned buffer: each stored element names its (thread, value)"
	return matrixCase(c, fill, how, func(a catalog.Atom, rec []byte) Outcome {
		obs := newTV(a)
		stray := ""
		for e := 0; e < 512; e++ {
			x := int(rec[2*e]) | int(rec[2*e+1])<<8
			if x == 0xFFFF {
				continue
			}
			t, v := x/8, x%8
			if t >= 32 || v >= a.Values() {
				if stray == "" {
					stray = fmt.Sprintf("element %d of the buffer holds %#04x, which is no stored (thread, value)", e, x)
				}
				continue
			}
			obs.put(t, v, slotSeen(a, e))
		}
		o := obs.compare()
		if stray != "" {
			o.Mismatches++
			if o.First == "" {
				o.First = stray
			}
		}
		return o
	})
}
