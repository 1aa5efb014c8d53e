package sim

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts/catalog"
	"github.com/tcsim/tcsim/sim/datapath"
)

// mma.sync (warp-level MMA, PTX ISA 9.7.14): synchronous, one warp, the
// register fragments of the atom catalog and sim/datapath's sm_90 mma.sync
// datapath (bit-exact on the H100 except FP8 inputs, see its notes).

type mmaInfo struct {
	dp         datapath.Inst
	M, N, K    int
	a, b, c, d []Opnd
	aMap       [128][]fragCell
	bMap       [128][]fragCell
	cMap       [128][]fragCell
	aBits      int
	bBits      int
	accBits    int
}

func decMma(d *decoder) error {
	x := d.x
	sh := x.Shape
	if len(x.Types) != 4 || !x.Has("row") || !x.Has("col") || sh.M != 16 || sh.N != 8 {
		return refMmaSyncShape.errorf("mma.sync other than m16n8kK .row.col with D, A, B and C types")
	}
	for _, m := range x.Mods {
		if m.Name == "block_scale" || len(m.Name) > 6 && m.Name[:6] == "kind::" {
			return refMmaSyncKind.errorf("mma.sync with .%s", m.Name)
		}
	}
	dt := x.Types[0]
	key := datapath.Key{Family: datapath.FamilyMMASync, M: sh.M, N: sh.N, K: sh.K,
		D: dt.NumFormat(), A: x.Types[1].NumFormat(), B: x.Types[2].NumFormat(), C: x.Types[3].NumFormat(),
		Satfinite: x.Has("satfinite")}
	dp, err := datapath.Lookup(key, datapath.TCOptions{})
	if err != nil {
		return err
	}
	mi := &mmaInfo{dp: dp, M: 16, N: 8, K: sh.K, aBits: dp.A.Container, bBits: dp.B.Container, accBits: dp.C.Bits}
	if mi.aMap, _, err = fragTable(catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandA, M: 16, K: sh.K, Elem: catalog.OperandElem(mi.aBits)}); err != nil {
		return err
	}
	if mi.bMap, _, err = fragTable(catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandB, N: 8, K: sh.K, Elem: catalog.OperandElem(mi.bBits)}); err != nil {
		return err
	}
	if mi.cMap, _, err = fragTable(catalog.Key{Family: catalog.MMASync, Operand: catalog.OperandD, M: 16, N: 8, Elem: accElem(dt)}); err != nil {
		return err
	}
	lists := []*[]Opnd{&mi.d, &mi.a, &mi.b, &mi.c}
	for i := 0; i < 4; i++ {
		for _, e := range vecElems(x.Operands[i]) {
			var o Opnd
			if i == 0 {
				o, err = d.dstReg(e)
			} else {
				o, err = d.val(e, ptx.B32)
			}
			if err != nil {
				return err
			}
			*lists[i] = append(*lists[i], o)
		}
	}
	d.in.dst = mi.d
	d.in.src = append(append(append([]Opnd(nil), mi.a...), mi.b...), mi.c...)
	d.in.ext = mi
	d.in.fn = execMma
	return nil
}

func execMma(w *Warp, in *Inst, m uint32) {
	mi := in.ext.(*mmaInfo)
	if live := w.valid &^ w.exited; m != live {
		w.cta.u.m.hazard(Hazard{Kind: HzWarpAligned, Severity: SevError, PC: in.PC, CTA: w.cta.ID, Warp: w.ID, Lanes: m,
			Msg: fmt.Sprintf("mma.sync.aligned executed by lanes %#08x only: every thread of the warp must execute it", m)})
	}
	M, N, K := mi.M, mi.N, mi.K
	a := make([]uint64, M*K)
	b := make([]uint64, N*K)
	c := make([]uint64, M*N)
	get := func(ops []Opnd, f fragCell, l, bits int) uint64 {
		v := w.src(&ops[f.reg], 0)[l]
		return v >> (uint(f.half) * uint(bits)) & (uint64(1)<<bits - 1)
	}
	for l := 0; l < 32; l++ {
		for _, f := range mi.aMap[l] {
			a[int(f.row)*K+int(f.col)] = get(mi.a, f, l, mi.aBits)
		}
		for _, f := range mi.bMap[l] {
			b[int(f.row)*K+int(f.col)] = get(mi.b, f, l, mi.bBits)
		}
		for _, f := range mi.cMap[l] {
			c[int(f.row)*N+int(f.col)] = get(mi.c, f, l, mi.accBits)
		}
	}
	d := make([]uint64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			d[i*N+j] = mi.dp.Eval.Dot(a[i*K:(i+1)*K], b[j*K:(j+1)*K], c[i*N+j])
		}
	}
	for l := 0; l < 32; l++ {
		if m>>l&1 == 0 {
			continue
		}
		for _, f := range mi.cMap[l] {
			o := mi.d[f.reg]
			if o.K != oReg {
				continue
			}
			r := w.reg(o.R)
			v := d[int(f.row)*N+int(f.col)]
			if mi.accBits == 16 {
				sh := 16 * uint(f.half)
				r[l] = r[l]&^(0xFFFF<<sh) | (v&0xFFFF)<<sh
			} else {
				r[l] = v & 0xFFFFFFFF
			}
		}
	}
}
