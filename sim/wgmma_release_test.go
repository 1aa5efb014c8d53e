package sim

import (
	"strings"
	"testing"
)

// wsPipeline is a warp-specialized pipeline in miniature: warp 4 fills two
// shared-memory stages with st.shared and hands each over on a "full"
// mbarrier; the warpgroup of warps 0-3 waits on it (every warp), runs a
// wgmma from the stage, and one thread (tid 0) gives the stage back on an
// "empty" mbarrier after wgmma.wait_group. Six iterations lap each stage's
// barriers three times. release is where tid 0 arrives on the empty
// barrier: after the wait (correct) or before it (a bug).
func wsPipeline(releaseAfterWait bool) string {
	release := `	@%p5 mbarrier.arrive.shared::cta.b64 _, [%r19];
`
	wait := `	wgmma.wait_group.sync.aligned 0;
`
	body := wait + release
	if !releaseAfterWait {
		body = release + wait
	}
	return `.visible .entry k(.param .u64 out) {
	.reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .f32 %f<8>;
	.shared .align 128 .b8 tile[4608];
	.shared .align 8 .b64 bars[4];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bars;
	mov.u32 %r3, tile;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INIT_DONE;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	mbarrier.init.shared::cta.b64 [%r2+8], 1;
	mbarrier.init.shared::cta.b64 [%r2+16], 1;
	mbarrier.init.shared::cta.b64 [%r2+24], 1;
INIT_DONE:
	bar.sync 0;
	setp.ge.u32 %p2, %r1, 128;
	@%p2 bra PRODUCER;
	setp.eq.u32 %p5, %r1, 0;
	setp.ne.b32 %p4, 1, 0;
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mov.u32 %r10, 0;
LOOP_C:
	and.b32 %r11, %r10, 1;
	shr.u32 %r12, %r10, 1;
	and.b32 %r12, %r12, 1;
	shl.b32 %r13, %r11, 3;
	add.u32 %r14, %r2, %r13;
	add.u32 %r19, %r14, 16;
WAIT_F:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r14], %r12;
	@!%p3 bra WAIT_F;
	mul.lo.u32 %r15, %r11, 2304;
	add.u32 %r16, %r3, %r15;
	shr.u32 %r17, %r16, 4;
	cvt.u64.u32 %rd2, %r17;
	or.b64 %rd2, %rd2, 0x0000001000080000;
	add.u64 %rd3, %rd2, 128;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0, %f1, %f2, %f3}, %rd2, %rd3, %p4, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
` + body + `	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p6, %r10, 6;
	@%p6 bra LOOP_C;
	mov.b32 %r9, %f0;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd1, %rd1, %rd4;
	st.global.u32 [%rd1], %r9;
	ret;
PRODUCER:
	setp.ne.u32 %p6, %r1, 128;
	@%p6 bra DONE;
	mov.u32 %r10, 0;
LOOP_P:
	and.b32 %r11, %r10, 1;
	shr.u32 %r12, %r10, 1;
	and.b32 %r12, %r12, 1;
	xor.b32 %r12, %r12, 1;
	shl.b32 %r13, %r11, 3;
	add.u32 %r14, %r2, %r13;
	add.u32 %r19, %r14, 16;
WAIT_E:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r19], %r12;
	@!%p3 bra WAIT_E;
	mul.lo.u32 %r15, %r11, 2304;
	add.u32 %r16, %r3, %r15;
	st.shared.v4.u32 [%r16], {%r10, %r10, %r10, %r10};
	st.shared.v4.u32 [%r16+2048], {%r10, %r10, %r10, %r10};
	fence.proxy.async.shared::cta;
	mbarrier.arrive.release.cta.shared::cta.b64 _, [%r14];
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p6, %r10, 6;
	@%p6 bra LOOP_P;
DONE:
	ret;
}`
}

// TestWgmmaReleaseByOneThread: a wgmma is one operation of its warpgroup,
// so one thread's completed wgmma.wait_group comes after every warp's
// issue, and after each warp's mbarrier wait for the operands. A stage
// released by that one thread cannot be refilled before a slow warp has
// looked at its "full" barrier: no phase lapping, under every schedule.
// Released before the wait, the refill overwrites the operands of a wgmma
// in flight, and the checker says so.
func TestWgmmaReleaseByOneThread(t *testing.T) {
	src := wsPipeline(true)
	for _, s := range []Schedule{Lazy, Eager, Latest, Random} {
		for seed := uint64(1); seed <= 3; seed++ {
			m := run(t, src, 1, 160, 4*160, Options{Check: true, Schedule: s, Seed: seed})
			for _, h := range m.Errors() {
				t.Errorf("schedule %v seed %d: unexpected %s", s, seed, h)
			}
		}
	}
	// The bug can also make a slow warp miss its phase and hang: the run's
	// error is not what is tested here.
	m, _ := runErr(t, wsPipeline(false), 1, 160, 4*160, Options{Check: true})
	var kinds []string
	for _, h := range m.Errors() {
		kinds = append(kinds, string(h.Kind))
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, string(HzAsyncSourceReuse)) {
		t.Errorf("release before wgmma.wait_group: hazards %q, want %s", got, HzAsyncSourceReuse)
	}
}
