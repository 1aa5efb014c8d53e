package catalog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$`)

// TestAtomsWellFormed checks the fields every consumer relies on.
func TestAtomsWellFormed(t *testing.T) {
	all := All()
	if len(all) < 250 {
		t.Fatalf("catalog has %d atoms, want the full set (> 250)", len(all))
	}
	seen := map[string]bool{}
	arches := map[string]bool{"sm_75": true, "sm_80": true, "sm_90": true, "sm_90a": true, "sm_100a": true}
	for _, a := range all {
		if seen[a.Name] {
			t.Errorf("duplicate name %s", a.Name)
		}
		seen[a.Name] = true
		if !nameRE.MatchString(a.Name) {
			t.Errorf("%s: name is not lower case and dot separated", a.Name)
		}
		if !strings.HasPrefix(a.Name, a.Family+".") {
			t.Errorf("%s: name does not start with its family %q", a.Name, a.Family)
		}
		if !strings.HasPrefix(a.Section, "9.7.1") {
			t.Errorf("%s: section %q is not an ISA 9.7.x section", a.Name, a.Section)
		}
		if !arches[a.Arch] {
			t.Errorf("%s: arch %q", a.Name, a.Arch)
		}
		if a.Summary == "" || a.Notes == "" || a.CuTe == "" {
			t.Errorf("%s: summary, notes and CuTe must all be set", a.Name)
		}
		if a.ElemBits <= 0 || a.Rows <= 0 || a.Cols <= 0 || a.RowName == "" || a.ColName == "" {
			t.Errorf("%s: incomplete tile or element description", a.Name)
		}
		// Verification comes from the recorded layout probes
		// (fixtures/layouts, checked by gpu/probe's TestCatalogVerified)
		// or from the facts recorded in shared/REFERENCES.md.
		if a.Verified != "" && hardwareVerified[a.Name] == "" && a.Name != "wgmma.m64n8.d.f32" && a.Name != "wgmma.m64k16.a.reg.b16" {
			t.Errorf("%s: claims hardware verification %q without a recorded fact", a.Name, a.Verified)
		}
		if v := hardwareVerified[a.Name]; v != "" && a.Verified != v {
			t.Errorf("%s: Verified %q, the recorded probes say %q", a.Name, a.Verified, v)
		}
		if a.Verified != "" && a.NeedsArch != "" {
			t.Errorf("%s: verified, yet needs %s", a.Name, a.NeedsArch)
		}
		if a.Arch == "sm_100a" && a.NeedsArch != "sm_100a" {
			t.Errorf("%s: sm_100a atom must say NeedsArch sm_100a", a.Name)
		}
		if a.Arch != "sm_100a" && a.NeedsArch != "" {
			t.Errorf("%s: an H100 can check it, NeedsArch must be empty", a.Name)
		}
		switch a.Kind {
		case KindTV:
			if a.TV.Rows != a.Rows || a.TV.Cols != a.Cols {
				t.Errorf("%s: TV tile %dx%d, atom tile %dx%d", a.Name, a.TV.Rows, a.TV.Cols, a.Rows, a.Cols)
			}
			if a.Broadcast < 1 {
				t.Errorf("%s: Broadcast must be >= 1", a.Name)
			}
			if a.Broadcast == 1 && a.ValsPerReg*a.ElemBits != 32 {
				t.Errorf("%s: %d values of %d bits per register do not fill 32 bits", a.Name, a.ValsPerReg, a.ElemBits)
			}
			if a.Broadcast > 1 && a.ValsPerReg != 0 {
				t.Errorf("%s: a broadcast SMEM operand is not in registers, ValsPerReg must be 0", a.Name)
			}
			if th := a.Threads(); th != 32 && th != 128 {
				t.Errorf("%s: %d threads", a.Name, th)
			}
		case KindSMEM, KindTMEM:
			if a.Offsets.Size() != a.Rows*a.Cols {
				t.Errorf("%s: offsets cover %d cells, tile has %d", a.Name, a.Offsets.Size(), a.Rows*a.Cols)
			}
			if a.Threads() != 0 || a.Values() != a.Rows*a.Cols {
				t.Errorf("%s: Threads/Values %d/%d", a.Name, a.Threads(), a.Values())
			}
			if a.Kind == KindTMEM && a.CTAs != 1 && a.CTAs != 2 {
				t.Errorf("%s: CTAs = %d", a.Name, a.CTAs)
			}
		default:
			t.Errorf("%s: unknown kind %v", a.Name, a.Kind)
		}
		// Every atom is found by its own name and by its family.
		if !containsAtom(Filter(a.Name), a.Name) || !containsAtom(Filter(a.Family), a.Name) {
			t.Errorf("%s: Filter does not find it by name or family", a.Name)
		}
		if got, err := Lookup(strings.ToUpper(a.Name)); err != nil || got.Name != a.Name {
			t.Errorf("Lookup(%s) = %s, %v", a.Name, got.Name, err)
		}
	}
}

// TestFamilyCounts pins the size of every family, so that an atom that
// silently disappears is noticed.
func TestFamilyCounts(t *testing.T) {
	want := map[string]int{
		// 32 N for f32 and f16, 18 legal N for s32; 3 register A, 3 SMEM A,
		// 3 x 32 SMEM B.
		"wgmma": 32 + 32 + 18 + 3 + 3 + 96,
		// A and B of m16n8k8 (b16, tf32), m16n8k16, m16n8k32; D f32/f16/s32.
		"mma.sync": 11,
		"ldmatrix": 6, "stmatrix": 6,
		// 8 + 8 + 7 + 6 + 8 .num values, 5 TMEM layouts x 3 N.
		"tcgen05": 37 + 15 + 2, // data path, TMEM accumulators, scale factors (memory chunk, TMEM)
		// K: 4 widths x 4 modes; MN: 2 widths x 4 modes; MN sw128a32 b32.
		"smem": 16 + 8 + 1,
	}
	got := map[string]int{}
	for _, a := range All() {
		got[a.Family]++
	}
	for f, n := range want {
		if got[f] != n {
			t.Errorf("family %s: %d atoms, want %d", f, got[f], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("families %v, want %v", got, want)
	}
}

// TestCoverage proves that every thread-value atom covers its tile exactly
// as documented: once per cell, 128 times per cell for the broadcast SMEM
// operands, and for the 16-lane tcgen05 shapes exactly the lanes each warp
// reaches.
func TestCoverage(t *testing.T) {
	for _, a := range All() {
		if a.Kind != KindTV {
			continue
		}
		if a.Broadcast > 1 {
			checkBroadcast(t, a)
			continue
		}
		lanes16 := a.Family == "tcgen05" && strings.HasPrefix(a.Name, "tcgen05.16x")
		for i, owners := range a.TV.Owners() {
			row, col := i%a.Rows, i/a.Rows
			want := 1
			if lanes16 && row%32 >= 16 {
				want = 0
			}
			if len(owners) != want {
				t.Errorf("%s: cell (%d,%d) has %d owners, want %d", a.Name, row, col, len(owners), want)
				break
			}
		}
	}
	// Count the owners of a few broadcast operands pair by pair too.
	for _, name := range []string{"wgmma.m64k16.a.smem.b16", "wgmma.m64k8.a.smem.tf32", "wgmma.n8k32.b.smem.b8", "wgmma.n256k16.b.smem.b16"} {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, owners := range a.TV.Owners() {
			if len(owners) != 128 {
				t.Fatalf("%s: cell %d has %d owners, want 128", name, i, len(owners))
			}
			for j, o := range owners {
				if o.Thread != j || o.Value != i {
					t.Fatalf("%s: cell %d owner %d is %+v; want thread %d, value %d", name, i, j, o, j, i)
				}
			}
		}
	}
}

// checkBroadcast proves exactly, without visiting all Threads x Values
// pairs, that every cell of a broadcast atom has Broadcast owners: the
// thread mode has stride 0 everywhere (so every thread maps like thread
// 0), it has Broadcast threads, and the value mode visits every cell once.
func checkBroadcast(t *testing.T, a Atom) {
	t.Helper()
	for _, s := range a.TV.Layout.Stride.Mode(0).Leaves() {
		if s != 0 {
			t.Errorf("%s: broadcast atom has thread stride %d", a.Name, s)
			return
		}
	}
	if a.Threads() != a.Broadcast {
		t.Errorf("%s: %d threads, Broadcast %d", a.Name, a.Threads(), a.Broadcast)
	}
	seen := make([]bool, a.Rows*a.Cols)
	for v := 0; v < a.Values(); v++ {
		i := a.TV.Index(0, v)
		if i != v || seen[i] {
			t.Errorf("%s: value %d at cell %d; want value v at cell v, once", a.Name, v, i)
			return
		}
		seen[i] = true
	}
	if a.Values() != len(seen) {
		t.Errorf("%s: %d values for %d cells", a.Name, a.Values(), len(seen))
	}
}

func containsAtom(as []Atom, name string) bool {
	for _, a := range as {
		if a.Name == name {
			return true
		}
	}
	return false
}

func names(as []Atom) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

func TestFilter(t *testing.T) {
	tests := []struct {
		query   string
		want    []string // must be present
		wantNot []string // must be absent
		exact   int      // if > 0, the exact count
	}{
		{query: "wgmma f16 n64", want: []string{"wgmma.m64n64.d.f16", "wgmma.m64k16.a.reg.b16", "wgmma.n64k16.b.smem.b16"},
			wantNot: []string{"wgmma.m64n64.d.s32", "wgmma.m64n8.d.f16", "wgmma.m64n640.d.f16"}},
		{query: "m64n64k16", want: []string{"wgmma.m64n64.d.f32", "wgmma.m64n64.d.f16", "wgmma.m64k16.a.reg.b16",
			"wgmma.m64k16.a.smem.b16", "wgmma.n64k16.b.smem.b16", "tcgen05.tmem.m64n64.d.cta1", "tcgen05.tmem.m64n64.d.ws"}, exact: 7},
		{query: "tcgen05 32x32b x1", want: []string{"tcgen05.32x32b.x1"}, exact: 1},
		{query: "wgmma n8 d", want: []string{"wgmma.m64n8.d.f32", "wgmma.m64n8.d.f16", "wgmma.m64n8.d.s32"},
			wantNot: []string{"wgmma.m64n80.d.f32", "wgmma.m64n88.d.f16"}},
		{query: "ldmatrix trans", want: []string{"ldmatrix.m8n8.x1.trans.b16", "ldmatrix.m8n8.x2.trans.b16", "ldmatrix.m8n8.x4.trans.b16"}, exact: 3},
		{query: "smem mn b8", want: []string{"smem.mn.inter.b8", "smem.mn.sw32.b8", "smem.mn.sw64.b8", "smem.mn.sw128.b8"}, exact: 4},
		{query: "SWIZZLE_128B_BASE32B", want: []string{"smem.mn.sw128a32.b32"}, exact: 1},
		{query: "tmem m64", want: []string{"tcgen05.tmem.m64n64.d.cta1", "tcgen05.tmem.m64n256.d.ws"}, exact: 6},
		{query: "no-such-thing", exact: -1},
	}
	for _, tt := range tests {
		got := Filter(tt.query)
		for _, w := range tt.want {
			if !containsAtom(got, w) {
				t.Errorf("Filter(%q) lacks %s; got %v", tt.query, w, names(got))
			}
		}
		for _, w := range tt.wantNot {
			if containsAtom(got, w) {
				t.Errorf("Filter(%q) has %s", tt.query, w)
			}
		}
		switch {
		case tt.exact > 0 && len(got) != tt.exact:
			t.Errorf("Filter(%q) = %d atoms %v, want %d", tt.query, len(got), names(got), tt.exact)
		case tt.exact < 0 && len(got) != 0:
			t.Errorf("Filter(%q) = %v, want none", tt.query, names(got))
		}
	}
	if n := len(Filter("")); n != len(All()) {
		t.Errorf("empty filter matched %d of %d", n, len(All()))
	}
}

func TestLookupErrors(t *testing.T) {
	for _, tt := range []struct{ in, near string }{
		{"wgmma.m64n64.f32", "wgmma.m64n64.d.f32"},
		{"ldmatrix.m8n8.x4.b16.trans", "ldmatrix.m8n8.x4.trans.b16"},
		{"smem.k.sw128.f16", "smem.k.sw128.b16"},
	} {
		_, err := Lookup(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.near) || !strings.Contains(err.Error(), "nearest") {
			t.Errorf("Lookup(%q) error %v, want it to suggest %s", tt.in, err, tt.near)
		}
	}
	if _, err := Lookup("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"); err == nil || !strings.Contains(err.Error(), "tcsim atoms") {
		t.Errorf("far-off name: %v", err)
	}
}

// FuzzFilter checks that no query makes Filter, Lookup or Nearest panic.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{"", "wgmma f16 n64", "x1", "9", "m64n64k16", "\x00", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		Filter(q)
		Lookup(q)
		Nearest(q, 3)
	})
}

// TestLookupCuTeAtom: CuTe's GMMA atom names find the catalog's SMEM atoms,
// and the catalog's offsets are the layout CuTe's definition gives.
func TestLookupCuTeAtom(t *testing.T) {
	for name, want := range map[string]string{
		"GMMA::Layout_K_SW128_Atom<bf16>":                      "smem.k.sw128.b16",
		"SM90::GMMA::Layout_MN_SW64_Atom<half_t>":              "smem.mn.sw64.b16",
		"cute::GMMA::Layout_K_INTER_Atom<cutlass::tfloat32_t>": "smem.k.inter.b32",
		"GMMA::Layout_K_SW32_Atom<float_e4m3_t>":               "smem.k.sw32.b8",
		" GMMA::Layout_MN_SW128_Atom<uint8_t> ":                "smem.mn.sw128.b8",
		"GMMA::Layout_K_SW128_Atom<cutlass::float_e2m1_t>":     "smem.k.sw128.b4",
	} {
		a, err := Lookup(name)
		if err != nil || a.Name != want {
			t.Errorf("Lookup(%q) = %s, %v; want %s", name, a.Name, err, want)
			continue
		}
		l, err := layouts.ParseAnyLayout(strings.TrimSpace(name))
		if err != nil || l.String() != a.Offsets.String() {
			t.Errorf("%s: CuTe's definition gives %v (%v), the catalog %v", name, l, err, a.Offsets)
		}
	}
	if _, err := Lookup("GMMA::Layout_MN_SW128_Atom<float>"); err == nil || !strings.Contains(err.Error(), "the catalog has no smem.mn.sw128.b32") {
		t.Errorf("MN-major 32-bit: %v", err)
	}
}
