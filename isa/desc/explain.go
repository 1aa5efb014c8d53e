package desc

import (
	"fmt"
	"io"
	"strings"
)

// Field is one decoded field of a descriptor, with its meaning in words.
type Field struct {
	Key     string // short name, as in findings and flags: start, lbo, sbo, ...
	Name    string // human name
	Lo, Hi  int    // bit range, inclusive
	Raw     uint64 // the bits as stored
	Value   string // the decoded value, e.g. "1024 bytes"
	Meaning string // what it means here
}

// Bits is the field's bit range: "16-29" or "52".
func (f Field) Bits() string {
	if f.Lo == f.Hi {
		return fmt.Sprint(f.Lo)
	}
	return fmt.Sprintf("%d-%d", f.Lo, f.Hi)
}

func elems(bytes uint32, dtype string) string {
	if dtype == "" {
		return ""
	}
	b, err := ElemBits(dtype)
	if err != nil || bytes*8%uint32(b) != 0 {
		return ""
	}
	return fmt.Sprintf(" = %d %s elements", bytes*8/uint32(b), dtype)
}

// startField explains the start address.
func startField(raw uint16) Field {
	addr := uint32(raw) << 4
	return Field{Key: "start", Name: "start address", Lo: 0, Hi: 13, Raw: uint64(raw),
		Value: fmt.Sprintf("%#x (%d)", addr, addr),
		Meaning: fmt.Sprintf("shared-memory byte address of the operand's first core matrix, stored as (addr & 0x3FFFF) >> 4: %#x << 4 = %#x. Because of the >> 4 it is 16-byte aligned; 14 bits reach 256 KiB.",
			raw, addr)}
}

// lboField is the leading-byte-offset field (bits 16-29) of both
// shared-memory descriptor formats.
func lboField(raw uint16, swz Swizzle, ctx Context, absolute bool) Field {
	bytes := uint32(raw) << 4
	return Field{Key: "lbo", Name: "leading byte offset", Lo: 16, Hi: 29, Raw: uint64(raw),
		Value:   fmt.Sprintf("%d bytes", bytes),
		Meaning: fmt.Sprintf("stored >> 4 (%#x << 4 = %d). ", raw, bytes) + lboMeaning(bytes, swz, ctx.Major, ctx.DType, absolute)}
}

// sboField is the stride-byte-offset field (bits 32-45) of both
// shared-memory descriptor formats.
func sboField(raw uint16, swz Swizzle, ctx Context) Field {
	bytes := uint32(raw) << 4
	return Field{Key: "sbo", Name: "stride byte offset", Lo: 32, Hi: 45, Raw: uint64(raw),
		Value:   fmt.Sprintf("%d bytes", bytes),
		Meaning: fmt.Sprintf("stored >> 4 (%#x << 4 = %d). ", raw, bytes) + sboMeaning(bytes, swz, ctx.Major, ctx.DType)}
}

// lboMeaning explains the leading dimension byte offset for the major-ness
// and swizzle.
func lboMeaning(bytes uint32, swz Swizzle, major Major, dtype string, absolute bool) string {
	if absolute {
		return fmt.Sprintf("absolute mode (bit 52): the byte address %#x of the second K chunk, for a 48-byte K that would cross a 128-byte boundary (sm_103a).", bytes)
	}
	e := elems(bytes, dtype)
	k := fmt.Sprintf("K-major: %s", lboK(bytes, swz, e))
	mn := fmt.Sprintf("MN-major: %s", lboMN(bytes, swz, e))
	switch major {
	case MajorK:
		return k
	case MajorMN:
		return mn
	}
	return k + " " + mn + " (give --major to pick one)"
}

func lboK(bytes uint32, swz Swizzle, e string) string {
	switch swz {
	case SwizzleNone:
		return fmt.Sprintf("with no swizzle it is the distance between core matrices (8 rows x 16 bytes) adjacent along K: the core matrix holding the next 16 bytes of K starts %d bytes%s after the previous one.", bytes, e)
	case SwizzleUnknown:
		return "its meaning depends on the swizzle, which is invalid here."
	}
	return fmt.Sprintf("not used with %s: one MMA's 32 bytes of K lie inside one %d-byte swizzle row, so the hardware assumes 1 (CUTLASS writes 1); %d bytes here is ignored.", swz.Describe(), swz.Bytes(), bytes)
}

func lboMN(bytes uint32, swz Swizzle, e string) string {
	switch swz {
	case SwizzleNone:
		return fmt.Sprintf("with no swizzle it is the distance between core matrices adjacent along K (from K rows 0-7 to K rows 8-15): %d bytes%s.", bytes, e)
	case SwizzleUnknown:
		return "its meaning depends on the swizzle, which is invalid here."
	}
	return fmt.Sprintf("the distance between swizzle atoms adjacent along M/N (from one %d-byte row of M/N to the next %d bytes of M/N): %d bytes%s.", swz.Bytes(), swz.Bytes(), bytes, e)
}

func sboMeaning(bytes uint32, swz Swizzle, major Major, dtype string) string {
	e := elems(bytes, dtype)
	var k, mn string
	switch swz {
	case SwizzleUnknown:
		return fmt.Sprintf("%d bytes; its meaning depends on the swizzle, which is invalid here.", bytes)
	case SwizzleNone:
		k = fmt.Sprintf("the distance between core matrices adjacent along M/N (8-row groups): %d bytes%s; a packed core matrix is 128 bytes.", bytes, e)
		mn = fmt.Sprintf("the distance between core matrices adjacent along M/N (the next 16 bytes of M/N): %d bytes%s.", bytes, e)
	case Swizzle128B32A:
		k = "not defined: this swizzle exists only for MN-major operands."
		mn = fmt.Sprintf("the distance between groups of 4 K rows (one 512-byte atom is 4 rows x 128 B): %d bytes%s.", bytes, e)
	default:
		k = fmt.Sprintf("the distance between 8-row groups along M/N: %d bytes%s; a packed %s atom is 8 rows x %d B = %d bytes.", bytes, e, swz, swz.Bytes(), 8*swz.Bytes())
		mn = fmt.Sprintf("the distance between 8-row groups along K (the next 8 K rows): %d bytes%s; a packed %s atom is 8 rows x %d B = %d bytes.", bytes, e, swz, swz.Bytes(), 8*swz.Bytes())
	}
	switch major {
	case MajorK:
		return "K-major: " + k
	case MajorMN:
		return "MN-major: " + mn
	}
	return "K-major: " + k + " MN-major: " + mn + " (give --major to pick one)"
}

func baseOffsetField(raw uint8, start uint32, swz Swizzle) Field {
	f := Field{Key: "base_offset", Name: "base offset", Lo: 49, Hi: 51, Raw: uint64(raw), Value: fmt.Sprint(raw)}
	if swz.Repeat() == 0 {
		f.Meaning = "shifts the swizzle pattern; not used without a swizzle (should be 0)."
		return f
	}
	f.Meaning = fmt.Sprintf("shifts the %s swizzle pattern by this many 128-byte rows: the tensor core XORs each row with ((addr >> 7) - base offset) mod %d (measured on the H100). 0 reads the pattern TMA writes, which follows the absolute address; the ISA's (addr >> 7) & 7 (%d for %#x) anchors row 0 of the pattern at the start address.",
		swz, swz.patternRows(), ISABaseOffset(start, swz), start)
	return f
}

// Fields lists d's fields with their meanings under ctx.
func (d WGMMA) Fields(ctx Context) []Field {
	swz := d.Swizzle()
	fs := []Field{
		startField(d.StartAddr),
		lboField(d.LBO, swz, ctx, false),
		sboField(d.SBO, swz, ctx),
		baseOffsetField(d.BaseOffset, uint32(d.StartAddr)<<4, swz),
		{Key: "swizzle", Name: "layout type", Lo: 62, Hi: 63, Raw: uint64(d.LayoutType), Value: swz.String(),
			Meaning: fmt.Sprintf("%s: %s (CuTe %s). sm_90 codes: 0 none, 1 128B, 2 64B, 3 32B; sm_100 numbers them differently.", swz.Describe(), swz.xorRule(), swz.CuTe())},
	}
	if d.Reserved != 0 {
		fs = append(fs, Field{Key: "reserved", Name: "unused bits", Lo: 0, Hi: 63, Raw: d.Reserved,
			Value: "bits " + bitList(d.Reserved), Meaning: "bits 14-15, 30-31, 46-48 and 52-61 are unused by wgmma and must be 0."})
	}
	return fs
}

// Fields lists d's fields with their meanings under ctx.
func (d TCGen05Smem) Fields(ctx Context) []Field {
	swz := d.Swizzle()
	abs := d.LBOMode == 1
	swzText := swz.Describe() + ": " + swz.xorRule() + " (CuTe " + swz.CuTe() + ")"
	if swz == SwizzleUnknown {
		swzText = "invalid code (3, 5 and 7 are not swizzle modes)"
	}
	ver := "fixed 0b001: marks the descriptor as the sm_100 (tcgen05) format."
	if d.Version != TCGen05Version {
		ver = fmt.Sprintf("must be 0b001 (the sm_100 format); %#03b is wrong.", d.Version)
	}
	mode := "relative: LBO is an offset from the start address."
	if abs {
		mode = "absolute: LBO is the byte address of the second K chunk (sm_103a only)."
	}
	fs := []Field{
		startField(d.StartAddr),
		lboField(d.LBO, swz, ctx, abs),
		sboField(d.SBO, swz, ctx),
		{Key: "version", Name: "version", Lo: 46, Hi: 48, Raw: uint64(d.Version), Value: fmt.Sprintf("%#03b", d.Version), Meaning: ver},
		baseOffsetField(d.BaseOffset, uint32(d.StartAddr)<<4, swz),
		{Key: "lbo_mode", Name: "LBO mode", Lo: 52, Hi: 52, Raw: uint64(d.LBOMode), Value: map[bool]string{false: "relative", true: "absolute"}[abs], Meaning: mode},
		{Key: "swizzle", Name: "swizzle", Lo: 61, Hi: 63, Raw: uint64(d.SwizzleCode), Value: swz.String(),
			Meaning: swzText + ". sm_100 codes: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B (not the sm_90 codes)."},
	}
	if d.Reserved != 0 {
		fs = append(fs, Field{Key: "reserved", Name: "fixed-zero bits", Lo: 0, Hi: 63, Raw: d.Reserved,
			Value: "bits " + bitList(d.Reserved), Meaning: "bits 14-15, 30-31 and 53-60 must be 0."})
	}
	return fs
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// Fields lists d's fields with their meanings.
func (d IDesc) Fields() []Field {
	k := d.Kind
	ab := abFormats(k)
	name := func(m map[uint8]string, c uint8) string {
		if n, ok := m[c]; ok {
			return n
		}
		return fmt.Sprintf("invalid (%d)", c)
	}
	var fs []Field
	add := func(key, nm string, lo, hi int, raw uint64, val, mean string) {
		fs = append(fs, Field{Key: key, Name: nm, Lo: lo, Hi: hi, Raw: raw, Value: val, Meaning: mean})
	}
	if !k.BlockScaled() {
		add("sparse_selector", "sparsity selector", 0, 1, uint64(d.SparseSelector), fmt.Sprint(d.SparseSelector),
			"which part of the sparse metadata this MMA uses; only meaningful when the sparsity bit is set.")
	}
	add("sparse", "sparsity", 2, 2, uint64(b2u(d.Sparse)), yesNo(d.Sparse, "sparse", "dense"),
		yesNo(d.Sparse, "A is 2:4 structured-sparse (tcgen05.mma.sp), so K doubles.", "A is dense."))
	if !k.BlockScaled() {
		add("saturate", "saturate", 3, 3, uint64(b2u(d.Saturate)), yesNo(d.Saturate, "yes", "no"),
			"saturate the s32 result (kind::i8 only).")
		dn := name(dFormats(k), d.DType)
		add("dtype", "D type", 4, 5, uint64(d.DType), dn, fmt.Sprintf("accumulator (D) format; kind::%s codes: %s.", k, formatList(dFormats(k))))
	} else {
		add("scale_b_id", "scale factor B id", 4, 5, uint64(d.ScaleBID), fmt.Sprint(d.ScaleBID),
			"which byte of each 32-bit TMEM word of the SFB matrix holds B's scale factors (the sub-column).")
	}
	add("atype", "A type", 7, 9, uint64(d.AType), name(ab, d.AType), fmt.Sprintf("kind::%s codes: %s.", k, formatList(ab)))
	bhi := 12
	if k.fp4Only() {
		bhi = 11
	}
	add("btype", "B type", 10, bhi, uint64(d.BType), name(ab, d.BType), fmt.Sprintf("kind::%s codes: %s.", k, formatList(ab)))
	add("negate_a", "negate A", 13, 13, uint64(b2u(d.NegateA)), yesNo(d.NegateA, "yes", "no"), "multiply by -A.")
	add("negate_b", "negate B", 14, 14, uint64(b2u(d.NegateB)), yesNo(d.NegateB, "yes", "no"), "multiply by -B.")
	add("transpose_a", "transpose A", 15, 15, uint64(b2u(d.TransposeA)), yesNo(d.TransposeA, "MN-major", "K-major"),
		"0 = no transpose = A is K-major in shared memory; 1 = transpose = M-major. Must match the layout the descriptor of A describes.")
	add("transpose_b", "transpose B", 16, 16, uint64(b2u(d.TransposeB)), yesNo(d.TransposeB, "MN-major", "K-major"),
		"0 = no transpose = B is K-major (N rows of K); 1 = N-major.")
	add("n", "N >> 3", 17, 22, uint64(d.NField), fmt.Sprintf("N = %d", d.N()), fmt.Sprintf("the N dimension without its 3 low bits: %d << 3 = %d.", d.NField, d.N()))
	if k.BlockScaled() {
		add("scale_type", "scale type", 23, 23, uint64(d.ScaleType), name(scaleTypes, d.ScaleType), "format of the scale factors of both A and B: 0 ue4m3 (kind::mxf4nvf4 only), 1 ue8m0.")
		add("m", "M >> 7", 27, 28, uint64(d.MField), fmt.Sprintf("M = %d", d.M()), fmt.Sprintf("the M dimension without its 7 low bits: %d << 7 = %d (bits 24-26 are reserved).", d.MField, d.M()))
		add("scale_a_id", "scale factor A id", 29, 30, uint64(d.ScaleAID), fmt.Sprint(d.ScaleAID),
			"which byte of each 32-bit TMEM word of the SFA matrix holds A's scale factors (the sub-column).")
		if k.fp4Only() {
			add("k_size", "K size", 31, 31, uint64(d.KSize), yesNo(d.KSize == 1, "K = 96", "K = 64 (128 sparse)"), "1 selects dense K = 96 (sm_103a only).")
		}
	} else {
		add("m", "M >> 4", 24, 28, uint64(d.MField), fmt.Sprintf("M = %d", d.M()), fmt.Sprintf("the M dimension without its 4 low bits: %d << 4 = %d.", d.MField, d.M()))
		add("max_shift", "max shift", 30, 31, uint64(d.MaxShift), fmt.Sprintf("%d columns", d.MaxShiftColumns()),
			"maximum shift while reusing the B matrix in tcgen05.mma.ws: 0 none, 1 8, 2 16, 3 32.")
	}
	if d.Reserved != 0 {
		add("reserved", "reserved bits", 0, 31, uint64(d.Reserved), "bits "+bitList(uint64(d.Reserved)), fmt.Sprintf("reserved in kind::%s; must be 0.", k))
	}
	return fs
}

// Report is a decoded descriptor ready to print: its fields, the
// validation findings and, when asked for, the core-matrix footprint.
type Report struct {
	Title     string   // what was decoded
	Value     uint64   // the descriptor
	Width     int      // 64 or 32 bits
	Arch      Arch     // the descriptor family
	Notes     []string // how it was read: auto-detection, assumptions
	Fields    []Field
	Findings  Findings
	Operand   Operand          // the operand tile the footprint uses
	Footprint []CoreMatrixRead // nil unless computed
	Layout    SmemLayout       // the shared-memory layout in bytes (zero for instruction descriptors)
}

// DetectArch guesses which shared-memory descriptor v is: sm_100 if bits
// 46-48 hold the tcgen05 version 0b001, else sm_90. The reason says why.
func DetectArch(v uint64) (Arch, string) {
	if v>>46&7 == TCGen05Version {
		return SM100, "bits 46-48 hold 0b001, the tcgen05 version field"
	}
	return SM90, fmt.Sprintf("bits 46-48 hold %#03b, not the tcgen05 version 0b001", v>>46&7)
}

// ExplainSmem decodes a shared-memory descriptor as arch's format (or
// detects it when arch is ArchUnknown), explains every field and checks
// it against ctx.
func ExplainSmem(v uint64, arch Arch, ctx Context) Report {
	r := Report{Value: v, Width: 64}
	if arch == ArchUnknown {
		a, why := DetectArch(v)
		arch = a
		r.Notes = append(r.Notes, fmt.Sprintf("read as %s because %s (use --arch to choose)", arch, why))
	}
	r.Arch = arch
	var swz Swizzle
	if arch == SM100 {
		d := DecodeTCGen05Smem(v)
		r.Title = "tcgen05 shared-memory descriptor (sm_100a)"
		r.Fields, r.Findings, r.Layout, swz = d.Fields(ctx), d.Check(ctx), d.Layout(), d.Swizzle()
	} else {
		d := DecodeWGMMA(v)
		r.Title = "wgmma shared-memory matrix descriptor (sm_90a)"
		r.Fields, r.Findings, r.Layout, swz = d.Fields(ctx), d.Check(ctx), d.Layout(), d.Swizzle()
	}
	if ctx.Major != MajorUnknown {
		if op, note, err := ctx.operand(swz); err == nil {
			r.Operand = op
			if note != "" {
				r.Notes = append(r.Notes, note)
			}
		}
	}
	if arch == SM100 {
		r.Notes = append(r.Notes, "sm_100a is modelled from the PTX ISA and CUTLASS: not hardware-verified")
	}
	return r
}

// WithFootprint computes the core-matrix footprint of r's operand (it
// needs the major-ness in the context that made r).
func (r Report) WithFootprint() (Report, error) {
	if r.Operand.Major == MajorUnknown {
		return r, fmt.Errorf("the footprint needs the operand's major-ness (--major K or MN)")
	}
	reads, err := Footprint(r.Layout, r.Operand)
	if err != nil {
		return r, err
	}
	r.Footprint = reads
	return r, nil
}

// ExplainIDesc decodes an instruction descriptor of kind k, explains every
// field and checks it against ctx.
func ExplainIDesc(v uint32, k Kind, ctx IDescContext) Report {
	d := DecodeIDesc(v, k)
	r := Report{Title: fmt.Sprintf("tcgen05 instruction descriptor, kind::%s (sm_100a)", k), Value: uint64(v), Width: 32, Arch: SM100}
	r.Fields, r.Findings = d.Fields(), d.Check(ctx)
	r.Notes = append(r.Notes, "sm_100a is modelled from the PTX ISA and CUTLASS: not hardware-verified")
	return r
}

// WriteText prints r: the fields table, then every field's meaning, then
// the findings.
func (r Report) WriteText(out io.Writer) error {
	_, err := io.WriteString(out, r.String())
	return err
}

// String formats r as WriteText prints it.
func (r Report) String() string {
	var b strings.Builder
	r.writeText(&b)
	return b.String()
}

func (r Report) writeText(w *strings.Builder) {
	digits := r.Width / 4
	fmt.Fprintf(w, "%s\n  value 0x%0*x\n", r.Title, digits, r.Value)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "\n  %-6s %-20s %-8s %s\n", "bits", "field", "raw", "value")
	for _, f := range r.Fields {
		fmt.Fprintf(w, "  %-6s %-20s %-8s %s\n", f.Bits(), f.Name, fmt.Sprintf("%#x", f.Raw), f.Value)
	}
	fmt.Fprintln(w)
	for _, f := range r.Fields {
		fmt.Fprintf(w, "  %s:\n", f.Name)
		wrap(w, f.Meaning, "      ", 78)
	}
	fmt.Fprintln(w)
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "  checks: no findings")
		return
	}
	fmt.Fprintf(w, "  checks: %d error(s), %d warning(s), %d info\n", r.Findings.Count(Error), r.Findings.Count(Warning), r.Findings.Count(Info))
	for _, f := range r.Findings {
		wrap(w, fmt.Sprintf("%s: %s: %s [%s]", f.Severity, f.Field, f.Msg, f.Rule), "    ", 78)
	}
}

// wrap writes text word-wrapped to width, each line after indent; lines
// after the first of a paragraph get two more spaces.
func wrap(w *strings.Builder, text, indent string, width int) {
	words := strings.Fields(text)
	line := indent
	first := true
	for _, wd := range words {
		if len(line)+len(wd)+1 > width && strings.TrimSpace(line) != "" {
			w.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
			if first {
				indent += "  "
				line = indent
				first = false
			}
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += wd
	}
	if strings.TrimSpace(line) != "" {
		w.WriteString(line + "\n")
	}
}
