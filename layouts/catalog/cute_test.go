package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tcsim/tcsim/layouts"
)

// The catalog's layouts were derived from the PTX ISA. These tests compare
// them with CuTe's own definitions, transcribed here from the CUTLASS
// headers named in each case (NVIDIA/cutlass, include/cute/atom/...).
// Where CuTe counts bits or uses another frame, the comparison is made
// cell by cell after converting CuTe's frame.

func parse(t *testing.T, s string) layouts.Layout {
	t.Helper()
	l, err := layouts.ParseLayout(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return l
}

// TestCuTeTVStrings compares layouts that CuTe defines in the same frame as
// the catalog (element units, column-major tile index).
func TestCuTeTVStrings(t *testing.T) {
	cases := map[string]string{
		// mma_traits_sm90_gmma.hpp: CLayout_64xN, ALayout_64x{8,16,32}, ABLayout.
		"wgmma.m64n8.d.f32":       "((_4,_8,_4),(_2,_2,_1)):((_128,_1,_16),(_64,_8,_512))",
		"wgmma.m64n64.d.f16":      "((_4,_8,_4),(_2,_2,_8)):((_128,_1,_16),(_64,_8,_512))",
		"wgmma.m64n256.d.s32":     "((_4,_8,_4),(_2,_2,_32)):((_128,_1,_16),(_64,_8,_512))",
		"wgmma.m64k8.a.reg.tf32":  "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))",
		"wgmma.m64k16.a.reg.b16":  "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
		"wgmma.m64k32.a.reg.b8":   "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))",
		"wgmma.m64k16.a.smem.b16": "(_128,(_64,_16)):(_0,(_1,_64))",
		"wgmma.n256k32.b.smem.b8": "(_128,(_256,_32)):(_0,(_1,_256))",
		"wgmma.n24k8.b.smem.tf32": "(_128,(_24,_8)):(_0,(_1,_24))",
		// mma_traits_sm75.hpp / mma_traits_sm80.hpp.
		"mma.sync.m16k8.a.b16":  "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
		"mma.sync.n8k8.b.b16":   "((_4,_8),_2):((_16,_1),_8)",
		"mma.sync.m16k8.a.tf32": "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
		"mma.sync.n8k8.b.tf32":  "((_4,_8),_2):((_8,_1),_32)",
		"mma.sync.m16k16.a.b16": "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
		"mma.sync.n8k16.b.b16":  "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
		"mma.sync.m16k32.a.b8":  "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
		"mma.sync.n8k32.b.b8":   "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
		"mma.sync.m16n8.d.f32":  "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
	}
	for name, cute := range cases {
		a, err := Lookup(name)
		if err != nil {
			t.Error(err)
			continue
		}
		want := parse(t, strings.ReplaceAll(cute, "_", ""))
		if !a.TV.Layout.Equal(want) {
			t.Errorf("%s: %v, CuTe has %v", name, a.TV.Layout, want)
		}
		if !strings.Contains(a.CuTe, cute) {
			t.Errorf("%s: CuTe field %q does not print %s", name, a.CuTe, cute)
		}
	}
}

// TestCuTeLdmatrix compares with Copy_Traits<SM75_*_LDSM_*>::DstLayout
// (copy_traits_sm75.hpp): (thread, bit) -> bit of the 8x8 b16 matrices
// stacked as 128-bit rows, so bit b is row b/128, element (b%128)/16.
func TestCuTeLdmatrix(t *testing.T) {
	cute := map[string]string{
		"x1": "(32,32):(32,1)", "x2": "(32,(32,2)):(32,(1,1024))", "x4": "(32,(32,4)):(32,(1,1024))",
		"x1.trans": "((4,8),(16,2)):((256,16),(1,128))",
		"x2.trans": "((4,8),(16,2,2)):((256,16),(1,128,1024))",
		"x4.trans": "((4,8),(16,2,4)):((256,16),(1,128,1024))",
	}
	for v, src := range cute {
		tv := layouts.TV{Layout: parse(t, src)}
		for _, fam := range []string{"ldmatrix", "stmatrix"} {
			a, err := Lookup(fam + ".m8n8." + v + ".b16")
			if err != nil {
				t.Fatal(err)
			}
			for lane := 0; lane < 32; lane++ {
				for val := 0; val < a.Values(); val++ {
					bit := tv.Index(lane, 16*val) // value val is bits 16val..16val+15
					r, c := a.TV.Coord(lane, val)
					if bit/128 != r || (bit%128)/16 != c {
						t.Fatalf("%s: lane %d value %d at (%d,%d), CuTe (%d,%d)", a.Name, lane, val, r, c, bit/128, (bit%128)/16)
					}
				}
			}
		}
	}
}

// TestCuTeTMEMLoad compares the tcgen05 data-path atoms with
// Copy_Traits<SM100_TMEM_LOAD_*>::DstLayout (copy_traits_sm100.hpp), per
// warp: (thread, bit) -> bit of a TMEM row-major image whose rows (lanes)
// are rowBits wide. Register r is bits 32r..32r+31.
func TestCuTeTMEMLoad(t *testing.T) {
	for _, c := range []struct {
		name    string
		rowBits int
		dst     string
	}{
		{"tcgen05.16x256b.x1", 256, "((4,8),(64,2)):((64,256),(1,2048))"},
		{"tcgen05.16x256b.x2", 512, "((4,8),(64,2,2)):((64,512),(1,4096,256))"},
		{"tcgen05.16x128b.x1", 128, "((4,8),(32,2)):((32,128),(1,1024))"},
		{"tcgen05.16x128b.x2", 256, "((4,8),(32,2,2)):((32,256),(1,2048,128))"},
		{"tcgen05.16x64b.x1", 64, "((2,2,8),32):((512,32,64),1)"},
		{"tcgen05.16x64b.x2", 128, "((2,2,8),(32,2)):((1024,32,128),(1,64))"},
		{"tcgen05.16x32bx2.x1", 64, "((16,2),32):((64,32),1)"},
		{"tcgen05.16x32bx2.x2", 128, "((16,2),64):((128,64),1)"},
		{"tcgen05.32x32b.x1", 32, "(32,32):(32,1)"},
		{"tcgen05.32x32b.x2", 64, "(32,64):(64,1)"},
	} {
		a, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		tv := layouts.TV{Layout: parse(t, c.dst)}
		for lane := 0; lane < 32; lane++ {
			for r := 0; r < a.Values(); r++ {
				bit := tv.Index(lane, 32*r)
				wantLane, wantCol := bit/c.rowBits, (bit%c.rowBits)/32
				gotLane, gotCol := a.TV.Coord(lane, r) // warp 0
				if gotLane != wantLane || gotCol != wantCol {
					t.Fatalf("%s: lane %d reg %d at (%d,%d), CuTe (%d,%d)", c.name, lane, r, gotLane, gotCol, wantLane, wantCol)
				}
			}
		}
	}
}

// TestCuTeTMEMPlacement compares the accumulator placements with the
// tmem_atom layouts of UMMA::tmem_frg / tmem_frg_ws
// (mma_traits_sm100_frag.hpp), which use a virtual address with lane
// stride 1 and column stride 128, for one CTA's M x N part.
func TestCuTeTMEMPlacement(t *testing.T) {
	for _, n := range []int{64, 128, 256} {
		for _, c := range []struct {
			name string
			atom string // (M_per_CTA, N) -> virtual address
		}{
			{fmt.Sprintf("tcgen05.tmem.m128n%d.d.cta1", n), fmt.Sprintf("(128,%d):(1,128)", n)},
			{fmt.Sprintf("tcgen05.tmem.m64n%d.d.cta1", n), fmt.Sprintf("((16,4),%d):((1,32),128)", n)},
			{fmt.Sprintf("tcgen05.tmem.m64n%d.d.ws", n), fmt.Sprintf("(64,(%d,2)):(1,(128,64))", n/2)},
			{fmt.Sprintf("tcgen05.tmem.m128n%d.d.cta2", n), fmt.Sprintf("(64,(%d,2)):(1,(128,64))", n/2)},
			{fmt.Sprintf("tcgen05.tmem.m256n%d.d.cta2", n), fmt.Sprintf("(128,%d):(1,128)", n)},
		} {
			a, err := Lookup(c.name)
			if err != nil {
				t.Fatal(err)
			}
			l := parse(t, c.atom)
			per := a.Rows / a.CTAs
			for m := 0; m < a.Rows; m++ {
				for col := 0; col < a.Cols; col++ {
					v := l.Eval(m%per + per*col)
					_, lane, tcol := a.TMEM(m, col)
					if lane != v%128 || tcol != v/128 {
						t.Fatalf("%s: (%d,%d) at lane %d col %d, CuTe lane %d col %d", c.name, m, col, lane, tcol, v%128, v/128)
					}
				}
			}
		}
	}
}

// TestCuTeSMEM compares the SMEM atoms with GMMA::Layout_{K,MN}_*_Atom_Bits
// (mma_traits_sm90_gmma.hpp) and UMMA::Layout_MN_SW128_32B_Atom_Bits
// (mma_traits_sm100.hpp): layouts over bits whose swizzle acts on the byte
// address.
func TestCuTeSMEM(t *testing.T) {
	bitsLayout := map[string]string{
		"mn.inter": "(128,8):(1,128)", "mn.sw32": "(256,8):(1,256)", "mn.sw64": "(512,8):(1,512)", "mn.sw128": "(1024,8):(1,1024)",
		"k.inter": "(8,128):(128,1)", "k.sw32": "(8,256):(256,1)", "k.sw64": "(8,512):(512,1)", "k.sw128": "(8,1024):(1024,1)",
		"mn.sw128a32": "(1024,4):(1,1024)",
	}
	swz := map[string][3]int{"inter": {0, 4, 3}, "sw32": {1, 4, 3}, "sw64": {2, 4, 3}, "sw128": {3, 4, 3}, "sw128a32": {2, 5, 2}}
	for _, a := range Filter("smem") {
		if a.Kind != KindSMEM || a.Family != "smem" {
			continue
		}
		major, mode, bits := smemParts(t, a.Name)
		l := parse(t, bitsLayout[major+"."+mode])
		s := swz[mode]
		sw, err := layouts.NewSwizzle(s[0], s[1], s[2])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.CuTe, fmt.Sprintf("Sw<%d,%d,%d>", s[0], s[1], s[2])) {
			t.Errorf("%s: CuTe form %q lacks Sw<%d,%d,%d>", a.Name, a.CuTe, s[0], s[1], s[2])
		}
		for mn := 0; mn < a.Rows; mn++ {
			for k := 0; k < a.Cols; k++ {
				var crd layouts.IntTuple
				if major == "k" {
					crd = layouts.Ints(mn, k*bits)
				} else {
					crd = layouts.Ints(mn*bits, k)
				}
				bit, err := l.Crd2Idx(crd)
				if err != nil {
					t.Fatal(err)
				}
				cuteBit := sw.Apply(bit/8)*8 + bit%8
				if got := a.Offset(mn, k) * bits; got != cuteBit {
					t.Fatalf("%s: (%d,%d) at bit %d, CuTe bit %d", a.Name, mn, k, got, cuteBit)
				}
			}
		}
	}
}
