package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// smemParts splits smem.<major>.<swizzle>.b<bits>.
func smemParts(t *testing.T, name string) (major, swz string, bits int) {
	t.Helper()
	p := strings.Split(name, ".")
	if len(p) != 4 || p[0] != "smem" {
		t.Fatalf("bad SMEM atom name %s", name)
	}
	if _, err := fmt.Sscanf(p[3], "b%d", &bits); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p[1], p[2], bits
}

// TestSMEMAtoms checks every shared-memory atom against the byte-level
// definition of the swizzle modes: the unswizzled atom stores rows of W
// bytes one after another (K-major: a row is one MN index, K contiguous;
// MN-major: a row is one K index, MN contiguous); the 32B/64B/128B modes
// then XOR the 16-byte granule index (byte bits 4..) with the row bits
// (byte bits 7..), and 128B-with-32B-atomicity XORs the 32-byte chunk
// (bits 5-6) with bits 7-8. Each atom must also be a bijection onto its
// footprint, and have the ISA's swizzle-atom shape.
func TestSMEMAtoms(t *testing.T) {
	n := 0
	for _, a := range Filter("smem") {
		if a.Kind != KindSMEM || a.Family != "smem" {
			continue
		}
		n++
		major, swz, bits := smemParts(t, a.Name)
		width := map[string]int{"inter": 16, "sw32": 32, "sw64": 64, "sw128": 128, "sw128a32": 128}[swz]
		if width == 0 {
			t.Fatalf("%s: unknown swizzle %s", a.Name, swz)
		}
		// The ISA's atom shape in 16-byte units (MN x K).
		perUnit := 128 / bits
		mnUnits, kUnits := 8, width/16
		if major == "mn" {
			mnUnits, kUnits = width/16, 8
		}
		if swz == "sw128a32" {
			mnUnits, kUnits = 8, 4
		}
		wantRows, wantCols := mnUnits, kUnits*perUnit
		if major == "mn" {
			wantRows, wantCols = mnUnits*perUnit, kUnits
		}
		if a.Rows != wantRows || a.Cols != wantCols {
			t.Errorf("%s: tile %dx%d, want %dx%d", a.Name, a.Rows, a.Cols, wantRows, wantCols)
		}
		seen := make([]bool, a.Rows*a.Cols)
		for mn := 0; mn < a.Rows; mn++ {
			for k := 0; k < a.Cols; k++ {
				var bit int // unswizzled bit address
				if major == "k" {
					bit = mn*width*8 + k*bits
				} else {
					bit = k*width*8 + mn*bits
				}
				byteAddr, sub := bit/8, bit%8
				switch swz {
				case "sw32", "sw64", "sw128":
					granules := width / 16
					byteAddr ^= ((byteAddr >> 7) & (granules - 1)) << 4
				case "sw128a32":
					byteAddr ^= ((byteAddr >> 7) & 3) << 5
				}
				want := (byteAddr*8 + sub) / bits
				got := a.Offset(mn, k)
				if got != want {
					t.Fatalf("%s: (mn %d, k %d) at element %d, want %d", a.Name, mn, k, got, want)
				}
				if got < 0 || got >= len(seen) || seen[got] {
					t.Fatalf("%s: element offset %d out of range or used twice", a.Name, got)
				}
				seen[got] = true
			}
		}
	}
	if n != 25 {
		t.Errorf("checked %d SMEM atoms, want 25", n)
	}
}

// TestSMEMLegality pins which element widths and majors the ISA allows:
// wgmma transposes only 16-bit types; tcgen05 transposes every kind but
// .kind::mxf4/.mxf4nvf4 (packed 4-bit), and .kind::tf32 only with 128B
// swizzling at 32B atomicity, which no other kind may transpose with.
func TestSMEMLegality(t *testing.T) {
	for _, tt := range []struct {
		name string
		arch string // "" = must not exist
	}{
		{"smem.k.sw128.b16", "sm_90a"}, {"smem.mn.sw128.b16", "sm_90a"},
		{"smem.k.inter.b8", "sm_90a"}, {"smem.mn.inter.b8", "sm_100a"},
		{"smem.k.sw64.b32", "sm_90a"}, {"smem.mn.sw64.b32", ""}, {"smem.mn.sw128a32.b32", "sm_100a"},
		{"smem.k.sw32.b4", "sm_100a"}, {"smem.mn.sw32.b4", ""},
		{"smem.mn.sw128a32.b16", ""}, {"smem.k.sw128a32.b32", ""},
	} {
		a, err := Lookup(tt.name)
		switch {
		case tt.arch == "" && err == nil:
			t.Errorf("%s exists, but the ISA does not allow it", tt.name)
		case tt.arch != "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.arch != "" && a.Arch != tt.arch:
			t.Errorf("%s: arch %s, want %s", tt.name, a.Arch, tt.arch)
		}
	}
}
