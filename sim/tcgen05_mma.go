package sim

import (
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/sim/datapath"
)

// tcgen05.mma (PTX ISA 9.7.16.10), not hardware-verified:
//
//	tcgen05.mma.cta_group.kind [d], a-desc|[a-tmem], b-desc, idesc, {disable-output-lane}, enable-input-d{, scale-input-d};
//	tcgen05.mma.cta_group.kind.block_scale{.scale_vec} [d], a-desc|[a-tmem], b-desc, idesc, [scale-A], [scale-B], enable-input-d;
//	tcgen05.mma.ws.cta_group::1.kind{.collector::bN::usage} [d], a, b, idesc, enable-input-d{, zero-column-mask};
//
// With .cta_group::2 one thread of a CTA pair (two CTAs of a cluster whose
// ranks differ in bit 0) issues an MMA of M = 256 rows that uses both CTAs:
// the same shared-memory descriptor addresses name rows 0-127 of A in the
// pair's even CTA and rows 128-255 in its odd CTA, and columns 0..N/2-1 of
// B in the even CTA and N/2..N-1 in the odd one; rows 0-127 of D go to the
// even CTA's TMEM and rows 128-255 to the odd CTA's, at the same TMEM
// address (lanes 0-127). Scale factors of A are read from the TMEM of the
// CTA that holds the row; those of B from the issuing pair's even CTA.
//
// Block-scaled kinds read their scale factors from TMEM in the layout that
// tcgen05.cp .32x128b.warpx4 writes from CUTLASS's 128×4 chunks: the scale
// factor of row r (of A; column r of B) for the instruction's k-block j is
// byte (ID + j) of the 32-bit cell at lane r%128, column
// base + 4·(r/128) + (r%128)/32, ID being the descriptor's scale-factor
// ID (the byte the first k-block uses). One cell holds the scale factors of
// four consecutive k-blocks: .scale_vec::1X uses one byte per MMA (ID
// selects it), 2X two, 4X all four.

type tcMmaInfo struct {
	key        datapath.Key // the family, CTA group, kind and block scaling; the descriptor gives the rest
	kind       desc.Kind
	kindName   string
	group      string
	pair       bool
	ws         bool
	blockScale bool
	vec        string // the scale-vector modifier as written (for the datapath name)
	collector  string // "", "fill", "use", "lastuse", "discard"
	aTmem      bool
	d, a, b    Opnd
	idesc      Opnd
	enable     Opnd
	sfa, sfb   Opnd
	disable    []Opnd // disable-output-lane words
	scaleD     int
}

func decTcMma(d *decoder) error {
	d.c.p.hasTcgen05 = true
	x := d.x
	mi := &tcMmaInfo{group: x.ModPrefix("cta_group::"), ws: x.Opcode == "tcgen05.mma.ws"}
	if mi.group == "" {
		mi.group = "cta_group::1"
	}
	mi.pair = mi.group == "cta_group::2"
	kn := x.ModPrefix("kind::")
	switch kn {
	case "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8":
	case "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4":
		if !x.Has("block_scale") {
			return fmt.Errorf("tcgen05.mma .%s needs .block_scale", kn)
		}
		mi.blockScale = true
	default:
		return fmt.Errorf("tcgen05.mma: unknown .%s", kn)
	}
	if mi.ws && mi.pair {
		return fmt.Errorf("tcgen05.mma.ws takes .cta_group::1 only")
	}
	for _, v := range []string{"scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32"} {
		if x.Has(v) {
			mi.vec = v
		}
	}
	if c := x.ModPrefix("collector::"); c != "" {
		switch {
		case x.Has("collector::a::fill"):
			mi.collector = "fill"
		case x.Has("collector::a::use"):
			mi.collector = "use"
		case x.Has("collector::a::lastuse"):
			mi.collector = "lastuse"
		case x.Has("collector::a::discard"):
			mi.collector = "discard"
		}
		if mi.ws && mi.collector == "" {
			// .ws collector buffers b0..b3 are hints with the same meaning;
			// tcsim runs them as plain reads.
			for _, u := range []string{"fill", "use", "lastuse", "discard"} {
				for b := 0; b < 4; b++ {
					if x.Has(fmt.Sprintf("collector::b%d::%s", b, u)) {
						mi.collector = u
					}
				}
			}
		}
	}
	if x.Has("ashift") {
		return refTcMmaAshift.errorf("tcgen05.mma .ashift")
	}
	mi.kindName = kn
	k, err := desc.ParseKind(kn[len("kind::"):])
	if err != nil {
		return err
	}
	mi.kind = k
	mi.key = datapath.Key{Family: datapath.FamilyTcgen05, Kind: k, CTAGroup: 1, BlockScale: mi.blockScale,
		ScaleVec: map[string]datapath.ScaleVec{"scale_vec::1X": datapath.ScaleVec1X, "scale_vec::2X": datapath.ScaleVec2X,
			"scale_vec::4X": datapath.ScaleVec4X, "block16": datapath.Block16, "block32": datapath.Block32}[mi.vec]}
	if mi.pair {
		mi.key.CTAGroup = 2
	}
	ops := x.Operands
	if len(ops) < 5 {
		return fmt.Errorf("tcgen05.mma: want [d], a, b, idesc, ..., enable-input-d")
	}
	if mi.d, err = d.memAddr(ops[0]); err != nil {
		return err
	}
	if a, ok := ops[1].(*ptx.Address); ok {
		mi.aTmem = true
		if mi.a, err = d.addr(a); err != nil {
			return err
		}
	} else if mi.a, err = d.val(ops[1], ptx.B64); err != nil {
		return err
	}
	if mi.b, err = d.val(ops[2], ptx.B64); err != nil {
		return err
	}
	if mi.idesc, err = d.val(ops[3], ptx.B32); err != nil {
		return err
	}
	rest := ops[4:]
	if mi.blockScale {
		if len(rest) < 3 {
			return fmt.Errorf("tcgen05.mma .block_scale: want [scale-A-tmem], [scale-B-tmem], enable-input-d after idesc")
		}
		if mi.sfa, err = d.memAddr(rest[0]); err != nil {
			return err
		}
		if mi.sfb, err = d.memAddr(rest[1]); err != nil {
			return err
		}
		rest = rest[2:]
	}
	if len(rest) > 0 {
		if v, ok := rest[0].(*ptx.Vector); ok {
			want := 4
			if mi.pair {
				want = 8
			}
			if len(v.Elems) != want {
				return fmt.Errorf("tcgen05.mma .%s: disable-output-lane has %d elements, want %d", mi.group, len(v.Elems), want)
			}
			for _, e := range v.Elems {
				o, err := d.val(e, ptx.B32)
				if err != nil {
					return err
				}
				mi.disable = append(mi.disable, o)
			}
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return fmt.Errorf("tcgen05.mma: missing enable-input-d")
	}
	if mi.enable, err = d.val(rest[0], ptx.Pred); err != nil {
		return err
	}
	if len(rest) > 1 && mi.ws {
		return refTcMmaWsZeroCol.errorf("tcgen05.mma.ws with a zero-column mask descriptor")
	}
	if len(rest) > 1 && !mi.ws {
		im, ok := rest[1].(*ptx.Imm)
		if !ok {
			return fmt.Errorf("tcgen05.mma: scale-input-d must be an immediate")
		}
		mi.scaleD = int(im.Int())
	}
	d.in.src = []Opnd{mi.d, mi.a, mi.b, mi.idesc, mi.enable}
	if mi.blockScale {
		d.in.src = append(d.in.src, mi.sfa, mi.sfb)
	}
	d.in.src = append(d.in.src, mi.disable...)
	d.in.ext = mi
	d.in.fn = execTcMma
	return nil
}

// matMuler is a datapath with a whole-matrix fast path.
type matMuler interface {
	MatMul(M, N, K int, a, b, c []uint64) []uint64
}

// tcMmaCTA is one CTA's share of an MMA: its rows of A and D, its columns
// of B.
type tcMmaCTA struct {
	c          *CTA
	row0, rows int // rows of A and D
	col0, cols int // columns of B
	aTab, bTab *smemTable
	// folded: the ISA's Layouts B and E (cta_group::2 M=128, .ws M=64):
	// row r's columns n < N/2 at lane r, the others at lane 64+r, column
	// n mod N/2.
	folded bool
}

// operandBits is the container width of an A or B element in shared
// memory or TMEM: FP4 and FP6 sit unpacked in bytes in kind::f8f6f4 and
// kind::mxf8f6f4, packed two to a byte in kind::mxf4 and mxf4nvf4.
func operandBits(k desc.Kind, bits int) int {
	if bits < 8 && k != desc.KindMXF4 && k != desc.KindMXF4NVF4 {
		return 8
	}
	return bits
}

// tcMma is one issued tcgen05.mma: the operands one thread gave it, the
// CTAs taking part and what the checks recorded, until it completes.
type tcMma struct {
	mi      *tcMmaInfo
	w       *Warp
	in      *Inst
	l       int // the issuing lane
	dp      datapath.Inst
	id      desc.IDesc
	idv     uint32
	M, N, K int
	ab, bb  int // container bits of A and B
	dLane   int
	dCol    int
	aVal    uint64 // the A descriptor, or A's TMEM address
	bDesc   uint64
	enable  bool
	parts   []*tcMmaCTA
	// disable-output-lane: a set bit keeps that TMEM lane's D (per CTA of
	// the pair, per 32-lane word)
	disabled         [2][4]uint32
	sfaAddr, sfbAddr uint64
	readCells        []tmemCell // TMEM the MMA reads (scale factors, A)
	raceReported     bool
	stReported       bool // tcgen05/st-before-wait reported for this MMA
	rd               []region
	op               *tmemOp // its TMEM accesses for the happens-before checks (nil without --check)
}

// tmemCell is one cell of a CTA's TMEM.
type tmemCell struct {
	t   *tmemState
	idx int
}

func execTcMma(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*tcMmaInfo)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.tcIssue(in, 1<<l, true)
		x := mi.start(w, in, l)
		if x == nil || !x.shares() || !x.checkAccumulator() || !x.operandTables() {
			return
		}
		x.op = w.newTmemOp(in, l, "tcgen05.mma")
		x.readDisabled()
		x.noteScaleReads()
		x.noteATmemReads()
		x.checkAccReaders()
		x.markWrites()
		x.w.cta.u.issue(x.asyncOp())
	}
}

// start reads lane l's operands, checks the instruction descriptor and
// finds the datapath (nil when the MMA cannot run: a fault).
func (mi *tcMmaInfo) start(w *Warp, in *Inst, l int) *tcMma {
	c := w.cta
	mach := c.u.m
	x := &tcMma{mi: mi, w: w, in: in, l: l}
	dAddr := w.src(&mi.d, 0)[l] + uint64(mi.d.Off)
	x.aVal = w.src(&mi.a, 1)[l] + uint64(mi.a.Off)
	x.bDesc = w.src(&mi.b, 2)[l]
	x.idv = uint32(w.src(&mi.idesc, 0)[l])
	x.enable = w.predVal(&mi.enable)>>l&1 == 1
	x.id = desc.DecodeIDesc(x.idv, mi.kind)
	ctaGroup := 1
	if mi.pair {
		ctaGroup = 2
	}
	ws := desc.No
	if mi.ws {
		ws = desc.Yes
	}
	for _, f := range x.id.Check(desc.IDescContext{CTAGroup: ctaGroup, WS: ws}) {
		if f.Severity == desc.Error {
			mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
				Msg: fmt.Sprintf("tcgen05.mma instruction descriptor %#x: %s", x.idv, f.Msg)})
		}
	}
	dp, err := datapath.Lookup(mi.key, datapath.TCOptions{IDesc: x.idv, HasIDesc: true, ScaleInputD: mi.scaleD})
	if err == nil && dp.Eval == nil && dp.Block == nil {
		err = fmt.Errorf("no datapath for this kind")
	}
	if err != nil {
		w.fault(in, l, "tcgen05.mma: %v (instruction descriptor %#x)", err, x.idv)
		return nil
	}
	x.dp = dp
	x.M, x.N, x.K = dp.M, dp.N, dp.K
	x.dLane, x.dCol = tmemAddr(dAddr)
	x.ab = operandBits(mi.kind, dp.A.Container)
	x.bb = operandBits(mi.kind, dp.B.Container)
	if mi.blockScale {
		x.sfaAddr = w.src(&mi.sfa, 0)[l] + uint64(mi.sfa.Off)
		x.sfbAddr = w.src(&mi.sfb, 0)[l] + uint64(mi.sfb.Off)
	}
	return x
}

// hazard reports h at the MMA's issue (instruction, CTA, warp, lane).
func (x *tcMma) hazard(h Hazard) {
	h.PC, h.CTA, h.Warp, h.Lanes = x.in.PC, x.w.cta.ID, x.w.ID, 1<<x.l
	x.w.cta.u.m.hazard(h)
}

// shares finds the CTAs taking part and their shares: one CTA, or the
// two CTAs of a pair (rows 0..M/2-1 and the first half of B's columns in
// the even CTA).
func (x *tcMma) shares() bool {
	mi, w, c := x.mi, x.w, x.w.cta
	M, N := x.M, x.N
	switch {
	case mi.ws && M == 64:
		x.parts = []*tcMmaCTA{{c: c, rows: 64, cols: N, folded: true}}
	case mi.ws && M != 128:
		w.fault(x.in, x.l, "%s", refTcMmaWsM32.msg("tcgen05.mma.ws with M=%d (M=64 and M=128 run; tcsim does not know the TMEM layout of the .ws M=32 shape)", M))
		return false
	case !mi.pair && (M == 128 || M == 64):
		x.parts = []*tcMmaCTA{{c: c, rows: M, cols: N}}
	case mi.pair && (M == 256 || M == 128):
		peer := c.peer()
		if peer == nil {
			x.hazard(Hazard{Kind: HzCtaGroup, Severity: SevError,
				Msg: "tcgen05.mma.cta_group::2 in a CTA without a peer: the CTA pair is two CTAs of one cluster whose ranks differ in bit 0"})
			w.fault(x.in, x.l, "tcgen05.mma.cta_group::2: CTA %s has no peer CTA", fmtID(c.ID))
			return false
		}
		even, odd := c, peer
		if c.Rank&1 == 1 {
			even, odd = peer, c
		}
		h := M / 2
		x.parts = []*tcMmaCTA{{c: even, row0: 0, rows: h, col0: 0, cols: N / 2, folded: M == 128},
			{c: odd, row0: h, rows: h, col0: N / 2, cols: N / 2, folded: M == 128}}
	default:
		w.fault(x.in, x.l, "%s", refTcMmaShape.msg("tcgen05.mma .%s with M=%d (cta_group::1 M=64 and M=128, cta_group::2 M=128 and M=256 run)", mi.group, M))
		return false
	}
	return true
}

// checkAccumulator checks that D is allocated TMEM in every CTA of the
// MMA (false: it is outside TMEM, a fault).
func (x *tcMma) checkAccumulator() bool {
	for _, p := range x.parts {
		t := p.c.tmemState()
		width := x.N
		if p.folded {
			width = x.N / 2
		}
		if !t.allocated(x.dCol, width) || x.dLane != 0 {
			h := Hazard{Kind: HzTmemAlloc, Severity: SevError, CTA: p.c.ID,
				Msg: fmt.Sprintf("tcgen05.mma writes TMEM columns [%d, %d) at lane %d of CTA %s, which are not allocated (or the lane field is not 0)", x.dCol, x.dCol+width, x.dLane, fmtID(p.c.ID))}
			x.w.cta.u.m.freedCause(t, x.dCol, width, &h)
			x.hazard(h)
			if x.dCol+width > tmemCols || x.dLane != 0 {
				x.w.fault(x.in, x.l, "tcgen05.mma: the accumulator [lane %d, columns %d..%d) is outside TMEM", x.dLane, x.dCol, x.dCol+width)
				return false
			}
		}
	}
	if x.mi.aTmem && x.parts[0].folded {
		x.w.fault(x.in, x.l, "%s", refTcMmaATmemFolded.msg("tcgen05.mma with A in TMEM and M=%d (.%s)", x.M, x.mi.group))
		return false
	}
	return true
}

// operandTables resolves the shared-memory descriptors of A and B into
// the byte addresses of every element, per CTA, and checks the chunks they
// read against copies in flight.
func (x *tcMma) operandTables() bool {
	mach := x.w.cta.u.m
	c, w, in, l := x.w.cta, x.w, x.in, x.l
	for _, p := range x.parts {
		if !x.mi.aTmem {
			p.aTab = smemOperand(x.aVal, p.rows, x.K, x.ab, x.id.TransposeA, true)
			if p.aTab.err != nil {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma A descriptor %#x: %v", x.aVal, p.aTab.err)})
				return false
			}
		}
		p.bTab = smemOperand(x.bDesc, p.cols, x.K, x.bb, x.id.TransposeB, true)
		if p.bTab.err != nil {
			mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma B descriptor %#x: %v", x.bDesc, p.bTab.err)})
			return false
		}
		for _, tab := range []*smemTable{p.aTab, p.bTab} {
			if tab == nil {
				continue
			}
			for _, ch := range tab.chunks {
				if int(ch)+16 > len(p.c.Smem) {
					w.fault(in, l, "tcgen05.mma: a descriptor reads shared bytes [%#x, %#x), beyond the CTA's %d bytes", ch, ch+16, len(p.c.Smem))
					return false
				}
				w.asyncReadCheck(in, p.c, ch, 16, "tcgen05.mma")
				x.rd = append(x.rd, region{p.c, ch, 16})
			}
		}
	}
	return true
}

// lane is the TMEM lane of row row of a CTA's share (M=64: the lanes 0-15
// of each warp's quarter).
func (x *tcMma) lane(p *tcMmaCTA, row int) int {
	if p.rows == 64 && !p.folded {
		return 32*(row/16) + row%16
	}
	return row
}

// cellOf is the TMEM cell of D element (row r of p's share, column n).
func (x *tcMma) cellOf(p *tcMmaCTA, r, n int) int {
	if p.folded {
		h := x.N / 2
		return (r+64*(n/h))*tmemCols + x.dCol + n%h
	}
	return x.lane(p, r)*tmemCols + x.dCol + n
}

// readDisabled reads the disable-output-lane words.
func (x *tcMma) readDisabled() {
	for i := range x.mi.disable {
		x.disabled[i/4][i%4] = uint32(x.w.src(&x.mi.disable[i], 0)[x.l])
	}
}

// isDisabled reports whether disable-output-lane keeps TMEM lane lane of
// the pi'th CTA of the MMA (the lane of the cell, so that the folded
// layouts, whose rows span two lanes, are disabled by lane too).
func (x *tcMma) isDisabled(pi, lane int) bool {
	return len(x.mi.disable) > 0 && x.disabled[pi][lane/32]>>(lane%32)&1 == 1
}

// key is the issuing thread (CTA linear·1024 + tid).
func (x *tcMma) key() int32 { return int32(x.w.cta.Linear*1024 + 32*x.w.ID + x.l) }

// noteRead records a TMEM cell the MMA reads (scale factors, A) and
// checks that another thread's write of it is ordered before the issue.
func (x *tcMma) noteRead(t *tmemState, idx int) {
	u := x.w.cta.u
	if u.race != nil {
		t.stCheck(x.w, x.in, idx, &x.stReported)
	}
	if u.race != nil && !x.raceReported {
		if o := t.asyncW[idx]; o != nil {
			// written by an asynchronous copy (or MMA): complete for
			// this thread?
			if !o.doneFor(x.w, x.key()) {
				x.raceReported = true
				x.hazard(Hazard{Kind: HzTmemRace, Severity: SevError,
					Msg: fmt.Sprintf("tcgen05.mma reads TMEM (lane %d, column %d: its scale factors or A operand) that a %s of warp %d of CTA %s writes, and no completion of that %s is ordered before this MMA was issued",
						idx/tmemCols, idx%tmemCols, o.what, o.warp, fmtID(o.cta.ID), o.what),
					Detail:  "another thread's copy into the MMA's TMEM operands must be complete and synchronized (its tcgen05.commit's mbarrier phase) before the MMA is issued",
					Related: u.m.Prog.pos(&u.m.Prog.Insts[o.pc])})
			}
		} else if e := t.writtenBy[idx]; e.slot >= 0 && !u.race.ordered(e, x.w.uid) && u.race.ordered(t.prevWrittenBy[idx], x.w.uid) && t.prevWrittenBy[idx].slot >= 0 {
			// the MMA was ordered after the previous store of the cell: the
			// new store overwrote its operand before the MMA was issued,
			// not ordered after the MMA's completion
			x.raceReported = true
			sw := u.warps[e.slot]
			u.m.hazard(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: int(e.pc), CTA: sw.cta.ID, Warp: sw.ID,
				Msg: fmt.Sprintf("tcgen05.st overwrites TMEM (lane %d, column %d) that a tcgen05.mma of warp %d reads (its scale factors or A operand), before that MMA was even issued: nothing orders the store after the MMA's completion",
					idx/tmemCols, idx%tmemCols, x.w.ID),
				Detail:  "wait for the phase of the mbarrier that the MMA's tcgen05.commit arrives on before overwriting its TMEM operands",
				Related: u.m.Prog.pos(x.in)})
		} else if e := t.writtenBy[idx]; e.slot >= 0 && !u.race.ordered(e, x.w.uid) {
			x.raceReported = true
			x.hazard(Hazard{Kind: HzTmemRace, Severity: SevError,
				Msg: fmt.Sprintf("tcgen05.mma reads TMEM (lane %d, column %d: its scale factors or A operand) that %s wrote with tcgen05.cp/st, and that write is not ordered before this MMA was issued",
					idx/tmemCols, idx%tmemCols, u.race.slotName(e.slot)),
				Detail:  "another thread's copy into the MMA's TMEM operands must be complete and synchronized (its tcgen05.commit's mbarrier phase, or wait::st and a barrier) before the MMA is issued",
				Related: u.m.Prog.pos(&u.m.Prog.Insts[e.pc])})
		}
	}
	t.pendingR[idx]++
	t.pendingRBy[idx] = x.key()
	if t.asyncR != nil {
		t.asyncR[idx] = x.op
	}
	x.readCells = append(x.readCells, tmemCell{t, idx})
}

// noteScaleReads checks the scale-factor IDs and addresses of a
// block-scaled MMA and records the cells it reads.
func (x *tcMma) noteScaleReads() {
	if !x.mi.blockScale {
		return
	}
	id := x.id
	nsf := x.dp.ScalesPerRow()
	switch {
	case nsf == 4 && id.ScaleAID|id.ScaleBID != 0:
		x.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError,
			Msg: fmt.Sprintf("block-scaled tcgen05.mma with 4 scale factors per row (.scale_vec::4X) and scale-factor IDs A=%d B=%d: the four bytes fill the 32-bit TMEM cell, so both IDs must be 0", id.ScaleAID, id.ScaleBID)})
	case nsf == 2 && (id.ScaleAID|id.ScaleBID)&1 != 0:
		x.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError,
			Msg: fmt.Sprintf("block-scaled tcgen05.mma with 2 scale factors per row (.scale_vec::2X) and scale-factor IDs A=%d B=%d: a pair of bytes starts at byte 0 or 2, so the IDs must be 0 or 2", id.ScaleAID, id.ScaleBID)})
	}
	for _, sf := range []struct {
		what string
		addr uint64
		ps   []*tcMmaCTA
	}{{"A", x.sfaAddr, x.parts}, {"B", x.sfbAddr, x.parts[:1]}} {
		lane0, col0 := tmemAddr(sf.addr)
		lane0 &= tmemLanes - 1
		if lane0 != 0 {
			x.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError,
				Msg: fmt.Sprintf("the scale-factor %s TMEM address %#x names lane %d: scale factors start at lane 0 (row r of the matrix is lane r %% 128)", sf.what, uint32(sf.addr), lane0)})
		}
		for _, p := range sf.ps {
			t := p.c.tmemState()
			rows := p.rows
			if sf.what == "B" {
				rows = x.N
			}
			ncol := 4*((rows+127)/128) + (nsf-1)/4
			if !t.allocated(col0, min(ncol, tmemCols-col0)) {
				h := Hazard{Kind: HzTmemAlloc, Severity: SevError, CTA: p.c.ID,
					Msg: fmt.Sprintf("tcgen05.mma reads scale factors %s from TMEM columns [%d, %d), which are not allocated", sf.what, col0, col0+ncol)}
				x.w.cta.u.m.freedCause(t, col0, ncol, &h)
				x.hazard(h)
			}
			for r := 0; r < rows; r++ {
				for j := 0; j < nsf; j++ {
					ln, cl := r%128, col0+4*(r/128)+(r%128)/32+j/4
					if cl < tmemCols {
						x.noteRead(t, ln*tmemCols+cl)
					}
				}
			}
		}
	}
}

// noteATmemReads records the cells of an A operand in TMEM.
func (x *tcMma) noteATmemReads() {
	if !x.mi.aTmem {
		return
	}
	aLane, aCol := tmemAddr(x.aVal)
	per := 32 / x.ab
	for _, p := range x.parts {
		t := p.c.tmemState()
		for r := 0; r < p.rows; r++ {
			for k := 0; k < x.K; k += per {
				if idx := (aLane+x.lane(p, r))*tmemCols + aCol + k/per; idx < len(t.cells) {
					x.noteRead(t, idx)
				}
			}
		}
	}
}

// checkAccReaders: TMEM the MMA overwrites must not be read by a
// tcgen05.ld that is not ordered before this issue (an epilogue still
// reading the previous tile's accumulator: a release that does not cover
// every reading warp of the pair).
func (x *tcMma) checkAccReaders() {
	u := x.w.cta.u
	if u.race == nil {
		return
	}
	for _, p := range x.parts {
		t := p.c.tmemState()
		for r := 0; r < p.rows; r++ {
			for n := 0; n < x.N; n++ {
				idx := x.cellOf(p, r, n)
				e := t.readBy[idx]
				if e.slot >= 0 && !u.race.ordered(e, x.w.uid) {
					if t.readEarly[idx] {
						// the load read the cell before anything wrote it, or
						// without waiting for its writer: it is early, not
						// this MMA late
						rw := u.warps[e.slot]
						if t := rw.earlyWait(int(e.pc), "tcgen05.ld", "tcgen05.mma", x.in.PC); t != nil {
							u.race.reportRoot(t)
							return
						}
						u.race.inflightRoot(Hazard{Kind: HzTcgenInFlight, Severity: SevError, PC: int(e.pc), CTA: rw.cta.ID, Warp: rw.ID,
							Msg: fmt.Sprintf("tcgen05.ld reads TMEM of CTA %s (lane %d, column %d) before the tcgen05.mma that writes it: nothing orders the load after that MMA's completion",
								fmtID(p.c.ID), idx/tmemCols, idx%tmemCols),
							Detail:  "wait for the phase of the mbarrier that the issuing thread's tcgen05.commit arrives on (mbarrier.try_wait.parity) before reading the accumulator",
							Related: u.m.Prog.pos(x.in)}, e.slot, e.clock)
						return
					}
					x.hazard(Hazard{Kind: HzTmemRace, Severity: SevError,
						Msg: fmt.Sprintf("tcgen05.mma overwrites TMEM of CTA %s (lane %d, column %d) that %s read with tcgen05.ld, and that read is not ordered before this MMA was issued",
							fmtID(p.c.ID), idx/tmemCols, idx%tmemCols, u.race.slotName(e.slot)),
						Detail:  "the accumulator is reused before every warp that reads it has released it: the MMA's wait must cover an arrival from each reading warp (of both CTAs of a pair: count them in the mbarrier's expected arrivals)",
						Related: u.m.Prog.pos(&u.m.Prog.Insts[e.pc])})
					return
				}
			}
		}
	}
}

// markWrites marks D's cells in flight and reports an accumulation into
// cells nothing wrote.
func (x *tcMma) markWrites() {
	uninit := 0
	for pi, p := range x.parts {
		t := p.c.tmemState()
		for r := 0; r < p.rows; r++ {
			for n := 0; n < x.N; n++ {
				idx := x.cellOf(p, r, n)
				if x.isDisabled(pi, idx/tmemCols) {
					continue // the lane keeps its D: the MMA does not write it
				}
				if cs := t.writeCheck(x.w, x.key(), idx, "tcgen05.mma"); len(cs) > 0 && !x.raceReported {
					x.raceReported = true
					cs[0].h.Kind = HzTmemRace
					x.hazard(*cs[0].h)
				}
				t.setAsyncWrite(idx, x.op)
				t.pendingW[idx]++
				if x.enable && !t.written[idx] {
					uninit++
				}
				t.written[idx] = true
			}
		}
	}
	if uninit > 0 {
		x.hazard(Hazard{Kind: HzTmemUninit,
			Msg:    fmt.Sprintf("tcgen05.mma accumulates (enable-input-d true) into %d TMEM cells at column %d that nothing wrote since tcgen05.alloc: the product is added to garbage", uninit, x.dCol),
			Detail: "freshly allocated Tensor Memory is not zeroed: run the first MMA of the tile with enable-input-d false, or write the accumulator (tcgen05.st, tcgen05.cp) first"})
	}
}

// asyncOp makes the operation the unit completes by schedule, with the
// happens-before records of its shared-memory reads.
func (x *tcMma) asyncOp() *asyncOp {
	c, w, u := x.w.cta, x.w, x.w.cta.u
	op := &asyncOp{kind: akTcgenMMA, cta: c, w: w, lane: x.l, tid: 32*w.ID + x.l, in: x.in, rd: x.rd}
	if u.race != nil {
		op.issueVC = u.race.issueVC(w)
		for _, p := range x.parts {
			var chunks []uint32
			for _, tab := range []*smemTable{p.aTab, p.bTab} {
				if tab != nil {
					chunks = append(chunks, tab.chunks...)
				}
			}
			hb := u.race.asyncReadRegions(op.issueVC, x.in, p.c, w.ID, 1<<x.l, chunks, 0, 0, "tcgen05.mma", w)
			if p.c == c {
				op.hbRead = hb
			}
			// released by the issuing thread's tcgen05.commit
			u.race.tcRead(c, op.tid, hb)
		}
	}
	op.desc = fmt.Sprintf("M=%d N=%d K=%d %s×%s→%s into TMEM column %d", x.M, x.N, x.K, x.dp.A.Name, x.dp.B.Name, x.dp.C.Name, x.dCol)
	if x.mi.pair {
		op.desc += " of the CTA pair"
	}
	op.run = x.complete
	return op
}

// tmemScale reads the scale factor of row r (of A, or column r of B) for
// byte index j (the descriptor's scale-factor ID plus the k-block) from
// TMEM at addr, in the layout of tcgen05.cp .32x128b.warpx4 (see above).
//
// CUTLASS also puts the scale-factor ID into bits 30-31 of the
// scale-factor TMEM address (lane field bits 14-15); the simulator takes
// the ID from the instruction descriptor and reads the lane from bits
// 16-22 only.
func tmemScale(t *tmemState, addr uint64, r, j int) uint64 {
	lane, col := tmemAddr(addr)
	lane &= tmemLanes - 1
	col += 4*(r/128) + (r%128)/32 + j/4
	lane += r % 128
	if lane >= tmemLanes || col >= tmemCols {
		return 0
	}
	return uint64(t.cells[lane*tmemCols+col]>>(8*uint(j%4))) & 0xFF
}
