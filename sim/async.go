package sim

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// Asynchronous operations (TMA and bulk copies, cp.async, tcgen05.mma and
// commit) wait in the unit's queue until they complete: in Lazy mode when
// a wait needs them or no warp can run, in Eager mode at issue, in Random
// mode at random points. While an operation is in flight its shared-memory
// destination and source are marked, so that generic accesses to them are
// reported.

type asyncKind uint8

const (
	akTMALoad asyncKind = iota
	akTMAStore
	akBulkLoad
	akBulkStore
	akCpAsync
	akCpAsyncArrive
	akTcgenMMA
	akTcgenCommit
	akTcgenCp
	akStAsync
	akWgmma
)

var asyncKindNames = [...]string{"TMA load", "TMA store", "bulk copy", "bulk store", "cp.async", "cp.async.mbarrier.arrive",
	"tcgen05.mma", "tcgen05.commit", "tcgen05.cp", "st.async", "wgmma.mma_async"}

func (k asyncKind) String() string { return asyncKindNames[k] }

type region struct {
	c   *CTA
	off uint32
	n   int
}

type asyncOp struct {
	kind    asyncKind
	cta     *CTA
	w       *Warp
	lane    int
	tid     int
	in      *Inst
	issueVC []uint32
	clock   uint32
	run     func(op *asyncOp)
	wr, rd  []region
	done    bool
	desc    string
	seq     uint64
}

// AsyncOp describes an in-flight asynchronous operation (for inspection).
type AsyncOp struct {
	Kind   string
	CTA    [3]int
	Thread int
	Pos    ptx.Position
	Desc   string
}

// issue starts an async operation.
func (u *unit) issue(op *asyncOp) {
	u.seqNo++
	op.seq = u.seqNo
	if u.race != nil && op.w != nil {
		op.issueVC = u.race.issueVC(op.w)
		op.clock = u.race.nextAgentClock(op.cta)
	}
	for _, g := range groupByCTA(op.wr) {
		g[0].c.markInflight(g, true, op)
	}
	for _, g := range groupByCTA(op.rd) {
		g[0].c.markInflight(g, false, op)
	}
	if u.m.trace != nil {
		u.m.trace.event(map[string]any{"event": "async.issue", "kind": op.kind.String(), "cta": op.cta.ID, "thread": op.tid, "pc": op.in.PC, "desc": op.desc})
	}
	switch u.m.Opts.Schedule {
	case Eager:
		u.finishOp(op)
		return
	case Lazy:
		// Copies that complete on an mbarrier land at issue: their
		// completion is only observable through the mbarrier, and the
		// race detector reports reads that are not ordered after it.
		if op.kind == akTMALoad || op.kind == akBulkLoad {
			u.finishOp(op)
			return
		}
	}
	u.async = append(u.async, op)
}

// groupByCTA splits regions by the CTA that owns them.
func groupByCTA(rs []region) [][]region {
	if len(rs) == 0 {
		return nil
	}
	var out [][]region
	for _, r := range rs {
		found := false
		for i := range out {
			if out[i][0].c == r.c {
				out[i] = append(out[i], r)
				found = true
			}
		}
		if !found {
			out = append(out, []region{r})
		}
	}
	return out
}

// finishOp completes op now.
func (u *unit) finishOp(op *asyncOp) {
	if op.done {
		return
	}
	op.done = true
	for _, g := range groupByCTA(op.wr) {
		g[0].c.unmarkInflight(op, true)
	}
	for _, g := range groupByCTA(op.rd) {
		g[0].c.unmarkInflight(op, false)
	}
	op.run(op)
	u.progress++
	if u.m.trace != nil {
		u.m.trace.event(map[string]any{"event": "async.complete", "kind": op.kind.String(), "cta": op.cta.ID, "thread": op.tid, "pc": op.in.PC})
	}
}

// completeOne completes the i-th queued operation (or the first one it
// must wait for).
func (u *unit) completeOne(i int) {
	i = u.readyIndex(i)
	op := u.async[i]
	u.async = append(u.async[:i], u.async[i+1:]...)
	u.finishOp(op)
}

// readyIndex moves i back to an earlier operation of the same thread
// that must complete first (commits wait for the thread's earlier work).
func (u *unit) readyIndex(i int) int {
	op := u.async[i]
	if op.kind != akTcgenCommit && op.kind != akCpAsyncArrive {
		return i
	}
	for j := 0; j < i; j++ {
		if u.async[j].tid == op.tid && u.async[j].cta == op.cta {
			return j
		}
	}
	return i
}

// completeAsync completes the oldest queued operation; it reports false
// when there is none.
func (u *unit) completeAsync() bool {
	if len(u.async) > 0 {
		u.completeOne(0)
		return true
	}
	// wgmma groups committed by every warp of a warpgroup can complete
	for _, c := range u.ctas {
		for _, wg := range c.wgs {
			if wg.completeCommitted() {
				return true
			}
		}
	}
	return false
}

// completeWhere completes every queued operation for which f is true, in
// issue order.
func (u *unit) completeWhere(f func(op *asyncOp) bool) {
	for i := 0; i < len(u.async); {
		if f(u.async[i]) {
			op := u.async[i]
			u.async = append(u.async[:i], u.async[i+1:]...)
			u.finishOp(op)
			continue
		}
		i++
	}
}

// InFlight lists the queued asynchronous operations.
func (u *unit) inFlight() []AsyncOp {
	var out []AsyncOp
	for _, op := range u.async {
		out = append(out, AsyncOp{Kind: op.kind.String(), CTA: op.cta.ID, Thread: op.tid, Pos: u.m.Prog.pos(op.in), Desc: op.desc})
	}
	return out
}

// in-flight shared-memory regions -----------------------------------------

type inflightRef struct {
	regs  []region
	write bool
	op    *asyncOp
}

// markInflight marks regions of c's shared memory as written (or read) by
// the in-flight operation op.
func (c *CTA) markInflight(regs []region, write bool, op *asyncOp) {
	if len(regs) == 0 {
		return
	}
	if c.inflW == nil {
		c.inflW = make([]uint16, len(c.Smem))
		c.inflR = make([]uint16, len(c.Smem))
	}
	arr := c.inflR
	if write {
		arr = c.inflW
	}
	reported := false
	for _, r := range regs {
		for k := 0; k < r.n; k++ {
			if write && !reported && c.inflR[int(r.off)+k] > 0 {
				reported = true
				other := c.inflightOp(r.off+uint32(k), false)
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1,
					Msg:    fmt.Sprintf("%s overwrites shared bytes (from %#x) that an in-flight %s still reads", op.kind, int(r.off)+k, kindOf(other)),
					Detail: "the buffer is refilled before the operation reading it is known to be complete (a missing wait_group, or a consumer release that comes too early)"}
				if other != nil {
					h.Related = c.u.m.Prog.pos(other.in)
				}
				c.u.m.hazard(h)
			}
			if write && !reported && arr[int(r.off)+k] > 0 {
				reported = true
				other := c.inflightOp(r.off+uint32(k), true)
				h := Hazard{Kind: HzAsyncOverlap, Severity: SevError, PC: op.in.PC, CTA: op.cta.ID, Warp: -1,
					Msg:    fmt.Sprintf("%s writes shared bytes that another in-flight copy also writes (from %#x)", op.kind, int(r.off)+k),
					Detail: "the two copies are both in flight, so which one lands last is undefined"}
				if other != nil {
					h.Related = c.u.m.Prog.pos(other.in)
				}
				c.u.m.hazard(h)
			}
			arr[int(r.off)+k]++
		}
	}
	c.inflight = append(c.inflight, inflightRef{regs: regs, write: write, op: op})
	c.inflightN++
}

// unmarkInflight ends op's marks.
func (c *CTA) unmarkInflight(op *asyncOp, write bool) {
	for i, ref := range c.inflight {
		if ref.op != op || ref.write != write {
			continue
		}
		arr := c.inflR
		if write {
			arr = c.inflW
		}
		for _, r := range ref.regs {
			for k := 0; k < r.n; k++ {
				arr[int(r.off)+k]--
			}
		}
		c.inflight = append(c.inflight[:i], c.inflight[i+1:]...)
		c.inflightN--
		return
	}
}

// inflightOp finds an in-flight operation touching byte off.
func (c *CTA) inflightOp(off uint32, write bool) *asyncOp {
	for _, ref := range c.inflight {
		if ref.write != write {
			continue
		}
		for _, r := range ref.regs {
			if off >= r.off && int(off) < int(r.off)+r.n {
				return ref.op
			}
		}
	}
	return nil
}

// smemHook checks a generic-proxy shared-memory access.
func (w *Warp) smemHook(in *Inst, lane int, sp ptx.Space, addr uint64, n int, write bool) {
	ms, a := resolve(sp, addr)
	if ms != msShared {
		return
	}
	c, off64, ok := w.cta.clusterShared(a)
	if !ok {
		return
	}
	off := uint32(off64)
	u := w.cta.u
	if c.inflightN > 0 {
		for k := 0; k < n; k++ {
			if c.inflW[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), true)
				h := Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:    fmt.Sprintf("%s of shared byte %#x while an in-flight %s is still writing it", rw(write), int(off)+k, kindOf(op)),
					Detail: "the copy's completion must be observed (mbarrier wait, or the group's wait) before its destination is touched"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				break
			}
			if write && c.inflR[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), false)
				h := Hazard{Kind: HzAsyncSourceReuse, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:    fmt.Sprintf("write of shared byte %#x while an in-flight %s still reads it", int(off)+k, kindOf(op)),
					Detail: "the source of an asynchronous read may only be reused after the operation is known to have read it"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				break
			}
		}
	}
	if write && len(c.mbars) > 0 {
		for k := off &^ 7; k < off+uint32(n); k += 8 {
			if mb := c.mbars[k]; mb != nil && mb.live {
				u.m.hazard(Hazard{Kind: HzMbarGenericWrite, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << lane,
					Msg:     fmt.Sprintf("generic store to shared address %#x overwrites the live mbarrier object at %#x", off, k),
					Related: u.m.Prog.pos(&u.m.Prog.Insts[mb.initPC])})
			}
		}
	}
	if u.race != nil {
		u.race.access(w, in, lane, c, off, n, write)
	}
}

func kindOf(op *asyncOp) string {
	if op == nil {
		return "asynchronous operation"
	}
	return op.kind.String()
}

// asyncReadCheck checks an async-proxy read of shared memory at issue
// (wgmma, TMA store, tcgen05.mma operands): bytes still being written by an
// in-flight copy, and (with the race detector) generic writes without
// fence.proxy.async.
func (w *Warp) asyncReadCheck(in *Inst, c *CTA, off uint32, n int, what string) {
	u := w.cta.u
	if c.inflightN > 0 {
		for k := 0; k < n; k++ {
			if c.inflW[int(off)+k] > 0 {
				op := c.inflightOp(off+uint32(k), true)
				h := Hazard{Kind: HzAsyncEarlyRead, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID,
					Msg:    fmt.Sprintf("%s reads shared bytes from %#x that an in-flight %s has not finished writing", what, int(off)+k, kindOf(op)),
					Detail: "the mbarrier wait that should cover the copy is missing, or waits on the wrong phase parity"}
				if op != nil {
					h.Related = u.m.Prog.pos(op.in)
				}
				u.m.hazard(h)
				return
			}
		}
	}
	if u.race != nil {
		u.race.asyncRead(w, in, c, off, n, what)
	}
}

// proxyFence is fence.proxy.async: nothing to do beyond the race detector.
func (u *unit) proxyFence(w *Warp) {}

// checkExit reports what a finished CTA left behind.
func (c *CTA) checkExit() {
	if c.exitedHazardsDone {
		return
	}
	c.exitedHazardsDone = true
	m := c.u.m
	for _, wg := range c.wgs {
		wg.checkExit()
	}
	for tid, bg := range c.bulk {
		if bg == nil {
			continue
		}
		var pending *asyncOp
		for _, g := range append([][]*asyncOp{bg.open}, bg.groups...) {
			for _, op := range g {
				if !op.done && pending == nil {
					pending = op
				}
			}
		}
		if pending != nil {
			pc := pending.in.PC
			m.hazard(Hazard{Kind: HzAsyncExit, Severity: SevError, PC: pc, CTA: c.ID, Warp: tid / 32, Lanes: 1 << (tid % 32),
				Msg:    fmt.Sprintf("thread %d exits with bulk async copies that read shared memory not waited for (cp.async.bulk.wait_group.read missing)", tid),
				Detail: "shared memory is released when the CTA exits; an outstanding copy may read freed memory"})
		}
	}
	if c.tmem != nil {
		c.tmem.checkExit(c)
	}
}

// tensor maps ---------------------------------------------------------------

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
	mode      string
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

// bulk groups (per thread) ------------------------------------------------------

type bulkGroups struct {
	open   []*asyncOp   // issued since the last commit
	groups [][]*asyncOp // committed, oldest first
	reads  int
}

func (c *CTA) bulkGroups(tid int) *bulkGroups {
	if c.bulk[tid] == nil {
		c.bulk[tid] = &bulkGroups{}
	}
	return c.bulk[tid]
}

func (b *bulkGroups) add(op *asyncOp) { b.open = append(b.open, op) }

func decBulkCommit(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		forLanes(m, func(l int) {
			b := w.cta.bulkGroups(32*w.ID + l)
			b.groups = append(b.groups, b.open)
			b.open = nil
		})
	}
	return nil
}

func decBulkWait(d *decoder) error {
	im, ok := d.x.Operands[0].(*ptx.Imm)
	if !ok {
		return fmt.Errorf("cp.async.bulk.wait_group: N must be an immediate")
	}
	n := int(im.Int())
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		forLanes(m, func(l int) {
			b := w.cta.bulkGroups(32*w.ID + l)
			for len(b.groups) > n {
				g := b.groups[0]
				b.groups = b.groups[1:]
				for _, op := range g {
					u.completeWhere(func(x *asyncOp) bool { return x == op })
				}
			}
		})
	}
	return nil
}

// decBulk: cp.async.bulk (non-tensor).
//
//	[dst], [src], size, [mbar]{, ctaMask}     shared <- global / shared::cta
//	[dst], [src], size                        global <- shared::cta (bulk_group)
func decBulk(d *decoder) error {
	x := d.x
	sp := x.Spaces()
	if len(sp) < 2 {
		return fmt.Errorf("cp.async.bulk: want destination and source spaces")
	}
	bi := &bulkInfo{load: sp[0].Base() == ptx.SpaceShared, multicast: x.Has("multicast::cluster")}
	if x.Has("cp_mask") {
		return fmt.Errorf("cp.async.bulk .cp_mask is not supported")
	}
	for i, e := range x.Operands {
		var o Opnd
		var err error
		if _, isAddr := e.(*ptx.Address); isAddr {
			o, err = d.addr(e)
		} else {
			o, err = d.val(e, ptx.U32)
		}
		if err != nil {
			return err
		}
		_ = i
		d.in.src = append(d.in.src, o)
	}
	d.in.space, d.in.aux = sp[0], 0
	d.in.ext = bi
	srcSpace := sp[1]
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst := w.addrOf(&in.src[0], l, 0)
			src := w.addrOf(&in.src[1], l, 1)
			size := int(uint32(w.src(&in.src[2], 2)[l]))
			tid := 32*w.ID + l
			if dst%16 != 0 || src%16 != 0 || size%16 != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("cp.async.bulk: addresses %#x, %#x and size %d must be multiples of 16", dst, src, size)})
			}
			if bi.load {
				c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dst, size, l)
				if !ok {
					return
				}
				var srcBytes []byte
				var sc *CTA
				var soff uint32
				if srcSpace.Base() == ptx.SpaceShared {
					if sc, soff, ok = w.sharedAddr(in, ptx.SpaceSharedCTA, src, size, l); !ok {
						return
					}
					w.asyncReadCheck(in, sc, soff, size, "cp.async.bulk")
				} else if srcBytes = w.mem(in, ptx.SpaceGlobal, src, size, l, false); srcBytes == nil {
					return
				}
				mbAddr := w.addrOf(&in.src[3], l, 0)
				mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, mbAddr, 8, l)
				if !ok {
					return
				}
				targets := []*CTA{c}
				if bi.multicast && len(in.src) > 4 {
					mask := uint32(w.src(&in.src[4], 0)[l]) & 0xFFFF
					targets = nil
					for r := 0; r < len(u.ctas); r++ {
						if mask>>r&1 == 1 {
							targets = append(targets, u.ctas[r])
						}
					}
				}
				op := &asyncOp{kind: akBulkLoad, cta: w.cta, w: w, lane: l, tid: tid, in: in,
					desc: fmt.Sprintf("%d bytes → shared %#x, mbarrier %#x", size, off, moff)}
				for _, tc := range targets {
					op.wr = append(op.wr, region{tc, off, size})
				}
				if sc != nil {
					op.rd = []region{{sc, soff, size}}
				}
				op.run = func(op *asyncOp) {
					data := srcBytes
					if sc != nil {
						data = sc.Smem[soff : soff+uint32(size)]
					}
					for _, tc := range targets {
						copy(tc.Smem[off:off+uint32(size)], data)
						if u.race != nil {
							u.race.asyncWrite(tc, off, size, op.issueVC, op.clock, in.PC)
						}
						target := mc
						if bi.multicast {
							target = tc
						}
						if mb := target.mbars[moff]; mb != nil && mb.live {
							if u.race != nil {
								u.race.mbarAsyncArrive(mb, u.race.agentVC(op.cta, op.issueVC, op.clock))
							}
							mb.completeTx(in, int64(size))
						} else {
							u.m.hazard(Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: target.ID, Warp: -1,
								Msg: fmt.Sprintf("a bulk copy completes on the mbarrier at %#x, which is not initialized", moff)})
						}
					}
				}
				u.issue(op)
				continue
			}
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, src, size, l)
			if !ok {
				return
			}
			g := w.mem(in, ptx.SpaceGlobal, dst, size, l, true)
			if g == nil {
				return
			}
			w.asyncReadCheck(in, c, off, size, "a bulk store")
			op := &asyncOp{kind: akBulkStore, cta: w.cta, w: w, lane: l, tid: tid, in: in, rd: []region{{c, off, size}},
				desc: fmt.Sprintf("shared %#x → global %#x (%d bytes)", off, dst, size)}
			op.run = func(op *asyncOp) { copy(g, c.Smem[off:off+uint32(size)]) }
			w.cta.bulkGroups(tid).add(op)
			u.issue(op)
		}
	}
	return nil
}

// cp.async (sm_80) --------------------------------------------------------------

type cpAsyncGroups struct {
	open   []*asyncOp
	groups [][]*asyncOp
}

func (c *CTA) cpGroups(tid int) *cpAsyncGroups {
	if c.cpasync[tid] == nil {
		c.cpasync[tid] = &cpAsyncGroups{}
	}
	return c.cpasync[tid]
}

func decCpAsync(d *decoder) error {
	x := d.x
	ops := x.Operands
	for i := 0; i < len(ops); i++ {
		var o Opnd
		var err error
		if _, isAddr := ops[i].(*ptx.Address); isAddr {
			o, err = d.addr(ops[i])
		} else {
			o, err = d.val(ops[i], ptx.U32)
		}
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	hasSrcSize := len(ops) >= 4 && !x.Has("L2::cache_hint") || len(ops) >= 5
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst, src := w.addrOf(&in.src[0], l, 0), w.addrOf(&in.src[1], l, 1)
			size := int(w.src(&in.src[2], 2)[l])
			srcSize := size
			if hasSrcSize {
				srcSize = int(uint32(w.src(&in.src[3], 2)[l]))
			}
			if size != 4 && size != 8 && size != 16 {
				w.fault(in, l, "cp.async: cp-size %d must be 4, 8 or 16", size)
				return
			}
			c, off, ok := w.sharedAddr(in, ptx.SpaceShared, dst, size, l)
			if !ok {
				return
			}
			if off%uint32(size) != 0 || src%uint64(size) != 0 {
				u.m.hazard(Hazard{Kind: HzAsyncAlign, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("cp.async of %d bytes: addresses %#x and %#x must be %d-byte aligned", size, off, src, size)})
			}
			var g []byte
			if srcSize > 0 {
				if g = w.mem(in, ptx.SpaceGlobal, src, min(srcSize, size), l, false); g == nil {
					return
				}
			}
			tid := 32*w.ID + l
			op := &asyncOp{kind: akCpAsync, cta: w.cta, w: w, lane: l, tid: tid, in: in, wr: []region{{c, off, size}},
				desc: fmt.Sprintf("%d bytes → shared %#x", size, off)}
			op.run = func(op *asyncOp) {
				d := c.Smem[off : off+uint32(size)]
				n := copy(d, g)
				for k := n; k < size; k++ {
					d[k] = 0
				}
				if u.race != nil {
					u.race.access(w, in, l, c, off, size, true)
				}
			}
			w.cta.cpGroups(tid).open = append(w.cta.cpGroups(tid).open, op)
			u.issue(op)
		}
	}
	return nil
}

func decCpAsyncCommit(d *decoder) error {
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		forLanes(m, func(l int) {
			g := w.cta.cpGroups(32*w.ID + l)
			g.groups = append(g.groups, g.open)
			g.open = nil
		})
	}
	return nil
}

func decCpAsyncWait(all bool) decodeFn {
	return func(d *decoder) error {
		n := 0
		if !all {
			im, ok := d.x.Operands[0].(*ptx.Imm)
			if !ok {
				return fmt.Errorf("cp.async.wait_group: N must be an immediate")
			}
			n = int(im.Int())
		}
		d.in.fn = func(w *Warp, in *Inst, m uint32) {
			u := w.cta.u
			forLanes(m, func(l int) {
				g := w.cta.cpGroups(32*w.ID + l)
				var done []*asyncOp
				if all {
					for _, gr := range g.groups {
						done = append(done, gr...)
					}
					done = append(done, g.open...)
					g.groups, g.open = nil, nil
				} else {
					for len(g.groups) > n {
						done = append(done, g.groups[0]...)
						g.groups = g.groups[1:]
					}
				}
				for _, op := range done {
					u.completeWhere(func(x *asyncOp) bool { return x == op })
				}
			})
		}
		return nil
	}
}

func decCpAsyncArrive(d *decoder) error {
	a, err := d.memAddr(d.x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	noinc := d.x.Has("noinc")
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			mb, _, off, ok := w.mbarAt(in, l, false)
			if !ok {
				return
			}
			if mb == nil || !mb.live {
				u.m.mbarHazard(w, in, 1<<l, HzMbarUninit, "cp.async.mbarrier.arrive on the mbarrier at %#x before mbarrier.init", off)
				continue
			}
			if !noinc {
				mb.pending++
			}
			tid := 32*w.ID + l
			op := &asyncOp{kind: akCpAsyncArrive, cta: w.cta, w: w, lane: l, tid: tid, in: in, desc: fmt.Sprintf("arrive on mbarrier %#x", off)}
			op.run = func(op *asyncOp) {
				if u.race != nil && op.issueVC != nil {
					u.race.mbarAsyncArrive(mb, op.issueVC)
				}
				mb.asyncArrive(in.PC, 1)
			}
			u.issue(op)
		}
	}
	return nil
}

// st.async: a store to (remote) shared memory that completes tx bytes on
// an mbarrier in the destination CTA.
func decStAsync(d *decoder) error {
	x := d.x
	if !x.Has("mbarrier::complete_tx::bytes") {
		return fmt.Errorf("st.async without .mbarrier::complete_tx::bytes is not supported")
	}
	t := d.in.typ
	a, err := d.addr(x.Operands[0])
	if err != nil {
		return err
	}
	d.in.src = []Opnd{a}
	vals := vecElems(x.Operands[1])
	for _, e := range vals {
		o, err := d.val(e, t)
		if err != nil {
			return err
		}
		d.in.src = append(d.in.src, o)
	}
	mb, err := d.addr(x.Operands[2])
	if err != nil {
		return err
	}
	d.in.src = append(d.in.src, mb)
	es := elemBytes(t)
	n := len(vals)
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			dst := w.addrOf(&in.src[0], l, 0)
			c, off, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, dst, es*n, l)
			if !ok {
				return
			}
			for k := 0; k < n; k++ {
				putLE(c.Smem[off+uint32(k*es):off+uint32((k+1)*es)], w.src(&in.src[1+k], 1)[l])
			}
			mbAddr := w.addrOf(&in.src[1+n], l, 2)
			mc, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCluster, mbAddr, 8, l)
			if !ok {
				return
			}
			if mb := mc.mbars[moff]; mb != nil && mb.live {
				if u.race != nil {
					u.race.mbarArrive(w, mb)
				}
				mb.completeTx(in, int64(es*n))
			} else {
				u.m.mbarHazard(w, in, 1<<l, HzMbarUninit, "st.async completes on the mbarrier at %#x, which is not initialized", moff)
			}
		}
	}
	return nil
}
