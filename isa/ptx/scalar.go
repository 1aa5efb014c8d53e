package ptx

// Size returns the size of a value of type t in bytes: Bits/8, 0 for the
// types narrower than a byte (.pred, .b1, the 4- and 6-bit formats).
func (t Type) Size() int { return t.Bits() / 8 }

// IsFloat reports whether t is a floating-point type (the packed and
// narrow formats included).
func (t Type) IsFloat() bool { return t.Kind() == KindFloat }

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t.Kind() == KindSigned }
