package ptx

// Rules for async copies, matrix moves, wgmma and mma.sync.

import (
	"fmt"
	"strings"
)

// ---- async copies ----

func ruleCpAsync(c *checker, in *Instruction) {
	size, ok := immValue(operand(in, 2))
	if !ok {
		return
	}
	if size != 4 && size != 8 && size != 16 {
		c.ruleErr(in, opPos(in, 2), "", "cp-size must be 4, 8 or 16, found %d", size)
	}
	if in.Has("cg") && size != 16 {
		c.ruleErr(in, opPos(in, 2), "use .ca for 4- and 8-byte copies", ".cg copies 16 bytes, found %d", size)
	}
	if v, ok := immValue(operand(in, 3)); ok && (v < 0 || v > size) {
		c.ruleErr(in, opPos(in, 3), "", "src-size %d exceeds cp-size %d", v, size)
	}
}

func ruleBulkTensor(c *checker, in *Instruction) {
	dim := 0
	for _, m := range in.Mods {
		if len(m.Name) == 2 && m.Name[1] == 'd' && m.Name[0] >= '1' && m.Name[0] <= '5' {
			dim = int(m.Name[0] - '0')
		}
	}
	var tensor *Address
	for _, e := range in.Operands {
		if a, ok := e.(*Address); ok && a.Coords != nil {
			tensor = a
		}
	}
	if tensor == nil {
		return
	}
	n := len(tensor.Coords.Elems)
	mode := in.ModPrefix("tile")
	if mode == "" {
		mode = in.ModPrefix("im2col")
	}
	switch {
	case mode == "tile::gather4" || mode == "tile::scatter4":
		if dim != 2 {
			c.ruleErr(in, modPos(in, mode), "", ".%s needs .2d", mode)
		}
		if n != 5 {
			c.ruleErr(in, tensor.Coords.Pos, "one column and four rows", ".%s takes 5 coordinates, found %d", mode, n)
		}
	case n != dim:
		c.ruleErr(in, tensor.Coords.Pos, fmt.Sprintf("a .%dd copy takes %d", dim, dim), "%d tensor coordinates for a .%dd copy", n, dim)
	}
	if strings.HasPrefix(mode, "im2col") {
		if dim < 3 {
			c.ruleErr(in, modPos(in, "im2col"), "", "im2col needs at least .3d, found .%dd", dim)
		}
		for _, e := range in.Operands {
			if v, ok := e.(*Vector); ok && mode == "im2col" && len(v.Elems) != dim-2 {
				c.ruleErr(in, v.Pos, "", "im2col takes %d offsets for .%dd, found %d", dim-2, dim, len(v.Elems))
			}
		}
	}
}

// ---- matrix moves ----

func ruleLdmatrix(c *checker, in *Instruction) {
	num := 0
	switch {
	case in.Has("x1"):
		num = 1
	case in.Has("x2"):
		num = 2
	case in.Has("x4"):
		num = 4
	}
	regs := num
	shape := in.Shape
	b8 := in.Has("b8") || in.Has("b8x16")
	switch {
	case shape == Shape{M: 8, N: 8}:
		if b8 {
			c.ruleErr(in, typePos(in, 0), "use .b16", ".m8n8 moves .b16 elements")
		}
	case shape == Shape{M: 16, N: 16}:
		if !b8 {
			c.ruleErr(in, modPos(in, "m16n16"), "", ".m16n16 moves .b8 elements")
		}
		if !in.Has("trans") {
			c.ruleErr(in, modPos(in, "m16n16"), "add .trans", ".m16n16 requires .trans")
		}
		if num == 4 {
			c.ruleErr(in, modPos(in, "x4"), "", ".m16n16 allows .x1 and .x2")
		}
		regs = 2 * num
	case shape == Shape{M: 16, N: 8}:
		if !in.Has("b8") || !in.Has("trans") {
			c.ruleErr(in, modPos(in, "m16n8"), "", ".m16n8 needs .trans and .b8")
		}
	case shape == Shape{M: 8, N: 16}:
		if in.Has("trans") {
			c.ruleErr(in, modPos(in, "trans"), "", ".m8n16 does not allow .trans")
		}
		if !in.Has("b8x16") {
			c.ruleErr(in, modPos(in, "m8n16"), "", ".m8n16 needs .b8x16 and a source format")
		}
	}
	if in.Has("b8x16") != (in.Has("b6x16_p32") || in.Has("b4x16_p64")) {
		c.ruleErr(in, in.OpPos, "", ".b8x16 goes with a source format .b6x16_p32 or .b4x16_p64")
	}
	ri := 0
	if in.Opcode == "stmatrix" {
		ri = 1
	}
	if got := regCount(operand(in, ri)); got != regs {
		c.ruleErr(in, opPos(in, ri), "", ".%s with .x%d takes %d registers, found %d", shape, num, regs, got)
	}
}

// ---- wgmma ----

func ruleWaitGroup(c *checker, in *Instruction) {
	if v, ok := immValue(operand(in, 0)); ok && v < 0 {
		c.ruleErr(in, opPos(in, 0), "", "wait_group N must not be negative, found %d", v)
	}
}

// wgmmaClass groups wgmma input types.
func wgmmaClass(t Type) string {
	switch t {
	case F16, BF16:
		return "16"
	case TF32:
		return "tf32"
	case E4M3, E5M2:
		return "fp8"
	case S8, U8:
		return "int8"
	case B1:
		return "b1"
	}
	return ""
}

func ruleWgmma(c *checker, in *Instruction) {
	sparse := strings.HasSuffix(in.Opcode, ".sp")
	if len(in.Types) != 3 {
		return
	}
	dt, at, bt := in.Types[0], in.Types[1], in.Types[2]
	sh := in.Shape
	shPos := modPos(in, "m")
	id := "wgmma " + sh.String()
	class := wgmmaClass(at)
	// Type combinations.
	switch {
	case class == "16" && bt != at:
		c.ruleErr(in, typePos(in, 2), "", ".atype and .btype must match for 16-bit inputs: .%s vs .%s", at, bt)
	case class == "tf32" && bt != TF32:
		c.ruleErr(in, typePos(in, 2), "", ".tf32 needs .tf32 B, not .%s", bt)
	case class == "fp8" && wgmmaClass(bt) != "fp8":
		c.ruleErr(in, typePos(in, 2), "", "an FP8 A (.%s) needs an FP8 B (.e4m3 or .e5m2), not .%s", at, bt)
	case class == "int8" && wgmmaClass(bt) != "int8":
		c.ruleErr(in, typePos(in, 2), "", "an 8-bit integer A needs .s8 or .u8 B, not .%s", bt)
	case class == "b1" && bt != B1:
		c.ruleErr(in, typePos(in, 2), "", ".b1 A needs .b1 B, not .%s", bt)
	}
	switch {
	case class == "16" && at == F16 && dt != F16 && dt != F32,
		class == "fp8" && dt != F16 && dt != F32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator .%s is not allowed with .%s inputs (use .f16 or .f32)", dt, at)
	case (at == BF16 || class == "tf32") && dt != F32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator must be .f32 with .%s inputs, not .%s", at, dt)
	case (class == "int8" || class == "b1") && dt != S32:
		c.ruleErr(in, typePos(in, 0), "", "accumulator must be .s32 with .%s inputs, not .%s", at, dt)
	}
	if in.Has("satfinite") && class != "int8" {
		c.ruleErr(in, modPos(in, "satfinite"), "", ".satfinite applies only to integer wgmma")
	}
	if class == "b1" {
		if sparse {
			c.ruleErr(in, typePos(in, 1), "", "sparse wgmma does not support .b1")
		}
		if !in.Has("and") || !in.Has("popc") {
			c.ruleErr(in, in.OpPos, "write ...s32.b1.b1.and.popc", "single-bit wgmma needs .and.popc")
		}
	} else if in.Has("and") || in.Has("popc") {
		c.ruleErr(in, modPos(in, "and"), "", ".and.popc applies only to .b1 wgmma")
	}
	// Shape.
	if sh.M != 64 {
		c.ruleErr(in, shPos, "wgmma shapes are m64nNkK", "%s: M must be 64, found %d", id, sh.M)
	}
	switch class {
	case "16", "tf32", "fp8":
		if sh.N < 8 || sh.N > 256 || sh.N%8 != 0 {
			c.ruleErr(in, shPos, "N = 8, 16, 24, ..., 256", "%s: N must be a multiple of 8 from 8 to 256 for .%s", id, at)
		}
	case "int8", "b1":
		if !(sh.N == 8 || sh.N == 16 || sh.N == 24 || sh.N%16 == 0 && sh.N >= 32 && sh.N <= 256) {
			c.ruleErr(in, shPos, "N = 8, 16, 24, 32, 48, 64, ..., 256", "%s: N must be 8, 16, 24 or a multiple of 16 up to 256 for .%s", id, at)
		}
	}
	wantK := map[string]int{"16": 16, "tf32": 8, "fp8": 32, "int8": 32, "b1": 256}[class]
	if sparse {
		wantK *= 2
	}
	if wantK != 0 && sh.K != wantK {
		kind := "dense"
		if sparse {
			kind = "sparse"
		}
		c.ruleErr(in, shPos, fmt.Sprintf("use m64n%dk%d", sh.N, wantK), "%s: K must be %d for %s .%s", id, wantK, kind, at)
	}
	// Accumulator registers.
	dRegs := sh.N / 2
	elem := F32
	switch dt {
	case F16:
		dRegs, elem = sh.N/4, B32
	case S32:
		elem = S32
	}
	if d, ok := operand(in, 0).(*Vector); ok {
		if len(d.Elems) != dRegs && sh.N%8 == 0 {
			c.ruleErr(in, d.Pos, fmt.Sprintf("m64n%d with .%s accumulates in %d registers per thread", sh.N, dt, dRegs), "accumulator has %d registers, want %d", len(d.Elems), dRegs)
		}
		c.checkVecElems(in, d, elem, "accumulator")
	}
	// A operand: descriptor or registers.
	rs := false
	switch a := operand(in, 1).(type) {
	case *Vector:
		rs = true
		if class == "b1" {
			c.ruleErr(in, a.Pos, "", "single-bit wgmma takes A from shared memory (a descriptor)")
		}
		if len(a.Elems) != 4 {
			c.ruleErr(in, a.Pos, "A in registers is four .b32 registers per thread", "A fragment has %d registers, want 4", len(a.Elems))
		}
		c.checkVecElems(in, a, B32, "A fragment")
	case *Reg:
		if t, ok := c.regType(a); ok && t.Bits() != 64 {
			c.ruleErr(in, a.Pos, "a matrix descriptor is 64 bits", "a-desc %s is .%s, want a 64-bit register (or a {4 x .b32} A fragment)", a.Name, t)
		}
	}
	// Immediate operands.
	base := 4
	if sparse {
		base = 6
		if v, ok := immValue(operand(in, 4)); ok && (v < 0 || v > 3) {
			c.ruleErr(in, opPos(in, 4), "", "sparsity selector must be 0..3, found %d", v)
		}
	}
	var names []string
	switch class {
	case "16":
		names = []string{"imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"}
		if rs {
			names = []string{"imm-scale-a", "imm-scale-b", "imm-trans-b"}
		}
	case "tf32", "fp8":
		names = []string{"imm-scale-a", "imm-scale-b"}
	}
	got := len(in.Operands) - base
	if got != len(names) {
		hint := "operands after scale-d: " + strings.Join(names, ", ")
		if len(names) == 0 {
			hint = "integer and single-bit wgmma end at scale-d"
		}
		switch {
		case got > len(names) && (class == "tf32" || class == "fp8"):
			c.ruleErr(in, opPos(in, base+len(names)), hint, "imm-trans-a/imm-trans-b are only allowed for .f16/.bf16: transpose is only supported for 16-bit types, not .%s", at)
		case got > len(names) && class == "16" && rs:
			c.ruleErr(in, opPos(in, base+len(names)), hint, "with A in registers there is no imm-trans-a: A is not transposed")
		case got > len(names) && len(names) == 0:
			c.ruleErr(in, opPos(in, base), hint, "integer and single-bit wgmma take no imm-scale or imm-trans operands")
		default:
			c.ruleErr(in, in.OpPos, hint, "expects %d immediates after scale-d, found %d", len(names), got)
		}
	}
	for i := 0; i < len(names) && base+i < len(in.Operands); i++ {
		v, ok := immValue(in.Operands[base+i])
		if !ok {
			continue
		}
		if strings.Contains(names[i], "scale") && v != 1 && v != -1 {
			c.ruleErr(in, opPos(in, base+i), "1 keeps the sign, -1 negates", "%s must be 1 or -1, found %d", names[i], v)
		}
		if strings.Contains(names[i], "trans") && v != 0 && v != 1 {
			c.ruleErr(in, opPos(in, base+i), "0 or 1", "%s must be 0 or 1, found %d", names[i], v)
		}
	}
}

// checkVecElems checks that every register in a fragment vector has a
// type compatible with want.
func (c *checker) checkVecElems(in *Instruction, v *Vector, want Type, what string) {
	for _, e := range v.Elems {
		r, ok := e.(*Reg)
		if !ok {
			c.ruleErr(in, e.Position(), "", "%s elements must be registers, found %s", what, describeExpr(e))
			continue
		}
		if t, ok := c.regType(r); ok && !compatible(want, t, false) {
			c.ruleErr(in, r.Pos, compatHint(want, false), "%s register %s is .%s, want .%s", what, r.Name, t, want)
		}
	}
}

// ---- mma.sync ----

func sh3(m, n, k int) Shape { return Shape{m, n, k} }

var mmaDense = map[string][]Shape{
	"f16":      {sh3(8, 8, 4), sh3(16, 8, 8), sh3(16, 8, 16)},
	"bf16":     {sh3(16, 8, 8), sh3(16, 8, 16)},
	"tf32":     {sh3(16, 8, 4), sh3(16, 8, 8)},
	"f64":      {sh3(8, 8, 4), sh3(16, 8, 4), sh3(16, 8, 8), sh3(16, 8, 16)},
	"fp8":      {sh3(16, 8, 16), sh3(16, 8, 32)},
	"f8f6f4":   {sh3(16, 8, 32)},
	"int8":     {sh3(8, 8, 16), sh3(16, 8, 16), sh3(16, 8, 32)},
	"int4":     {sh3(8, 8, 32), sh3(16, 8, 32), sh3(16, 8, 64)},
	"b1":       {sh3(8, 8, 128), sh3(16, 8, 128), sh3(16, 8, 256)},
	"mxf8f6f4": {sh3(16, 8, 32)},
	"mxf4":     {sh3(16, 8, 64)},
	"mxf4nvf4": {sh3(16, 8, 64)},
}

var mmaSparse = map[string][]Shape{
	"f16":      {sh3(16, 8, 16), sh3(16, 8, 32)},
	"bf16":     {sh3(16, 8, 16), sh3(16, 8, 32)},
	"tf32":     {sh3(16, 8, 8), sh3(16, 8, 16)},
	"fp8":      {sh3(16, 8, 64)},
	"f8f6f4":   {sh3(16, 8, 64)},
	"int8":     {sh3(16, 8, 32), sh3(16, 8, 64)},
	"int4":     {sh3(16, 8, 64), sh3(16, 8, 128)},
	"mxf8f6f4": {sh3(16, 8, 64)},
	"mxf4":     {sh3(16, 8, 128)},
	"mxf4nvf4": {sh3(16, 8, 128)},
}

func mmaClass(in *Instruction, at Type) string {
	if k := in.ModPrefix("kind::"); k != "" {
		return strings.TrimPrefix(k, "kind::")
	}
	switch at {
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	case TF32:
		return "tf32"
	case F64:
		return "f64"
	case E4M3, E5M2:
		return "fp8"
	case S8, U8:
		return "int8"
	case S4, U4:
		return "int4"
	case B1:
		return "b1"
	}
	return "?"
}

func ruleMma(c *checker, in *Instruction) {
	sparse := in.Opcode != "mma"
	if len(in.Types) < 4 {
		return
	}
	dt, at, bt, ct := in.Types[0], in.Types[1], in.Types[2], in.Types[3]
	class := mmaClass(in, at)
	sh := in.Shape
	shPos := modPos(in, "m")
	table := mmaDense
	if sparse {
		table = mmaSparse
	}
	shapes, ok := table[class]
	if !ok {
		c.ruleErr(in, typePos(in, 1), "", "no %smma for .%s inputs", map[bool]string{true: "sparse ", false: ""}[sparse], at)
		return
	}
	found := false
	for _, s := range shapes {
		if s == sh {
			found = true
		}
	}
	if !found {
		var names []string
		for _, s := range shapes {
			names = append(names, "."+s.String())
		}
		c.ruleErr(in, shPos, "valid: "+strings.Join(names, ", "), "shape .%s is not available for %s", sh, class)
	}
	// Input type pairs.
	switch class {
	case "f16", "bf16", "tf32", "f64", "b1":
		if bt != at {
			c.ruleErr(in, typePos(in, 2), "", ".atype and .btype must match: .%s vs .%s", at, bt)
		}
	case "fp8":
		if wgmmaClass(bt) != "fp8" {
			c.ruleErr(in, typePos(in, 2), "", "FP8 A needs an FP8 B, not .%s", bt)
		}
	case "int8", "int4":
		if mmaClass(in, bt) != class {
			c.ruleErr(in, typePos(in, 2), "", "integer A .%s needs a B of the same width, not .%s", at, bt)
		}
	}
	// Accumulator types.
	okD := func(ts ...Type) bool {
		for _, t := range ts {
			if dt == t {
				for _, u := range ts {
					if ct == u {
						return true
					}
				}
			}
		}
		return false
	}
	switch class {
	case "f16", "fp8", "f8f6f4":
		if !okD(F16, F32) {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f16 or .f32, found .%s and .%s", dt, ct)
		}
	case "bf16", "tf32", "mxf8f6f4", "mxf4", "mxf4nvf4":
		if dt != F32 || ct != F32 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f32 for %s, found .%s and .%s", class, dt, ct)
		}
	case "f64":
		if dt != F64 || ct != F64 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .f64")
		}
	case "int8", "int4", "b1":
		if dt != S32 || ct != S32 {
			c.ruleErr(in, typePos(in, 0), "", ".dtype and .ctype must be .s32 for integer mma")
		}
	}
	if class == "b1" && (!in.Has("popc") || !(in.Has("xor") || in.Has("and"))) {
		c.ruleErr(in, in.OpPos, "", "single-bit mma needs .xor.popc or .and.popc")
	}
	if in.Has("satfinite") && class != "int8" && class != "int4" {
		c.ruleErr(in, modPos(in, "satfinite"), "", ".satfinite applies only to integer mma")
	}
	mx := strings.HasPrefix(class, "mx")
	if mx != in.Has("block_scale") {
		c.ruleErr(in, modPos(in, "kind"), "", ".block_scale goes with .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4")
	}
	// Layouts.
	var layouts []string
	for _, m := range in.Mods {
		if m.Name == "row" || m.Name == "col" {
			layouts = append(layouts, m.Name)
		}
	}
	if len(layouts) != 2 {
		c.ruleErr(in, in.OpPos, "write .row.col (or .alayout.blayout for .m8n8k4)", "mma needs two layouts, found %d", len(layouts))
	} else if !(class == "f16" && sh == sh3(8, 8, 4)) && (layouts[0] != "row" || layouts[1] != "col") {
		c.ruleErr(in, modPos(in, "row"), "write .row.col", "shape .%s needs .row.col layouts", sh)
	}
	// Register counts.
	regBits := 32
	if class == "f64" {
		regBits = 64
	}
	abits := func(t Type) int {
		if class == "f8f6f4" || class == "mxf8f6f4" {
			return 8 // narrow types sit in 8-bit containers
		}
		return t.Bits()
	}
	k := sh.K
	if sparse {
		k /= 2
	}
	wantA := sh.M * k * abits(at) / (32 * regBits)
	wantB := sh.K * sh.N * abits(bt) / (32 * regBits)
	wantC := sh.M * sh.N * ct.Bits() / (32 * regBits)
	wantD := sh.M * sh.N * dt.Bits() / (32 * regBits)
	if class == "f16" && sh == sh3(8, 8, 4) {
		wantA, wantB, wantC, wantD = 2, 2, 8*ct.Bits()/32, 8*dt.Bits()/32
	}
	if found {
		for i, w := range []int{wantD, wantA, wantB, wantC} {
			if got := regCount(operand(in, i)); got != w {
				c.ruleErr(in, opPos(in, i), "", "%s fragment has %d registers, want %d", "dabc"[i:i+1], got, w)
			}
		}
	}
	// Block-scale operands.
	extra := len(in.Operands) - 4
	if sparse {
		extra -= 2
	}
	if mx && extra != 4 {
		c.ruleErr(in, in.OpPos, "scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}", "block-scaled mma takes 4 scale operands, found %d", extra)
	}
	if !mx && extra != 0 {
		c.ruleErr(in, opPos(in, len(in.Operands)-extra), "", "unexpected operands after c")
	}
	if sparse {
		if v, ok := immValue(operand(in, 5)); ok && (v < 0 || v > 3) {
			c.ruleErr(in, opPos(in, 5), "", "sparsity selector must be 0..3, found %d", v)
		}
	}
}
