package sim

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/tcsim/tcsim/isa/ptx"
)

// Cluster launch control (sm_100a, PTX ISA 9.7.13.x
// clusterlaunchcontrol): a running CTA asks to cancel a cluster of the
// grid that has not been launched yet and takes over its work, which is
// how CUTLASS's sm100 persistent tile schedulers get their tile ids.
// Not hardware-verified.
//
// The simulator launches units (clusters, or CTAs) in grid order.
// try_cancel cancels the first unit that has not started: it will never
// run, and the response names its first CTA. When every unit has started
// the request fails. The 16-byte response is opaque in the ISA; tcsim's
// encoding is: byte 0 bit 0 set when a cluster was cancelled, then the
// first CTA's x, y, z as 32-bit words at bytes 4, 8 and 12.

// decClcTryCancel decodes
// clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar].
func decClcTryCancel(d *decoder) error {
	x := d.x
	if len(x.Operands) != 2 {
		return fmt.Errorf("clusterlaunchcontrol.try_cancel: want [addr], [mbar]")
	}
	a, err := d.addr(x.Operands[0])
	if err != nil {
		return err
	}
	mb, err := d.addr(x.Operands[1])
	if err != nil {
		return err
	}
	multicast := x.Has("multicast::cluster::all")
	d.in.src = []Opnd{a, mb}
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		u := w.cta.u
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			_, off, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, w.addrOf(&in.src[0], l, 0), 16, l)
			if !ok {
				return
			}
			_, moff, ok := w.sharedAddr(in, ptx.SpaceSharedCTA, w.addrOf(&in.src[1], l, 1), 8, l)
			if !ok {
				return
			}
			if off%16 != 0 {
				w.fault(in, l, "clusterlaunchcontrol.try_cancel: the response address %#x is not 16-byte aligned", off)
				return
			}
			targets := []*CTA{w.cta}
			if multicast {
				targets = u.ctas
			}
			var resp [16]byte
			if first, ok := u.m.cancelNext(); ok {
				resp[0] = 1
				for k := 0; k < 3; k++ {
					binary.LittleEndian.PutUint32(resp[4+4*k:], uint32(first[k]))
				}
			}
			op := &asyncOp{kind: akCLC, cta: w.cta, w: w, lane: l, tid: 32*w.ID + l, in: in,
				desc: fmt.Sprintf("cancel response → shared %#x, mbarrier %#x", off, moff)}
			for _, tc := range targets {
				op.wr = append(op.wr, region{tc, off, 16})
			}
			if u.race != nil {
				op.issueVC = u.race.issueVC(w)
			}
			tid := 32*w.ID + l
			phases := make([]uint64, len(targets))
			for i, tc := range targets {
				if mb := tc.mbars[moff]; mb != nil && mb.live {
					phases[i] = mb.copyIssued(w, in, tid, 16, mb.cta == w.cta)
					if u.race != nil {
						u.race.mbarInitCheck(w, in, mb, op.issueVC)
						u.race.asyncWriteIssue(op, tc, off, 16, op.issueVC, mb, phases[i])
					}
				}
			}
			op.run = func(op *asyncOp) {
				for i, tc := range targets {
					copy(tc.Smem[off:off+16], resp[:])
					mb := tc.mbars[moff]
					if mb == nil || !mb.live {
						u.m.mbarUninit(tc, moff, mb, u.race.issuePoint(op), Hazard{Kind: HzMbarUninit, Severity: SevError, PC: in.PC, CTA: tc.ID, Warp: -1,
							Msg: fmt.Sprintf("clusterlaunchcontrol.try_cancel completes on the mbarrier at %#x, which is not initialized", moff)}, false)
						continue
					}
					if u.race != nil {
						u.race.asyncWriteDone(op, tc, u.race.mbarEpoch(mb, in.PC, ekCopy))
						u.race.mbarAsyncArrive(mb, op.issueVC, in.PC)
					}
					mb.copyLanded(in.PC, phases[i])
					mb.completeTx(in, 16)
				}
			}
			u.issue(op)
		}
	}
	return nil
}

// decClcQuery decodes clusterlaunchcontrol.query_cancel: .is_canceled.pred
// and .get_first_ctaid (.v4 or ::x/::y/::z) of a 128-bit response.
func decClcQuery(d *decoder) error {
	x := d.x
	if len(x.Operands) != 2 {
		return fmt.Errorf("clusterlaunchcontrol.query_cancel: want a destination and a .b128 response")
	}
	resp, err := d.val(x.Operands[1], ptx.B128)
	if err != nil {
		return err
	}
	if resp.K != oReg || d.regType(resp) != ptx.B128 {
		return fmt.Errorf("clusterlaunchcontrol.query_cancel: the response must be a .b128 register")
	}
	var dst []Opnd
	for _, e := range vecElems(x.Operands[0]) {
		o, err := d.dstReg(e)
		if err != nil {
			return err
		}
		dst = append(dst, o)
	}
	// what: -1 is_canceled, 0..2 one coordinate, 3 the .v4 form
	what := 3
	switch {
	case x.Has("is_canceled"):
		what = -1
	case x.Has("get_first_ctaid::x"):
		what = 0
	case x.Has("get_first_ctaid::y"):
		what = 1
	case x.Has("get_first_ctaid::z"):
		what = 2
	case x.Has("get_first_ctaid"):
		if len(dst) != 4 {
			return fmt.Errorf("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4 needs four destinations")
		}
	default:
		return fmt.Errorf("clusterlaunchcontrol.query_cancel: want .is_canceled or .get_first_ctaid")
	}
	d.in.src = []Opnd{resp}
	d.in.dst = dst
	d.in.fn = func(w *Warp, in *Inst, m uint32) {
		lo, hi := w.reg(in.src[0].R), w.reg(in.src[0].R+1)
		forLanes(m, func(l int) {
			word := func(k int) uint64 {
				v := lo[l]
				if k >= 2 {
					v = hi[l]
				}
				return v >> (32 * uint(k&1)) & 0xFFFFFFFF
			}
			canceled := lo[l]&1 == 1
			switch what {
			case -1:
				var v uint32
				if canceled {
					v = 1 << l
				}
				w.setPred(&in.dst[0], v, 1<<l)
			case 3:
				for k := 0; k < 3; k++ {
					if in.dst[k].K == oReg {
						w.reg(in.dst[k].R)[l] = word(k + 1)
					}
				}
			default:
				if in.dst[0].K == oReg {
					w.reg(in.dst[0].R)[l] = word(what + 1)
				}
			}
		})
	}
	return nil
}
