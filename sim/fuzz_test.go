package sim

import (
	"os"
	"testing"

	"github.com/tcsim/tcsim/launch"
)

// FuzzCompileRun compiles arbitrary PTX and, when it has a kernel that
// takes only pointers, runs a short launch: nothing may panic, every
// failure must be an error.
func FuzzCompileRun(f *testing.F) {
	for _, name := range []string{"../gpu/testdata/saxpy.ptx", "../gpu/testdata/wgmma.ptx", "../gpu/testdata/tma.ptx"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(ptxHeader + ".visible .entry k(.param .u64 out) { .reg .b32 %r<4>; .reg .pred %p<2>; mov.u32 %r1, %tid.x; L: add.u32 %r1, %r1, 1; setp.lt.u32 %p1, %r1, 40; @%p1 bra L; ret; }"))
	f.Add([]byte(ptxHeader + ".visible .entry k(.param .u64 out) { .reg .b64 %rd<4>; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1+4096], 1; ret; }"))
	f.Add([]byte(ptxHeader + ".visible .entry k(.param .u64 out) { .shared .b64 b; .reg .b32 %r<4>; .reg .pred %p<2>; mov.u32 %r1, b; mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0; ret; }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := CompileSource("f.ptx", src, "")
		if err != nil {
			return
		}
		decls, err := launch.KernelParams(p.Module.Func(p.Kernel.Name))
		if err != nil {
			return
		}
		l := &launch.Launch{Grid: launch.Dim3{1, 1, 1}, Block: launch.Dim3{64, 1, 1}}
		for _, d := range decls {
			if d.Size != 8 {
				return
			}
			l.Params = append(l.Params, launch.BufferData("", make([]byte, 256)))
		}
		m, err := p.Launch(l, Options{Check: true, MaxSteps: 20000})
		if err != nil {
			return
		}
		_ = m.Run()
		_ = m.Hazards()
	})
}
