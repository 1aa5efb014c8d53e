package probe_test

import (
	"fmt"

	"github.com/tcsim/tcsim/gpu/probe"
)

// A probe case is one kernel; its checks compare catalog atoms with what
// the kernel's output says.
func ExampleLookup() {
	c := probe.Lookup("ldmatrix")
	fmt.Println(c.Title)
	fmt.Printf("%s, %d CTAs of %d threads, %d checks\n", c.Arch, c.Jobs, c.Threads, len(c.Checks))
	fmt.Println(c.Checks[5].Atom+":", c.Checks[5].How)
	// Output:
	// ldmatrix .m8n8.b16, x1/x2/x4, with and without .trans
	// sm_80, 6 CTAs of 32 threads, 6 checks
	// ldmatrix.m8n8.x4.trans.b16: shared memory holds element-index codes, lane l points at row l: each register half names its row and column
}

// Replay checks the recorded probes against the catalog without a GPU.
func ExampleReplay() {
	vs, recorded, err := probe.Replay("../../fixtures/layouts")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(recorded), "probes recorded on", recorded[0].Provenance.GPU)
	fmt.Println(probe.Summary(vs))
	for _, v := range vs {
		if v.Atom.Name == "wgmma.m64k16.a.reg.b16" || v.Atom.Name == "tcgen05.32x32b.x1" {
			fmt.Println(v.Atom.Name+":", v.Text())
		}
	}
	// Output:
	// 24 probes recorded on NVIDIA H100 80GB HBM3
	// 286 atoms: 223 verified, 0 mismatched, 0 errors, 63 need sm_100a (not verified)
	// tcgen05.32x32b.x1: needs sm_100a, not verified
	// wgmma.m64k16.a.reg.b16: verified (wgmma_areg_b16: 1024 (thread, value) pairs)
}
