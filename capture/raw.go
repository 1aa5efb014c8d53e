// Package capture records kernel launches from real programs on a GPU
// machine and turns them into fixture cases that tcsim replays on the CPU.
//
// Recording has two halves that write one raw format:
//   - a CUDA driver interposer (interpose.c, compiled at capture time with
//     the machine's C compiler and injected with LD_PRELOAD) that records
//     every selected launch as the driver sees it: the parameter bytes, the
//     device memory the launch can reach before and after it, the module
//     image and the tensor maps the program encoded;
//   - a Python module (tcsim_capture.py) that hooks Triton: beside the
//     interposer it names the PTX and the arguments of each launch; on its
//     own it records launches from Triton's launch hooks.
//
// Convert reads the raw records (RawLaunch) and writes fixture cases.
// The package itself is pure Go: tcsim stays cgo-free.
package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RawLaunch is one recorded launch: launch.json in a launch-* directory.
type RawLaunch struct {
	Dir        string          `json:"-"`      // the launch directory
	Source     string          `json:"source"` // "driver" or "triton"
	PID        int             `json:"pid"`
	Seq        int64           `json:"seq"`
	Index      int64           `json:"index"`
	API        string          `json:"api"`
	Kernel     string          `json:"kernel"`
	Function   string          `json:"function"`
	Grid       [3]uint32       `json:"grid"`
	Block      [3]uint32       `json:"block"`
	Cluster    [3]uint32       `json:"cluster"`
	SharedMem  int             `json:"smem"`
	MaxDynSmem int             `json:"max_dynamic_smem_attr"`
	Coop       bool            `json:"cooperative"`
	Stream     string          `json:"stream"`
	Image      string          `json:"image"` // relative to the raw directory
	ImageKind  string          `json:"image_kind"`
	ImagePath  string          `json:"image_path"`
	ParamBytes string          `json:"param_bytes"`
	Params     []RawParam      `json:"params"`
	TensorMaps []RawTensorMap  `json:"tensormaps"`
	Buffers    []RawBuffer     `json:"buffers"`
	Launch     int             `json:"launch_result"`
	Sync       int             `json:"sync_result"`
	Notes      []string        `json:"notes"`
	Annotation *Annotation     `json:"annotation"`
	Extra      json.RawMessage `json:"-"`
}

// RawParam is one kernel parameter's place in the parameter space.
type RawParam struct {
	Offset int `json:"offset"`
	Size   int `json:"size"`
}

// RawTensorMap is a tensor map found in the parameter bytes, with the
// arguments the program passed to the driver to encode it.
type RawTensorMap struct {
	Offset int       `json:"offset"`
	Encode EncodeArg `json:"encode"`
}

// EncodeArg is what cuTensorMapEncodeTiled/Im2col was called with.
type EncodeArg struct {
	Kind       string   `json:"kind"` // tiled or im2col
	DType      int      `json:"dtype"`
	Rank       int      `json:"rank"`
	Addr       string   `json:"addr"`
	Dims       []uint64 `json:"dims"`
	Strides    []uint64 `json:"strides"`
	Box        []uint32 `json:"box,omitempty"`
	EStrides   []uint32 `json:"estrides"`
	Interleave int      `json:"interleave"`
	Swizzle    int      `json:"swizzle"`
	L2         int      `json:"l2"`
	OOB        int      `json:"oob"`
	Lower      []int    `json:"lower,omitempty"`
	Upper      []int    `json:"upper,omitempty"`
	Channels   int      `json:"channels,omitempty"`
	Pixels     int      `json:"pixels,omitempty"`
	Replaced   bool     `json:"replaced,omitempty"`
}

// RawBuffer is one device allocation the launch can reach.
type RawBuffer struct {
	Base        string   `json:"base"`
	Size        int64    `json:"size"`
	AllocatedBy string   `json:"allocated_by"`
	Refs        []RawRef `json:"refs"`
	Before      string   `json:"before"`
	After       string   `json:"after"`
	LeftOut     string   `json:"left_out"`
}

// RawRef says where a buffer's address was found.
type RawRef struct {
	From   string `json:"from"` // param, tensormap, tensormap-end
	Offset int    `json:"offset"`
	Value  string `json:"value"`
}

// Annotation is what the Triton side knows about a launch.
type Annotation struct {
	Name       string            `json:"name"`
	Function   string            `json:"function"`
	Grid       []int             `json:"grid"`
	NumWarps   int               `json:"num_warps"`
	NumCTAs    int               `json:"num_ctas"`
	Shared     int               `json:"shared"`
	Cluster    []int             `json:"cluster_dims"`
	Scratch    int               `json:"global_scratch_size"`
	Signature  map[string]string `json:"signature"`
	Constants  map[string]string `json:"constants"`
	Args       []Arg             `json:"args"`
	PTX        string            `json:"ptx"`
	KernelHash string            `json:"kernel_hash"`
}

// Arg is one Python argument of a Triton launch.
type Arg struct {
	Name         string  `json:"name"`
	Kind         string  `json:"kind"` // tensor, tensordesc, int, float, bool, none
	DataPtr      string  `json:"data_ptr"`
	DType        string  `json:"dtype"`
	Shape        []int64 `json:"shape"`
	Strides      []int64 `json:"strides"`
	ElementSize  int     `json:"element_size"`
	StoragePtr   string  `json:"storage_ptr"`
	StorageBytes int64   `json:"storage_bytes"`
	Base         *Arg    `json:"base"`
	BlockShape   []int64 `json:"block_shape"`
	Value        any     `json:"value"`
}

// Process is what the interposer wrote about a process: process-PID.json.
type Process struct {
	PID     int      `json:"pid"`
	Exe     string   `json:"exe"`
	Cmdline []string `json:"cmdline"`
	Device  string   `json:"device"`
	CC      string   `json:"cc"`
	CUDA    int      `json:"driver_cuda_version"`
}

// ParseAddr parses a "0x..." address.
func ParseAddr(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("address %q: want 0xHEX", s)
	}
	return v, nil
}

// ReadRaw reads every launch recorded under dir, sorted by process and
// index, and the processes' descriptions by pid.
func ReadRaw(dir string) ([]*RawLaunch, map[int]*Process, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []*RawLaunch
	procs := map[int]*Process{}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir() && strings.HasPrefix(name, "launch-"):
			l, err := readLaunch(filepath.Join(dir, name))
			if err != nil {
				return nil, nil, err
			}
			out = append(out, l)
		case !e.IsDir() && strings.HasPrefix(name, "process-") && strings.HasSuffix(name, ".json"):
			var p Process
			if err := readJSON(filepath.Join(dir, name), &p); err != nil {
				return nil, nil, err
			}
			procs[p.PID] = &p
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PID != out[j].PID {
			return out[i].PID < out[j].PID
		}
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		return out[i].Index < out[j].Index
	})
	return out, procs, nil
}

func readLaunch(dir string) (*RawLaunch, error) {
	var l RawLaunch
	path := filepath.Join(dir, "launch.json")
	if err := readJSON(path, &l); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no launch.json (the program ended during the capture?)", dir)
		}
		return nil, err
	}
	l.Dir = dir
	return &l, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadParams returns the launch's parameter bytes.
func (l *RawLaunch) ReadParams() ([]byte, error) {
	if l.ParamBytes == "" {
		return nil, fmt.Errorf("%s: the parameter bytes were not recorded (%s)", l.Dir, strings.Join(l.Notes, "; "))
	}
	return os.ReadFile(filepath.Join(l.Dir, filepath.Base(l.ParamBytes)))
}
