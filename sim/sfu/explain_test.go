package sfu

import "testing"

// TestExplainAgrees: Explain's result (the lowering run with a tracer) is
// Eval's (the same code called directly, without one) for operands of
// every kind: 2000 of every domain of every form, and the edge values
// (zeros, subnormals, range limits, infinities, NaNs) as every operand;
// and it names the MUFU it ran.
func TestExplainAgrees(t *testing.T) {
	for _, f := range Forms() {
		check := func(a, b uint64) {
			got, steps := f.Explain(a, b)
			if want := f.Eval(a, b); got != want {
				t.Fatalf("%s(%#x, %#x): Explain %#x, Eval %#x", f.Op, a, b, got, want)
			}
			if len(steps) == 0 {
				t.Fatalf("%s(%#x): no steps", f.Op, a)
			}
		}
		for _, d := range f.Domains() {
			for k := uint32(0); k < 2000; k++ {
				i := uint32(Mix64(uint64(k)+uint64(len(f.Op))+uint64(len(d.Name))<<32) >> (64 - d.Bits))
				check(d.Input(i))
			}
		}
		for _, e := range EdgeValues() {
			switch f.Kind {
			case Binary32:
				check(uint64(e), 0x3F800000)
				check(0x3F800000, uint64(e))
			case Unary64:
				check(uint64(e)<<32, 0)
				check(uint64(e)<<32|uint64(e), 0)
			case Unary16, Unary16x2:
				check(uint64(e>>16), 0)
				check(uint64(e&0xFFFF), 0)
			default:
				check(uint64(e), 0)
			}
		}
	}
}
