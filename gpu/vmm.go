package gpu

import (
	"fmt"
	"slices"
)

// Placement asks for a buffer of Size bytes at device address Addr.
type Placement struct {
	Addr uint64
	Size int
}

// region is a range of device virtual addresses reserved and backed with
// the driver's virtual memory management API (cuMemAddressReserve,
// cuMemCreate, cuMemMap): the memory behind buffers placed at given
// addresses. Buffers in one region share it; the last Free releases it.
type region struct {
	base, span uint64
	handle     uint64
	refs       int
}

// ReserveGranule is the granule of the address ranges AllocPlaced
// reserves. cuMemAddressReserve treats a fixed address as a hint; on an
// H100 with driver 580.159.04 it honoured every free address in
// 0x600000000000-0x7fffffffffff when the range's start and size were
// multiples of 32 MiB, and moved every request aligned to 2, 4, 8 or 16 MiB
// elsewhere (fixtures/tensormaps/README.md).
const ReserveGranule = 32 << 20

// AllocPlaced allocates buffers at the device addresses ps ask for, so
// that pointers recorded in another process (inside by-value parameters,
// tensor maps, device memory) are valid in this one. Placements may not
// overlap. Each is backed by whole 32 MiB granules (ReserveGranule);
// placements whose granules touch share one reservation. When the driver
// reserves elsewhere (the range is taken, or outside what this GPU maps)
// AllocPlaced fails, naming the range.
func (d *Device) AllocPlaced(ps []Placement) ([]*Buffer, error) {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
		if ps[i].Size <= 0 {
			return nil, fmt.Errorf("gpu: placement of %d bytes at %#x", ps[i].Size, ps[i].Addr)
		}
		if ps[i].Addr+uint64(ps[i].Size) < ps[i].Addr {
			return nil, fmt.Errorf("gpu: placement at %#x of %d bytes wraps around the address space", ps[i].Addr, ps[i].Size)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case ps[a].Addr < ps[b].Addr:
			return -1
		case ps[a].Addr > ps[b].Addr:
			return 1
		}
		return 0
	})
	for k := 1; k < len(idx); k++ {
		a, b := ps[idx[k-1]], ps[idx[k]]
		if a.Addr+uint64(a.Size) > b.Addr {
			return nil, fmt.Errorf("gpu: the placements at %#x (%d bytes) and %#x overlap", a.Addr, a.Size, b.Addr)
		}
	}
	if d.drv.cuMemAddressReserve == nil || d.drv.cuMemCreate == nil || d.drv.cuMemMap == nil || d.drv.cuMemSetAccess == nil || d.drv.cuMemGetAllocationGranularity == nil {
		return nil, fmt.Errorf("the CUDA driver lacks the virtual memory management API (cuMemAddressReserve, CUDA 10.2+): buffers cannot be placed at fixed addresses")
	}
	prop := memAllocationProp{typ: 1, locationType: 1, locationID: d.dev}
	var gran uint64
	if err := d.call(func(drv *driver) error {
		return drv.check(drv.cuMemGetAllocationGranularity(&gran, &prop, 0), "cuMemGetAllocationGranularity")
	}); err != nil {
		return nil, err
	}
	if gran == 0 || gran&(gran-1) != 0 || gran > ReserveGranule {
		return nil, fmt.Errorf("gpu: the driver reports an allocation granularity of %d", gran)
	}
	gran = ReserveGranule
	bufs := make([]*Buffer, len(ps))
	var regions []*region
	fail := func(err error) ([]*Buffer, error) {
		for _, r := range regions {
			d.releaseRegion(r)
		}
		return nil, err
	}
	for k := 0; k < len(idx); {
		// One region: the granules of consecutive placements that touch.
		lo := ps[idx[k]].Addr &^ (gran - 1)
		hi := roundUp(ps[idx[k]].Addr+uint64(ps[idx[k]].Size), gran)
		j := k + 1
		for j < len(idx) && ps[idx[j]].Addr&^(gran-1) <= hi {
			hi = max(hi, roundUp(ps[idx[j]].Addr+uint64(ps[idx[j]].Size), gran))
			j++
		}
		r, err := d.reserveRegion(lo, hi-lo, gran, &prop)
		if err != nil {
			return fail(err)
		}
		regions = append(regions, r)
		for _, i := range idx[k:j] {
			r.refs++
			bufs[i] = &Buffer{Ptr: ps[i].Addr, Size: ps[i].Size, dev: d, region: r}
		}
		k = j
	}
	return bufs, nil
}

func roundUp(v, g uint64) uint64 { return (v + g - 1) &^ (g - 1) }

// reserveRegion reserves [base, base+span), backs it with device memory and
// makes it readable and writable by the device.
func (d *Device) reserveRegion(base, span, gran uint64, prop *memAllocationProp) (*region, error) {
	r := &region{base: base, span: span}
	err := d.call(func(drv *driver) error {
		var got uint64
		if err := drv.check(drv.cuMemAddressReserve(&got, span, gran, base, 0), "cuMemAddressReserve"); err != nil {
			return fmt.Errorf("reserving %#x-%#x: %w", base, base+span, err)
		}
		if got != base {
			drv.cuMemAddressFree(got, span)
			return fmt.Errorf("cannot place buffers at %#x-%#x: the driver reserved %#x instead (the range is in use or outside what this GPU maps)", base, base+span, got)
		}
		if err := drv.check(drv.cuMemCreate(&r.handle, span, prop, 0), "cuMemCreate"); err != nil {
			drv.cuMemAddressFree(base, span)
			return fmt.Errorf("allocating %d bytes for %#x: %w", span, base, err)
		}
		if err := drv.check(drv.cuMemMap(base, span, 0, r.handle, 0), "cuMemMap"); err != nil {
			drv.cuMemRelease(r.handle)
			drv.cuMemAddressFree(base, span)
			return err
		}
		desc := memAccessDesc{locationType: 1, locationID: d.dev, flags: 3}
		if err := drv.check(drv.cuMemSetAccess(base, span, &desc, 1), "cuMemSetAccess"); err != nil {
			drv.cuMemUnmap(base, span)
			drv.cuMemRelease(r.handle)
			drv.cuMemAddressFree(base, span)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (d *Device) releaseRegion(r *region) error {
	return d.call(func(drv *driver) error {
		err := drv.check(drv.cuMemUnmap(r.base, r.span), "cuMemUnmap")
		if e := drv.check(drv.cuMemRelease(r.handle), "cuMemRelease"); err == nil {
			err = e
		}
		if e := drv.check(drv.cuMemAddressFree(r.base, r.span), "cuMemAddressFree"); err == nil {
			err = e
		}
		return err
	})
}
