package datapath

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// Variant is one wgmma m64n8 instruction variant as the numerics probes run
// it: every variant reads 32 bytes per row of A and B.
type Variant struct {
	Name    string // harness name, e.g. "f32.bf16.bf16" or "mma.f32.bf16.bf16"
	Family  string // "wgmma" (m64nN, a warpgroup) or "mma" (mma.sync m16n8, one warp)
	K       int
	A, B, C *numfmt.Format
	Sat     bool // .satfinite (integer variants)
	B1      bool // .b1 .and.popc
}

// Inst is the full PTX instruction name of the variant (at shape m64nN for
// wgmma; mma.sync is always m16n8).
func (v Variant) Inst(n int) string {
	if v.Family == "mma" {
		return fmt.Sprintf("mma.sync.aligned.m16n8k%d.row.col.%s.%s.%s.%s", v.K, v.C.Name, v.A.Name, v.B.Name, v.C.Name)
	}
	return fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk%d.%s", n, v.K, v.Name)
}

// Rows is M: 64 for wgmma, 16 for mma.sync.
func (v Variant) Rows() int {
	if v.Family == "mma" {
		return 16
	}
	return 64
}

// ProbeVariants lists the wgmma variants the numerics harness runs, in its order.
func ProbeVariants() []Variant {
	f := mustFormat
	fv := func(name string, k int, c, a, b string) Variant {
		return Variant{Name: name, Family: "wgmma", K: k, A: f(a), B: f(b), C: f(c)}
	}
	return []Variant{
		fv("f32.f16.f16", 16, "f32", "f16", "f16"),
		fv("f32.bf16.bf16", 16, "f32", "bf16", "bf16"),
		fv("f16.f16.f16", 16, "f16", "f16", "f16"),
		fv("f32.tf32.tf32", 8, "f32", "tf32", "tf32"),
		fv("f32.e4m3.e4m3", 32, "f32", "e4m3", "e4m3"),
		fv("f32.e4m3.e5m2", 32, "f32", "e4m3", "e5m2"),
		fv("f32.e5m2.e4m3", 32, "f32", "e5m2", "e4m3"),
		fv("f32.e5m2.e5m2", 32, "f32", "e5m2", "e5m2"),
		fv("f16.e4m3.e4m3", 32, "f16", "e4m3", "e4m3"),
		fv("f16.e5m2.e5m2", 32, "f16", "e5m2", "e5m2"),
		fv("s32.s8.s8", 32, "s32", "s8", "s8"),
		fv("s32.u8.u8", 32, "s32", "u8", "u8"),
		fv("s32.s8.u8", 32, "s32", "s8", "u8"),
		fv("s32.u8.s8", 32, "s32", "u8", "s8"),
		{Name: "satfinite.s32.s8.s8", Family: "wgmma", K: 32, A: f("s8"), B: f("s8"), C: f("s32"), Sat: true},
		{Name: "s32.b1.b1.and.popc", Family: "wgmma", K: 256, A: f("b1"), B: f("b1"), C: f("s32"), B1: true},
	}
}

// MMAProbeVariants lists the mma.sync m16n8 variants the harness runs: the
// shapes whose rows of A and B are 32 bytes (k16 for 16-bit types, k8 for
// tf32, k32 for 8-bit types).
func MMAProbeVariants() []Variant {
	f := mustFormat
	mv := func(k int, c, a, b string) Variant {
		return Variant{Name: "mma." + c + "." + a + "." + b, Family: "mma", K: k, A: f(a), B: f(b), C: f(c)}
	}
	return []Variant{
		mv(16, "f32", "f16", "f16"),
		mv(16, "f32", "bf16", "bf16"),
		mv(16, "f16", "f16", "f16"),
		mv(8, "f32", "tf32", "tf32"),
		mv(32, "f32", "e4m3", "e4m3"),
		mv(32, "f32", "e5m2", "e4m3"),
		mv(32, "f16", "e4m3", "e4m3"),
		mv(32, "s32", "s8", "s8"),
		mv(32, "s32", "u8", "s8"),
		{Name: "mma.satfinite.s32.s8.s8", Family: "mma", K: 32, A: f("s8"), B: f("s8"), C: f("s32"), Sat: true},
	}
}

// Batch is T independent m64n8 problems in the harness's file layout: A is
// T×64 rows and B is T×8 rows of 32 bytes each (K-major), C and D are T×64×8
// row-major accumulator elements.
type Batch struct {
	V       Variant
	T       int
	M       int // rows of A and D: 64 (wgmma) or 16 (mma.sync)
	N       int // columns of D = rows of B (8 for the discovery batches)
	A, B, C []byte
}

// Problem is one dot product to plant: D[m][n] = sum_k a[k]*b[k] + c.
type Problem struct {
	Name string
	A, B []uint64
	C    uint64
}

func accBytes(v Variant) int { return v.C.Bits / 8 }

// NewBatch allocates a zeroed batch of T m64n8 problems.
func NewBatch(v Variant, t int) *Batch { return NewBatchN(v, t, 8) }

// NewBatchN allocates a zeroed batch of T m64nN problems.
func NewBatchN(v Variant, t, n int) *Batch {
	m := v.Rows()
	return &Batch{V: v, T: t, M: m, N: n, A: make([]byte, t*m*32), B: make([]byte, t*n*32), C: make([]byte, t*m*n*accBytes(v))}
}

// elemBits is the storage width of one A/B element.
func (v Variant) elemBits() int { return 256 / v.K }

func putElem(row []byte, bitsPer, k int, val uint64) {
	switch bitsPer {
	case 1:
		if val&1 == 1 {
			row[k/8] |= 1 << (k % 8)
		} else {
			row[k/8] &^= 1 << (k % 8)
		}
	case 8:
		row[k] = byte(val)
	case 16:
		binary.LittleEndian.PutUint16(row[2*k:], uint16(val))
	case 32:
		binary.LittleEndian.PutUint32(row[4*k:], uint32(val))
	}
}

func getElem(row []byte, bitsPer, k int) uint64 {
	switch bitsPer {
	case 1:
		return uint64(row[k/8] >> (k % 8) & 1)
	case 8:
		return uint64(row[k])
	case 16:
		return uint64(binary.LittleEndian.Uint16(row[2*k:]))
	default:
		return uint64(binary.LittleEndian.Uint32(row[4*k:]))
	}
}

// ARow and BRow return row slices of problem p.
func (b *Batch) ARow(p, m int) []byte { return b.A[(p*b.M+m)*32 : (p*b.M+m+1)*32] }

// BRow returns row n of B in problem p.
func (b *Batch) BRow(p, n int) []byte { return b.B[(p*b.N+n)*32 : (p*b.N+n+1)*32] }

// CElem returns accumulator element (m, n) of problem p from buf (C or D).
func (b *Batch) CElem(buf []byte, p, m, n int) uint64 {
	i := ((p*b.M+m)*b.N + n) * accBytes(b.V)
	if accBytes(b.V) == 2 {
		return uint64(binary.LittleEndian.Uint16(buf[i:]))
	}
	return uint64(binary.LittleEndian.Uint32(buf[i:]))
}

func (b *Batch) setC(p, m, n int, v uint64) {
	i := ((p*b.M+m)*b.N + n) * accBytes(b.V)
	if accBytes(b.V) == 2 {
		binary.LittleEndian.PutUint16(b.C[i:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(b.C[i:], uint32(v))
	}
}

// Operands returns the K-vectors of a and b for output (m, n) of problem p.
func (b *Batch) Operands(p, m, n int) (a, bb []uint64) {
	a, bb = make([]uint64, b.V.K), make([]uint64, b.V.K)
	ar, br := b.ARow(p, m), b.BRow(p, n)
	for k := 0; k < b.V.K; k++ {
		a[k] = getElem(ar, b.V.elemBits(), k)
		bb[k] = getElem(br, b.V.elemBits(), k)
	}
	return a, bb
}

// Plant puts problem pr into row/column j (0..7) of problem p: A row j,
// B row j and C[j][j].
func (b *Batch) Plant(p, j int, pr Problem) {
	ar, br := b.ARow(p, j), b.BRow(p, j)
	for k := 0; k < b.V.K; k++ {
		putElem(ar, b.V.elemBits(), k, pr.A[k])
		putElem(br, b.V.elemBits(), k, pr.B[k])
	}
	b.setC(p, j, j, pr.C)
}

// Evaluator computes one output element.
type Evaluator interface {
	Dot(a, b []uint64, c uint64) uint64
}

// Expected computes D for the whole batch with ev.
func (b *Batch) Expected(ev Evaluator) []byte {
	d := make([]byte, len(b.C))
	if m, ok := ev.(*Model); ok {
		b.expectedMatMul(m, d)
		return d
	}
	for p := 0; p < b.T; p++ {
		for m := 0; m < b.M; m++ {
			for n := 0; n < b.N; n++ {
				a, bb := b.Operands(p, m, n)
				v := ev.Dot(a, bb, b.CElem(b.C, p, m, n))
				i := ((p*b.M+m)*b.N + n) * accBytes(b.V)
				if accBytes(b.V) == 2 {
					binary.LittleEndian.PutUint16(d[i:], uint16(v))
				} else {
					binary.LittleEndian.PutUint32(d[i:], uint32(v))
				}
			}
		}
	}
	return d
}

// Fill families for random data.
const (
	FillUniformBits = iota // every bit pattern equally likely
	FillNarrow             // magnitudes in [1, 2), random signs
	FillWide               // exponents spread over most of the format's range
	FillCancel             // products that cancel in pairs, with small perturbations
	FillTiny               // the subnormal and underflow regime
	numFills
)

// FillNames names the fill families.
var FillNames = []string{"uniform-bits", "narrow", "wide", "cancellation", "subnormal"}

// Random fills problems [from, T) of the batch with seeded random data,
// cycling through the fill families problem by problem.
func (b *Batch) Random(from int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(len(b.V.Name))))
	for p := from; p < b.T; p++ {
		fill := (p - from) % numFills
		for m := 0; m < b.M; m++ {
			row := b.ARow(p, m)
			for k := 0; k < b.V.K; k++ {
				putElem(row, b.V.elemBits(), k, randElem(r, b.V.A, fill, k, m))
			}
		}
		for n := 0; n < b.N; n++ {
			row := b.BRow(p, n)
			for k := 0; k < b.V.K; k++ {
				v := randElem(r, b.V.B, fill, k, n)
				if fill == FillCancel && k%2 == 1 && b.V.A.IsFloat() {
					// pair terms: b[k] = -b[k-1] (possibly nudged) so products
					// of equal a's cancel.
					prev := getElem(row, b.V.elemBits(), k-1)
					v = prev ^ signBit(b.V.B)
					if r.IntN(4) == 0 {
						v ^= 1
					}
				}
				putElem(row, b.V.elemBits(), k, v)
			}
		}
		if fill == FillCancel && b.V.A.IsFloat() {
			for m := 0; m < b.M; m++ {
				row := b.ARow(p, m)
				for k := 1; k < b.V.K; k += 2 {
					putElem(row, b.V.elemBits(), k, getElem(row, b.V.elemBits(), k-1))
				}
			}
		}
		for m := 0; m < b.M; m++ {
			for n := 0; n < b.N; n++ {
				b.setC(p, m, n, randElem(r, b.V.C, fill, m, n))
			}
		}
	}
}

func signBit(f *numfmt.Format) uint64 {
	if !f.Signed {
		return 0
	}
	return 1 << (f.Bits - 1) << f.Shift
}

func randElem(r *rand.Rand, f *numfmt.Format, fill, i, j int) uint64 {
	mask := uint64(1)<<f.Bits - 1
	if !f.IsFloat() {
		switch fill {
		case FillNarrow: // small magnitudes
			return uint64(r.IntN(7)-3) & mask
		case FillWide, FillTiny: // extremes
			ext := []uint64{0, 1, mask, mask >> 1, (mask >> 1) + 1}
			return ext[r.IntN(len(ext))]
		}
		return r.Uint64() & mask
	}
	sign := uint64(r.IntN(2)) << (f.Bits - 1)
	emax := 1<<f.ExpBits - 1
	var e int
	switch fill {
	case FillUniformBits:
		return (r.Uint64() & mask) << f.Shift
	case FillNarrow:
		e = f.Bias
	case FillWide:
		e = 1 + r.IntN(emax-1)
	case FillCancel:
		e = f.Bias - 3 + r.IntN(7)
	case FillTiny:
		e = r.IntN(min(4, emax))
	}
	e = max(0, min(e, emax-1))
	m := r.Uint64() & (1<<f.MantBits - 1)
	v := sign | uint64(e)<<f.MantBits | m
	if f.NaN == numfmt.AllOnesNaN && e == emax-1+0 && m == 1<<f.MantBits-1 && f.ExpBits > 0 {
		v &^= 1 // keep e4m3 finite in the non-uniform families
	}
	return v << f.Shift
}

// exact encodes x into f when x is exactly representable (finite, no
// rounding); ok is false otherwise.
func exact(f *numfmt.Format, x float64) (bits uint64, ok bool) {
	if !f.IsFloat() || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	var sign uint64
	if math.Signbit(x) {
		if !f.Signed {
			return 0, false
		}
		sign = 1 << (f.Bits - 1)
		x = -x
	}
	if x == 0 {
		return sign << f.Shift, true
	}
	fr, e := math.Frexp(x) // x = fr * 2^e, fr in [0.5, 1)
	e--                    // x = (2fr) * 2^e
	emin := 1 - f.Bias
	emaxN := 1<<f.ExpBits - 2 - f.Bias
	if f.NaN != numfmt.IEEENaN || !f.HasInf {
		emaxN++ // formats without an Inf exponent use the top binade
	}
	if e > emaxN {
		return 0, false
	}
	var field, mant uint64
	if e < emin {
		q := math.Ldexp(x, f.MantBits-emin)
		if q != math.Trunc(q) || q >= float64(uint64(1)<<f.MantBits) {
			return 0, false
		}
		mant = uint64(q)
	} else {
		q := math.Ldexp(2*fr, f.MantBits)
		if q != math.Trunc(q) {
			return 0, false
		}
		mant = uint64(q) & (1<<f.MantBits - 1)
		field = uint64(e + f.Bias)
	}
	v := sign | field<<f.MantBits | mant
	if f.NaN == numfmt.AllOnesNaN && field == 1<<f.ExpBits-1 && mant == 1<<f.MantBits-1 {
		return 0, false // that pattern is NaN
	}
	return v << f.Shift, true
}

// DiscoverySeed seeds the random part of the discovery batches.
const DiscoverySeed = 0x7c5e_d15c_0_0e5

// DiscoveryBatch is the discovery campaign's input for v: the targeted
// problems planted 8 to a problem (with random data around them), then
// nRandom problems of seeded random data.
func DiscoveryBatch(v Variant, nRandom int) *Batch {
	probs := TargetedProblems(v)
	nt := (len(probs) + 7) / 8
	b := NewBatch(v, nt+nRandom)
	b.Random(0, DiscoverySeed)
	for i, pr := range probs {
		b.Plant(i/8, i%8, pr)
	}
	return b
}

func mustFormat(name string) *numfmt.Format {
	f, err := numfmt.Lookup(name)
	if err != nil {
		panic(err) // the names above are constants
	}
	return f
}

// Matrices returns problem p's operands as MatMul takes them.
func (b *Batch) Matrices(p int) (a, bb, c []uint64) {
	K, w := b.V.K, b.V.elemBits()
	a, bb, c = make([]uint64, b.M*K), make([]uint64, b.N*K), make([]uint64, b.M*b.N)
	for m := 0; m < b.M; m++ {
		row := b.ARow(p, m)
		for k := 0; k < K; k++ {
			a[m*K+k] = getElem(row, w, k)
		}
		for n := 0; n < b.N; n++ {
			c[m*b.N+n] = b.CElem(b.C, p, m, n)
		}
	}
	for n := 0; n < b.N; n++ {
		row := b.BRow(p, n)
		for k := 0; k < K; k++ {
			bb[n*K+k] = getElem(row, w, k)
		}
	}
	return a, bb, c
}

func (b *Batch) expectedMatMul(m *Model, d []byte) {
	w := accBytes(b.V)
	for p := 0; p < b.T; p++ {
		a, bb, c := b.Matrices(p)
		out := m.MatMul(b.M, b.N, b.V.K, a, bb, c)
		base := p * b.M * b.N * w
		for i, v := range out {
			if w == 2 {
				binary.LittleEndian.PutUint16(d[base+2*i:], uint16(v))
			} else {
				binary.LittleEndian.PutUint32(d[base+4*i:], uint32(v))
			}
		}
	}
}
