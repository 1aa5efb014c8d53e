package tensormap

import "fmt"

// A Probe is one set of arguments the campaign hands to the driver.
type Probe struct {
	Name string // a unique name: the part of the campaign and what it varies
	Map  *Map
	// Keep says that the recording stores the driver's bytes in full rather
	// than a hash of them (the designed probes, which the fitting reads).
	Keep bool
}

// CampaignVersion names the probe generator; a recording made by another
// generator is replayed from its own recorded arguments all the same.
const CampaignVersion = "tensormap-campaign-2"

// splitmix is a SplitMix64 generator (the one fixtures' fill=random uses).
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// n returns a uniform integer in [0, k) (k > 0; the modulo bias is
// irrelevant here).
func (r *splitmix) n(k uint64) uint64 { return r.next() % k }

// in returns a uniform integer in [lo, hi].
func (r *splitmix) in(lo, hi int64) int64 { return lo + int64(r.n(uint64(hi-lo+1))) }

// chance returns true with probability p/100.
func (r *splitmix) chance(p int) bool { return r.n(100) < uint64(p) }

// packedStrides returns the byte strides of a dense tensor of dims with
// elements of bits bits, each rounded up to a multiple of align; ok is false
// when one reaches 2^40.
func packedStrides(dims []uint64, bits int, align uint64) ([]uint64, bool) {
	if len(dims) < 2 {
		return nil, true
	}
	s := make([]uint64, len(dims)-1)
	acc := (dims[0]*uint64(bits) + 7) / 8
	for i := range s {
		acc = (acc + align - 1) / align * align
		s[i] = acc
		if acc >= 1<<40 {
			return s, false
		}
		if i+1 < len(dims) {
			if dims[i+1] != 0 && acc > (1<<62)/dims[i+1] {
				return s, false
			}
			acc *= dims[i+1]
		}
	}
	return s, true
}

func ones(n int) []uint32 {
	o := make([]uint32, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// baseTiled is the designed probes' starting point: rank 5, u16, every
// dimension at least 256 (so that any box fits), strides packed.
func baseTiled() *Map {
	m := &Map{
		Kind:        Tiled,
		DType:       U16,
		Address:     0x7f4a_1234_5600,
		Dims:        []uint64{1024, 512, 384, 320, 272},
		Box:         []uint32{64, 16, 8, 4, 2},
		ElemStrides: ones(5),
	}
	m.Strides, _ = packedStrides(m.Dims, 16, 16)
	return m
}

// baseIm2col is the im2col probes' starting point: NHWC, rank 4, f16, a
// 3x3 convolution's corners.
func baseIm2col(rank int) *Map {
	dims := []uint64{64, 30, 28, 26, 4}[:rank]
	dims[rank-1] = 4
	m := &Map{
		Kind:        Im2col,
		DType:       F16,
		Address:     0x7f4a_1234_5600,
		Dims:        dims,
		ElemStrides: ones(rank),
		Channels:    64,
		Pixels:      128,
	}
	for i := 0; i < rank-2; i++ {
		m.Lower = append(m.Lower, -1)
		m.Upper = append(m.Upper, -1)
	}
	m.Strides, _ = packedStrides(m.Dims, 16, 16)
	return m
}

// Campaign returns the probes of the tensor-map campaign: designed
// variations of one field at a time (every bit of every numeric field,
// every enum value, the values just past each documented limit), random
// maps that follow the documented rules, random maps that ignore the
// consistency between fields, random maps that break exactly one rule,
// and the same for im2col and im2col-wide maps. It is deterministic.
func Campaign() []Probe {
	var ps []Probe
	add := func(keep bool, m *Map, format string, args ...any) {
		ps = append(ps, Probe{Name: fmt.Sprintf(format, args...), Map: m, Keep: keep})
	}
	designTiled(func(m *Map, format string, args ...any) { add(true, m, format, args...) })
	designIm2col(func(m *Map, format string, args ...any) { add(true, m, format, args...) })
	designLimits(func(m *Map, format string, args ...any) { add(true, m, format, args...) })
	r := &splitmix{s: 0x7e45_0a11}
	for i := 0; i < 2500; i++ {
		add(false, randomTiled(r, false), "random/tiled/%d", i)
	}
	for i := 0; i < 1200; i++ {
		add(false, randomTiled(r, true), "random/loose/%d", i)
	}
	for i := 0; i < 600; i++ {
		m := randomTiled(r, false)
		rule := breakRule(r, m)
		add(false, m, "random/break/%d/%s", i, rule)
	}
	for i := 0; i < 800; i++ {
		add(false, randomIm2col(r, false), "random/im2col/%d", i)
	}
	for i := 0; i < 200; i++ {
		add(false, randomIm2col(r, true), "random/im2col_loose/%d", i)
	}
	for i := 0; i < 150; i++ {
		add(false, randomWide(r), "random/wide/%d", i)
	}
	return ps
}

func designTiled(add func(*Map, string, ...any)) {
	b := baseTiled()
	add(b.Clone(), "tiled/base")
	designTiledShape(add, b)
	designTiledEncodings(add, b)
}

// designTiledShape varies the base map's rank, address, dimensions,
// strides, box and element strides, one field at a time.
func designTiledShape(add func(*Map, string, ...any), b *Map) {
	for rank := 0; rank <= 6; rank++ {
		m := b.Clone()
		if rank <= 5 {
			m.Dims, m.Box, m.ElemStrides = m.Dims[:rank], m.Box[:rank], m.ElemStrides[:rank]
			m.Strides = m.Strides[:max(rank-1, 0)]
		} else {
			m.Dims = append(m.Dims, 2)
			m.Box = append(m.Box, 1)
			m.ElemStrides = append(m.ElemStrides, 1)
			m.Strides = append(m.Strides, m.Strides[3]*272)
		}
		add(m, "tiled/rank/%d", rank)
	}
	for bit := 0; bit < 64; bit++ {
		m := b.Clone()
		m.Address = 1 << bit
		add(m, "tiled/addr/bit%d", bit)
	}
	for _, a := range []uint64{0, 0x10, 0x7fff_ffff_fff0, 0xffff_ffff_ffff_fff0, 0x1234_5678_9abc_def0, 0x7f4a_1234_5608, 0x7f4a_1234_5620} {
		m := b.Clone()
		m.Address = a
		add(m, "tiled/addr/%#x", a)
	}
	for i := range 5 {
		var vals []uint64
		for bit := 0; bit <= 32; bit++ {
			vals = append(vals, 1<<bit)
			if bit >= 2 {
				vals = append(vals, 1<<bit-1)
			}
		}
		vals = append(vals, 0, 1<<32+1, 0x5555_5555, 0xaaaa_aaaa)
		for _, v := range vals {
			m := b.Clone()
			m.Dims[i] = v
			add(m, "tiled/dims%d/raw/%d", i, v)
			m = m.Clone()
			if s, ok := packedStrides(m.Dims, 16, 16); ok {
				m.Strides = s
				for j := range m.Box {
					m.Box[j] = uint32(min(uint64(m.Box[j]), max(m.Dims[j], 1)))
				}
				if m.Box[0]%8 != 0 {
					m.Box[0] = 8
					if m.Dims[0] < 8 {
						m.Box[0] = uint32(max(m.Dims[0], 1))
					}
				}
				add(m, "tiled/dims%d/packed/%d", i, v)
			}
		}
	}
	for i := range 4 {
		var vals []uint64
		for bit := 4; bit <= 40; bit++ {
			vals = append(vals, 1<<bit)
		}
		vals = append(vals, 0, 8, 24, 48, 1<<40-16, 0x55_5555_5550, 0xaa_aaaa_aaa0, 1<<41)
		for _, v := range vals {
			m := b.Clone()
			m.Strides[i] = v
			add(m, "tiled/strides%d/%d", i, v)
		}
	}
	for i := range 5 {
		vals := []uint32{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 512}
		for _, v := range vals {
			m := b.Clone()
			m.Box[i] = v
			add(m, "tiled/box%d/%d", i, v)
		}
	}
	for i := range 5 {
		for v := uint32(0); v <= 9; v++ {
			m := b.Clone()
			m.ElemStrides[i] = v
			add(m, "tiled/estrides%d/%d", i, v)
		}
	}
}

// designTiledEncodings varies the base map's data type, interleave,
// swizzle, L2 promotion and out-of-bounds fill, and crosses the data types
// with every swizzle and interleave.
func designTiledEncodings(add func(*Map, string, ...any), b *Map) {
	for v := DType(0); v <= 17; v++ {
		m := b.Clone()
		m.DType = v
		add(m, "tiled/dtype/%s", v)
		// The same with an inner box of 32 bytes (128 packed 4-bit values
		// take 64).
		m = m.Clone()
		if bits := v.Bits(); bits > 0 {
			m.Box[0] = uint32(256 / bits)
			if v.Packed() {
				m.Box[0] = 128
			}
		}
		add(m, "tiled/dtype32B/%s", v)
	}
	for v := Interleave(0); v <= 3; v++ {
		m := b.Clone()
		m.Interleave = v
		add(m, "tiled/interleave/%s", v)
	}
	for v := Swizzle(0); v <= 7; v++ {
		for _, inner := range []uint32{8, 16, 32, 64} { // 16, 32, 64 and 128 bytes of u16
			m := b.Clone()
			m.Swizzle = v
			m.Box[0] = inner
			add(m, "tiled/swizzle/%s/box0=%d", v, inner)
		}
	}
	for v := L2Promotion(0); v <= 4; v++ {
		m := b.Clone()
		m.L2 = v
		add(m, "tiled/l2/%s", v)
	}
	for _, dt := range []DType{U16, F16, F32, BF16, TF32, F64, U8, S32, F32FTZ, TF32FTZ, U4x16Align8, U4x16Align16, U6x16Align16} {
		for v := OOBFill(0); v <= 2; v++ {
			m := b.Clone()
			m.DType = dt
			m.Box[0] = uint32(128 / dt.Bits())
			if dt.Packed() {
				m.Box[0] = 128
			}
			m.OOB = v
			add(m, "tiled/oob/%s/%s", dt, v)
		}
	}
	// Every data type with every swizzle and interleave, at the inner box
	// each allows.
	for dt := DType(0); dt < 16; dt++ {
		for il := Interleave(0); il < 3; il++ {
			for sw := Swizzle(0); sw < 7; sw++ {
				m := b.Clone()
				m.DType, m.Interleave, m.Swizzle = dt, il, sw
				span := sw.SpanBytes()
				if span == 0 {
					span = 64
				}
				if il != InterleaveNone {
					span = 16 * int(il)
				}
				m.Box[0] = uint32(span * 8 / dt.Bits())
				if dt.Packed() {
					m.Box[0] = 128
				}
				m.Strides, _ = packedStrides(m.Dims, dt.Bits(), 32)
				add(m, "tiled/grid/%s/%s/%s", dt, il, sw)
			}
		}
	}
}

// designLimits probes the rules the first campaign left open: the
// alignment interleave=32B needs, the most bytes one load may move, and the
// 32-bit extent of im2col's spatial dimensions.
func designLimits(add func(*Map, string, ...any)) {
	b := baseTiled()
	b.Dims, b.Strides, b.Box, b.ElemStrides = b.Dims[:3], b.Strides[:2], []uint32{8, 16, 8}, ones(3)
	for _, il := range []Interleave{InterleaveNone, Interleave16B, Interleave32B} {
		for _, sw := range []Swizzle{SwizzleNone, Swizzle32B} {
			for _, a := range []uint64{0x7f4a_1234_5600, 0x7f4a_1234_5610, 0x7f4a_1234_5620, 0x7f4a_1234_5630} {
				m := b.Clone()
				m.Interleave, m.Swizzle, m.Address = il, sw, a
				add(m, "limits/il_addr/%s/%s/%#x", il, sw, a)
			}
			for _, st := range []uint64{2048, 2064, 2080, 2096} {
				m := b.Clone()
				m.Interleave, m.Swizzle, m.Strides[0] = il, sw, st
				add(m, "limits/il_stride/%s/%s/%d", il, sw, st)
				m = b.Clone()
				m.Interleave, m.Swizzle, m.Strides[1] = il, sw, st*512
				add(m, "limits/il_stride1/%s/%s/%d", il, sw, st*512)
			}
		}
	}
	// Loads of about 227 KiB: u8 boxes {16, a, b} and bf16 with element
	// strides.
	t := baseTiled()
	t.DType, t.Dims, t.Strides, t.ElemStrides = U8, t.Dims[:3], nil, ones(3)
	t.Strides, _ = packedStrides(t.Dims, 8, 16)
	for _, ab := range [][2]uint32{{64, 227}, {87, 167}, {56, 256}, {222, 64}, {228, 64}, {57, 255}, {120, 121}, {113, 129}, {226, 64}, {227, 64}, {254, 57}, {128, 113}, {256, 57}, {250, 58}, {225, 65}} {
		m := t.Clone()
		m.Box = []uint32{16, ab[0], ab[1]}
		add(m, "limits/smem/u8/16x%dx%d", ab[0], ab[1])
	}
	for _, e := range []uint32{1, 2, 3, 4} {
		m := t.Clone()
		m.DType = BF16
		m.Strides, _ = packedStrides(m.Dims, 16, 16)
		m.Box = []uint32{8, 256, 57 * e}
		m.ElemStrides = []uint32{1, 1, e}
		if m.Box[2] > 256 {
			m.Box[2] = 256
		}
		add(m, "limits/smem/bf16_estride/%d", e)
	}
	im := baseIm2col(4)
	im.DType = U8
	im.Strides, _ = packedStrides(im.Dims, 8, 16)
	for _, p := range []uint32{906, 907, 908, 909, 910, 1024} {
		m := im.Clone()
		m.Channels, m.Pixels = 256, p
		add(m, "limits/smem/im2col/256x%d", p)
	}
	for rank := 3; rank <= 5; rank++ {
		for _, d := range []uint64{1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1, 1 << 32} {
			for _, c := range [][2]int32{{-1, -1}, {0, 0}, {1, 0}, {0, 1}} {
				m := baseIm2col(rank)
				m.Dims[1] = d
				m.Lower[0], m.Upper[0] = c[0], c[1]
				add(m, "limits/im2col_extent/r%d/%d/%d_%d", rank, d, c[0], c[1])
			}
		}
	}
}

func designIm2col(add func(*Map, string, ...any)) {
	for rank := 2; rank <= 6; rank++ {
		if rank < 3 || rank > 5 {
			m := baseIm2col(4)
			if rank == 2 {
				m.Dims, m.Strides, m.ElemStrides = m.Dims[:2], m.Strides[:1], m.ElemStrides[:2]
				m.Lower, m.Upper = nil, nil
			} else {
				m = baseIm2col(5)
				m.Dims = append(m.Dims, 2)
				m.Strides = append(m.Strides, m.Strides[3]*4)
				m.ElemStrides = append(m.ElemStrides, 1)
				m.Lower, m.Upper = append(m.Lower, -1), append(m.Upper, -1)
			}
			add(m, "im2col/rank/%d", rank)
			continue
		}
		b := baseIm2col(rank)
		add(b.Clone(), "im2col/r%d/base", rank)
		lim := map[int]int{3: 15, 4: 7, 5: 4}[rank]
		for i := 0; i < rank-2; i++ {
			for bit := 0; bit <= lim+1; bit++ {
				for _, sign := range []int64{1, -1} {
					v := sign << bit
					if sign < 0 && bit == lim+1 {
						v = -(1 << (lim + 1)) - 1
					}
					m := b.Clone()
					m.Lower[i] = int32(v)
					add(m, "im2col/r%d/lower%d/%d", rank, i, v)
					m = b.Clone()
					m.Upper[i] = int32(v)
					add(m, "im2col/r%d/upper%d/%d", rank, i, v)
				}
				if bit <= lim {
					m := b.Clone()
					m.Lower[i], m.Upper[i] = int32(1<<bit-1), -int32(1<<bit)
					add(m, "im2col/r%d/corners%d/%d", rank, i, bit)
				}
			}
			// A box of zero area.
			m := b.Clone()
			m.Lower[i], m.Upper[i] = 0, -int32(m.Dims[i+1])
			add(m, "im2col/r%d/empty%d", rank, i)
		}
		for _, v := range []uint32{0, 1, 2, 4, 8, 16, 32, 64, 128, 255, 256, 257} {
			m := b.Clone()
			m.Channels = v
			add(m, "im2col/r%d/channels/%d", rank, v)
		}
		for _, v := range []uint32{0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1023, 1024, 1025} {
			m := b.Clone()
			m.Pixels = v
			add(m, "im2col/r%d/pixels/%d", rank, v)
		}
		for i := range rank {
			for v := uint32(0); v <= 9; v++ {
				m := b.Clone()
				m.ElemStrides[i] = v
				add(m, "im2col/r%d/estrides%d/%d", rank, i, v)
			}
			for bit := 0; bit <= 32; bit += 4 {
				m := b.Clone()
				m.Dims[i] = 1 << bit
				add(m, "im2col/r%d/dims%d/%d", rank, i, m.Dims[i])
			}
		}
		for i := range rank - 1 {
			for bit := 4; bit <= 40; bit += 4 {
				m := b.Clone()
				m.Strides[i] = 1 << bit
				add(m, "im2col/r%d/strides%d/%d", rank, i, m.Strides[i])
			}
		}
		if rank == 4 {
			for dt := DType(0); dt <= 16; dt++ {
				for _, ch := range []uint32{8, 16, 32, 128} {
					m := b.Clone()
					m.DType, m.Channels = dt, ch
					if dt.Packed() {
						m.Dims[0] = 128
						m.Strides, _ = packedStrides(m.Dims, dt.Bits(), 32)
					}
					add(m, "im2col/dtype/%s/ch%d", dt, ch)
				}
			}
			for il := Interleave(0); il <= 3; il++ {
				for sw := Swizzle(0); sw <= 7; sw++ {
					for _, ch := range []uint32{8, 16, 32, 64} {
						m := b.Clone()
						m.Interleave, m.Swizzle, m.Channels = il, sw, ch
						add(m, "im2col/layout/%s/%s/ch%d", il, sw, ch)
					}
				}
			}
			for l2 := L2Promotion(0); l2 <= 4; l2++ {
				m := b.Clone()
				m.L2 = l2
				add(m, "im2col/l2/%s", l2)
			}
			for oob := OOBFill(0); oob <= 2; oob++ {
				m := b.Clone()
				m.OOB = oob
				add(m, "im2col/oob/%s", oob)
			}
			for bit := 0; bit < 64; bit++ {
				m := b.Clone()
				m.Address = 1 << bit
				add(m, "im2col/addr/bit%d", bit)
			}
		}
	}
	// Im2col-wide (CUDA 12.8; the documentation ties it to sm_100).
	w := baseIm2col(4)
	w.Kind, w.Lower, w.Upper, w.LowerW, w.UpperW = Im2colWide, nil, nil, -1, -1
	add(w.Clone(), "wide/base")
	for mode := WideMode(0); mode <= 2; mode++ {
		for _, sw := range []Swizzle{SwizzleNone, Swizzle64B, Swizzle128B, Swizzle128BAtom32B, Swizzle128BAtom64B} {
			m := w.Clone()
			m.Mode, m.Swizzle = mode, sw
			add(m, "wide/mode/%s/%s", mode, sw)
		}
	}
	for rank := 3; rank <= 5; rank++ {
		m := baseIm2col(rank)
		m.Kind, m.Lower, m.Upper, m.LowerW, m.UpperW = Im2colWide, nil, nil, -1, -1
		add(m, "wide/r%d", rank)
	}
}

// randomDType draws a data type; the packed ones (which the H100's driver
// rejects) one time in ten.
func randomDType(r *splitmix) DType {
	if r.chance(10) {
		return DType(r.in(13, 15))
	}
	return DType(r.n(13))
}

// randomSwizzle draws a swizzle; the 128B_atom ones (which the H100's
// driver rejects) one time in ten.
func randomSwizzle(r *splitmix) Swizzle {
	if r.chance(10) {
		return Swizzle(r.in(4, 6))
	}
	return Swizzle(r.n(4))
}

// randomDims draws a dimension size: mostly small, sometimes up to 2^32.
func randomDim(r *splitmix) uint64 {
	switch r.n(10) {
	case 0:
		return uint64(r.in(1, 1<<32))
	case 1, 2:
		return uint64(r.in(1, 1<<16))
	}
	return uint64(r.in(1, 600))
}

func randomAddress(r *splitmix, align uint64) uint64 {
	var a uint64
	switch r.n(8) {
	case 0:
		a = r.next()
	case 1:
		a = r.n(1 << 32)
	default:
		a = 0x7f00_0000_0000 + r.n(1<<40)
	}
	return a &^ (align - 1)
}

// randomTiled draws a tiled map. Unless loose, it follows the documented
// rules (the driver may still reject what the documentation does not say);
// loose maps draw every field within its own documented range and ignore
// the consistency between fields.
func randomTiled(r *splitmix, loose bool) *Map {
	rank := int(r.in(1, 5))
	m := &Map{Kind: Tiled, DType: randomDType(r), L2: L2Promotion(r.n(4))}
	bits := m.DType.Bits()
	if rank >= 3 && r.chance(15) {
		m.Interleave = Interleave(r.in(1, 2))
	}
	m.Swizzle = randomSwizzle(r)
	if m.Interleave == Interleave32B && !loose {
		m.Swizzle = Swizzle32B
	}
	if m.DType.IsFloat() && r.chance(40) || loose && r.chance(30) {
		m.OOB = OOBNaN
	}
	align := uint64(16)
	if m.Interleave == Interleave32B || m.DType == U4x16Align16 || m.DType == U6x16Align16 {
		align = 32
	}
	m.Address = randomAddress(r, align)
	for i := 0; i < rank; i++ {
		m.Dims = append(m.Dims, randomDim(r))
		m.ElemStrides = append(m.ElemStrides, 1)
		if r.chance(20) {
			m.ElemStrides[i] = uint32(r.in(1, 8))
		}
	}
	if m.DType.Packed() && !loose {
		m.Dims[0] = (m.Dims[0] + 127) / 128 * 128
	}
	if loose {
		for i := 0; i < rank-1; i++ {
			m.Strides = append(m.Strides, uint64(r.in(1, 1<<36-1))*16)
		}
		for i := 0; i < rank; i++ {
			m.Box = append(m.Box, uint32(r.in(1, 256)))
		}
		return m
	}
	s, ok := packedStrides(m.Dims, bits, align)
	for !ok {
		for i := range m.Dims {
			m.Dims[i] = (m.Dims[i] + 1) / 2
		}
		if m.DType.Packed() {
			m.Dims[0] = (m.Dims[0] + 127) / 128 * 128
		}
		s, ok = packedStrides(m.Dims, bits, align)
	}
	for i := range s {
		if r.chance(20) {
			// Padding: the next dimension starts further on.
			s[i] += align * uint64(r.in(1, 64))
			for j := i + 1; j < len(s); j++ {
				if s[j] < s[j-1]*m.Dims[j] {
					s[j] = s[j-1] * m.Dims[j]
				}
			}
		}
	}
	if len(s) > 0 && s[len(s)-1] >= 1<<40 {
		s, _ = packedStrides(m.Dims, bits, align)
	}
	m.Strides = s
	for i := 0; i < rank; i++ {
		m.Box = append(m.Box, uint32(r.in(1, int64(min(m.Dims[i], 256)))))
	}
	// The inner box: a multiple of 16 bytes that fits the swizzle span.
	if m.Interleave == InterleaveNone {
		span := m.Swizzle.SpanBytes()
		if span == 0 {
			span = 256 * bits / 8
		}
		unit := 128 / bits // elements in 16 bytes
		if m.DType.Packed() {
			unit = 128
		}
		maxUnits := max(span*8/bits/unit, 1)
		m.Box[0] = uint32(unit * int(r.in(1, int64(maxUnits))))
		if m.Box[0] > 256 {
			m.Box[0] = uint32(256 / unit * unit)
		}
	}
	return m
}

// breakRule breaks one documented rule of m and names it.
func breakRule(r *splitmix, m *Map) string {
	rank := m.Rank()
	i := int(r.n(uint64(rank)))
	switch r.n(12) {
	case 0:
		m.Address |= 8
		return "addr"
	case 1:
		m.Dims[i] = 0
		return "dims0"
	case 2:
		m.Dims[i] = 1<<32 + uint64(r.in(1, 1000))
		return "dims_big"
	case 3:
		if rank < 2 {
			m.Box[i] = 0
			return "box0"
		}
		m.Strides[int(r.n(uint64(rank-1)))] += 8
		return "stride16"
	case 4:
		if rank < 2 {
			m.Box[i] = 300
			return "box_big"
		}
		m.Strides[int(r.n(uint64(rank-1)))] = 1<<40 + 16*uint64(r.in(0, 1000))
		return "stride_big"
	case 5:
		m.Box[i] = 0
		return "box0"
	case 6:
		m.Box[i] = uint32(r.in(257, 1024))
		return "box_big"
	case 7:
		m.ElemStrides[i] = 0
		return "estride0"
	case 8:
		m.ElemStrides[i] = uint32(r.in(9, 100))
		return "estride_big"
	case 9:
		m.Box[0] = m.Box[0]*2 + 8
		return "box_inner"
	case 10:
		m.OOB = OOBNaN
		return "oob"
	}
	m.Box[i] = uint32(min(m.Dims[i]+1, 256))
	return "box_dims"
}

// randomIm2col draws an im2col map (loose: fields within their own ranges,
// with no regard for each other).
func randomIm2col(r *splitmix, loose bool) *Map {
	rank := int(r.in(3, 5))
	m := &Map{Kind: Im2col, DType: randomDType(r), L2: L2Promotion(r.n(4)), Swizzle: randomSwizzle(r)}
	if r.chance(10) {
		m.Interleave = Interleave(r.in(1, 2))
	}
	if m.DType.IsFloat() && r.chance(30) {
		m.OOB = OOBNaN
	}
	bits := m.DType.Bits()
	align := uint64(16)
	if m.Interleave == Interleave32B || m.DType == U4x16Align16 || m.DType == U6x16Align16 {
		align = 32
	}
	m.Address = randomAddress(r, align)
	for i := 0; i < rank; i++ {
		m.Dims = append(m.Dims, uint64(r.in(1, 300)))
		m.ElemStrides = append(m.ElemStrides, 1)
		if r.chance(20) {
			m.ElemStrides[i] = uint32(r.in(1, 8))
		}
	}
	lim := int64(map[int]int{3: 32767, 4: 127, 5: 15}[rank])
	for i := 0; i < rank-2; i++ {
		if loose {
			m.Lower = append(m.Lower, int32(r.in(-lim-1, lim)))
			m.Upper = append(m.Upper, int32(r.in(-lim-1, lim)))
		} else {
			m.Lower = append(m.Lower, int32(r.in(-min(lim, 4), 0)))
			m.Upper = append(m.Upper, int32(r.in(-min(lim, 4), 0)))
		}
	}
	if m.DType.Packed() {
		m.Dims[0] = (m.Dims[0] + 127) / 128 * 128
	}
	m.Strides, _ = packedStrides(m.Dims, bits, align)
	if loose {
		for i := range m.Strides {
			m.Strides[i] = uint64(r.in(1, 1<<20)) * 16
		}
		m.Channels = uint32(r.in(1, 256))
		m.Pixels = uint32(r.in(1, 1024))
		return m
	}
	span := m.Swizzle.SpanBytes()
	if span == 0 {
		span = 256
	}
	unit := max(128/bits, 1)
	m.Channels = uint32(unit * int(r.in(1, int64(max(span*8/bits/unit, 1)))))
	if m.Channels > 256 {
		m.Channels = 256
	}
	if m.DType.Packed() {
		m.Channels = 128
	}
	m.Pixels = uint32(r.in(1, 256))
	return m
}

func randomWide(r *splitmix) *Map {
	m := randomIm2col(r, false)
	m.Kind, m.Lower, m.Upper = Im2colWide, nil, nil
	m.LowerW, m.UpperW = int32(r.in(-32, 31)), int32(r.in(-32, 31))
	m.Mode = WideMode(r.n(2))
	return m
}
