package sfu

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// A Domain is the set of operands a verification campaign covers: the
// inputs are numbered 0 .. 2^Bits-1 and Input maps a number to operands.
// The GPU kernel (HashPTX) and the CPU (ChunkHash) generate the same
// operands from the same number.
type Domain struct {
	Name string
	Bits int // log2 of the number of inputs
	// What it covers, in words, for reports.
	Coverage string
	gen      string // how Input makes operands ("" : as Name says)
	word     uint32 // the fixed word of the f64 edge domains
}

// The domains.
var (
	// DomainAll is every operand bit pattern of a unary form (2^32 for
	// 32-bit and packed 16x2 forms, 2^16 for 16-bit forms).
	DomainAll32 = Domain{Name: "all", Bits: 32, Coverage: "all 2^32 operands"}
	DomainAll16 = Domain{Name: "all", Bits: 16, Coverage: "all 2^16 operands"}
	// DomainAllX2 is every packed pair: both lanes over all 2^16 values.
	DomainAllX2 = Domain{Name: "all", Bits: 32, Coverage: "all 2^32 packed pairs (each lane over all 2^16 values, with every value of the other lane)"}
	// DomainHi is, for f64 forms, every high word with a pseudo-random low
	// word (a function of the high word).
	DomainHi = Domain{Name: "hi", Bits: 32, Coverage: "2^32 high words × 1 low word (every high word, each with one pseudo-random low word)"}
	// DomainRand is 2^32 pseudo-random (a, b) bit patterns.
	DomainRand = Domain{Name: "rand", Bits: 32, Coverage: "2^32 pseudo-random (a, b) bit-pattern pairs"}
	// DomainOne is a = 1 with every divisor bit pattern.
	DomainOne = Domain{Name: "one", Bits: 32, Coverage: "a = 1.0 with all 2^32 divisors"}
	// DomainEdge is the cross product of 1024 edge values.
	DomainEdge = Domain{Name: "edge", Bits: 20, Coverage: "all pairs of 1024 edge values (zeros, subnormals, powers of two near every range limit, infinities, NaNs)"}
)

// HiWithLow is, for f64 forms, every high word with the low word lo: with
// lo = 0 it holds ±0, ±inf, every power of two and every value with 20
// significant bits.
func HiWithLow(lo uint32) Domain {
	return Domain{Name: fmt.Sprintf("hi-lo%x", lo), Bits: 32, gen: "hi-lo", word: lo,
		Coverage: fmt.Sprintf("all 2^32 high words with low word %#x", lo)}
}

// LowsOf is, for f64 forms, every low word under the high word hi.
func LowsOf(hi uint32) Domain {
	return Domain{Name: fmt.Sprintf("lo-hi%08x", hi), Bits: 32, gen: "lo-hi", word: hi,
		Coverage: fmt.Sprintf("all 2^32 low words under high word %#08x", hi)}
}

// F64EdgeLows are the low words the f64 edge campaigns pair with every
// high word, and F64EdgeHighs the high words they pair with every low
// word: +0 and the smallest subnormals, the largest negative subnormals,
// the smallest normals, [1, 1+2^-20), a value near π, +inf and the NaNs
// above it.
var (
	F64EdgeLows  = []uint32{0, 1, 0xFFFFFFFF}
	F64EdgeHighs = []uint32{0x00000000, 0x800FFFFF, 0x00100000, 0x3FF00000, 0x400921FB, 0x7FF00000}
)

// Domains lists the campaigns' domains for a form.
func (f *Form) Domains() []Domain {
	switch f.Kind {
	case Unary16:
		return []Domain{DomainAll16}
	case Unary16x2:
		return []Domain{DomainAllX2}
	case Unary64:
		ds := []Domain{DomainHi}
		for _, lo := range F64EdgeLows {
			ds = append(ds, HiWithLow(lo))
		}
		for _, hi := range F64EdgeHighs {
			ds = append(ds, LowsOf(hi))
		}
		return ds
	case Binary32:
		return []Domain{DomainRand, DomainOne, DomainEdge}
	}
	return []Domain{DomainAll32}
}

// Contains reports whether operands a, b are one of the domain's inputs.
func (d Domain) Contains(a, b uint64) bool {
	switch d.kind() {
	case "all":
		return a>>d.Bits == 0
	case "hi":
		return uint32(a) == uint32(Mix64(a>>32+seedHi))
	case "hi-lo":
		return uint32(a) == d.word
	case "lo-hi":
		return uint32(a>>32) == d.word
	case "rand":
		return a>>32 == 0 && b>>32 == 0 && Unmix64(a<<32|b)-seedRand < 1<<32
	case "one":
		return a == 0x3F800000 && b>>32 == 0
	case "edge":
		return slices.Contains(edgeValues, uint32(a)) && slices.Contains(edgeValues, uint32(b)) && a>>32 == 0 && b>>32 == 0
	}
	return false
}

func (d Domain) kind() string {
	if d.gen != "" {
		return d.gen
	}
	return d.Name
}

// Seeds of the pseudo-random generators (fixed: recorded hashes depend on them).
const (
	seedHi   = 0x243F6A8885A308D3
	seedRand = 0x13198A2E03707344
	golden   = 0x9E3779B97F4A7C15
)

// Mix64 is the splitmix64 finalizer, a bijection on 64-bit words.
func Mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// Unmix64 inverts Mix64.
func Unmix64(z uint64) uint64 {
	z ^= z>>31 ^ z>>62
	z *= 0x319642b2d24d8ec3 // the inverse of 0x94d049bb133111eb mod 2^64
	z ^= z>>27 ^ z>>54
	z *= 0x96de1b173f119089 // the inverse of 0xbf58476d1ce4e5b9
	z ^= z>>30 ^ z>>60
	return z
}

// Input returns the operands of input number i of the domain.
func (d Domain) Input(i uint32) (a, b uint64) {
	switch d.kind() {
	case "all":
		return uint64(i), 0
	case "hi":
		lo := uint32(Mix64(uint64(i) + seedHi))
		return uint64(i)<<32 | uint64(lo), 0
	case "hi-lo":
		return uint64(i)<<32 | uint64(d.word), 0
	case "lo-hi":
		return uint64(d.word)<<32 | uint64(i), 0
	case "rand":
		m := Mix64(uint64(i) + seedRand)
		return m >> 32, m & 0xFFFFFFFF
	case "one":
		return 0x3F800000, uint64(i)
	case "edge":
		e := edgeValues
		return uint64(e[i>>10&1023]), uint64(e[i&1023])
	}
	return uint64(i), 0
}

var edgeValues = makeEdgeValues()

// EdgeValues is the 1024 f32 bit patterns of DomainEdge: signed zeros,
// subnormals, the normal range's ends, powers of two and their neighbours
// around every exponent where division changes behaviour, infinities and
// NaNs, then values of every exponent with pseudo-random mantissas, sorted
// and unique.
func EdgeValues() []uint32 { return edgeValues }

func makeEdgeValues() []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	add := func(b uint32) {
		if !seen[b] && len(out) < 1024 {
			seen[b] = true
			out = append(out, b)
		}
	}
	for _, b := range []uint32{0, 1, 2, 3, 0x7FFFF, 0x400000, 0x7FFFFF, 0x800000, 0x800001, 0x7F7FFFFF, 0x7F7FFFFE,
		0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x3F800000, 0x3F7FFFFF, 0x3F800001, 0x3FFFFFFF} {
		add(b)
		add(b | 0x80000000)
	}
	for e := uint32(0); e < 255; e++ {
		add(e << 23)
		add(e<<23 | 0x7FFFFF)
		if e%4 == 0 {
			add(e<<23 | 0x80000000)
		}
	}
	x := uint64(1)
	for len(out) < 1024 {
		x = Mix64(x + golden)
		add(uint32(x))
	}
	sort.Slice(out, func(i, j int) bool {
		fi, fj := math.Float32frombits(out[i]), math.Float32frombits(out[j])
		if fi != fj && fi == fi && fj == fj {
			return fi < fj
		}
		return out[i] < out[j]
	})
	return out
}
