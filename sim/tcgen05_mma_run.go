package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/desc"
)

// The completion of a tcgen05.mma: the operands gathered from shared
// memory and TMEM, the product through the datapath, D written back.

// complete runs when the unit completes the MMA.
func (x *tcMma) complete(op *asyncOp) {
	for pi, p := range x.parts {
		t := p.c.tmemState()
		for r := 0; r < p.rows; r++ {
			for n := 0; n < x.N; n++ {
				idx := x.cellOf(p, r, n)
				if x.isDisabled(pi, idx/tmemCols) {
					continue // not marked in flight at issue (markWrites)
				}
				t.pendingW[idx]--
				t.written[idx] = true
			}
		}
	}
	for _, rc := range x.readCells {
		rc.t.pendingR[rc.idx]--
	}
	x.checkScalesWritten()
	a, b, cc := x.gather()
	x.collector(a)
	d := x.product(a, b, cc)
	for pi, p := range x.parts {
		t := p.c.tmemState()
		for r := 0; r < p.rows; r++ {
			for n := 0; n < x.N; n++ {
				idx := x.cellOf(p, r, n)
				if x.isDisabled(pi, idx/tmemCols) {
					continue
				}
				t.cells[idx] = uint32(d[(p.row0+r)*x.N+n])
			}
		}
	}
}

// checkScalesWritten reports scale factors read from TMEM that nothing
// wrote.
func (x *tcMma) checkScalesWritten() {
	if !x.mi.blockScale {
		return
	}
	for _, rc := range x.readCells {
		if !rc.t.written[rc.idx] {
			x.w.cta.u.m.hazard(Hazard{Kind: HzTcgenScale, Severity: SevError, PC: x.in.PC, CTA: x.w.cta.ID, Warp: x.w.ID,
				Msg:    fmt.Sprintf("block-scaled tcgen05.mma reads scale factors from TMEM (lane %d, column %d) that no tcgen05.cp or tcgen05.st wrote", rc.idx/tmemCols, rc.idx%tmemCols),
				Detail: "the scale-factor TMEM address or the instruction descriptor's scale-factor ID does not match where tcgen05.cp put the scale factors (row r of a 128-row block at lane r, column base + (r/32), one byte per k-block)"})
			return
		}
	}
}

// gather reads A (M×K), B (N×K) and C (M×N, zero unless enable-input-d)
// from shared memory and TMEM.
func (x *tcMma) gather() (a, b, cc []uint64) {
	M, N, K := x.M, x.N, x.K
	a = make([]uint64, M*K)
	b = make([]uint64, N*K)
	cc = make([]uint64, M*N)
	ab, bb := x.ab, x.bb
	for _, p := range x.parts {
		t := p.c.tmemState()
		if x.mi.aTmem {
			aLane, aCol := tmemAddr(x.aVal)
			per := 32 / ab
			for r := 0; r < p.rows; r++ {
				for k := 0; k < K; k++ {
					cell := t.cells[(aLane+x.lane(p, r))*tmemCols+aCol+k/per]
					a[(p.row0+r)*K+k] = uint64(cell) >> (uint(k%per) * uint(ab)) & (uint64(1)<<ab - 1)
				}
			}
		} else {
			for i, ba := range p.aTab.addrs {
				a[p.row0*K+i] = readBits(p.c.Smem, ba, ab)
			}
			p.c.layoutCheck(p.aTab, p.rows, K, x.id.TransposeA, x.in, "A", desc.DecodeTCGen05Smem(x.aVal).Swizzle())
			p.c.provenanceCheck(p.aTab, p.rows, K, ab, x.in, "A")
		}
		for i, ba := range p.bTab.addrs {
			b[p.col0*K+i] = readBits(p.c.Smem, ba, bb)
		}
		p.c.layoutCheck(p.bTab, p.cols, K, x.id.TransposeB, x.in, "B", desc.DecodeTCGen05Smem(x.bDesc).Swizzle())
		p.c.provenanceCheck(p.bTab, p.cols, K, bb, x.in, "B")
		if x.enable {
			for r := 0; r < p.rows; r++ {
				for n := 0; n < N; n++ {
					v := uint64(t.cells[x.cellOf(p, r, n)])
					if x.dp.C.Bits == 16 {
						v &= 0xFFFF
					}
					cc[(p.row0+r)*N+n] = v
				}
			}
		}
	}
	return a, b, cc
}

// collector applies the A collector buffer: ::fill keeps this MMA's A,
// ::use and ::lastuse read the kept A instead of memory.
func (x *tcMma) collector(a []uint64) {
	w := x.w
	switch x.mi.collector {
	case "fill":
		w.collectorA = append(w.collectorA[:0], a...)
	case "use", "lastuse":
		if len(w.collectorA) == len(a) {
			copy(a, w.collectorA)
		} else {
			w.cta.u.m.hazard(Hazard{Kind: HzTcgenCollector, Severity: SevError, PC: x.in.PC, CTA: w.cta.ID, Warp: w.ID,
				Msg: "tcgen05.mma .collector::a::" + x.mi.collector + " with no A matrix of the same shape in the collector buffer (a preceding ::fill)"})
		}
		if x.mi.collector == "lastuse" {
			w.collectorA = nil
		}
	case "discard":
		w.collectorA = nil
	}
}

// product computes D = A·Bᵀ + C through the datapath (with the scale
// factors read from TMEM for block-scaled kinds).
func (x *tcMma) product(a, b, cc []uint64) []uint64 {
	M, N, K := x.M, x.N, x.K
	dp := x.dp
	if dp.Block != nil {
		nsf := dp.ScalesPerRow()
		sfa := make([]uint64, M*nsf)
		sfb := make([]uint64, N*nsf)
		for _, p := range x.parts {
			for r := 0; r < p.rows; r++ {
				for j := 0; j < nsf; j++ {
					sfa[(p.row0+r)*nsf+j] = tmemScale(p.c.tmemState(), x.sfaAddr, r, int(x.id.ScaleAID)+j)
				}
			}
		}
		sbCTA := x.parts[0].c.tmemState()
		for n := 0; n < N; n++ {
			for j := 0; j < nsf; j++ {
				sfb[n*nsf+j] = tmemScale(sbCTA, x.sfbAddr, n, int(x.id.ScaleBID)+j)
			}
		}
		return dp.Block.MatMul(M, N, K, a, b, sfa, sfb, cc)
	}
	if mod, ok := dp.Eval.(matMuler); ok {
		return mod.MatMul(M, N, K, a, b, cc)
	}
	d := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			d[i*N+j] = dp.Eval.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], cc[i*N+j])
		}
	}
	return d
}
