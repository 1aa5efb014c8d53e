package tensormap

import "fmt"

// FieldError is an argument the driver would reject: the field and the
// rule it breaks.
type FieldError struct {
	Field string // e.g. "box[0]", "strides[1]", "swizzle"
	Rule  string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

func bad(field, format string, args ...any) error {
	return &FieldError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// ElemBytesTimes returns n elements' size in bytes, rounded up (packed
// types are 4 or 6 bits).
func (t DType) ElemBytesTimes(n uint64) uint64 { return (n*uint64(t.Bits()) + 7) / 8 }

// addrAlign is the alignment the driver requires of the global address and
// the strides.
func (m *Map) addrAlign() uint64 {
	if m.Interleave == Interleave32B {
		return 32
	}
	return 16
}

// InnerBoxBytes is the size in bytes of the box's innermost dimension: the
// row TMA writes to shared memory (box[0] elements for tiled maps,
// channelsPerPixel for im2col).
func (m *Map) InnerBoxBytes() uint64 {
	var n uint64
	switch m.Kind {
	case Tiled:
		if len(m.Box) > 0 {
			n = uint64(m.Box[0])
		}
	default:
		n = uint64(m.Channels)
	}
	return m.DType.ElemBytesTimes(n)
}

// MaxTransferBytes is the most bytes one load through a map may move
// (TransferBytes) on an H100: 228 KiB, the shared memory of one SM. The
// campaign saw 233,472 accepted and 234,000 rejected.
const MaxTransferBytes = 228 << 10

// Validate checks m against the rules of the CUDA 13 driver's encoders on an
// H100 (sm_90), so that a map the driver would reject is reported with the
// field and the rule. The rules are the ones the recorded campaign
// (fixtures/tensormaps) shows the driver enforcing, which differ from the
// documentation in places: the inner box must be a multiple of 16 bytes
// with interleaving too; interleave=32B does not need swizzle=32B; a box
// may be larger than the tensor; a stride may be 0 or smaller than the
// dimension below it; the address may be 0 and must be below 2^57; one load
// may move at most MaxTransferBytes; the packed 4/6-bit types and the
// 128B_atom swizzles are rejected on this GPU. With Target SM100 the
// 16U4_ALIGN8B type and the 128B_atom_32B swizzle are accepted under the
// same rules (modelled: the inner box counts packed bytes, 128B_atom_32B
// spans 128 bytes like 128B); the other packed types and 128B_atom
// swizzles stay rejected, as tcsim does not model them.
func (m *Map) Validate() error {
	rank := m.Rank()
	if int(m.Kind) >= len(kindNames) {
		return bad("kind", "%d is not a tensor-map kind", m.Kind)
	}
	if !m.DType.Known() {
		return bad("dtype", "%d is not a CUtensorMapDataType (0-15)", uint32(m.DType))
	}
	if m.DType.Packed() && !(m.Target == SM100 && m.DType == U4x16Align8) {
		if m.Target == SM100 {
			return bad("dtype", "%s: of the packed types tcsim models 16U4_ALIGN8B only (sm_100a)", m.DType)
		}
		return bad("dtype", "%s: the driver rejects the packed 4/6-bit types on an H100 (sm_90)", m.DType)
	}
	if !m.Interleave.Known() {
		return bad("interleave", "%d is not a CUtensorMapInterleave (0-2)", uint32(m.Interleave))
	}
	if !m.Swizzle.Known() {
		return bad("swizzle", "%d is not a CUtensorMapSwizzle (0-6)", uint32(m.Swizzle))
	}
	if m.Swizzle >= Swizzle128BAtom32B && !(m.Target == SM100 && m.Swizzle == Swizzle128BAtom32B) {
		if m.Target == SM100 {
			return bad("swizzle", "%s: of the 128B_atom swizzles tcsim models 128B_atom_32B only (sm_100a)", m.Swizzle)
		}
		return bad("swizzle", "%s: the driver rejects the 128B_atom swizzles on an H100 (sm_90)", m.Swizzle)
	}
	if !m.L2.Known() {
		return bad("l2", "%d is not a CUtensorMapL2promotion (0-3)", uint32(m.L2))
	}
	if !m.OOB.Known() {
		return bad("oob", "%d is not a CUtensorMapFloatOOBfill (0-1)", uint32(m.OOB))
	}
	if m.Kind == Im2colWide && !m.Mode.Known() {
		return bad("mode", "%d is not a CUtensorMapIm2ColWideMode (0-1)", uint32(m.Mode))
	}
	if m.Kind == Tiled {
		if rank < 1 || rank > 5 {
			return bad("dims", "rank %d: a tiled map has rank 1 to 5", rank)
		}
	} else if rank < 3 || rank > 5 {
		return bad("dims", "rank %d: an im2col map has rank 3 to 5", rank)
	}
	if m.Interleave != InterleaveNone && rank < 3 {
		return bad("interleave", "interleave=%s needs rank 3 or more, have %d", m.Interleave, rank)
	}
	if len(m.Strides) != rank-1 {
		return bad("strides", "%d entries; a rank-%d map needs %d (dim 0's stride is the element size)", len(m.Strides), rank, rank-1)
	}
	if len(m.ElemStrides) != rank {
		return bad("estrides", "%d entries, the rank is %d", len(m.ElemStrides), rank)
	}
	align := m.addrAlign()
	why := ""
	if align == 32 {
		why = " with interleave=32B"
	}
	if m.Address%align != 0 {
		return bad("addr", "%#x is not %d-byte aligned%s", m.Address, align, why)
	}
	if m.Address >= 1<<57 {
		return bad("addr", "%#x: the driver takes addresses below 2^57", m.Address)
	}
	for i, d := range m.Dims {
		if d == 0 || d > 1<<32 {
			return bad(fmt.Sprintf("dims[%d]", i), "%d: want 1 to 2^32", d)
		}
	}
	for i, s := range m.Strides {
		f := fmt.Sprintf("strides[%d]", i)
		if s%align != 0 {
			return bad(f, "%d (the stride of dim %d) is not a multiple of %d bytes%s", s, i+1, align, why)
		}
		if s >= 1<<40 {
			return bad(f, "%d: must be less than 2^40", s)
		}
	}
	for i, e := range m.ElemStrides {
		if e == 0 || e > 8 {
			return bad(fmt.Sprintf("estrides[%d]", i), "%d: want 1 to 8", e)
		}
	}
	inner := "box[0]"
	switch m.Kind {
	case Tiled:
		if len(m.Box) != rank {
			return bad("box", "%d entries, the rank is %d", len(m.Box), rank)
		}
		for i, b := range m.Box {
			if b == 0 || b > 256 {
				return bad(fmt.Sprintf("box[%d]", i), "%d: want 1 to 256", b)
			}
		}
	default:
		inner = "channels"
		if m.Channels == 0 || m.Channels > 256 {
			return bad("channels", "%d: want 1 to 256", m.Channels)
		}
		if m.Pixels == 0 || m.Pixels > 1024 {
			return bad("pixels", "%d: want 1 to 1024", m.Pixels)
		}
		c := Canonical(m)
		if m.Kind == Im2col && (len(m.Lower) != rank-2 || len(m.Upper) != rank-2) {
			return bad("lower", "the corners have %d and %d entries; a rank-%d im2col map needs %d", len(m.Lower), len(m.Upper), rank, rank-2)
		}
		lim := map[int]int32{3: 32768, 4: 128, 5: 16}[rank]
		for i := range c.Lower {
			for _, k := range []struct {
				name string
				v    int32
			}{{"lower", c.Lower[i]}, {"upper", c.Upper[i]}} {
				if k.v < -lim || k.v >= lim {
					name := fmt.Sprintf("%s[%d]", k.name, i)
					if m.Kind == Im2colWide {
						name = k.name + "_w"
					}
					return bad(name, "%d: a rank-%d im2col corner is within [%d, %d]", k.v, rank, -lim, lim-1)
				}
			}
			// The driver adds the upper corner to the dimension in 32-bit
			// signed arithmetic (dims of 2^31 and more wrap) before it
			// subtracts the lower corner.
			if ext := int64(int32(uint32(m.Dims[i+1])+uint32(c.Upper[i]))) - int64(c.Lower[i]); ext <= 0 {
				return bad(fmt.Sprintf("lower[%d]", i), "dims[%d] %d + upper %d - lower %d: the bounding box is empty (the driver computes dims + upper as a signed 32-bit number)", i+1, m.Dims[i+1], c.Upper[i], c.Lower[i])
			}
		}
	}
	if ib := m.InnerBoxBytes(); ib%16 != 0 {
		return bad(inner, "%d × %s = %d bytes: the inner box must be a multiple of 16 bytes", ib*8/uint64(m.DType.Bits()), m.DType, ib)
	}
	if m.Interleave == InterleaveNone {
		if span := m.Swizzle.SpanBytes(); span != 0 && m.InnerBoxBytes() > uint64(span) {
			return bad("swizzle", "the inner box is %d bytes, wider than the %s swizzle span of %d bytes", m.InnerBoxBytes(), m.Swizzle, span)
		}
	}
	if tb := m.TransferBytes(); tb > MaxTransferBytes {
		return bad("box", "one load moves %d bytes, more than the %d (228 KiB) the driver allows on an H100", tb, MaxTransferBytes)
	}
	if m.OOB == OOBNaN && !m.DType.IsFloat() {
		return bad("oob", "oob=nan needs a floating-point dtype, have %s", m.DType)
	}
	return nil
}
