package gpu

import (
	"time"

	"github.com/tcsim/tcsim/internal/provenance"
)

// Provenance describes this device for a hardware record (a fixture case,
// a cvt probe record): GPU, architecture, driver and CUDA versions, the
// date (RFC 3339, UTC), the recording tool's version and command. With a
// Result it adds what the run reported: the JIT log, the kernel's
// attributes and its time.
func (d *Device) Provenance(tcsimVersion, command string, res *Result) provenance.Provenance {
	i := d.Info
	p := provenance.Provenance{
		GPU: i.Name, Arch: i.Arch(), DriverVersion: i.DriverVersion, CUDAVersion: i.CUDA(),
		Date: time.Now().UTC().Format(time.RFC3339), TcsimVersion: tcsimVersion, Command: command,
	}
	if res != nil {
		p.JITLog, p.KernelAttrs = res.JITLog, res.Attrs.Map()
		p.ElapsedMS = float64(res.Elapsed.Microseconds()) / 1000
	}
	return p
}
