package sfu

import (
	"math"
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
}

// The domains.
var (
	// DomainAll is every operand bit pattern of a unary form (2^32 for
	// 32-bit and packed 16x2 forms, 2^16 for 16-bit forms).
	DomainAll32 = Domain{"all", 32, "all 2^32 operands"}
	DomainAll16 = Domain{"all", 16, "all 2^16 operands"}
	// DomainAllX2 is every packed pair: both lanes over all 2^16 values.
	DomainAllX2 = Domain{"all", 32, "all 2^32 packed pairs (each lane over all 2^16 values, with every value of the other lane)"}
	// DomainHi is, for f64 forms, every high word with a pseudo-random low
	// word (a function of the high word).
	DomainHi = Domain{"hi", 32, "all 2^32 high words, each with one pseudo-random low word"}
	// DomainRand is 2^32 pseudo-random (a, b) bit patterns.
	DomainRand = Domain{"rand", 32, "2^32 pseudo-random (a, b) bit-pattern pairs"}
	// DomainOne is a = 1 with every divisor bit pattern.
	DomainOne = Domain{"one", 32, "a = 1.0 with all 2^32 divisors"}
	// DomainEdge is the cross product of 1024 edge values.
	DomainEdge = Domain{"edge", 20, "all pairs of 1024 edge values (zeros, subnormals, powers of two near every range limit, infinities, NaNs)"}
)

// Domains lists the campaigns' domains for a form.
func (f *Form) Domains() []Domain {
	switch f.Kind {
	case Unary16:
		return []Domain{DomainAll16}
	case Unary16x2:
		return []Domain{DomainAllX2}
	case Unary64:
		return []Domain{DomainHi}
	case Binary32:
		return []Domain{DomainRand, DomainOne, DomainEdge}
	}
	return []Domain{DomainAll32}
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

// Input returns the operands of input number i of the domain.
func (d Domain) Input(i uint32) (a, b uint64) {
	switch d.Name {
	case "all":
		return uint64(i), 0
	case "hi":
		lo := uint32(Mix64(uint64(i) + seedHi))
		return uint64(i)<<32 | uint64(lo), 0
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
