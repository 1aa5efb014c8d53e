// Package provenance defines where a hardware result came from: the one
// record that every recorded fixture carries (fixtures.Provenance is this
// type), whether it is a fixture case or a record of cvt probe outputs.
package provenance

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Provenance says where recorded outputs came from.
type Provenance struct {
	GPU           string `json:"gpu"`            // e.g. "NVIDIA H100 80GB HBM3"
	Arch          string `json:"arch"`           // e.g. "sm_90"
	DriverVersion string `json:"driver_version"` // e.g. "580.159.04"
	CUDAVersion   string `json:"cuda_version"`   // the driver's CUDA version, e.g. "13.0"
	Date          string `json:"date"`           // RFC 3339, UTC (older records: the day, 2006-01-02)
	TcsimVersion  string `json:"tcsim_version"`
	Command       string `json:"command"` // the command that recorded the outputs
	// PTXAS is the version line of the ptxas on the recording machine
	// (e.g. "Cuda compilation tools, release 13.0, V13.0.88"), where one
	// was found; the kernels themselves are compiled by the driver's JIT.
	PTXAS string `json:"ptxas,omitempty"`
	// JITLog is the ptxas info log of the JIT (e.g. C75xx advice).
	JITLog string `json:"jit_log,omitempty"`
	// Kernel facts the driver reported (registers, static shared memory…).
	KernelAttrs map[string]int `json:"kernel_attrs,omitempty"`
	// ElapsedMS is the kernel's time between CUDA events, for reference.
	ElapsedMS float64 `json:"elapsed_ms,omitempty"`
	// Capture describes a launch recorded from a real program by
	// `tcsim capture`.
	Capture *CaptureInfo `json:"capture,omitempty"`
}

// CaptureInfo is what `tcsim capture` knows about a launch it recorded
// from a program: where it came from, and what each buffer is.
type CaptureInfo struct {
	Program     []string `json:"program"`      // the program's command line
	API         string   `json:"api"`          // the driver call, e.g. cuLaunchKernelEx
	Kernel      string   `json:"kernel"`       // the kernel's full (mangled) name
	LaunchIndex int64    `json:"launch_index"` // among the launches that matched --kernel
	PTXSource   string   `json:"ptx_source"`   // where the PTX came from
	// Buffers are the device allocations the launch could reach.
	Buffers []CapturedBuffer `json:"buffers"`
	// LeftOut names reachable memory that was not recorded, and why.
	LeftOut []string `json:"left_out,omitempty"`
	// TensorMaps are the cuTensorMapEncode* calls whose maps the launch's
	// parameters hold, with the parameter byte offset.
	TensorMaps []json.RawMessage `json:"tensor_maps,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
	// Arguments are the Python arguments of a Triton launch, as
	// tcsim_capture described them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CapturedBuffer is one recorded allocation.
type CapturedBuffer struct {
	Name        string `json:"name"` // the launch's buffer or parameter name
	Addr        string `json:"addr"` // the GPU's device address, 0x...
	Size        int64  `json:"size"`
	AllocatedBy string `json:"allocated_by,omitempty"`
	// Changed: the launch wrote it; it is an output of the case. An
	// unchanged buffer is not stored twice: replay checks that the
	// simulator left it as it was.
	Changed bool `json:"changed"`
	// The tensor in it, when known (Triton arguments, tensor maps).
	DType   string  `json:"dtype,omitempty"`
	Shape   []int64 `json:"shape,omitempty"`   // outermost first
	Strides []int64 `json:"strides,omitempty"` // in elements, outermost first
	Offset  int64   `json:"offset,omitempty"`  // bytes from the buffer's start to element 0
}

// wire is what UnmarshalJSON accepts: the fields of Provenance, and the
// three keys that the cvt probe records of fixtures/numfmt (recorded
// before the two encodings became one) use instead of theirs.
type wire struct {
	GPU           string         `json:"gpu"`
	Arch          string         `json:"arch"`
	DriverVersion string         `json:"driver_version"`
	CUDAVersion   string         `json:"cuda_version"`
	Date          string         `json:"date"`
	TcsimVersion  string         `json:"tcsim_version"`
	Command       string         `json:"command"`
	PTXAS         string         `json:"ptxas"`
	JITLog        string         `json:"jit_log"`
	KernelAttrs   map[string]int `json:"kernel_attrs"`
	ElapsedMS     float64        `json:"elapsed_ms"`
	Capture       *CaptureInfo   `json:"capture"`

	Driver string `json:"driver"` // = driver_version
	CUDA   string `json:"cuda"`   // = cuda_version
	Tool   string `json:"tool"`   // "tcsim VERSION" = tcsim_version
}

// UnmarshalJSON decodes a provenance object. Unknown keys are errors, so
// that a misspelt field is not silently dropped; the keys "driver",
// "cuda" and "tool" of older records are read as driver_version,
// cuda_version and tcsim_version.
func (p *Provenance) UnmarshalJSON(b []byte) error {
	var w wire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*p = Provenance{GPU: w.GPU, Arch: w.Arch, DriverVersion: w.DriverVersion, CUDAVersion: w.CUDAVersion,
		Date: w.Date, TcsimVersion: w.TcsimVersion, Command: w.Command, PTXAS: w.PTXAS, JITLog: w.JITLog,
		KernelAttrs: w.KernelAttrs, ElapsedMS: w.ElapsedMS, Capture: w.Capture}
	if p.DriverVersion == "" {
		p.DriverVersion = w.Driver
	}
	if p.CUDAVersion == "" {
		p.CUDAVersion = w.CUDA
	}
	if p.TcsimVersion == "" {
		p.TcsimVersion = strings.TrimPrefix(w.Tool, "tcsim ")
	}
	return nil
}
