package expr

import (
	"sort"
	"strings"
)

// elementBits gives the width of the element types that recast_layout
// takes as template arguments, by CuTe/CUTLASS name, C name and PTX name.
var elementBits = map[string]int{
	"bool": 8, "char": 8, "int8_t": 8, "uint8_t": 8, "int16_t": 16, "uint16_t": 16, "int32_t": 32, "uint32_t": 32,
	"int64_t": 64, "uint64_t": 64, "int": 32, "unsigned": 32, "float": 32, "double": 64, "long": 64, "short": 16,
	"half_t": 16, "bfloat16_t": 16, "tfloat32_t": 32, "float_e4m3_t": 8, "float_e5m2_t": 8, "float_ue8m0_t": 8,
	"float_ue4m3_t": 8, "float_e2m1_t": 4, "float_e2m3_t": 6, "float_e3m2_t": 6, "int4b_t": 4, "uint4b_t": 4,
	"int2b_t": 2, "uint2b_t": 2, "uint1b_t": 1, "bin1_t": 1, "uint128_t": 128, "uint256_t": 256,
	"half": 16, "__half": 16, "__nv_bfloat16": 16, "nv_bfloat16": 16,
	"b8": 8, "b16": 16, "b32": 32, "b64": 64, "b128": 128, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
	"s8": 8, "s16": 16, "s32": 32, "s64": 64, "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64,
	"e4m3": 8, "e5m2": 8, "e2m1": 4, "e2m3": 6, "e3m2": 6, "ue8m0": 8, "ue4m3": 8,
}

// TypeBits returns the width in bits of an element type name such as
// "cutlass::half_t", "uint8_t" or "bf16" (namespaces are ignored).
func TypeBits(name string) (int, bool) {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	b, ok := elementBits[name]
	return b, ok
}

func typeNames() []string {
	var out []string
	for n := range elementBits {
		if strings.HasSuffix(n, "_t") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
