package ptx

// Rules for tcgen05 (Tensor Memory allocation, loads and stores, copies, MMA).

import (
	"fmt"
	"strings"
)

// ---- tcgen05 ----

func ruleTcgen05Alloc(c *checker, in *Instruction) {
	v, ok := immValue(operand(in, 1))
	if !ok {
		return
	}
	if v < 32 || v > 512 || v&(v-1) != 0 {
		c.ruleErr(in, opPos(in, 1), "nCols is a power of two from 32 to 512", "nCols %d is not a valid Tensor Memory allocation", v)
	}
}

var tmemShapes = map[string]struct{ regs, maxNum int }{
	"32x32b": {1, 128}, "16x64b": {1, 128}, "16x128b": {2, 64}, "16x256b": {4, 32}, "16x32bx2": {1, 128},
}

func ruleTcgen05LdSt(c *checker, in *Instruction) {
	shape := ""
	var spos Pos
	num := 0
	for _, m := range in.Mods {
		if _, ok := tmemShapes[m.Name]; ok {
			shape, spos = m.Name, m.Pos
		}
		if len(m.Name) > 1 && m.Name[0] == 'x' && isDigit(m.Name[1]) {
			fmt.Sscanf(m.Name[1:], "%d", &num)
		}
	}
	info := tmemShapes[shape]
	if num > info.maxNum {
		c.ruleErr(in, modPos(in, "x"), fmt.Sprintf(".%s allows .x1 to .x%d", shape, info.maxNum), ".%s.x%d is not a valid shape and count pair", shape, num)
		return
	}
	ri := 0
	if in.Opcode == "tcgen05.st" {
		ri = len(in.Operands) - 1
	}
	want := info.regs * num
	if got := regCount(operand(in, ri)); got != want {
		c.ruleErr(in, opPos(in, ri), fmt.Sprintf(".%s.x%d moves %d registers per thread", shape, num, want), "register vector has %d registers, want %d", got, want)
	}
	if v, ok := operand(in, ri).(*Vector); ok {
		for _, e := range v.Elems {
			if _, ok := e.(*Reg); !ok {
				c.ruleErr(in, e.Position(), "", "register vector elements must be registers")
			}
		}
	}
	_ = spos
}

func ruleTcgen05Cp(c *checker, in *Instruction) {
	shape := ""
	var spos Pos
	for _, m := range in.Mods {
		switch m.Name {
		case "128x256b", "4x256b", "128x128b", "64x128b", "32x128b":
			shape, spos = m.Name, m.Pos
		}
	}
	mc := in.ModPrefix("warpx")
	switch shape {
	case "64x128b":
		if mc != "warpx2::02_13" && mc != "warpx2::01_23" {
			c.ruleErr(in, spos, "", ".64x128b needs .warpx2::02_13 or .warpx2::01_23")
		}
	case "32x128b":
		if mc != "warpx4" {
			c.ruleErr(in, spos, "", ".32x128b needs .warpx4")
		}
	default:
		if mc != "" {
			c.ruleErr(in, modPos(in, "warpx"), "", ".%s does not multicast (.%s)", shape, mc)
		}
	}
	if in.Has("b8x16") != (in.Has("b6x16_p32") || in.Has("b4x16_p64")) {
		c.ruleErr(in, in.OpPos, "", "decompression needs both .b8x16 and a source format (.b6x16_p32 or .b4x16_p64)")
	}
}

func ruleTcgen05Mma(c *checker, in *Instruction) {
	ws := strings.Contains(in.Opcode, ".ws")
	sparse := strings.HasSuffix(in.Opcode, ".sp")
	kind := strings.TrimPrefix(in.ModPrefix("kind::"), "kind::")
	kpos := modPos(in, "kind::")
	mx := strings.HasPrefix(kind, "mx")
	bs := in.Has("block_scale")
	two := in.Has("cta_group::2")
	if mx != bs {
		if mx {
			c.ruleErr(in, kpos, "add .block_scale", ".kind::%s needs .block_scale", kind)
		} else {
			c.ruleErr(in, modPos(in, "block_scale"), "", ".block_scale needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4")
		}
		return
	}
	if in.Has("block16") || in.Has("block32") {
		c.needVersion(in, modPos(in, "block"), 88, ".block16 and .block32")
	}
	if sv := in.ModPrefix("scale_vec::"); sv != "" || in.Has("block16") || in.Has("block32") {
		v := sv
		if v == "" {
			v = "block16"
			if in.Has("block32") {
				v = "block32"
			}
		}
		okv := map[string][]string{
			"mxf8f6f4": {"scale_vec::1X", "block32"},
			"mxf4":     {"scale_vec::2X", "block32"},
			"mxf4nvf4": {"scale_vec::2X", "scale_vec::4X", "block16", "block32"},
		}[kind]
		good := false
		for _, x := range okv {
			if x == v {
				good = true
			}
		}
		if !good {
			c.ruleErr(in, modPos(in, strings.Split(v, "::")[0]), "", ".%s is not valid for .kind::%s", v, kind)
		}
	} else if kind == "mxf4nvf4" {
		c.ruleErr(in, kpos, "add .scale_vec::2X or .scale_vec::4X", ".kind::mxf4nvf4 needs an explicit scale vector size")
	}
	aTmem := false
	if _, ok := operand(in, 1).(*Address); ok {
		aTmem = true
	}
	if in.Has("ashift") && !aTmem {
		c.ruleErr(in, modPos(in, "ashift"), "", ".ashift needs A in Tensor Memory ([a-tmem])")
	}
	if in.Has("ashift") && two {
		// allowed; the shift happens in both CTAs
	}
	base := 4
	if sparse {
		base = 5
	}
	tail := in.Operands[min(base, len(in.Operands)):]
	switch {
	case ws:
		// enable-input-d {, zero-column-mask-desc}
		if len(tail) < 1 || len(tail) > 2 {
			c.ruleErr(in, in.OpPos, "enable-input-d{, zero-column-mask-desc}", "expects 1 or 2 operands after idesc, found %d", len(tail))
			return
		}
		c.checkPredOrImm(in, tail[0], "enable-input-d")
		if len(tail) == 2 {
			c.checkReg64(in, tail[1], "zero-column-mask-desc")
		}
	case bs:
		if len(tail) != 3 {
			c.ruleErr(in, in.OpPos, "[scale-A-tmem], [scale-B-tmem], enable-input-d", "block-scaled tcgen05.mma expects 3 operands after idesc, found %d", len(tail))
			return
		}
		for i, name := range []string{"scale-A-tmem", "scale-B-tmem"} {
			if a, ok := tail[i].(*Address); ok {
				c.checkTmemAddr(in, a, name)
			} else {
				c.ruleErr(in, tail[i].Position(), "", "%s must be a Tensor Memory address [taddr]", name)
			}
		}
		c.checkPredOrImm(in, tail[2], "enable-input-d")
	default:
		// {disable-output-lane,} enable-input-d {, scale-input-d}
		i := 0
		if len(tail) > 0 {
			if v, ok := tail[0].(*Vector); ok {
				want := 4
				if two {
					want = 8
				}
				if len(v.Elems) != want {
					c.ruleErr(in, v.Pos, "one 32-bit mask per output lane group", "disable-output-lane has %d registers, want %d for .cta_group::%d", len(v.Elems), want, map[bool]int{false: 1, true: 2}[two])
				}
				c.checkVecElems(in, v, B32, "disable-output-lane")
				i = 1
			}
		}
		if i >= len(tail) {
			c.ruleErr(in, in.OpPos, "", "missing enable-input-d")
			return
		}
		c.checkPredOrImm(in, tail[i], "enable-input-d")
		i++
		if i < len(tail) {
			if kind != "f16" && kind != "tf32" {
				c.ruleWarn(in, tail[i].Position(), "ptxas 13.0 accepts it, but the ISA defines it only for .kind::f16 and .kind::tf32", "scale-input-d is only allowed with .kind::f16 and .kind::tf32")
			} else if v, ok := immValue(tail[i]); !ok {
				c.ruleErr(in, tail[i].Position(), "", "scale-input-d must be an immediate")
			} else if v < 0 || v > 15 {
				c.ruleErr(in, tail[i].Position(), "D is scaled by 2^-scale-input-d", "scale-input-d must be 0..15, found %d", v)
			}
			i++
		}
		if i < len(tail) {
			c.ruleErr(in, tail[i].Position(), "", "unexpected operand")
		}
	}
}

func (c *checker) checkPredOrImm(in *Instruction, e Expr, name string) {
	switch x := e.(type) {
	case *Reg:
		if t, ok := c.regType(x); ok && t != Pred {
			c.ruleErr(in, x.Pos, "", "%s must be a predicate, %s is .%s", name, x.Name, t)
		}
	case *Imm:
		if x.Kind != ImmInt {
			c.ruleErr(in, x.Pos, "", "%s must be a predicate or an integer", name)
		}
	default:
		c.ruleErr(in, e.Position(), "", "%s must be a predicate, found %s", name, describeExpr(e))
	}
}

func (c *checker) checkReg64(in *Instruction, e Expr, name string) {
	r, ok := e.(*Reg)
	if !ok {
		c.ruleErr(in, e.Position(), "", "%s must be a 64-bit register", name)
		return
	}
	if t, ok := c.regType(r); ok && t.Bits() != 64 {
		c.ruleErr(in, r.Pos, "", "%s %s is .%s, want 64 bits", name, r.Name, t)
	}
}

func (c *checker) checkTmemAddr(in *Instruction, a *Address, name string) {
	var probs []problem
	sp := &opSpec{name: name, kind: opAddr, typ: typeRef{index: -1, space: "tmem"}}
	c.checkAddress(in, sp, a, &probs)
	for _, p := range probs {
		c.ruleErr(in, p.pos, p.hint, "%s", p.msg)
	}
}
