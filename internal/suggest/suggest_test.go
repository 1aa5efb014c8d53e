package suggest

import (
	"fmt"
	"reflect"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"layout", "lyaout", 2}, {"atom", "atoms", 1}, {"", "gpu", 3}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q,%q)=%d want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"layout", "atoms", "bitmath", "gpu", "run"}
	if got := Nearest("atom", cands, 2, 2); !reflect.DeepEqual(got, []string{"atoms"}) {
		t.Errorf("Nearest(atom) = %v", got)
	}
	if got := Nearest("rum", cands, 2, -1); !reflect.DeepEqual(got, []string{"run", "gpu"}) {
		t.Errorf("Nearest(rum) = %v", got)
	}
}

func ExampleNearest() {
	fmt.Println(Nearest("wgmma.fense", []string{"wgmma.fence", "wgmma.commit_group", "wgmma.wait_group"}, 1, 3))
	// Output: [wgmma.fence]
}

func TestHint(t *testing.T) {
	formats := []string{"f16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "tf32"}
	for _, c := range []struct {
		name, want string
	}{
		{"e4m4", "did you mean e4m3?"},
		{"E4M3x", "did you mean e4m3?"},
		{"f61", "did you mean f16?"},
		{"bf61", "did you mean bf16?"},
		{"e3m3", "did you mean e4m3, e2m3 or e3m2?"},
		{"zzzzzz", ""},
		{"", ""},
	} {
		if got := Hint(c.name, formats); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := HintSuffix("f61", formats); got != "; did you mean f16?" {
		t.Errorf("HintSuffix(f61) = %q", got)
	}
	if got := HintSuffix("zzzzzz", formats); got != "" {
		t.Errorf("HintSuffix(zzzzzz) = %q", got)
	}
	if got := Closest("ab", []string{"abc", "abd", "xy"}, 1, 2); !reflect.DeepEqual(got, []string{"abc"}) {
		t.Errorf("Closest keeps %v, want only the first of the tie", got)
	}
}
