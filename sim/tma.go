package sim

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// Tensor maps (the launch's CUtensorMap parameters, decoded) and the TMA
// copies that use them: cp.async.bulk.tensor loads into shared memory,
// with multicast, and stores back to global memory.

type tensorMap struct {
	idx     int
	name    string
	m       *launch.TensorMap
	buf     *Buffer
	base    uint64
	esize   int
	rank    int
	dims    []uint64
	strides []uint64 // bytes, for every dim (dim 0: esize)
	box     []int
	estr    []int
	count   []int // elements per dim in the box: ceil(box/estr)
	swz     desc.Swizzle
	oobNaN  bool
}

func newTensorMap(m *launch.TensorMap, buf *Buffer, name string) (*tensorMap, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Interleave != 0 {
		return nil, fmt.Errorf("interleave=%s tensor maps are not supported by the simulator", m.Interleave)
	}
	t := &tensorMap{name: name, m: m, buf: buf, base: buf.Base + m.Offset, esize: m.DType.Size(), rank: len(m.Dims), dims: m.Dims, oobNaN: m.OOBFill == 1}
	t.strides = append([]uint64{uint64(t.esize)}, m.Strides...)
	for i := range m.Box {
		b, e := int(m.Box[i]), int(m.ElemStrides[i])
		t.box = append(t.box, b)
		t.estr = append(t.estr, e)
		t.count = append(t.count, (b+e-1)/e)
	}
	switch m.Swizzle {
	case 0:
		t.swz = desc.SwizzleNone
	case 1:
		t.swz = desc.Swizzle32B
	case 2:
		t.swz = desc.Swizzle64B
	case 3:
		t.swz = desc.Swizzle128B
	case 4:
		t.swz = desc.Swizzle128B32A
	default:
		return nil, fmt.Errorf("swizzle=%s is not supported by the simulator", m.Swizzle)
	}
	return t, nil
}

// boxBytes is the number of bytes a tile-mode copy of one box moves.
func (t *tensorMap) boxBytes() int {
	n := t.esize
	for _, c := range t.count {
		n *= c
	}
	return n
}

func (t *tensorMap) nanBits() uint64 {
	switch t.m.DType.String() {
	case "f32", "f32ftz", "tf32", "tf32ftz":
		return 0x7FFFFFFF
	case "f64":
		return 0x7FFFFFFFFFFFFFFF
	}
	return 0x7FFF
}

// tensorMapAt reads the tensor map a kernel passes by address.
func (w *Warp) tensorMapAt(in *Inst, l int, addr uint64) *tensorMap {
	b := w.mem(in, ptx.SpaceNone, addr, 128, l, false)
	if b == nil {
		return nil
	}
	if addr%64 != 0 {
		w.fault(in, l, "tensor map address %#x is not 64-byte aligned", addr)
		return nil
	}
	var magic [8]byte
	copy(magic[:], b)
	if magic != tensorMapMagic {
		w.fault(in, l, "the 128 bytes at %#x are not a tensor map (pass one with a tmap: launch parameter)", addr)
		return nil
	}
	i := int(binary.LittleEndian.Uint32(b[8:]))
	if i >= len(w.cta.u.m.tmaps) {
		w.fault(in, l, "corrupt tensor map at %#x", addr)
		return nil
	}
	return w.cta.u.m.tmaps[i]
}

// forBox calls f for every element of the box at coords: its index in the
// box (row-major, dim 0 fastest) and its global byte address, or ok=false
// when it is out of bounds.
func (t *tensorMap) forBox(coords []int64, f func(i int, addr uint64, ok bool)) {
	n := 1
	for _, c := range t.count {
		n *= c
	}
	idx := make([]int, t.rank)
	for i := 0; i < n; i++ {
		ok := true
		var addr uint64 = t.base
		for d := 0; d < t.rank; d++ {
			g := coords[d] + int64(idx[d]*t.estr[d])
			if g < 0 || g >= int64(t.dims[d]) {
				ok = false
			}
			addr += uint64(g) * t.strides[d]
		}
		f(i, addr, ok)
		for d := 0; d < t.rank; d++ {
			idx[d]++
			if idx[d] < t.count[d] {
				break
			}
			idx[d] = 0
		}
	}
}

type bulkInfo struct {
	load      bool
	dim       int
	multicast bool
}

// decBulkTensor: cp.async.bulk.tensor.Nd.dst.src{.mode}.completion ...
//
//	load:  [dstMem], [tensorMap, {coords}], [mbar]{, ctaMask}{, policy}
//	store: [tensorMap, {coords}], [srcMem]{, policy}
func decBulkTensor(d *decoder) error {
	x := d.x
	bi := &bulkInfo{multicast: x.Has("multicast::cluster")}
	for _, m := range x.Mods {
		if len(m.Name) == 2 && m.Name[1] == 'd' && m.Name[0] >= '1' && m.Name[0] <= '5' {
			bi.dim = int(m.Name[0] - '0')
		}
		switch m.Name {
		case "im2col", "tile::gather4", "tile::scatter4", "im2col::w", "im2col::w::128", "im2col_no_offs":
			return fmt.Errorf("cp.async.bulk.tensor .%s mode is not supported by the simulator (tile mode is)", m.Name)
		}
	}
	sp := x.Spaces()
	bi.load = len(sp) > 0 && sp[0].Base() == ptx.SpaceShared
	ops := x.Operands
	tensorIdx := 1
	if !bi.load {
		tensorIdx = 0
	}
	ta, ok := ops[tensorIdx].(*ptx.Address)
	if !ok || ta.Coords == nil {
		return fmt.Errorf("cp.async.bulk.tensor: want a tensor operand [map, {coords}]")
	}
	if len(ta.Coords.Elems) != bi.dim {
		return fmt.Errorf("cp.async.bulk.tensor.%dd with %d coordinates", bi.dim, len(ta.Coords.Elems))
	}
	mapOp, err := d.val(ta.Base, ptx.U64)
	if err != nil {
		return err
	}
	mapOp.Off = ta.Offset
	d.in.src = append(d.in.src, mapOp)
	for _, e := range ta.Coords.Elems {
		o, err := d.val(e, ptx.S32)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	// then the shared operand(s)
	if bi.load {
		dst, err := d.addr(ops[0])
		if err != nil {
			return err
		}
		mb, err := d.addr(ops[2])
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, dst, mb)
		if bi.multicast {
			if len(ops) < 4 {
				return fmt.Errorf("multicast needs a ctaMask operand")
			}
			cm, err := d.val(ops[3], ptx.B16)
			if err != nil {
				return err
			}
			d.in.src = append(d.in.src, cm)
		}
	} else {
		src, err := d.addr(ops[1])
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, src)
	}
	d.in.ext = bi
	d.in.fn = execBulkTensor
	return nil
}

func (w *Warp) addrOf(o *Opnd, l, k int) uint64 { return w.src(o, k)[l] + uint64(o.Off) }

func execBulkTensor(w *Warp, in *Inst, m uint32) {
	bi := in.ext.(*bulkInfo)
	u := w.cta.u
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		tm := w.tensorMapAt(in, l, w.addrOf(&in.src[0], l, 0))
		if tm == nil {
			return
		}
		if tm.rank != bi.dim {
			w.fault(in, l, "cp.async.bulk.tensor.%dd with tensor map %s of rank %d", bi.dim, tm.name, tm.rank)
			return
		}
		coords := make([]int64, bi.dim)
		for k := 0; k < bi.dim; k++ {
			coords[k] = int64(int32(w.src(&in.src[1+k], 1)[l]))
		}
		nb := tm.boxBytes()
		tid := 32*w.ID + l
		if bi.load {
			dstAddr := w.addrOf(&in.src[1+bi.dim], l, 2)
			mbAddr := w.addrOf(&in.src[2+bi.dim], l, 2)
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dstAddr, nb, l)
			if !ok {
				return
			}
			mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, mbAddr, 8, l)
			if !ok {
				return
			}
			align := uint32(128)
			if tm.swz != desc.SwizzleNone {
				align = uint32(tm.swz.Repeat())
			}
			if off%128 != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("TMA destination %#x is not 128-byte aligned", off)})
			} else if off%align != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevWarning, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("TMA destination %#x is not aligned to the %s swizzle's %d-byte repeat, so the box's first row is not row 0 of the pattern: TMA swizzles by absolute address (measured on the H100), which a wgmma descriptor with base offset 0 reads, but a swizzled layout of the tile that assumes an aligned start (CuTe's) does not", off, tm.swz, align)})
			}
			targets := []*CTA{c}
			if bi.multicast {
				mask := uint32(w.src(&in.src[3+bi.dim], 2)[l]) & 0xFFFF
				targets = nil
				for r := 0; r < len(u.ctas); r++ {
					if mask>>r&1 == 1 {
						targets = append(targets, u.ctas[r])
					}
				}
			}
			op := &asyncOp{kind: akTMALoad, cta: w.cta, w: w, lane: l, tid: tid, in: in,
				desc: fmt.Sprintf("%s box at %v → shared %#x (%d bytes), mbarrier %#x", tm.name, coords, off, nb, moff)}
			for _, tc := range targets {
				op.wr = append(op.wr, region{tc, off, nb})
			}
			mbCTA := mc
			op.run = func(op *asyncOp) {
				for _, tc := range targets {
					tm.load(tc, off, coords)
					if u.race != nil {
						u.race.asyncWrite(tc, off, nb, op.issueVC, op.clock, in.PC)
					}
					target := mbCTA
					if bi.multicast {
						target = tc
					}
					mb := target.mbars[moff]
					if mb == nil || !mb.live {
						u.m.hazard(Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: target.ID, Warp: -1,
							Msg: fmt.Sprintf("a TMA copy completes on the mbarrier at %#x, which is not initialized", moff)})
						continue
					}
					if u.race != nil {
						u.race.mbarAsyncArrive(mb, u.race.agentVC(op.cta, op.issueVC, op.clock))
					}
					mb.completeTx(in, int64(nb))
				}
			}
			u.issue(op)
			continue
		}
		srcAddr := w.addrOf(&in.src[1+bi.dim], l, 2)
		c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, srcAddr, nb, l)
		if !ok {
			return
		}
		if off%128 != 0 {
			u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: fmt.Sprintf("TMA store source %#x is not 128-byte aligned", off)})
		}
		w.asyncReadCheck(in, c, off, nb, "a TMA store")
		op := &asyncOp{kind: akTMAStore, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{c, off, nb}},
			desc: fmt.Sprintf("shared %#x (%d bytes) → %s box at %v", off, nb, tm.name, coords)}
		op.run = func(op *asyncOp) { tm.store(c, off, coords) }
		w.cta.bulkGroups(tid).add(op)
		u.issue(op)
	}
}

// load writes a box into shared memory at off (with the map's swizzle).
func (t *tensorMap) load(c *CTA, off uint32, coords []int64) {
	es := t.esize
	nan := t.nanBits()
	data := t.buf.Data
	tags := c.tags
	t.forBox(coords, func(i int, addr uint64, ok bool) {
		lin := off + uint32(i*es)
		phys := t.swz.Apply(lin)
		dst := c.Smem[phys : phys+uint32(es)]
		if tags != nil {
			tags[phys] = t.tag(coords, i)
		}
		if !ok {
			if t.oobNaN {
				putLE(dst, nan)
			} else {
				for k := range dst {
					dst[k] = 0
				}
			}
			return
		}
		o := addr - t.buf.Base
		copy(dst, data[o:o+uint64(es)])
	})
}

// tag names element i of the box at coords (dims 0 and 1).
func (t *tensorMap) tag(coords []int64, i int) elemTag {
	e := elemTag{tmap: int32(t.idx + 1)}
	i0 := i % t.count[0]
	e.c0 = int32(coords[0]) + int32(i0*t.estr[0])
	if t.rank > 1 {
		i1 := i / t.count[0] % t.count[1]
		e.c1 = int32(coords[1]) + int32(i1*t.estr[1])
	}
	return e
}

// store writes the in-bounds elements of a box from shared memory.
func (t *tensorMap) store(c *CTA, off uint32, coords []int64) {
	es := t.esize
	data := t.buf.Data
	t.forBox(coords, func(i int, addr uint64, ok bool) {
		if !ok {
			return
		}
		lin := off + uint32(i*es)
		phys := t.swz.Apply(lin)
		o := addr - t.buf.Base
		copy(data[o:o+uint64(es)], c.Smem[phys:phys+uint32(es)])
	})
}
