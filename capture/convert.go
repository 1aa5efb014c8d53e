package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tcsim/tcsim/fixtures"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/launch"
)

// ConvertOptions control how raw records become cases.
type ConvertOptions struct {
	Force        bool   // replace existing cases
	Command      string // the tcsim command line, for the provenance
	TcsimVersion string
}

// Result is the outcome of converting one raw launch.
type Result struct {
	Launch  *RawLaunch
	Dir     string // the case written
	Summary string // one line for the user
	Err     error
}

// ConvertAll converts every launch recorded under rawDir into a case
// directory under outDir, named after the kernel and its capture index.
// A launch that cannot be converted gives a Result with Err; the error
// returned is for the raw directory itself.
func ConvertAll(rawDir, outDir string, o ConvertOptions) ([]Result, error) {
	ls, procs, err := ReadRaw(rawDir)
	if err != nil {
		return nil, err
	}
	var sess Session
	if err := readJSON(filepath.Join(rawDir, "session.json"), &sess); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	pids := map[int]bool{}
	for _, l := range ls {
		pids[l.PID] = true
	}
	var out []Result
	used := map[string]bool{}
	for _, l := range ls {
		r := Result{Launch: l}
		c, sum, err := Convert(rawDir, l, procs[l.PID], &sess, o)
		if err != nil {
			r.Err = err
			out = append(out, r)
			continue
		}
		name := fmt.Sprintf("%s-%d", CaseName(l.Kernel), l.Index)
		if len(pids) > 1 {
			name = fmt.Sprintf("%s-p%d", name, l.PID)
		}
		for used[name] {
			name += "x"
		}
		used[name] = true
		r.Dir = filepath.Join(outDir, name)
		if err := c.Write(r.Dir, o.Force); err != nil {
			r.Err = err
		} else if _, err := fixtures.Load(r.Dir); err != nil {
			r.Err = fmt.Errorf("the case just written does not load: %w", err)
		}
		r.Summary = sum
		out = append(out, r)
	}
	return out, nil
}

// CaseName is a short directory name for a kernel: a Triton or C name as
// it is, the first two components of an Itanium-mangled C++ name
// (cutlass_device_kernel).
func CaseName(kernel string) string {
	name := kernel
	if strings.HasPrefix(kernel, "_Z") {
		s := strings.TrimPrefix(kernel, "_Z")
		s = strings.TrimPrefix(s, "N")
		var parts []string
		for len(parts) < 2 && len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			j := 0
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(s[:j])
			if n <= 0 || j+n > len(s) {
				break
			}
			parts = append(parts, s[j:j+n])
			s = s[j+n:]
		}
		if len(parts) > 0 {
			name = strings.Join(parts, "_")
		}
	}
	var b strings.Builder
	for _, c := range name {
		switch {
		case c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteRune('_')
		}
		if b.Len() >= 48 {
			break
		}
	}
	if b.Len() == 0 {
		return "kernel"
	}
	return b.String()
}

// buffer is a recorded allocation during conversion.
type buffer struct {
	raw           RawBuffer
	base          uint64
	before, after []byte
	name          string
	param         int // the parameter that is this buffer, or -1
	info          fixtures.CapturedBuffer
	outType       launch.ScalarType
}

// Convert turns one raw launch into a fixture case (not yet written) and
// a one-line summary.
func Convert(rawDir string, l *RawLaunch, proc *Process, sess *Session, o ConvertOptions) (*fixtures.Case, string, error) {
	if l.Launch != 0 {
		return nil, "", fmt.Errorf("the launch itself failed on the GPU (CUresult %d); nothing to replay", l.Launch)
	}
	if l.Sync != 0 {
		return nil, "", fmt.Errorf("the kernel failed on the GPU (synchronize returned CUresult %d); the memory after it was not recorded", l.Sync)
	}
	ptx, ptxSrc, err := FindPTX(rawDir, l)
	if err != nil {
		return nil, "", err
	}
	fn, err := launch.ParseKernel(fixtures.PTXFile, ptx, l.Kernel)
	if err != nil {
		return nil, "", err
	}
	decls, err := launch.KernelParams(fn)
	if err != nil {
		return nil, "", err
	}
	pb, err := l.ReadParams()
	if err != nil {
		return nil, "", err
	}
	if err := checkParams(l, fn, decls, pb); err != nil {
		return nil, "", err
	}
	if len(l.TensorMaps) == 0 {
		l.TensorMaps = findTensorMaps(rawDir, l.PID, pb)
	}

	info := &fixtures.CaptureInfo{API: l.API, Kernel: l.Kernel, LaunchIndex: l.Index, PTXSource: ptxSrc, Notes: l.Notes}
	if proc != nil {
		info.Program = proc.Cmdline
	}
	if len(info.Program) == 0 && sess != nil {
		info.Program = sess.Command
	}
	bufs, err := readBuffers(l, info)
	if err != nil {
		return nil, "", err
	}
	ln, err := launchModel(l, fn, decls, pb, bufs, info)
	if err != nil {
		return nil, "", err
	}
	c := &fixtures.Case{PTX: ptx, Launch: ln}
	parts := recordBuffers(c, bufs, info)
	for _, t := range l.TensorMaps {
		raw, _ := json.Marshal(struct {
			Offset int       `json:"param_offset"`
			Encode EncodeArg `json:"encode"`
		}{t.Offset, t.Encode})
		info.TensorMaps = append(info.TensorMaps, raw)
	}
	if l.Annotation != nil {
		info.Arguments, _ = json.Marshal(l.Annotation.Args)
	}
	if _, err := ln.Bind(fn); err != nil {
		return nil, "", fmt.Errorf("the recorded launch does not fit the kernel: %w", err)
	}
	c.Provenance = provenance(l, proc, sess, o, info)
	sum := fmt.Sprintf("%s, grid %s, block %s", shortName(fn.Name), ln.Grid, ln.Block)
	if !ln.Cluster.IsZero() {
		sum += ", cluster " + ln.Cluster.String()
	}
	sum += fmt.Sprintf(", %d B dynamic smem; %s", ln.SharedMem, strings.Join(parts, ", "))
	if len(info.LeftOut) > 0 {
		sum += fmt.Sprintf("; %d allocation(s) left out", len(info.LeftOut))
	}
	return c, sum, nil
}

// checkParams checks the driver's parameters against the PTX declarations
// and the recorded parameter bytes.
func checkParams(l *RawLaunch, fn *ptx.Function, decls []launch.ParamDecl, pb []byte) error {
	if len(l.Params) != len(decls) {
		return fmt.Errorf("the driver reported %d parameters, the PTX of %s declares %d (is the PTX the one the program loaded?)", len(l.Params), fn.Name, len(decls))
	}
	for i, p := range l.Params {
		d := decls[i]
		if p.Size != d.Size {
			return fmt.Errorf("param %d: the driver reported %d bytes, the PTX declares %s (%d bytes)", i, p.Size, d.Decl(), d.Size)
		}
		if p.Offset+p.Size > len(pb) {
			return fmt.Errorf("param %d: bytes [%d, %d) but %d parameter bytes were recorded", i, p.Offset, p.Offset+p.Size, len(pb))
		}
	}
	return nil
}

// readBuffers reads the recorded allocations (before and after the
// launch), sorted by address and named; the ones left out are noted in
// info.
func readBuffers(l *RawLaunch, info *fixtures.CaptureInfo) ([]*buffer, error) {
	var bufs []*buffer
	for _, rb := range l.Buffers {
		base, err := ParseAddr(rb.Base)
		if err != nil {
			return nil, err
		}
		if rb.LeftOut != "" {
			info.LeftOut = append(info.LeftOut, fmt.Sprintf("%d bytes at %s: %s", rb.Size, rb.Base, rb.LeftOut))
			continue
		}
		b := &buffer{raw: rb, base: base, param: -1}
		if b.before, err = os.ReadFile(filepath.Join(l.Dir, rb.Before)); err != nil {
			return nil, err
		}
		if b.after, err = os.ReadFile(filepath.Join(l.Dir, rb.After)); err != nil {
			return nil, fmt.Errorf("buffer at %s: the memory after the launch was not recorded: %w", rb.Base, err)
		}
		if int64(len(b.before)) != rb.Size || len(b.after) != len(b.before) {
			return nil, fmt.Errorf("buffer at %s: %d bytes recorded before and %d after, want %d", rb.Base, len(b.before), len(b.after), rb.Size)
		}
		bufs = append(bufs, b)
	}
	sort.Slice(bufs, func(i, j int) bool { return bufs[i].base < bufs[j].base })
	nameBuffers(bufs, l)
	return bufs, nil
}

// launchModel describes the launch: its shape, a parameter per recorded
// parameter (buffers by their contents before the launch), and the
// buffers no parameter names at their addresses.
func launchModel(l *RawLaunch, fn *ptx.Function, decls []launch.ParamDecl, pb []byte, bufs []*buffer, info *fixtures.CaptureInfo) (*launch.Launch, error) {
	find := func(v uint64) *buffer {
		for _, b := range bufs {
			if v >= b.base && v-b.base < uint64(len(b.before)) {
				return b
			}
		}
		return nil
	}
	names := paramNames(l, len(decls))
	ln := &launch.Launch{Kernel: fn.Name, Grid: launch.Dim3(l.Grid), Block: launch.Dim3(l.Block), SharedMem: l.SharedMem}
	if c := launch.Dim3(l.Cluster); !c.IsZero() && c != (launch.Dim3{1, 1, 1}) {
		ln.Cluster = c
	}
	var relocated []string
	for i, rp := range l.Params {
		d := decls[i]
		v := pb[rp.Offset : rp.Offset+rp.Size]
		spec, b, err := paramSpec(d, v, names[i], find)
		if err != nil {
			return nil, fmt.Errorf("param %d (%s): %w", i, d.Decl(), err)
		}
		p, err := launch.ParseParam(spec)
		// A launch model without addr= or null: a buffer whose address
		// reaches the kernel only through this parameter may sit anywhere,
		// and a NULL pointer is eight zero bytes.
		if err != nil && b != nil && relocatable(b, l, decls, pb) {
			spec = fmt.Sprintf("%s=buf:size=%d", b.name, len(b.before))
			if p, err = launch.ParseParam(spec); err == nil {
				relocated = append(relocated, b.name)
			}
		}
		if err != nil && strings.HasSuffix(spec, "null") {
			spec = strings.TrimSuffix(spec, "null") + "bytes:0000000000000000"
			p, err = launch.ParseParam(spec)
		}
		if err != nil {
			return nil, fmt.Errorf("param %d (%s): %w (this tcsim's launch model cannot describe it yet)", i, d.Decl(), err)
		}
		if b != nil {
			b.param = i
			b.name = p.Name
			p.Data = b.before
			p.Size = len(b.before)
		}
		ln.Params = append(ln.Params, p)
	}
	for _, b := range bufs {
		if b.param >= 0 {
			continue
		}
		spec := fmt.Sprintf("%s=buf:size=%d,addr=%#x", b.name, len(b.before), b.base)
		p, err := launch.ParseParam(spec)
		if err != nil {
			return nil, fmt.Errorf("buffer %s: %w", b.name, err)
		}
		p.Data = b.before
		ln.Buffers = append(ln.Buffers, p)
	}
	if len(relocated) > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%s placed by the simulator, not at the GPU's addresses: the kernel sees each address only through its own pointer parameter", strings.Join(relocated, ", ")))
	}
	return ln, nil
}

// recordBuffers lists the buffers in info, makes the changed ones the
// case's outputs (their contents after the launch), and returns a word on
// each for the summary.
func recordBuffers(c *fixtures.Case, bufs []*buffer, info *fixtures.CaptureInfo) []string {
	var parts []string
	for _, b := range bufs {
		b.info.Name, b.info.Addr, b.info.Size, b.info.AllocatedBy = b.name, fmt.Sprintf("%#x", b.base), int64(len(b.before)), b.raw.AllocatedBy
		b.info.Changed = !bytes.Equal(b.before, b.after)
		info.Buffers = append(info.Buffers, b.info)
		state := "read"
		if b.info.Changed {
			state = "written"
			c.Launch.Outputs = append(c.Launch.Outputs, launch.Output{Param: b.name, Type: b.outType})
			c.Outputs = append(c.Outputs, fixtures.CaseOutput{Param: b.name, Data: b.after})
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", b.name, sizeText(len(b.before)), state))
	}
	if len(c.Outputs) == 0 {
		info.Notes = append(info.Notes, "the launch changed none of the recorded memory")
	}
	return parts
}

func provenance(l *RawLaunch, proc *Process, sess *Session, o ConvertOptions, info *fixtures.CaptureInfo) fixtures.Provenance {
	p := fixtures.Provenance{TcsimVersion: o.TcsimVersion, Command: o.Command, Capture: info}
	if proc != nil {
		p.GPU = proc.Device
		if maj, min, ok := strings.Cut(proc.CC, "."); ok {
			p.Arch = "sm_" + maj + min
		}
		if proc.CUDA > 0 {
			p.CUDAVersion = fmt.Sprintf("%d.%d", proc.CUDA/1000, proc.CUDA%1000/10)
		}
	}
	if sess != nil {
		p.DriverVersion = DriverNumber(sess.Driver)
		p.Date = sess.Date
		if c := sess.RecordingCommand(); c != "" {
			p.Command = c
		}
	}
	if p.Date == "" {
		p.Date = time.Now().UTC().Format(time.RFC3339)
	}
	return p
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// paramNames are the launch's names for the kernel's parameters: the
// Triton arguments that survived specialisation, then the two scratch
// pointers; "" where there is none (the PTX's own names are used).
func paramNames(l *RawLaunch, n int) []string {
	names := make([]string, n)
	a := l.Annotation
	if a == nil || len(a.Signature) == 0 {
		return names
	}
	// Signature order is the argument order; Go maps lose it, so follow
	// the arguments list, which is in order.
	var kept []string
	for _, arg := range a.Args {
		ty, ok := a.Signature[arg.Name]
		if !ok || ty == "constexpr" {
			continue
		}
		kept = append(kept, arg.Name)
	}
	if len(kept)+2 == n {
		kept = append(kept, "global_scratch", "profile_scratch")
	}
	if len(kept) != n {
		return names // the kernel's parameters do not follow the arguments (tensor descriptors expand)
	}
	seen := map[string]bool{}
	for i, k := range kept {
		k = identifier(k)
		if !seen[k] {
			names[i] = k
			seen[k] = true
		}
	}
	return names
}

func identifier(s string) string {
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		case c >= '0' && c <= '9' && i > 0:
			b.WriteRune(c)
		default:
			b.WriteRune('_')
		}
	}
	return b.String()
}

// paramSpec writes one parameter in the launch vocabulary. A 64-bit
// parameter that points at the start of a recorded buffer becomes that
// buffer (returned, so that its data can be attached); a NULL pointer is
// null; other values are their bytes, exactly.
func paramSpec(d launch.ParamDecl, v []byte, name string, find func(uint64) *buffer) (string, *buffer, error) {
	prefix := ""
	if name != "" {
		prefix = name + "="
	}
	if d.Array == 0 && len(v) == 8 {
		x := binary.LittleEndian.Uint64(v)
		if x == 0 && (d.Ptr != nil || strings.HasSuffix(name, "scratch")) {
			return prefix + "null", nil, nil
		}
		if b := find(x); b != nil && x == b.base && b.param < 0 {
			if name != "" {
				b.name = name
			}
			return fmt.Sprintf("%s=buf:size=%d,addr=%#x", b.name, len(b.before), b.base), b, nil
		}
	}
	if d.Array == 0 {
		if t, err := launch.ParseScalarType(d.Type.String()); err == nil && t.Size() == len(v) && d.Ptr == nil {
			var x uint64
			for i := len(v) - 1; i >= 0; i-- {
				x = x<<8 | uint64(v[i])
			}
			return fmt.Sprintf("%s%s:%#x", prefix, t, x), nil, nil
		}
	}
	return prefix + "bytes:" + hex.EncodeToString(v), nil, nil
}

// nameBuffers gives every buffer a name and, where it is known, the
// tensor in it: from the Triton arguments, else from a tensor map whose
// address is the buffer's.
func nameBuffers(bufs []*buffer, l *RawLaunch) {
	used := map[string]bool{}
	for i, b := range bufs {
		if a := l.Annotation; a != nil {
			for _, arg := range a.Args {
				t := &arg
				if arg.Kind == "tensordesc" && arg.Base != nil {
					t = arg.Base
				}
				if t.Kind != "tensor" {
					continue
				}
				ptr, err := ParseAddr(t.DataPtr)
				if err != nil || ptr < b.base || ptr-b.base >= uint64(len(b.before)) {
					continue
				}
				if b.name == "" {
					b.name = identifier(arg.Name)
					b.info.DType, b.info.Shape, b.info.Strides, b.info.Offset = t.DType, t.Shape, t.Strides, int64(ptr-b.base)
					b.outType = torchType(t.DType)
				}
			}
		}
		if b.name == "" {
			for _, t := range l.TensorMaps {
				addr, err := ParseAddr(t.Encode.Addr)
				if err != nil || addr != b.base {
					continue
				}
				dt, size := tmapType(t.Encode.DType)
				b.name = fmt.Sprintf("tensor%d", i)
				b.info.DType = dt
				b.outType, _ = launch.ParseScalarType(dt)
				var shape, strides []int64
				stride := int64(1)
				for k, dim := range t.Encode.Dims {
					shape = append([]int64{int64(dim)}, shape...)
					if k > 0 && size > 0 && k-1 < len(t.Encode.Strides) {
						stride = int64(t.Encode.Strides[k-1]) / int64(size)
					}
					strides = append([]int64{stride}, strides...)
				}
				b.info.Shape, b.info.Strides = shape, strides
				break
			}
		}
		if b.name == "" {
			b.name = fmt.Sprintf("mem%d", i)
		}
		for used[b.name] {
			b.name += "_"
		}
		used[b.name] = true
	}
}

// torchType maps a torch dtype name to a fixtures type.
func torchType(s string) launch.ScalarType {
	m := map[string]string{"bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
		"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "int8": "s8", "uint8": "u8", "int16": "s16",
		"int32": "s32", "int64": "s64", "bool": "u8"}
	t, err := launch.ParseScalarType(m[s])
	if err != nil {
		return launch.InvalidType
	}
	return t
}

// tmapType names a CUtensorMapDataType and gives its element size.
func tmapType(dt int) (string, int) {
	names := []struct {
		name string
		size int
	}{{"u8", 1}, {"u16", 2}, {"u32", 4}, {"s32", 4}, {"u64", 8}, {"s64", 8}, {"f16", 2}, {"f32", 4}, {"f64", 8},
		{"bf16", 2}, {"f32", 4}, {"f32", 4}, {"f32", 4}}
	if dt >= 0 && dt < len(names) {
		return names[dt].name, names[dt].size
	}
	return "", 0
}

// findTensorMaps finds, in parameter bytes, the tensor maps the process
// encoded (tensormaps.jsonl), at any 16-byte offset.
func findTensorMaps(rawDir string, pid int, pb []byte) []RawTensorMap {
	b, err := os.ReadFile(filepath.Join(rawDir, "tensormaps.jsonl"))
	if err != nil {
		return nil
	}
	var out []RawTensorMap
	for _, line := range bytes.Split(b, []byte("\n")) {
		var rec struct {
			Map    string    `json:"map"`
			PID    int       `json:"pid"`
			Encode EncodeArg `json:"encode"`
		}
		if len(line) == 0 || json.Unmarshal(line, &rec) != nil || (pid != 0 && rec.PID != pid) {
			continue
		}
		m, err := hex.DecodeString(rec.Map)
		if err != nil || len(m) != 128 {
			continue
		}
		for off := 0; off+128 <= len(pb); off += 16 {
			if bytes.Equal(pb[off:off+128], m) {
				dup := false
				for _, t := range out {
					dup = dup || t.Offset == off
				}
				if !dup {
					out = append(out, RawTensorMap{Offset: off, Encode: rec.Encode})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

// relocatable reports whether buffer b's address reaches the kernel only
// through one pointer parameter that holds exactly its start: then the
// kernel cannot tell where the buffer is, and the simulator may place it
// anywhere. Any other word of the parameters that points into the buffer
// (inside a by-value struct, a tensor map, a second pointer) pins it.
func relocatable(b *buffer, l *RawLaunch, decls []launch.ParamDecl, pb []byte) bool {
	end := b.base + uint64(len(b.before))
	whole := map[int]bool{}
	for i, rp := range l.Params {
		if rp.Size == 8 && decls[i].Array == 0 && binary.LittleEndian.Uint64(pb[rp.Offset:]) == b.base {
			whole[rp.Offset] = true
		}
	}
	if len(whole) != 1 {
		return false
	}
	for off := 0; off+8 <= len(pb); off += 4 {
		v := binary.LittleEndian.Uint64(pb[off:])
		if v >= b.base && v < end && !whole[off] {
			return false
		}
	}
	return true
}
