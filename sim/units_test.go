package sim

import (
	"encoding/binary"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestClusterDSMEM: each CTA of a 2-CTA cluster writes its rank into its
// own shared memory, the cluster synchronizes, and each reads its peer's
// value through mapa (distributed shared memory).
func TestClusterDSMEM(t *testing.T) {
	src := ptxHeader + `.visible .entry k(.param .u64 out) {
	.reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>;
	.shared .align 4 .b32 s;
	mov.u32 %r1, %cluster_ctarank;
	mov.u32 %r2, s;
	add.u32 %r3, %r1, 100;
	mov.u32 %r8, %tid.x;
	setp.eq.u32 %p2, %r8, 0;
	@%p2 st.shared.u32 [%r2], %r3;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	xor.b32 %r4, %r1, 1;
	mapa.shared::cluster.u32 %r5, %r2, %r4;
	ld.shared::cluster.u32 %r9, [%r5];
	mov.u32 %r6, %ctaid.x;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r6, 4;
	add.s64 %rd1, %rd1, %rd2;
	mov.u32 %r7, %tid.x;
	setp.eq.u32 %p1, %r7, 0;
	@%p1 st.global.u32 [%rd1], %r9;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}`
	l := &launch.Launch{Grid: launch.Dim3{4, 1, 1}, Block: launch.Dim3{64, 1, 1}, Cluster: launch.Dim3{2, 1, 1},
		Params: []launch.Param{launch.BufferData("out", make([]byte, 16))}}
	m, err := Prepare("c.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	got := out32(t, m)
	for i, v := range got {
		if want := uint32(100 + (i%2 ^ 1)); v != want {
			t.Errorf("CTA %d read %d, want %d", i, v, want)
		}
	}
	noHazards(t, m)
}

// TestCpAsyncAndLdmatrix stages a 16x16 bf16 tile with cp.async (commit,
// wait_group) and reads it back with ldmatrix.x4 and ldmatrix.x4.trans.
func TestCpAsyncAndLdmatrix(t *testing.T) {
	src := ptxHeader + `.visible .entry k(.param .u64 out, .param .u64 in) {
	.reg .pred %p<4>; .reg .b32 %r<40>; .reg .b64 %rd<8>;
	.shared .align 128 .b8 tile[512];
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [in];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r2, tile;
	shl.b32 %r3, %r1, 4;
	add.u32 %r4, %r2, %r3;
	cp.async.cg.shared.global [%r4], [%rd3], 16;
	cp.async.commit_group;
	cp.async.wait_group 0;
	bar.sync 0;
	// lane l supplies row l%16, column block l/16: 16 rows of 32 bytes
	and.b32 %r5, %r1, 15;
	shl.b32 %r5, %r5, 5;
	shr.u32 %r6, %r1, 4;
	shl.b32 %r6, %r6, 4;
	add.u32 %r7, %r2, %r5;
	add.u32 %r7, %r7, %r6;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r7];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r14, %r15, %r16, %r17}, [%r7];
	ld.param.u64 %rd4, [out];
	cvta.to.global.u64 %rd4, %rd4;
	mul.wide.u32 %rd5, %r1, 32;
	add.s64 %rd4, %rd4, %rd5;
	st.global.v4.u32 [%rd4], {%r10, %r11, %r12, %r13};
	st.global.v4.u32 [%rd4+16], {%r14, %r15, %r16, %r17};
	ret;
}`
	in := make([]byte, 512)
	for i := 0; i < 256; i++ {
		binary.LittleEndian.PutUint16(in[2*i:], uint16(i)) // element (r, c) = 16r + c
	}
	l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1},
		Params: []launch.Param{launch.BufferData("out", make([]byte, 32*32)), launch.BufferData("in", in)}}
	m, err := Prepare("l.ptx", []byte(src), l, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	got := out32(t, m)
	// matrix j: rows 8*(j%2).., columns 8*(j/2)..; lane l holds row l/4,
	// columns 2(l%4), +1 of each matrix (transposed for .trans).
	elem := func(r, c int) uint32 { return uint32(16*r + c) }
	for l := 0; l < 32; l++ {
		for j := 0; j < 4; j++ {
			r0, c0 := 8*(j%2), 8*(j/2)
			r, c := l/4, 2*(l%4)
			want := elem(r0+r, c0+c) | elem(r0+r, c0+c+1)<<16
			if got[8*l+j] != want {
				t.Errorf("lane %d ldmatrix reg %d = %#x, want %#x", l, j, got[8*l+j], want)
			}
			wantT := elem(r0+c, c0+r) | elem(r0+c+1, c0+r)<<16
			if got[8*l+4+j] != wantT {
				t.Errorf("lane %d ldmatrix.trans reg %d = %#x, want %#x", l, j, got[8*l+4+j], wantT)
			}
		}
	}
	noHazards(t, m)
}

// TestRandomScheduleExplores: a kernel that reads another warp's shared
// memory store without a barrier gives different results under different
// legal interleavings; the random schedule finds them.
func TestRandomScheduleExplores(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<30>; .reg .b64 %rd<4>;
	.shared .align 4 .b32 s[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	add.u32 %r5, %r1, 1;
	st.shared.u32 [%r4], %r5;
	xor.b32 %r6, %r1, 32;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r2, %r6;
	ld.shared.u32 %r9, [%r6];
` + storeTid
	outputs := map[string]bool{}
	for seed := uint64(0); seed < 16; seed++ {
		m := run(t, src, 1, 64, 4*64, Options{Schedule: Random, Seed: seed})
		b, _ := m.Buffer("out")
		outputs[string(b.Data)] = true
	}
	if len(outputs) < 2 {
		t.Errorf("16 random schedules gave %d distinct results; want the race to show", len(outputs))
	}
}

// TestWarpgroupDisagreement: warps of a warpgroup pass different
// descriptors to one wgmma.
func TestWarpgroupDisagreement(t *testing.T) {
	src := `.visible .entry k(.param .u64 out) {
	.reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
	.shared .align 1024 .b8 sm[4096];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	shr.u32 %r3, %r2, 4;
	shr.u32 %r4, %r1, 5;
	shl.b32 %r4, %r4, 4;
	add.u32 %r3, %r3, %r4;
	cvt.u64.u32 %rd1, %r3;
	or.b64 %rd1, %rd1, 0x0000001000080000;
	setp.ne.u32 %p1, %r1, %r1;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0, %f1, %f2, %f3}, %rd1, %rd1, %p1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	mov.b32 %r9, %f0;
` + storeTid
	m := run(t, src, 1, 128, 4*128, Options{})
	hs := m.Errors()
	if len(hs) != 1 || hs[0].Kind != HzWgmmaAligned {
		t.Fatalf("hazards %v, want one %s", hs, HzWgmmaAligned)
	}
}
