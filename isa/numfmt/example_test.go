package numfmt_test

import (
	"fmt"

	"github.com/tcsim/tcsim/isa/numfmt"
)

// ParseNumber reads a number exactly (or, for numbers that are not binary
// fractions, with a sticky bit), and Encode rounds it into a format.
func ExampleParseNumber() {
	for _, s := range []string{"448", "1/3", "0x1.8p3", "-0"} {
		v, exact, err := numfmt.ParseNumber(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, info := numfmt.E4M3.Encode(v, numfmt.RN, numfmt.Opts{Satfinite: true})
		fmt.Printf("%-7s exact=%-5v e4m3 %#02x = %s (%s)\n", s, exact, b, numfmt.E4M3.Decode(b).Decimal(), info.Why())
	}
	// Output:
	// 448     exact=true  e4m3 0x7e = 448 (exact)
	// 1/3     exact=false e4m3 0x2b = 0.34375 (.rn: rounded up in magnitude)
	// 0x1.8p3 exact=true  e4m3 0x54 = 12 (exact)
	// -0      exact=true  e4m3 0x80 = -0 (zero is exact)
}

// ParseSpec reads a cvt opcode; Inputs lists its operands.
func ExampleParseSpec() {
	s, err := numfmt.ParseSpec("cvt.rn.satfinite.e4m3x2.f32")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range s.Inputs() {
		fmt.Printf("%s: %d bits\n", o.Name, o.Bits)
	}
	_, err = numfmt.ParseSpec("cvt.rn.e4m3x2.f32")
	fmt.Println(err)
	// Output:
	// a: 32 bits
	// b: 32 bits
	// cvt.rn.e4m3x2.f32: .satfinite is required with .e4m3x2.f32
}
