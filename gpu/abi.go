package gpu

// This file holds every use of package unsafe in tcsim's driver binding,
// so that it can be reviewed in one place. The rules it keeps:
//
//   - C strings returned by the driver (error names) point to static
//     storage; goString copies them into Go memory.
//   - Go memory handed to the driver is either a plain byte buffer passed
//     as a pointer for the duration of one call, or an array of pointers
//     (kernel parameters, JIT option values, launch attributes). Arrays of
//     pointers are built by a pinner (runtime.Pinner) that pins every
//     pointed-to object until the call returns, as the cgo pointer rules
//     require of Go memory that holds Go pointers.
//   - Device pointers (CUdeviceptr) are plain uint64 values, never Go
//     pointers.

import (
	"runtime"
	"unsafe"
)

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// alignedBytes returns n zero bytes whose address is a multiple of align
// (a power of two). Go's allocator does not move heap objects.
func alignedBytes(n, align int) []byte {
	b := make([]byte, n+align)
	off := int(uintptr(unsafe.Pointer(&b[0])) & uintptr(align-1))
	if off != 0 {
		off = align - off
	}
	return b[off : off+n : off+n]
}

// pinner builds arrays of C pointers to pinned Go memory.
type pinner struct{ p runtime.Pinner }

// addr pins b's backing array and returns its address as a C pointer.
func (pn *pinner) addr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	pn.p.Pin(&b[0])
	return uintptr(unsafe.Pointer(&b[0]))
}

// ptrs pins an array of C pointers itself and returns its first element.
func (pn *pinner) ptrs(a []uintptr) *uintptr {
	if len(a) == 0 {
		return nil
	}
	pn.p.Pin(&a[0])
	return &a[0]
}

// attrs pins an array of launch attributes.
func (pn *pinner) attrs(a []launchAttribute) *launchAttribute {
	if len(a) == 0 {
		return nil
	}
	pn.p.Pin(&a[0])
	return &a[0]
}

func (pn *pinner) unpin() { pn.p.Unpin() }

// launchConfig is CUlaunchConfig (cuda.h, CUDA 12+) on 64-bit platforms:
// seven unsigned ints, padding, CUstream, CUlaunchAttribute*, unsigned int.
type launchConfig struct {
	gridX, gridY, gridZ    uint32
	blockX, blockY, blockZ uint32
	sharedMemBytes         uint32
	_                      uint32
	stream                 uintptr
	attrs                  *launchAttribute
	numAttrs               uint32
	_                      uint32
}

// launchAttribute is CUlaunchAttribute: a 4-byte id, 4 bytes of padding
// and a 64-byte CUlaunchAttributeValue union.
type launchAttribute struct {
	id    uint32
	_     uint32
	value [64]byte
}

// The sizes the C ABI needs; checked by a test.
const (
	sizeofLaunchConfig    = 56
	sizeofLaunchAttribute = 72
)

// clusterDim stores CUlaunchAttributeValue.clusterDim {x, y, z}.
func (a *launchAttribute) setDim3(x, y, z uint32) {
	for i, v := range []uint32{x, y, z} {
		a.value[4*i] = byte(v)
		a.value[4*i+1] = byte(v >> 8)
		a.value[4*i+2] = byte(v >> 16)
		a.value[4*i+3] = byte(v >> 24)
	}
}

// memAllocationProp is CUmemAllocationProp: type, requested handle types,
// location {type, id}, win32HandleMetaData, allocFlags (8 bytes).
type memAllocationProp struct {
	typ          uint32 // CU_MEM_ALLOCATION_TYPE_PINNED = 1
	_            uint32 // requestedHandleTypes: none
	locationType uint32 // CU_MEM_LOCATION_TYPE_DEVICE = 1
	locationID   int32
	win32        uintptr
	_            [8]byte // allocFlags: none
}

// memAccessDesc is CUmemAccessDesc: location {type, id}, flags.
type memAccessDesc struct {
	locationType uint32
	locationID   int32
	flags        uint32 // CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
}

const (
	sizeofMemAllocationProp = 32
	sizeofMemAccessDesc     = 12
)
