package gpu

import (
	"fmt"
	"time"

	"github.com/tcsim/tcsim/launch"
)

// Buffer is device memory.
type Buffer struct {
	Ptr    uint64 // the device address
	Size   int
	dev    *Device
	region *region // for a buffer placed at a fixed address (AllocPlaced)
}

// Alloc allocates n bytes of device memory (cuMemAlloc_v2; 256-byte
// aligned).
func (d *Device) Alloc(n int) (*Buffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("gpu: alloc of %d bytes", n)
	}
	b := &Buffer{Size: n, dev: d}
	err := d.call(func(drv *driver) error {
		if err := drv.check(drv.cuMemAlloc(&b.Ptr, uint64(n)), "cuMemAlloc"); err != nil {
			return fmt.Errorf("allocating %d bytes: %w", n, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Write copies data to the start of the buffer.
func (b *Buffer) Write(data []byte) error {
	if len(data) > b.Size {
		return fmt.Errorf("gpu: writing %d bytes into a %d-byte buffer", len(data), b.Size)
	}
	if len(data) == 0 {
		return nil
	}
	return b.dev.call(func(drv *driver) error {
		return drv.check(drv.cuMemcpyHtoD(b.Ptr, &data[0], uint64(len(data))), "cuMemcpyHtoD")
	})
}

// Read copies the start of the buffer into p.
func (b *Buffer) Read(p []byte) error {
	if len(p) > b.Size {
		return fmt.Errorf("gpu: reading %d bytes from a %d-byte buffer", len(p), b.Size)
	}
	if len(p) == 0 {
		return nil
	}
	return b.dev.call(func(drv *driver) error {
		return drv.check(drv.cuMemcpyDtoH(&p[0], b.Ptr, uint64(len(p))), "cuMemcpyDtoH")
	})
}

// Bytes reads the whole buffer.
func (b *Buffer) Bytes() ([]byte, error) {
	p := make([]byte, b.Size)
	return p, b.Read(p)
}

// Memset sets every byte of the buffer to v (cuMemsetD8).
func (b *Buffer) Memset(v byte) error {
	return b.dev.call(func(drv *driver) error {
		return drv.check(drv.cuMemsetD8(b.Ptr, v, uint64(b.Size)), "cuMemsetD8")
	})
}

// Free releases the buffer.
func (b *Buffer) Free() error {
	if b.Ptr == 0 {
		return nil
	}
	if r := b.region; r != nil {
		b.Ptr, b.region = 0, nil
		if r.refs--; r.refs > 0 {
			return nil
		}
		return b.dev.releaseRegion(r)
	}
	err := b.dev.call(func(drv *driver) error { return drv.check(drv.cuMemFree(b.Ptr), "cuMemFree") })
	b.Ptr = 0
	return err
}

// TensorMapBytes is the size of a CUtensorMap.
const TensorMapBytes = 128

// EncodeTiled encodes a tiled tensor map (cuTensorMapEncodeTiled) over
// device memory at addr + m.Offset.
func (d *Device) EncodeTiled(m *launch.TensorMap, addr uint64) ([TensorMapBytes]byte, error) {
	var out [TensorMapBytes]byte
	if err := m.Validate(); err != nil {
		return out, err
	}
	if d.drv.cuTensorMapEncodeTiled == nil {
		return out, fmt.Errorf("the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12.0+)")
	}
	rank := len(m.Dims)
	dims := append([]uint64(nil), m.Dims...)
	strides := append(append([]uint64(nil), m.Strides...), 0) // never empty
	box := append([]uint32(nil), m.Box...)
	estr := append([]uint32(nil), m.ElemStrides...)
	tm := alignedBytes(TensorMapBytes, 64)
	err := d.call(func(drv *driver) error {
		r := drv.cuTensorMapEncodeTiled(&tm[0], uint32(m.DType), uint32(rank), addr+m.Offset, &dims[0], &strides[0], &box[0], &estr[0],
			uint32(m.Interleave), uint32(m.Swizzle), uint32(m.L2Promotion), uint32(m.OOBFill))
		if err := drv.check(r, "cuTensorMapEncodeTiled"); err != nil {
			return fmt.Errorf("tensor map %s: %w", m, err)
		}
		return nil
	})
	copy(out[:], tm)
	return out, err
}

// Event is a CUDA event, for timing.
type Event struct {
	dev *Device
	h   uintptr
}

// NewEvent creates an event that records time.
func (d *Device) NewEvent() (*Event, error) {
	e := &Event{dev: d}
	err := d.call(func(drv *driver) error { return drv.check(drv.cuEventCreate(&e.h, cuEventDefault), "cuEventCreate") })
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Record records the event on the default stream.
func (e *Event) Record() error {
	return e.dev.call(func(drv *driver) error { return drv.check(drv.cuEventRecord(e.h, 0), "cuEventRecord") })
}

// Synchronize waits for the event.
func (e *Event) Synchronize() error {
	return e.dev.call(func(drv *driver) error { return drv.check(drv.cuEventSynchronize(e.h), "cuEventSynchronize") })
}

// Since returns the time from start to e (both recorded and complete).
func (e *Event) Since(start *Event) (time.Duration, error) {
	var ms float32
	err := e.dev.call(func(drv *driver) error {
		return drv.check(drv.cuEventElapsedTime(&ms, start.h, e.h), "cuEventElapsedTime")
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	if e.h == 0 {
		return nil
	}
	err := e.dev.call(func(drv *driver) error { return drv.check(drv.cuEventDestroy(e.h), "cuEventDestroy") })
	e.h = 0
	return err
}
