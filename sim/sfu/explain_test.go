package sfu

import "testing"

// TestExplainAgrees: Explain's result is Eval's for operands of every
// kind, and it names the MUFU it ran.
func TestExplainAgrees(t *testing.T) {
	for _, f := range Forms() {
		d := f.Domains()[0]
		for k := uint32(0); k < 2000; k++ {
			i := uint32(Mix64(uint64(k)+uint64(len(f.Op))) >> (64 - d.Bits))
			a, b := d.Input(i)
			got, steps := f.Explain(a, b)
			if want := f.Eval(a, b); got != want {
				t.Fatalf("%s(%#x, %#x): Explain %#x, Eval %#x", f.Op, a, b, got, want)
			}
			if len(steps) == 0 {
				t.Fatalf("%s(%#x): no steps", f.Op, a)
			}
		}
	}
}
