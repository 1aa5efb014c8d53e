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
		return fmt.Errorf("tcgen05.mma .%s is not supported by the simulator", kn)
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
		return fmt.Errorf("tcgen05.mma .ashift is not supported by the simulator")
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
		return fmt.Errorf("tcgen05.mma.ws with a zero-column mask descriptor is not supported by the simulator")
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

func execTcMma(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*tcMmaInfo)
	c := w.cta
	u := c.u
	mach := u.m
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		w.tcIssue(in, 1<<l, true)
		dAddr := w.src(&mi.d, 0)[l] + uint64(mi.d.Off)
		aVal := w.src(&mi.a, 1)[l] + uint64(mi.a.Off)
		bDesc := w.src(&mi.b, 2)[l]
		idv := uint32(w.src(&mi.idesc, 0)[l])
		enable := w.predVal(&mi.enable)>>l&1 == 1
		id := desc.DecodeIDesc(idv, mi.kind)
		ctaGroup := 1
		if mi.pair {
			ctaGroup = 2
		}
		ws := desc.No
		if mi.ws {
			ws = desc.Yes
		}
		for _, f := range id.Check(desc.IDescContext{CTAGroup: ctaGroup, WS: ws}) {
			if f.Severity == desc.Error {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("tcgen05.mma instruction descriptor %#x: %s", idv, f.Msg)})
			}
		}
		dp, err := datapath.Lookup(mi.key, datapath.TCOptions{IDesc: idv, HasIDesc: true, ScaleInputD: mi.scaleD})
		if err == nil && dp.Eval == nil && dp.Block == nil {
			err = fmt.Errorf("no datapath for this kind")
		}
		if err != nil {
			w.fault(in, l, "tcgen05.mma: %v (instruction descriptor %#x)", err, idv)
			return
		}
		M, N, K := dp.M, dp.N, dp.K
		// The CTAs taking part and their shares.
		var parts []*tcMmaCTA
		switch {
		case mi.ws && M == 64:
			parts = []*tcMmaCTA{{c: c, rows: 64, cols: N, folded: true}}
		case mi.ws && M != 128:
			w.fault(in, l, "tcgen05.mma.ws with M=%d is not supported by the simulator (M=64 and M=128 are; the TMEM layout of the .ws M=32 shape is not modelled)", M)
			return
		case !mi.pair && (M == 128 || M == 64):
			parts = []*tcMmaCTA{{c: c, rows: M, cols: N}}
		case mi.pair && (M == 256 || M == 128):
			peer := c.peer()
			if peer == nil {
				mach.hazard(Hazard{Kind: HzCtaGroup, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: "tcgen05.mma.cta_group::2 in a CTA without a peer: the CTA pair is two CTAs of one cluster whose ranks differ in bit 0"})
				w.fault(in, l, "tcgen05.mma.cta_group::2: CTA %s has no peer CTA", fmtID(c.ID))
				return
			}
			even, odd := c, peer
			if c.Rank&1 == 1 {
				even, odd = peer, c
			}
			h := M / 2
			parts = []*tcMmaCTA{{c: even, row0: 0, rows: h, col0: 0, cols: N / 2, folded: M == 128},
				{c: odd, row0: h, rows: h, col0: N / 2, cols: N / 2, folded: M == 128}}
		default:
			w.fault(in, l, "tcgen05.mma .%s with M=%d is not supported by the simulator (cta_group::1 M=64 and M=128, cta_group::2 M=128 and M=256 are)", mi.group, M)
			return
		}
		dLane, dCol := tmemAddr(dAddr)
		for _, p := range parts {
			t := p.c.tmemState()
			width := N
			if p.folded {
				width = N / 2
			}
			if !t.allocated(dCol, width) || dLane != 0 {
				mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: p.c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("tcgen05.mma writes TMEM columns [%d, %d) at lane %d of CTA %s, which are not allocated (or the lane field is not 0)", dCol, dCol+width, dLane, fmtID(p.c.ID))})
				if dCol+width > tmemCols || dLane != 0 {
					w.fault(in, l, "tcgen05.mma: the accumulator [lane %d, columns %d..%d) is outside TMEM", dLane, dCol, dCol+width)
					return
				}
			}
		}
		if mi.aTmem && parts[0].folded {
			w.fault(in, l, "tcgen05.mma with A in TMEM and M=%d (.%s) is not supported by the simulator", M, mi.group)
			return
		}
		ab := operandBits(mi.kind, dp.A.Container)
		bb := operandBits(mi.kind, dp.B.Container)
		var rd []region
		for _, p := range parts {
			if !mi.aTmem {
				p.aTab = smemOperand(aVal, p.rows, K, ab, id.TransposeA, true)
				if p.aTab.err != nil {
					mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma A descriptor %#x: %v", aVal, p.aTab.err)})
					return
				}
			}
			p.bTab = smemOperand(bDesc, p.cols, K, bb, id.TransposeB, true)
			if p.bTab.err != nil {
				mach.hazard(Hazard{Kind: HzWgmmaDesc, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Msg: fmt.Sprintf("tcgen05.mma B descriptor %#x: %v", bDesc, p.bTab.err)})
				return
			}
			for _, tab := range []*smemTable{p.aTab, p.bTab} {
				if tab == nil {
					continue
				}
				for _, ch := range tab.chunks {
					if int(ch)+16 > len(p.c.Smem) {
						w.fault(in, l, "tcgen05.mma: a descriptor reads shared bytes [%#x, %#x), beyond the CTA's %d bytes", ch, ch+16, len(p.c.Smem))
						return
					}
					w.asyncReadCheck(in, p.c, ch, 16, "tcgen05.mma")
					rd = append(rd, region{p.c, ch, 16})
				}
			}
		}
		// The TMEM lane of each row of a CTA's share (M=64: the lanes
		// 0-15 of each warp's quarter).
		lanes := func(p *tcMmaCTA, row int) int {
			if p.rows == 64 && !p.folded {
				return 32*(row/16) + row%16
			}
			return row
		}
		// cellOf is the TMEM cell of D element (row r of p's share, column n).
		cellOf := func(p *tcMmaCTA, r, n int) int {
			if p.folded {
				return (r+64*(n/(N/2)))*tmemCols + dCol + n%(N/2)
			}
			return lanes(p, r)*tmemCols + dCol + n
		}
		// disable-output-lane: a set bit keeps that TMEM lane's D.
		var disabled [2][4]uint32
		for i := range mi.disable {
			disabled[i/4][i%4] = uint32(w.src(&mi.disable[i], 0)[l])
		}
		isDisabled := func(pi, lane int) bool { return disabled[pi][lane/32]>>(lane%32)&1 == 1 }
		var sfaAddr, sfbAddr uint64
		if mi.blockScale {
			sfaAddr = w.src(&mi.sfa, 0)[l] + uint64(mi.sfa.Off)
			sfbAddr = w.src(&mi.sfb, 0)[l] + uint64(mi.sfb.Off)
		}
		key := int32(c.Linear*1024 + 32*w.ID + l)
		var readCells []struct {
			t   *tmemState
			idx int
		}
		raceReported := false
		noteRead := func(t *tmemState, idx int) {
			if u.race != nil && !raceReported {
				if e := t.writtenBy[idx]; e.slot >= 0 && !u.race.ordered(e, w.uid) {
					raceReported = true
					mach.hazard(Hazard{Kind: HzTmemRace, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
						Msg: fmt.Sprintf("tcgen05.mma reads TMEM (lane %d, column %d: its scale factors or A operand) that %s wrote with tcgen05.cp/st, and that write is not ordered before this MMA was issued",
							idx/tmemCols, idx%tmemCols, u.race.slotName(e.slot)),
						Detail:  "another thread's copy into the MMA's TMEM operands must be complete and synchronized (its tcgen05.commit's mbarrier phase, or wait::st and a barrier) before the MMA is issued",
						Related: mach.Prog.pos(&mach.Prog.Insts[e.pc])})
				}
			}
			t.pendingR[idx]++
			t.pendingRBy[idx] = key
			readCells = append(readCells, struct {
				t   *tmemState
				idx int
			}{t, idx})
		}
		if mi.blockScale {
			nsf := dp.ScalesPerRow()
			switch {
			case nsf == 4 && id.ScaleAID|id.ScaleBID != 0:
				mach.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("block-scaled tcgen05.mma with 4 scale factors per row (.scale_vec::4X) and scale-factor IDs A=%d B=%d: the four bytes fill the 32-bit TMEM cell, so both IDs must be 0", id.ScaleAID, id.ScaleBID)})
			case nsf == 2 && (id.ScaleAID|id.ScaleBID)&1 != 0:
				mach.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
					Msg: fmt.Sprintf("block-scaled tcgen05.mma with 2 scale factors per row (.scale_vec::2X) and scale-factor IDs A=%d B=%d: a pair of bytes starts at byte 0 or 2, so the IDs must be 0 or 2", id.ScaleAID, id.ScaleBID)})
			}
			for _, sf := range []struct {
				what string
				addr uint64
				rows int
				ps   []*tcMmaCTA
			}{{"A", sfaAddr, 0, parts}, {"B", sfbAddr, N, parts[:1]}} {
				lane0, col0 := tmemAddr(sf.addr)
				lane0 &= tmemLanes - 1
				if lane0 != 0 {
					mach.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
						Msg: fmt.Sprintf("the scale-factor %s TMEM address %#x names lane %d: scale factors start at lane 0 (row r of the matrix is lane r %% 128)", sf.what, uint32(sf.addr), lane0)})
				}
				for _, p := range sf.ps {
					t := p.c.tmemState()
					rows := p.rows
					if sf.what == "B" {
						rows = N
					}
					ncol := 4*((rows+127)/128) + (nsf-1)/4
					if !t.allocated(col0, min(ncol, tmemCols-col0)) {
						mach.hazard(Hazard{Kind: HzTmemAlloc, Severity: SevError, PC: in.PC, CTA: p.c.ID, Warp: w.ID, Lanes: 1 << l,
							Msg: fmt.Sprintf("tcgen05.mma reads scale factors %s from TMEM columns [%d, %d), which are not allocated", sf.what, col0, col0+ncol)})
					}
					for r := 0; r < rows; r++ {
						for j := 0; j < nsf; j++ {
							ln, cl := r%128, col0+4*(r/128)+(r%128)/32+j/4
							if cl < tmemCols {
								noteRead(t, ln*tmemCols+cl)
							}
						}
					}
				}
			}
		}
		if mi.aTmem {
			aLane, aCol := tmemAddr(aVal)
			per := 32 / ab
			for _, p := range parts {
				t := p.c.tmemState()
				for r := 0; r < p.rows; r++ {
					for k := 0; k < K; k += per {
						if idx := (aLane+lanes(p, r))*tmemCols + aCol + k/per; idx < len(t.cells) {
							noteRead(t, idx)
						}
					}
				}
			}
		}
		// TMEM the MMA overwrites must not be read by a tcgen05.ld that is
		// not ordered before this issue (an epilogue still reading the
		// previous tile's accumulator: a release that does not cover
		// every reading warp of the pair).
		if u.race != nil {
		race:
			for _, p := range parts {
				t := p.c.tmemState()
				for r := 0; r < p.rows; r++ {
					for n := 0; n < N; n++ {
						e := t.readBy[cellOf(p, r, n)]
						if e.slot >= 0 && !u.race.ordered(e, w.uid) {
							h := Hazard{Kind: HzTmemRace, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
								Msg: fmt.Sprintf("tcgen05.mma overwrites TMEM of CTA %s (lane %d, column %d) that %s read with tcgen05.ld, and that read is not ordered before this MMA was issued",
									fmtID(p.c.ID), cellOf(p, r, n)/tmemCols, cellOf(p, r, n)%tmemCols, u.race.slotName(e.slot)),
								Detail:  "the accumulator is reused before every warp that reads it has released it: the MMA's wait must cover an arrival from each reading warp (of both CTAs of a pair: count them in the mbarrier's expected arrivals)",
								Related: mach.Prog.pos(&mach.Prog.Insts[e.pc])}
							mach.hazard(h)
							break race
						}
					}
				}
			}
		}
		uninit := 0
		for pi, p := range parts {
			t := p.c.tmemState()
			for r := 0; r < p.rows; r++ {
				if len(mi.disable) > 0 && isDisabled(pi, lanes(p, r)) {
					continue
				}
				for n := 0; n < N; n++ {
					idx := cellOf(p, r, n)
					t.pendingW[idx]++
					if enable && !t.written[idx] {
						uninit++
					}
					t.written[idx] = true
				}
			}
		}
		if uninit > 0 {
			mach.hazard(Hazard{Kind: HzTmemUninit, PC: in.PC, CTA: c.ID, Warp: w.ID, Lanes: 1 << l,
				Msg:    fmt.Sprintf("tcgen05.mma accumulates (enable-input-d true) into %d TMEM cells at column %d that nothing wrote since tcgen05.alloc: the product is added to garbage", uninit, dCol),
				Detail: "freshly allocated Tensor Memory is not zeroed: run the first MMA of the tile with enable-input-d false, or write the accumulator (tcgen05.st, tcgen05.cp) first"})
		}
		op := &asyncOp{kind: akTcgenMMA, cta: c, w: w, lane: l, tid: 32*w.ID + l, in: in, rd: rd}
		if u.race != nil {
			op.issueVC = u.race.issueVC(w)
			for _, p := range parts {
				var chunks []uint32
				for _, tab := range []*smemTable{p.aTab, p.bTab} {
					if tab != nil {
						chunks = append(chunks, tab.chunks...)
					}
				}
				hb := u.race.asyncReadRegions(op.issueVC, in, p.c, w.ID, 1<<l, chunks, 0, 0, "tcgen05.mma", w)
				if p.c == c {
					op.hbRead = hb
				}
				// released by the issuing thread's tcgen05.commit
				u.race.tcRead(c, op.tid, hb)
			}
		}
		op.desc = fmt.Sprintf("M=%d N=%d K=%d %s×%s→%s into TMEM column %d", M, N, K, dp.A.Name, dp.B.Name, dp.C.Name, dCol)
		if mi.pair {
			op.desc += " of the CTA pair"
		}
		collector := mi.collector
		op.run = func(op *asyncOp) {
			for _, p := range parts {
				t := p.c.tmemState()
				for r := 0; r < p.rows; r++ {
					for n := 0; n < N; n++ {
						t.pendingW[cellOf(p, r, n)]--
						t.written[cellOf(p, r, n)] = true
					}
				}
			}
			for _, rc := range readCells {
				rc.t.pendingR[rc.idx]--
			}
			unwritten := false
			for _, rc := range readCells {
				if !rc.t.written[rc.idx] && !unwritten && mi.blockScale {
					unwritten = true
					mach.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
						Msg:    fmt.Sprintf("block-scaled tcgen05.mma reads scale factors from TMEM (lane %d, column %d) that no tcgen05.cp or tcgen05.st wrote", rc.idx/tmemCols, rc.idx%tmemCols),
						Detail: "the scale-factor TMEM address or the instruction descriptor's scale-factor ID does not match where tcgen05.cp put the scale factors (row r of a 128-row block at lane r, column base + (r/32), one byte per k-block)"})
				}
			}
			a := make([]uint64, M*K)
			b := make([]uint64, N*K)
			cc := make([]uint64, M*N)
			for _, p := range parts {
				t := p.c.tmemState()
				if mi.aTmem {
					aLane, aCol := tmemAddr(aVal)
					per := 32 / ab
					for r := 0; r < p.rows; r++ {
						for k := 0; k < K; k++ {
							cell := t.cells[(aLane+lanes(p, r))*tmemCols+aCol+k/per]
							a[(p.row0+r)*K+k] = uint64(cell) >> (uint(k%per) * uint(ab)) & (uint64(1)<<ab - 1)
						}
					}
				} else {
					for i, ba := range p.aTab.addrs {
						a[p.row0*K+i] = readBits(p.c.Smem, ba, ab)
					}
					p.c.layoutCheck(p.aTab, p.rows, K, id.TransposeA, in, "A", desc.DecodeTCGen05Smem(aVal).Swizzle())
					p.c.provenanceCheck(p.aTab, p.rows, K, ab, in, "A")
				}
				for i, ba := range p.bTab.addrs {
					b[p.col0*K+i] = readBits(p.c.Smem, ba, bb)
				}
				p.c.layoutCheck(p.bTab, p.cols, K, id.TransposeB, in, "B", desc.DecodeTCGen05Smem(bDesc).Swizzle())
				p.c.provenanceCheck(p.bTab, p.cols, K, bb, in, "B")
				if enable {
					for r := 0; r < p.rows; r++ {
						for n := 0; n < N; n++ {
							v := uint64(t.cells[cellOf(p, r, n)])
							if dp.C.Bits == 16 {
								v &= 0xFFFF
							}
							cc[(p.row0+r)*N+n] = v
						}
					}
				}
			}
			// The A collector buffer: ::fill keeps this MMA's A, ::use and
			// ::lastuse read the kept A instead of memory.
			switch collector {
			case "fill":
				w.collectorA = append(w.collectorA[:0], a...)
			case "use", "lastuse":
				if len(w.collectorA) == len(a) {
					copy(a, w.collectorA)
				} else {
					mach.hazard(Hazard{Kind: HzTcgenCollector, Severity: SevError, PC: in.PC, CTA: c.ID, Warp: w.ID,
						Msg: "tcgen05.mma .collector::a::" + collector + " with no A matrix of the same shape in the collector buffer (a preceding ::fill)"})
				}
				if collector == "lastuse" {
					w.collectorA = nil
				}
			case "discard":
				w.collectorA = nil
			}
			var d []uint64
			switch {
			case dp.Block != nil:
				nsf := dp.ScalesPerRow()
				sfa := make([]uint64, M*nsf)
				sfb := make([]uint64, N*nsf)
				for _, p := range parts {
					for r := 0; r < p.rows; r++ {
						for j := 0; j < nsf; j++ {
							sfa[(p.row0+r)*nsf+j] = tmemScale(p.c.tmemState(), sfaAddr, r, int(id.ScaleAID)+j)
						}
					}
				}
				sbCTA := parts[0].c.tmemState()
				for n := 0; n < N; n++ {
					for j := 0; j < nsf; j++ {
						sfb[n*nsf+j] = tmemScale(sbCTA, sfbAddr, n, int(id.ScaleBID)+j)
					}
				}
				d = dp.Block.MatMul(M, N, K, a, b, sfa, sfb, cc)
			default:
				if mod, ok := dp.Eval.(matMuler); ok {
					d = mod.MatMul(M, N, K, a, b, cc)
				} else {
					d = make([]uint64, M*N)
					for i := 0; i < M; i++ {
						for j := 0; j < N; j++ {
							d[i*N+j] = dp.Eval.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], cc[i*N+j])
						}
					}
				}
			}
			for pi, p := range parts {
				t := p.c.tmemState()
				for r := 0; r < p.rows; r++ {
					for n := 0; n < N; n++ {
						idx := cellOf(p, r, n)
						if len(mi.disable) > 0 && isDisabled(pi, idx/tmemCols) {
							continue
						}
						t.cells[idx] = uint32(d[(p.row0+r)*N+n])
					}
				}
			}
		}
		u.issue(op)
	}
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
