package demangle

import (
	"os"
	"strings"
	"testing"
)

func cutlassName(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/cutlass_sm120_nvfp4_gemm.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestDemangle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_Z13hopper_kernel14CUtensorMap_stS_S_Pfi", "hopper_kernel(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*, int)"},
		{"_Z16blackwell_kernelPfmmj", "blackwell_kernel(float*, unsigned long, unsigned long, unsigned int)"},
		{"_Z4gemmPf14CUtensorMap_st", "gemm(float*, CUtensorMap_st)"},
		{"matmul_kernel", "matmul_kernel"}, // Triton: not mangled
		{"_Z", "_Z"},                       // malformed: unchanged
		{"_Zfoo", "_Zfoo"},
		{"", ""},
	} {
		if got := Demangle(c.in); got != c.want {
			t.Errorf("Demangle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_Z13hopper_kernel14CUtensorMap_stS_S_Pfi", "hopper_kernel(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*, int)"},
		{"_Z14general_kernelPK6float4PfPK7__half2P14__nv_bfloat162PK15__nv_fp8x2_e4m3PlPjii", "general_kernel(…)"},
		{"_ZN2ns1fEv", "ns::f()"},
		{"matmul_kernel", "matmul_kernel"},
		{strings.Repeat("x", 100), strings.Repeat("x", 80) + "…"},
	} {
		if got := Short(c.in); got != c.want {
			t.Errorf("Short(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCUTLASS(t *testing.T) {
	name := cutlassName(t)
	full := Demangle(name)
	if !strings.HasPrefix(full, "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ") ||
		!strings.HasSuffix(full, ">::Params)") {
		t.Errorf("Demangle: %.200q ... %q", full, full[max(0, len(full)-80):])
	}
	if got, want := Short(name), "cutlass::device_kernel<GemmUniversal<…>>"; got != want {
		t.Errorf("Short = %q, want %q", got, want)
	}
	if !IsMangled(name) || IsMangled("matmul_kernel") {
		t.Error("IsMangled")
	}
}

func TestElideText(t *testing.T) {
	for _, c := range []struct {
		in   string
		keep int
		want string
	}{
		{"a<b<c>, d>", 1, "a<b<…>, d>"},
		{"a<b<c>, d>", 0, "a<…>"},
		{"a<b<c<e>>, d>::P", 1, "a<b<…>, d>::P"},
		{"x::operator<<(int)", 0, "x::operator<<(int)"},
		{"f<1>()", 2, "f<1>()"},
		{"unbalanced>>", 0, "unbalanced>>"},
	} {
		if got := elideText(c.in, c.keep); got != c.want {
			t.Errorf("elideText(%q, %d) = %q, want %q", c.in, c.keep, got, c.want)
		}
	}
}

func FuzzShort(f *testing.F) {
	f.Add("_Z13hopper_kernel14CUtensorMap_stS_S_Pfi")
	f.Add("_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEEEEEvNT_6ParamsE")
	f.Add("_ZZ")
	f.Fuzz(func(t *testing.T, s string) {
		short := Short(s)
		if len(short) > MaxShort+len("…") {
			t.Errorf("Short(%q) is %d bytes", s, len(short))
		}
		_ = Demangle(s)
	})
}
