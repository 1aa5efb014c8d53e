package expr

import "github.com/tcsim/tcsim/layouts"

// TypeBits returns the width in bits of an element type name such as
// "cutlass::half_t", "uint8_t" or "bf16" (namespaces are ignored).
func TypeBits(name string) (int, bool) { return layouts.ElementBits(name) }
