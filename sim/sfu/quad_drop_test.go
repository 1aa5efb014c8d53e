package sfu

import "testing"

// TestDropTable: the table built from smaller entries is the dropped
// partial products summed term by term, for every Xl of every width the
// tables use.
func TestDropTable(t *testing.T) {
	for L := uint(15); L <= 20; L++ {
		tab := dropTable(L)
		for x := range tab {
			if want := dropSum(L, uint32(x)); tab[x] != want {
				t.Fatalf("L=%d Xl=%#x: table %#x, term by term %#x", L, x, tab[x], want)
			}
		}
	}
}
