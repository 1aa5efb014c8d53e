package probe

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// hardware is a model of what the GPU does with a probe kernel, written
// independently of the decoders: shared-memory operands are read through
// isa/desc's Footprint of the descriptors in the input records, and
// register fragments and ldmatrix/stmatrix follow the layouts atom
// returns. With the catalog's atoms it must agree with every check; with
// a planted wrong atom the check of that atom must fail.
type hardware struct {
	atom func(k catalog.Key) catalog.Atom
	// smem, when set, changes how the modelled hardware reads a
	// descriptor: a planted fault of the shared-memory side.
	smem func(desc.SmemLayout) desc.SmemLayout
}

var catalogHardware = hardware{atom: mustAtom}

// plant returns a model whose atom name is replaced by a.
func plant(name string, a catalog.Atom) hardware {
	return hardware{atom: func(k catalog.Key) catalog.Atom {
		if k.String() == name {
			return a
		}
		return mustAtom(k)
	}}
}

// run returns the output buffer the modelled GPU writes for c.
func (h hardware) run(c *Case) []byte {
	out := bytes.Repeat([]byte{0xa5}, c.Jobs*c.OutRec)
	switch k := c.spec.(type) {
	case *wgmmaKernel:
		h.wgmma(c, k, out)
	case *mmaKernel:
		h.mma(c, k, out)
	case matrixSpec:
		h.matrix(c, k.family, out)
	default:
		panic(fmt.Sprintf("no model for %T", c.spec))
	}
	return out
}

// value decodes an operand element.
func value(e elem, bits uint32) int {
	switch e {
	case elemF16:
		return int(f16Value(uint16(bits)))
	case elemTF32, elemF32:
		return int(math.Float32frombits(bits))
	case elemE4M3:
		b := uint8(bits)
		exp, man := int(b>>3&15), int(b&7)
		if exp == 0 {
			return 0 // the probes use no subnormals but 0
		}
		return int(math.Ldexp(float64(8+man), exp-7-3))
	}
	return int(bits)
}

// elemAt reads element value of type e at byte off.
func elemAt(b []byte, off int, e elem) int {
	var bits uint32
	for i := 0; i < e.bits()/8; i++ {
		bits |= uint32(b[off+i]) << (8 * i)
	}
	return value(e, bits)
}

// readSmem reads an MN×K operand through a descriptor with Footprint.
func (h hardware) readSmem(img []byte, d uint64, major desc.Major, e elem, mn, k int) [][]int {
	l := desc.DecodeWGMMA(d).Layout()
	if h.smem != nil {
		l = h.smem(l)
	}
	reads, err := desc.Footprint(l, desc.Operand{Major: major, ElemBits: e.bits(), MN: mn, K: k})
	if err != nil {
		panic(err)
	}
	m := make([][]int, mn)
	for i := range m {
		m[i] = make([]int, k)
	}
	eb := e.bits() / 8
	for _, r := range reads {
		for x := r.MN0; x < r.MN1; x++ {
			for y := r.K0; y < r.K1; y++ {
				m[x][y] = elemAt(img, int(r.Addr)+eb*(x-r.MN0+y-r.K0), e)
			}
		}
	}
	return m
}

// fromRegs builds a rows×cols operand from per-thread registers laid out
// by atom a.
func fromRegs(a catalog.Atom, e elem, reg func(t, r int) uint32) [][]int {
	m := make([][]int, a.Rows)
	for i := range m {
		m[i] = make([]int, a.Cols)
	}
	for t := 0; t < a.Threads(); t++ {
		for v := 0; v < a.Values(); v++ {
			row, col := a.TV.Coord(t, v)
			m[row][col] = value(e, unpack(e, reg(t, v/a.ValsPerReg), v%a.ValsPerReg))
		}
	}
	return m
}

// toRegs writes D (M×N) into registers by atom d.
func toRegs(d catalog.Atom, e elem, D [][]int, set func(t, r int, v uint32)) {
	nr := d.Values() / d.ValsPerReg
	regs := make([]uint32, d.Threads()*nr)
	for t := 0; t < d.Threads(); t++ {
		for v := 0; v < d.Values(); v++ {
			row, col := d.TV.Coord(t, v)
			regs[t*nr+v/d.ValsPerReg] |= e.encode(D[row][col]) << (e.bits() * (v % d.ValsPerReg) % 32)
		}
	}
	for i, v := range regs {
		set(i/nr, i%nr, v)
	}
}

// product is A (M×K) times B (N×K), as D (M×N).
func product(a, b [][]int) [][]int {
	d := make([][]int, len(a))
	for m := range d {
		d[m] = make([]int, len(b))
		for n := range b {
			for k := range a[m] {
				d[m][n] += a[m][k] * b[n][k]
			}
		}
	}
	return d
}

func (h hardware) wgmma(c *Case, k *wgmmaKernel, out []byte) {
	in := k.input
	for j := 0; j < c.Jobs; j++ {
		v := k.variants[j/k.passes]
		rec := c.In[j*c.InRec : (j+1)*c.InRec]
		img := rec[k.imageOffset():]
		o := out[j*c.OutRec:]
		binary.LittleEndian.PutUint32(o, 0x400)
		for s := 0; s < v.slices; s++ {
			var A [][]int
			if k.regA {
				a := h.atom(in.aKey(false))
				A = fromRegs(a, in.e, func(t, r int) uint32 { return le32(rec, 128+16*t+4*r) })
			} else {
				major := desc.MajorK
				if v.transA {
					major = desc.MajorMN
				}
				A = h.readSmem(img, binary.LittleEndian.Uint64(rec[16*s:]), major, in.e, 64, in.k)
			}
			B := h.readSmem(img, binary.LittleEndian.Uint64(rec[16*s+8:]), desc.MajorK, in.e, v.n, in.k)
			d := h.atom(accKey(v.n, k.acc))
			nr := k.regs(v.n)
			toRegs(d, k.acc, product(A, B), func(t, r int, x uint32) {
				binary.LittleEndian.PutUint32(o[16+s*k.sliceBytes(v.n)+4*(t*nr+r):], x)
			})
		}
	}
}

func (h hardware) mma(c *Case, k *mmaKernel, out []byte) {
	s := k.shape
	for j := 0; j < c.Jobs; j++ {
		rec := c.In[j*c.InRec:]
		A := fromRegs(h.atom(s.a), s.in, func(t, r int) uint32 { return le32(rec, 32*t+4*r) })
		B := fromRegs(h.atom(s.b), s.in, func(t, r int) uint32 { return le32(rec, 32*t+16+4*r) })
		toRegs(h.atom(s.d), s.acc, product(A, B), func(t, r int, x uint32) {
			binary.LittleEndian.PutUint32(out[j*c.OutRec+16*t+4*r:], x)
		})
	}
}

func (h hardware) matrix(c *Case, family string, out []byte) {
	for j, mv := range matrixVariants {
		a := h.atom(matrixKey(family, mv))
		rec := c.In[j*c.InRec:]
		o := out[j*c.OutRec : (j+1)*c.OutRec]
		if family == "stmatrix" {
			for i := range o {
				o[i] = 0xff
			}
		}
		for t := 0; t < 32; t++ {
			for v := 0; v < a.Values(); v++ {
				row, col := a.TV.Coord(t, v)
				lane := -1
				for l, r := range a.AddrRows {
					if r == row {
						lane = l
					}
				}
				addr := int(le32(rec, 4*lane)) + 2*col
				if family == "ldmatrix" {
					x := uint32(rec[128+addr]) | uint32(rec[129+addr])<<8
					reg := le32(o, 16*t+4*(v/2))
					if v%2 == 0 {
						reg = reg&0xFFFF0000 | x
					} else {
						reg = reg&0xFFFF | x<<16
					}
					binary.LittleEndian.PutUint32(o[16*t+4*(v/2):], reg)
				} else {
					x := unpack(elemB16, le32(rec, 128+16*t+4*(v/2)), v%2)
					o[addr], o[addr+1] = byte(x), byte(x>>8)
				}
			}
		}
	}
}
