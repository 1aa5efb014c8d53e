package sim

import (
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestPackedFP4ByteMapLayout: a kind::mxf4nvf4 MMA reads packed FP4 (two
// elements a byte) that TMA loaded through UINT8 tensor maps, as a kernel
// does where the driver refuses packed 4-bit maps (the H100's). The
// descriptor-versus-tensor-map check compares the MMA's 4-bit elements with
// the bytes the copy wrote nibble by nibble: a 128B-swizzled map under a
// 128B-swizzled descriptor is a contiguous tile (no finding), an unswizzled
// one is reported.
func TestPackedFP4ByteMapLayout(t *testing.T) {
	src := sm100Header + `.visible .entry k(.param .align 64 .b8 ta[128], .param .align 64 .b8 tb[128]) {
	.reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<10>;
	.shared .align 1024 .b8 tiles[32768];
	.shared .align 8 .b64 mbar;
	.shared .align 16 .b32 taddr;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, tiles;
	mov.u32 %r3, mbar;
	mov.u32 %r4, taddr;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.shared.u32 %r5, [%r4];
	mbarrier.init.shared::cta.b64 [%r3], 1;
	mov.b64 %rd1, ta;
	mov.b64 %rd2, tb;
	mov.u32 %r6, 0;
	add.u32 %r7, %r2, 16384;
	// A and B: 128 rows of 128 bytes (256 e2m1 along K) each
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 32768;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r6, %r6}], [%r3];
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r7], [%rd2, {%r6, %r6}], [%r3];
W0:	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
	@!%p2 bra W0;
	tcgen05.fence::after_thread_sync;
	// K-major, 128B swizzle: start >> 4, LBO 1, SBO 1024 >> 4, version 1, swizzle 2
	cvt.u64.u32 %rd3, %r2;
	shr.u64 %rd3, %rd3, 4;
	and.b64 %rd3, %rd3, 0x3FFF;
	or.b64 %rd4, %rd3, 0x4000404000010000;
	add.u64 %rd5, %rd4, 1024;
	// idesc: e2m1 x e2m1, ue4m3 scale factors, M=128, N=128
	mov.u32 %r8, 0x08200480;
	add.u32 %r9, %r5, 256;
	add.u32 %r10, %r5, 260;
	setp.ne.u32 %p3, %r6, 0;
	tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%r5], %rd4, %rd5, %r8, [%r9], [%r10], %p3;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r3];
W1:	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 1;
	@!%p2 bra W1;
	tcgen05.fence::after_thread_sync;
DONE:
	bar.warp.sync 0xffffffff;
	ld.shared.u32 %r5, [%r4];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 512;
	ret;
}`
	for _, tc := range []struct {
		swizzle string
		want    bool
	}{{",swizzle=128B", false}, {"", true}} {
		ta, err := launch.ParseParam("tmap:buf=A,dtype=u8,dims=128x128,box=128x128" + tc.swizzle)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := launch.ParseParam("tmap:buf=B,dtype=u8,dims=128x128,box=128x128,swizzle=128B")
		if err != nil {
			t.Fatal(err)
		}
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{32, 1, 1}, Params: []launch.Param{ta, tb},
			Buffers: []launch.Param{launch.BufferData("A", make([]byte, 16384)), launch.BufferData("B", make([]byte, 16384))}}
		m, err := Prepare("k.ptx", []byte(src), l, Options{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		got := false
		for _, f := range m.Findings() {
			if f.Rule == HzDescLayout {
				got = true
			}
		}
		if got != tc.want {
			t.Errorf("A map %q under a 128B-swizzled descriptor: %s reported %v, want %v", tc.swizzle, HzDescLayout, got, tc.want)
		}
	}
}
