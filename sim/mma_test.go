package sim

import (
	"encoding/binary"
	"testing"

	"github.com/tcsim/tcsim/isa/numfmt"
	"github.com/tcsim/tcsim/launch"
	"github.com/tcsim/tcsim/sim/datapath"
)

// TestMmaSync: A (16x16 bf16) and B (8x16) are loaded into their
// fragments with per-lane formulas from the ISA, C = 0; D must equal the
// CPU GEMM with the same datapath.
func TestMmaSync(t *testing.T) {
	src := ptxHeader + `.visible .entry k(.param .u64 out, .param .u64 A, .param .u64 B) {
	.reg .b32 %r<40>; .reg .b64 %rd<12>; .reg .f32 %f<8>;
	mov.u32 %r1, %laneid;
	shr.u32 %r2, %r1, 2;
	and.b32 %r3, %r1, 3;
	shl.b32 %r3, %r3, 1;
	ld.param.u64 %rd1, [A];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [B];
	cvta.to.global.u64 %rd2, %rd2;
	// A: a0=(g, 2t..), a1=(g+8, 2t..), a2=(g, 2t+8..), a3=(g+8, 2t+8..)
	mad.lo.u32 %r4, %r2, 16, %r3;
	mul.wide.u32 %rd3, %r4, 2;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r10, [%rd4];
	ld.global.u32 %r11, [%rd4+256];
	ld.global.u32 %r12, [%rd4+16];
	ld.global.u32 %r13, [%rd4+272];
	// B (n x k rows): b0=(n=g, k 2t..), b1=(n=g, k 2t+8..)
	add.s64 %rd5, %rd2, %rd3;
	ld.global.u32 %r14, [%rd5];
	ld.global.u32 %r15, [%rd5+16];
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f4, %f5, %f6, %f7}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f0, %f1, %f2, %f3};
	ld.param.u64 %rd6, [out];
	cvta.to.global.u64 %rd6, %rd6;
	mul.wide.u32 %rd7, %r1, 16;
	add.s64 %rd6, %rd6, %rd7;
	st.global.v4.f32 [%rd6], {%f4, %f5, %f6, %f7};
	ret;
}`
	fa, _ := launch.ParseFill("uniform:bf16:1:-1:1")
	fb, _ := launch.ParseFill("uniform:bf16:2:-1:1")
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1},
		Params: []launch.Param{launch.BufferData("out", make([]byte, 512)), launch.Buffer("A", 512, fa), launch.Buffer("B", 256, fb)}}
	m, err := Prepare("mma.ptx", []byte(src), l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	a, b := u16s(buf(t, m, "A")), u16s(buf(t, m, "B"))
	ev := datapath.Hopper(numfmt.BF16, numfmt.BF16, numfmt.F32)
	out := buf(t, m, "out")
	for lane := 0; lane < 32; lane++ {
		for i := 0; i < 4; i++ {
			row, col := lane/4+8*(i>>1), 2*(lane%4)+(i&1)
			want := ev.Dot(a[row*16:row*16+16], b[col*16:col*16+16], 0)
			got := uint64(binary.LittleEndian.Uint32(out[16*lane+4*i:]))
			if got != want {
				t.Errorf("D[%d][%d] (lane %d reg %d) = %#x, want %#x", row, col, lane, i, got, want)
			}
		}
	}
}
