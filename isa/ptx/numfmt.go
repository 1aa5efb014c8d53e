package ptx

import "github.com/tcsim/tcsim/isa/numfmt"

// numFormats maps the scalar types that have a number format to it.
var numFormats = map[Type]*numfmt.Format{
	F64: numfmt.F64, F32: numfmt.F32, TF32: numfmt.TF32, F16: numfmt.F16, BF16: numfmt.BF16,
	E4M3: numfmt.E4M3, E5M2: numfmt.E5M2, E2M3: numfmt.E2M3, E3M2: numfmt.E3M2, E2M1: numfmt.E2M1,
	UE8M0: numfmt.UE8M0, UE4M3: numfmt.UE4M3,
	S64: numfmt.S64, S32: numfmt.S32, S16: numfmt.S16, S8: numfmt.S8, S4: numfmt.S4,
	U64: numfmt.U64, U32: numfmt.U32, U16: numfmt.U16, U8: numfmt.U8, U4: numfmt.U4,
	B1: numfmt.B1,
}

// NumFormat returns the number format of a scalar type (isa/numfmt's
// description of its bits), or nil for a type that has none: the packed
// types (.f16x2), the untyped bit types other than .b1, .pred and the
// opaque types.
func (t Type) NumFormat() *numfmt.Format { return numFormats[t] }
