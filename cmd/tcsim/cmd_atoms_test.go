package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts/catalog"
)

func TestAtomsList(t *testing.T) {
	code, out, errs := runCLI(t, "atoms")
	if code != 0 || errs != "" {
		t.Fatalf("tcsim atoms: exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	all := catalog.All()
	if len(lines) != len(all)+2 {
		t.Fatalf("%d lines for %d atoms", len(lines), len(all))
	}
	for _, col := range []string{"NAME", "FAMILY", "ARCH", "ISA", "THREADS", "VALUES", "TILE", "VERIFIED"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header %q lacks %s", lines[0], col)
		}
	}
	if want := "286 atoms"; lines[len(lines)-1] != want {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
	for i, a := range all {
		f := strings.Fields(lines[i+1])
		if f[0] != a.Name || f[1] != a.Family || f[2] != a.Arch || f[3] != a.Section {
			t.Fatalf("line %q does not list %s", lines[i+1], a.Name)
		}
	}
}

func TestAtomsFilter(t *testing.T) {
	tests := []struct {
		args  []string
		names []string // exactly these, in catalog order
	}{
		{[]string{"tcgen05", "32x32b", "x1"}, []string{"tcgen05.32x32b.x1"}},
		{[]string{"ldmatrix", "x4"}, []string{"ldmatrix.m8n8.x4.b16", "ldmatrix.m8n8.x4.trans.b16"}},
		{[]string{"mma.sync", "m16n8k16"}, []string{"mma.sync.m16k16.a.b16", "mma.sync.n8k16.b.b16", "mma.sync.m16n8.d.f32", "mma.sync.m16n8.d.f16"}},
		{[]string{"SMEM", "MN", "b16", "sw128"}, []string{"smem.mn.sw128.b16"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append([]string{"atoms"}, tt.args...)...)
		if code != 0 {
			t.Errorf("atoms %v: exit %d %s", tt.args, code, errs)
			continue
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		var got []string
		for _, l := range lines[1 : len(lines)-1] {
			got = append(got, strings.Fields(l)[0])
		}
		if strings.Join(got, " ") != strings.Join(tt.names, " ") {
			t.Errorf("atoms %v = %v, want %v", tt.args, got, tt.names)
		}
	}
}

func TestAtomsLong(t *testing.T) {
	expectCLI(t, []string{"atoms", "--long", "wgmma.m64n64.d.f32"}, 0, []string{
		"wgmma.m64n64.d.f32\n",
		"PTX ISA 9.7.15.5.1.1",
		"layout  ((4,8,4),(2,2,8)):((128,1,16),(64,8,512))",
		"CuTe    SM90::GMMA::CLayout_64xN<64>",
		"128 threads x 32 values",
		"verified: H100, fixtures/layouts/wgmma_acc_f32_smem",
	}, nil, "")
	_, out, _ := runCLI(t, "atoms", "smem.k.sw128.b16", "--long")
	for _, want := range []string{"offsets Sw<3,3,3> o 0 o (8,64):(64,1)", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("smem --long lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, "atoms", "--long", "ldmatrix.m8n8.x2.b16")
	if !strings.Contains(out, "lane l supplies row l for lanes 0-15; lanes 16-31 unused") {
		t.Errorf("ldmatrix --long lacks the address rows:\n%s", out)
	}
	_, out, _ = runCLI(t, "atoms", "--long", "tmem.m128n64.d.cta2")
	if !strings.Contains(out, "over the 2 CTAs of a pair") || !strings.Contains(out, "not hardware-verified (needs sm_100a)") {
		t.Errorf("tmem --long:\n%s", out)
	}
}

func TestAtomsJSON(t *testing.T) {
	code, out, _ := runCLI(t, "atoms", "--format", "json", "wgmma", "n8")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	want := catalog.Filter("wgmma n8")
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d JSON atoms, want %d", len(got), len(want))
	}
	first := got[0]
	if first["name"] != want[0].Name || first["layout"] != want[0].Layout() || first["kind"] != "tv" ||
		first["threads"] != float64(128) || first["section"] != want[0].Section {
		t.Errorf("first JSON atom %v", first)
	}
}

func TestAtomsErrors(t *testing.T) {
	code, _, errs := runCLI(t, "atoms", "wgmma.m64n64.f32")
	if code != 1 || !strings.Contains(errs, "no atom matches") || !strings.Contains(errs, "wgmma.m64n64.d.f32") {
		t.Errorf("unknown atom: exit %d, %q", code, errs)
	}
	code, _, errs = runCLI(t, "atoms", "--format", "xml")
	if code != 2 || !strings.Contains(errs, "want text or json") {
		t.Errorf("bad format: exit %d, %q", code, errs)
	}
	code, out, _ := runCLI(t, "atoms", "--help")
	if code != 0 || !strings.Contains(out, "family.shape.operand[.source].type[.variant]") {
		t.Errorf("--help lacks the naming scheme: %d\n%s", code, out)
	}
}
