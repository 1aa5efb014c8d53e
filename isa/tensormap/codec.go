package tensormap

import (
	"encoding/binary"
	"fmt"
)

// The CUtensorMap layout, as the CUDA 13 driver (580.159.04) writes it on an
// H100 and as the recorded campaign (fixtures/tensormaps) pins down. Bit
// positions are within the map's sixteen little-endian 64-bit words, w0 to
// w15; bit b of word w is bit 64·w+b of the map.
//
//	w0  [0,63]   global address (the driver accepts addresses below 2^57)
//	w1  [0]      1 for im2col maps (and im2col-wide), 0 for tiled
//	w1  [4,6]    rank − 1
//	w1  [7,10]   element type code (u8 0, u16 1, u32 2, s32 3, u64 4, s64 5,
//	             f16 6, f32 and tf32 7, f32ftz and tf32ftz 8, f64 9, bf16 10)
//	w1  [11,12]  interleave
//	w1  [13,14]  swizzle (none, 32B, 64B, 128B)
//	w1  [15]     out-of-bounds fill NaN
//	w1  [16]     tf32: round f32 elements to tf32
//	w1  [17,18]  L2 promotion
//	w1  [32,63]  bits 0-31 of strides[0] >> 4
//	w2  [0,31]   bits 0-31 of strides[1] >> 4
//	w2  [32,63]  bits 0-31 of strides[2] >> 4
//	w3  [0,31]   bits 0-31 of strides[3] >> 4
//	w3  [32,47]  bits 32-35 of strides[i] >> 4 at 32+4i
//	w4, w5, w6[0,31]  dims[i] − 1, 32 bits each
//	w6  [32,46]  elementStrides[i] − 1, 3 bits each at 32+3i
//	w6  [56,63]  box[0] − 1 (tiled) or channelsPerPixel − 1 (im2col)
//	w7  tiled:   box[1..4] − 1, a byte each
//	w7  im2col:  [0,15] lower corner, [16,31] upper corner, signed, innermost
//	             (W) first: one 16-bit offset (rank 3), two 8-bit (rank 4) or
//	             three 5-bit (rank 5); [32,41] pixelsPerColumn − 1
//	w8  the bytes one load moves: the element size times, for tiled maps,
//	    the product of floor(box[i] / elementStrides[i]), for im2col maps
//	    channelsPerPixel × pixelsPerColumn
//	w9  the shared-memory alignment the swizzle needs: 16, 256, 512, 1024
//	w10-w15  zero
//
// Every other bit is zero in every map the campaign recorded. The driver
// writes all 128 bytes. An im2col-wide map is written as an im2col map whose
// W corners are the wide corners and whose other corners are zero; the W and
// W128 modes give the same bytes. The H100's driver rejects the packed
// 4/6-bit types and the 128B_atom swizzles, so their encoding is not known.
//
// For sm_100a kernels (Target SM100) tcsim models two of them, with an
// encoding of its own that no driver was seen to write (not
// hardware-verified): 16U4_ALIGN8B as element type code 13 in w1[7,10]
// (the enum's value; w8 counts packed bytes), and 128B_atom_32B as the
// 128B swizzle code with w1[20] set (w9: 512, the pattern's repeat). Only
// maps with Target SM100 are encoded this way, and Decode reads them back
// with Target SM100.

const (
	flagIm2col   = 1 << 0
	shiftRank    = 4
	shiftType    = 7
	shiftIL      = 11
	shiftSwizzle = 13
	flagOOBNaN   = 1 << 15
	flagTF32     = 1 << 16
	shiftL2      = 17
	flagAtom32   = 1 << 20 // modelled (sm_100a): 128B_atom_32B
	// knownW1 are the bits of w1's low half that carry a field.
	knownW1 = flagIm2col | 7<<shiftRank | 15<<shiftType | 3<<shiftIL | 3<<shiftSwizzle | flagOOBNaN | flagTF32 | 3<<shiftL2
	// hwU4x16Align8 is the modelled element type code of 16U4_ALIGN8B.
	hwU4x16Align8 = 13
)

// hwType is the element type code of each data type the driver encodes on
// sm_90; the packed types are absent (their encoding is not known).
var hwType = map[DType]uint64{U8: 0, U16: 1, U32: 2, S32: 3, U64: 4, S64: 5, F16: 6, F32: 7, F32FTZ: 8, F64: 9, BF16: 10, TF32: 7, TF32FTZ: 8}

// fromHW maps an element type code (and the tf32 flag) back.
var fromHW = [2][11]DType{
	{U8, U16, U32, S32, U64, S64, F16, F32, F32FTZ, F64, BF16},
	{0, 0, 0, 0, 0, 0, 0, TF32, TF32FTZ, 0, 0},
}

// swizzleAlign is the shared-memory alignment (w9) of each swizzle.
var swizzleAlign = [4]uint64{16, 256, 512, 1024}

// cornerBits is the width of each im2col corner offset by rank.
func cornerBits(rank int) int {
	switch rank {
	case 3:
		return 16
	case 4:
		return 8
	}
	return 5
}

// NotModelled reports why the model cannot encode m though the driver of
// some GPU may accept it ("" when it can).
func (m *Map) NotModelled() string {
	if m.Target == SM100 && (m.DType == U4x16Align8 || !m.DType.Packed()) && (m.Swizzle == Swizzle128BAtom32B || m.Swizzle < Swizzle128BAtom32B) {
		return ""
	}
	if m.DType.Packed() {
		return fmt.Sprintf("dtype=%s: the H100's driver rejects the packed types, so the campaign could not learn their encoding", m.DType)
	}
	if m.Swizzle >= Swizzle128BAtom32B && m.Swizzle.Known() {
		return fmt.Sprintf("swizzle=%s: the H100's driver rejects the 128B_atom swizzles, so the campaign could not learn their encoding", m.Swizzle)
	}
	return ""
}

// TransferBytes is the number of bytes one load through the map moves (what
// the driver stores in w8): for tiled maps the element size times the
// product over dimensions of floor(box[i] / elementStrides[i]), for im2col
// maps the element size times channelsPerPixel × pixelsPerColumn.
func (m *Map) TransferBytes() uint64 {
	if m.Kind != Tiled {
		return m.DType.ElemBytesTimes(uint64(m.Channels) * uint64(m.Pixels))
	}
	n := uint64(1)
	for i, b := range m.Box {
		e := uint32(1)
		if i < len(m.ElemStrides) && m.ElemStrides[i] > 0 {
			e = m.ElemStrides[i]
		}
		n *= uint64(b / e)
	}
	return m.DType.ElemBytesTimes(n)
}

// Encode returns the 128 bytes the driver writes for m, or the rule m
// breaks.
func Encode(m *Map) ([Size]byte, error) {
	var b [Size]byte
	if err := m.Validate(); err != nil {
		return b, err
	}
	if why := m.NotModelled(); why != "" {
		return b, fmt.Errorf("cannot encode: %s", why)
	}
	c := Canonical(m)
	var w [16]uint64
	rank := c.Rank()
	w[0] = c.Address
	typ, swz := hwType[c.DType], uint64(c.Swizzle)
	if c.DType == U4x16Align8 {
		typ = hwU4x16Align8
	}
	align := uint64(0)
	if c.Swizzle == Swizzle128BAtom32B {
		swz, align = uint64(Swizzle128B), 512
	}
	w[1] = uint64(rank-1)<<shiftRank | typ<<shiftType | uint64(c.Interleave)<<shiftIL |
		swz<<shiftSwizzle | uint64(c.L2)<<shiftL2
	if c.Swizzle == Swizzle128BAtom32B {
		w[1] |= flagAtom32
	}
	if c.OOB == OOBNaN {
		w[1] |= flagOOBNaN
	}
	if c.DType == TF32 || c.DType == TF32FTZ {
		w[1] |= flagTF32
	}
	var st [4]uint64
	for i, s := range c.Strides {
		st[i] = s >> 4
	}
	w[1] |= (st[0] & 0xffffffff) << 32
	w[2] = st[1]&0xffffffff | (st[2]&0xffffffff)<<32
	w[3] = st[3] & 0xffffffff
	for i := range st {
		w[3] |= (st[i] >> 32 & 0xf) << (32 + 4*i)
	}
	var d [5]uint64
	for i, x := range c.Dims {
		d[i] = x - 1
	}
	w[4] = d[0] | d[1]<<32
	w[5] = d[2] | d[3]<<32
	w[6] = d[4]
	for i, e := range c.ElemStrides {
		w[6] |= uint64(e-1) << (32 + 3*i)
	}
	if c.Kind == Tiled {
		w[6] |= uint64(c.Box[0]-1) << 56
		for i := 1; i < rank; i++ {
			w[7] |= uint64(c.Box[i]-1) << (8 * (i - 1))
		}
	} else {
		w[1] |= flagIm2col
		w[6] |= uint64(c.Channels-1) << 56
		bits := cornerBits(rank)
		mask := uint64(1)<<bits - 1
		for i := range c.Lower {
			w[7] |= (uint64(int64(c.Lower[i])) & mask) << (bits * i)
			w[7] |= (uint64(int64(c.Upper[i])) & mask) << (16 + bits*i)
		}
		w[7] |= uint64(c.Pixels-1) << 32
	}
	w[8] = c.TransferBytes()
	if align == 0 {
		align = swizzleAlign[c.Swizzle]
	}
	w[9] = align
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b, nil
}

// Decoded is a CUtensorMap read back into the driver's arguments.
type Decoded struct {
	Map *Map
	// Unknown lists the bits the model cannot account for: set bits where
	// every recorded map has zeros, codes no recorded map used, derived
	// fields that disagree with the others. A map with unknown bits was not
	// written by the driver the model was fitted to, or is not a tensor
	// map. Each entry names the bits and what is wrong.
	Unknown []string
	// Notes say what the bytes cannot tell apart (an im2col map from an
	// im2col-wide one).
	Notes []string
	// Words are the sixteen 64-bit words.
	Words [16]uint64
}

// Decode reads the 128 bytes of a CUtensorMap. It never fails: what it
// cannot account for is listed in Unknown.
func Decode(b [Size]byte) (*Decoded, error) {
	dec := &Decoded{}
	w := &dec.Words
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	unknown := func(format string, args ...any) { dec.Unknown = append(dec.Unknown, fmt.Sprintf(format, args...)) }
	m := &Map{Kind: Tiled}
	rank := dec.word1(m, w[1]&0xffffffff, unknown)
	var st [4]uint64
	st[0] = w[1] >> 32
	st[1] = w[2] & 0xffffffff
	st[2] = w[2] >> 32
	st[3] = w[3] & 0xffffffff
	for i := range st {
		st[i] |= (w[3] >> (32 + 4*i) & 0xf) << 32
	}
	if x := w[3] >> 48; x != 0 {
		unknown("w3[48:63]: %#x (zero in every recorded map)", x)
	}
	for i := 0; i < 4; i++ {
		if i < rank-1 {
			m.Strides = append(m.Strides, st[i]<<4)
		} else if st[i] != 0 {
			unknown("strides[%d] = %d beyond rank %d", i, st[i]<<4, rank)
		}
	}
	d := [5]uint64{w[4] & 0xffffffff, w[4] >> 32, w[5] & 0xffffffff, w[5] >> 32, w[6] & 0xffffffff}
	for i := range d {
		if i < rank {
			m.Dims = append(m.Dims, d[i]+1)
		} else if d[i] != 0 {
			unknown("dims[%d] = %d beyond rank %d", i, d[i]+1, rank)
		}
	}
	for i := 0; i < 5; i++ {
		e := uint32(w[6]>>(32+3*i)&7) + 1
		if i < rank {
			m.ElemStrides = append(m.ElemStrides, e)
		} else if e != 1 {
			unknown("estrides[%d] = %d beyond rank %d", i, e, rank)
		}
	}
	if x := w[6] >> 47 & 0x1ff; x != 0 {
		unknown("w6[47:55]: %#x (zero in every recorded map)", x)
	}
	inner := uint32(w[6]>>56) + 1
	if m.Kind == Tiled {
		m.Box = append(m.Box, inner)
		for i := 1; i < 5; i++ {
			v := uint32(w[7]>>(8*(i-1))&0xff) + 1
			if i < rank {
				m.Box = append(m.Box, v)
			} else if v != 1 {
				unknown("box[%d] = %d beyond rank %d", i, v, rank)
			}
		}
		if x := w[7] >> 32; x != 0 {
			unknown("w7[32:63]: %#x in a tiled map (zero in every recorded one)", x)
		}
	} else {
		m.Channels = inner
		m.Pixels = uint32(w[7]>>32&0x3ff) + 1
		if x := w[7] >> 42; x != 0 {
			unknown("w7[42:63]: %#x (zero in every recorded map)", x)
		}
		n := max(rank-2, 1)
		bits := cornerBits(rank)
		for _, half := range []struct {
			dst   *[]int32
			shift int
			name  string
		}{{&m.Lower, 0, "lower"}, {&m.Upper, 16, "upper"}} {
			f := w[7] >> half.shift & 0xffff
			for i := 0; i < n; i++ {
				v := int64(f>>(bits*i)) & (1<<bits - 1)
				if v >= 1<<(bits-1) {
					v -= 1 << bits
				}
				*half.dst = append(*half.dst, int32(v))
			}
			if used := bits * n; used < 16 && f>>used != 0 {
				unknown("w7: %s corner bits %d-15 set (rank %d uses %d)", half.name, used, rank, used)
			}
		}
		dec.Notes = append(dec.Notes, "im2col and im2col-wide maps have the same bytes (an im2col-wide map is an im2col map with only W corners; its W/W128 mode is not in the bytes)")
	}
	m.Address = w[0]
	if w[0] >= 1<<57 {
		unknown("w0: address %#x at or above 2^57 (the driver rejects those)", w[0])
	}
	if m.Kind == Im2col && m.DType.Known() {
		if got, want := w[8], m.TransferBytes(); got != want {
			unknown("w8: %d bytes per load; the other fields give %d", got, want)
		}
	} else if m.Kind == Tiled && m.DType.Known() {
		if got, want := w[8], m.TransferBytes(); got != want {
			unknown("w8: %d bytes per load; the other fields give %d", got, want)
		}
	}
	wantAlign := uint64(512)
	if m.Swizzle < Swizzle128BAtom32B {
		wantAlign = swizzleAlign[m.Swizzle]
	}
	if got, want := w[9], wantAlign; got != want {
		unknown("w9: %d; swizzle=%s gives %d", got, m.Swizzle, want)
	}
	for i := 10; i < 16; i++ {
		if w[i] != 0 {
			unknown("w%d: %#x (zero in every recorded map)", i, w[i])
		}
	}
	dec.Map = m
	return dec, nil
}

// word1 reads the fields of w1's low half (lo1) into m: the kind, rank,
// element type, interleave, swizzle, OOB fill and L2 promotion. It returns
// the rank.
func (dec *Decoded) word1(m *Map, lo1 uint64, unknown func(format string, args ...any)) int {
	if lo1&flagIm2col != 0 {
		m.Kind = Im2col
	}
	rank := int(lo1>>shiftRank&7) + 1
	if rank > 5 {
		unknown("w1[4:6]: rank %d (the driver encodes rank 1 to 5)", rank)
		rank = 5
	}
	if m.Kind == Im2col && rank < 3 {
		unknown("w1[4:6]: an im2col map of rank %d (im2col maps have rank 3 to 5)", rank)
	}
	code := lo1 >> shiftType & 15
	tf := lo1&flagTF32 != 0
	switch {
	case code == hwU4x16Align8 && !tf:
		m.DType, m.Target = U4x16Align8, SM100
		dec.Notes = append(dec.Notes, "element type code 13 is tcsim's model of 16U4_ALIGN8B for sm_100a (not hardware-verified)")
	case code > 10:
		unknown("w1[7:10]: element type code %d (no recorded map used it; of the packed 4/6-bit types only 16U4_ALIGN8B is modelled)", code)
	case tf && code != 7 && code != 8:
		unknown("w1[16]: the tf32 flag with element type code %d (recorded only with f32 and f32ftz)", code)
	default:
		m.DType = fromHW[b2i(tf)][code]
	}
	m.Interleave = Interleave(lo1 >> shiftIL & 3)
	if !m.Interleave.Known() {
		unknown("w1[11:12]: interleave code 3")
	}
	m.Swizzle = Swizzle(lo1 >> shiftSwizzle & 3)
	if lo1&flagOOBNaN != 0 {
		m.OOB = OOBNaN
	}
	m.L2 = L2Promotion(lo1 >> shiftL2 & 3)
	if lo1&flagAtom32 != 0 && m.Swizzle == Swizzle128B {
		m.Swizzle, m.Target = Swizzle128BAtom32B, SM100
		lo1 &^= flagAtom32
		dec.Notes = append(dec.Notes, "w1[20] with the 128B swizzle code is tcsim's model of 128B_atom_32B for sm_100a (not hardware-verified)")
	}
	if x := lo1 &^ knownW1; x != 0 {
		unknown("w1: bits %s set (zero in every recorded map)", bitList(x, 0))
	}
	return rank
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func bitList(x uint64, base int) string {
	s := ""
	for i := 0; i < 64; i++ {
		if x>>i&1 != 0 {
			if s != "" {
				s += ","
			}
			s += fmt.Sprint(base + i)
		}
	}
	return s
}

// Canonical returns m as its encoding keeps it: an im2col-wide map becomes
// the im2col map the driver writes for it (W corners, other corners zero,
// no mode).
func Canonical(m *Map) *Map {
	c := m.Clone()
	if c.Kind == Im2colWide {
		c.Kind = Im2col
		n := max(c.Rank()-2, 1)
		c.Lower, c.Upper = make([]int32, n), make([]int32, n)
		c.Lower[0], c.Upper[0] = c.LowerW, c.UpperW
		c.LowerW, c.UpperW, c.Mode = 0, 0, 0
	}
	if c.Kind != Tiled {
		c.Box = nil
	}
	return c
}
