package gpu

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/tensormap"
)

// EncodeTensorMap hands m to the driver's encoder for its kind
// (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col or
// cuTensorMapEncodeIm2colWide) exactly as given, with no checks of tcsim's
// own: the campaign that learns the encoding needs the driver's verdict on
// bad arguments too. The 128-byte, 64-byte-aligned output buffer is filled
// with prefill first, so that two calls with different fills show which
// bytes the driver leaves alone. A rejection is returned as an *Error whose
// Code is the driver's CUresult.
func (d *Device) EncodeTensorMap(m *tensormap.Map, prefill byte) ([tensormap.Size]byte, error) {
	var out [tensormap.Size]byte
	fn := map[tensormap.Kind]string{tensormap.Tiled: "cuTensorMapEncodeTiled", tensormap.Im2col: "cuTensorMapEncodeIm2col", tensormap.Im2colWide: "cuTensorMapEncodeIm2colWide"}[m.Kind]
	if fn == "" {
		return out, fmt.Errorf("tensor map kind %s has no driver encoder", m.Kind)
	}
	rank := m.Rank()
	// Every array has room for more entries than the rank says, so that a
	// driver that reads past a bad rank reads zeros, not other memory.
	n := max(rank, len(m.Strides), len(m.Box), len(m.ElemStrides), len(m.Lower), len(m.Upper)) + 8
	dims := make([]uint64, n)
	strides := make([]uint64, n)
	box := make([]uint32, n)
	estr := make([]uint32, n)
	lower := make([]int32, n)
	upper := make([]int32, n)
	copy(dims, m.Dims)
	copy(strides, m.Strides)
	copy(box, m.Box)
	copy(estr, m.ElemStrides)
	copy(lower, m.Lower)
	copy(upper, m.Upper)
	tm := alignedBytes(tensormap.Size, tensormap.Align)
	for i := range tm {
		tm[i] = prefill
	}
	err := d.call(func(drv *driver) error {
		var r cuResult
		switch m.Kind {
		case tensormap.Tiled:
			if drv.cuTensorMapEncodeTiled == nil {
				return fmt.Errorf("the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12.0+)")
			}
			r = drv.cuTensorMapEncodeTiled(&tm[0], uint32(m.DType), uint32(rank), m.Address, &dims[0], &strides[0], &box[0], &estr[0],
				uint32(m.Interleave), uint32(m.Swizzle), uint32(m.L2), uint32(m.OOB))
		case tensormap.Im2col:
			if drv.cuTensorMapEncodeIm2col == nil {
				return fmt.Errorf("the CUDA driver lacks cuTensorMapEncodeIm2col (CUDA 12.0+)")
			}
			r = drv.cuTensorMapEncodeIm2col(&tm[0], uint32(m.DType), uint32(rank), m.Address, &dims[0], &strides[0], &lower[0], &upper[0],
				m.Channels, m.Pixels, &estr[0], uint32(m.Interleave), uint32(m.Swizzle), uint32(m.L2), uint32(m.OOB))
		case tensormap.Im2colWide:
			if drv.cuTensorMapEncodeIm2colW == nil {
				return fmt.Errorf("the CUDA driver lacks cuTensorMapEncodeIm2colWide (CUDA 12.8+)")
			}
			r = drv.cuTensorMapEncodeIm2colW(&tm[0], uint32(m.DType), uint32(rank), m.Address, &dims[0], &strides[0], m.LowerW, m.UpperW,
				m.Channels, m.Pixels, &estr[0], uint32(m.Interleave), uint32(m.Mode), uint32(m.Swizzle), uint32(m.L2), uint32(m.OOB))
		}
		return drv.check(r, fn)
	})
	copy(out[:], tm)
	return out, err
}

// HasEncoder reports whether the driver exports the encoder of kind k.
func (d *Device) HasEncoder(k tensormap.Kind) bool {
	switch k {
	case tensormap.Tiled:
		return d.drv.cuTensorMapEncodeTiled != nil
	case tensormap.Im2col:
		return d.drv.cuTensorMapEncodeIm2col != nil
	case tensormap.Im2colWide:
		return d.drv.cuTensorMapEncodeIm2colW != nil
	}
	return false
}
