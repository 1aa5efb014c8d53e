package desc

import (
	"fmt"
	"slices"
	"strings"
)

// Check validates a wgmma descriptor against the ISA's rules and the traps
// users hit, with ctx saying what the user expects.
func (d WGMMA) Check(ctx Context) Findings {
	var fs Findings
	if d.Reserved != 0 {
		switch {
		case d.Reserved>>46&7 == TCGen05Version:
			fs.add(Error, "reserved", "tcgen05-version-in-wgmma",
				"bits 46-48 are 0b001, the version field of a tcgen05 (sm_100) shared-memory descriptor; wgmma leaves them 0. Decode it with --arch sm_100a, or build it with the sm_90 layout")
		case d.Reserved>>53&0xFF == 0xB0:
			fs.add(Error, "reserved", "fixed-zero-0xb0",
				"bits 53-60 hold 0xB0: the ISA's tcgen05 table says 'fixed constant value of 0b00000000' there, sometimes misread as 0xB0; wgmma reserves these bits and they must be 0")
		}
		if d.Reserved>>61&1 == 1 {
			fs.add(Error, "reserved", "sm100-swizzle-bit-in-wgmma",
				"bit 61 is set: wgmma's layout type is only bits 62-63, while bit 61 is the low bit of the 3-bit tcgen05 swizzle field. The swizzle was probably encoded with sm_100 codes at bit 61 (sm_90: 1 = 128B at bit 62; sm_100: 2 = 128B at bit 61)")
		}
		if !fs.Has("tcgen05-version-in-wgmma") {
			fs.add(Error, "reserved", "reserved-bits", "bits %s are set but unused in a wgmma descriptor; they must be 0", bitList(d.Reserved))
		}
	}
	checkLayout(d.Layout(), ctx, &fs)
	return fs
}

// Check validates a tcgen05 shared-memory descriptor against the ISA's
// rules and the traps users hit, with ctx saying what the user expects.
func (d TCGen05Smem) Check(ctx Context) Findings {
	var fs Findings
	if d.Version != TCGen05Version {
		what := ""
		if d.Version == 0 {
			what = " 0 is what a wgmma (sm_90) descriptor has there: it was probably built with the sm_90 layout."
		}
		fs.add(Error, "version", "version-missing",
			"bits 46-48 must hold the fixed value 0b001 on sm_100 (CUTLASS sets version_ = 1); they hold %#03b.%s", d.Version, what)
	}
	if d.Reserved != 0 {
		if d.Reserved>>53&0xFF == 0xB0 {
			fs.add(Error, "reserved", "fixed-zero-0xb0",
				"bits 53-60 hold 0xB0: the ISA says 'fixed constant value of 0b00000000' (some copies print it as 0xb00000000), which is zero; write 0 there")
		} else {
			fs.add(Error, "reserved", "reserved-bits", "bits %s are set; bits 14-15, 30-31 and 53-60 of a tcgen05 shared-memory descriptor must be 0", bitList(d.Reserved))
		}
	}
	switch d.SwizzleCode {
	case 3:
		fs.add(Error, "swizzle", "swizzle-invalid-code",
			"code 3 is invalid on sm_100 (valid: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B). 3 is the sm_90 (wgmma) code for 32B swizzle: the sm_100 code for 32B is 6")
	case 5, 7:
		fs.add(Error, "swizzle", "swizzle-invalid-code",
			"code %d is invalid on sm_100 (valid: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B)", d.SwizzleCode)
	}
	if d.LBOMode == 1 {
		fs.add(Warning, "lbo_mode", "lbo-mode-absolute",
			"bit 52 selects the absolute-address LBO mode, which the ISA supports only on sm_103a (for a 48-byte K); on sm_100a keep it 0 (relative offset)")
	}
	checkLayout(d.Layout(), ctx, &fs)
	return fs
}

// checkLayout runs the checks that the two shared-memory descriptors
// share, on the layout in bytes: the addresses, the offsets against the
// canonical layouts, the major-ness against the element type, and the
// core matrices the operand tile reads.
func checkLayout(l SmemLayout, ctx Context, fs *Findings) {
	checkAddresses(l, ctx, fs)
	op, _, opErr := ctx.operand(l.Swizzle)
	checkOffsets(l, ctx, op, opErr, fs)
	checkMajorType(l, ctx, fs)
	checkFootprint(l, ctx, op, opErr, fs)
}

// checkAddresses checks the swizzle the user expected, the start address,
// the base offset and offsets too large to be anything but bytes.
func checkAddresses(l SmemLayout, ctx Context, fs *Findings) {
	swz := l.Swizzle
	arch := l.Arch
	lboF, sboF := l.LBO>>4, l.SBO>>4

	// The swizzle the user expected.
	if ctx.Swizzle != SwizzleUnknown && swz != SwizzleUnknown && ctx.Swizzle != swz {
		fs.add(Error, "swizzle", "swizzle-mismatch", "%s", swizzleMismatch(arch, swz, ctx.Swizzle))
	}

	// Start address.
	if l.Start >= SmemLimit {
		fs.add(Error, "start", "start-beyond-smem",
			"the start address decodes to %#x (%d), past the %d KiB of shared memory; the field holds (addr & 0x3FFFF) >> 4, so if an unshifted byte address was written the real address is %#x",
			l.Start, l.Start, SmemLimit>>10, uint32(l.Start>>4)&0x3FFF)
	}

	// Base offset.
	checkBaseOffset(l, fs)

	// Offsets that look like bytes where bytes >> 4 belong.
	for _, o := range []struct {
		name string
		f    uint32
	}{{"lbo", lboF}, {"sbo", sboF}} {
		if o.name == "lbo" && l.LBOAbsolute {
			continue
		}
		if o.f<<4 >= SmemLimit {
			fs.add(Error, o.name, "offset-in-bytes",
				"the field is %#x, which decodes to %d bytes, more than the %d KiB of shared memory. The field holds bytes >> 4: if %d was meant as bytes, write %d (%#x)",
				o.f, o.f<<4, SmemLimit>>10, o.f, o.f>>4, o.f>>4)
		}
	}
}

// checkOffsets checks LBO and SBO: written in bytes where bytes >> 4
// belong, against the swizzle and the major-ness, zero where the layout
// needs them.
func checkOffsets(l SmemLayout, ctx Context, op Operand, opErr error, fs *Findings) {
	swz := l.Swizzle
	lboF, sboF := l.LBO>>4, l.SBO>>4
	major := ctx.Major
	canon := canonicalOffsets(swz, major, op, opErr == nil)
	for _, o := range []struct {
		name string
		f    uint32
		pick func(canonOffsets) uint32
	}{
		{"lbo", lboF, func(c canonOffsets) uint32 { return c.lbo }},
		{"sbo", sboF, func(c canonOffsets) uint32 { return c.sbo }},
	} {
		if o.f<<4 >= SmemLimit || (o.name == "lbo" && l.LBOAbsolute) {
			continue
		}
		match, shifted := false, false
		var what string
		for _, c := range canon {
			v := o.pick(c)
			if v == 0 {
				continue
			}
			if o.f<<4 == v {
				shifted = true
			}
			if o.f == v && v >= 64 {
				match, what = true, c.what
			}
		}
		if match && !shifted {
			fs.add(Warning, o.name, "offset-in-bytes",
				"the field is %d (%#x), i.e. %d bytes; but %d is exactly the %s in bytes for %s. The field holds bytes >> 4: for %d bytes write %d (%#x)",
				o.f, o.f, o.f<<4, o.f, strings.ToUpper(o.name), what, o.f, o.f>>4, o.f>>4)
		}
	}

	// LBO and SBO against the swizzle and major-ness.
	switch {
	case major == MajorK && swz != SwizzleNone && swz != SwizzleUnknown && !l.LBOAbsolute:
		if lboF > 1 {
			fs.add(Info, "lbo", "lbo-ignored",
				"LBO is %d bytes but is not used for a swizzled K-major operand: the instruction's K extent (32 bytes) lies inside one %d-byte swizzle row; the ISA says it is assumed to be 1, and CUTLASS writes 1",
				lboF<<4, swz.Bytes())
		}
	case major == MajorK && swz == SwizzleNone:
		if lboF == 0 {
			fs.add(Error, "lbo", "lbo-zero",
				"LBO is 0, but for a K-major operand with no swizzle it is the distance between the core matrices (8 rows x 16 bytes) adjacent along K: with 0 both K halves read the same bytes")
		}
	case major == MajorMN && swz == SwizzleNone:
		if lboF == 0 && opErr == nil && op.K > 8 {
			fs.add(Error, "lbo", "lbo-zero",
				"LBO is 0, but for an MN-major operand with no swizzle it is the distance between the core matrices adjacent along K (the next 8 K rows): with 0 they read the same bytes")
		}
	}
	if sboF == 0 && major != MajorUnknown && opErr == nil {
		nMN, nK, _ := op.Geometry()
		needs := (major == MajorK && nMN > 1) || (major == MajorMN && swz == SwizzleNone && nMN > 1) || (major == MajorMN && swz != SwizzleNone && nK > 1)
		if needs {
			fs.add(Error, "sbo", "sbo-zero", "SBO is 0, so %s all read the same bytes", sboZeroWhat(major, swz))
		}
	}
	if major == MajorK && swz.Repeat() > 0 && sboF<<4 != uint32(8*swz.Bytes()) {
		for _, other := range []Swizzle{Swizzle32B, Swizzle64B, Swizzle128B} {
			if other != swz && sboF<<4 == uint32(8*other.Bytes()) {
				fs.add(Info, "sbo", "sbo-fits-other-swizzle",
					"SBO is %d bytes = 8 rows x %d B, the packed stride of %s swizzle; with %s swizzle 8 rows span %d bytes. Legal if the K extent spans several swizzle atoms stored side by side, but if you meant %s, the swizzle code is wrong",
					sboF<<4, other.Bytes(), other, swz, 8*swz.Bytes(), other)
			}
		}
	}
}

// checkMajorType checks the major-ness against the element type and the
// swizzle.
func checkMajorType(l SmemLayout, ctx Context, fs *Findings) {
	swz := l.Swizzle
	arch := l.Arch
	major := ctx.Major
	bits := 0
	if ctx.DType != "" {
		bits, _ = ElemBits(ctx.DType)
	}
	if major == MajorMN && bits > 0 {
		switch {
		case arch == SM90 && bits != 16:
			fs.add(Error, "major", "transpose-type",
				"wgmma reads MN-major (transposed) operands only for 16-bit types (f16, bf16); %s operands must be K-major. Passing imm-trans = 1 anyway is not always rejected and can give wrong numbers", ctx.DType)
		case arch == SM100 && bits == 32 && swz != Swizzle128B32A && swz != SwizzleUnknown:
			fs.add(Error, "swizzle", "transpose-type",
				"tcgen05 reads a 32-bit (tf32) operand MN-major only with 128B swizzle with 32-byte atomicity (code 1); the descriptor has %s", swz)
		case arch == SM100 && bits < 8:
			fs.add(Error, "major", "transpose-type",
				"tcgen05 has no MN-major (transposed) form for %d-bit %s operands; only 8-, 16- and 32-bit types can be transposed", bits, ctx.DType)
		case arch == SM100 && (bits == 8 || bits == 16) && swz == Swizzle128B32A:
			fs.add(Error, "swizzle", "transpose-type",
				"128B swizzle with 32-byte atomicity is only for MN-major 32-bit (tf32) operands; 8- and 16-bit MN-major operands take the other modes")
		}
	}
	if swz == Swizzle128B32A && major == MajorK {
		fs.add(Error, "swizzle", "swizzle-128b32a-major",
			"128B swizzle with 32-byte atomicity (code 1) is defined only for MN-major operands (ISA swizzle-atom table; CUTLASS rejects it for K-major). Code 1 is also sm_90's code for plain 128B: the sm_100 code for 128B is 2")
	}
}

// checkFootprint lays the operand tile out and checks the bytes its core
// matrices read: inside shared memory, no two rows on the same bytes.
func checkFootprint(l SmemLayout, ctx Context, op Operand, opErr error, fs *Findings) {
	swz := l.Swizzle
	major := ctx.Major
	if major == MajorUnknown {
		fs.add(Info, "major", "footprint-skipped", "give the major-ness (--major K or MN) to check which bytes each core matrix reads")
		return
	}
	if opErr != nil {
		fs.add(Warning, "tile", "footprint-skipped", "cannot lay out the operand tile: %v", opErr)
		return
	}
	if op.Major == MajorK && swz != SwizzleNone && swz != SwizzleUnknown && op.K*op.ElemBits/8 > swz.Bytes() {
		fs.add(Warning, "tile", "tile-wider-than-swizzle",
			"the tile's K extent (%d bytes) is wider than the %d-byte swizzle row; one MMA reads 32 bytes of K, so a wider tile is read by several MMAs, each with the start address advanced along K", op.K*op.ElemBits/8, swz.Bytes())
	}
	if op.Major == MajorMN && swz != SwizzleNone && swz != SwizzleUnknown && op.MN*op.ElemBits/8 < swz.Bytes() {
		fs.add(Warning, "tile", "tile-narrower-than-swizzle",
			"the tile's M/N extent (%d bytes) is narrower than the %d-byte swizzle row: each K row of the atom is %d bytes long, so the tile must be stored with that row pitch (check the TMA box)", op.MN*op.ElemBits/8, swz.Bytes(), swz.Bytes())
	}
	reads, err := Footprint(l, op)
	if err != nil {
		fs.add(Warning, "tile", "footprint-skipped", "cannot compute the footprint: %v", err)
		return
	}
	if _, hi := Span(reads); hi > SmemLimit {
		fs.add(Error, "footprint", "footprint-beyond-smem",
			"the operand reaches address %#x, past the %d KiB of shared memory; the MMA faults with an illegal memory access (offsets written in bytes instead of bytes >> 4 are the usual cause)", hi-1, SmemLimit>>10)
	}
	if ov := Overlaps(reads); len(ov) > 0 {
		a, b := ov[0].A, ov[0].B
		field, why := overlapCause(a, b, op.Major, swz)
		fs.add(Error, field, "footprint-overlap",
			"%d pairs of core-matrix rows read the same bytes, e.g. core %d row %d (%s) and core %d row %d (%s) both read %#x: every element needs its own address, so %s for this tile (%dx%d %s)",
			len(ov), a.Core, a.Row, elemRange(a, op.Major), b.Core, b.Row, elemRange(b, op.Major), a.Addr, why, op.MN, op.K, dtypeName(ctx.DType, op.ElemBits))
	}
}

// overlapCause names the offset that places core matrices a and b on top
// of each other: the one that separates them along the dimension in which
// they differ.
func overlapCause(a, b CoreMatrixRead, major Major, swz Swizzle) (field, why string) {
	// Which offset steps along M/N and which along K.
	mnOff, kOff := "SBO", "LBO"
	if major == MajorMN && swz != SwizzleNone {
		mnOff, kOff = "LBO", "SBO"
	}
	switch {
	case a.Core == b.Core:
		return "sbo", "the rows of one core matrix collide (the swizzle or row pitch)"
	case a.CoreMN != b.CoreMN && a.CoreK != b.CoreK:
		return strings.ToLower(mnOff), fmt.Sprintf("%s (the step along M/N) and %s (the step along K) land core matrices on top of each other", mnOff, kOff)
	case a.CoreK != b.CoreK:
		return strings.ToLower(kOff), fmt.Sprintf("%s (the step along K) is too small", kOff)
	}
	return strings.ToLower(mnOff), fmt.Sprintf("%s (the step along M/N) is too small", mnOff)
}

func offsetRole(name string) string {
	if name == "lbo" {
		return "leading byte offset"
	}
	return "stride byte offset"
}

func sboZeroWhat(major Major, swz Swizzle) string {
	switch {
	case major == MajorK:
		return "the 8-row groups of core matrices along M/N"
	case swz == SwizzleNone:
		return "the core matrices adjacent along M/N"
	}
	return "the 8-row groups along K"
}

func elemRange(r CoreMatrixRead, m Major) string {
	if m == MajorK {
		return fmt.Sprintf("MN %d, K %d-%d", r.MN0, r.K0, r.K1-1)
	}
	return fmt.Sprintf("K %d, MN %d-%d", r.K0, r.MN0, r.MN1-1)
}

func dtypeName(dtype string, bits int) string {
	if dtype != "" {
		return dtype
	}
	return fmt.Sprintf("%d-bit", bits)
}

// swizzleMismatch explains a swizzle that is not the expected one, naming
// the code confusions between sm_90 and sm_100.
func swizzleMismatch(arch Arch, got, want Swizzle) string {
	msg := fmt.Sprintf("the descriptor selects %s but %s was expected (e.g. the TMA tensor map's swizzle)", got, want)
	switch arch {
	case SM90:
		gc, _ := got.SM90Code()
		if s100 := SwizzleFromSM100(gc); s100 == want && gc != 0 {
			msg += fmt.Sprintf(". Layout type %d means %s on sm_90, but it is the sm_100 code for %s: the sm_90 code for %s is %d", gc, got, want, want, mustCode(want.SM90Code()))
		} else if wc, ok := want.SM90Code(); ok {
			msg += fmt.Sprintf(". On sm_90 %s is layout type %d (bits 62-63)", want, wc)
		} else {
			msg += fmt.Sprintf(". %s does not exist on sm_90", want)
		}
		msg += ". With a swizzle that differs from the one the data was written with, most reads land in the wrong 16-byte columns"
	case SM100:
		gc, _ := got.SM100Code()
		if s90 := SwizzleFromSM90(gc); gc < 4 && s90 == want && gc != 0 {
			msg += fmt.Sprintf(". Code %d means %s on sm_100, but it is the sm_90 code for %s: the sm_100 code for %s is %d", gc, got, want, want, mustCode(want.SM100Code()))
		} else if wc, ok := want.SM100Code(); ok {
			msg += fmt.Sprintf(". On sm_100 %s is code %d (bits 61-63)", want, wc)
		}
		msg += ". With a swizzle that differs from the one the data was written with, most reads land in the wrong 16-byte columns"
	}
	return msg
}

func mustCode(c uint8, _ bool) uint8 { return c }

// operand is the tile the footprint checks use: the context's, else a
// default (64 rows of M/N, one MMA's 32 bytes of K) with a note.
func (ctx Context) operand(swz Swizzle) (Operand, string, error) {
	op := Operand{Major: ctx.Major}
	var notes []string
	if ctx.DType != "" {
		b, err := ElemBits(ctx.DType)
		if err != nil {
			return op, "", err
		}
		op.ElemBits = b
	} else {
		op.ElemBits = 16
		notes = append(notes, "16-bit elements assumed (give --dtype)")
	}
	if ctx.TileMN > 0 && ctx.TileK > 0 {
		op.MN, op.K = ctx.TileMN, ctx.TileK
	} else {
		op.MN, op.K = 64, 256/op.ElemBits
		if op.Major == MajorMN && swz != SwizzleUnknown {
			// An MN-major operand is laid out by swizzle rows along M/N: take one full row.
			op.MN = max(op.MN, swz.Bytes()*8/op.ElemBits)
		}
		if op.Major == MajorMN && op.K < 8 {
			op.K = 8
		}
		notes = append(notes, fmt.Sprintf("tile %dx%d assumed: 64 rows of M/N and the 32 bytes of K one dense MMA reads (give --tile MNxK)", op.MN, op.K))
	}
	return op, strings.Join(notes, "; "), nil
}

type canonOffsets struct {
	lbo, sbo uint32
	what     string
}

// canonicalOffsets lists the LBO/SBO byte values of a densely packed tile
// in the two usual orders (CuTe's tile_to_shape, M/N-first, and K-first).
func canonicalOffsets(swz Swizzle, major Major, op Operand, haveOp bool) []canonOffsets {
	var out []canonOffsets
	atom := uint32(8 * swz.Bytes())
	if swz != SwizzleNone && swz != SwizzleUnknown {
		out = append(out, canonOffsets{0, atom, fmt.Sprintf("one %s swizzle atom, 8 rows x %d B", swz, swz.Bytes())})
		if swz == Swizzle128B32A {
			out = append(out, canonOffsets{0, 512, "one 128B-32A atom, 4 rows x 128 B"})
		}
	}
	if swz == SwizzleNone {
		out = append(out, canonOffsets{128, 128, "one core matrix, 8 rows x 16 B"}, canonOffsets{256, 256, "two core matrices"})
	}
	if !haveOp || major == MajorUnknown {
		return out
	}
	nMN, nK, err := op.Geometry()
	if err != nil {
		return out
	}
	n := uint32(nMN)
	switch {
	case major == MajorK && swz == SwizzleNone:
		out = append(out, canonOffsets{n * 128, 128, "a packed no-swizzle K-major tile, core matrices along M/N first"},
			canonOffsets{128, uint32(nK) * 128, "a packed no-swizzle K-major tile, core matrices along K first"})
	case major == MajorMN && swz == SwizzleNone:
		out = append(out, canonOffsets{n * 128, 128, "a packed no-swizzle MN-major tile, core matrices along M/N first"},
			canonOffsets{128, uint32(nK) * 128, "a packed no-swizzle MN-major tile, core matrices along K first"})
	case major == MajorMN && swz != SwizzleUnknown:
		w := uint32(swz.Bytes() / 16)
		atoms := (n + w - 1) / w
		out = append(out, canonOffsets{uint32(nK) * atom, atom, "a packed swizzled MN-major tile, atoms along K first"},
			canonOffsets{atom, atoms * atom, "a packed swizzled MN-major tile, atoms along M/N first"})
	}
	return out
}

// CheckByteInputs looks at the byte values given to an encoder (the
// --addr, --lbo and --sbo of `tcsim desc encode`) for the opposite trap:
// values that were already shifted right by 4.
func CheckByteInputs(addr, lbo, sbo uint32, swz Swizzle, ctx Context) Findings {
	var fs Findings
	op, _, err := ctx.operand(swz)
	for _, c := range canonicalOffsets(swz, ctx.Major, op, err == nil) {
		for _, o := range []struct {
			name string
			v    uint32
			want uint32
		}{{"lbo", lbo, c.lbo}, {"sbo", sbo, c.sbo}} {
			if o.v != 0 && o.want >= 64 && o.v<<4 == o.want && !fs.Has(o.name+"-already-shifted") {
				fs.add(Warning, o.name, o.name+"-already-shifted",
					"%d bytes is tiny, and %d x 16 = %d is exactly the %s (%s): the flag takes bytes and does the >> 4 itself. Did you mean %d?",
					o.v, o.v, o.want, offsetRole(o.name), c.what, o.want)
			}
		}
	}
	if addr != 0 && addr < 0x400 && swz.Repeat() > 0 && (addr<<4)%uint32(swz.Repeat()) == 0 && addr%uint32(swz.Repeat()) != 0 {
		fs.add(Warning, "start", "addr-already-shifted",
			"address %#x is not on a %d-byte boundary, but %#x x 16 = %#x is: the flag takes the byte address and does the >> 4 itself", addr, swz.Repeat(), addr, addr<<4)
	}
	return fs
}

// IDescContext is what the user expects of an instruction descriptor: the
// --cta-group, --ws and --swizzle flags. Zero fields are unknown.
type IDescContext struct {
	CTAGroup int     // 1 or 2; 0 unknown
	WS       Tri     // whether the instruction is tcgen05.mma.ws
	Swizzle  Swizzle // the swizzle of the shared-memory operands, if known
}

// shapeForm is one form of tcgen05.mma (cta_group, .ws) and its legal
// shapes for a kind.
type shapeForm struct {
	cta     int
	ws      bool
	invalid string
	ms      []int
	nOK     func(n int) bool
	nText   string
}

func (f shapeForm) name() string {
	s := fmt.Sprintf("cta_group::%d", f.cta)
	if f.ws {
		s += " .ws"
	}
	return s
}

func stepN(lo, step int) (func(int) bool, string) {
	return func(n int) bool { return n >= lo && n <= 256 && n%step == 0 },
		fmt.Sprintf("N = %d..256 in steps of %d", lo, step)
}

// shapeFormFor is the ISA's Table "Various combinations of .kind and
// shapes" (9.7.16.2.1).
func shapeFormFor(k Kind, sparse bool, cta int, ws bool) shapeForm {
	f := shapeForm{cta: cta, ws: ws}
	if ws {
		if k.BlockScaled() {
			f.invalid = "block-scaled kinds have no .ws form"
			return f
		}
		if cta == 2 {
			f.invalid = ".ws exists only with cta_group::1"
			return f
		}
		f.ms = []int{32, 64, 128}
		if sparse {
			f.nOK, f.nText = func(n int) bool { return n == 64 || n == 128 }, "N = 64 or 128 (sparse .ws)"
		} else {
			f.nOK, f.nText = func(n int) bool { return n == 64 || n == 128 || n == 256 }, "N = 64, 128 or 256 (.ws)"
		}
		return f
	}
	switch {
	case k.BlockScaled() && cta == 1:
		f.ms = []int{128}
		f.nOK, f.nText = stepN(8, 8)
	case k.BlockScaled():
		f.ms = []int{128, 256}
		if sparse {
			f.ms = []int{256}
		}
		f.nOK, f.nText = stepN(16, 16)
	case k == KindI8 && cta == 1:
		f.ms = []int{64, 128}
		f.nOK = func(n int) bool { return n == 8 || n == 16 || n == 24 || n == 32 || (n > 32 && n <= 256 && n%16 == 0) }
		f.nText = "N = 8, 16, 24, 32, then 48..256 in steps of 16"
	case k == KindI8:
		f.ms = []int{128, 256}
		f.nOK, f.nText = stepN(32, 32)
	case cta == 1:
		f.ms = []int{64, 128}
		f.nOK, f.nText = stepN(8, 8)
	default:
		f.ms = []int{128, 256}
		f.nOK, f.nText = stepN(16, 16)
	}
	return f
}

// forms lists the tcgen05.mma forms the context allows.
func (ctx IDescContext) forms(k Kind, sparse bool) []shapeForm {
	var out []shapeForm
	for _, ws := range []bool{false, true} {
		if (ctx.WS == Yes && !ws) || (ctx.WS == No && ws) {
			continue
		}
		for _, cta := range []int{1, 2} {
			if ctx.CTAGroup != 0 && ctx.CTAGroup != cta {
				continue
			}
			out = append(out, shapeFormFor(k, sparse, cta, ws))
		}
	}
	return out
}

// Check validates an instruction descriptor against the ISA's tables for
// its kind, with ctx saying which form of tcgen05.mma uses it.
func (d IDesc) Check(ctx IDescContext) Findings {
	var fs Findings
	k := d.Kind
	if k <= KindUnknown || int(k) >= len(kindNames) {
		fs.add(Error, "kind", "kind-unknown", "the kind is not known, so the layout of the descriptor is not either")
		return fs
	}
	d.checkReserved(&fs)
	a, b := d.checkTypes(&fs)
	d.checkModifiers(ctx, &fs)
	d.checkTranspose(ctx, a, b, &fs)
	d.checkBlockScale(&fs)
	d.checkShape(ctx, &fs)
	return fs
}

// checkReserved checks the reserved bits (and M bits a block-scaled kind
// keeps elsewhere).
func (d IDesc) checkReserved(fs *Findings) {
	k := d.Kind
	if d.Reserved != 0 {
		res := d.Reserved
		if k.BlockScaled() && res>>24&7 != 0 {
			fs.add(Error, "m", "m-bits-24-26",
				"bits 24-26 are set (%#x): block-scaled kinds keep M >> 7 in bits 27-28 and reserve 24-26. Bits 24-28 read as M >> 4 give M = %d; only M = 128 and 256 exist for kind::%s (CUTLASS's bitfield view of M >> 4 at 24-28 agrees with the ISA for those two)",
				res>>24&7, int(res>>24&0x1F|uint32(d.MField)<<3)<<4, k)
			res &^= 7 << 24
		}
		if !k.BlockScaled() && res>>23&1 == 1 {
			fs.add(Error, "reserved", "reserved-bits",
				"bit 23 is reserved in kind::%s; in the block-scaled kinds it is the scale type. Is this a block-scaled descriptor (--kind mxf8f6f4, mxf4 or mxf4nvf4)?", k)
			res &^= 1 << 23
		}
		if res != 0 {
			fs.add(Error, "reserved", "reserved-bits", "bits %s are reserved in kind::%s and must be 0", bitList(uint64(res)), k)
		}
	}
}

// checkTypes checks the A, B and D type codes of the kind and returns the
// names of A and B ("" for an invalid code).
func (d IDesc) checkTypes(fs *Findings) (a, b string) {
	k := d.Kind
	ab := abFormats(k)
	a, aok := ab[d.AType]
	b, bok := ab[d.BType]
	if !aok {
		fs.add(Error, "atype", "format-invalid", "code %d is not an A type of kind::%s (%s)%s", d.AType, k, formatList(ab), otherKindHint(d.AType))
	}
	if !bok {
		fs.add(Error, "btype", "format-invalid", "code %d is not a B type of kind::%s (%s)%s", d.BType, k, formatList(ab), otherKindHint(d.BType))
	}
	if !k.BlockScaled() {
		df := dFormats(k)
		dn, dok := df[d.DType]
		switch {
		case !dok:
			fs.add(Error, "dtype", "format-invalid", "code %d is not a D type of kind::%s (%s)", d.DType, k, formatList(df))
		case k == KindF16 && dn == "f16" && (a == "bf16" || b == "bf16"):
			fs.add(Error, "dtype", "dtype-combination", "kind::f16 accumulates bf16 inputs only in f32 (D = 1); f16 D is for f16 inputs")
		case k == KindF8F6F4 && dn == "f16":
			fs.add(Info, "dtype", "f8f6f4-f16-accumulate", "f16 accumulation for kind::f8f6f4 is in the newer ISA's descriptor table; the shape table lists only .f32. Not hardware-verified")
		}
		if k == KindF16 && aok && bok && a != b {
			fs.add(Error, "btype", "type-combination", "kind::f16 multiplies f16 x f16 or bf16 x bf16; A is %s and B is %s", a, b)
		}
	}
	return a, b
}

// checkModifiers checks saturation, negation, the sparsity selector and
// the maximum shift.
func (d IDesc) checkModifiers(ctx IDescContext, fs *Findings) {
	k := d.Kind
	if d.Saturate && k != KindI8 {
		fs.add(Error, "saturate", "saturate-kind", "saturate (bit 3) applies only to kind::i8; it must be 0 for kind::%s", k)
	}
	if k == KindI8 && (d.NegateA || d.NegateB) {
		fs.add(Error, "negate", "negate-i8", "kind::i8 cannot negate A or B (bits 13 and 14 must be 0)")
	}
	if !k.BlockScaled() && !d.Sparse && d.SparseSelector != 0 {
		fs.add(Warning, "sparse_selector", "selector-without-sparsity", "the sparsity selector is %d but the sparsity bit is 0 (dense); the selector only matters for sparse MMAs", d.SparseSelector)
	}
	if d.MaxShift != 0 && ctx.WS == No {
		fs.add(Warning, "max_shift", "max-shift-without-ws", "the maximum shift (%d columns) only applies to tcgen05.mma.ws (B-matrix reuse); leave it 0 otherwise", d.MaxShiftColumns())
	}
}

// checkTranspose checks the transpose (MN-major) bits against the kind,
// the types a and b, and the operands' swizzle.
func (d IDesc) checkTranspose(ctx IDescContext, a, b string, fs *Findings) {
	k := d.Kind
	for _, t := range []struct {
		field string
		on    bool
		typ   string
	}{{"transpose_a", d.TransposeA, a}, {"transpose_b", d.TransposeB, b}} {
		if !t.on {
			continue
		}
		switch {
		case k.fp4Only():
			fs.add(Error, t.field, "transpose-type", "kind::%s has no transposed (MN-major) operands; the bit must be 0", k)
		case t.typ == "e2m3" || t.typ == "e3m2" || t.typ == "e2m1":
			fs.add(Error, t.field, "transpose-type", "%s (a 6- or 4-bit type) cannot be MN-major; only 8-, 16- and 32-bit types can be transposed", t.typ)
		case k == KindTF32 && ctx.Swizzle != SwizzleUnknown && ctx.Swizzle != Swizzle128B32A:
			fs.add(Error, t.field, "transpose-swizzle", "kind::tf32 reads MN-major operands only with 128B swizzle with 32-byte atomicity; the operands use %s", ctx.Swizzle)
		case k == KindTF32:
			fs.add(Info, t.field, "transpose-swizzle", "an MN-major tf32 operand must use 128B swizzle with 32-byte atomicity (sm_100 swizzle code 1) in its shared-memory descriptor")
		case ctx.Swizzle == Swizzle128B32A:
			fs.add(Error, t.field, "transpose-swizzle", "MN-major %s operands cannot use 128B swizzle with 32-byte atomicity (only tf32 can)", t.typ)
		}
	}
}

// checkBlockScale checks the fields of the block-scaled kinds.
func (d IDesc) checkBlockScale(fs *Findings) {
	k := d.Kind
	if k.BlockScaled() {
		if d.ScaleType == 0 && k != KindMXF4NVF4 {
			fs.add(Error, "scale_type", "scale-type", "kind::%s takes ue8m0 scale factors (bit 23 = 1); ue4m3 (0) exists only for kind::mxf4nvf4", k)
		}
		if k.fp4Only() {
			for _, s := range []struct {
				f  string
				id uint8
			}{{"scale_a_id", d.ScaleAID}, {"scale_b_id", d.ScaleBID}} {
				if s.id%2 != 0 {
					fs.add(Error, s.f, "scale-id", "the scale-factor id is %d; for kind::%s it must be 0 or 2 (it selects a 2-byte-aligned half of the TMEM word)", s.id, k)
				}
			}
		}
		if d.KSize == 1 {
			fs.add(Warning, "k_size", "k96", "bit 31 selects dense K = 96, which exists only on sm_103a and only with cta_group::2 and M = 256")
			if d.Sparse {
				fs.add(Error, "k_size", "k96", "K = 96 has no sparse form")
			}
		}
	}
}

// checkShape checks M and N against the forms of the kind in ctx.
func (d IDesc) checkShape(ctx IDescContext, fs *Findings) {
	k := d.Kind
	m, n := d.M(), d.N()
	if d.MField == 0 {
		fs.add(Error, "m", "m-zero", "the M field is 0 (M = 0)")
	}
	if d.NField == 0 {
		fs.add(Error, "n", "n-zero", "the N field is 0 (N = 0)")
	}
	if d.MField == 0 || d.NField == 0 {
		return
	}
	forms := ctx.forms(k, d.Sparse)
	var valid, mValid, all []string
	for _, f := range forms {
		if f.invalid != "" {
			continue
		}
		all = append(all, fmt.Sprintf("%s: M = %s, %s", f.name(), intList(f.ms), f.nText))
		if slices.Contains(f.ms, m) {
			mValid = append(mValid, f.name())
			if f.nOK(n) {
				valid = append(valid, f.name())
			}
		}
	}
	ctxText := "any form"
	if ctx.CTAGroup != 0 || ctx.WS != Unknown {
		ctxText = "the given form"
	}
	switch {
	case len(all) == 0:
		reasons := []string{}
		for _, f := range forms {
			reasons = append(reasons, f.name()+": "+f.invalid)
		}
		fs.add(Error, "form", "form-invalid", "kind::%s does not exist in %s (%s)", k, ctxText, strings.Join(reasons, "; "))
	case len(mValid) == 0:
		fs.add(Error, "m", "m-illegal", "M = %d (field %d) is not legal for kind::%s in %s; legal: %s", m, d.MField, k, ctxText, strings.Join(all, "; "))
	case len(valid) == 0:
		fs.add(Error, "n", "n-illegal", "N = %d (field %d) is not legal for kind::%s with M = %d in %s; legal: %s", n, d.NField, k, m, ctxText, strings.Join(all, "; "))
	case len(valid) < len(all) && ctxText == "any form":
		fs.add(Info, "form", "shape-form", "M = %d, N = %d is legal only with %s", m, n, strings.Join(valid, " or "))
	}
}

func otherKindHint(code uint8) string {
	if code == 2 {
		return "; 2 is TF32 (kind::tf32)"
	}
	return ""
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "/")
}

// checkBaseOffset reports a base offset that shifts the swizzle pattern.
// The H100 takes each row's phase from ((addr >> 7) - base offset) modulo
// the pattern's rows (fixtures/desc): 0 reads the pattern TMA writes, which
// follows the absolute address; the ISA's (addr >> 7) & 7 anchors the
// pattern at the start address instead.
func checkBaseOffset(l SmemLayout, fs *Findings) {
	swz, b := l.Swizzle, l.BaseOffset
	rows := swz.patternRows()
	switch {
	case swz == SwizzleNone && b != 0:
		fs.add(Warning, "base_offset", "base-offset-unused",
			"the base offset is %d, but it is not used without a swizzle (the ISA: valid for all swizzling modes except no-swizzle); leave it 0", b)
		return
	case rows == 0 || b == 0:
		return
	case b%rows == 0:
		fs.add(Warning, "base_offset", "base-offset-no-effect",
			"the base offset is %d, a whole number of repeats of the %s pattern's %d rows, so it shifts nothing; leave it 0", b, swz, rows)
		return
	}
	msg := fmt.Sprintf("the base offset is %d: the tensor core takes each 128-byte row's swizzle phase from ((addr >> 7) - %d) mod %d (measured on the H100), so it reads the %s pattern shifted %d row(s) from the one TMA writes, which follows the absolute address and is what base offset 0 reads.",
		b, b, rows, swz, b%rows)
	if isa := ISABaseOffset(l.Start, swz); isa != 0 && isa%rows == b%rows {
		msg += fmt.Sprintf(" %d is the ISA's (addr >> 7) & 7 for the start address %#x: it puts row 0 of the pattern at the start address, which fits a tile written with its pattern starting there, not one TMA wrote.", b, l.Start)
	}
	msg += " For a tile TMA (or CuTe's swizzled layout on an aligned buffer) filled, set it to 0"
	if l.Arch == SM100 {
		msg += " (tcgen05 assumed to read as wgmma does: not hardware-verified)"
	}
	fs.add(Warning, "base_offset", "base-offset-shift", "%s", msg)
}
