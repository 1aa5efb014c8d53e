package launch_test

import (
	"fmt"

	"github.com/tcsim/tcsim/launch"
)

// ParseValue reads one scalar as --param T:VALUE does (1.00390625 is a
// tie between two bf16 values and rounds to even); FormatValue prints the
// canonical form that reads back to the same bits.
func ExampleParseValue() {
	for _, c := range []struct {
		t launch.ScalarType
		s string
	}{{launch.BF16, "1.00390625"}, {launch.E4M3, "448"}, {launch.E4M3, "500"}, {launch.S8, "0x80"}, {launch.F16, "0x7e00"}} {
		bits, err := launch.ParseValue(c.t, c.s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s %s = %#x, printed %s\n", c.t, c.s, bits, launch.FormatValue(c.t, bits))
	}
	// Output:
	// bf16 1.00390625 = 0x3f80, printed 1
	// e4m3 448 = 0x7e, printed 448
	// e4m3: 500 overflows the format (max 448)
	// s8 0x80 = 0x80, printed -128
	// f16 0x7e00 = 0x7e00, printed 0x7e00
}
