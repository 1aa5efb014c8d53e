package tensormap

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/tcsim/tcsim/isa/desc"
)

// Field is one field of a decoded map: where it lives, what is stored and
// what it means.
type Field struct {
	Bits  string // e.g. "w1[7:10]"
	Name  string
	Raw   uint64 // the bits as stored
	Value string // the decoded value
}

// Context is what the caller knows beyond the bytes.
type Context struct {
	// ExpectTx is the byte count the kernel arms on the mbarrier for one
	// load through this map (mbarrier.expect_tx / arrive.expect_tx); 0:
	// not known.
	ExpectTx uint64
}

// Report is a CUtensorMap explained: its fields, the arguments that make
// it, and findings (the severities and format of isa/desc).
type Report struct {
	Bytes    [Size]byte
	Decoded  *Decoded
	Fields   []Field
	Notes    []string
	Findings desc.Findings
}

// Explain decodes b and checks it: bits the model cannot account for and
// rules the driver would not break are errors; traps (a box wider than the
// swizzle span, a byte count the kernel arms that is not what a load
// moves, a box larger than the tensor, overlapping rows, a null address)
// are warnings.
func Explain(b [Size]byte, ctx Context) Report {
	d, _ := Decode(b)
	r := Report{Bytes: b, Decoded: d, Notes: append([]string(nil), d.Notes...)}
	m := d.Map
	w := d.Words
	add := func(bits, name string, raw uint64, format string, args ...any) {
		r.Fields = append(r.Fields, Field{bits, name, raw, fmt.Sprintf(format, args...)})
	}
	finding := func(sev desc.Severity, field, rule, format string, args ...any) {
		r.Findings = append(r.Findings, desc.Finding{Severity: sev, Field: field, Rule: rule, Msg: fmt.Sprintf(format, args...)})
	}
	lo1 := w[1] & 0xffffffff
	rank := m.Rank()
	add("w0", "global address", w[0], "%#x", w[0])
	kind := "tiled"
	if m.Kind == Im2col {
		kind = "im2col (or im2col-wide)"
	}
	add("w1[0]", "mode", lo1&1, "%s", kind)
	add("w1[4:6]", "rank", lo1>>shiftRank&7, "%d", rank)
	typ := fmt.Sprintf("code %d: not modelled", lo1>>shiftType&15)
	if m.DType.Known() && d.typeKnown() {
		typ = fmt.Sprintf("%s (%d bytes)", m.DType, m.DType.Bits()/8)
	}
	add("w1[7:10]", "element type", lo1>>shiftType&15, "%s", typ)
	add("w1[11:12]", "interleave", lo1>>shiftIL&3, "%s", m.Interleave)
	add("w1[13:14]", "swizzle", lo1>>shiftSwizzle&3, "%s", m.Swizzle)
	add("w1[15]", "oob fill", lo1>>15&1, "%s", map[OOBFill]string{OOBZero: "zero", OOBNaN: "NaN (NAN_REQUEST_ZERO_FMA)"}[m.OOB])
	add("w1[16]", "tf32", lo1>>16&1, "%v", lo1&flagTF32 != 0)
	add("w1[17:18]", "L2 promotion", lo1>>shiftL2&3, "%s", m.L2)
	for i, d := range m.Dims {
		add(dimBits[i], fmt.Sprintf("dims[%d]", i), d-1, "%d", d)
	}
	for i, s := range m.Strides {
		add(strideBits[i], fmt.Sprintf("strides[%d]", i), s>>4, "%d bytes (dim %d)", s, i+1)
	}
	for i, e := range m.ElemStrides {
		add(fmt.Sprintf("w6[%d:%d]", 32+3*i, 34+3*i), fmt.Sprintf("estrides[%d]", i), uint64(e-1), "%d", e)
	}
	if m.Kind == Tiled {
		for i, bx := range m.Box {
			bits := "w6[56:63]"
			if i > 0 {
				bits = fmt.Sprintf("w7[%d:%d]", 8*(i-1), 8*i-1)
			}
			add(bits, fmt.Sprintf("box[%d]", i), uint64(bx-1), "%d", bx)
		}
	} else {
		add("w6[56:63]", "channels per pixel", uint64(m.Channels-1), "%d", m.Channels)
		add("w7[32:41]", "pixels per column", uint64(m.Pixels-1), "%d", m.Pixels)
		add("w7[0:15]", "lower corner", w[7]&0xffff, "%s (W first)", list(m.Lower))
		add("w7[16:31]", "upper corner", w[7]>>16&0xffff, "%s (W first)", list(m.Upper))
	}
	add("w8", "bytes per load", w[8], "%d", w[8])
	add("w9", "smem alignment", w[9], "%d bytes", w[9])

	for _, u := range d.Unknown {
		finding(desc.Error, "bits", "unknown-bits", "%s: the driver never wrote this in the recorded campaign (fixtures/tensormaps); these are not the bytes of a CUtensorMap the model knows", u)
	}
	if len(d.Unknown) == 0 {
		r.Notes = append(r.Notes, "as driver arguments: "+driverCall(m))
		if err := m.Validate(); err != nil {
			var fe *FieldError
			if asFieldError(err, &fe) {
				finding(desc.Error, fe.Field, "driver-rule", "%s: the driver rejects arguments like these, so it never writes these bytes", fe.Rule)
			}
		}
	}
	es := m.DType.Bits()
	if es > 0 && m.Interleave == InterleaveNone {
		if span := m.Swizzle.SpanBytes(); span > 0 && m.InnerBoxBytes() > uint64(span) {
			finding(desc.Error, "swizzle", "box-wider-than-swizzle", "the inner box is %d bytes but the %s swizzle repeats every %d: the driver rejects the map; split the load into %d-byte columns (one map per column, or a box of %d elements)", m.InnerBoxBytes(), m.Swizzle, span, span, span*8/es)
		}
	}
	if es > 0 && len(d.Unknown) == 0 {
		tb := m.TransferBytes()
		if m.Kind == Tiled {
			var parts []string
			for i, bx := range m.Box {
				n := bx / m.ElemStrides[i]
				if m.ElemStrides[i] > 1 {
					parts = append(parts, fmt.Sprintf("floor(%d/%d)", bx, m.ElemStrides[i]))
					if bx%m.ElemStrides[i] != 0 {
						finding(desc.Info, fmt.Sprintf("box[%d]", i), "estride-floor", "box[%d]=%d is not a multiple of estrides[%d]=%d: the driver counts floor(%d/%d)=%d elements in w8 (the documentation says ceil)", i, bx, i, m.ElemStrides[i], bx, m.ElemStrides[i], n)
					}
				} else {
					parts = append(parts, fmt.Sprint(bx))
				}
			}
			r.Notes = append(r.Notes, fmt.Sprintf("one load moves %s × %d bytes = %d bytes (w8)", strings.Join(parts, " × "), es/8, tb))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("one load moves %d channels × %d pixels × %d bytes = %d bytes (w8)", m.Channels, m.Pixels, es/8, tb))
		}
		if ctx.ExpectTx != 0 {
			switch {
			case ctx.ExpectTx == tb:
				finding(desc.Info, "expect-tx", "expect-tx", "the kernel arms %d bytes: one load through this map", tb)
			case ctx.ExpectTx%tb == 0:
				finding(desc.Info, "expect-tx", "expect-tx", "the kernel arms %d bytes: %d loads through this map (or loads through other maps too)", ctx.ExpectTx, ctx.ExpectTx/tb)
			case ctx.ExpectTx < tb:
				finding(desc.Warning, "expect-tx", "expect-tx-mismatch", "the kernel arms %d bytes but one load through this map delivers %d: the transaction count goes below zero, which the PTX ISA leaves undefined (the phase may complete before the data has landed)", ctx.ExpectTx, tb)
			default:
				finding(desc.Warning, "expect-tx", "expect-tx-mismatch", "the kernel arms %d bytes, not a multiple of the %d one load through this map delivers: unless loads through other maps make up the difference, the transaction count never returns to zero and the wait hangs", ctx.ExpectTx, tb)
			}
		}
		if m.Address == 0 {
			finding(desc.Warning, "addr", "null-address", "the global address is 0: the map was encoded with a null pointer (before its buffer was allocated?); loads fault")
		}
		if m.Kind == Tiled {
			for i, bx := range m.Box {
				if uint64(bx) > m.Dims[i] {
					finding(desc.Warning, fmt.Sprintf("box[%d]", i), "box-larger-than-tensor", "box[%d]=%d is larger than dims[%d]=%d: every load fills %d elements of that dimension out of bounds (with %s)", i, bx, i, m.Dims[i], uint64(bx)-m.Dims[i], m.OOB)
				}
			}
		}
		row := m.DType.ElemBytesTimes(m.Dims[0])
		for i, s := range m.Strides {
			if s == 0 {
				finding(desc.Warning, fmt.Sprintf("strides[%d]", i), "zero-stride", "strides[%d] is 0: every index of dim %d reads the same memory (a broadcast; intended?)", i, i+1)
			} else if i == 0 && m.Interleave == InterleaveNone && s < row {
				finding(desc.Warning, "strides[0]", "overlapping-rows", "strides[0]=%d is less than a row of dims[0]=%d elements (%d bytes): consecutive rows overlap", s, m.Dims[0], row)
			}
		}
		if m.Swizzle != SwizzleNone {
			finding(desc.Info, "swizzle", "smem-alignment", "%s swizzle: the shared-memory destination must be %d-byte aligned (w9), and the swizzle pattern follows the absolute shared-memory address", m.Swizzle, swizzleAlign[m.Swizzle])
		}
	}
	return r
}

var dimBits = []string{"w4[0:31]", "w4[32:63]", "w5[0:31]", "w5[32:63]", "w6[0:31]"}
var strideBits = []string{"w1[32:63],w3[32:35]", "w2[0:31],w3[36:39]", "w2[32:63],w3[40:43]", "w3[0:31],w3[44:47]"}

// typeKnown reports whether the element type code was modelled.
func (d *Decoded) typeKnown() bool {
	for _, u := range d.Unknown {
		if strings.HasPrefix(u, "w1[7:10]") || strings.HasPrefix(u, "w1[16]") {
			return false
		}
	}
	return true
}

var driverDTypes = []string{"UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64", "FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT32_FTZ", "TFLOAT32", "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"}
var driverL2 = []string{"NONE", "L2_64B", "L2_128B", "L2_256B"}

// driverCall writes the call that makes m, with the driver's enum names
// (CU_TENSOR_MAP_ left out).
func driverCall(m *Map) string {
	u := func(v []uint64) string { return "{" + strings.ReplaceAll(list(v), "x", ", ") + "}" }
	u32 := func(v []uint32) string { return "{" + strings.ReplaceAll(list(v), "x", ", ") + "}" }
	i32 := func(v []int32) string { return "{" + strings.ReplaceAll(list(v), "x", ", ") + "}" }
	dt := nameOf(driverDTypes, uint32(m.DType))
	tail := fmt.Sprintf("INTERLEAVE_%s, SWIZZLE_%s, L2_PROMOTION_%s, FLOAT_OOB_FILL_%s",
		strings.ToUpper(m.Interleave.String()), strings.ToUpper(m.Swizzle.String()), nameOf(driverL2, uint32(m.L2)),
		map[OOBFill]string{OOBZero: "NONE", OOBNaN: "NAN_REQUEST_ZERO_FMA"}[m.OOB])
	if m.Kind == Tiled {
		return fmt.Sprintf("cuTensorMapEncodeTiled(DATA_TYPE_%s, %d, %#x, %s, %s, %s, %s, %s)", dt, m.Rank(), m.Address, u(m.Dims), u(m.Strides), u32(m.Box), u32(m.ElemStrides), tail)
	}
	return fmt.Sprintf("cuTensorMapEncodeIm2col(DATA_TYPE_%s, %d, %#x, %s, %s, %s, %s, %d, %d, %s, %s)", dt, m.Rank(), m.Address, u(m.Dims), u(m.Strides), i32(m.Lower), i32(m.Upper), m.Channels, m.Pixels, u32(m.ElemStrides), tail)
}

// String formats r as WriteText prints it.
func (r Report) String() string {
	var b strings.Builder
	m := r.Decoded.Map
	fmt.Fprintf(&b, "CUtensorMap (128 bytes): %s, rank %d, %s\n", m.Kind, m.Rank(), m.DType)
	for i := 0; i < Size; i += 32 {
		fmt.Fprintf(&b, "  %3d: %s\n", i, hex.EncodeToString(r.Bytes[i:i+32]))
	}
	for _, n := range r.Notes {
		wrapLine(&b, "note: "+n, "  ", 78)
	}
	fmt.Fprintf(&b, "\n  %-20s %-19s %-15s %s\n", "bits", "field", "raw", "value")
	for _, f := range r.Fields {
		fmt.Fprintf(&b, "  %-20s %-19s %-15s %s\n", f.Bits, f.Name, fmt.Sprintf("%#x", f.Raw), f.Value)
	}
	fmt.Fprintln(&b)
	if len(r.Findings) == 0 {
		fmt.Fprintln(&b, "  checks: no findings")
		return b.String()
	}
	fmt.Fprintf(&b, "  checks: %d error(s), %d warning(s), %d info\n", r.Findings.Count(desc.Error), r.Findings.Count(desc.Warning), r.Findings.Count(desc.Info))
	for _, f := range r.Findings {
		wrapLine(&b, fmt.Sprintf("%s: %s: %s [%s]", f.Severity, f.Field, f.Msg, f.Rule), "    ", 78)
	}
	return b.String()
}

// WriteText writes the report.
func (r Report) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, r.String())
	return err
}

func wrapLine(b *strings.Builder, text, indent string, width int) {
	line := indent
	cont := indent + "  "
	for _, wd := range strings.Fields(text) {
		if len(line)+len(wd)+1 > width && strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = cont
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += wd
	}
	if strings.TrimSpace(line) != "" {
		b.WriteString(line + "\n")
	}
}

// ParseHex reads a CUtensorMap written as 256 hex digits; whitespace,
// underscores, commas, a 0x prefix and C-style "0x..," word lists of
// sixteen 64-bit words (as cuda-gdb and printf("%lx") print CUtensorMap's
// opaque[16]) are accepted.
func ParseHex(s string) ([Size]byte, error) {
	var b [Size]byte
	t := strings.NewReplacer("_", "", ",", " ", "{", " ", "}", " ", "\n", " ", "\t", " ").Replace(strings.TrimSpace(s))
	fields := strings.Fields(t)
	if len(fields) == 16 && strings.HasPrefix(strings.ToLower(fields[0]), "0x") {
		// Sixteen words, each a little-endian 64-bit number.
		for i, f := range fields {
			f = strings.TrimPrefix(strings.ToLower(f), "0x")
			if len(f) == 0 || len(f) > 16 {
				return b, fmt.Errorf("word %d %q: want up to 16 hex digits", i, fields[i])
			}
			var v uint64
			for _, c := range f {
				x := strings.IndexRune("0123456789abcdef", c)
				if x < 0 {
					return b, fmt.Errorf("word %d %q: not hex", i, fields[i])
				}
				v = v<<4 | uint64(x)
			}
			for k := 0; k < 8; k++ {
				b[8*i+k] = byte(v >> (8 * k))
			}
		}
		return b, nil
	}
	t = strings.Join(fields, "")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
	if len(t) != 2*Size {
		return b, fmt.Errorf("a CUtensorMap is 128 bytes: want 256 hex digits (in memory order) or sixteen 0x-words, have %d digits", len(t))
	}
	d, err := hex.DecodeString(t)
	if err != nil {
		return b, fmt.Errorf("not hex: %v", err)
	}
	copy(b[:], d)
	return b, nil
}

// Found is a tensor map Scan found.
type Found struct {
	Offset int
	Map    *Map
}

// Scan finds the CUtensorMaps in b (a by-value parameter struct, or a dump
// of a kernel's parameter space, which need not start 64-byte aligned):
// every 128 bytes at a multiple of 16 that decode with no unknown bit to
// arguments the driver accepts. All-zero windows are skipped.
func Scan(b []byte) []Found {
	var out []Found
	for off := 0; off+Size <= len(b); off += 16 {
		var raw [Size]byte
		copy(raw[:], b[off:])
		if raw == ([Size]byte{}) {
			continue
		}
		d, _ := Decode(raw)
		if len(d.Unknown) > 0 || d.Map.Validate() != nil {
			continue
		}
		out = append(out, Found{off, d.Map})
	}
	return out
}
