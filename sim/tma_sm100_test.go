package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// TestSm100TensorMaps launches an sm_100a kernel with the tensor maps only
// sm_100a drivers accept, given in launch syntax (their encoding is
// tcsim's model, not hardware-verified): a 16u4_align8b map (a packed
// 4-bit tensor whose coordinates along dimension 0 count 4-bit elements)
// and a 128B_atom_32B map (128-byte rows whose 32-byte units are XORed
// with the row number mod 4). The TMA copy's bytes in shared memory are
// checked against both layouts computed here; the same launch for an
// sm_90a kernel is refused with a clear error.
func TestSm100TensorMaps(t *testing.T) {
	const rows = 8
	kernel := func(target string, x int) string {
		return fmt.Sprintf(`.version 9.0
.target %s
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out) {
	.reg .pred %%p<4>; .reg .b32 %%r<20>; .reg .b64 %%rd<8>;
	.shared .align 1024 .b8 buf[1024];
	.shared .align 8 .b64 mbar;
	mov.u32 %%r1, %%tid.x;
	mov.u32 %%r2, buf;
	mov.u32 %%r3, mbar;
	setp.ne.u32 %%p1, %%r1, 0;
	@%%p1 bra NOINIT;
	mbarrier.init.shared::cta.b64 [%%r3], 1;
	fence.mbarrier_init.release.cluster;
NOINIT:
	bar.sync 0;
	@%%p1 bra NOCOPY;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%r3], 1024;
	mov.b64 %%rd1, tm;
	mov.u32 %%r4, %d;
	mov.u32 %%r5, 0;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%%r2], [%%rd1, {%%r4, %%r5}], [%%r3];
NOCOPY:
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %%p2, [%%r3], 0;
	@!%%p2 bra WAIT;
	shl.b32 %%r6, %%r1, 4;
	add.u32 %%r7, %%r2, %%r6;
	ld.shared.v4.u32 {%%r10, %%r11, %%r12, %%r13}, [%%r7];
	ld.param.u64 %%rd2, [out];
	cvta.to.global.u64 %%rd2, %%rd2;
	mul.wide.u32 %%rd3, %%r6, 1;
	add.s64 %%rd2, %%rd2, %%rd3;
	st.global.v4.u32 [%%rd2], {%%r10, %%r11, %%r12, %%r13};
	ret;
}`, target, x)
	}
	for _, c := range []struct {
		name, spec string
		rowBytes   int
		x          int // the box's coordinate along dimension 0, in elements
		want       func(T []byte, phys int) byte
	}{
		// 512 4-bit elements (256 bytes) a row; the box: elements 256-511
		{"16u4_align8b", "tmap:buf=T,dtype=16u4_align8b,dims=512x8,box=256x8", 256, 256,
			func(T []byte, phys int) byte { return T[phys/128*256+128+phys%128] }},
		// 64 bf16 (128 bytes) a row; 32-byte unit u of row r lands at unit u ^ (r % 4)
		{"128B_atom_32B", "tmap:buf=T,dtype=bf16,dims=64x8,box=64x8,swizzle=128B_atom_32B", 128, 0,
			func(T []byte, phys int) byte {
				r, b := phys/128, phys%128
				u := (b / 32) ^ (r % 4)
				return T[r*128+u*32+b%32]
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			T := randBytes(77, c.rowBytes*rows)
			tm, err := launch.ParseParam(c.spec)
			if err != nil {
				t.Fatalf("the launch syntax: %v", err)
			}
			mk := func() *launch.Launch {
				return &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{64, 1, 1},
					Params:  []launch.Param{tm, launch.BufferData("out", make([]byte, 1024))},
					Buffers: []launch.Param{launch.BufferData("T", append([]byte(nil), T...))}}
			}
			for _, opts := range probeSchedules {
				m, err := Prepare("k.ptx", []byte(kernel("sm_100a", c.x)), mk(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Run(); err != nil {
					t.Fatalf("%s: %v", opts.Schedule, err)
				}
				noHazards(t, m)
				out, _ := m.Buffer("out")
				for phys := 0; phys < 1024; phys++ {
					if got, want := out.Data[phys], c.want(T, phys); got != want {
						t.Fatalf("%s: shared byte %d = %#x, want %#x", opts.Schedule, phys, got, want)
					}
				}
			}
			_, err = Prepare("k.ptx", []byte(kernel("sm_90a", c.x)), mk(), Options{})
			if err == nil || !strings.Contains(err.Error(), "sm_90a") || !strings.Contains(err.Error(), "not supported by the simulator") {
				t.Errorf("an sm_90a kernel with this map: %v, want the refusal", err)
			}
		})
	}
}
