package sim

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/isa/tensormap"
)

// Tensor maps (CUtensorMaps as the CUDA driver encodes them, read from
// wherever the kernel keeps them: a parameter, a field of a by-value
// struct, global memory) and the TMA copies that use them:
// cp.async.bulk.tensor loads into shared memory, with multicast, and stores
// back to global memory.

type tensorMap struct {
	idx     int // its index in Machine.tmaps (elemTag.tmap is idx+1)
	name    string
	raw     [tensormap.Size]byte
	dtype   tensormap.DType
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
	// packed4 marks a map of 16U4_ALIGN8B (packed 4-bit) elements, held as
	// a map of bytes with half the inner extent and box: a kernel's
	// coordinate along dimension 0 counts 4-bit elements.
	packed4 bool
}

// newTensorMap decodes the 128 bytes of a CUtensorMap. Bytes the model of
// the driver's encoding cannot account for, arguments the driver would
// reject and features the simulator does not model are errors. arch is the
// kernel's target: an sm_100a kernel's maps may use 16U4_ALIGN8B elements
// and the 128B_atom_32B swizzle, whose encoding tcsim models (isa/tensormap:
// not hardware-verified).
func newTensorMap(raw [tensormap.Size]byte, name, arch string) (*tensorMap, error) {
	d, _ := tensormap.Decode(raw)
	if len(d.Unknown) > 0 {
		return nil, fmt.Errorf("these are not the bytes of a CUtensorMap as the CUDA driver writes it: %s (tcsim desc decodes them)", d.Unknown[0])
	}
	m := d.Map
	sm100 := strings.HasPrefix(arch, "sm_100")
	if m.DType.Packed() && !(sm100 && m.DType == tensormap.U4x16Align8) {
		return nil, refTmapPacked.errorf("a tensor map of %s elements in a kernel for %s", m.DType, arch)
	}
	if m.Swizzle >= tensormap.Swizzle128BAtom32B && m.Swizzle.Known() && !(sm100 && m.Swizzle == tensormap.Swizzle128BAtom32B) {
		return nil, refTmapAtomSwizzle.errorf("a tensor map with swizzle=%s in a kernel for %s", m.Swizzle, arch)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("the driver would not write this CUtensorMap: %w", err)
	}
	if m.Kind != tensormap.Tiled {
		return nil, refTmapKind.errorf("a tensor map of kind %s (tiled ones run)", m.Kind)
	}
	if m.Interleave != tensormap.InterleaveNone {
		return nil, refTmapInterleave.errorf("a tensor map with interleave=%s", m.Interleave)
	}
	t := &tensorMap{name: name, raw: raw, dtype: m.DType, base: m.Address, esize: m.DType.Bits() / 8, rank: m.Rank(), dims: m.Dims, oobNaN: m.OOB == tensormap.OOBNaN}
	t.strides = append([]uint64{uint64(t.esize)}, m.Strides...)
	for i := range m.Box {
		b, e := int(m.Box[i]), int(m.ElemStrides[i])
		t.box = append(t.box, b)
		t.estr = append(t.estr, e)
		t.count = append(t.count, (b+e-1)/e)
	}
	if m.Swizzle == tensormap.Swizzle128BAtom32B {
		t.swz = desc.Swizzle128B32A // 32-byte units: Sw<2,5,2>
	} else {
		t.swz = [...]desc.Swizzle{desc.SwizzleNone, desc.Swizzle32B, desc.Swizzle64B, desc.Swizzle128B}[m.Swizzle]
	}
	if m.DType == tensormap.U4x16Align8 {
		// held as a map of bytes with half the inner extent and box
		t.esize, t.packed4 = 1, true
		t.strides[0] = 1
		t.dims = append([]uint64{m.Dims[0] / 2}, m.Dims[1:]...)
		t.box[0], t.count[0] = t.box[0]/2, (t.box[0]/2+t.estr[0]-1)/t.estr[0]
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
	switch t.dtype {
	case tensormap.F32, tensormap.F32FTZ, tensormap.TF32, tensormap.TF32FTZ:
		return 0x7FFFFFFF
	case tensormap.F64:
		return 0x7FFFFFFFFFFFFFFF
	}
	return 0x7FFF
}

// tensorMapAt reads the tensor map a kernel passes by (generic) address.
func (w *Warp) tensorMapAt(in *Inst, l int, addr uint64) *tensorMap {
	b := w.mem(in, ptx.SpaceNone, addr, tensormap.Size, l, false)
	if b == nil {
		return nil
	}
	if addr%tensormap.Align != 0 {
		w.fault(in, l, "tensor map address %#x is not 64-byte aligned", addr)
		return nil
	}
	var raw [tensormap.Size]byte
	copy(raw[:], b)
	t, err := w.cta.u.m.tensorMapOf(raw, addr)
	if err != nil {
		w.fault(in, l, "the 128 bytes at %#x (%s): %v", addr, w.cta.u.m.where(addr), err)
		return nil
	}
	return t
}

// decPrefetch: prefetch{.space}.level [a] is a hint the simulator skips;
// prefetch{.const,.param}.tensormap [a] also checks that the 128 bytes at a
// are a tensor map, and reports a hazard when they are not (the prefetch
// itself does not fault; the copy that uses the map would).
func decPrefetch(d *decoder) error {
	if !d.has("tensormap") {
		return decNop(d)
	}
	if len(d.x.Operands) != 1 {
		return fmt.Errorf("prefetch.tensormap takes one address operand")
	}
	a, err := d.addr(d.x.Operands[0])
	if err != nil {
		return err
	}
	sp := ptx.SpaceNone
	if s := d.x.Spaces(); len(s) > 0 {
		sp = s[0]
	}
	d.in.src = append(d.in.src, a)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			addr := w.addrOf(&in.src[0], l, 0)
			b := w.mem(in, sp, addr, tensormap.Size, l, false)
			if b == nil {
				return
			}
			var raw [tensormap.Size]byte
			copy(raw[:], b)
			gen := addr
			if sp.Base() == ptx.SpaceParam && addr < ParamWindow {
				gen = ParamWindow + addr
			}
			mach := w.cta.u.m
			if _, err := mach.tensorMapOf(raw, gen); err != nil {
				mach.hazard(Hazard{Kind: HzTensorMap, Severity: SevWarning, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("prefetch.tensormap of %s: %v", mach.where(gen), err)})
			}
		}
	}
	return nil
}

// tensorMapOf returns the decoded map of raw, decoding it the first time
// it is seen (at addr, which names it unless the launch did).
func (m *Machine) tensorMapOf(raw [tensormap.Size]byte, addr uint64) (*tensorMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tmapByBytes[raw]; ok {
		return t, nil
	}
	name := m.tmapNames[raw]
	if name == "" {
		name = "in " + m.where(addr)
	}
	t, err := newTensorMap(raw, name, m.Prog.Arch)
	if err != nil {
		return nil, err
	}
	t.idx = len(m.tmaps)
	m.tmaps = append(m.tmaps, t)
	if m.tmapByBytes == nil {
		m.tmapByBytes = map[[tensormap.Size]byte]*tensorMap{}
	}
	m.tmapByBytes[raw] = t
	return t, nil
}

// tmapAt returns decoded map i.
func (m *Machine) tmapAt(i int) *tensorMap {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tmaps[i]
}

// where names a generic address: a parameter (and the offset in it), a
// buffer (and the offset in it), or the address.
func (m *Machine) where(addr uint64) string {
	ms, a := resolve(ptx.SpaceNone, addr)
	switch ms {
	case msParam:
		if m.Binding != nil {
			for _, p := range m.Binding.Params {
				if a >= uint64(p.Offset) && a < uint64(p.Offset+p.Decl.Size) {
					if a == uint64(p.Offset) {
						return "param " + p.Name
					}
					return fmt.Sprintf("param %s+%d", p.Name, a-uint64(p.Offset))
				}
			}
		}
		return fmt.Sprintf("param offset %d", a)
	case msGlobal:
		if b, ok := m.Global.Find(addr, 1); ok {
			if addr == b.Base {
				return b.Name
			}
			return fmt.Sprintf("%s+%d", b.Name, addr-b.Base)
		}
	}
	return fmt.Sprintf("%#x", addr)
}

// checkBox finds the first element of the box at coords that is in bounds
// of the tensor but not in a buffer; "" when every element is.
func (t *tensorMap) checkBox(m *Machine, coords []int64) string {
	bad := ""
	var cache *Buffer
	t.forBox(coords, func(i int, addr uint64, ok bool) {
		if !ok || bad != "" {
			return
		}
		if cache != nil && addr >= cache.Base && addr+uint64(t.esize) <= cache.Base+uint64(len(cache.Data)) {
			return
		}
		b, in := m.Global.Find(addr, t.esize)
		if !in {
			bad = fmt.Sprintf("element %d of the box is at %#x, %s", i, addr, m.describeGlobal(addr))
			return
		}
		cache = b
	})
	return bad
}

// elem returns the global memory of the element at addr (checkBox made
// sure it exists).
func (m *Machine) elem(cache **Buffer, addr uint64, n int) []byte {
	b := *cache
	if b == nil || addr < b.Base || addr+uint64(n) > b.Base+uint64(len(b.Data)) {
		b, _ = m.Global.Find(addr, n)
		*cache = b
	}
	o := addr - b.Base
	return b.Data[o : o+uint64(n)]
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
	pair      bool // .cta_group::2
	four      bool // .tile::gather4 / .tile::scatter4: a column and four row coordinates
	ncoord    int
}

// decBulkTensor: cp.async.bulk.tensor.Nd.dst.src{.mode}.completion ...
//
//	load:  [dstMem], [tensorMap, {coords}], [mbar]{, ctaMask}{, policy}
//	store: [tensorMap, {coords}], [srcMem]{, policy}
func decBulkTensor(d *decoder) error {
	x := d.x
	bi := &bulkInfo{multicast: x.Has("multicast::cluster"), pair: x.Has("cta_group::2")}
	for _, m := range x.Mods {
		if len(m.Name) == 2 && m.Name[1] == 'd' && m.Name[0] >= '1' && m.Name[0] <= '5' {
			bi.dim = int(m.Name[0] - '0')
		}
		switch m.Name {
		case "im2col", "im2col::w", "im2col::w::128", "im2col_no_offs":
			return refTmaIm2col.errorf("cp.async.bulk.tensor .%s (tile, tile::gather4 and tile::scatter4 run)", m.Name)
		case "tile::gather4", "tile::scatter4":
			bi.four = true
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
	if bi.four && bi.dim != 2 {
		return fmt.Errorf("cp.async.bulk.tensor .tile::gather4 and .tile::scatter4 take 2D tensor maps")
	}
	if n := len(ta.Coords.Elems); n != bi.dim && !(bi.four && n == 5) {
		if bi.four {
			return fmt.Errorf("cp.async.bulk.tensor.2d .tile::gather4/scatter4 with %d coordinates: want a column and four rows", n)
		}
		return fmt.Errorf("cp.async.bulk.tensor.%dd with %d coordinates", bi.dim, n)
	}
	bi.ncoord = len(ta.Coords.Elems)
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
		coords := make([]int64, bi.ncoord)
		for k := 0; k < bi.ncoord; k++ {
			coords[k] = int64(int32(w.src(&in.src[1+k], 1)[l]))
		}
		if tm.packed4 {
			if coords[0]%2 != 0 {
				w.fault(in, l, "cp.async.bulk.tensor: coordinate %d along dimension 0 of the packed 4-bit tensor map %s is odd", coords[0], tm.name)
				return
			}
			coords[0] /= 2
		}
		if bad := tm.checkBox(u.m, coords); bad != "" {
			w.fault(in, l, "cp.async.bulk.tensor through tensor map %s, box at %v: %s", tm.name, coords, bad)
			return
		}
		nb := tm.boxBytes()
		if bi.four {
			nb = 4 * tm.count[0] * tm.esize
		}
		tid := 32*w.ID + l
		if bi.load {
			dstAddr := w.addrOf(&in.src[1+bi.ncoord], l, 2)
			mbAddr := w.addrOf(&in.src[2+bi.ncoord], l, 2)
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
			}
			swzHz := swizzleNote(w, in, l, off, tm.swz, align) // decided when the phase completes
			targets := []*CTA{c}
			if bi.multicast {
				targets = w.multicastTargets(in, l, uint32(w.src(&in.src[3+bi.ncoord], 2)[l])&0xFFFF, moff)
			}
			op := &asyncOp{kind: akTMALoad, cta: w.cta, w: w, lane: l, tid: tid, in: in,
				desc: fmt.Sprintf("%s box at %v → shared %#x (%d bytes), mbarrier %#x", tm.name, coords, off, nb, moff)}
			for _, tc := range targets {
				op.wr = append(op.wr, region{tc, off, nb})
			}
			mbCTA := mc
			barrierOf := func(tc *CTA) *mbarrier {
				if bi.multicast && bi.pair {
					// .cta_group::2: the mbarrier at the same offset in the
					// CTA of the destination's pair that the mbarrier
					// operand names
					return u.ctas[tc.Rank&^1|mbCTA.Rank&1].mbars[moff]
				}
				if bi.multicast {
					return tc.mbars[moff]
				}
				return mbCTA.mbars[moff]
			}
			if bi.pair && !bi.multicast {
				w.pairBarrierCheck(in, l, mbCTA, moff)
			}
			phases := make([]uint64, len(targets))
			if u.race != nil {
				op.issueVC = u.race.issueVC(w)
			}
			for i, tc := range targets {
				mb := barrierOf(tc)
				if mb == nil || !mb.live {
					continue
				}
				phases[i] = mb.copyIssued(w, in, tid, int64(nb), mb.cta == w.cta)
				if u.race != nil {
					u.race.mbarInitCheck(w, in, mb, op.issueVC)
					u.race.asyncWriteIssue(op, tc, off, nb, op.issueVC, mb, phases[i])
				}
			}
			op.run = func(op *asyncOp) {
				for i, tc := range targets {
					if bi.four {
						tm.rows4(u.m, tc, off, coords, true)
					} else {
						tm.load(u.m, tc, off, coords)
					}
					mb := barrierOf(tc)
					if tm.swz != desc.SwizzleNone {
						u.m.swizzledLanded(mb, phases[i], off, uint32(nb), align, swzHz)
					}
					if mb == nil || !mb.live {
						u.m.mbarUninit(tc, moff, mb, u.race.issuePoint(op), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: tc.ID, Warp: -1,
							Msg: fmt.Sprintf("a TMA copy completes on the mbarrier at %#x, which is not initialized", moff)}, false)
						continue
					}
					if u.race != nil {
						u.race.asyncWriteDone(op, tc, u.race.mbarEpoch(mb, in.PC, ekCopy))
						u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
					}
					mb.copyLanded(in.PC, phases[i])
					mb.completeTx(in, int64(nb))
				}
			}
			u.issue(op)
			continue
		}
		srcAddr := w.addrOf(&in.src[1+bi.ncoord], l, 2)
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
		if u.race != nil {
			op.issueVC = u.race.issueVC(w)
			op.hbRead = u.race.asyncReadRegions(op.issueVC, in, c, w.ID, 1<<l, nil, off, nb, "TMA store", w)
		}
		op.run = func(op *asyncOp) {
			if bi.four {
				tm.rows4(u.m, c, off, coords, false)
				return
			}
			tm.store(u.m, c, off, coords)
		}
		w.cta.bulkGroups(tid).add(op)
		u.issue(op)
	}
}

// load writes a box into shared memory at off (with the map's swizzle).
func (t *tensorMap) load(m *Machine, c *CTA, off uint32, coords []int64) {
	es := t.esize
	nan := t.nanBits()
	var cache *Buffer
	tags := c.tags
	t.forBox(coords, func(i int, addr uint64, ok bool) {
		lin := off + uint32(i*es)
		phys := t.swz.Apply(lin)
		dst := c.Smem[phys : phys+uint32(es)]
		if tags != nil {
			tags[phys] = t.tag(coords, i)
			c.clearSource(phys, es)
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
		copy(dst, m.elem(&cache, addr, es))
	})
}

// rows4 is .tile::gather4 (load) and .tile::scatter4 (store): rows
// coords[1..4] of a 2D tensor, box[0] elements each from column coords[0],
// as rows 0-3 of a 4-row box in shared memory at off (with the map's
// swizzle). Out-of-bounds elements load as the fill value and are not
// stored. Not hardware-verified.
func (t *tensorMap) rows4(m *Machine, c *CTA, off uint32, coords []int64, load bool) {
	es := t.esize
	var cache *Buffer
	for r := 0; r < 4; r++ {
		row := coords[1+r]
		for i := 0; i < t.count[0]; i++ {
			col := coords[0] + int64(i*t.estr[0])
			phys := t.swz.Apply(off + uint32((r*t.count[0]+i)*es))
			sm := c.Smem[phys : phys+uint32(es)]
			ok := col >= 0 && col < int64(t.dims[0]) && row >= 0 && row < int64(t.dims[1])
			addr := t.base + uint64(col)*t.strides[0] + uint64(row)*t.strides[1]
			if ok {
				if _, in := m.Global.Find(addr, es); !in {
					ok = false
				}
			}
			switch {
			case load && !ok:
				if t.oobNaN {
					putLE(sm, t.nanBits())
				} else {
					for k := range sm {
						sm[k] = 0
					}
				}
			case load:
				copy(sm, m.elem(&cache, addr, es))
				if c.tags != nil {
					c.tags[phys] = elemTag{tmap: int32(t.idx + 1), c0: int32(col), c1: int32(row)}
				}
			case ok:
				copy(m.elem(&cache, addr, es), sm)
			}
		}
	}
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
func (t *tensorMap) store(m *Machine, c *CTA, off uint32, coords []int64) {
	es := t.esize
	var cache *Buffer
	t.forBox(coords, func(i int, addr uint64, ok bool) {
		if !ok {
			return
		}
		lin := off + uint32(i*es)
		phys := t.swz.Apply(lin)
		copy(m.elem(&cache, addr, es), c.Smem[phys:phys+uint32(es)])
	})
}

// rootOn reports h as the root cause of what follows on the mbarriers mbs
// (their phases' tx mismatches, the waiters that hang).
func (m *Machine) rootOn(h Hazard, mbs []*mbarrier) {
	if len(mbs) > 0 {
		if r := mbs[0].cta.u.race; r != nil {
			r.root(h, 0, mbs)
			return
		}
	}
	for _, mb := range mbs {
		mb.tainted = true
	}
	m.hazard(h)
}

// pairBarrierCheck checks the mbarrier a .cta_group::2 copy completes on
// (in mbCTA at moff): when it is the odd CTA's and expects no bytes in its
// current phase while the pair leader's mbarrier at the same offset does,
// the copy names the wrong CTA of the pair (CUTLASS's 2-SM copies name the
// leader's mbarrier, the address with the peer bit cleared).
func (w *Warp) pairBarrierCheck(in *Inst, l int, mbCTA *CTA, moff uint32) {
	u := w.cta.u
	if mbCTA.Rank&1 == 0 || mbCTA.Rank&^1 >= len(u.ctas) {
		return
	}
	mb, lead := mbCTA.mbars[moff], u.ctas[mbCTA.Rank&^1].mbars[moff]
	if mb == nil || !mb.live || lead == nil || !lead.live {
		return
	}
	own, la := mb.account(mb.phase), lead.account(lead.phase)
	if own.armed > 0 || la.armed <= la.sent {
		return
	}
	u.m.rootOn(Hazard{Kind: HzMulticastMask, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
		Msg: fmt.Sprintf("this .cta_group::2 copy completes on the mbarrier at %#x of CTA rank %d, the odd CTA of its pair, which expects no bytes, while the pair leader's mbarrier at the same offset (rank %d) expects %d more: the copy names the wrong CTA of the pair",
			moff, mbCTA.Rank, mbCTA.Rank&^1, la.armed-la.sent),
		Detail: "a CTA pair's copies signal the leader's mbarrier: name it with the peer bit of the address cleared (mapa.shared::cluster to the even rank)"}, []*mbarrier{lead, mb})
}

// multicastTargets are the CTAs a TMA multicast with ctaMask mask writes;
// a mask that names CTAs outside the cluster (or none) is reported as the
// root cause of what its mbarriers (at moff) do next.
func (w *Warp) multicastTargets(in *Inst, l int, mask uint32, moff uint32) []*CTA {
	cl := w.cta.clusterCTAs()
	if mask == 0 || mask>>len(cl) != 0 {
		// the CTAs the mask leaves out wait for bytes that never come:
		// their barriers' tx mismatch is this finding's consequence
		var mbs []*mbarrier
		for _, tc := range cl {
			if mb := tc.mbars[moff]; mb != nil && mb.live {
				mbs = append(mbs, mb)
			}
		}
		w.cta.u.m.rootOn(Hazard{Kind: HzMulticastMask, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
			Msg: fmt.Sprintf("cp.async.bulk.tensor .multicast::cluster with ctaMask %#x: the cluster has %d CTAs (ranks 0-%d); a mask bit names a CTA that does not exist, or no CTA at all", mask, len(cl), len(cl)-1)}, mbs)
	}
	var targets []*CTA
	for r, tc := range cl {
		if mask>>r&1 == 1 {
			targets = append(targets, tc)
		}
	}
	return targets
}
