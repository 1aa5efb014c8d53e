package probe

import (
	"testing"

	"github.com/tcsim/tcsim/isa/desc"
	"github.com/tcsim/tcsim/isa/ptx"
	"github.com/tcsim/tcsim/layouts"
	"github.com/tcsim/tcsim/layouts/catalog"
)

// TestModelledHardwareAgrees runs every case on the model of the
// hardware built from the catalog: every check must pass. This exercises
// the input generators, the PTX-independent half of each probe, and the
// decoders, end to end.
func TestModelledHardwareAgrees(t *testing.T) {
	for _, c := range Cases() {
		out := catalogHardware.run(c)
		for _, k := range c.Checks {
			if o := k.Run(out); !o.OK() {
				t.Errorf("%s", o)
			}
		}
	}
}

func withTV(t *testing.T, name, tv string) catalog.Atom {
	t.Helper()
	a, err := catalog.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layouts.ParseLayout(tv)
	if err != nil {
		t.Fatal(err)
	}
	a.TV = layouts.TV{Layout: l, Rows: a.Rows, Cols: a.Cols}
	return a
}

// TestPlantedMismatch plants a wrong layout in the modelled hardware: the
// check of that atom must report a mismatch at the first (thread, value)
// or cell that differs.
func TestPlantedMismatch(t *testing.T) {
	for _, p := range []struct {
		caseName, atom string
		wrong          catalog.Atom
		first          string
	}{
		// Values 1 and 2 of every group of four swapped.
		{"wgmma_acc_f32_smem", "wgmma.m64n64.d.f32", withTV(t, "wgmma.m64n64.d.f32", "((4,8,4),(2,2,8)):((128,1,16),(8,64,512))"),
			"thread 0 value 1 (register 1): hardware (m 8, n 0), catalog (m 0, n 1)"},
		{"wgmma_areg_b16", "wgmma.m64k16.a.reg.b16", withTV(t, "wgmma.m64k16.a.reg.b16", "((4,8,4),(2,2,2)):((128,1,16),(64,512,8))"),
			"thread 0 value 2 (register 1, part 0): hardware (m 0, k 8), catalog (m 8, k 0)"},
		{"mma_m16n8k16_f32_f16", "mma.sync.m16k16.a.b16", withTV(t, "mma.sync.m16k16.a.b16", "((4,8),(2,2,2)):((32,1),(16,128,8))"),
			"thread 0 value 2 (register 1, part 0): hardware (m 0, k 8), catalog (m 8, k 0)"},
		{"ldmatrix", "ldmatrix.m8n8.x4.trans.b16", withTV(t, "ldmatrix.m8n8.x4.trans.b16", "((4,8),(2,4)):((64,1),(32,8))"), ""},
		{"stmatrix", "stmatrix.m8n8.x2.b16", withTV(t, "stmatrix.m8n8.x2.b16", "((4,8),(2,2)):((2,16),(1,8))"), ""},
	} {
		if p.wrong.Kind == catalog.KindTV {
			// A planted layout that leaves its tile is a bug in this test.
			if _, err := layouts.NewTV(p.wrong.TV.Layout, p.wrong.Rows, p.wrong.Cols); err != nil {
				t.Fatalf("%s: %v", p.atom, err)
			}
		}
		c := Lookup(p.caseName)
		out := plant(p.atom, p.wrong).run(c)
		found := false
		for _, k := range c.Checks {
			if k.Atom != p.atom {
				continue
			}
			found = true
			o := k.Run(out)
			if o.OK() || o.Mismatches == 0 {
				t.Errorf("%s: planted layout passed: %s", p.atom, o)
				continue
			}
			if p.first != "" && o.First != p.first {
				t.Errorf("%s: first mismatch %q, want %q", p.atom, o.First, p.first)
			}
			t.Logf("%s", o)
		}
		if !found {
			t.Errorf("case %s has no check of %s", p.caseName, p.atom)
		}
	}

	// A shared-memory fault: hardware that XORs the 16-byte chunk with
	// (row/2)%4 where the catalog's 128B atom says row%8, for rows of 128
	// bytes (a 64B pattern on a 128B layout).
	c := Lookup("wgmma_smem_k_b16")
	h := catalogHardware
	h.smem = func(l desc.SmemLayout) desc.SmemLayout {
		if l.Swizzle == desc.Swizzle128B {
			l.BaseOffset = 1 // the pattern's phase slips by one row
		}
		return l
	}
	out := h.run(c)
	for _, k := range c.Checks {
		o := k.Run(out)
		if k.Atom == "smem.k.sw128.b16" {
			if o.OK() {
				t.Errorf("phase-slipped 128B swizzle passed: %s", o)
			} else if want := "cell (mn 0, k 0): hardware read element 56, catalog element 0"; o.First != want {
				t.Errorf("first mismatch %q, want %q", o.First, want)
			}
			t.Logf("%s", o)
		} else if !o.OK() {
			t.Errorf("a fault of the 128B mode only changed another check: %s", o)
		}
	}
}

// TestPTXValid runs every probe kernel through tcsim's PTX validator.
func TestPTXValid(t *testing.T) {
	for _, c := range Cases() {
		if _, errs := ptx.Check(c.Name+".ptx", []byte(c.PTX)); len(errs) > 0 {
			t.Errorf("%s: %v", c.Name, errs)
		}
	}
}
