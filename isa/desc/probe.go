package desc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// A descriptor probe asks the H100 which shared-memory bytes wgmma reads
// through a descriptor, and compares the answer with Footprint.
//
// Each job is one CTA of 128 threads. It copies a 16 KiB image into a
// 1024-byte-aligned shared buffer, adds the buffer's address to the start
// fields of the two descriptors, and runs
//
//	wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
//
// with A read through the descriptor under test and B the 16x16 identity
// (no swizzle, K-major), so D = A: element (m, k) of D is the value stored
// where the hardware read A(m, k). Every f16 slot of the A region holds
// its own slot number (addr / 2), in two passes (low 10 bits, then the
// rest) so that the values stay exact in f16. The checker decodes each
// element's address and compares it with the footprint, and with the
// alternative models the probe is meant to tell apart.

// ProbeImageBytes is the shared-memory image of one job.
const ProbeImageBytes = 16 << 10

// probeBRegion is where the identity B lives in the image; the A region
// is below it.
const probeBRegion = 12 << 10

// probeRecordBytes is one job's output: 64x16 f32, then the shared
// buffer's address (u32) and padding.
const probeRecordBytes = 64*16*4 + 16

// ProbeCase is one descriptor to test: A of wgmma m64n16k16 with f16
// elements, read through D (start relative to the shared buffer, which is
// 1024-byte aligned).
type ProbeCase struct {
	Name  string
	Desc  WGMMA
	Major Major
	// Alternatives name other models the case separates from ours: the
	// checker reports which, if any, the hardware matched instead.
	Alternatives []ProbeModel
}

// ProbeModel is an alternative reading of a descriptor.
type ProbeModel int

const (
	ModelFootprint     ProbeModel = iota // Footprint: tcsim's reading, phase ((addr>>7) - base offset)
	ModelAbsolute                        // the swizzle phase from absolute address bits; the base offset ignored
	ModelStartRelative                   // the phase counted from the start address plus the base offset (tcsim's reading before the H100 probe)
	ModelSwappedOffset                   // LBO and SBO exchanged
)

// String describes the model.
func (m ProbeModel) String() string {
	names := [...]string{"tcsim's footprint model", "absolute-address swizzle, base offset ignored",
		"phase from the start address plus the base offset", "LBO and SBO swapped"}
	if m < 0 || int(m) >= len(names) {
		return fmt.Sprintf("ProbeModel(%d)", int(m))
	}
	return names[m]
}

// layout applies model m to c's descriptor.
func (c ProbeCase) layout(m ProbeModel) SmemLayout {
	l := c.Desc.Layout()
	switch m {
	case ModelAbsolute:
		l.BaseOffset = 0
	case ModelStartRelative:
		// Footprint's phase is (addr>>7) - BaseOffset; this model's is
		// (addr>>7) - (Start>>7) + base.
		l.BaseOffset = int(l.Start>>7) - l.BaseOffset
	case ModelSwappedOffset:
		l.LBO, l.SBO = l.SBO, l.LBO
	}
	return l
}

// Probe is a set of descriptor cases ready to run: the PTX module and the
// job inputs. Jobs 2i and 2i+1 are case i's two passes.
type Probe struct {
	Cases  []ProbeCase
	PTX    string
	Kernel [2]string // the entry for imm-trans-a = 0 (K-major A) and 1 (MN-major A)
	Images []byte    // len(jobs) * ProbeImageBytes
	Descs  []byte    // len(jobs) * 16: descriptor of A, then of B (starts relative to the buffer)
}

// Jobs is the number of CTAs: two per case.
func (p *Probe) Jobs() int { return 2 * len(p.Cases) }

// OutputBytes is the size of the output buffer.
func (p *Probe) OutputBytes() int { return p.Jobs() * probeRecordBytes }

// JobsFor lists the jobs each kernel runs: imm-trans-a 0 and 1.
func (p *Probe) JobsFor(trans int) []int {
	var out []int
	for i, c := range p.Cases {
		if (c.Major == MajorMN) == (trans == 1) {
			out = append(out, 2*i, 2*i+1)
		}
	}
	return out
}

// probeB is the descriptor of the identity B: 16 (N) rows of 16 f16 (K),
// no swizzle, K-major: the two core matrices along K 128 bytes apart, the
// two along N 256 bytes apart.
func probeB() WGMMA {
	d, _ := NewWGMMA(probeBRegion, 128, 256, SwizzleNone, 0)
	return d
}

// DefaultProbeCases are the descriptors whose reading is settled by the
// hardware: every swizzle in both major-nesses, the K advance inside a
// swizzle row, and base offsets that differ from the ISA's value.
func DefaultProbeCases() []ProbeCase {
	k := func(name string, start, lbo, sbo uint32, swz Swizzle, base int, alts ...ProbeModel) ProbeCase {
		d, err := NewWGMMA(start, lbo, sbo, swz, base)
		if err != nil {
			panic(err)
		}
		return ProbeCase{Name: name, Desc: d, Major: MajorK, Alternatives: alts}
	}
	mn := func(name string, start, lbo, sbo uint32, swz Swizzle) ProbeCase {
		c := k(name, start, lbo, sbo, swz, 0, ModelSwappedOffset)
		c.Major = MajorMN
		return c
	}
	// The cases within the ISA's rules come first: one the hardware traps
	// on stops the run, and the cases before it keep their results. (The
	// recorded fixtures/desc/desc_probe_h100.bin holds these cases in this
	// order: change the list and it must be recorded again.)
	rel := []ProbeModel{ModelAbsolute, ModelStartRelative}
	return []ProbeCase{
		k("K-SW128", 0, 16, 1024, Swizzle128B, 0),
		k("K-SW128-kadvance32", 32, 16, 1024, Swizzle128B, 0),
		k("K-SW128-kadvance96", 96, 16, 1024, Swizzle128B, 0),
		k("K-SW128-row1-base1", 128, 16, 1024, Swizzle128B, 1, rel...),
		k("K-SW64", 0, 16, 512, Swizzle64B, 0),
		k("K-SW64-kadvance32", 32, 16, 512, Swizzle64B, 0),
		k("K-SW32", 0, 16, 256, Swizzle32B, 0),
		k("K-none-kfirst", 0, 128, 256, SwizzleNone, 0, ModelSwappedOffset),
		k("K-none-mnfirst", 0, 1024, 128, SwizzleNone, 0, ModelSwappedOffset),
		mn("MN-SW128", 0, 2048, 1024, Swizzle128B),
		mn("MN-SW64", 0, 2048, 512, Swizzle64B),
		mn("MN-SW32", 0, 512, 256, Swizzle32B),
		mn("MN-none", 0, 1024, 128, SwizzleNone),
		// Base offsets other than the ISA's value: which model holds?
		k("K-SW128-row1-base0", 128, 16, 1024, Swizzle128B, 0, rel...),
		k("K-SW128-row0-base3", 0, 16, 1024, Swizzle128B, 3, rel...),
		k("K-SW64-row2-base0", 256, 16, 512, Swizzle64B, 0, rel...),
		k("K-SW32-row1-base0", 128, 16, 256, Swizzle32B, 0, rel...),
	}
}

// probeOperand is the operand every case reads: A of m64n16k16, f16.
func probeOperand(m Major) Operand { return Operand{Major: m, ElemBits: 16, MN: 64, K: 16} }

// NewProbe builds the probe for cases. It fails when a case's footprint
// leaves the A region (the first 12 KiB of the image) or overlaps itself.
func NewProbe(cases []ProbeCase) (*Probe, error) {
	p := &Probe{Cases: cases, Kernel: [2]string{"desc_probe_k", "desc_probe_mn"}}
	b := probeB()
	bv, _ := b.Encode()
	for _, c := range cases {
		if c.Major != MajorK && c.Major != MajorMN {
			return nil, fmt.Errorf("case %s: major-ness not set", c.Name)
		}
		for _, m := range append([]ProbeModel{ModelFootprint}, c.Alternatives...) {
			reads, err := Footprint(c.layout(m), probeOperand(c.Major))
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.Name, err)
			}
			if _, hi := Span(reads); hi > probeBRegion {
				return nil, fmt.Errorf("case %s (%s): reads up to %#x, past the %d-byte A region", c.Name, m, hi, probeBRegion)
			}
			if m == ModelFootprint && len(Overlaps(reads)) > 0 {
				return nil, fmt.Errorf("case %s: core matrices overlap", c.Name)
			}
		}
		av, err := c.Desc.Encode()
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		for pass := 0; pass < 2; pass++ {
			img := make([]byte, ProbeImageBytes)
			for a := 0; a < probeBRegion; a += 2 {
				slot := a / 2
				v := slot & 1023
				if pass == 1 {
					v = slot >> 10
				}
				binary.LittleEndian.PutUint16(img[a:], f16Int(v))
			}
			// B = identity: B(k, n) = 1 where k == n. B is K-major (N rows
			// of K) without swizzle: (n, k) is at (n/8)*SBO + (n%8)*16 +
			// (k/8)*LBO + (k%8)*2 with LBO 128 and SBO 256.
			for n := 0; n < 16; n++ {
				binary.LittleEndian.PutUint16(img[probeBRegion+n/8*256+n%8*16+n/8*128+n%8*2:], f16Int(1))
			}
			p.Images = append(p.Images, img...)
			var d [16]byte
			binary.LittleEndian.PutUint64(d[:], av)
			binary.LittleEndian.PutUint64(d[8:], bv)
			p.Descs = append(p.Descs, d[:]...)
		}
	}
	p.PTX = probePTX(p.Kernel)
	return p, nil
}

// f16Int encodes a small non-negative integer (below 2048, so exact) as
// IEEE half.
func f16Int(v int) uint16 {
	b, _ := numfmt.F16.Encode(numfmt.FromInt(int64(v)), numfmt.RN, numfmt.Opts{})
	return uint16(b)
}

func probePTX(kernels [2]string) string {
	var b strings.Builder
	b.WriteString(`//
// tcsim descriptor probe (isa/desc/probe.go): which shared-memory bytes does
// wgmma read through a descriptor? D = A x I, A through the descriptor under test.
//
.version 8.0
.target sm_90a
.address_size 64

.shared .align 1024 .b8 desc_probe_smem[16384];
`)
	for trans, name := range kernels {
		fmt.Fprintf(&b, `
.visible .entry %s(
	.param .u64 %s_images,
	.param .u64 %s_descs,
	.param .u64 %s_out,
	.param .u64 %s_jobs
)
.maxntid 128, 1, 1
{
	.reg .pred %%p<4>;
	.reg .b32 %%r<32>;
	.reg .b64 %%rd<24>;
	.reg .f32 %%f<8>;

	ld.param.u64 %%rd1, [%s_images];
	ld.param.u64 %%rd2, [%s_descs];
	ld.param.u64 %%rd3, [%s_out];
	ld.param.u64 %%rd4, [%s_jobs];
	cvta.to.global.u64 %%rd1, %%rd1;
	cvta.to.global.u64 %%rd2, %%rd2;
	cvta.to.global.u64 %%rd3, %%rd3;
	cvta.to.global.u64 %%rd4, %%rd4;
	mov.u32 %%r1, %%tid.x;
	mov.u32 %%r2, %%ctaid.x;
	mul.wide.u32 %%rd5, %%r2, 4;
	add.s64 %%rd5, %%rd4, %%rd5;
	ld.global.u32 %%r2, [%%rd5];
	mul.wide.u32 %%rd6, %%r2, 16384;
	add.s64 %%rd6, %%rd1, %%rd6;
	mov.u32 %%r3, desc_probe_smem;
	mov.u32 %%r4, 0;
$copy:
	shl.b32 %%r5, %%r4, 7;
	add.s32 %%r5, %%r5, %%r1;
	shl.b32 %%r5, %%r5, 4;
	cvt.u64.u32 %%rd7, %%r5;
	add.s64 %%rd7, %%rd6, %%rd7;
	ld.global.v4.u32 {%%r6, %%r7, %%r8, %%r9}, [%%rd7];
	add.s32 %%r10, %%r3, %%r5;
	st.shared.v4.u32 [%%r10], {%%r6, %%r7, %%r8, %%r9};
	add.s32 %%r4, %%r4, 1;
	setp.lt.u32 %%p1, %%r4, 8;
	@%%p1 bra $copy;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	mul.wide.u32 %%rd8, %%r2, 16;
	add.s64 %%rd8, %%rd2, %%rd8;
	ld.global.u64 %%rd9, [%%rd8];
	ld.global.u64 %%rd10, [%%rd8+8];
	shr.u32 %%r11, %%r3, 4;
	cvt.u64.u32 %%rd11, %%r11;
	add.s64 %%rd9, %%rd9, %%rd11;
	add.s64 %%rd10, %%rd10, %%rd11;
	mov.f32 %%f0, 0f00000000;
	mov.f32 %%f1, 0f00000000;
	mov.f32 %%f2, 0f00000000;
	mov.f32 %%f3, 0f00000000;
	mov.f32 %%f4, 0f00000000;
	mov.f32 %%f5, 0f00000000;
	mov.f32 %%f6, 0f00000000;
	mov.f32 %%f7, 0f00000000;
	setp.ne.u32 %%p2, %%r1, %%r1;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%%f0, %%f1, %%f2, %%f3, %%f4, %%f5, %%f6, %%f7}, %%rd9, %%rd10, %%p2, 1, 1, %d, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	shr.u32 %%r12, %%r1, 5;
	and.b32 %%r13, %%r1, 31;
	shr.u32 %%r14, %%r13, 2;
	shl.b32 %%r15, %%r12, 4;
	add.s32 %%r15, %%r15, %%r14;
	and.b32 %%r16, %%r13, 3;
	shl.b32 %%r16, %%r16, 1;
	mad.lo.s32 %%r17, %%r15, 16, %%r16;
	mul.wide.u32 %%rd12, %%r2, %d;
	add.s64 %%rd12, %%rd3, %%rd12;
	mul.wide.u32 %%rd13, %%r17, 4;
	add.s64 %%rd13, %%rd12, %%rd13;
	st.global.f32 [%%rd13], %%f0;
	st.global.f32 [%%rd13+4], %%f1;
	st.global.f32 [%%rd13+512], %%f2;
	st.global.f32 [%%rd13+516], %%f3;
	st.global.f32 [%%rd13+32], %%f4;
	st.global.f32 [%%rd13+36], %%f5;
	st.global.f32 [%%rd13+544], %%f6;
	st.global.f32 [%%rd13+548], %%f7;
	setp.eq.u32 %%p3, %%r1, 0;
	@%%p3 st.global.u32 [%%rd12+4096], %%r3;
	ret;
}
`, name, name, name, name, name, name, name, name, name, trans, probeRecordBytes)
	}
	return b.String()
}

// ProbeResult is the verdict on one case.
type ProbeResult struct {
	Case       ProbeCase
	Mismatches int    // elements read elsewhere than Footprint says
	First      string // the first mismatch, in words
	Matches    []ProbeModel
	Err        error // a malformed record
}

// OK reports whether the hardware read every element where Footprint says.
func (r ProbeResult) OK() bool { return r.Err == nil && r.Mismatches == 0 }

// String is one line: the case, the verdict and which models matched.
func (r ProbeResult) String() string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("%-22s ERROR %v", r.Case.Name, r.Err)
	case r.Mismatches == 0:
		return fmt.Sprintf("%-22s ok: all 1024 elements read where the footprint says", r.Case.Name)
	}
	s := fmt.Sprintf("%-22s MISMATCH %d/1024: %s", r.Case.Name, r.Mismatches, r.First)
	for _, m := range r.Matches {
		s += fmt.Sprintf("; matches %s", m)
	}
	return s
}

// Check decodes the output buffer of a run of p and compares each case
// with its footprint and its alternative models.
func (p *Probe) Check(out []byte) ([]ProbeResult, error) {
	if len(out) != p.OutputBytes() {
		return nil, fmt.Errorf("output has %d bytes, want %d", len(out), p.OutputBytes())
	}
	res := make([]ProbeResult, len(p.Cases))
	for i, c := range p.Cases {
		r := ProbeResult{Case: c}
		got, err := decodeRecords(out[2*i*probeRecordBytes:], out[(2*i+1)*probeRecordBytes:])
		if err != nil {
			r.Err = err
			res[i] = r
			continue
		}
		predict := func(m ProbeModel) map[[2]int]uint32 {
			reads, err := Footprint(c.layout(m), probeOperand(c.Major))
			if err != nil {
				return nil
			}
			pred := map[[2]int]uint32{}
			for _, rd := range reads {
				for mn := rd.MN0; mn < rd.MN1; mn++ {
					for k := rd.K0; k < rd.K1; k++ {
						pred[[2]int{mn, k}] = rd.Addr + uint32(2*(mn-rd.MN0+k-rd.K0))
					}
				}
			}
			return pred
		}
		isa := predict(ModelFootprint)
		for m := 0; m < 64; m++ {
			for k := 0; k < 16; k++ {
				if want := isa[[2]int{m, k}]; got[m][k] != want {
					if r.Mismatches == 0 {
						r.First = fmt.Sprintf("A(%d,%d) was read at %#x, the footprint says %#x", m, k, got[m][k], want)
					}
					r.Mismatches++
				}
			}
		}
		for _, alt := range c.Alternatives {
			pred := predict(alt)
			same := pred != nil
			for m := 0; m < 64 && same; m++ {
				for k := 0; k < 16; k++ {
					if got[m][k] != pred[[2]int{m, k}] {
						same = false
						break
					}
				}
			}
			if same {
				r.Matches = append(r.Matches, alt)
			}
		}
		res[i] = r
	}
	return res, nil
}

// decodeRecords turns the two passes of a case into the byte address
// (relative to the shared buffer) each element of A was read from.
func decodeRecords(lo, hi []byte) (*[64][16]uint32, error) {
	base0 := binary.LittleEndian.Uint32(lo[4096:])
	base1 := binary.LittleEndian.Uint32(hi[4096:])
	if base0%1024 != 0 || base1%1024 != 0 {
		return nil, fmt.Errorf("the shared buffer is at %#x / %#x, not 1024-byte aligned: the probe's premise fails", base0, base1)
	}
	var out [64][16]uint32
	for m := 0; m < 64; m++ {
		for k := 0; k < 16; k++ {
			off := 4 * (m*16 + k)
			a := math.Float32frombits(binary.LittleEndian.Uint32(lo[off:]))
			b := math.Float32frombits(binary.LittleEndian.Uint32(hi[off:]))
			if a != float32(int(a)) || b != float32(int(b)) || a < 0 || a > 1023 || b < 0 || b > 63 {
				return nil, fmt.Errorf("A(%d,%d): values %v, %v are not slot numbers: B was not the identity or the read left the A region", m, k, a, b)
			}
			out[m][k] = uint32(int(b)<<10|int(a)) * 2
		}
	}
	return &out, nil
}

// SimulateProbe computes the output buffer a GPU that reads exactly as
// model m says would produce, for testing the checker without a GPU.
func (p *Probe) SimulateProbe(m ProbeModel) ([]byte, error) {
	out := make([]byte, p.OutputBytes())
	for i, c := range p.Cases {
		reads, err := Footprint(c.layout(m), probeOperand(c.Major))
		if err != nil {
			return nil, err
		}
		for pass := 0; pass < 2; pass++ {
			rec := out[(2*i+pass)*probeRecordBytes:]
			binary.LittleEndian.PutUint32(rec[4096:], 0x400)
			for _, rd := range reads {
				for mn := rd.MN0; mn < rd.MN1; mn++ {
					for k := rd.K0; k < rd.K1; k++ {
						slot := int(rd.Addr+uint32(2*(mn-rd.MN0+k-rd.K0))) / 2
						v := slot & 1023
						if pass == 1 {
							v = slot >> 10
						}
						binary.LittleEndian.PutUint32(rec[4*(mn*16+k):], math.Float32bits(float32(v)))
					}
				}
			}
		}
	}
	return out, nil
}
