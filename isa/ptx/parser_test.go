package ptx

import (
	"math"
	"strings"
	"testing"
)

const miniModule = `.version 8.7
.target sm_90a
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .align 8 .b8 k_param_1[16]
)
.maxntid 128, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<3>;
	{
	.reg .pred p;
	setp.ne.b32 p, %r1, 0;
	@!p bra DONE;
DONE:
	}
	ld.param.u64 	%rd1, [k_param_0];
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, -1, 0, 0;
	mov.f32 	%f1, 0f3F800000;
	st.shared.v2.f32 	[smem+8], {%f1, %f2};
	ret;
}
`

func TestParseModuleShape(t *testing.T) {
	m, err := ParseString("mini.ptx", miniModule)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Version(); v == nil || v.Major != 8 || v.Minor != 7 {
		t.Errorf("version = %+v", v)
	}
	if tg := m.Target(); tg == nil || tg.Arch() != "sm_90a" {
		t.Errorf("target = %+v", tg)
	}
	if m.AddressSize() != 64 {
		t.Errorf("address size %d", m.AddressSize())
	}
	f := m.Func("k")
	if f == nil || !f.Entry || f.Linkage != "visible" || len(f.Params) != 2 {
		t.Fatalf("function = %+v", f)
	}
	p0 := f.Params[0]
	if p0.Type != U64 || p0.Ptr == nil || p0.Ptr.Space != SpaceGlobal || p0.Ptr.Align != 16 {
		t.Errorf("param 0 = %+v ptr %+v", p0, p0.Ptr)
	}
	p1 := f.Params[1]
	if p1.Align != 8 || p1.Type != B8 || len(p1.Vars[0].Dims) != 1 || p1.Vars[0].Dims[0] != 16 {
		t.Errorf("param 1 = %+v", p1)
	}
	if d := f.Directive("maxntid"); d == nil || len(d.Values) != 3 || d.Values[0] != 128 {
		t.Errorf("maxntid = %+v", d)
	}
	ext := m.Decls[3].(*VarDecl)
	if ext.Linkage != "extern" || ext.Space != SpaceShared || ext.Align != 1024 || ext.Vars[0].Dims[0] != -1 {
		t.Errorf("extern shared = %+v", ext)
	}
	regs := f.Body.Stmts[1].(*VarDecl)
	if !regs.Vars[0].Range || regs.Vars[0].Count != 4 || regs.Vars[0].Name != "%r" {
		t.Errorf("reg decl = %+v", regs.Vars[0])
	}
	inner := f.Body.Stmts[4].(*Block)
	setp := inner.Stmts[1].(*Instruction)
	if r, ok := setp.Operands[0].(*Reg); !ok || r.Name != "p" {
		t.Errorf("bare register p parsed as %T", setp.Operands[0])
	}
	bra := inner.Stmts[2].(*Instruction)
	if bra.Guard == nil || !bra.Guard.Not || bra.Guard.Name != "p" {
		t.Errorf("guard = %+v", bra.Guard)
	}
	if id, ok := bra.Operands[0].(*Ident); !ok || id.Name != "DONE" {
		t.Errorf("branch target = %#v", bra.Operands[0])
	}
	if l, ok := inner.Stmts[3].(*Label); !ok || l.Name != "DONE" || l.Pos != (Pos{21, 1}) {
		t.Errorf("label = %#v", inner.Stmts[3])
	}
	wg := f.Body.Stmts[6].(*Instruction)
	if wg.Opcode != "wgmma.mma_async" || wg.Shape != (Shape{64, 8, 16}) {
		t.Errorf("wgmma opcode %q shape %v", wg.Opcode, wg.Shape)
	}
	if got := []Type{F32, BF16, BF16}; len(wg.Types) != 3 || wg.Types[0] != got[0] || wg.Types[1] != got[1] || wg.Types[2] != got[2] {
		t.Errorf("types = %v", wg.Types)
	}
	if !wg.Has("sync") || !wg.Has("aligned") || wg.Has("sp") {
		t.Errorf("Has() wrong for %v", wg.Mods)
	}
	if wg.Mods[2].Pos != (Pos{24, 31}) {
		t.Errorf("shape modifier at %v, want 24:31", wg.Mods[2].Pos)
	}
	if imm := wg.Operands[5].(*Imm); imm.Int() != -1 {
		t.Errorf("imm-scale-b = %d", imm.Int())
	}
	mov := f.Body.Stmts[7].(*Instruction)
	if imm := mov.Operands[1].(*Imm); imm.Kind != ImmF32 || math.Float32frombits(uint32(imm.Bits)) != 1 {
		t.Errorf("0f3F800000 = %+v", imm)
	}
	st := f.Body.Stmts[8].(*Instruction)
	a := st.Operands[0].(*Address)
	if id, ok := a.Base.(*Ident); !ok || id.Name != "smem" || a.Offset != 8 {
		t.Errorf("address = %#v", a)
	}
	if st.Space() != SpaceShared || st.Vec() != 2 {
		t.Errorf("space %v vec %d", st.Space(), st.Vec())
	}
	if errs := Validate(m); len(errs) != 0 {
		t.Errorf("validate: %v", errs)
	}
}

func TestParseInstructionOperands(t *testing.T) {
	tests := []struct {
		src   string
		check func(in *Instruction) bool
	}{
		{"mov.u32 %r1, %tid.y;", func(in *Instruction) bool {
			r := in.Operands[1].(*Reg)
			return r.Name == "%tid" && r.Comp == "y"
		}},
		{"setp.lt.s32 %p1|%p2, %r1, %r2;", func(in *Instruction) bool {
			pr := in.Operands[0].(*Pair)
			return pr.X.(*Reg).Name == "%p1" && pr.Y.(*Reg).Name == "%p2"
		}},
		{"mbarrier.arrive.shared::cluster.b64 _, [%r1];", func(in *Instruction) bool {
			_, ok := in.Operands[0].(*Sink)
			return ok && in.Opcode == "mbarrier.arrive" && in.Space() == SpaceSharedCluster
		}},
		{"cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, 0}], [%r4];", func(in *Instruction) bool {
			a := in.Operands[1].(*Address)
			sp := in.Spaces()
			return in.Opcode == "cp.async.bulk.tensor" && len(a.Coords.Elems) == 3 && len(sp) == 2 && sp[0] == SpaceSharedCluster && sp[1] == SpaceGlobal
		}},
		{"mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;", func(in *Instruction) bool {
			imm := in.Operands[1].(*Imm)
			return imm.Bits == math.MaxUint64 && imm.Unsigned && imm.Hex
		}},
		{"add.s32 %r1, %r2, -2147483648;", func(in *Instruction) bool {
			return in.Operands[2].(*Imm).Int() == math.MinInt32
		}},
		{"mov.f64 %fd1, -0d3FF0000000000000;", func(in *Instruction) bool {
			imm := in.Operands[1].(*Imm)
			return imm.Kind == ImmF64 && math.Float64frombits(imm.Bits) == -1
		}},
		{"mov.f32 %f1, 0.1;", func(in *Instruction) bool {
			imm := in.Operands[1].(*Imm)
			return imm.Kind == ImmF64 && imm.Bits == math.Float64bits(0.1)
		}},
		{"tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, {%r4, %r5, %r6, %r7}, %p1;", func(in *Instruction) bool {
			return in.Opcode == "tcgen05.mma" && in.ModPrefix("kind::") == "kind::f16" && len(in.Operands) == 6
		}},
		{"tcgen05.mma.ws.sp.cta_group::1.kind::i8 [%r1], %rd1, %rd2, [%r2], %r3, 1;", func(in *Instruction) bool {
			return in.Opcode == "tcgen05.mma.ws.sp"
		}},
		{"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2}, %r3, 0;", func(in *Instruction) bool {
			return in.Opcode == "mma.sp::ordered_metadata" && in.Shape == Shape{16, 8, 32}
		}},
		{"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];", func(in *Instruction) bool {
			return in.Shape == Shape{8, 8, 0} && in.Shape.String() == "m8n8" && in.Types[0] == B16
		}},
		{"unknown.op.x %r1;", func(in *Instruction) bool {
			return in.Opcode == "unknown" && len(in.Mods) == 2 && in.Mods[0].Name == "op"
		}},
	}
	for _, tt := range tests {
		in, err := ParseInstruction(tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if !tt.check(in) {
			t.Errorf("%s: unexpected tree %#v", tt.src, in)
		}
	}
}

// TestParseRecovers checks that one bad statement does not hide the next.
func TestParseRecovers(t *testing.T) {
	src := ".version 8.7\n.target sm_90a\n.entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1 %r2;\n\tmov.u32 %r1, ];\n\tmov.u32 %r2, 1;\n}\n.entry j()\n{\n\tret;\n}\n"
	m, err := ParseString("r.ptx", src)
	el, _ := err.(ErrorList)
	if len(el) != 2 || el[0].Pos.Line != 6 || el[1].Pos.Line != 7 {
		t.Fatalf("errors = %v", err)
	}
	if len(m.Functions()) != 2 || len(m.Func("k").Body.Stmts) != 2 {
		t.Errorf("recovered tree: %s", Format(m))
	}
}

func TestParseNeverNilModule(t *testing.T) {
	for _, src := range []string{"", "}", "{{{{", ".entry", "@", "\x00\xff", strings.Repeat("(", 10000), strings.Repeat("{", 10000)} {
		m, _ := ParseString("x", src)
		if m == nil {
			t.Fatalf("%q: nil module", src)
		}
		Validate(m)
		Format(m)
	}
}

func TestParseShape(t *testing.T) {
	tests := []struct {
		in   string
		want Shape
		ok   bool
	}{
		{"m64n256k16", Shape{64, 256, 16}, true},
		{"m8n8", Shape{8, 8, 0}, true},
		{"m16n8k256", Shape{16, 8, 256}, true},
		{"m64n", Shape{}, false},
		{"m64n8k", Shape{}, false},
		{"x4", Shape{}, false},
		{"m64n8k16x", Shape{}, false},
		{"m0n8k16", Shape{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseShape(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseShape(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCatalog checks the catalog's own consistency.
func TestCatalog(t *testing.T) {
	for _, op := range Opcodes() {
		info := Lookup(op)
		if info.Family == "" {
			t.Errorf("%s has no family", op)
		}
		if !info.Loose && len(info.Forms) == 0 {
			t.Errorf("%s has no forms", op)
		}
		if info.Name != op {
			t.Errorf("%s is named %q", op, info.Name)
		}
	}
	// Every family the issue lists is present.
	for _, op := range []string{"ld", "st", "ldu", "mov", "cvta", "prefetch", "mad", "mul", "fma", "min", "max",
		"shl", "shr", "and", "or", "xor", "not", "cnot", "lop3", "prmt", "bfe", "bfi", "popc", "clz", "brev", "shf",
		"setp", "selp", "set", "cvt", "bra", "call", "ret", "exit", "bar", "barrier", "bar.warp.sync", "shfl.sync",
		"vote.sync", "match", "redux.sync", "atom", "red", "membar", "fence", "mbarrier.init", "mbarrier.arrive",
		"mbarrier.try_wait", "mbarrier.test_wait", "mbarrier.inval", "mbarrier.complete_tx", "cp.async",
		"cp.async.commit_group", "cp.async.wait_group", "cp.async.bulk", "cp.async.bulk.tensor",
		"cp.async.bulk.commit_group", "cp.async.bulk.wait_group", "ldmatrix", "stmatrix", "wgmma.fence",
		"wgmma.mma_async", "wgmma.mma_async.sp", "wgmma.commit_group", "wgmma.wait_group", "mma", "tcgen05.alloc",
		"tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.ld", "tcgen05.st", "tcgen05.wait::ld",
		"tcgen05.wait::st", "tcgen05.mma", "tcgen05.mma.ws", "tcgen05.mma.sp", "tcgen05.commit", "tcgen05.cp",
		"tcgen05.shift", "tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync", "elect.sync",
		"setmaxnreg", "griddepcontrol", "mapa", "getctarank", "ex2", "rcp", "rsqrt", "lg2", "sin", "cos", "tanh"} {
		if Lookup(op) == nil {
			t.Errorf("catalog lacks %s", op)
		}
	}
}
