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
