package gpu

import (
	"fmt"

	"github.com/tcsim/tcsim/launch"
)

// LaunchConfig is one kernel launch at the driver level.
type LaunchConfig struct {
	Grid, Block launch.Dim3
	Cluster     launch.Dim3 // zero: a plain launch (cuLaunchKernel)
	SharedMem   int         // dynamic shared memory bytes
	// Args holds each parameter's by-value bytes in .entry order: scalars
	// little-endian, buffers as their 8-byte device address, tensor maps
	// as their 128 encoded bytes.
	Args [][]byte
}

// launchAttrClusterDimension is CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
const launchAttrClusterDimension = 4

// Launch enqueues the kernel on the default stream. A cluster launch uses
// cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION. Errors name
// the kernel; faults inside the kernel surface at the next synchronizing
// call (Device.Synchronize).
func (f *Function) Launch(c LaunchConfig) error {
	var pn pinner
	defer pn.unpin()
	// Each argument gets its own 64-byte-aligned copy, so that a tensor
	// map is read from aligned memory.
	ptrs := make([]uintptr, len(c.Args))
	for i, a := range c.Args {
		if len(a) == 0 {
			return fmt.Errorf("kernel %s: param %d has no bytes", f.Name, i)
		}
		b := alignedBytes(len(a), 64)
		copy(b, a)
		ptrs[i] = pn.addr(b)
	}
	var params *uintptr
	if len(ptrs) > 0 {
		params = pn.ptrs(ptrs)
	}
	return f.mod.dev.call(func(drv *driver) error {
		var r cuResult
		fn := "cuLaunchKernel"
		if c.Cluster.IsZero() {
			r = drv.cuLaunchKernel(f.h, c.Grid[0], c.Grid[1], c.Grid[2], c.Block[0], c.Block[1], c.Block[2], uint32(c.SharedMem), 0, params, nil)
		} else {
			fn = "cuLaunchKernelEx"
			if drv.cuLaunchKernelEx == nil {
				return fmt.Errorf("kernel %s: a cluster launch needs cuLaunchKernelEx (CUDA 11.8+), which the driver lacks", f.Name)
			}
			attrs := make([]launchAttribute, 1)
			attrs[0].id = launchAttrClusterDimension
			attrs[0].setDim3(c.Cluster[0], c.Cluster[1], c.Cluster[2])
			cfg := &launchConfig{
				gridX: c.Grid[0], gridY: c.Grid[1], gridZ: c.Grid[2],
				blockX: c.Block[0], blockY: c.Block[1], blockZ: c.Block[2],
				sharedMemBytes: uint32(c.SharedMem),
				attrs:          pn.attrs(attrs), numAttrs: 1,
			}
			r = drv.cuLaunchKernelEx(cfg, f.h, params, nil)
		}
		if err := drv.check(r, fn); err != nil {
			err.(*Error).Kernel = f.Name
			return err
		}
		return nil
	})
}
