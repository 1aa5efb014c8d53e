package catalog

import (
	"strings"
	"testing"
)

func TestFindSmem(t *testing.T) {
	for _, tc := range []struct {
		k    SmemKey
		want string // the atom's name, or "" for an error
	}{
		{SmemKey{Swizzle: 128, Bits: 16}, "smem.k.sw128.b16"},
		{SmemKey{MN: true, Swizzle: 64, Bits: 16}, "smem.mn.sw64.b16"},
		{SmemKey{Bits: 8}, "smem.k.inter.b8"},
		{SmemKey{MN: true, Swizzle: 128, Atom32: true, Bits: 32}, "smem.mn.sw128a32.b32"},
		{SmemKey{Swizzle: 256, Bits: 16}, ""},
		{SmemKey{Swizzle: 32, Bits: 7}, ""},
	} {
		a, err := FindSmem(tc.k)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%+v: found %s, want an error", tc.k, a.Name)
		case tc.want == "" && !strings.Contains(err.Error(), tc.k.String()):
			t.Errorf("%+v: error %q does not name %s", tc.k, err, tc.k.String())
		case tc.want != "" && (err != nil || a.Name != tc.want):
			t.Errorf("%+v: got %q, %v; want %s", tc.k, a.Name, err, tc.want)
		}
	}
	// Every shared-memory atom is reached by its key.
	n := 0
	for _, a := range All() {
		if a.Kind != KindSMEM || a.Family != "smem" {
			continue
		}
		n++
		got, err := FindSmem(a.Smem)
		if err != nil || got.Name != a.Name {
			t.Errorf("%s: FindSmem(%+v) = %q, %v", a.Name, a.Smem, got.Name, err)
		}
	}
	if n == 0 {
		t.Fatal("no shared-memory atoms")
	}
}
