package datapath

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// The mma.sync FP8 probe family: sm_90 has no FP8 mma.sync in hardware, and
// ptxas emulates m16n8k32 with two f16 k16 tensor-core steps. These batches
// map which products share a step, in which order the steps run, how each
// step's result is rounded, and how C joins (see MMASyncFP8). They are
// separate from the discovery batches (DiscoveryBatch), whose recorded
// outputs depend on those staying unchanged.

// MMAFP8Variants lists every sm_90 mma.sync m16n8k32 FP8 variant: the four
// input mixes with f32 and f16 accumulators, under the harness's tags.
func MMAFP8Variants() []Variant {
	var out []Variant
	for _, c := range []string{"f32", "f16"} {
		for _, a := range []string{"e4m3", "e5m2"} {
			for _, b := range []string{"e4m3", "e5m2"} {
				out = append(out, Variant{Name: "mma." + c + "." + a + "." + b, Family: "mma", K: 32,
					A: mustFormat(a), B: mustFormat(b), C: mustFormat(c)})
			}
		}
	}
	return out
}

// MMAFP8K16Variants lists the m16n8k16 FP8 variants (one f16 step). The
// harness (mma_k16_probe.cu) reads the same 32-byte rows and uses bytes
// 0..15, so problems keep K=32 with products 16..31 zero.
func MMAFP8K16Variants() []Variant {
	var out []Variant
	for _, v := range MMAFP8Variants() {
		v.Name = "mma.k16" + v.Name[len("mma"):]
		out = append(out, v)
	}
	return out
}

// fp8Step reports the step of product k in emulated m16n8k32 FP8 (0 or 1).
func fp8Step(k int) int { return k % 4 / 2 }

// MMAFP8Problems returns the targeted problems of the mma.sync FP8 family
// for v; each name says what it isolates. With k16 set, only products
// 0..15 may be nonzero.
func MMAFP8Problems(v Variant, k16 bool) []Problem {
	f := &fp8Family{pb: &probeBuilder{v: v}, v: v, K: 32}
	if k16 {
		f.K = 16
	}
	f.stepMembership()
	f.stepRounding()
	f.cJoin()
	f.zerosAndOverflow()
	f.specials()
	f.tiny()
	pb := f.pb
	if k16 { // drop anything that touches products 16..31
		var out []Problem
		for _, p := range pb.out {
			ok := true
			for k := 16; k < 32 && k < len(p.A); k++ {
				if p.A[k] != 0 || p.B[k] != 0 {
					ok = false
				}
			}
			if ok {
				out = append(out, p)
			}
		}
		return out
	}
	return pb.out
}

// fp8Family builds the targeted mma.sync FP8 problems, section by
// section, in a fixed order (the recorded campaign's hashes depend on it).
type fp8Family struct {
	pb *probeBuilder
	v  Variant
	K  int
}

// at is a row of K products, zero except at the given indices.
func (f *fp8Family) at(kv map[int]pair) []pair {
	terms := make([]pair, f.K)
	for k, p := range kv {
		terms[k] = p
	}
	return terms
}

var (
	fp8Big, fp8NegBig = pair{16, 16}, pair{-16, 16} // ±2^8
	fp8Small          = pair{math.Ldexp(1, -9), math.Ldexp(1, -9)}
)

// stepMembership: +2^8 at i, -2^8 at j, 2^-18 at l (26 bits below). In
// one fused step the small product is truncated away; it survives only
// when i and j cancel exactly in the first step and l is in the second.
// "map" puts l in the second step of the profile, "order" in the first.
func (f *fp8Family) stepMembership() {
	K, big, negBig, small := f.K, fp8Big, fp8NegBig, fp8Small
	for i := 0; i < K; i++ {
		for j := i + 1; j < K; j++ {
			for _, fam := range []string{"map", "order"} {
				want := 1
				if fam == "order" {
					want = 0
				}
				l := -1
				for x := 0; x < K; x++ {
					if x != i && x != j && fp8Step(x) == want {
						l = x
						break
					}
				}
				if l < 0 {
					continue
				}
				f.pb.add(fmt.Sprintf("%s/big=%d,%d/small=%d", fam, i, j, l), 0, f.at(map[int]pair{i: big, j: negBig, l: small})...)
			}
		}
	}
}

// stepRounding: the rounding of the first step's result (base + x in step
// 1, -base in step 2), the same small term fused in step 2, and C
// joining last.
func (f *fp8Family) stepRounding() {
	v := f.v
	// 2. Rounding of the first step's result: base + x in step 1 (k0, k1),
	// -base in step 2 (k2). base is 2^8 for f32 (ulp 2^-15, x = m·2^-18)
	// and 1 for f16 (ulp 2^-10, x = m·2^-13).
	base, xs := pair{16, 16}, 18
	if v.C.Bits == 16 {
		base, xs = pair{1, 1}, 13
	}
	for m := 1; m <= 15; m++ {
		for _, s := range []float64{1, -1} {
			x := pair{s * float64(m) * math.Ldexp(1, -9), math.Ldexp(1, 9-xs)}
			f.pb.add(fmt.Sprintf("step1-round/base%+g,x=%+d*2^-%d", s, int(s)*m, xs), 0, f.at(map[int]pair{0: {s * base.a, base.b}, 1: x, 2: {-s * base.a, base.b}})...)
			// the same with the small term in step 2: fused there, truncated.
			f.pb.add(fmt.Sprintf("step2-fused/base%+g,x=%+d*2^-%d", s, int(s)*m, xs), 0, f.at(map[int]pair{0: {s * base.a, base.b}, 3: x, 2: {-s * base.a, base.b}})...)
			// 3. C joins last: c = base (+1 ulp), products x.
			for n := 0; n <= 1; n++ {
				c := base.a * base.b
				if v.C.Bits == 16 {
					c += float64(n) * math.Ldexp(1, -10)
				} else {
					c += float64(n) * math.Ldexp(1, -15)
				}
				f.pb.add(fmt.Sprintf("c-round/c=%g,x=%+d*2^-%d", c, int(s)*m, xs), c, f.at(map[int]pair{1: x})...)
				f.pb.add(fmt.Sprintf("c-round/c=-%g,x=%+d*2^-%d", c, int(s)*m, xs), -c, f.at(map[int]pair{1: x})...)
			}
		}
	}
}

// cJoin: C is not fused, c = ±2^-e next to products that cancel.
func (f *fp8Family) cJoin() {
	big, negBig, small := fp8Big, fp8NegBig, fp8Small
	// 4. C is not fused: c = ±2^-e next to products that cancel.
	for _, e := range []int{10, 14, 20, 24, 30, 40, 60, 100, 126, 130, 140, 149} {
		for _, s := range []float64{1, -1} {
			c := s * math.Ldexp(1, -e)
			f.pb.add(fmt.Sprintf("c-join/c=%+g*2^-%d/cancel-step1", s, e), c, f.at(map[int]pair{0: big, 1: negBig})...)
			f.pb.add(fmt.Sprintf("c-join/c=%+g*2^-%d/cancel-across", s, e), c, f.at(map[int]pair{0: big, 2: negBig})...)
			f.pb.add(fmt.Sprintf("c-join/c=%+g*2^-%d/no-products", s, e), c, f.at(nil)...)
			f.pb.add(fmt.Sprintf("c-join/c=%+g*2^-%d/p=2^-18", s, e), c, f.at(map[int]pair{1: small})...)
		}
	}
}

// zerosAndOverflow: signed zeros through the final addition, and overflow
// inside a step (f16: 2^17 does not fit) and its repair.
func (f *fp8Family) zerosAndOverflow() {
	big, negBig, small := fp8Big, fp8NegBig, fp8Small
	// 5. Signed zeros through the final addition.
	nz := math.Copysign(0, -1)
	f.pb.add("zero/c=-0", nz, f.at(nil)...)
	f.pb.add("zero/c=-0,p=-0*1", nz, f.at(map[int]pair{0: {nz, 1}, 2: {nz, 1}})...)
	f.pb.add("zero/c=-0,cancel-step1", nz, f.at(map[int]pair{0: big, 1: negBig})...)
	f.pb.add("zero/c=-0,cancel-across", nz, f.at(map[int]pair{0: big, 2: negBig})...)
	f.pb.add("zero/c=-0,p=-2^-18", nz, f.at(map[int]pair{1: {-small.a, small.b}})...)
	f.pb.add("zero/c=+0,p=-2^-18", 0, f.at(map[int]pair{3: {-small.a, small.b}})...)
	f.pb.add("zero/c=-2^-18,p=+2^-18", -math.Ldexp(1, -18), f.at(map[int]pair{1: small})...)
	f.pb.add("zero/c=+2^8,p=-2^8", 256, f.at(map[int]pair{2: negBig})...)
	// 6. Overflow inside a step (f16: 2^17 does not fit) and its repair.
	for _, p := range []struct {
		name string
		c    float64
		kv   map[int]pair
	}{
		{"overflow/step1=max²,step2=-max²", 0, map[int]pair{0: {448, 448}, 2: {-448, 448}}},
		{"overflow/step1=2·224²,step2=-2·224²", 0, map[int]pair{0: {224, 224}, 1: {224, 224}, 2: {-224, 224}, 3: {-224, 224}}},
		{"overflow/in-step1:224²+224²-224²", 0, map[int]pair{0: {224, 224}, 1: {224, 224}, 4: {-224, 224}}},
		{"overflow/step2=2·224²,c=-65504", -65504, map[int]pair{2: {224, 224}, 3: {224, 224}}},
		{"overflow/step1=240²,c=-57600", -57600, map[int]pair{0: {240, 240}}},
		{"overflow/e5m2/step1=2^30,step2=-2^30", 0, map[int]pair{0: {32768, 32768}, 2: {-32768, 32768}}},
		{"overflow/e5m2/2^15*2^15*2,c=-2^31", -math.Ldexp(1, 31), map[int]pair{0: {32768, 32768}, 1: {32768, 32768}}},
	} {
		f.pb.add(p.name, p.c, f.at(p.kv)...)
	}
}

// specials: NaN and infinities through the steps and the final addition.
func (f *fp8Family) specials() {
	v, big := f.v, fp8Big
	// 7. Specials through the steps and the final addition.
	nan, inf := math.NaN(), math.Inf(1)
	// C may be special too: pass its bits.
	addC := func(name string, c float64, terms ...pair) {
		if cb, ok := exactOrSpecial(v.C, c); ok {
			f.pb.addBits(name, math.Float64frombits(cb), true, terms...)
		}
	}
	addC("special/c=+Inf,p=1", inf, f.at(map[int]pair{0: {1, 1}})...)
	addC("special/c=-Inf,p=1", -inf, f.at(map[int]pair{0: {1, 1}})...)
	addC("special/c=NaN,p=1", nan, f.at(map[int]pair{0: {1, 1}})...)
	addC("special/c=+Inf,p=-max²", inf, f.at(map[int]pair{0: {-448, 448}, 2: {-448, 448}})...)
	f.pb.add("special/a=NaN@step2", 0, f.at(map[int]pair{0: {1, 1}, 2: {nan, 1}})...)
	f.pb.add("special/a=Inf@step1,-Inf@step2", 0, f.at(map[int]pair{0: {inf, 1}, 2: {-inf, 1}})...)
	addC("special/a=Inf@step2,c=-Inf", -inf, f.at(map[int]pair{2: {inf, 1}})...)
	addC("special/a=Inf@step1,c=-Inf", -inf, f.at(map[int]pair{1: {inf, 1}})...)
	addC("special/a=Inf@step1,c=+Inf", inf, f.at(map[int]pair{1: {inf, 1}})...)
	f.pb.add("special/Inf*0@step2", 0, f.at(map[int]pair{3: {inf, 0}})...)
	f.pb.add("special/a=-Inf@step1,big@step2", 0, f.at(map[int]pair{0: {-inf, 1}, 2: big})...)
	if nanBits, ok := v.C.CanonicalNaN(); ok {
		f.pb.addBits("special/c=NaN-payload,p=1", math.Float64frombits(nanBits^1), true, f.at(map[int]pair{0: {1, 1}})...)
	}
}

// tiny: tiny products and results (the f16 subnormal range; e5m2 reaches
// 2^-32 per product).
func (f *fp8Family) tiny() {
	v := f.v
	// 8. Tiny products and results (the f16 subnormal range; e5m2 reaches
	// 2^-32 per product).
	for _, e := range []int{18, 22, 24, 25, 26, 30, 32} {
		for _, s := range []float64{1, -1} {
			for ea := 9; ea <= 16; ea++ {
				p := pair{s * math.Ldexp(1, -ea), math.Ldexp(1, ea-e)}
				if _, ok := exact(v.A, p.a); !ok {
					continue
				}
				if _, ok := exact(v.B, p.b); !ok {
					continue
				}
				f.pb.add(fmt.Sprintf("tiny/p=%+g*2^-%d", s, e), 0, f.at(map[int]pair{1: p})...)
				f.pb.add(fmt.Sprintf("tiny/p=%+g*2^-%d,+2^-32@k3", s, e), 0, f.at(map[int]pair{1: p, 3: {math.Ldexp(1, -16), math.Ldexp(1, -16)}})...)
				f.pb.add(fmt.Sprintf("tiny/p=%+g*2^-%d,c=2^-24", s, e), math.Ldexp(1, -24), f.at(map[int]pair{1: p})...)
				break
			}
		}
	}
}

// MMAFP8Seed seeds the random part of the mma.sync FP8 family.
const MMAFP8Seed = 0xf8_5c_2026_0c

// MMAFP8Batch is the targeted problems of v planted 8 to a problem (over
// seeded random data), followed by nRandom random problems.
func MMAFP8Batch(v Variant, k16 bool, nRandom int) *Batch {
	probs := MMAFP8Problems(v, k16)
	nt := (len(probs) + 7) / 8
	b := NewBatch(v, nt+nRandom)
	fp8Random(b, tagSeed(v.Name))
	if k16 {
		zeroHighK(b)
	}
	for i, pr := range probs {
		b.Plant(i/8, i%8, pr)
	}
	return b
}

// MMAFP8Campaign is the large random set of v: 2^20 dot products
// (8192 m16n8 problems), the five fill families plus cross-step
// cancellation.
func MMAFP8Campaign(v Variant) *Batch {
	b := NewBatch(v, 1<<20/(16*8))
	fp8Random(b, tagSeed("campaign/"+v.Name))
	return b
}

func tagSeed(tag string) uint64 {
	h := sha256.Sum256([]byte(tag))
	return MMAFP8Seed ^ binary.LittleEndian.Uint64(h[:8])
}

// fp8Random fills b with the standard random families, then turns every
// third problem into a cross-step cancellation: the products of step 2
// (k mod 4 in {2, 3}) are those of step 1 negated, a quarter of them nudged
// by one ulp, so the first step's rounding decides the result.
func fp8Random(b *Batch, seed uint64) {
	b.Random(0, seed)
	for p := 2; p < b.T; p += 3 {
		crossStep(b, p)
	}
}

// crossStep makes problem p a cross-step cancellation: the products of
// step 2 (k mod 4 in {2, 3}) are those of step 1 negated, a quarter of
// them nudged by one ulp.
func crossStep(b *Batch, p int) {
	w := b.V.elemBits()
	sb := signBit(b.V.B)
	for m := 0; m < b.M; m++ {
		row := b.ARow(p, m)
		for k := 0; k < b.V.K; k++ {
			if fp8Step(k) == 1 {
				putElem(row, w, k, getElem(row, w, k-2))
			}
		}
	}
	for n := 0; n < b.N; n++ {
		row := b.BRow(p, n)
		for k := 0; k < b.V.K; k++ {
			if fp8Step(k) == 1 {
				x := getElem(row, w, k-2) ^ sb
				if (k*7+n*3+p)%4 == 0 {
					x ^= 1
				}
				putElem(row, w, k, x)
			}
		}
	}
}

// zeroHighK clears products 16..31 (k16 problems in 32-byte rows).
func zeroHighK(b *Batch) {
	w := b.V.elemBits()
	for p := 0; p < b.T; p++ {
		for m := 0; m < b.M; m++ {
			for k := 16; k < 32; k++ {
				putElem(b.ARow(p, m), w, k, 0)
			}
		}
		for n := 0; n < b.N; n++ {
			for k := 16; k < 32; k++ {
				putElem(b.BRow(p, n), w, k, 0)
			}
		}
	}
}

// MMAFP8Holdout is a second large random set of v, 2^20 dot products drawn
// with another seed after the model was fitted: the five fill families,
// cross-step cancellation, and a family where one operand holds
// subnormals and the other large values, so that products of subnormal
// inputs decide the alignment (see Model.Widen).
func MMAFP8Holdout(v Variant) *Batch {
	b := NewBatch(v, 1<<20/(16*8))
	b.Random(0, tagSeed("holdout/"+v.Name))
	r := rand.New(rand.NewPCG(tagSeed("holdout-mix/"+v.Name), 7))
	w := v.elemBits()
	for p := 0; p < b.T; p++ {
		switch p % 4 {
		case 1:
			crossStep(b, p)
		case 3:
			// Step 2 (k mod 4 in {2, 3}) gets subnormal × large products;
			// step 1 keeps the family's values, so its result carries many
			// bits into the second step's alignment.
			// In half of them step 1 is tiny too (subnormal × small), so
			// that its low bits meet the second step's alignment.
			subA := p%8 == 3 // which operand holds the subnormals
			tiny := p%16 >= 8
			for m := 0; m < b.M; m++ {
				for k := 0; k < v.K; k++ {
					switch {
					case fp8Step(k) == 1 && r.IntN(4) != 0:
						putElem(b.ARow(p, m), w, k, mixElem(r, v.A, subA))
					case fp8Step(k) == 0 && tiny:
						putElem(b.ARow(p, m), w, k, mixElem(r, v.A, true))
					}
				}
			}
			for n := 0; n < b.N; n++ {
				for k := 0; k < v.K; k++ {
					switch {
					case fp8Step(k) == 1 && r.IntN(4) != 0:
						putElem(b.BRow(p, n), w, k, mixElem(r, v.B, !subA))
					case fp8Step(k) == 0 && tiny:
						putElem(b.BRow(p, n), w, k, randElem(r, v.B, FillTiny, k, n))
					}
				}
			}
		}
	}
	return b
}

// mixElem is a random subnormal of f (sub) or a random finite value from
// the top three binades of f.
func mixElem(r *rand.Rand, f *numfmt.Format, sub bool) uint64 {
	sign := uint64(r.IntN(2)) << (f.Bits - 1)
	mant := r.Uint64() & (1<<f.MantBits - 1)
	if sub {
		return sign | max(mant, 1)
	}
	emax := 1<<f.ExpBits - 2 // the top binade below Inf/NaN
	if !f.HasInf {
		emax++
	}
	e := uint64(emax - r.IntN(3))
	v := sign | e<<f.MantBits | mant
	if f.NaN == numfmt.AllOnesNaN && e == 1<<f.ExpBits-1 && mant == 1<<f.MantBits-1 {
		v &^= 1 // e4m3: S.1111.111 is NaN
	}
	return v
}
